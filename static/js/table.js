// The table in the browser (RULES 9, issue 17): one plain ES module, no build.
//
// Everything drawn comes from the table server's per-seat view (docs/PLAY_PROTOCOL.md):
// the socket's `snapshot` on (re)connecting, a `view` per stored action, an `error`
// with the view to play on from, `round_closed` at the bell. The page never holds a
// card its seat may not see: the server never sends one. Text the players typed
// (alerts) and names are set as text, never as HTML.

const cfg = JSON.parse(document.getElementById("bt-config").textContent);
const S = cfg.strings;
const SEATS = ["N", "E", "S", "W"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = "23456789TJQKA";
const REFUSED = new Set([4401, 4403, 4404]);
// server's clock − this device's, at load: the round clock counts on the server's time.
const CLOCK_OFFSET = (Date.parse(cfg.serverNow) || Date.now()) - Date.now();

const me = cfg.seat; // null: watching (an organiser, or anyone after the close)
const bottom = me || "S";

let board = cfg.current;
let view = null;
let lastSeq = -1;
let socket = null;
let retryDelay = 500;
let refused = false;
let showLast = false;
let claimOpen = false;
let closed = cfg.closed ? { round: cfg.round, next: undefined } : null;
let notice = "";

// -- small helpers -------------------------------------------------------------------

function fmt(text, params) {
  return text.replace(/%\((\w+)\)s/g, (_, key) => String(params[key] ?? ""));
}

// A translated sentence whose placeholders are nodes (a contract drawn with its suit).
function fmtNodes(text, params) {
  return text.split(/(%\(\w+\)s)/).map((part) => {
    const match = /^%\((\w+)\)s$/.exec(part);
    return match ? params[match[1]] ?? "" : part;
  });
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const $ = (id) => document.getElementById(id);
const seatAt = (offset) => SEATS[(SEATS.indexOf(bottom) + offset) % 4];
const sideOf = (seat) => (seat === "N" || seat === "S" ? "NS" : "EW");
const partnerOf = (seat) => SEATS[(SEATS.indexOf(seat) + 2) % 4];
const seatName = (seat) => S[seat];
const rankText = (rank) => (rank === "T" ? "10" : rank);

function suitSpan(suit) {
  return h("span", { class: `bt-sym s-${suit}`, "aria-hidden": "true" }, SYMBOL[suit]);
}

function cardLabel(card) {
  return `${rankText(card[1])} ${S["suit_" + card[0]]}`;
}

function cardFace(card) {
  return h("span", { class: `bt-face s-${card[0]}` }, suitSpan(card[0]), rankText(card[1]),
    h("span", { class: "visually-hidden" }, cardLabel(card)));
}

function callNode(call) {
  if (call === "P") return h("span", { class: "bt-call pass" }, S.pass_short);
  if (call === "X") return h("span", { class: "bt-call dbl" }, S.double_short);
  if (call === "XX") return h("span", { class: "bt-call rdbl" }, S.redouble_short);
  const level = call[0];
  const strain = call.slice(1);
  if (strain === "NT" || strain === "N") return h("span", { class: "bt-call" }, level, S.NT);
  return h("span", { class: "bt-call" }, level, suitSpan(strain),
    h("span", { class: "visually-hidden" }, S["suit_" + strain]));
}

function callTitle(call) {
  if (call === "P") return S.pass;
  if (call === "X") return S.double;
  if (call === "XX") return S.redouble;
  const strain = call.slice(1);
  return `${call[0]} ${strain === "NT" || strain === "N" ? S.suit_N : S["suit_" + strain]}`;
}

function contractNode(contract) {
  const match = /^(\d)(NT|N|S|H|D|C)(X{0,2})$/.exec(contract || "");
  if (!match) return h("span", {}, contract || "");
  return h("span", { class: "bt-contract" }, callNode(match[1] + match[2]), match[3]);
}

function strainOf(contract) {
  const match = /^\d(NT|N|S|H|D|C)/.exec(contract || "");
  return match ? match[1][0] : null;
}

// Tricks from the cards in the order played (the view's `play`): each trick is four
// cards; the winner is the highest trump, or the highest card of the suit led.
function tricksOf(v) {
  const tricks = [];
  const trump = strainOf(v.contract);
  for (let i = 0; i < v.play.length; i += 4) {
    const cards = v.play.slice(i, i + 4);
    let winner = null;
    if (cards.length === 4) {
      const led = cards[0].card[0];
      let best = cards[0];
      for (const entry of cards.slice(1)) {
        const suit = entry.card[0];
        const bestSuit = best.card[0];
        const beats =
          (suit === bestSuit && RANKS.indexOf(entry.card[1]) > RANKS.indexOf(best.card[1])) ||
          (suit === trump && bestSuit !== trump);
        if (beats && (suit === led || suit === trump)) best = entry;
      }
      winner = best.seat;
    }
    tricks.push({ cards, winner });
  }
  return tricks;
}

function cardsPlayedBy(v, seat) {
  return v.play.filter((entry) => entry.seat === seat).length;
}

function sortHand(cards) {
  return [...cards].sort((a, b) =>
    SUITS.indexOf(a[0]) - SUITS.indexOf(b[0]) || RANKS.indexOf(b[1]) - RANKS.indexOf(a[1]));
}

// -- the socket ------------------------------------------------------------------------

function setConnection(state) {
  $("bt").dataset.state = state;
  $("bt-conn").textContent = S[state] || state;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}${cfg.wsPath}${board}/`);
  socket = ws;
  setConnection(socket === ws && view ? "reconnecting" : "connecting");
  ws.addEventListener("open", () => {
    retryDelay = 500;
  });
  ws.addEventListener("message", (event) => {
    if (ws !== socket) return;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    receive(message);
  });
  ws.addEventListener("close", (event) => {
    if (ws !== socket) return; // a board left behind
    socket = null;
    if (refused || REFUSED.has(event.code)) {
      refused = true;
      setConnection("refused");
      render();
      return;
    }
    setConnection("reconnecting");
    setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 8000);
  });
}

function take(message) {
  if (message.board !== undefined && message.board !== board) return false;
  if (!message.view || message.seq < lastSeq) return false;
  view = message.view;
  lastSeq = message.seq;
  return true;
}

function receive(message) {
  switch (message.type) {
    case "snapshot":
      setConnection("connected");
      notice = "";
      take(message);
      break;
    case "view":
      if (take(message)) notice = "";
      break;
    case "error":
      if (!message.view) {
        refused = true;
        notice = message.error || S.refused;
      } else {
        take({ ...message, board });
        notice = message.error;
      }
      break;
    case "round":
      followClock(message);
      return; // the clock only: the table is as it was
    case "round_closed":
      closed = { round: message.round, next: message.next };
      stopClock();
      if (message.view) take({ ...message, seq: Math.max(lastSeq, 0) });
      break;
    default:
      return;
  }
  render();
}

function send(kind, fields) {
  if (!socket || socket.readyState !== WebSocket.OPEN || !view) return;
  socket.send(JSON.stringify({ type: "action", seq: view.next_seq, action: kind, ...fields }));
}

function goToBoard(number) {
  board = number;
  view = null;
  lastSeq = -1;
  showLast = false;
  claimOpen = false;
  notice = "";
  const old = socket;
  socket = null;
  if (old) old.close();
  connect();
  render();
}

// -- drawing ---------------------------------------------------------------------------

function isMyTurn(v) {
  return Boolean(me && v.legal && v.legal.length);
}

function seatPanel(v, seat, position) {
  const dummy = v.declarer && !v.over && v.play.length ? partnerOf(v.declarer) : null;
  const vul = v.vulnerability === "Both" || v.vulnerability === sideOf(seat);
  const classes = ["bt-hand", `pos-${position}`];
  if (v.turn === seat && !v.over && !closed) classes.push("turn");
  if (vul) classes.push("vul");
  const tags = [];
  if (v.dealer === seat) tags.push(h("abbr", { class: "bt-tag dealer", title: S.dealer }, S.dealer_mark));
  if (v.declarer === seat) tags.push(h("span", { class: "bt-tag", title: S.declarer }, S.declarer));
  if (v.declarer && partnerOf(v.declarer) === seat) tags.push(h("span", { class: "bt-tag" }, S.dummy));
  const name = cfg.names[seat] || "";
  const label = h("div", { class: "bt-name" },
    h("strong", {}, seatName(seat)), " ", h("span", { class: "bt-player" }, name),
    seat === me ? h("span", { class: "bt-you" }, ` (${S.you})`) : null, " ", tags);
  const cards = v.hands[seat];
  let body;
  if (cards) {
    const playable = new Set(isMyTurn(v) && v.turn === seat ? v.legal : []);
    const hand = sortHand(cards);
    body = h("div", { class: "bt-suits", "aria-label": seat === me ? S.your_hand : seatName(seat) },
      SUITS.map((suit) => {
        const held = hand.filter((card) => card[0] === suit);
        return h("div", { class: `bt-suit s-${suit}` },
          h("span", { class: "bt-suit-sym" }, suitSpan(suit),
            h("span", { class: "visually-hidden" }, S["suit_" + suit])),
          held.length ? held.map((card) => playable.has(card)
            ? h("button", {
                type: "button", class: "bt-card playable", "data-card": card,
                "data-key": "card-" + card, "aria-label": fmt(S.play_card, { card: cardLabel(card) }),
                onclick: () => send("card", { card }),
              }, rankText(card[1]))
            : h("span", { class: "bt-card", "data-card": card }, rankText(card[1])))
          : h("span", { class: "bt-void" }, "—"));
      }));
  } else {
    const left = Math.max(0, 13 - cardsPlayedBy(v, seat));
    body = h("div", { class: "bt-hidden" }, fmt(S.cards_left, { n: left }));
  }
  const panel = h("div", { class: classes.join(" "), "data-seat": seat }, label, body);
  if (seat === dummy) panel.classList.add("dummy");
  return panel;
}

function centre(v) {
  const tricks = tricksOf(v);
  const wrap = h("div", { class: "bt-centre-inner" });
  const info = h("div", { class: "bt-board-info" },
    h("strong", {}, fmt(S.board, { n: board })), " · ",
    `${S.dealer}: ${seatName(v.dealer)}`, " · ",
    h("span", { class: v.vulnerability === "None" ? "" : "bt-vul-text" }, S["vul_" + v.vulnerability]));
  wrap.append(info);
  if (v.contract) {
    let ns = tricks.filter((t) => t.winner && sideOf(t.winner) === "NS").length;
    let ew = tricks.filter((t) => t.winner && sideOf(t.winner) === "EW").length;
    if (v.over && v.result && v.result.tricks !== null) {
      // Over (a claim may have ended it early): declarer's tricks as the result counts them.
      const declarers = v.result.tricks;
      [ns, ew] = sideOf(v.result.declarer) === "NS" ? [declarers, 13 - declarers] : [13 - declarers, declarers];
    }
    const mySide = me ? sideOf(me) : "NS";
    const we = mySide === "NS" ? ns : ew;
    const they = mySide === "NS" ? ew : ns;
    wrap.append(h("div", { class: "bt-contract-line" },
      `${S.contract}: `, fmtNodes(S.by, { contract: contractNode(v.contract), seat: seatName(v.declarer) })));
    wrap.append(h("div", { class: "bt-tricks", "data-we": we, "data-they": they },
      `${S.tricks}: `,
      me ? `${S.we} ${we} · ${S.they} ${they}` : `${S.seat_N}${S.seat_S} ${ns} · ${S.seat_E}${S.seat_W} ${ew}`));
  }
  // The trick on the table: the one being played, or the one just completed until the
  // next lead; the one before on request.
  let shown = null;
  let last = false;
  const complete = tricks.filter((t) => t.cards.length === 4);
  if (showLast) {
    const inProgress = tricks.length > 0 && tricks[tricks.length - 1].cards.length < 4;
    shown = complete[complete.length - (inProgress ? 1 : 2)] || null;
    last = true;
  } else if (tricks.length) {
    shown = tricks[tricks.length - 1];
  }
  const trick = h("div", { class: "bt-trick" + (last ? " last" : ""), id: "bt-trick" });
  if (last) trick.append(h("div", { class: "bt-trick-label" }, shown ? S.last_trick : S.no_last_trick));
  if (shown) {
    for (const entry of shown.cards) {
      const position = ["bottom", "left", "top", "right"][(SEATS.indexOf(entry.seat) - SEATS.indexOf(bottom) + 4) % 4];
      trick.append(h("div", {
        class: `bt-played at-${position}${shown.winner === entry.seat ? " won" : ""}`,
        "data-seat": entry.seat, "data-card": entry.card,
      }, cardFace(entry.card)));
    }
  }
  wrap.append(trick);
  return wrap;
}

function auctionGrid(v) {
  const order = ["W", "N", "E", "S"];
  const head = h("tr", {}, order.map((seat) => {
    const vul = v.vulnerability === "Both" || v.vulnerability === sideOf(seat);
    return h("th", { scope: "col", class: vul ? "vul" : "", title: vul ? S.vul : null },
      S["seat_" + seat], v.dealer === seat ? h("abbr", { class: "bt-tag dealer", title: S.dealer }, S.dealer_mark) : null);
  }));
  const cells = [];
  for (let i = 0; i < order.indexOf(v.dealer); i++) cells.push(h("td", {}));
  const notes = [];
  for (const entry of v.auction) {
    const cell = h("td", { title: callTitle(entry.call), "data-call": entry.call }, callNode(entry.call));
    if (entry.alert) {
      notes.push(entry.alert);
      cell.classList.add("alerted");
      cell.title = `${callTitle(entry.call)} — ${S.alerted}: ${entry.alert}`;
      cell.append(h("sup", { class: "bt-alert-mark" }, String(notes.length)));
    }
    cells.push(cell);
  }
  if (!v.contract && !v.over && v.turn && !closed) cells.push(h("td", { class: "bt-next" }, "?"));
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(h("tr", {}, cells.slice(i, i + 4)));
  const table = h("table", { class: "bt-auction-grid" },
    h("caption", {}, S.auction), h("thead", {}, head), h("tbody", {}, rows));
  const list = notes.length
    ? h("ol", { class: "bt-alerts" }, notes.map((text) => h("li", {}, h("span", { class: "bt-alert-word" }, `${S.alert}: `), text)))
    : null;
  return [table, list];
}

function biddingBox(v) {
  const legal = new Set(v.legal);
  const alertInput = h("input", {
    type: "text", id: "bt-alert", maxlength: "200", autocomplete: "off",
    placeholder: S.alert_placeholder, "aria-label": S.alert_placeholder,
  });
  const call = (value) => {
    const alert = alertInput.value.trim();
    send("call", alert ? { call: value, alert } : { call: value });
  };
  const grid = h("div", { class: "bt-bids", role: "group", "aria-label": S.bidding_box });
  for (let level = 1; level <= 7; level++) {
    for (const strain of ["C", "D", "H", "S", "NT"]) {
      const bid = `${level}${strain}`;
      grid.append(legal.has(bid)
        ? h("button", { type: "button", class: "bt-bid", "data-call": bid, "data-key": "call-" + bid,
            title: callTitle(bid), onclick: () => call(bid) }, callNode(bid))
        : h("span", { class: "bt-bid-gap", "aria-hidden": "true" }));
    }
  }
  const specials = h("div", { class: "bt-specials" },
    [["P", S.pass, "pass"], ["X", S.double, "dbl"], ["XX", S.redouble, "rdbl"]]
      .filter(([value]) => legal.has(value))
      .map(([value, text, kind]) => h("button", {
        type: "button", class: `bt-bid special ${kind}`, "data-call": value, "data-key": "call-" + value,
        onclick: () => call(value),
      }, text)));
  return h("div", { class: "bt-box" }, h("h2", { class: "visually-hidden" }, S.bidding_box), specials, grid,
    h("label", { class: "bt-alert-label", for: "bt-alert" }, S.alert), alertInput);
}

function claimPanel(v) {
  const parts = [];
  const claim = v.claim;
  if (claim) {
    parts.push(h("p", { class: "bt-claim-text" }, fmt(S.claim_by, { seat: seatName(claim.seat), tricks: claim.tricks })));
    if (me && claim.awaiting.includes(me)) {
      parts.push(h("div", { class: "bt-actions" },
        h("button", { type: "button", class: "button primary", "data-key": "accept", onclick: () => send("accept", {}) }, S.accept),
        h("button", { type: "button", class: "button", "data-key": "reject", onclick: () => send("reject", {}) }, S.reject)));
    } else {
      parts.push(h("p", { class: "muted" }, S.claim_waiting));
    }
    return h("div", { class: "bt-claim" }, parts);
  }
  const dummy = v.declarer ? partnerOf(v.declarer) : null;
  const canClaim = me && v.contract && v.play.length > 0 && !v.over && me !== dummy;
  if (!canClaim) return null;
  if (!claimOpen) {
    return h("div", { class: "bt-actions" },
      h("button", { type: "button", class: "button", "data-key": "claim", onclick: () => { claimOpen = true; render(); } }, S.claim));
  }
  const remaining = 13 - Math.floor(v.play.length / 4);
  const input = h("input", { type: "number", id: "bt-claim-tricks", min: "0", max: String(remaining), value: String(remaining), inputmode: "numeric" });
  return h("form", {
    class: "bt-claim-form", role: "dialog", "aria-label": S.claim_title,
    onsubmit: (event) => {
      event.preventDefault();
      const tricks = Number(input.value);
      if (!Number.isInteger(tricks) || tricks < 0 || tricks > remaining) return;
      claimOpen = false;
      send("claim", { tricks });
    },
  },
  h("h2", { class: "bt-box-title" }, S.claim_title),
  h("label", { for: "bt-claim-tricks" }, fmt(S.claim_how_many, { n: remaining })), input,
  h("div", { class: "bt-actions" },
    h("button", { type: "submit", class: "button primary", "data-key": "claim-send" }, S.claim_send),
    h("button", { type: "button", class: "button", "data-key": "concede",
      onclick: () => { claimOpen = false; send("claim", { tricks: 0 }); } }, S.concede),
    h("button", { type: "button", class: "button", "data-key": "claim-cancel",
      onclick: () => { claimOpen = false; render(); } }, S.cancel)));
}

function resultPanel(v) {
  const result = v.result;
  const index = cfg.boards.indexOf(board);
  const next = index >= 0 && index < cfg.boards.length - 1 ? cfg.boards[index + 1] : null;
  const lines = [h("h2", {}, fmt(S.board_over, { n: board }))];
  if (result.contract === "PASS") lines.push(h("p", { class: "bt-result-line" }, S.passed_out));
  else {
    lines.push(h("p", { class: "bt-result-line" }, fmtNodes(S.result_made, {
      contract: contractNode(result.contract), seat: seatName(result.declarer), tricks: result.tricks,
    })));
  }
  lines.push(h("p", { class: "bt-score" },
    h("span", {}, `${S.ns_score}: `, h("strong", { "data-ns-score": result.ns_score }, result.ns_score)), " · ",
    h("span", {}, `${S.ew_score}: `, h("strong", {}, -result.ns_score))));
  if (!closed) {
    if (next !== null) {
      lines.push(h("p", {}, h("button", { type: "button", class: "button primary", id: "bt-next-board",
        "data-key": "next", onclick: () => goToBoard(next) }, S.next_board)));
    } else {
      lines.push(h("p", { class: "muted" }, S.all_boards_played));
    }
  }
  return h("section", { class: "bt-result", id: "bt-result" }, lines);
}

function closedPanel() {
  const parts = [h("h2", {}, fmt(S.round_closed, { n: closed.round }))];
  if (closed.next) {
    const url = cfg.playUrl.replace(/\/0\/play\/$/, `/${closed.next.table}/play/`);
    parts.push(h("p", {}, h("a", { class: "button primary", href: url, id: "bt-next-table" },
      fmt(S.next_table, { n: closed.next.round }))));
  } else if (closed.next === null && me) {
    parts.push(h("p", { class: "muted" }, S.no_next_table));
  }
  parts.push(h("p", {}, h("a", { href: cfg.tournamentUrl }, S.to_tournament)));
  return h("section", { class: "bt-closed", id: "bt-closed", role: "status" }, parts);
}

// The bell: the round clock stops and says so.
function stopClock() {
  const clock = document.querySelector(".bt-meta .clock");
  if (!clock) return;
  clock.removeAttribute("data-clock");
  clock.className = "clock compact phase-closed";
  clock.replaceChildren(h("span", { class: "clock-label" }, fmt(S.round_closed, { n: closed.round })));
}

// "19:30 UTC+8": a moment in the site's zone, as the server writes it (`zoned`).
function zoned(iso) {
  const when = new Date(iso);
  try {
    const parts = new Intl.DateTimeFormat("en-GB", {
      timeZone: cfg.timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23",
      timeZoneName: "longOffset",
    }).formatToParts(when);
    const part = (type) => (parts.find((p) => p.type === type) || {}).value || "";
    const offset = /([+-])(\d{1,2}):?(\d{2})?/.exec(part("timeZoneName"));
    let zone = "UTC+0";
    if (offset) {
      const minutes = Number(offset[3] || 0);
      zone = `UTC${offset[1] === "-" ? "\u2212" : "+"}${Number(offset[2])}` +
        (minutes ? `:${String(minutes).padStart(2, "0")}` : "");
    }
    return `${part("hour")}:${part("minute")} ${zone}`;
  } catch {
    return `${when.toISOString().slice(11, 16)} UTC+0`;
  }
}

function countdown(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n) => String(n).padStart(2, "0");
  const hours = Math.floor(s / 3600);
  const rest = `${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  return hours ? `${hours}:${rest}` : rest;
}

// The organiser moved the bell or stopped the clock (the socket's `round` message): the
// round clock of the page says the new end, or that play is paused — no reload. site.js
// keeps counting down whatever carries `data-clock`.
function followClock(message) {
  const clock = document.querySelector(".bt-meta .clock");
  if (!clock || closed || !message.ends_at) return;
  const n = message.round ?? cfg.round;
  const done = h("span", { class: "clock-done", "data-clock-done": true, hidden: true }, S.clock_done);
  clock.dataset.endsAt = message.ends_at;
  if (message.paused) {
    clock.removeAttribute("data-clock");
    clock.removeAttribute("data-deadline");
    clock.className = "clock compact phase-paused";
    clock.replaceChildren(h("span", { class: "clock-label" }, S.clock_paused), done);
    return;
  }
  const starting = message.starts_at && Date.parse(message.starts_at) > Date.now() + CLOCK_OFFSET;
  const deadline = starting ? message.starts_at : message.ends_at;
  clock.className = `clock compact phase-${starting ? "starts" : "ends"}`;
  clock.dataset.offset = String(CLOCK_OFFSET);
  clock.dataset.deadline = deadline;
  clock.dataset.clock = "";
  clock.replaceChildren(
    h("span", { class: "clock-label" }, fmt(starting ? S.clock_starts_in : S.clock_ends_in, { n })), " ",
    h("span", { class: "clock-time", "data-clock-time": true },
      countdown(Date.parse(deadline) - (Date.now() + CLOCK_OFFSET))), " ",
    h("span", { class: "clock-at" }, fmt(starting ? S.clock_starts_at : S.clock_ends_at, { at: zoned(deadline) })),
    " ", done);
}

function statusLine(v) {
  if (v.over || !v.turn || closed || v.claim) return "";
  if (isMyTurn(v)) return v.turn === me ? S.your_turn : S.your_turn_dummy;
  // Dummy's cards are played by declarer: that is who the table waits for.
  const who = v.declarer && v.turn === partnerOf(v.declarer) ? v.declarer : v.turn;
  return fmt(S.waiting_for, { seat: seatName(who) });
}

function render() {
  const focused = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.key : null;
  // For tests and styles: which board and which action the page shows.
  $("bt").dataset.board = String(board);
  $("bt").dataset.seq = String(lastSeq);
  const info = $("bt-info");
  info.replaceChildren();
  if (notice) info.append(h("p", { class: "message error", role: "alert" }, notice));
  if (!me && !closed) info.append(h("p", { class: "bt-watch-note", id: "bt-watch-note" }, S.watching_note));
  if (closed) info.append(closedPanel());
  for (const [position, offset] of [["bottom", 0], ["left", 1], ["top", 2], ["right", 3]]) {
    $("bt-pos-" + position).replaceChildren(view ? seatPanel(view, seatAt(offset), position) : "");
  }
  $("bt-centre").replaceChildren(view ? centre(view) : h("p", { class: "muted" }, S.connecting));
  $("bt-auction").replaceChildren(...(view ? auctionGrid(view).filter(Boolean) : []));
  const controls = $("bt-controls");
  controls.replaceChildren();
  if (view) {
    const status = statusLine(view);
    if (status) controls.append(h("p", { class: "bt-status" + (isMyTurn(view) ? " mine" : ""), id: "bt-status" }, status));
    if (view.over && view.result) controls.append(resultPanel(view));
    else if (closed) {
      // The bell has rung: nothing more is played at this round's table.
    } else if (isMyTurn(view) && !view.contract && view.legal.length && !/^[SHDC][2-9TJQKA]$/.test(view.legal[0])) {
      controls.append(biddingBox(view));
    }
    const claim = view.over || closed ? null : claimPanel(view);
    if (claim) controls.append(claim);
    if (view.play.length > 4 || showLast) {
      controls.append(h("div", { class: "bt-actions" }, h("button", {
        type: "button", class: "button small", "data-key": "last", "aria-pressed": showLast ? "true" : "false",
        onclick: () => { showLast = !showLast; render(); },
      }, showLast ? S.hide_last_trick : S.last_trick)));
    }
  }
  if (focused) {
    const again = document.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  } else if (claimOpen) {
    const input = $("bt-claim-tricks");
    if (input) input.focus();
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target.matches("input, textarea, select") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "l" || event.key === "L") {
    showLast = !showLast;
    render();
  } else if (event.key === "Escape" && claimOpen) {
    claimOpen = false;
    render();
  }
});

$("bt-help").textContent = S.keys_help;
if (!me) {
  // Not seated (an organiser, or anyone after the close): said once, in the header, and
  // the hands stay where they were dealt, South at the bottom.
  $("bt").dataset.watching = "true";
  $("bt-conn").before(h("span", { class: "bt-watching", id: "bt-watching", title: S.watching_note }, S.watching));
}
render();
connect();
