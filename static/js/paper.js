// Wide tables on phones and paper: a cue that a grid scrolls sideways, and print buttons.
// Everything works without it (the hint text shows on narrow screens by CSS alone).
(function () {
  "use strict";

  // A grid wider than its box gets a fade on the side that has more columns, and its
  // hint stays; a grid that fits loses both.
  function update(box) {
    var more = box.scrollWidth - box.clientWidth > 2;
    box.classList.toggle("more-right", more && box.scrollLeft + box.clientWidth < box.scrollWidth - 2);
    box.classList.toggle("more-left", more && box.scrollLeft > 2);
    var hint = box.previousElementSibling;
    if (hint && hint.hasAttribute("data-scroll-hint")) hint.hidden = !more;
  }

  function init() {
    var boxes = document.querySelectorAll("[data-scroll-cue]");
    for (var i = 0; i < boxes.length; i++) {
      (function (box) {
        update(box);
        box.addEventListener("scroll", function () { update(box); }, { passive: true });
      })(boxes[i]);
    }
    window.addEventListener("resize", function () {
      for (var j = 0; j < boxes.length; j++) update(boxes[j]);
    });
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-print]")) window.print();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
