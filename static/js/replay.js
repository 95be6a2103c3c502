// The board page's replay, like a hand viewer: each table's auction call by call, then
// the play trick by trick and card by card, the four hands losing their cards as they are
// played, the trick in the middle and the tricks each side has won.
//
// Built only from the record the page already shows (templates/tournaments/
// _play_record.html puts the deal, the calls and the cards on each replay's data-*
// attributes, where the board page has decided they may be seen): no request, nothing
// more. Without this script the record's tables are the record; on paper too (the
// replay is hidden in print and every record printed open).
(function () {
  "use strict";

  var SEATS = ["N", "E", "S", "W"];
  var SUITS = ["S", "H", "D", "C"];
  var SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) {
      if (key === "text") node.textContent = attrs[key];
      else node.setAttribute(key, attrs[key]);
    }
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function words(text) { return (text || "").split(/\s+/).filter(Boolean); }

  function fmt(text, values) {
    return text.replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
  }

  function rank(r) { return r === "T" ? "10" : r; }

  function suitSpan(suit) {
    return el("span", { class: "suit" + (suit === "H" || suit === "D" ? " red" : ""), text: SYMBOL[suit] });
  }

  function cardFace(card) {
    return el("span", { class: "rp-card" }, [suitSpan(card[0]), document.createTextNode(rank(card.slice(1)))]);
  }

  // "N:AK.QJ.T9.8765 …" (any first seat) -> {N: {S: ["A", "K"], …}, …}
  function hands(deal) {
    var first = deal.split(":")[0].trim().toUpperCase();
    var start = SEATS.indexOf(first);
    var out = {};
    words(deal.slice(deal.indexOf(":") + 1)).forEach(function (hand, offset) {
      var holding = {};
      hand.split(".").forEach(function (ranks, i) { holding[SUITS[i]] = ranks.split(""); });
      out[SEATS[(start + offset) % 4]] = holding;
    });
    return out;
  }

  function Replay(root) {
    var d = root.dataset;
    this.root = root;
    this.deal = hands(d.deal);
    this.dealer = d.dealer;
    this.calls = words(d.calls);
    this.plays = words(d.plays).map(function (p) { return { seat: p[0], card: p.slice(1) }; });
    this.winners = words(d.winners);
    this.names = {};
    var names = words(d.seats);
    SEATS.forEach(function (s, i) { this.names[s] = names[i] || s; }, this);
    this.total = this.calls.length + this.plays.length;
    this.step = 0;
    this.build();
    this.show(0);
  }

  Replay.prototype.build = function () {
    var d = this.root.dataset;
    var self = this;
    this.handNodes = {};
    this.slotNodes = {};
    var table = el("div", { class: "rp-table" });
    SEATS.forEach(function (seat) {
      var hand = el("div", { class: "rp-hand rp-" + seat, "data-seat": seat }, [
        el("div", { class: "rp-seat", text: self.names[seat] }),
      ]);
      var rows = {};
      SUITS.forEach(function (suit) {
        var ranks = el("span", { class: "rp-ranks" });
        rows[suit] = ranks;
        hand.appendChild(el("div", { class: "rp-holding" }, [suitSpan(suit), ranks]));
      });
      self.handNodes[seat] = { node: hand, rows: rows };
      table.appendChild(hand);
    });
    var trick = el("div", { class: "rp-trick", "aria-hidden": "true" });
    SEATS.forEach(function (seat) {
      var slot = el("div", { class: "rp-slot rp-slot-" + seat });
      self.slotNodes[seat] = slot;
      trick.appendChild(slot);
    });
    table.appendChild(trick);

    this.auctionBody = el("tbody");
    var head = el("tr", null, SEATS.map(function (s) { return el("th", { text: self.names[s] }); }));
    var auction = el("table", { class: "data rp-auction" }, [el("thead", null, [head]), this.auctionBody]);
    this.count = el("p", { class: "rp-count" });
    this.status = el("p", { class: "rp-step", role: "status", "aria-live": "polite" });

    function button(key, symbol, label) {
      var b = el("button", { type: "button", class: "button small", "data-step": key, title: label, "aria-label": label },
        [el("span", { "aria-hidden": "true", text: symbol })]);
      b.addEventListener("click", function () { self.go(key); });
      return b;
    }
    this.buttons = {
      first: button("first", "\u00ab", d.textFirst),
      back: button("back", "\u25c0", d.textBack),
      forward: button("forward", "\u25b6", d.textForward),
      last: button("last", "\u00bb", d.textLast),
    };
    var controls = el("div", { class: "rp-controls" }, [
      this.buttons.first, this.buttons.back, this.buttons.forward, this.buttons.last,
    ]);
    this.root.appendChild(el("div", { class: "rp-board" }, [
      table,
      el("div", { class: "rp-side" }, [auction, this.count]),
    ]));
    this.root.appendChild(this.status);
    this.root.appendChild(controls);
    this.root.appendChild(el("p", { class: "rp-keys muted", text: d.textKeys }));
    this.root.addEventListener("keydown", function (event) {
      var keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
      var key = keys[event.key];
      if (!key || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      self.go(key);
    });
    // A trick of the record's table below: the replay goes to the end of that trick.
    var record = this.root.closest("details");
    if (record) Array.prototype.forEach.call(record.querySelectorAll("table.play tr[data-trick]"), function (row) {
      row.classList.add("rp-jump");
      row.addEventListener("click", function () {
        var n = parseInt(row.dataset.trick, 10);
        self.show(Math.min(self.total, self.calls.length + n * 4));
        self.root.focus();
      });
    });
    this.root.hidden = false;
  };

  Replay.prototype.go = function (key) {
    var to = { first: 0, back: this.step - 1, forward: this.step + 1, last: this.total }[key];
    this.show(Math.max(0, Math.min(this.total, to)));
  };

  Replay.prototype.callText = function (call) {
    var d = this.root.dataset;
    if (call === "P") return document.createTextNode(d.pass);
    if (call === "X" || call === "XX") return document.createTextNode(call);
    var strain = call.slice(1);
    var span = el("span", { class: "rp-call" }, [document.createTextNode(call[0])]);
    span.appendChild(strain === "NT" ? document.createTextNode(d.nt) : suitSpan(strain));
    return span;
  };

  Replay.prototype.show = function (step) {
    var d = this.root.dataset;
    var self = this;
    this.step = step;
    var calls = Math.min(step, this.calls.length);
    var played = Math.max(0, step - this.calls.length);
    this.root.dataset.step = String(step);

    // The auction so far, in rows under N E S W from the dealer on.
    this.auctionBody.textContent = "";
    var cells = [];
    for (var i = 0; i < SEATS.indexOf(this.dealer); i++) cells.push(null);
    this.calls.slice(0, calls).forEach(function (call, i) { cells.push({ call: call, last: i === calls - 1 && played === 0 }); });
    for (var r = 0; r < cells.length || r === 0; r += 4) {
      var row = el("tr");
      for (var c = r; c < r + 4; c++) {
        var cell = cells[c];
        var td = el("td", cell && cell.last ? { class: "rp-now" } : null);
        if (cell) td.appendChild(this.callText(cell.call));
        row.appendChild(td);
      }
      this.auctionBody.appendChild(row);
      if (!cells.length) break;
    }

    // The hands without the cards played so far; the trick of the last card played.
    var gone = {};
    this.plays.slice(0, played).forEach(function (p) { gone[p.seat + p.card] = true; });
    var next = played < this.plays.length && step >= this.calls.length ? this.plays[played].seat : null;
    SEATS.forEach(function (seat) {
      var hand = self.handNodes[seat];
      hand.node.classList.toggle("rp-turn", seat === next);
      SUITS.forEach(function (suit) {
        var left = self.deal[seat][suit].filter(function (r) { return !gone[seat + suit + r]; });
        hand.rows[suit].textContent = left.length ? left.map(rank).join(" ") : "\u2014";
      });
    });
    var trick = played ? Math.floor((played - 1) / 4) : -1;
    SEATS.forEach(function (seat) { self.slotNodes[seat].textContent = ""; self.slotNodes[seat].className = "rp-slot rp-slot-" + seat; });
    if (trick >= 0) {
      this.plays.slice(trick * 4, played).forEach(function (p, i) {
        var slot = self.slotNodes[p.seat];
        slot.appendChild(cardFace(p.card));
        if (i === 0) slot.classList.add("rp-led");
        if (played - trick * 4 === 4 && self.winners[trick] === p.seat) slot.classList.add("rp-won");
      });
    }

    // Tricks won by each side, counting the tricks complete so far.
    var ns = 0, ew = 0;
    for (var t = 0; (t + 1) * 4 <= played && t < this.winners.length; t++) {
      if (this.winners[t] === "N" || this.winners[t] === "S") ns++;
      else if (this.winners[t] === "E" || this.winners[t] === "W") ew++;
    }
    this.count.textContent = d.textTricks + ": " + d.textNs + " " + ns + " \u00b7 " + d.textEw + " " + ew;

    var text;
    if (step === this.total && step > 0) text = d.claim || d.textEnd;
    else if (step === 0) text = d.textStart;
    else if (played === 0) text = fmt(d.textCall, { n: calls, total: this.calls.length });
    else text = fmt(d.textCard, { trick: trick + 1, card: played - trick * 4 });
    this.status.textContent = text;
    var focused = document.activeElement;
    this.buttons.first.disabled = this.buttons.back.disabled = step === 0;
    this.buttons.forward.disabled = this.buttons.last.disabled = step === this.total;
    // A button disabled under the keyboard's focus would drop it to the page: the keys
    // go on working on the replay.
    if (focused && focused.disabled && this.root.contains(focused)) this.root.focus();
  };

  // Paper shows every record open (the replay itself is hidden by print.css).
  var closed = [];
  window.addEventListener("beforeprint", function () {
    closed = Array.prototype.filter.call(document.querySelectorAll("details.play-record"), function (x) { return !x.open; });
    closed.forEach(function (x) { x.open = true; });
  });
  window.addEventListener("afterprint", function () {
    closed.forEach(function (x) { x.open = false; });
    closed = [];
  });

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-replay]"), function (root) {
      if (!root.dataset.ready) { root.dataset.ready = "1"; new Replay(root); }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
