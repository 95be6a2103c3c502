// The table in the browser (RULES 9, issues 17 and 24): one plain ES module, no build.
//
// Everything drawn comes from the table server's per-seat view (docs/PLAY_PROTOCOL.md):
// the socket's `snapshot` on (re)connecting, a `view` per stored action, an `error`
// with the view to play on from, `round` when the round's clock changes, `round_closed`
// at the bell. The page never holds a card its seat may not see: the server never sends
// one. Text the players typed (alerts, a claim's statement) and names are set as text,
// never as HTML. The round clock is the server's: its state comes with the snapshot and
// every `round` message, with the server's time to count on (never this device's).

const cfg = JSON.parse(document.getElementById("bt-config").textContent);
const S = cfg.strings;
const SEATS = ["N", "E", "S", "W"];
const SUITS = ["S", "H", "D", "C"];
// A hand drawn as a row of cards alternates the colours (♠ ♥ ♣ ♦), as players hold it.
const FAN_SUITS = ["S", "H", "C", "D"];
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = "23456789TJQKA";
const STRAINS = { c: "C", d: "D", h: "H", s: "S", n: "NT" };
const REFUSED = new Set([4401, 4403, 4404]);
// A control that has just taken another's place takes no click for this long (a second
// click meant for "Next board" must not land on the bid drawn where it was).
const ARM_MS = 450;
const ARM_CLAIM_MS = 900; // Accept and Reject take the place of "Claim"

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
let alertOpen = false;
// After the bell the page says what the bell made of the board shown (`cutOff`, the
// bell message's own sentence) from the first drawing: a reload loses nothing of it.
let closed = cfg.closed ? { round: cfg.round, next: undefined, over: cfg.tournamentOver, cutOff: cfg.cutOff || null } : null;
let notice = "";
let resumedNotice = false;
let typed = ""; // the keys typed towards a call or a card
let typedNote = ""; // what the typed keys came to ("1NT cannot be called now")
let selected = null; // data-key of the control the keyboard chose
let armedKey = ""; // what the controls drawn last were (a new set is armed afresh)
let armedUntil = 0;
let armTimer = null;
let clockPhase = "";
let claimJustOpened = false;
// Fields a player types into (an alert, a claim and its statement), kept from one drawing
// to the next: a view arriving meanwhile must not wipe what is half typed.
const kept = new Map();

function keep(id, make) {
  if (!kept.has(id)) kept.set(id, make());
  return kept.get(id);
}

function forget(...ids) {
  for (const id of ids) kept.delete(id);
}

// The round's clock as the server last told it; `offset` is the server's time minus this
// device's when it was told (the device's clock may be minutes wrong).
let clock = readClock(cfg.clock, null);

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
const isCard = (text) => /^[SHDC][2-9TJQKA]$/.test(text || "");

function suitSpan(suit) {
  return h("span", { class: `bt-sym s-${suit}`, "aria-hidden": "true" }, SYMBOL[suit]);
}

function cardLabel(card) {
  return `${rankText(card[1])} ${S["suit_" + card[0]]}`;
}

// A card as it lies on the table: its rank over its suit, in the suit's colour.
function cardFace(card) {
  return h("span", { class: `bt-face s-${card[0]}` },
    h("span", { class: "bt-face-rank" }, rankText(card[1])), suitSpan(card[0]),
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

function sortHand(cards, order = SUITS) {
  return [...cards].sort((a, b) =>
    order.indexOf(a[0]) - order.indexOf(b[0]) || RANKS.indexOf(b[1]) - RANKS.indexOf(a[1]));
}

// -- the round's clock ---------------------------------------------------------------

function readClock(message, before) {
  const told = Date.parse(message && message.now);
  const old = before || { round: cfg.round, status: "running", startsAt: null, endsAt: null, paused: false, offset: 0 };
  if (!message) return old;
  const pick = (key, fallback) => (message[key] === undefined ? fallback : message[key]);
  return {
    round: pick("round", old.round) ?? old.round,
    status: pick("status", old.status),
    startsAt: pick("starts_at", old.startsAt),
    endsAt: pick("ends_at", old.endsAt),
    paused: Boolean(pick("paused", old.paused)),
    offset: Number.isNaN(told) ? old.offset : told - Date.now(),
  };
}

const serverNow = () => Date.now() + clock.offset;

// Where the round stands by the server's clock: "starts" (not yet begun), "starting"
// (due, the server opening it), "ends" (being played), "bell" (time is up, the bell is
// on its way), "paused", "closed".
function roundPhase() {
  if (closed || clock.status === "closed") return "closed";
  if (clock.paused) return "paused";
  const now = serverNow();
  if (clock.startsAt && now < Date.parse(clock.startsAt)) return "starts";
  if (clock.status === "scheduled") return "starting";
  if (clock.endsAt && now >= Date.parse(clock.endsAt)) return "bell";
  return "ends";
}

function countdown(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n) => String(n).padStart(2, "0");
  const hours = Math.floor(s / 3600);
  const rest = `${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  return hours ? `${hours}:${rest}` : rest;
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

function timeLeft(iso) {
  return countdown(Date.parse(iso) - serverNow());
}

// The clock in the header, drawn from the server's state: a new phase redraws it, the
// seconds are counted by `tick` (and by site.js, which counts whatever has `data-clock`
// against the same deadline and offset).
function drawClock() {
  const el = document.querySelector(".bt-meta .clock");
  if (!el) return;
  const phase = roundPhase();
  const n = clock.round;
  el.className = `clock compact phase-${phase}`;
  for (const key of ["clock", "deadline", "serverNow", "endsAt"]) delete el.dataset[key];
  if (clock.endsAt) el.dataset.endsAt = clock.endsAt;
  const label = (text) => h("span", { class: "clock-label" }, text);
  if (phase === "starts" || phase === "ends") {
    const deadline = phase === "starts" ? clock.startsAt : clock.endsAt;
    el.dataset.offset = String(clock.offset);
    el.dataset.deadline = deadline;
    el.dataset.clock = "";
    el.replaceChildren(
      label(fmt(phase === "starts" ? S.clock_starts_in : S.clock_ends_in, { n })), " ",
      h("span", { class: "clock-time", "data-clock-time": true }, timeLeft(deadline)), " ",
      h("span", { class: "clock-at" },
        fmt(phase === "starts" ? S.clock_starts_at : S.clock_ends_at, { at: zoned(deadline) })));
    // "Time is up" only where the bell is counted to: a start that passes opens play.
    if (phase === "ends") el.append(" ", h("span", { class: "clock-done", "data-clock-done": true, hidden: true }, S.clock_done));
  } else if (phase === "paused") {
    el.replaceChildren(label(S.clock_paused));
  } else if (phase === "starting") {
    el.replaceChildren(label(fmt(S.clock_starting, { n })));
  } else if (phase === "bell") {
    el.replaceChildren(label(fmt(S.clock_bell, { n })));
  } else {
    el.replaceChildren(label(fmt(S.clock_closed, { n: closed ? closed.round : n })));
  }
}

// Four times a second: the countdowns, and a redraw when the round's phase turns (the
// start passes: the bidding box opens; the end passes: it closes).
function tick() {
  const phase = roundPhase();
  if (phase !== clockPhase) {
    clockPhase = phase;
    drawClock();
    render();
    return;
  }
  for (const el of document.querySelectorAll("[data-bt-countdown]")) {
    el.textContent = timeLeft(el.dataset.btCountdown);
  }
}

// -- the socket ------------------------------------------------------------------------

function setConnection(state) {
  $("bt").dataset.state = state;
  $("bt-conn").textContent = S[state] || state;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A kibitzer's socket sends what the public may see (docs/PLAY_PROTOCOL.md, watching).
  const path = `${cfg.wsPath}${board}/${cfg.kibitz ? "kibitz/" : ""}`;
  const ws = new WebSocket(`${scheme}://${location.host}${path}`);
  socket = ws;
  setConnection(view ? "reconnecting" : "connecting");
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
    if (ws !== socket) return; // a board left behind, or a reconnection asked for
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

// A fresh snapshot (the view as it now stands): after a resume, the view sent during
// the pause offers nothing to do.
function reconnect() {
  const old = socket;
  socket = null;
  if (old) old.close();
  connect();
}

function take(message) {
  if (message.board !== undefined && message.board !== board) return false;
  if (!message.view || message.seq < lastSeq) return false;
  if (message.seq !== lastSeq) {
    typed = "";
    typedNote = "";
    selected = null;
  }
  view = message.view;
  lastSeq = message.seq;
  return true;
}

function followClock(message) {
  const wasPaused = clock.paused;
  clock = readClock(message, clock);
  if (wasPaused && !clock.paused) {
    resumedNotice = true;
    notice = "";
    if (view && view.paused) reconnect();
  } else if (clock.paused) {
    resumedNotice = false;
  }
  clockPhase = "";
  tick();
}

function receive(message) {
  switch (message.type) {
    case "snapshot":
      setConnection("connected");
      notice = "";
      if (message.clock) clock = readClock(message.clock, clock);
      else if (message.view && message.view.paused !== undefined) clock.paused = Boolean(message.view.paused);
      if (clock.status === "closed" && !closed) {
        // Opened after the bell (moving to the next board as it rang): the snapshot says
        // what round_closed would have, where to sit next included.
        closed = {
          round: clock.round, next: message.next, cutOff: message.cut_off || cfg.cutOff || null,
          over: message.tournament_over === undefined ? cfg.tournamentOver : Boolean(message.tournament_over),
          resultsUrl: message.results_url,
        };
      } else if (closed && message.cut_off) closed.cutOff = message.cut_off;
      take(message);
      clockPhase = "";
      break;
    case "view":
      if (take(message)) {
        notice = "";
        resumedNotice = false; // someone has played on since the resume
      }
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
      return; // tick() has drawn what changed
    case "round_closed":
      closed = {
        round: message.round, next: message.next, cutOff: message.cut_off || null,
        over: Boolean(message.tournament_over), resultsUrl: message.results_url,
      };
      clock.status = "closed";
      clockPhase = "closed";
      drawClock();
      if (message.view) take({ ...message, seq: Math.max(lastSeq, 0) });
      break;
    default:
      return;
  }
  render();
}

function send(kind, fields) {
  if (!socket || socket.readyState !== WebSocket.OPEN || !view) return;
  typed = "";
  typedNote = "";
  selected = null;
  socket.send(JSON.stringify({ type: "action", seq: view.next_seq, action: kind, ...fields }));
}

function goToBoard(number) {
  board = number;
  view = null;
  lastSeq = -1;
  showLast = false;
  claimOpen = false;
  alertOpen = false;
  kept.clear();
  notice = "";
  typed = "";
  selected = null;
  const old = socket;
  socket = null;
  if (old) old.close();
  connect();
  render();
}

// -- what this seat may do now ----------------------------------------------------------

function isPaused() {
  return clock.paused;
}

// Play is open: the round has started by the server's clock, its time is not up, the
// director has not stopped it.
function playOpen() {
  return roundPhase() === "ends" && !closed;
}

function isMyTurn(v) {
  return Boolean(me && v.legal && v.legal.length && playOpen());
}

function biddingNow(v) {
  return isMyTurn(v) && !v.contract && !isCard(v.legal[0]);
}

function playingNow(v) {
  return isMyTurn(v) && isCard(v.legal[0]) && !v.claim; // a claim waits: no card is played
}

// Whether a control drawn now may take a click yet (`arm`).
function armed() {
  return performance.now() >= armedUntil;
}

// A click that counts: once armed, or from the keyboard (Enter on a chosen control makes a
// click with no pointer, `detail` 0) — the wait is against a stray second click or tap.
function counts(event) {
  return armed() || event.detail === 0;
}

// Until armed, a control lets pointers through (it is drawn, focusable, not yet clickable).
const arming = () => (armed() ? "" : " arming");

// What this seat may click now, named for `arm`: a new name is armed afresh.
function armFor(v) {
  if (!v || closed || v.over || isPaused()) return arm("", 0);
  if (v.claim && me && v.claim.awaiting.includes(me)) return arm(`answer-${board}-${v.next_seq}`, ARM_CLAIM_MS);
  if (biddingNow(v)) return arm(`bid-${board}-${v.next_seq}`, ARM_MS);
  if (playingNow(v)) return arm(`card-${board}-${v.next_seq}`, ARM_MS);
  return arm("", 0);
}

// A new set of controls (another turn, a claim to answer): no click for a moment.
function arm(key, ms) {
  if (key === armedKey) return;
  armedKey = key;
  if (!key) return;
  armedUntil = performance.now() + ms;
  clearTimeout(armTimer);
  armTimer = setTimeout(render, ms + 20);
}

// -- drawing ---------------------------------------------------------------------------

function seatLabel(v, seat) {
  const tags = [];
  if (v.dealer === seat) tags.push(h("abbr", { class: "bt-tag dealer", title: S.dealer }, S.dealer_mark));
  if (v.declarer === seat) tags.push(h("span", { class: "bt-tag", title: S.declarer }, S.declarer));
  if (v.declarer && partnerOf(v.declarer) === seat) tags.push(h("span", { class: "bt-tag" }, S.dummy));
  if (v.claim && v.claim.seat === seat) tags.push(h("span", { class: "bt-tag claiming" }, S.claiming));
  const name = cfg.names[seat] || "";
  return h("div", { class: "bt-name" },
    h("strong", {}, seatName(seat)), " ", h("span", { class: "bt-player" }, name),
    seat === me ? h("span", { class: "bt-you" }, ` (${S.you})`) : null, " ", tags);
}

// A hand at the top or the bottom: a row of card faces, the legal ones buttons. Cards
// become buttons in place (same size, same spot): nothing moves when it is one's turn.
function fanHand(v, seat, cards, playable) {
  const hand = sortHand(cards, FAN_SUITS);
  const myTurn = playable.size > 0;
  const row = h("div", {
    class: "bt-fan" + (myTurn ? " to-play" : ""), role: myTurn ? "group" : null,
    "aria-label": seat === me ? S.your_hand : seatName(seat),
  });
  let suit = null;
  for (const card of hand) {
    const face = h("span", { class: "bt-card-face" },
      h("span", { class: "bt-corner" }, h("span", { class: "bt-rank" }, rankText(card[1])), suitSpan(card[0])),
      h("span", { class: `bt-big s-${card[0]}`, "aria-hidden": "true" }, SYMBOL[card[0]]));
    const classes = `bt-card s-${card[0]}${card[0] !== suit && suit !== null ? " suit-start" : ""}${arming()}`;
    suit = card[0];
    if (playable.has(card)) {
      row.append(h("button", {
        type: "button", class: classes + " playable", "data-card": card, "data-key": "card-" + card,
        "aria-label": fmt(S.play_card, { card: cardLabel(card) }),
        onclick: (event) => counts(event) && send("card", { card }),
      }, face));
    } else {
      row.append(h("span", { class: classes + (myTurn ? " idle" : ""), "data-card": card },
        face, h("span", { class: "visually-hidden" }, cardLabel(card))));
    }
  }
  return row;
}

// A hand at the side: a line per suit, as hand records are printed.
function suitRows(v, seat, cards) {
  const hand = sortHand(cards);
  return h("div", { class: "bt-suits", "aria-label": seat === me ? S.your_hand : seatName(seat) },
    SUITS.map((suit) => {
      const held = hand.filter((card) => card[0] === suit);
      return h("div", { class: `bt-suit s-${suit}` },
        h("span", { class: "bt-suit-sym" }, suitSpan(suit),
          h("span", { class: "visually-hidden" }, S["suit_" + suit])),
        held.length
          ? held.map((card) => h("span", { class: "bt-pip", "data-card": card }, rankText(card[1])))
          : h("span", { class: "bt-void" }, "—"));
    }));
}

function seatPanel(v, seat, position) {
  const dummy = v.declarer && !v.over && v.play.length ? partnerOf(v.declarer) : null;
  const vul = v.vulnerability === "Both" || v.vulnerability === sideOf(seat);
  const classes = ["bt-hand", `pos-${position}`];
  if (v.turn === seat && !v.over && playOpen()) classes.push("turn");
  if (vul) classes.push("vul");
  if (seat === dummy) classes.push("dummy");
  if (v.claim && v.claim.seat === seat) classes.push("claimer");
  const cards = v.hands[seat];
  let body;
  if (cards) {
    const playable = new Set(playingNow(v) && v.turn === seat && !isPaused() ? v.legal : []);
    const fan = position === "top" || position === "bottom";
    classes.push(fan ? "fanned" : "rows");
    body = fan ? fanHand(v, seat, cards, playable) : suitRows(v, seat, cards);
  } else if (v.progress) {
    // A kibitzer is sent no card: not even how many each seat holds (the play is hidden).
    classes.push("hidden-hand");
    body = [];
  } else {
    classes.push("hidden-hand");
    const left = Math.max(0, 13 - cardsPlayedBy(v, seat));
    body = [h("div", { class: "bt-hidden" }, fmt(S.cards_left, { n: left }))];
    if (position === "top" || position === "bottom") {
      // Backs where the faces will be: dummy's hand, faced after the lead, moves nothing.
      const backs = h("div", { class: "bt-fan backs", "aria-hidden": "true" });
      for (let i = 0; i < left; i++) backs.append(h("span", { class: "bt-card back" }, h("span", { class: "bt-card-face" })));
      body.push(backs);
    }
  }
  return h("div", { class: classes.join(" "), "data-seat": seat }, seatLabel(v, seat), body);
}

function centre(v) {
  const tricks = tricksOf(v);
  const wrap = h("div", { class: "bt-centre-inner" });
  const info = h("div", { class: "bt-board-info" },
    h("strong", {}, fmt(S.board, { n: board })), " · ",
    `${S.dealer}: ${seatName(v.dealer)}`, " · ",
    h("span", { class: v.vulnerability === "None" ? "" : "bt-vul-text" }, S["vul_" + v.vulnerability]));
  wrap.append(info);
  if (v.progress) {
    // A kibitzer of a running round: how far the board has come, nothing of its cards.
    const p = v.progress;
    const where = p.phase === "auction" ? S.kibitz_auction
      : p.phase === "play" ? fmt(S.kibitz_play, { n: Math.min(13, p.tricks_played + 1) }) : S.kibitz_over;
    wrap.append(h("div", { class: "bt-contract-line bt-progress", id: "bt-progress" }, where,
      p.turn && p.phase !== "over" ? ` · ${fmt(S.waiting_for, { seat: seatName(p.turn) })}` : ""));
  } else if (v.contract) {
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
      h("span", {}, `${S.contract}: `, fmtNodes(S.by, { contract: contractNode(v.contract), seat: seatName(v.declarer) })),
      " ",
      h("span", { class: "bt-tricks", "data-we": we, "data-they": they },
        `${S.tricks}: `,
        me ? `${S.we} ${we} · ${S.they} ${they}` : `${S.seat_N}${S.seat_S} ${ns} · ${S.seat_E}${S.seat_W} ${ew}`)));
  } else {
    wrap.append(h("div", { class: "bt-contract-line empty" }));
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
  // A kibitzer of a running round is sent no call: say when the auction is shown.
  if (v.progress) {
    return [h("p", { id: "bt-kibitz-auction" }, h("strong", {}, S.auction), h("br", {}),
      h("span", { class: "muted" }, S.kibitz_no_auction))];
  }
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

// The bidding box: every call, the illegal ones left as gaps so the legal ones stay where
// they were. `live` false: drawn but disabled (paused).
function biddingBox(v, live) {
  const legal = new Set(v.legal);
  const state = live ? arming() : "";
  const alertInput = keep("bt-alert", () => h("input", {
    type: "text", id: "bt-alert", maxlength: "200", autocomplete: "off",
    placeholder: S.alert_placeholder, "aria-label": S.alert_placeholder,
  }));
  const call = (value, event) => {
    if (!live || !counts(event)) return;
    const alert = alertInput.value.trim();
    forget("bt-alert");
    alertOpen = false;
    send("call", alert ? { call: value, alert } : { call: value });
  };
  const button = (value, classes, content, title) => h("button", {
    type: "button", class: classes + state, "data-call": value, "data-key": "call-" + value,
    title, disabled: !live, onclick: (event) => call(value, event),
  }, content);
  const grid = h("div", { class: "bt-bids", role: "group", "aria-label": S.bidding_box });
  for (let level = 1; level <= 7; level++) {
    for (const strain of ["C", "D", "H", "S", "NT"]) {
      const bid = `${level}${strain}`;
      grid.append(legal.has(bid)
        ? button(bid, "bt-bid", callNode(bid), callTitle(bid))
        : h("span", { class: "bt-bid-gap", "aria-hidden": "true" }));
    }
  }
  const specials = h("div", { class: "bt-specials" },
    [["P", S.pass, "pass"], ["X", S.double, "dbl"], ["XX", S.redouble, "rdbl"]].map(([value, text, kind]) =>
      legal.has(value)
        ? button(value, `bt-bid special ${kind}`, text, null)
        : h("span", { class: "bt-bid-gap special", "aria-hidden": "true" })),
    h("button", {
      type: "button", class: "bt-alert-toggle", "data-key": "alert-toggle", "aria-expanded": alertOpen ? "true" : "false",
      "aria-controls": "bt-alert-row", onclick: () => { alertOpen = !alertOpen; render(); if (alertOpen) $("bt-alert").focus(); },
    }, S.alert_toggle));
  const alertRow = h("div", { class: "bt-alert-row" + (alertOpen ? " open" : ""), id: "bt-alert-row" },
    h("label", { class: "bt-alert-label", for: "bt-alert" }, S.alert), alertInput);
  return h("div", { class: "bt-box" + (live ? "" : " off") }, h("h2", { class: "visually-hidden" }, S.bidding_box),
    specials, grid, alertRow);
}

// "South claims 10 tricks: 4♠ making" — the claimer's side's total with the claim, and
// what it makes of the contract.
function claimHeadline(claim) {
  const outcome = claim.outcome || {};
  let key = "claim_down";
  if (outcome.made) key = outcome.overtricks ? "claim_over" : "claim_making";
  const result = fmtNodes(S[key], {
    contract: contractNode(claim.contract || (view && view.contract)),
    n: outcome.made ? outcome.overtricks : outcome.undertricks,
  });
  const who = claim.tricks === 0
    ? fmt(S.concedes, { seat: seatName(claim.seat) })
    : fmt(S.claims_total, { seat: seatName(claim.seat), total: claim.total ?? claim.tricks });
  return fmtNodes(S.claim_headline, { claim: who, result: h("span", { class: "bt-claim-result" }, result) });
}

function claimPanel(v) {
  const parts = [];
  const claim = v.claim;
  if (claim) {
    const remaining = 13 - Math.floor(v.play.length / 4);
    parts.push(h("p", { class: "bt-claim-text", id: "bt-claim-text" }, claimHeadline(claim)));
    parts.push(h("p", { class: "bt-claim-of muted" }, fmt(S.claim_of, { tricks: claim.tricks, n: remaining })));
    if (claim.statement) {
      parts.push(h("figure", { class: "bt-statement" },
        h("figcaption", {}, fmt(S.claim_statement, { seat: seatName(claim.seat) })),
        h("blockquote", { id: "bt-claim-statement-text" }, claim.statement)));
    }
    if (me && claim.awaiting.includes(me)) {
      const paused = isPaused();
      parts.push(h("div", { class: "bt-actions" },
        h("button", { type: "button", class: "button primary" + arming(), "data-key": "accept", disabled: paused,
          onclick: (event) => counts(event) && send("accept", {}) }, S.accept),
        h("button", { type: "button", class: "button" + arming(), "data-key": "reject", disabled: paused,
          onclick: (event) => counts(event) && send("reject", {}) }, S.reject)));
    } else {
      parts.push(h("p", { class: "muted" }, S.claim_waiting));
    }
    return h("div", { class: "bt-claim", id: "bt-claim" }, parts);
  }
  const dummy = v.declarer ? partnerOf(v.declarer) : null;
  const canClaim = me && v.contract && v.play.length > 0 && !v.over && me !== dummy && playOpen() && !isPaused();
  if (!canClaim) return null;
  if (!claimOpen) {
    return h("div", { class: "bt-actions" },
      h("button", { type: "button", class: "button", "data-key": "claim",
        onclick: () => { claimOpen = true; claimJustOpened = true; render(); } }, S.claim));
  }
  const remaining = 13 - Math.floor(v.play.length / 4);
  const input = keep("bt-claim-tricks", () => h("input", {
    type: "number", id: "bt-claim-tricks", min: "0", max: String(remaining), value: String(remaining), inputmode: "numeric",
  }));
  input.max = String(remaining);
  const statement = keep("bt-claim-statement", () => h("textarea", {
    id: "bt-claim-statement", maxlength: "500", rows: "3", placeholder: S.statement_placeholder,
  }));
  const close = () => {
    claimOpen = false;
    forget("bt-claim-tricks", "bt-claim-statement");
  };
  const fields = () => {
    const text = statement.value.trim();
    return text ? { statement: text } : {};
  };
  return h("form", {
    class: "bt-claim-form", role: "dialog", "aria-label": S.claim_title,
    onsubmit: (event) => {
      event.preventDefault();
      const tricks = Number(input.value);
      if (!Number.isInteger(tricks) || tricks < 0 || tricks > remaining) return;
      const extra = fields();
      close();
      send("claim", { tricks, ...extra });
    },
  },
  h("h2", { class: "bt-box-title" }, S.claim_title),
  h("label", { for: "bt-claim-tricks" }, fmt(S.claim_how_many, { n: remaining })), input,
  h("label", { for: "bt-claim-statement" }, S.statement_label), statement,
  h("p", { class: "muted bt-claim-note" }, S.claim_shows_hand),
  h("div", { class: "bt-actions" },
    h("button", { type: "submit", class: "button primary", "data-key": "claim-send" }, S.claim_send),
    h("button", { type: "button", class: "button", "data-key": "concede",
      onclick: () => { const extra = fields(); close(); send("claim", { tricks: 0, ...extra }); } }, S.concede),
    h("button", { type: "button", class: "button", "data-key": "claim-cancel",
      onclick: () => { close(); render(); } }, S.cancel)));
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
  if (cfg.club) {
    // A club table (RULES 13): the next board was dealt when this result was stored;
    // the page, reloaded, opens it. No list of boards, no bell.
    if (cfg.club.closed) lines.push(h("p", { class: "muted" }, S.club_closed));
    else {
      lines.push(h("p", {}, h("button", { type: "button", class: "button primary", id: "bt-next-board",
        "data-key": "next", onclick: () => window.location.reload() }, S.next_board)));
    }
    lines.push(h("p", { class: "bt-club-links" },
      h("a", { href: cfg.club.lobbyUrl, id: "bt-lobby" }, S.to_lobby), " · ",
      h("a", { href: cfg.club.boardsUrl, id: "bt-my-boards" }, S.my_boards)));
  } else if (!closed) {
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
  if (closed.cutOff && closed.cutOff.text && closed.cutOff.board === board) {
    parts.push(h("p", { class: "bt-cut-off", id: "bt-cut-off" }, closed.cutOff.text));
  }
  if (closed.over) {
    parts.push(h("p", { class: "bt-over", id: "bt-tournament-over" }, h("strong", {}, S.tournament_over), " ",
      h("a", { class: "button primary", href: closed.resultsUrl || cfg.resultsUrl, id: "bt-results-link" }, S.see_results)));
  } else if (closed.next) {
    const url = cfg.playUrl.replace(/\/0\/play\/$/, `/${closed.next.table}/play/`);
    parts.push(h("p", {}, h("a", { class: "button primary", href: url, id: "bt-next-table" },
      fmt(S.next_table, { n: closed.next.round }))));
  } else if (closed.next === null && me) {
    parts.push(h("p", { class: "muted" }, S.no_next_table));
  }
  parts.push(h("p", {}, h("a", { href: cfg.tournamentUrl }, S.to_tournament)));
  return h("section", { class: "bt-closed", id: "bt-closed", role: "status" }, parts);
}

// The line above the controls: whose turn, or why nobody plays now.
function statusLine(v) {
  const phase = roundPhase();
  if (closed || v.over) return null;
  if (phase === "paused" || isPaused()) {
    return h("p", { class: "bt-status paused", id: "bt-paused", role: "status" },
      h("strong", {}, S.clock_paused), " ", S.paused_note);
  }
  if (phase === "starts") {
    return h("p", { class: "bt-status waiting", id: "bt-status" },
      fmtNodes(S.round_starts_status, {
        n: clock.round,
        time: h("span", { class: "bt-countdown", "data-bt-countdown": clock.startsAt }, timeLeft(clock.startsAt)),
      }));
  }
  if (phase === "starting") return h("p", { class: "bt-status waiting", id: "bt-status" }, fmt(S.clock_starting, { n: clock.round }));
  if (phase === "bell") return h("p", { class: "bt-status waiting", id: "bt-status" }, S.time_up_status);
  if (!v.turn || v.claim) return null;
  if (isMyTurn(v)) {
    return h("p", { class: "bt-status mine", id: "bt-status" }, v.turn === me ? S.your_turn : S.your_turn_dummy);
  }
  // Dummy's cards are played by declarer: that is who the table waits for.
  const who = v.declarer && v.turn === partnerOf(v.declarer) ? v.declarer : v.turn;
  return h("p", { class: "bt-status", id: "bt-status" }, fmt(S.waiting_for, { seat: seatName(who) }));
}

function phaseOf(v) {
  if (!v) return "connecting";
  if (v.over) return "over";
  if (v.contract) return "play";
  return "auction";
}

function render() {
  const active = document.activeElement;
  const focused = active && active.dataset && active.closest && active.closest("#bt") ? active.dataset.key : null;
  const bt = $("bt");
  // For tests and styles: which board and action the page shows, and the board's phase.
  bt.dataset.board = String(board);
  bt.dataset.seq = String(lastSeq);
  bt.dataset.phase = phaseOf(view);
  bt.dataset.paused = isPaused() ? "true" : "false";
  armFor(view);
  const info = $("bt-info");
  info.replaceChildren();
  if (notice) info.append(h("p", { class: "message error", role: "alert" }, notice));
  if (resumedNotice && !isPaused() && !closed) {
    info.append(h("p", { class: "message bt-resumed", id: "bt-resumed", role: "status" }, S.resumed));
  }
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
    if (status) controls.append(status);
    if (view.over && view.result) controls.append(resultPanel(view));
    else if (closed) {
      // The bell has rung: nothing more is played at this round's table.
    } else if (biddingNow(view) || (isPaused() && me && view.legal.length && !isCard(view.legal[0]) && !view.contract)) {
      controls.append(biddingBox(view, biddingNow(view) && !isPaused()));
    }
    const claim = view.over || closed ? null : claimPanel(view);
    if (claim) controls.append(claim);
    if (view.play.length > 4 || showLast) {
      controls.append(h("div", { class: "bt-actions" }, h("button", {
        type: "button", class: "button small", "data-key": "last", "aria-pressed": showLast ? "true" : "false",
        onclick: () => { showLast = !showLast; render(); },
      }, showLast ? S.hide_last_trick : S.last_trick)));
    }
    if (typedNote || typed) {
      controls.append(h("p", { class: "bt-typed", id: "bt-typed", "aria-live": "polite" },
        typed ? fmt(S.kbd_typed, { keys: typed.toUpperCase() }) : "", typed && typedNote ? " · " : "", typedNote));
    }
  }
  bt.dataset.armed = armed() ? "true" : "false";
  const want = selected || focused;
  if (want) {
    const again = document.querySelector(`#bt [data-key="${CSS.escape(want)}"]`);
    if (again && !again.disabled) again.focus();
  } else if (active && active.id && kept.has(active.id) && active.isConnected) {
    active.focus(); // drawn again, the same field (an alert, a claim): typing goes on
  } else if (claimJustOpened) {
    const input = $("bt-claim-tricks");
    if (input) input.focus();
  }
  claimJustOpened = false;
}

// -- the keyboard ------------------------------------------------------------------------
//
// Typed calls ("1n", "4s", "p", "x", "xx") and cards ("sq", "qs", or the rank alone
// when only one legal card has it), arrow keys to move among the legal cards or calls,
// Enter to play what is chosen. The keys choose (the control takes the focus); Enter
// (or a click) plays: a slip of a key never plays a card.

function choose(key, note) {
  typedNote = note || "";
  selected = key;
  render();
}

function actionables() {
  return [...document.querySelectorAll("#bt-controls .bt-bid[data-call], #bt-table button.bt-card.playable")];
}

function typeCall(v, key) {
  const legal = new Set(v.legal);
  const keys = typed + key;
  let call = null;
  if (/^[1-7]$/.test(keys)) {
    typed = keys; // a level: its strain follows
    return choose(null);
  }
  const bid = /^([1-7])([cdhsn])$/.exec(keys);
  if (bid) call = bid[1] + STRAINS[bid[2]];
  else if (keys === "p") call = "P";
  else if (keys === "x") {
    // "x" doubles, "xx" redoubles; "x" alone chooses the one of them that is legal now.
    typed = "x";
    if (legal.has("X")) return choose("call-X");
    if (legal.has("XX")) return choose("call-XX");
    return choose(null, fmt(S.kbd_not_now, { what: S.double }));
  } else if (keys === "xx") call = "XX";
  else if (typed) {
    typed = ""; // what was typed leads nowhere with this key: start again from it
    return typeCall(v, key);
  } else return choose(null);
  typed = "";
  if (legal.has(call)) return choose("call-" + call);
  return choose(null, fmt(S.kbd_not_now, { what: callTitle(call) }));
}

function typeCard(v, key) {
  const legal = v.legal.filter(isCard);
  const keys = (typed + key).replace("10", "t");
  const card = (suit, rank) => suit.toUpperCase() + rank.toUpperCase();
  let chosen = null;
  if (/^[shdc]?1$/.test(keys)) {
    typed = keys; // the "1" of a "10"
    return choose(selected);
  }
  let match = /^([shdc])([2-9tjqka])$/.exec(keys);
  if (match) chosen = card(match[1], match[2]);
  else if ((match = /^([2-9tjqka])([shdc])$/.exec(keys))) chosen = card(match[2], match[1]);
  else if (/^[shdc]$/.test(keys)) {
    // A suit: its highest legal card is chosen; its rank may follow.
    typed = keys;
    const first = legal.find((c) => c[0] === keys.toUpperCase());
    return choose(first ? "card-" + first : null, first ? "" : fmt(S.kbd_not_now, { what: S["suit_" + keys.toUpperCase()] }));
  } else if (/^[2-9tjqka]$/.test(keys)) {
    // A rank alone chooses the one legal card that has it; else its suit follows (and
    // may follow anyway: "4s").
    const fits = legal.filter((c) => c[1] === keys.toUpperCase());
    typed = fits.length ? keys : "";
    if (fits.length === 1) return choose("card-" + fits[0]);
    return choose(null, fits.length ? S.kbd_which_suit : fmt(S.kbd_not_now, { what: rankText(keys.toUpperCase()) }));
  } else if (typed) {
    typed = "";
    return typeCard(v, key);
  } else return choose(null);
  typed = "";
  if (legal.includes(chosen)) return choose("card-" + chosen);
  return choose(null, fmt(S.kbd_not_now, { what: cardLabel(chosen) }));
}

function moveChoice(step) {
  const list = actionables();
  if (!list.length) return;
  const now = list.indexOf(document.activeElement);
  let next = now < 0 ? (step > 0 ? 0 : list.length - 1) : now + step;
  next = Math.max(0, Math.min(list.length - 1, next));
  typed = "";
  choose(list[next].dataset.key);
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.matches("input, textarea, select")) {
    if (event.key === "Escape" && claimOpen) {
      claimOpen = false;
      render();
    }
    return;
  }
  const key = event.key;
  if (key === "Enter") {
    // A focused button plays itself; else what the keys chose, once it takes clicks.
    if (event.target.matches("button, a")) return;
    const chosen = selected && document.querySelector(`#bt [data-key="${CSS.escape(selected)}"]`);
    if (chosen && !chosen.disabled) {
      event.preventDefault();
      chosen.click();
    }
    return;
  }
  if (key === "ArrowLeft" || key === "ArrowRight" || key === "ArrowUp" || key === "ArrowDown") {
    if (!view || !isMyTurn(view)) return;
    event.preventDefault();
    const inBox = document.activeElement && document.activeElement.closest(".bt-bids");
    const step = key === "ArrowLeft" ? -1 : key === "ArrowRight" ? 1 : (key === "ArrowUp" ? -1 : 1) * (inBox ? 5 : 1);
    moveChoice(step);
    return;
  }
  if (key === "Escape") {
    typed = "";
    typedNote = "";
    selected = null;
    if (claimOpen) claimOpen = false;
    if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
    render();
    return;
  }
  if (key === "?") {
    $("bt-help").classList.toggle("open");
    return;
  }
  const lower = key.length === 1 ? key.toLowerCase() : "";
  if (!lower) return;
  if (view && biddingNow(view) && !isPaused() && /[0-9cdhsnpx]/.test(lower)) {
    event.preventDefault();
    typeCall(view, lower);
    return;
  }
  if (view && playingNow(view) && !isPaused() && /[0-9tjqkashdc]/.test(lower)) {
    event.preventDefault();
    typeCard(view, lower);
    return;
  }
  if (lower === "l") {
    showLast = !showLast;
    render();
  }
});

// -- start ---------------------------------------------------------------------------

$("bt-help").replaceChildren(h("strong", {}, S.keys_title), " ", S.keys_help);
if (!me) {
  // Not seated (an organiser, or anyone after the close): said once, in the header, and
  // the hands stay where they were dealt, South at the bottom.
  $("bt").dataset.watching = "true";
  $("bt-conn").before(h("span", { class: "bt-watching", id: "bt-watching", title: S.watching_note }, S.watching));
}
clockPhase = roundPhase();
drawClock();
render();
connect();
setInterval(tick, 250);
