// Small progressive enhancements; every page works without them.
(function () {
  "use strict";

  // Round clocks count down against the server's clock, not the device's: the page
  // carries the server's time at render, so offset = server − device at that moment.
  function initClock(el) {
    if (el.dataset.offset !== undefined) return;
    var serverNow = Date.parse(el.dataset.serverNow);
    el.dataset.offset = String(isNaN(serverNow) ? 0 : serverNow - Date.now());
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function format(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    return h ? h + ":" + pad(m) + ":" + pad(sec) : pad(m) + ":" + pad(sec);
  }

  function tick() {
    var clocks = document.querySelectorAll("[data-clock]");
    for (var i = 0; i < clocks.length; i++) {
      var el = clocks[i];
      initClock(el);
      var left = Date.parse(el.dataset.deadline) - (Date.now() + Number(el.dataset.offset));
      var time = el.querySelector("[data-clock-time]");
      var done = el.querySelector("[data-clock-done]");
      if (time) time.textContent = format(left);
      el.classList.toggle("urgent", left > 0 && left <= 5 * 60 * 1000);
      el.classList.toggle("expired", left <= 0);
      if (done) done.hidden = left > 0;
    }
  }

  // The result form: "All pass" needs no strain, declarer or play.
  function syncPassOut(form) {
    var level = form.querySelector("select[name$='-level']");
    if (!level) return;
    var passed = level.value === "P";
    var parts = form.querySelectorAll("[data-not-pass]");
    for (var i = 0; i < parts.length; i++) {
      parts[i].classList.toggle("disabled", passed);
      var controls = parts[i].querySelectorAll("select, input");
      for (var j = 0; j < controls.length; j++) controls[j].disabled = passed;
      if (parts[i].matches("select, input")) parts[i].disabled = passed;
    }
  }

  function initForms(root) {
    var forms = (root || document).querySelectorAll("[data-result-form]");
    for (var i = 0; i < forms.length; i++) syncPassOut(forms[i]);
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("select[data-autosubmit]")) target.form.submit();
    var form = target.closest && target.closest("[data-result-form]");
    if (form && target.name && /-level$/.test(target.name)) syncPassOut(form);
  });

  document.addEventListener("htmx:load", function (event) { initForms(event.target); });
  document.addEventListener("DOMContentLoaded", function () {
    document.documentElement.classList.add("js");
    initForms(document);
    tick();
    setInterval(tick, 250);
  });
})();
