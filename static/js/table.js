// The live table: draws the per-viewer view that the socket sends (docs/protocol.md) and sends the
// player's commands. Everything shown comes from the last snapshot or update; nothing is guessed.
import { h } from "./dom.js";
import { cardEl, setDeck } from "./cards.js";
import { cues, isMyTurn, momentKey, timeCue } from "./cues.js";
import { CLASS_NAMES, createTeller, OUTCOMES, showTotal, tellAll } from "./feed.js";
import { localTimes, number, signed as signedNumber } from "./format.js";
import { TableSocket } from "./socket.js";
import { each, knobsOn, loadHouse } from "./house.js";

const cfg = JSON.parse(document.getElementById("table-config").textContent);
const $ = (sel, root = document) => root.querySelector(sel);
const fmt = (s, o) => interpolate(s, o, true);

const S = {
  version: -1, view: null, room: null, me: null, presence: {}, names: {}, started: false, stalled: null,
  skew: cfg.server_now - Date.now() / 1000, busy: null, busyUntil: null, inputs: {}, feed: [], unread: 0,
  actionsKey: "", askedSince: 0, seeds: {}, typedSeed: null, seedOffered: "", seedAction: null, fairKey: "",
  box: { hand: null, value: "" }, lastStake: null,
};

// --- small DOM helpers -------------------------------------------------------------------------------

function toast(message, kind = "error") {
  const box = $("#toast");
  box.textContent = message;
  box.className = "toast " + kind;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 4000);
}
$("#toast").addEventListener("click", () => { $("#toast").hidden = true; }); // a tap clears what it covers

// --- what the view says ------------------------------------------------------------------------------

const V = () => S.view;
const legal = (a) => !!S.view && S.view.legal_actions.includes(a);
const mySeat = () => S.view && S.view.seats.find((x) => x.id === S.view.you);
const name = (id) => S.names[id] || gettext("a player who left");
const rules = () => S.view.rules;
const house = (knob) => { const r = rules(); return r[knob] === null ? r.house_rules : r[knob]; };
const isHost = () => { const me = mySeat(); return me ? me.host : (S.room && S.room.host.id === cfg.user); };
const inHand = () => ["auction", "betting", "playing"].includes(V().phase);
const secondsLeft = () => V() && V().deadline ? Math.max(0, Math.ceil(V().deadline - (Date.now() / 1000 + S.skew))) : null;

function total(ph) {
  if (ph.total === undefined) return "";
  const shown = showTotal(ph.total);
  return ph.bust ? fmt(gettext("%(total)s bust"), { total: shown }) : shown;
}


// The banker of the hand on show: the bank may have moved on once the hand was settled.
const handBanker = () => (V().last_hand && V().last_hand.banker) || V().banker;
const multiplier = (r) => (r.outcome === "win" || r.outcome === "lose" ? ` ×${r.multiplier}` : "");

function signed(r) {
  return signedNumber(r.outcome === "win" ? r.paid : -r.paid);
}

// --- the socket --------------------------------------------------------------------------------------

const scheme = location.protocol === "https:" ? "wss:" : "ws:";
const socket = new TableSocket(`${scheme}//${location.host}/ws/rooms/${cfg.code}/`, { onFrame, onStatus });

function onStatus(status, code) {
  const banner = $("#conn-banner");
  if (status === "open") {
    banner.hidden = true;
    document.body.classList.remove("offline");
    return;
  }
  document.body.classList.add("offline");
  banner.hidden = false;
  if (status === "lost") {
    banner.textContent = gettext("Connection lost. Reconnecting…");
    return;
  }
  const why = {
    4401: gettext("You are logged out. Log in again to play."),
    4403: gettext("You cannot enter this room."),
    4404: gettext("This room does not exist any more."),
    4410: gettext("This room is closed."),
  }[code] || gettext("Disconnected.");
  banner.textContent = why + " ";
  banner.append(h("a", { href: cfg.lobby_url, text: gettext("Back to the lobby") }));
}

function onFrame(f) {
  switch (f.type) {
    case "snapshot":
      S.version = f.version;
      S.askedSince = 0;
      S.room = f.room;
      S.me = f.me;
      S.started = !!f.room.started;
      S.stalled = f.stalled || null;
      S.presence = f.presence || {};
      setView(f.view);
      S.events = (f.hand_events || []).slice();
      rebuildFeed(S.events);
      $("#chat-list").textContent = "";
      for (const m of f.chat || []) addChat(m, false);
      render();
      offerSeed();
      if (f.room.status === "closed") onStatus("closed", 4410);
      break;
    case "update":
      if (f.version <= S.version) return;
      if (S.version >= 0 && f.version > S.version + 1) { askSince(); return; } // a gap: the missing versions first
      S.version = f.version;
      S.askedSince = 0;
      if (f.ack && f.ack === S.busy) S.busyUntil = f.version; // our own action made this version
      if (f.view) { // null: a version filled in from the record, whose events are all there is to show
        S.stalled = f.stalled || null;
        S.started = !!f.started; // the host's Start, before the first hand is dealt (a bank offered first)
        setView(f.view);
      }
      for (const e of f.events || []) onEvent(e);
      render();
      offerSeed();
      break;
    case "ack":
      if (S.busy === f.action_id) S.busyUntil = f.version;
      if (S.busyUntil !== null && S.version >= S.busyUntil) { clearBusy(); if (S.view) renderActions(); }
      break;
    case "error":
      if (f.action_id && f.action_id === S.seedAction) break; // a seed sent by itself came too late: nothing to do
      if (!f.action_id || f.action_id === S.busy) { clearBusy(); if (S.view) renderActions(); }
      refusal(f.code);
      break;
    case "chat":
      addChat(f.message, true);
      break;
    case "chat_hidden": {
      const li = document.querySelector(`#chat-list li[data-id="${Number(f.id)}"]`);
      if (li) li.remove();
      break;
    }
    case "notice":
      refusal(f.code, "info");
      break;
    case "reported":
      toast(gettext("Thank you: the moderators will look at it."), "ok");
      break;
    case "presence":
      S.presence[f.seat] = f.connected;
      renderFelt();
      break;
    case "pong":
      break;
    case "closed":
      S.closed = true;
      if (S.view) render();
      onStatus("closed", 4410);
    // falls through: the closed state's drawing is a module's, as the other frames' are
    default: // the room's other frames, each to its own module (static/js/room-frames.js)
      import("./room-frames.js").then((m) => m.onFrame(f));
  }
}

// The server sends every version in order and fills in a lost one itself (docs/protocol.md, "Gaps"), so a gap
// means something went wrong: ask for the versions after ours, which come as consecutive updates that draw
// from where we are. Asked again when the answer has not come within 3 s.
function askSince() {
  if (Date.now() - S.askedSince < 3000) return;
  S.askedSince = Date.now();
  socket.send({ type: "since", version: S.version });
}

// The house rules' modules (static/js/house.js), loaded when the room's rules turn one on; the feed is told again
// once they are in, since the events before them had no words yet.
S.house = [];
S.houseKey = "";
function houseFor(view) {
  const key = knobsOn(view.rules).join(",");
  if (key === S.houseKey) return;
  S.houseKey = key;
  loadHouse(view.rules).then((modules) => {
    if (S.houseKey !== key) return;
    S.house = modules;
    S.actionsKey = "";
    if (S.events) rebuildFeed(S.events);
    render();
  });
}
const houseApi = () => ({ view: S.view, send, legal, name, button, h, fmt, number, me: mySeat() });

function setView(view) {
  S.view = view;
  houseFor(view);
  setDeck(view.rules.deck);
  for (const x of view.seats) S.names[x.id] = x.name;
  const mine = view.hand && view.you && view.hand.bets && view.hand.bets[view.you];
  if (mine && mine.confirmed && mine.amount > 0 && !view.rules.fixed_stake) rememberStake(mine.amount);
  if (S.busyUntil !== null && S.version >= S.busyUntil) clearBusy();
}

function clearBusy() {
  S.busy = null;
  S.busyUntil = null;
  S.actionsKey = "";
}

function send(action, args = {}, { busy = true } = {}) {
  const id = (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`).slice(0, 64);
  if (!socket.send({ type: "action", action, args: withSeed(action, args), action_id: id })) {
    toast(gettext("Not connected: wait a moment and try again."));
    return null;
  }
  if (busy) {
    S.busy = id;
    S.actionsKey = "";
    renderActions();
    setTimeout(() => { if (S.busy === id) { clearBusy(); renderActions(); } }, 6000);
  }
  return id;
}

// --- events: the feed of what just happened ------------------------------------------------------------
// Every event told in words (feed.js) for the current hand and the one before it. After a snapshot the current
// hand's lines are told again from its events (`hand_events`, as this viewer's updates showed them), so a refresh
// keeps the story. The lines about this player (their turn, their cards, their results) are also read out by
// screen readers (a polite live region next to the feed).

const FEED_HANDS = 2; // hands whose lines the feed keeps: the current one and the one before
const FEED_MAX = 400;
const feedLive = h("div", { id: "feed-live", class: "visually-hidden", role: "status", "aria-live": "polite" });
$("#feed").after(feedLive);

/** A hand of the view as the feed asks for it: null while a card of it is hidden from this player. */
function feedHand(seat, index) {
  const hand = S.view && S.view.hand;
  const ph = hand && hand.hands[seat] && hand.hands[seat][index];
  if (!ph || ph.total === undefined) return null;
  return { cards: ph.cards.length, total: ph.total, class: ph.class, bust: ph.bust };
}

const feedOptions = () => ({
  name, you: () => (S.view ? S.view.you : null), game: () => (S.view ? S.view.game : null), handOf: feedHand,
  house: S.house,
});

function onEvent(e) {
  if (e.type === "hand_started") {
    S.started = true;
    S.feedHand = e.hand_no;
  }
  if (e.type === "hand_over" && !$("#menu").hidden) loadHands();
  if (e.type === "hand_started" || !S.events) S.events = [];
  S.events.push(e); // the current hand's events, told again when a house rule's module arrives
  if (!S.teller) S.teller = createTeller(feedOptions());
  const lines = S.teller.tell(e);
  addFeed(lines);
  S.announce = (S.announce || []).concat(lines.filter((l) => l.mine).map((l) => l.text));
}

function addFeed(lines) {
  const hand = S.feedHand || 0;
  for (const l of lines) S.feed.push({ ...l, hand });
  const keep = hand - FEED_HANDS + 1;
  if (S.feed.length && S.feed[0].hand < keep) S.feed = S.feed.filter((l) => l.hand >= keep);
  if (S.feed.length > FEED_MAX) S.feed.splice(0, S.feed.length - FEED_MAX);
  S.feedRev = (S.feedRev || 0) + 1;
}

/** The current hand's lines told again from a snapshot's events; the lines of earlier hands stay. */
function rebuildFeed(events) {
  const start = events.find((e) => e.type === "hand_started");
  if (start) {
    S.feed = S.feed.filter((l) => l.hand < start.hand_no);
    S.feedHand = start.hand_no;
  }
  const told = tellAll(events, feedOptions());
  S.teller = told.teller;
  addFeed(told.lines);
}

function renderFeed() {
  const feed = $("#feed");
  if (feed.dataset.rev !== String(S.feedRev)) {
    // Follow the newest line unless the player has scrolled back to read.
    const following = feed.scrollHeight - feed.scrollTop - feed.clientHeight < 24;
    feed.textContent = "";
    fairTab();
    for (const l of S.feed) {
      if (l.fair) continue; // listed in the menu's "Fair deal" tab
      const cls = [l.type, l.minor && "minor", l.mine && "mine", l.outcome].filter(Boolean).join(" ");
      feed.append(h("li", { class: cls, "data-seat": l.seat, text: l.text }));
    }
    feed.dataset.rev = S.feedRev;
    if (following) feed.scrollTop = feed.scrollHeight;
  }
  if (S.announce && S.announce.length) {
    feedLive.append(h("p", { text: S.announce.join(" ") }));
    while (feedLive.childNodes.length > 3) feedLive.firstChild.remove();
    S.announce = [];
  }
}

// --- drawing -----------------------------------------------------------------------------------------

function render() {
  if (!S.view) return;
  renderCenter();
  renderFelt();
  renderSide();
  renderActions();
  renderResults();
  renderHost();
  renderFair();
  fairTab();
  renderFeed();
  cues(S.view); // your-turn sound, title, vibration, screen awake (static/js/cues.js)
  focusTurn();
  offerPush(S.view);
  ledgerSeen(); // the menu's Ledger tab asks for its figures again when they change (static/js/ledger.js)
  if (S.blind) S.blind(); // the screen-reader mode's document and announcements (static/js/blind.js)
}

// Three modules load only when they are wanted, not with the table (its page's weight: tests/e2e/test_csp.py).
// The words of a refusal (static/js/errors.js) come with the first refusal: most visits see none.
function refusal(code, kind) {
  import("./errors.js").then((m) => toast(m.errorText(code, { view: S.view, cfg }), kind));
}

// The notifications offer (static/js/push.js) comes after the first hand this page saw being played is over.
const pushWatch = { hand: null, done: false };
function offerPush(v) {
  if (pushWatch.done || !v || !v.you || !v.hand) return;
  if (!v.hand.over) {
    pushWatch.hand = v.hand.no;
    return;
  }
  if (pushWatch.hand !== v.hand.no) return; // over already when this page first saw it (a reload): not yet
  pushWatch.done = true;
  import("./push.js").then((m) => m.tableOffer());
}

// The Ledger tab's module and stylesheet load the first time the tab opens; from then on it hears of every view.
let ledgerModule = null;
function ledgerSeen() {
  if (!ledgerModule && $("#menu").dataset.tab === "ledger" && !$("#menu").hidden) {
    document.head.append(h("link", { rel: "stylesheet", href: $("#ledger-panel").dataset.css }));
    ledgerModule = import("./ledger.js");
  }
  if (ledgerModule) ledgerModule.then((m) => m.ledger(S.view, roomClosed()));
}

// The centre's phase label: the engine's phase, told apart where a player reads it differently (before the
// first hand, a table that waits for a stake to be covered, a closed room). Keys: tablePhase().
const PHASES = () => ({
  first: gettext("Before the first hand"), waiting: gettext("Waiting"), betting: gettext("Betting"),
  playing: gettext("Playing"), between_hands: gettext("Between hands"), bank_decision: gettext("Bank decision"),
  auction: gettext("Bank auction"), // house-rules.md "The bank auction" (house-auction.js)
  stalled: gettext("Waiting"), closed: gettext("Closed"),
});

const roomClosed = () => !!S.closed || (!!S.room && S.room.status === "closed");
// Two main seats with chips (or a bank): what a hand needs besides a banker (games/services/due.py, _can_start).
const enoughPlayers = (v) => v.seats.filter((x) => x.role === "main" && !x.leaving && !x.away
  && (x.stack > 0 || (x.id === v.banker && v.bank > 0))).length >= 2;

// The host's Start before the table's first hand: the status line asks for it ("Press Start"), so a seated host
// finds it in the controls docked at the screen's bottom (renderActions), a host without a seat under the table.
// `dealable`: between hands with nobody deciding on the bank and two players who can play, where a start is taken.
const dealable = (v) => ["waiting", "between_hands"].includes(v.phase) && !v.pending && enoughPlayers(v);
const startable = (v) => isHost() && !roomClosed() && !S.started && dealable(v);
const startButton = (label) => h("button", { type: "button", id: "host-start", class: "primary", onclick: () => send("start", {}, { busy: false }) },
  label);

function tablePhase() {
  const v = V();
  if (roomClosed()) return "closed";
  const between = ["waiting", "between_hands"].includes(v.phase);
  if (between && S.started && S.stalled) return "stalled";
  if (between && !v.hand_no) return "first";
  return v.phase;
}

function statusLine() {
  const v = V();
  const you = v.you;
  const waitingFor = v.deadline_for || [];
  const phase = tablePhase();
  if (phase === "closed") return [gettext("This room is closed."), false];
  const mine = mySeat();
  if (mine && mine.away && !mine.banker && !(v.pending && v.pending.seat === you)) {
    return [gettext("You sit out: Sit back in to play from the next hand."), true];
  }
  for (const said of each(S.house, "statusLine", houseApi())) return said; // a house rule's own phase (the auction)
  if (v.phase === "betting") {
    const bet = v.hand && v.hand.bets && v.hand.bets[you];
    if (waitingFor.includes(you)) {
      const amount = bet && !bet.confirmed && legal("bet") ? boxAmount() : bet && bet.amount;
      if (amount) return [fmt(gettext("Your bet is %(n)s: Confirm it, or change it with the chips."), { n: number(amount) }), true];
      return [gettext("Place your bet: add chips, then Confirm."), true];
    }
    if (you && you === v.banker) return [fmt(gettext("You hold the bank. Waiting for bets: %(names)s"), { names: waitingFor.map(name).join(pgettext("between the items of a list", ", ")) }), false];
    return [fmt(gettext("Waiting for bets: %(names)s"), { names: waitingFor.map(name).join(pgettext("between the items of a list", ", ")) }), false];
  }
  if (v.phase === "playing" && v.hand && v.hand.turn) {
    if (v.hand.turn.seat === you) return [gettext("Your turn: Hit for a card, or Stand."), true];
    return [fmt(gettext("%(name)s's turn"), { name: name(v.hand.turn.seat) }), false];
  }
  if (v.phase === "playing") return [gettext("The hand is being settled."), false];
  if (v.phase === "bank_decision" && v.pending) {
    if (v.pending.seat === you) {
      return [{
        open: gettext("The bank is offered to you"),
        take: cfg.kind === "ai" ? gettext("You may take the bank now, or decline: a bot keeps it.") : gettext("You may take the bank"),
        refill: gettext("The bank is empty: refill it or pass it"),
      }[v.pending.kind], true];
    }
    return [fmt(gettext("%(name)s decides on the bank"), { name: name(v.pending.seat) }), false];
  }
  // Before Start the host's button is the way in (the bank is offered then); a running table with no bank asks for one.
  if (S.started && v.phase === "waiting" && !v.banker && legal("open_bank") && enoughPlayers(v)) {
    return [gettext("Nobody holds the bank: open it"), true];
  }
  if (phase === "stalled") {
    // The engine refused the next hand (games/services/moves.py, start_refused): say why, until the table changes.
    return [{
      not_enough_players: gettext("The next hand waits for a challenger who can cover a stake: top up, or wait for players."),
      bank_empty: gettext("The next hand waits: the bank is empty."),
    }[S.stalled] || gettext("The next hand cannot start yet."), false];
  }
  if (v.phase === "between_hands" && v.hand && v.hand.over) {
    return [S.started ? gettext("Hand over: read the results. The next hand starts soon.") : gettext("Hand over."), false];
  }
  if (!mySeat()) return [{ main: gettext("Take a free seat to play."), side: gettext("Every seat is taken: sit as a side bettor to play."),
    none: gettext("Every place at this table is taken.") }[freePlace()], false];
  if (!enoughPlayers(v)) return [gettext("Waiting for players: a hand needs a banker and a challenger."), false];
  if (!S.started) {
    if (isHost()) return [gettext("Press Start when everyone is seated."), true];
    return [gettext("Waiting for the host to start."), false];
  }
  return [phase === "first" ? gettext("The first hand is about to be dealt.") : gettext("The next hand starts soon."), false];
}

function die(value) {
  const pips = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] }[value] || [];
  const node = h("span", { class: "die", role: "img", "aria-label": fmt(gettext("die showing %(n)s"), { n: value }) });
  for (let i = 0; i < 9; i++) node.append(h("i", { class: pips.includes(i) ? "on" : "" }));
  return node;
}

function renderCenter() {
  const v = V();
  const c = $("#center");
  c.textContent = "";
  const key = tablePhase();
  const phase = PHASES()[key] || v.phase;
  c.append(h("div", { class: "phase", id: "phase", "data-phase": v.phase, "data-state": key },
    v.hand_no && key !== "closed" ? fmt(gettext("Hand %(n)s · %(phase)s"), { n: v.hand_no, phase }) : phase));
  const [line, mine] = statusLine();
  const status = h("div", { class: "status" + (mine ? " mine" : ""), id: "status" }, line);
  if (v.deadline && key !== "closed") status.append(" ", h("span", { class: "countdown", "data-countdown": "1", id: "countdown" }));
  c.append(status);
  if (v.banker) {
    c.append(h("div", { class: "bank-line", id: "bank-line" },
      fmt(gettext("Bank: %(bank)s (%(name)s)"), { bank: number(v.bank), name: name(v.banker) }),
      v.bank_turn_left == null ? null : h("span", { class: "bank-turn", id: "bank-turn", "data-left": v.bank_turn_left },
        " · " + fmt(ngettext("%(n)s hand left in this turn", "%(n)s hands left in this turn", v.bank_turn_left),
          { n: v.bank_turn_left }))));
  }
  const hand = v.hand;
  if (hand && hand.dice) {
    c.append(h("div", { class: "dice", id: "dice", "data-total": hand.dice[0] + hand.dice[1] },
      die(hand.dice[0]), die(hand.dice[1]), h("span", { text: "= " + (hand.dice[0] + hand.dice[1]) })));
  }
  if (hand && hand.order && hand.order.length) {
    const order = h("ol", { class: "order", id: "order", "aria-label": gettext("Order of play") });
    for (const id of hand.order) {
      const current = hand.turn && hand.turn.seat === id;
      order.append(h("li", { class: current ? "current" : "", "data-seat": id }, name(id)));
    }
    c.append(order);
  }
  if (v.shoe) {
    c.append(h("div", { class: "muted small" },
      fmt(ngettext("Shoe: %(stock)s card, %(discards)s discarded", "Shoe: %(stock)s cards, %(discards)s discarded",
        v.shoe.stock), v.shoe)));
  }
  if (v.jackpot) c.append(h("div", { class: "jackpot" }, fmt(gettext("Jackpot: %(n)s"), { n: number(v.jackpot) })));
  tick();
}

function seatResult(id) {
  const hand = V().hand;
  if (!hand || !hand.results) return [];
  return hand.results.filter((r) => r.bettor === id && r.kind === "main");
}

function renderHands(id) {
  const hand = V().hand;
  const box = h("div", { class: "hands" });
  if (!hand || !hand.hands || !hand.hands[id]) return box;
  hand.hands[id].forEach((ph, i) => {
    const active = hand.turn && hand.turn.seat === id && hand.turn.hand === i;
    const cards = h("div", { class: "cards" }, ph.cards.map(cardEl));
    const info = [];
    if (ph.total !== undefined) info.push(total(ph));
    if (ph.class && ph.class !== "ordinary" && ph.class !== "bust") info.push(CLASS_NAMES()[ph.class] || ph.class);
    if (ph.doubled) info.push(gettext("doubled"));
    if (ph.mort === "offered") info.push(gettext("Mort offered"));
    for (const more of each(S.house, "handInfo", ph, id, houseApi())) info.push(...more);
    box.append(h("div", { class: "hand" + (active ? " active" : ""), "data-hand": i }, cards,
      info.length ? h("div", { class: "hand-info", text: info.join(" · ") }) : null));
  });
  return box;
}

function seatNode(seat, pos) {
  const v = V();
  const hand = v.hand;
  const me = seat.id === v.you;
  const connected = seat.bot || S.presence[seat.id] !== false;
  const cls = ["seat", me && "me", seat.banker && "banker", hand && hand.turn && hand.turn.seat === seat.id && "turn",
    (v.deadline_for || []).includes(seat.id) && "waiting", !connected && "offline", seat.away && "away"]
    .filter(Boolean).join(" ");
  const badges = h("span", { class: "badges" });
  if (seat.banker) badges.append(h("span", { class: "badge bank", text: pgettext("badge of the banker's seat", "bank") }));
  if (seat.host) badges.append(h("span", { class: "badge", text: gettext("host") }));
  if (seat.bot) badges.append(h("span", { class: "badge", text: gettext("bot") }));
  if (seat.away) badges.append(h("span", { class: "badge warn", text: gettext("away") }));
  if (seat.leaving) badges.append(h("span", { class: "badge warn", text: gettext("leaving") }));
  const presence = h("span", {
    class: "dot " + (connected ? "on" : "off"),
    title: connected ? gettext("connected") : gettext("not connected"),
    role: "img", // a label is read on an element with a role only
    "aria-label": connected ? gettext("connected") : gettext("not connected"),
  });
  const tools = h("span", { class: "seat-tools" }); // report and remove, at the end of the name line
  const node = h("div", { class: cls, "data-seat": seat.id, "data-pos": pos },
    h("div", { class: "seat-head" }, h("span", { class: "seat-who" }, presence,
      h("span", { class: "name", text: seat.name, title: seat.name }), me ? h("span", { class: "you", text: gettext("(you)") }) : null),
    badges, tools),
    h("div", { class: "seat-chips" },
      h("span", { class: "stack", text: fmt(gettext("Stack %(n)s"), { n: number(seat.stack) }) }),
      seat.banker ? h("span", { class: "bank", text: fmt(gettext("Bank %(n)s"), { n: number(v.bank) }) }) : null));
  if (hand && hand.bets && hand.bets[seat.id]) {
    const bet = hand.bets[seat.id];
    // The player's own unconfirmed bet is what their box holds (the server has it only from Confirm).
    const amount = me && !bet.confirmed && v.phase === "betting" && legal("bet") ? boxAmount() || 0 : bet.amount;
    const text = bet.confirmed ? fmt(gettext("Bet %(n)s ✓"), { n: number(bet.amount) })
      : fmt(gettext("Bet %(n)s …"), { n: number(amount) });
    node.append(h("div", { class: "seat-bet" + (bet.confirmed ? " locked" : ""), text }));
  }
  if (hand && hand.sitting_out && hand.sitting_out.includes(seat.id)) {
    node.append(h("div", { class: "muted small", text: gettext("sits this hand out") }));
  }
  if (me && seat.away) { // away (closed tab, timeouts, the host): one click plays again from the next hand
    node.append(h("button", { type: "button", id: "sit-back-in", class: "primary sit-back-in", onclick: () => send("im_back") },
      gettext("Sit back in")));
  }
  node.append(renderHands(seat.id));
  for (const extra of each(S.house, "seatExtras", seat, houseApi())) node.append(extra);
  for (const r of seatResult(seat.id)) {
    node.append(h("div", { class: "seat-result " + r.outcome, "data-outcome": r.outcome },
      `${OUTCOMES()[r.outcome]}${multiplier(r)} ${signed(r)}`));
  }
  if (hand && hand.over && seat.id === handBanker() && hand.deltas && hand.deltas[seat.id] !== undefined) {
    const d = hand.deltas[seat.id];
    node.append(h("div", { class: "seat-result " + (d > 0 ? "win" : d < 0 ? "lose" : "push") },
      fmt(gettext("Bank %(d)s"), { d: signedNumber(d) })));
  }
  if ((v.deadline_for || []).includes(seat.id)) node.append(h("div", { class: "seat-timer", "data-countdown": "1" }));
  if (!me && !seat.bot) {
    tools.append(h("button", {
      class: "link report", type: "button", "data-report": seat.id, title: gettext("Report this player"),
      "aria-label": gettext("Report this player"),
      onclick: () => {
        const reason = prompt(fmt(gettext("Why are you reporting %(name)s?"), { name: seat.name }));
        if (reason && reason.trim()) socket.send({ type: "report", seat: seat.id, reason: reason.trim() });
      },
    }, "⚑"));
  }
  if (isHost() && !me && !(cfg.kind === "ai" && seat.bot) && !seat.leaving) {
    tools.append(h("button", {
      class: "link kick", type: "button", "data-kick": seat.id,
      onclick: () => { if (confirm(fmt(gettext("Remove %(name)s from the room?"), { name: seat.name }))) send("kick", { seat: seat.id }, { busy: false }); },
    }, gettext("Remove")));
  }
  // The host sits a player out between hands (docs/protocol.md, `sit_out`); the banker keeps playing until the bank moves.
  if (isHost() && !me && !seat.bot && !seat.away && !seat.leaving && !seat.banker && !inHand() && !roomClosed()) {
    tools.append(h("button", {
      class: "link sit-out", type: "button", "data-sit-out": seat.id, title: fmt(gettext("Sit %(name)s out from the next hand"), { name: seat.name }),
      onclick: () => send("sit_out", { seat: seat.id }, { busy: false }),
    }, gettext("Sit out")));
  }
  return node;
}

// The felt's 3 x 3 grid (static/css/table.css): its eight outer cells clockwise from the bottom middle, where the
// player's own seat is; n seats take the cells nearest to n even steps around (each step is at least one cell).
const RING = ["b2", "b1", "m1", "t1", "t2", "t3", "m3", "b3"];

function renderFelt() {
  const v = V();
  if (!v) return;
  const felt = $("#seats");
  felt.textContent = "";
  const n = rules().max_main_seats;
  const mine = mySeat();
  const myPos = mine && mine.role === "main" ? mine.position : 0;
  const mains = {};
  for (const x of v.seats) if (x.role === "main") mains[x.position] = x;
  felt.dataset.count = n;
  for (let pos = 0; pos < n; pos++) {
    const k = (pos - myPos + n) % n;
    const seat = mains[pos];
    let node;
    if (seat) {
      node = seatNode(seat, pos);
    } else {
      node = h("div", { class: "seat empty", "data-pos": pos },
        mine || roomClosed() ? h("span", { class: "muted", text: gettext("Empty seat") })
          : h("button", { type: "button", class: "sit", "data-sit": pos, onclick: () => openSit("main", pos) }, gettext("Sit here")));
    }
    node.dataset.cell = RING[Math.round((k * RING.length) / n) % RING.length];
    // The compact grid of phones: the player's own seat first, the bank's next (both in view on the player's turn,
    // side by side on a phone on its side), then clockwise.
    node.style.order = seat && seat.banker && k ? 1 : 2 * k;
    felt.append(node);
  }
  // On the player's turn (and after each card it brings) their seat is scrolled into view once.
  const hand = v.hand;
  const turn = hand && hand.turn && hand.turn.seat === v.you ? hand.turn : null;
  const key = turn ? `${v.hand_no}:${turn.hand}:${(hand.hands[v.you] || []).map((x) => x.cards.length)}` : "";
  if (key && key !== renderFelt.shownTurn) requestAnimationFrame(ownSeatIntoView);
  renderFelt.shownTurn = key;
}

/** The player's own seat into view, above the controls that stick to the bottom of the screen on their turn. */
function ownSeatIntoView() {
  const me = $("#seats .seat.me");
  const bar = $("#actions");
  if (!me) return;
  me.style.scrollMarginBottom = `${(bar.classList.contains("needed") ? bar.offsetHeight : 0) + 8}px`;
  me.scrollIntoView({ block: "nearest" });
}
// A phone turned on its side during the player's turn: the seat again, where the new layout put it.
addEventListener("resize", () => { if (renderFelt.shownTurn) requestAnimationFrame(ownSeatIntoView); });

// What a spectator may take: a main seat ("main"), else a side bettor's place ("side"), else nothing ("none").
const canSitSide = (v) => !mySeat() && rules().side_bets_enabled && cfg.kind !== "ai"
  && v.seats.filter((x) => x.role === "side").length < rules().max_side_bettors;
function freePlace() {
  const v = V();
  if (v.seats.filter((x) => x.role === "main").length < rules().max_main_seats) return "main";
  return canSitSide(v) ? "side" : "none";
}

function renderSide() {
  const v = V();
  const box = $("#side-seats");
  box.textContent = "";
  const sides = v.seats.filter((x) => x.role === "side");
  const canSit = canSitSide(v);
  if (!sides.length && !canSit) { box.hidden = true; return; }
  box.hidden = false;
  box.append(h("h2", { text: gettext("Side bettors") }));
  const list = h("ul", { class: "side-list" });
  const bets = (v.hand && v.hand.side_bets) || [];
  for (const x of sides) {
    const bet = bets.find((b) => b.seat === x.id);
    const result = v.hand && v.hand.results ? v.hand.results.find((r) => r.bettor === x.id && r.kind === "side") : null;
    const connected = S.presence[x.id] !== false;
    list.append(h("li", { class: x.id === v.you ? "me" : "", "data-seat": x.id },
      h("span", { class: "dot " + (connected ? "on" : "off") }), " ", h("strong", { text: x.name }), " ",
      h("span", { class: "muted", text: fmt(gettext("stack %(n)s"), { n: number(x.stack) }) }),
      bet && bet.backs ? h("span", { text: " · " + fmt(bet.confirmed ? gettext("%(amount)s on %(name)s ✓") : gettext("%(amount)s on %(name)s …"), { amount: number(bet.amount), name: name(bet.backs) }) }) : null,
      result ? h("span", { class: "seat-result " + result.outcome, text: ` ${OUTCOMES()[result.outcome]}${multiplier(result)} ${signed(result)}` }) : null,
      x.away ? h("span", { class: "badge warn", text: gettext("away") }) : null,
      x.away && x.id === v.you ? h("button", { type: "button", id: "sit-back-in", class: "primary", onclick: () => send("im_back") },
        gettext("Sit back in")) : null));
  }
  box.append(list);
  if (canSit) {
    box.append(h("button", { type: "button", class: "secondary", id: "sit-side", onclick: () => openSit("side", null) },
      gettext("Sit as a side bettor")));
  }
}

function amountInput(key, value, label) {
  const current = S.inputs[key] ?? value;
  const input = h("input", {
    type: "number", min: 1, step: 1, value: current, id: "amount-" + key, "aria-label": label, class: "amount",
    oninput: (e) => { S.inputs[key] = e.target.value; },
  });
  return input;
}

/** An amount's field with its label shown before it, both on one line (the top-up, the refill, the jackpot). */
const labelledAmount = (key, value, label) => h("span", { class: "amount-field" },
  h("label", { for: "amount-" + key, text: label }), amountInput(key, value, label));

function readAmount(key) {
  const value = parseInt($("#amount-" + key).value, 10);
  if (!Number.isFinite(value) || value <= 0) {
    toast(gettext("Enter a whole number above zero."));
    return null;
  }
  return value;
}

// --- the bet box ----------------------------------------------------------------------------------------
// A challenger's stake is built here, in the page, and sent once with Confirm (`bet`: the amount and the
// confirmation together). Each hand the box starts with the seat's stake of the previous hand this page saw (kept
// in sessionStorage, so a reload keeps it), or the base stake the first time, brought within the limits; a stake the
// server set already (practice_open's base stake) is taken as it is. Nothing reaches the server before Confirm, so a
// player who does nothing gets the engine's timeout default (docs/rules.md, "The bet box"). Confirm is disabled on an
// amount the engine would refuse (machine.py, `_check_stake`), and the reason is shown under the box.

const STAKE_KEY = `halfpoint:stake:${cfg.room_id}`;

function rememberStake(amount) {
  S.lastStake = amount;
  try { sessionStorage.setItem(STAKE_KEY, String(amount)); } catch { /* storage off: this page's memory only */ }
}

function lastStake() {
  if (S.lastStake === null) {
    let kept = null;
    try { kept = parseInt(sessionStorage.getItem(STAKE_KEY), 10); } catch { /* storage off */ }
    S.lastStake = Number.isInteger(kept) && kept > 0 ? kept : 0;
  }
  return S.lastStake;
}

/** The lowest and highest stake `seat` may confirm in a hand of base stake `base` (machine.py, `_stake_limits`). */
function stakeLimits(seat, base) {
  const r = rules();
  const low = r.fixed_stake ? base : (r.min_bet ?? r.base_stake);
  let high = seat.stack;
  if (r.stake_third_of_stack) high = Math.floor(seat.stack / 3);
  if (r.max_bet !== null && r.max_bet !== undefined) high = Math.min(high, r.max_bet);
  for (const m of S.house) if (m.stakeHigh) high = m.stakeHigh(high, houseApi());
  return [low, high];
}

/** The box's first amount this hand: the previous stake, or the base stake, within the limits. */
function prefill(hand) {
  const r = rules();
  const [low, high] = stakeLimits(mySeat(), hand.base_stake);
  let amount = Math.min(Math.max(lastStake() || hand.base_stake, low), high);
  if (r.bet_multiple) amount -= amount % r.base_stake;
  return Math.max(amount, 0);
}

/** The box's text for the current hand, set up when the hand is new to it. */
function boxText() {
  const hand = V().hand;
  if (S.box.hand !== hand.no) {
    const bet = hand.bets[V().you];
    S.box = { hand: hand.no, value: String(bet && bet.amount > 0 ? bet.amount : prefill(hand)) };
  }
  return S.box.value;
}

/** The box's amount when it is one the engine would take, else null. */
function boxAmount() {
  const text = boxText().trim();
  return boxRefusal(text) ? null : Number(text);
}

/** Why the engine would refuse a stake of `text` (machine.py, `_check_stake`), or "" when it would take it. */
function boxRefusal(text) {
  const r = rules();
  const me = mySeat();
  const [low, high] = stakeLimits(me, V().hand.base_stake);
  if (!/^\d+$/.test(text)) return gettext("Enter a whole number above zero.");
  const amount = Number(text);
  if (amount < low) return fmt(gettext("The stake is at least %(n)s."), { n: number(low) });
  if (r.bet_multiple && amount % r.base_stake) return fmt(gettext("Stakes are multiples of the base stake (%(base)s)."), { base: number(r.base_stake) });
  if (amount > high) {
    for (const why of each(S.house, "stakeTooHigh", amount, high, houseApi())) return why;
    if (r.max_bet !== null && r.max_bet !== undefined && high === r.max_bet) return fmt(gettext("The stake is at most %(n)s."), { n: number(high) });
    if (r.stake_third_of_stack) return fmt(gettext("The stake is at most %(n)s, a third of your stack."), { n: number(high) });
    return fmt(gettext("The stake is at most your stack, %(n)s."), { n: number(high) });
  }
  return "";
}

/** The box's reason line and Confirm brought in line with what the box holds now. */
function checkBox({ status = true } = {}) {
  const why = $("#bet-why");
  const confirmButton = $("#act-confirm");
  if (!why || !confirmButton) return;
  const reason = boxRefusal(boxText().trim());
  if (why.textContent !== reason) why.textContent = reason; // a status region: written only when it changes
  why.hidden = !reason;
  $("#bet-box").setAttribute("aria-invalid", reason ? "true" : "false");
  confirmButton.disabled = !!reason || !legal("bet") || !!S.busy;
  if (status) { // the status line and the player's seat say the amount Confirm would send
    renderCenter();
    renderFelt();
  }
}

function setBox(value) {
  S.box.value = String(value);
  const input = $("#bet-box");
  if (input) input.value = S.box.value;
  checkBox();
}

function addToBox(amount) {
  const now = boxText().trim();
  setBox((/^\d+$/.test(now) ? Number(now) : 0) + amount);
}

// A chip or Reset clicked with a pointer gives the focus back to the page, so that Enter confirms next, as it did when
// each chip redrew the controls; one pressed from the keyboard keeps the focus for the next key.
const pointerClick = (e, then) => { if (e.detail > 0) e.currentTarget.blur(); then(); };

function betBox(hand) {
  const r = rules();
  const input = h("input", {
    type: "number", min: 0, step: 1, inputmode: "numeric", id: "bet-box", class: "amount bet-box", value: boxText(),
    "aria-describedby": "bet-why", autocomplete: "off",
    oninput: (e) => { S.box.value = e.target.value; checkBox(); },
    onkeydown: (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      const ok = $("#act-confirm");
      if (ok && !ok.disabled) ok.click();
    },
  });
  const confirmButton = button("bet", gettext("Confirm"), {
    id: "act-confirm", cls: "primary", key: "Enter",
    onclick: () => { const a = boxAmount(); if (a) send("bet", { amount: a }); },
  });
  // Confirm follows the box (and the reason it refuses an amount, under the box), one Tab from it: the box takes the
  // focus when the bet is due (focusTurn). The chips and Reset come after.
  return h("div", { class: "bet-builder" },
    h("div", { class: "bet-amount" }, h("label", { for: "bet-box", text: gettext("Your bet: ") }), input,
      h("span", { class: "muted", text: " " + fmt(gettext("(base stake %(n)s)"), { n: number(hand.base_stake) }) })),
    h("p", { id: "bet-why", class: "bet-why", role: "status", hidden: true }),
    ...each(S.house, "betNote", houseApi()),
    confirmButton,
    h("div", { class: "chips" }, r.chip_values.map((amount) => h("button", {
      type: "button", class: "chip", id: "act-chip-" + amount, "data-action": "chip", onclick: (e) => pointerClick(e, () => addToBox(amount)),
    }, "+" + number(amount))),
    h("button", { type: "button", id: "act-reset", class: "secondary", "data-action": "reset", onclick: (e) => pointerClick(e, () => setBox(0)) }, gettext("Reset"))));
}

function button(action, label, { args, cls = "", key, onclick, busy = true, id } = {}) {
  const ok = legal(action) && !(busy && S.busy);
  return h("button", {
    type: "button", id: id || "act-" + action, class: cls, disabled: !ok, "data-action": action,
    "aria-keyshortcuts": key || false, onclick: onclick || (() => send(action, args || {}, { busy })),
  }, label, key ? h("kbd", { text: key }) : null);
}

function renderActions() {
  const v = V();
  const me = mySeat();
  const hand = v.hand;
  // Redraw only when something that changes the controls changed (keeps focus and typed amounts).
  const key = JSON.stringify([v.legal_actions, v.phase, S.busy, me && me.stack, me && me.away, v.pending,
    hand && hand.bets && hand.bets[v.you], hand && hand.side_bets && hand.side_bets.find((b) => b.seat === v.you),
    hand && hand.bets && Object.keys(hand.bets), isHost(), S.started, roomClosed(), v.house, S.house.length, startable(v)]);
  if (key === S.actionsKey) return;
  S.actionsKey = key;
  const box = $("#actions");
  const focused = box.contains(document.activeElement) ? document.activeElement.id || "actions" : null;
  box.textContent = "";
  box.classList.toggle("needed", ["hit", "stand", "confirm", "open_bank", "take_bank", "refill", "no_bet"].some(legal)
    || (!!me && startable(v)));
  if (!me) {
    box.append(h("p", { class: "muted", id: "watching", text: roomClosed() ? gettext("This room is closed.") : {
      main: gettext("You are watching. Take a free seat to play."),
      side: gettext("You are watching. Every seat is taken; a side bettor's place is free."),
      none: gettext("You are watching. Every place at this table is taken."),
    }[freePlace()] }));
    return;
  }
  if (startable(v)) box.append(h("div", { class: "row host-start" }, startButton(gettext("Start"))));
  const r = rules();
  const chips = () => h("div", { class: "chips" }, r.chip_values.map((amount) =>
    button("chip", "+" + number(amount), { args: { amount }, cls: "chip", busy: false, id: "act-chip-" + amount })));
  if (v.phase === "betting" && hand && hand.bets && hand.bets[v.you] && !hand.bets[v.you].confirmed && legal("bet")) {
    box.append(betBox(hand));
  } else if (v.phase === "betting" && hand && hand.bets && hand.bets[v.you]) {
    const bet = hand.bets[v.you];
    const row = h("div", { class: "bet-builder" },
      h("div", { class: "bet-amount" }, gettext("Your bet: "), h("strong", { id: "my-bet", text: number(bet.amount) }),
        h("span", { class: "muted", text: " " + fmt(gettext("(base stake %(n)s)"), { n: number(hand.base_stake) }) })));
    if (!bet.confirmed) row.append(h("p", { class: "muted", text: gettext("Every stake is the base stake in this game.") }));
    box.append(row);
  }
  if (v.phase === "betting" && legal("back")) {
    const mine = (hand.side_bets || []).find((b) => b.seat === v.you) || {};
    const backs = h("div", { class: "row backs" }, h("span", { text: gettext("Back:") }));
    for (const id of Object.keys(hand.bets)) {
      backs.append(h("button", {
        type: "button", class: "secondary" + (mine.backs === id ? " selected" : ""), "aria-pressed": mine.backs === id ? "true" : "false",
        "data-back": id, onclick: () => send("back", { seat: id }, { busy: false }),
      }, name(id)));
    }
    box.append(h("div", { class: "bet-builder" },
      h("div", { class: "bet-amount" }, gettext("Your side bet: "), h("strong", { id: "my-bet", text: number(mine.amount || 0) })),
      backs, chips(), h("div", { class: "row" },
        button("reset", gettext("Reset"), { cls: "secondary", busy: false }),
        button("confirm", gettext("Confirm"), { cls: "primary", key: "Enter" }),
        button("no_bet", gettext("No bet"), { cls: "secondary" }))));
  }
  if (v.phase === "playing" && hand && hand.hands && hand.hands[v.you]) {
    const play = h("div", { class: "row play" },
      button("hit", gettext("Hit"), { cls: "primary", key: "H" }),
      button("stand", gettext("Stand"), { key: "S" }));
    // Zhejiang's one-time double has its own word in Chinese (加注, docs/glossary.md); the others' is 加倍.
    if (r.double_once) play.append(button("double", pgettext("the one-time double (Zhejiang)", "Double")));
    else if (house("double_down")) play.append(button("double", gettext("Double")));
    if (house("split")) play.append(button("split", gettext("Split")));
    if (house("mort") || legal("mort_accept")) {
      play.append(button("mort_accept", gettext("Accept the Mort")), button("mort_decline", gettext("Decline the Mort")));
    }
    box.append(play);
  }
  for (const row of each(S.house, "actionRows", houseApi())) box.append(row);
  const bankRow = h("div", { class: "row bank-actions" });
  if (legal("open_bank")) {
    if (r.bank_open === "choose") {
      bankRow.append(h("label", { for: "amount-bank", text: gettext("Opening bank") }),
        amountInput("bank", Math.min(me.stack, Math.max(r.base_stake * 30, Math.floor(me.stack / 2))), gettext("Opening bank")),
        button("open_bank", gettext("Open the bank"), { cls: "primary", onclick: () => { const a = readAmount("bank"); if (a) send("open_bank", { amount: a }); } }));
    } else {
      bankRow.append(button("open_bank", gettext("Open the bank with my stack"), { cls: "primary" }));
    }
  }
  if (legal("take_bank")) bankRow.append(button("take_bank", gettext("Take the bank"), { cls: "primary" }));
  if (legal("decline_bank")) bankRow.append(button("decline_bank", gettext("Decline"), { cls: "secondary" }));
  if (legal("refill")) {
    bankRow.append(labelledAmount("refill", Math.min(me.stack, v.bank_opening || me.stack), gettext("Refill amount")),
      button("refill", gettext("Refill the bank"), { cls: "primary", onclick: () => { const a = readAmount("refill"); if (a) send("refill", { amount: a }); } }));
  }
  if (legal("pass_bank")) bankRow.append(button("pass_bank", gettext("Pass the bank"), { cls: "secondary" }));
  if (legal("retire")) bankRow.append(button("retire", gettext("Retire from the bank"), { cls: "secondary" }));
  if (bankRow.childNodes.length) box.append(bankRow);
  const more = h("div", { class: "row more" });
  if (legal("seed_jackpot")) {
    more.append(labelledAmount("jackpot", r.base_stake * 10, gettext("Jackpot amount")),
      button("seed_jackpot", gettext("Seed the jackpot"), { cls: "secondary", onclick: () => { const a = readAmount("jackpot"); if (a) send("seed_jackpot", { amount: a }); } }));
  }
  if (legal("top_up")) {
    more.append(labelledAmount("topup", r.base_stake * 10, gettext("Top-up amount")),
      button("top_up", gettext("Top up"), { cls: "secondary", busy: false, onclick: () => { const a = readAmount("topup"); if (a) send("top_up", { amount: a }, { busy: false }); } }));
  }
  if (legal("leave")) {
    more.append(button("leave", gettext("Leave the table"), {
      cls: "secondary", onclick: () => {
        const msg = inHand() ? gettext("Leave? You finish this hand by default actions, then your chips go back to your balance.")
          : gettext("Leave the table? Your chips go back to your balance.");
        if (confirm(msg)) send("leave");
      },
    }));
  }
  if (more.childNodes.length) box.append(more);
  if ($("#bet-box")) checkBox({ status: false });
  if (focused) keepFocus(focused);
}

// --- the focus on the player's turn -----------------------------------------------------------------------
// When a moment of the player's own begins (cues.js: their bet, their turn, a bank decision put to them), the focus
// moves to its first action, so that a keyboard or a screen reader is there at once: the bet box (Confirm with no
// keyboard in sight, where focusing a field would raise the phone's keyboard over the table), Hit, or the first
// control of the bank decision. Not while the player is busy elsewhere: the menu, a dialog, a field outside the controls.

const keyboard = () => document.body.classList.contains("keys") || matchMedia("(pointer: fine)").matches;

/** The control the player's moment starts on, or null. */
function firstAction() {
  const fields = keyboard();
  return [...$("#actions").querySelectorAll("button, input")]
    .find((el) => !el.disabled && !el.closest(".more") && (fields || el.tagName === "BUTTON")) || null;
}

function focusFree() {
  const a = document.activeElement;
  if (!a || a === document.body || $("#actions").contains(a)) return true;
  if (a.closest("#menu, dialog")) return false;
  return !["input", "textarea", "select"].includes(a.tagName.toLowerCase());
}

function focusTurn() {
  const v = V();
  const key = isMyTurn(v) ? momentKey(v) : null;
  if (key === S.focusKey) return;
  if (key && focusFree()) {
    const el = firstAction();
    if (!el) return; // drawn without its controls yet (a busy redraw): the next drawing tries again
    el.focus({ preventScroll: true }); // the player's own seat is brought into view by renderFelt
    if (el.tagName === "INPUT") el.select(); // a new amount is typed over the one shown
  }
  S.focusKey = key;
}

/** After the controls were drawn again under the focus: the same control, or the moment's first action, or the
 * controls' area itself, rather than the page's body (where a screen reader would start over from the top). */
function keepFocus(id) {
  const same = id === "actions" ? null : document.getElementById(id);
  const target = same && !same.disabled && $("#actions").contains(same) ? same : firstAction();
  if (target) target.focus({ preventScroll: true });
  else $("#actions").focus({ preventScroll: true });
}

function renderResults() {
  const v = V();
  const box = $("#results");
  const hand = v.hand;
  box.textContent = "";
  if (!hand || !hand.over) { box.hidden = true; return; }
  box.hidden = false;
  box.append(h("h2", { text: fmt(gettext("Hand %(n)s: results"), { n: hand.no }) }));
  const rows = hand.results.map((r) => {
    const who = r.kind === "side" ? fmt(gettext("%(name)s on %(backs)s"), { name: name(r.bettor), backs: name(r.backs) })
      : name(r.bettor) + (hand.hands[r.bettor] && hand.hands[r.bettor].length > 1 ? ` #${r.hand + 1}` : "");
    return h("tr", { class: r.outcome, "data-bettor": r.bettor, "data-outcome": r.outcome },
      h("td", {}, h("span", { class: "who", text: who, title: who })), h("td", { text: number(r.stake) }), h("td", { text: OUTCOMES()[r.outcome] }),
      h("td", { text: multiplier(r).trim() }), h("td", { class: "amount", text: signed(r) }));
  });
  const banker = handBanker();
  const bankDelta = hand.deltas && banker in hand.deltas ? hand.deltas[banker] : null;
  if (bankDelta !== null) {
    const bankWho = fmt(gettext("%(name)s (bank)"), { name: name(banker) });
    rows.push(h("tr", { class: "banker-row" }, h("td", {}, h("span", { class: "who", text: bankWho, title: bankWho })),
      h("td"), h("td"), h("td"), h("td", { class: "amount", text: signedNumber(bankDelta) })));
  }
  box.append(h("table", { class: "results-table", id: "results-table" },
    h("thead", {}, h("tr", {}, [gettext("Player"), gettext("Stake"), gettext("Result"), gettext("×"), gettext("Amount")].map((t) => h("th", { text: t })))),
    h("tbody", {}, rows)));
  box.append(h("p", {}, h("a", { href: cfg.hand_url.replace("{n}", hand.no), id: "hand-record-link" },
    gettext("The hand's record and shuffle check"))));
}

// Only controls that can act: Start once two players can play (here for a host without a seat; a seated host's is
// docked with the controls, `startable`); "Deal the next hand now" only between hands
// after one was played (a started table deals its first hand by itself) and not while the table waits for a
// stake to be covered (the engine would refuse it); nothing in a closed room.
function renderHost() {
  const box = $("#host-controls");
  box.textContent = "";
  if (!isHost() || roomClosed()) { box.hidden = true; return; }
  box.hidden = false;
  const v = V();
  if (startable(v) && !mySeat()) box.append(startButton(gettext("Start")));
  if (dealable(v) && S.started && v.hand_no > 0 && !S.stalled) box.append(startButton(gettext("Deal the next hand now")));
  box.append(h("button", {
    type: "button", id: "host-close", class: "secondary",
    onclick: () => { if (confirm(gettext("Close the room? Every stack goes home; a hand already staked on is played out by default actions."))) send("close", {}, { busy: false }); },
  }, gettext("Close the room")));
}

// --- the countdown -----------------------------------------------------------------------------------

// Drawn four times a second, written only when its text changes; it is not read out as it runs: cues.js says the time
// left to a screen reader at the moments the player chose in the menu, and only on the player's own countdown.
function tick() {
  const left = secondsLeft();
  const text = left === null ? "" : fmt(gettext("%(s)s s"), { s: left });
  for (const node of document.querySelectorAll("[data-countdown]")) {
    if (node.textContent !== text) node.textContent = text;
    node.classList.toggle("urgent", left !== null && left <= 5);
  }
  const v = V();
  timeCue(v && v.you && (v.deadline_for || []).includes(v.you) ? v.deadline : null, left);
}
setInterval(tick, 250);

// --- sitting down ------------------------------------------------------------------------------------

function openSit(role, position) {
  const dialog = $("#sit-dialog");
  $("#sit-role").value = role;
  $("#sit-position").value = position === null ? "" : position;
  $("#sit-title").textContent = role === "side" ? gettext("Sit as a side bettor") : gettext("Take this seat");
  const buyIn = $("#sit-buy-in");
  if (!buyIn.value) buyIn.value = cfg.buy_in_default;
  dialog.showModal();
  buyIn.focus();
}

$("#sit-form").addEventListener("submit", (e) => {
  if (e.submitter && e.submitter.value === "cancel") return;
  const buyIn = parseInt($("#sit-buy-in").value, 10);
  if (!Number.isFinite(buyIn)) { e.preventDefault(); return; }
  const args = { role: $("#sit-role").value, buy_in: buyIn };
  if ($("#sit-position").value !== "") args.position = parseInt($("#sit-position").value, 10);
  send("sit", args, { busy: false });
});

// --- keyboard: H hit, S stand, Enter confirm ---------------------------------------------------------

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
  const tag = (e.target.tagName || "").toLowerCase();
  if (["input", "textarea", "select"].includes(tag) || document.querySelector("dialog[open]")) return;
  if (e.code === "KeyV") return blind(!S.blind); // once on, blind.js takes its keys (V too) before this handler
  const target = { h: "#act-hit", s: "#act-stand" }[e.key.toLowerCase()] || (e.key === "Enter" && tag !== "button" && tag !== "a" ? "#act-confirm" : null);
  const btn = target && $(target);
  if (btn && !btn.disabled) {
    e.preventDefault();
    btn.click();
  }
});

// --- the menu: rules, this room's hands, chat --------------------------------------------------------

function openMenu(tab) {
  const menu = $("#menu");
  menu.hidden = false;
  $("#menu-button").setAttribute("aria-expanded", "true");
  showTab(tab || menu.dataset.tab || "rules");
}

function showTab(tab) {
  $("#menu").dataset.tab = tab;
  for (const b of document.querySelectorAll("#menu [role=tab]")) b.setAttribute("aria-selected", b.dataset.tab === tab ? "true" : "false");
  for (const p of document.querySelectorAll("#menu [role=tabpanel]")) p.hidden = p.dataset.tab !== tab;
  if (tab === "hands") loadHands();
  fairTab();
  if (tab === "ledger") ledgerSeen();
  if (tab === "chat") { S.unread = 0; showUnread(); $("#chat-input").focus(); }
}

async function loadHands() {
  try {
    const response = await fetch(cfg.hands_url, { credentials: "same-origin" });
    if (response.ok) {
      $("#hands-panel").innerHTML = await response.text(); // our own server-rendered fragment
      localTimes($("#hands-panel"));
    }
  } catch {
    /* offline: keep the list we have */
  }
}

$("#menu-button").addEventListener("click", () => {
  if ($("#menu").hidden) openMenu();
  else { $("#menu").hidden = true; $("#menu-button").setAttribute("aria-expanded", "false"); }
});
$("#menu-close").addEventListener("click", () => { // the focus back where the menu was opened, not to the page's top
  $("#menu").hidden = true;
  $("#menu-button").setAttribute("aria-expanded", "false");
  $("#menu-button").focus();
});
for (const b of document.querySelectorAll("#menu [role=tab]")) b.addEventListener("click", () => showTab(b.dataset.tab));

function addChat(m, live) {
  const list = $("#chat-list");
  const report = m.user === cfg.user ? null : h("button", {
    type: "button", class: "link-dark report", title: gettext("Report this message"),
    "aria-label": gettext("Report this message"),
    onclick: () => {
      const reason = prompt(gettext("Why are you reporting this message?"));
      if (reason && reason.trim()) socket.send({ type: "report", message: m.id, reason: reason.trim() });
    },
  }, "⚑");
  list.append(h("li", { "data-id": m.id }, h("strong", { text: m.name + ": " }), h("span", { text: m.text }), report));
  list.scrollTop = list.scrollHeight;
  if (live && ($("#menu").hidden || $("#menu").dataset.tab !== "chat")) { S.unread += 1; showUnread(); }
}

function showUnread() {
  const badge = $("#chat-unread");
  badge.hidden = !S.unread;
  badge.textContent = S.unread;
}

$("#chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("#chat-input");
  const text = input.value.trim();
  if (!text) return;
  if (socket.send({ type: "chat", text })) input.value = "";
  else toast(gettext("Not connected: wait a moment and try again."));
});

// --- the invite link ---------------------------------------------------------------------------------

async function copy(text, done) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h("textarea", { class: "visually-hidden", readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  toast(done, "ok");
}

$("#copy-invite").addEventListener("click", () => copy($("#invite-url").value, gettext("Invite link copied.")));

// --- the fair deal (docs/fairness.md) ----------------------------------------------------------------
// This browser adds 32 random bytes to each hand's deal once the server has committed to its own seed: with the
// bet or stake, or by themselves from a seat with no bet to make. The "Fair deal" panel shows the commitment before
// the first card and the seeds that went in, then the server seed and the link to the hand's check.

const SEEDED = new Set(["sit", "seed", "bet", "confirm", "side_bet", "no_bet"]);
const BETS = ["bet", "confirm", "side_bet", "no_bet"];

const randomSeed = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");

/** This browser's seed for hand `n`: a seed the player typed for the next deal, else a new random one. */
function seedFor(n) {
  if (!S.seeds[n]) {
    S.seeds[n] = S.typedSeed || randomSeed();
    S.typedSeed = null;
  }
  return S.seeds[n];
}

/** `args` with this browser's seed when `action` may carry one and the open deal does not have it yet. */
function withSeed(action, args) {
  const v = V();
  const deal = v && v.fair_deal;
  if (!SEEDED.has(action) || !deal || !deal.open || (v.you && deal.seeds[v.you] === seedFor(deal.hand_no))) return args;
  return { ...args, seed: seedFor(deal.hand_no) };
}

/** A seat with no bet to make in the open deal sends its seed by itself, once per deal; a bet carries it otherwise. */
function offerSeed() {
  const v = V();
  const deal = v && v.fair_deal;
  if (!deal || !deal.open || !v.you || deal.seeds[v.you]) return;
  const noBet = v.phase === "betting" ? !BETS.some(legal)
    : rules().fixed_stake || v.banker === v.you || (!!v.pending && v.pending.seat === v.you);
  const key = `${deal.hand_no}:${deal.commitment}`;
  if (!noBet || S.seedOffered === key) return;
  S.seedOffered = key;
  S.seedAction = send("seed", {}, { busy: false });
}

// The table shows one line (#fair-deal): which hand the deal is about, that the server committed before the first
// card, and the way to the details; the 64-digit codes (the commitment, the seeds, the server seed) are listed in
// the menu's "Fair deal" tab (#fair-now), where a player who checks looks for them.
function renderFair() {
  const v = V();
  const box = $("#fair-deal");
  const deal = v.fair_deal;
  const hand = v.hand;
  const over = hand && hand.over && v.seed ? hand : null;
  const key = JSON.stringify([deal, over && over.no, v.you]);
  if (key === S.fairKey) return; // unchanged: keeps a selection the player is copying
  S.fairKey = key;
  box.textContent = "";
  box.hidden = !deal && !over;
  if (box.hidden) return;
  // The hand whose results are on the table, with the way to check it; else the deal under way.
  const summary = over ? fmt(gettext("hand %(n)s"), { n: over.no }) : fmt(gettext("hand %(n)s, committed"), { n: deal.hand_no });
  box.append(h("p", { class: "fair-line", id: "fair-summary" }, h("strong", { text: gettext("Fair deal") }), " · ", summary, " ",
    over ? h("a", { href: cfg.hand_url.replace("{n}", over.no), id: "fair-verify", class: "button secondary small", text: gettext("Verify") }) : null,
    " ", h("button", { type: "button", class: "secondary small", id: "fair-details", "aria-controls": "menu",
      onclick: () => openMenu("fair") }, gettext("Details"))));
}

// The menu's "Fair deal" tab (static/js/fair-menu.js): drawn while it is open, from the module loaded when it first is.
const fairApi = { S, V, cfg, send, copy, name, seedFor, randomSeed, toast };
function fairTab() {
  if (!$("#menu").hidden && $("#menu").dataset.tab === "fair") import("./fair-menu.js").then((m) => m.draw(fairApi));
}

// The screen-reader mode (static/js/blind.js, docs/accessibility.md): loaded when the player has it on or turns it on.
function blind(on) {
  return import("./blind.js").then((m) => m.blind(on, { S, cfg, name, secondsLeft, render, socket }));
}
if (cfg.screen_reader) blind(1);
$("#screen-reader").onchange = (e) => blind(e.target.checked);

// A control with `data-more` belongs to a module loaded on its first click (static/js/room-frames.js).
document.addEventListener("click", (e) => {
  const el = e.target.closest("[data-more]");
  if (el) import("./room-frames.js").then((m) => m.onClick(el));
});
// The table for the modules loaded later, the end-to-end tests and debugging.
window.halfpoint = { state: S, socket, render, toast, refusal };
socket.connect();
