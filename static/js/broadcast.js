// A broadcast (RULES 12, Vugraph): one plain ES module, no build.
//
// Drawn from the snapshot the page carries (selectors.broadcasts.snapshot, the same for
// every spectator), then from the spectators' socket (docs/PLAY_PROTOCOL.md,
// "Broadcasts"): `snapshot` replaces everything (on every (re)connection, so a reconnect
// resyncs), `progress` moves a room's unreleased board on, `released` shows a board in
// every room with the match's new score, `comment` adds a line, `spectators` the count.
// No socket path: a finished record (a match read from a LIN file), drawn once.
// Names and commentary are set as text, never as HTML.

const root = document.getElementById("bc");
const S = JSON.parse(document.getElementById("bc-strings").textContent);
let snap = JSON.parse(document.getElementById("bc-snapshot").textContent);
const socketPath = root.dataset.socket || "";
const commentUrl = root.dataset.commentUrl || "";
const lang = document.documentElement.lang || undefined;

const SEATS = ["N", "E", "S", "W"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = "23456789TJQKA";
const AUCTION_ORDER = ["W", "N", "E", "S"];
const REFUSED = new Set([4401, 4403, 4404]);
const AUTO_STEP_MS = 900;

let selected = null; // the board shown in the rooms
let follow = true; // follow the newest released board until a board is chosen
const steps = new Map(); // "board:room" -> cards shown
let autoKey = null; // the room stepping by itself
let autoTimer = null;
let state = socketPath ? "connecting" : "record";
let ended = "";
let spectators = null;
let socket = null;
let retry = 1000;

// -- small helpers -------------------------------------------------------------------

function fmt(text, params) {
  return text.replace(/%\((\w+)\)s/g, (_, key) => String(params[key] ?? ""));
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
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const $ = (id) => document.getElementById(id);
const sideOf = (seat) => (seat === "N" || seat === "S" ? "NS" : "EW");
const rankText = (rank) => (rank === "T" ? "10" : rank);
const signed = (n) => (n > 0 ? `+${n}` : String(n));

function suitSpan(suit) {
  return h("span", { class: `bc-sym s-${suit}`, "aria-hidden": "true" }, SYMBOL[suit]);
}

function callNode(call) {
  if (call === "P") return h("span", { class: "bc-call pass" }, S.pass_short);
  if (call === "X") return h("span", { class: "bc-call dbl" }, S.double_short);
  if (call === "XX") return h("span", { class: "bc-call rdbl" }, S.redouble_short);
  const strain = call.slice(1);
  if (strain === "NT" || strain === "N") return h("span", { class: "bc-call" }, call[0], S.NT);
  return h("span", { class: "bc-call" }, call[0], suitSpan(strain),
    h("span", { class: "visually-hidden" }, S["suit_" + strain]));
}

function callTitle(call) {
  if (call === "P") return S.pass;
  if (call === "X") return S.double;
  if (call === "XX") return S.redouble;
  const strain = call.slice(1);
  return `${call[0]} ${strain === "NT" || strain === "N" ? S.suit_N : S["suit_" + strain]}`;
}

const CONTRACT = /^(\d)(NT|N|S|H|D|C)(X{0,2})$/;

function contractNode(contract) {
  const match = CONTRACT.exec(contract || "");
  if (!match) return h("span", {}, contract === "PASS" ? S.passed_out : contract || "");
  return h("span", { class: "bc-contract" }, callNode(match[1] + match[2]), match[3]);
}

function strainOf(contract) {
  const match = CONTRACT.exec(contract || "");
  return match ? match[2][0] : null;
}

function cardFace(card) {
  return h("span", { class: `bc-face s-${card[0]}` },
    h("span", {}, rankText(card[1])), suitSpan(card[0]),
    h("span", { class: "visually-hidden" }, `${rankText(card[1])} ${S["suit_" + card[0]]}`));
}

function localTime(iso, seconds = false) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const options = { hour: "2-digit", minute: "2-digit" };
  if (seconds) options.second = "2-digit";
  try { return at.toLocaleTimeString(lang, options); } catch { return at.toLocaleTimeString(); }
}

// -- the board's facts ----------------------------------------------------------------

function roomLabel(room) {
  if (room.key === "open") return S.room_open;
  if (room.key === "closed") return S.room_closed;
  return fmt(S.room_table, { n: room.table });
}

function boardOf(number) {
  return snap.boards.find((b) => b.number === number) || null;
}

// Each hand as dealt: what it still holds and what it has played (a board cut off at the
// bell is shown as it stood).
function dealt(view) {
  const hands = {};
  for (const seat of SEATS) hands[seat] = new Set(view.hands?.[seat] || []);
  for (const { seat, card } of view.play || []) hands[seat]?.add(card);
  return hands;
}

function sortedSuit(cards, suit) {
  return [...cards].filter((c) => c[0] === suit).map((c) => c[1])
    .sort((a, b) => RANKS.indexOf(b) - RANKS.indexOf(a));
}

// The winner of each complete trick, from the cards in order and the contract's strain.
function winners(play, contract) {
  const trump = strainOf(contract);
  const out = [];
  for (let i = 0; i + 4 <= play.length; i += 4) {
    const trick = play.slice(i, i + 4);
    let best = trick[0];
    for (const p of trick.slice(1)) {
      const suit = p.card[0];
      const bestSuit = best.card[0];
      const beats = suit === bestSuit
        ? RANKS.indexOf(p.card[1]) > RANKS.indexOf(best.card[1])
        : trump && trump !== "N" && suit === trump && bestSuit !== trump;
      if (beats) best = p;
    }
    out.push(best.seat);
  }
  return out;
}

function resultText(view) {
  // A room of an imported file that the rules of play refused (RULES 12.1): why.
  if (view.refused) return { text: S.refused, reason: view.refused.reason, score: null };
  const stored = view.stored_result;
  const result = stored || view.result;
  if (!result) return { text: S.not_finished, score: null };
  if (stored && stored.adjusted) return { text: S.adjusted, score: stored.ns_score };
  if (!result.contract || result.contract === "PASS") return { text: S.passed_out, score: result.ns_score ?? 0 };
  const match = CONTRACT.exec(result.contract);
  let over = "";
  if (match && result.tricks !== null && result.tricks !== undefined) {
    const diff = result.tricks - (Number(match[1]) + 6);
    over = diff === 0 ? "=" : signed(diff);
  }
  return { contract: result.contract, declarer: result.declarer, over, tricks: result.tricks, score: result.ns_score };
}

function resultNode(view, long = false) {
  const r = resultText(view);
  if (r.reason) return h("span", { class: "bc-refused", title: r.reason }, long ? fmt(S.refused_because, { reason: r.reason }) : r.text);
  if (!r.contract) return h("span", {}, r.text);
  if (long) {
    const parts = fmt(S.made, { contract: "\u0000", seat: S[r.declarer] || r.declarer || "", tricks: r.tricks ?? "" }).split("\u0000");
    return h("span", {}, parts[0], contractNode(r.contract), parts[1] || "");
  }
  return h("span", { class: "bc-short" }, contractNode(r.contract), " ", S["seat_" + r.declarer] || "", " ", r.over);
}

function progressText(progress) {
  if (!progress) return S.progress_waiting;
  if (progress.phase === "over") return S.progress_over;
  if (progress.phase === "play") return fmt(S.progress_play, { n: Math.min(13, progress.tricks_played + 1) });
  return S.progress_auction;
}

// -- drawing ---------------------------------------------------------------------------

function finished() {
  return state === "record" || snap.event_over || snap.round_status === "closed";
}

function drawHead() {
  const badge = $("bc-state");
  let text = S.live;
  let kind = "live";
  if (ended) { text = ended; kind = "ended"; }
  else if (finished()) { text = S.finished; kind = "finished"; }
  else if (state === "connecting") { text = S.connecting; kind = "connecting"; }
  badge.textContent = text;
  badge.dataset.kind = kind;
  root.dataset.state = ended ? "ended" : state;
  $("bc-conn").textContent = state === "reconnecting" ? S.reconnecting : "";
  const count = $("bc-spectators");
  count.hidden = spectators === null || !socketPath || !!ended;
  if (spectators !== null) count.textContent = fmt(S.spectators, { n: spectators });
}

function drawScore() {
  const box = $("bc-score");
  box.textContent = "";
  if (!snap.teams || !snap.score) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const { home, away } = snap.teams;
  box.append(
    h("div", { class: "bc-team home" }, h("span", { class: "bc-team-name" }, home),
      h("strong", { class: "bc-team-score", id: "bc-home-score" }, String(snap.score.home))),
    h("span", { class: "bc-dash", "aria-hidden": "true" }, "–"),
    h("div", { class: "bc-team away" }, h("strong", { class: "bc-team-score", id: "bc-away-score" }, String(snap.score.away)),
      h("span", { class: "bc-team-name" }, away)),
  );
  if (snap.score.carry_over) {
    const carry = snap.score.carry_over;
    box.append(h("p", { class: "bc-carry muted" },
      fmt(S.carry_over, { n: Math.abs(carry) }), " · ", carry > 0 ? home : away));
  }
}

function drawNote() {
  const note = [];
  if (snap.delay_minutes) note.push(fmt(S.delay_note, { n: snap.delay_minutes }));
  if (snap.next_release_at && !finished()) note.push(fmt(S.next_release, { t: localTime(snap.next_release_at) }));
  $("bc-note").textContent = note.join(" ");
}

function drawBoardList() {
  const rooms = snap.rooms;
  const teams = rooms.length === 2;
  const head = h("tr", {}, h("th", { scope: "col", class: "num" }, S.boards),
    rooms.map((room) => [
      h("th", { scope: "col" }, roomLabel(room)),
      h("th", { scope: "col", class: "num ns" }, S.ns_score),
    ]),
    teams ? [h("th", { scope: "col", class: "num imps" }, snap.teams?.home || S.imps),
      h("th", { scope: "col", class: "num imps" }, snap.teams?.away || S.imps)] : null);
  const rows = snap.boards.map((board) => {
    const cells = rooms.map((room) => {
      const view = board.rooms[room.key];
      if (!board.released) {
        return [h("td", { class: "muted bc-progress", "data-room": room.key }, progressText(view?.progress)), h("td", { class: "num ns" }, "")];
      }
      const r = resultText(view);
      return [h("td", { "data-room": room.key }, resultNode(view)),
        h("td", { class: "num ns" }, r.score === null || r.score === undefined ? "" : String(r.score))];
    });
    const imps = board.imps;
    const choose = h("button", {
      type: "button", class: "link-button bc-choose", "aria-label": fmt(S.choose_board, { n: board.number }),
      onclick: () => chooseBoard(board.number),
    }, String(board.number));
    return h("tr", {
      class: [board.released ? "released" : "pending", board.number === selected ? "chosen" : ""].join(" "),
      "data-board": board.number, "aria-current": board.number === selected ? "true" : null,
    }, h("th", { scope: "row", class: "num" }, choose), cells,
    teams ? [h("td", { class: "num imps" }, imps !== null && imps > 0 ? String(imps) : ""),
      h("td", { class: "num imps" }, imps !== null && imps < 0 ? String(-imps) : "")] : null);
  });
  const table = h("table", { class: "data bc-board-table" }, h("thead", {}, head), h("tbody", {}, rows));
  const list = $("bc-board-list");
  list.textContent = "";
  list.append(table);
}

function chooseBoard(number) {
  selected = number;
  const latest = latestReleased();
  follow = latest === null || number === latest;
  stopAuto();
  drawBoardList();
  drawRooms();
}

function latestReleased() {
  const released = snap.boards.filter((b) => b.released).map((b) => b.number);
  return released.length ? Math.max(...released) : null;
}

function pickBoard() {
  if (selected !== null && boardOf(selected) && !follow) return;
  const latest = latestReleased();
  if (latest !== null) { selected = latest; return; }
  // Nothing shown yet: the first board a room is playing.
  const playing = snap.boards.find((b) => Object.values(b.rooms).some((v) => v.progress && v.progress.phase !== "over"));
  if (selected === null || !boardOf(selected)) selected = (playing || snap.boards[0] || { number: null }).number;
}

function drawRooms() {
  const box = $("bc-rooms");
  box.textContent = "";
  box.dataset.rooms = String(snap.rooms.length);
  const board = boardOf(selected);
  if (!board) return;
  if (!board.released) {
    const text = snap.delay_minutes
      ? fmt(S.not_shown_delay, { n: board.number, m: snap.delay_minutes })
      : fmt(S.not_shown, { n: board.number });
    box.append(h("p", { class: "bc-pending-note", id: "bc-pending" }, text));
  }
  for (const room of snap.rooms) box.append(drawRoom(room, board));
}

function boardInfo(board) {
  return h("div", { class: "bc-board-info" },
    h("strong", {}, fmt(S.board, { n: board.number })), h("br", {}),
    h("span", {}, `${S.dealer} ${S[board.dealer]}`), h("br", {}),
    h("span", { class: board.vulnerability === "None" ? "" : "bc-vul-word" }, S["vul_" + board.vulnerability]));
}

function handNode(seat, room, board, cards, turn) {
  const vul = board.vulnerability === "Both" || board.vulnerability === sideOf(seat);
  const name = h("div", { class: "bc-name" },
    h("strong", {}, S["seat_" + seat]), " ", room.players?.[seat] || "",
    board.dealer === seat ? h("abbr", { class: "bc-tag dealer", title: S.dealer }, S.dealer_mark) : null);
  const hand = h("div", { class: `bc-hand bc-${seat}${vul ? " vul" : ""}${turn ? " turn" : ""}`, "data-seat": seat }, name);
  if (cards) {
    for (const suit of SUITS) {
      const ranks = sortedSuit(cards, suit);
      hand.append(h("div", { class: "bc-suit" }, suitSpan(suit),
        h("span", { class: "bc-ranks", "data-suit": suit }, ranks.length ? ranks.map(rankText).join(" ") : "—")));
    }
  }
  return hand;
}

function drawRoom(room, board) {
  const view = board.rooms[room.key] || {};
  const section = h("section", { class: "bc-room", "data-room": room.key, "aria-label": roomLabel(room) });
  const title = h("h2", { class: "bc-room-title" }, roomLabel(room),
    room.key !== "table" && room.table ? h("span", { class: "muted" }, " · ", fmt(S.table_n, { t: room.table })) : null);
  section.append(title);
  if (!board.released) {
    section.classList.add("pending");
    const compass = h("div", { class: "bc-compass" });
    for (const seat of SEATS) compass.append(handNode(seat, room, board, null, view.progress?.turn === seat && view.progress?.phase !== "over"));
    compass.append(h("div", { class: "bc-centre" }, boardInfo(board),
      h("p", { class: "bc-progress-big", "data-phase": view.progress?.phase || "" }, progressText(view.progress))));
    section.append(compass);
    return section;
  }
  const key = `${board.number}:${room.key}`;
  const play = view.play || [];
  const total = play.length;
  const step = Math.min(steps.has(key) ? steps.get(key) : 0, total);
  const won = winners(play, view.contract);
  const hands = dealt(view);
  for (const { seat, card } of play.slice(0, step)) hands[seat].delete(card);
  const trickIndex = step ? Math.floor((step - 1) / 4) : -1;
  const inTrick = trickIndex >= 0 ? play.slice(trickIndex * 4, step) : [];
  const complete = inTrick.length === 4;
  let ns = 0;
  let ew = 0;
  for (let t = 0; t < Math.floor(step / 4) && t < won.length; t++) sideOf(won[t]) === "NS" ? ns++ : ew++;
  const next = step < total ? play[step].seat : null;

  const compass = h("div", { class: "bc-compass" });
  for (const seat of SEATS) compass.append(handNode(seat, room, board, hands[seat], seat === next));
  const trick = h("div", { class: "bc-trick", "aria-hidden": "true" });
  inTrick.forEach((p, i) => {
    const slot = h("div", { class: `bc-played at-${p.seat}${i === 0 ? " led" : ""}${complete && won[trickIndex] === p.seat ? " won" : ""}` }, cardFace(p.card));
    trick.append(slot);
  });
  compass.append(h("div", { class: "bc-centre" }, boardInfo(board), trick,
    h("p", { class: "bc-tricks", "data-ns": ns, "data-ew": ew }, fmt(S.tricks_won, { ns, ew }))));
  section.append(compass);

  // The stepper.
  let where;
  if (!total) where = S.no_play;
  else if (step === 0) where = S.step_start;
  else if (step === total && total === 52) where = S.step_end;
  else where = fmt(S.step_card, { trick: trickIndex + 1, card: step - trickIndex * 4 });
  const go = (to) => {
    steps.set(key, Math.max(0, Math.min(total, to)));
    redrawRoom(room, board);
  };
  const button = (name, symbol, label, to, disabled) => h("button", {
    type: "button", class: "button small bc-step", "data-step": name, title: label, "aria-label": label,
    disabled, onclick: () => { if (name !== "auto") stopAuto(); go(to); },
  }, h("span", { "aria-hidden": "true" }, symbol));
  const playing = autoKey === key;
  const auto = h("button", {
    type: "button", class: "button small bc-step bc-auto", "data-step": "auto",
    "aria-pressed": playing ? "true" : "false",
    disabled: !total,
    onclick: () => {
      if (playing) {
        stopAuto();
        redrawRoom(room, boardOf(board.number) || board);
      } else startAuto(key, room, board);
    },
  }, playing ? S.pause : S.play);
  section.append(h("div", { class: "bc-stepper", role: "group" },
    button("first", "«", S.first, 0, step === 0),
    button("back", "◀", S.back, step - 1, step === 0),
    auto,
    button("forward", "▶", S.forward, step + 1, step >= total),
    button("last", "»", S.last, total, step >= total),
    h("span", { class: "bc-where", role: "status", "data-step": step }, where)));

  // The contract and result.
  const r = resultText(view);
  section.append(h("p", { class: "bc-result" },
    view.contract ? [h("span", { class: "muted" }, S.contract, " "), contractNode(view.contract), " ", S[view.declarer] || "", " · "] : null,
    h("span", { class: "muted" }, S.result, " "), resultNode(view, true),
    r.score !== null && r.score !== undefined ? [" · ", h("span", { class: "muted" }, S.ns_score, " "), h("strong", {}, signed(r.score))] : null));

  section.append(...auctionGrid(view, board));
  return section;
}

function auctionGrid(view, board) {
  const head = h("tr", {}, AUCTION_ORDER.map((seat) => {
    const vul = board.vulnerability === "Both" || board.vulnerability === sideOf(seat);
    return h("th", { scope: "col", class: vul ? "vul" : "", title: vul ? S.vul : null },
      S["seat_" + seat], board.dealer === seat ? h("abbr", { class: "bc-tag dealer", title: S.dealer }, S.dealer_mark) : null);
  }));
  const cells = [];
  for (let i = 0; i < AUCTION_ORDER.indexOf(board.dealer); i++) cells.push(h("td", {}));
  const notes = [];
  for (const entry of view.auction || []) {
    const cell = h("td", { title: callTitle(entry.call), "data-call": entry.call }, callNode(entry.call));
    if (entry.alert) {
      notes.push(entry.alert);
      cell.classList.add("alerted");
      cell.title = `${callTitle(entry.call)} — ${S.alerted}: ${entry.alert}`;
      cell.append(h("sup", { class: "bc-alert-mark" }, String(notes.length)));
    }
    cells.push(cell);
  }
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(h("tr", {}, cells.slice(i, i + 4)));
  const table = h("table", { class: "bc-auction" }, h("caption", {}, S.auction), h("thead", {}, head), h("tbody", {}, rows));
  const list = notes.length
    ? h("ol", { class: "bc-alerts" }, notes.map((text) => h("li", {}, h("span", { class: "bc-alert-word" }, `${S.alert}: `), text)))
    : null;
  return [table, list].filter(Boolean);
}

function redrawRoom(room, board) {
  const old = document.querySelector(`.bc-room[data-room="${room.key}"]`);
  const focused = document.activeElement?.dataset?.step;
  const fresh = drawRoom(room, board);
  if (old) old.replaceWith(fresh);
  if (focused) {
    const again = fresh.querySelector(`[data-step="${focused}"]`);
    (again && !again.disabled ? again : fresh.querySelector("[data-step]:not(:disabled)"))?.focus();
  }
}

function startAuto(key, room, board) {
  stopAuto();
  const total = (board.rooms[room.key].play || []).length;
  if ((steps.get(key) || 0) >= total) steps.set(key, 0);
  autoKey = key;
  autoTimer = setInterval(() => {
    const current = boardOf(board.number);
    const now = (steps.get(key) || 0) + 1;
    if (!current || now > total) { stopAuto(); redrawRoom(room, current || board); return; }
    steps.set(key, now);
    if (now >= total) stopAuto();
    redrawRoom(room, current);
  }, AUTO_STEP_MS);
  redrawRoom(room, board);
}

function stopAuto() {
  if (autoTimer) clearInterval(autoTimer);
  autoTimer = null;
  autoKey = null;
}

function drawComments() {
  const list = $("bc-comments");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
  list.textContent = "";
  if (!snap.comments.length) list.append(h("li", { class: "muted bc-no-comments" }, S.no_comments));
  for (const c of snap.comments) {
    list.append(h("li", { class: "bc-comment", "data-id": c.id },
      h("time", { datetime: c.at }, localTime(c.at)), " ",
      c.by ? h("strong", { class: "bc-by" }, c.by, ": ") : null,
      h("span", { class: "bc-text" }, c.text)));
  }
  if (atBottom || list.dataset.drawn !== "1") list.scrollTop = list.scrollHeight;
  list.dataset.drawn = "1";
}

function addComment(comment) {
  if (snap.comments.some((c) => c.id === comment.id)) return;
  snap.comments.push(comment);
  snap.comments.sort((a, b) => a.id - b.id);
  drawComments();
}

function drawAll() {
  pickBoard();
  drawHead();
  drawScore();
  drawNote();
  drawBoardList();
  drawRooms();
  drawComments();
}

// -- the socket ----------------------------------------------------------------------

function onMessage(message) {
  if (message.type === "snapshot") {
    snap = message.broadcast;
    if (typeof message.spectators === "number") spectators = message.spectators;
    state = "live";
    retry = 1000;
    drawAll();
  } else if (message.type === "progress") {
    const room = snap.rooms.find((r) => r.table_id === message.table_id);
    const board = boardOf(message.board);
    if (!room || !board || board.released) return;
    board.rooms[room.key] = { ...board.rooms[room.key], progress: message.progress };
    drawBoardList();
    if (board.number === selected) drawRooms();
  } else if (message.type === "released") {
    const index = snap.boards.findIndex((b) => b.number === message.board.number);
    if (index >= 0) snap.boards[index] = message.board;
    if (message.score) snap.score = message.score;
    const wasSelected = message.board.number === selected;
    pickBoard();
    drawScore();
    drawNote();
    drawBoardList();
    if (wasSelected || message.board.number === selected) drawRooms();
  } else if (message.type === "comment") {
    addComment(message.comment);
  } else if (message.type === "spectators") {
    spectators = message.count;
    drawHead();
  } else if (message.type === "error") {
    ended = message.error;
    drawHead();
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}${socketPath}`);
  socket.addEventListener("message", (event) => {
    try { onMessage(JSON.parse(event.data)); } catch (error) { console.error(error); }
  });
  socket.addEventListener("close", (event) => {
    socket = null;
    if (REFUSED.has(event.code) || ended) {
      if (!ended) ended = S.ended;
      drawHead();
      return;
    }
    state = "reconnecting";
    drawHead();
    const wait = retry * (0.75 + Math.random() * 0.5);
    retry = Math.min(retry * 2, 30000);
    setTimeout(connect, wait);
  });
}

// -- commentary ----------------------------------------------------------------------

function setUpCommentForm() {
  const form = $("bc-comment-form");
  if (!form || !commentUrl) return;
  const input = $("bc-comment-text");
  const error = $("bc-comment-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    error.hidden = true;
    try {
      const body = new FormData(form);
      const response = await fetch(commentUrl, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers: { "X-CSRFToken": body.get("csrfmiddlewaretoken") || "", Accept: "application/json" },
      });
      let answer = {};
      try { answer = await response.json(); } catch { answer = {}; }
      if (response.ok && answer.comment) {
        input.value = "";
        addComment(answer.comment);
      } else {
        error.textContent = answer.error || S.comment_failed;
        error.hidden = false;
      }
    } catch {
      error.textContent = S.comment_failed;
      error.hidden = false;
    } finally {
      button.disabled = false;
      input.focus();
    }
  });
}

drawAll();
setUpCommentForm();
if (socketPath) connect();
