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
    // A new tournament: Neuberg follows the seating (on for a movement, SPEC 10) until
    // the organiser sets it.
    var seatingForm = target.closest && target.closest("[data-neuberg-follows]");
    if (seatingForm && target.name === "neuberg") target.dataset.touched = "1";
    // Pairs or teams: the form shows the fields of the one chosen (console.css).
    var kindForm = target.closest && target.closest("[data-contestants-form]");
    if (kindForm && target.name === "contestants") kindForm.dataset.contestants = target.value;
    if (seatingForm && target.name === "seating") {
      var neuberg = seatingForm.querySelector("input[name=neuberg]");
      if (neuberg && !neuberg.dataset.touched) neuberg.checked = target.value !== "swiss";
    }
  });

  // A row of the table page that the player is working in: focus inside it, or a
  // field whose value differs from what the server rendered (a half-typed result, a
  // dispute note). The live refresh must not wipe it.
  function controlChanged(el) {
    if (el.type === "hidden" || el.type === "submit" || el.type === "button") return false;
    if (el.tagName === "SELECT") {
      for (var i = 0; i < el.options.length; i++) {
        if (el.options[i].selected !== el.options[i].defaultSelected) return true;
      }
      return false;
    }
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    return el.value !== el.defaultValue;
  }

  function rowInUse(row) {
    if (row.contains(document.activeElement) && document.activeElement !== row &&
        document.activeElement.matches("input, select, textarea")) return true;
    var controls = row.querySelectorAll("form input, form select, form textarea");
    for (var i = 0; i < controls.length; i++) if (controlChanged(controls[i])) return true;
    return false;
  }

  // The poller's answer swaps changed rows out of band. A row in use keeps its form
  // (its old version stays, so the next poll offers it again) and takes only the
  // row's notice (e.g. "paused by the director").
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("board-row")) return;
    if (!rowInUse(target)) return;
    event.detail.shouldSwap = false;
    target.classList.add("kept");
    var incoming = event.detail.fragment && event.detail.fragment.querySelector("[data-row-notice]");
    var current = target.querySelector("[data-row-notice]");
    if (incoming && current) current.replaceWith(incoming.cloneNode(true));
    // Say so when what the server holds for this board moved under the player's typing.
    var fresh = event.detail.fragment && event.detail.fragment.querySelector(".br-result");
    var shown = target.querySelector(".br-result");
    var changed = target.querySelector("[data-row-changed]");
    if (fresh && shown && changed && fresh.textContent.trim() !== shown.textContent.trim()) {
      changed.hidden = false;
    }
  });

  document.addEventListener("htmx:load", function (event) { initForms(event.target); });
  document.addEventListener("DOMContentLoaded", function () {
    document.documentElement.classList.add("js");
    initForms(document);
    tick();
    setInterval(tick, 250);
  });
})();
