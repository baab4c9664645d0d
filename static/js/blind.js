// The screen-reader table mode (docs/accessibility.md; the contract: the ids, the keys and window.halfpoint.blind):
// the table told as a document (#blind, before the controls), every line of the feed announced once (#blind-live),
// the player's turn and the clock's warning as alerts (#blind-alert), and one-key commands answered in #blind-answer.
// Loaded by table.js only when the player has the mode on or turns it on; nothing about the game changes, and the other
// players' pages know nothing of it. The module has no effect when it is imported: clock-ask.js may import blindWords.
//
// `api` (table.js): {S, cfg, name, secondsLeft, render, socket}: the table's state (S.view, S.feed, S.names), its config,
// a seat's name, the player's clock, its drawing and its socket. The mode acts by pressing the table's own buttons.
import { describe } from "./cards.js";
import { isMyTurn, momentKey } from "./cues.js";
import { h } from "./dom.js";
import { CLASS_NAMES, list, OUTCOMES } from "./feed.js";
import { number, signed } from "./format.js";
import { addWords, fmt, gettext, npgettext, pgettext } from "./i18n.js";

// Every word of the mode carries the context "screen reader", written out in each call for makemessages: /jsi18n/ leaves
// them out, /jsi18n/blind/ serves them.
const C = "screen reader";
const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
const BURST_MS = 300; // frames closer than this to the one before are one burst: one announcement
const BURST_MAX_MS = 1200; // a burst that goes on is announced this long after its first frame all the same

// The mode's words come from /jsi18n/blind/ (config/urls.py), added to the page's catalog once.
export const blindWords = () => addWords(C, "/jsi18n/blind/");

// For the tests (the contract): every announcement with the lines it joined and when, and every command's answer.
const record = { spoken: [], answers: [] };

const M = {
  api: null, on: false, saved: null, built: false, frameAt: 0, baseline: false, spoken: {}, pending: null, timer: null,
  firstAt: 0, docKey: "", turnKey: null, seat: -1, observer: null,
};

// --- turning it on and off -------------------------------------------------------------------------------------

/** The mode on or off on this page (table.js: the profile's setting when the page opens, the menu's checkbox, V). A
 * change the player made is kept on their profile. */
export function blind(on, api) {
  M.api = api;
  if (M.saved === null) M.saved = !!api.cfg.screen_reader;
  on = !!on;
  if (on !== M.saved) save(on);
  const box = $("#screen-reader");
  if (box) box.checked = on;
  if (on === M.on) return Promise.resolve();
  M.on = on;
  if (!on) {
    off();
    return Promise.resolve();
  }
  return blindWords().then(() => {
    if (!M.on) return;
    build();
    api.S.blind = update;
    if (api.S.view) api.render();
    $("#blind-command").focus({ preventScroll: true });
  });
}

function save(on) {
  M.saved = on;
  const token = ($("input[name=csrfmiddlewaretoken]") || {}).value
    || (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1] || "";
  fetch(M.api.cfg.screen_reader_url, {
    method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": token },
    body: new URLSearchParams({ on: on ? "1" : "0" }),
  }).catch(() => { /* offline: the mode is on for this page, the profile learns it next time */ });
}

function off() {
  const { S } = M.api;
  S.blind = null;
  document.body.classList.remove("blind");
  $("#felt").hidden = false;
  for (const id of ["feed-live", "time-live"]) if ($("#" + id)) $("#" + id).hidden = false;
  if ($("#blind")) $("#blind").remove();
  document.removeEventListener("keydown", onKey, true);
  if (M.observer) M.observer.disconnect();
  if (M.chatObserver) M.chatObserver.disconnect();
  clearTimeout(M.timer);
  Object.assign(M, { built: false, baseline: false, spoken: {}, pending: null, docKey: "", turnKey: null, seat: -1 });
  M.api.render();
  const toast = $("#toast");
  toast.textContent = pgettext("screen reader", "Screen reader mode off.");
  toast.className = "toast ok";
  toast.hidden = false;
  setTimeout(() => { toast.hidden = true; }, 4000);
}

function build() {
  if (M.built) return;
  M.built = true;
  const link = h("link", { rel: "stylesheet", href: new URL("../css/blind.css", import.meta.url).href });
  document.head.append(link);
  document.body.classList.add("blind");
  const section = h("section", { id: "blind", class: "blind-table", "aria-labelledby": "blind-title" },
    h("h2", { id: "blind-title", text: pgettext("screen reader", "Table") }),
    h("div", { class: "blind-command" },
      h("label", { for: "blind-command", text: pgettext("screen reader", "Command (? for help)") }),
      h("input", { id: "blind-command", type: "text", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
        enterkeyhint: "send", "aria-describedby": "blind-answer" })),
    h("p", { id: "blind-answer", class: "blind-answer", role: "status", "aria-live": "polite" }),
    h("div", { id: "blind-alert", class: "blind-alert", role: "alert" }),
    h("div", { id: "blind-live", class: "visually-hidden", role: "status", "aria-live": "polite" }),
    h("div", { id: "blind-chat", class: "visually-hidden", role: "log", "aria-live": "polite" }),
    h("div", { id: "blind-doc" }));
  $("#actions").before(section);
  document.addEventListener("keydown", onKey, true); // before table.js's own H/S/Enter: one key, one command
  wrapSocket();
  // cues.js says the time left at the moments the player chose (#time-live): the mode says it as an alert too.
  M.observer = new MutationObserver((changes) => {
    for (const c of changes) for (const n of c.addedNodes) if (n.textContent) alertText(n.textContent);
  });
  if ($("#time-live")) M.observer.observe($("#time-live"), { childList: true });
  // The chat's new messages from the others are said too (#blind-chat), apart from the feed's lines; a snapshot draws
  // the chat anew, so a message is known by its id and said once.
  M.chatSeen = new Set($$("#chat-list li[data-id]").map((li) => li.dataset.id));
  M.chatObserver = new MutationObserver(sayChat);
  if ($("#chat-list")) M.chatObserver.observe($("#chat-list"), { childList: true });
  // The table's own live regions (the player's lines of the feed, the time left) are said here instead: once, not twice.
  for (const id of ["feed-live", "time-live"]) if ($("#" + id)) $("#" + id).hidden = true;
  window.halfpoint.blind = record;
}

// The time each frame arrived, for the announcements' record: table.js calls onFrame for each frame in turn, and draws
// (then update below) before the next.
function wrapSocket() {
  const socket = M.api.socket;
  if (socket.blindWrapped) return;
  socket.blindWrapped = true;
  const inner = socket.onFrame;
  socket.onFrame = (f) => {
    M.frameAt = performance.now();
    inner(f);
  };
}

// --- after each drawing of the table ----------------------------------------------------------------------------

function update() {
  if (!M.on || !M.built) return;
  const { S } = M.api;
  $("#felt").hidden = true;
  const side = $("#side-seats");
  if (side) side.hidden = true;
  announceNew(S);
  turnAlert(S.view);
  drawDoc(S.view);
}

/** The feed's lines not yet said, said: the feed as table.js keeps it (S.feed: its lines of this hand and the one
 * before, with their hand's number), each hand's lines compared in order with those already said, so that a feed told
 * again (a snapshot after a reconnect, a house rule's words arriving) says only what is new. The lines the feed leaves
 * out (the fair deal's steps, listed in the menu) are left out here too. */
function announceNew(S) {
  const byHand = {};
  for (const l of S.feed || []) if (!l.fair) (byHand[l.hand] = byHand[l.hand] || []).push(l.text);
  if (!M.baseline) { // the lines told before the mode was on are the feed's, not news
    M.baseline = true;
    M.spoken = byHand;
    return;
  }
  const fresh = [];
  for (const hand of Object.keys(byHand).map(Number).sort((a, b) => a - b)) {
    const said = M.spoken[hand] || [];
    const now = [];
    let j = 0;
    for (const text of byHand[hand]) {
      const k = said.indexOf(text, j);
      if (k >= 0) { // said already (any lines between that a rebuilt feed no longer has are skipped)
        now.push(...said.slice(j, k + 1));
        j = k + 1;
      } else {
        fresh.push(text);
        now.push(text);
      }
    }
    M.spoken[hand] = now.concat(said.slice(j));
  }
  for (const hand of Object.keys(M.spoken)) if (!(hand in byHand)) delete M.spoken[hand];
  if (fresh.length) queue(fresh);
}

function queue(texts) {
  const at = M.frameAt || performance.now();
  // A busy page can run a frame that came after the quiet time before the timer that ends the burst: still two bursts.
  if (M.pending && at - M.pending.received[M.pending.received.length - 1] > BURST_MS) flush();
  if (!M.pending) {
    M.pending = { texts: [], received: [] };
    M.firstAt = performance.now();
  }
  for (const t of texts) {
    M.pending.texts.push(t);
    M.pending.received.push(at);
  }
  clearTimeout(M.timer);
  const wait = Math.max(0, Math.min(BURST_MS, M.firstAt + BURST_MAX_MS - performance.now()));
  M.timer = setTimeout(flush, wait);
}

function flush() {
  clearTimeout(M.timer);
  const p = M.pending;
  M.pending = null;
  if (!p || !M.built) return;
  const live = $("#blind-live");
  live.append(h("p", { text: p.texts.join(" ") }));
  while (live.childNodes.length > 3) live.firstChild.remove();
  record.spoken.push({ texts: p.texts, at: performance.now(), received: p.received });
}

function sayChat() {
  const box = $("#blind-chat");
  for (const li of $$("#chat-list li[data-id]")) {
    if (M.chatSeen.has(li.dataset.id)) continue;
    M.chatSeen.add(li.dataset.id);
    if (!li.querySelector(".report") || !box) continue; // the player's own message (no report button): not news to them
    const who = (li.querySelector("strong") || {}).textContent || "";
    const text = (li.querySelector("span") || {}).textContent || "";
    box.append(h("p", { text: fmt(pgettext("screen reader", "%(name)s says: %(text)s"), { name: who.replace(/:\s*$/, ""), text }) }));
    while (box.childNodes.length > 5) box.firstChild.remove();
  }
}

function alertText(text) {
  const box = $("#blind-alert");
  if (!box) return;
  box.textContent = "";
  if (text) box.append(h("p", { text }));
}

/** Once per moment of the player's own (their bet, their turn, a bank decision put to them): the table's status line
 * as an alert ("Your turn: Hit for a card, or Stand.", "Your turn. Place your bet: add chips, then Confirm."). */
function turnAlert(v) {
  const key = v && isMyTurn(v) ? momentKey(v) : null;
  // The turn's own line says "Your turn" already; a bet or a bank decision put to the player says it first.
  if (key && key !== M.turnKey) alertText(v.phase === "playing" ? statusText() : `${pgettext("screen reader", "Your turn.")} ${statusText()}`);
  else if (!key && M.turnKey) alertText(""); // the moment is over: its alert goes, silently
  M.turnKey = key;
}

// --- the table as a document -------------------------------------------------------------------------------------


/** A total in words, with the game's own word for the half: "7 and a half", "a half", "bust at 11". */
export function totalWords(total, bust) {
  const whole = Math.floor(total);
  const half = total - whole === 0.5;
  let said = number(whole);
  if (half) said = whole ? fmt(pgettext("screen reader", "%(n)s and a half"), { n: number(whole) }) : pgettext("screen reader", "a half");
  return bust ? fmt(pgettext("screen reader", "bust at %(total)s"), { total: said }) : said;
}

/** The cards of one hand: those face up by name, the player's own face-down ones by name too, the others counted. */
function cardsWords(ph, mine) {
  const named = [];
  let hidden = 0;
  for (const c of ph.cards) {
    if (c.hidden || !c.card) hidden += 1;
    else if (!c.up && mine) named.push(fmt(pgettext("screen reader", "%(card)s, face down"), { card: describe(c.card) }));
    else named.push(describe(c.card));
  }
  if (hidden) named.push(fmt(npgettext("screen reader", "%(n)s face-down card", "%(n)s face-down cards", hidden), { n: hidden }));
  return named.length ? list(named) : pgettext("screen reader", "no cards");
}

/** The sentences about one hand of a seat: its cards, its total when seen, its class. */
function handWords(ph, mine) {
  const out = [fmt(pgettext("screen reader", "Cards: %(cards)s."), { cards: cardsWords(ph, mine) })];
  if (ph.total !== undefined) out.push(fmt(pgettext("screen reader", "Total: %(total)s."), { total: totalWords(ph.total, ph.bust) }));
  if (ph.class && ph.class !== "ordinary" && ph.class !== "bust") {
    out.push(fmt(pgettext("screen reader", "Hand: %(class)s."), { class: CLASS_NAMES()[ph.class] || ph.class }));
  }
  if (ph.doubled) out.push(pgettext("screen reader", "Doubled."));
  return out;
}

function resultWords(v, id) {
  const hand = v.hand;
  if (!hand || !hand.over) return [];
  const out = [];
  for (const r of hand.results || []) {
    if (r.bettor !== id || r.kind !== "main") continue;
    const mult = r.outcome === "win" || r.outcome === "lose" ? ` ×${r.multiplier}` : "";
    out.push(fmt(pgettext("screen reader", "Result: %(result)s."), { result: `${OUTCOMES()[r.outcome]}${mult} ${signed(r.outcome === "win" ? r.paid : -r.paid)}` }));
  }
  const banker = (v.last_hand && v.last_hand.banker) || v.banker;
  if (id === banker && hand.deltas && hand.deltas[id] !== undefined) {
    out.push(fmt(pgettext("screen reader", "The bank's result: %(n)s."), { n: signed(hand.deltas[id]) }));
  }
  return out;
}

function stakeWords(v, id) {
  const bet = v.hand && v.hand.bets && v.hand.bets[id];
  if (!bet || !bet.amount) return [];
  return [fmt(bet.confirmed ? pgettext("screen reader", "Stake: %(n)s, confirmed.") : pgettext("screen reader", "Stake: %(n)s, not confirmed yet."), { n: number(bet.amount) })];
}

/** Everything about one seat, as sentences: role, turn, stack, stake, each hand, result. */
function seatWords(v, seat) {
  const me = seat.id === v.you;
  const hand = v.hand;
  // A hand on show that is over was banked by last_hand.banker: the bank may have moved since (passed, retired, taken),
  // and the seat's role is told for that hand, with who holds the bank now said apart.
  const shown = hand && hand.over && v.last_hand ? v.last_hand.banker : undefined;
  const banked = shown === undefined ? seat.banker : shown === seat.id;
  const roles = [banked ? pgettext("screen reader", "banker") : seat.role === "side" ? pgettext("screen reader", "side bettor") : pgettext("screen reader", "challenger")];
  if (seat.host) roles.push(pgettext("screen reader", "host"));
  if (seat.bot) roles.push(pgettext("screen reader", "bot"));
  if (seat.away) roles.push(pgettext("screen reader", "away"));
  if (seat.leaving) roles.push(pgettext("screen reader", "leaving"));
  if (seat.banker && !banked) roles.push(pgettext("screen reader", "holds the bank now"));
  const out = [fmt(pgettext("screen reader", "Role: %(roles)s."), { roles: list(roles) })];
  if (hand && hand.turn && hand.turn.seat === seat.id && !hand.over) out.push(me ? pgettext("screen reader", "Your turn now.") : pgettext("screen reader", "Their turn now."));
  else if ((v.deadline_for || []).includes(seat.id)) out.push(me ? pgettext("screen reader", "The table waits for you.") : pgettext("screen reader", "The table waits for them."));
  out.push(fmt(pgettext("screen reader", "Stack: %(n)s."), { n: number(seat.stack) }));
  out.push(...stakeWords(v, seat.id));
  const hands = (hand && hand.hands && hand.hands[seat.id]) || [];
  hands.forEach((ph, i) => {
    const said = handWords(ph, me);
    if (hands.length > 1) said.unshift(fmt(pgettext("screen reader", "Hand %(n)s:"), { n: i + 1 }));
    out.push(...said);
  });
  if (hand && hand.sitting_out && hand.sitting_out.includes(seat.id)) out.push(pgettext("screen reader", "Sits this hand out."));
  out.push(...resultWords(v, seat.id));
  return out;
}

function myHandWords(v) {
  const me = v.seats.find((x) => x.id === v.you);
  if (!me) return [pgettext("screen reader", "You have no seat: you are watching.")];
  const hands = (v.hand && v.hand.hands && v.hand.hands[me.id]) || [];
  const out = [];
  hands.forEach((ph, i) => {
    const said = handWords(ph, true);
    if (hands.length > 1) said.unshift(fmt(pgettext("screen reader", "Hand %(n)s:"), { n: i + 1 }));
    out.push(...said);
  });
  if (!hands.length) out.push(pgettext("screen reader", "No cards yet."));
  return out;
}

/** The bank: who holds it, how much, the stakes it takes. */
function bankWords(v) {
  const r = v.rules;
  const out = [];
  if (v.banker) out.push(fmt(pgettext("screen reader", "%(name)s holds the bank: %(bank)s."), { name: M.api.name(v.banker), bank: number(v.bank) }));
  else out.push(pgettext("screen reader", "Nobody holds the bank."));
  const base = (v.hand && v.hand.base_stake) || r.base_stake;
  if (r.fixed_stake) out.push(fmt(pgettext("screen reader", "Every stake is the base stake: %(n)s."), { n: number(base) }));
  else {
    const low = r.min_bet ?? r.base_stake;
    if (r.max_bet !== null && r.max_bet !== undefined) out.push(fmt(pgettext("screen reader", "Stakes from %(low)s to %(high)s."), { low: number(low), high: number(r.max_bet) }));
    else out.push(fmt(pgettext("screen reader", "Stakes from %(low)s, up to a player's stack."), { low: number(low) }));
    if (r.stake_third_of_stack) out.push(pgettext("screen reader", "A stake is at most a third of the player's stack."));
    out.push(fmt(pgettext("screen reader", "Base stake: %(n)s."), { n: number(base) }));
  }
  if (v.bank_turn_left != null) {
    out.push(fmt(npgettext("screen reader", "%(n)s hand left in this bank turn.", "%(n)s hands left in this bank turn.", v.bank_turn_left), { n: v.bank_turn_left }));
  }
  return out;
}

/** The seats other than the player's, in the order of play around the table from the player's, side bettors last. */
function otherSeats(v) {
  const mains = v.seats.filter((x) => x.role === "main").sort((a, b) => a.position - b.position);
  const mine = mains.findIndex((x) => x.id === v.you);
  const around = mine < 0 ? mains : mains.slice(mine + 1).concat(mains.slice(0, mine));
  return around.concat(v.seats.filter((x) => x.role === "side" && x.id !== v.you));
}

/** The table's own status line (table.js draws it in the centre, hidden in the mode): the phase and what it waits for. */
function statusText() {
  const status = $("#status");
  return status && status.firstChild ? status.firstChild.textContent : "";
}

/** A button of the hidden felt drawn again in the document (the banker's Open on a seat, Sit here, Sit back in, the
 * host's tools): pressing it presses the one on the felt. */
function proxy(real, label) {
  // The felt is drawn anew with each view: the button pressed is the one on the felt now, found as this one was.
  const data = [...real.attributes].filter((a) => a.name.startsWith("data-")).map((a) => `[${a.name}="${CSS.escape(a.value)}"]`);
  const selector = real.id ? "#" + CSS.escape(real.id) : "button" + data.join("");
  return h("button", {
    type: "button", class: "secondary small", id: real.id ? "blind-" + real.id : false, disabled: real.disabled,
    "data-proxy": "1", onclick: () => ($("#seats " + selector) || real).click(),
  }, label || real.getAttribute("aria-label") || real.textContent.trim());
}

function seatButtons(id) {
  const node = $(`#seats .seat[data-seat="${CSS.escape(id)}"]`);
  return node ? $$("button", node).map((b) => proxy(b)) : [];
}

function drawDoc(v) {
  if (!v) return;
  const others = otherSeats(v);
  const phase = $("#phase") ? $("#phase").textContent : "";
  const free = $$("#seats button[data-sit]");
  const feltButtons = $$("#seats button").map((b) => [b.id, b.textContent, b.disabled, b.dataset.seat || ""]);
  const doc = {
    status: [phase, statusText()].filter(Boolean),
    mine: myHandWords(v), myButtons: v.you ? seatButtons(v.you).length : 0,
    myself: v.seats.filter((x) => x.id === v.you).map((x) => seatWords(v, x)), // the role, stack, result: redrawn on change
    bank: bankWords(v),
    seats: others.map((x) => [x.id, x.name, seatWords(v, x)]),
    free: free.length, feltButtons,
  };
  const key = JSON.stringify(doc);
  if (key === M.docKey) return;
  M.docKey = key;
  const parts = [h("p", { id: "blind-status", text: doc.status.length > 1 ? fmt(pgettext("screen reader", "%(phase)s. %(status)s"),
    { phase: doc.status[0], status: doc.status[1] }) : doc.status.join("") })];
  const mine = h("div", { class: "blind-seat", id: "blind-mine" }, h("h3", { text: pgettext("screen reader", "Your hand") }),
    h("p", { text: doc.mine.join(" ") }));
  if (v.you) {
    const me = v.seats.find((x) => x.id === v.you);
    if (me) mine.append(h("p", { text: seatWords(v, me).filter((s) => !doc.mine.includes(s)).join(" ") }));
    mine.append(...seatButtons(v.you));
  }
  parts.push(mine);
  parts.push(h("div", { class: "blind-seat", id: "blind-bank" }, h("h3", { text: pgettext("screen reader", "The bank") }),
    h("p", { text: doc.bank.join(" ") })));
  for (const [id, seatName, said] of doc.seats) {
    parts.push(h("div", { class: "blind-seat", "data-seat": id }, h("h3", { text: seatName }),
      h("p", { text: said.join(" ") }), ...seatButtons(id)));
  }
  if (free.length) {
    parts.push(h("div", { class: "blind-seat", id: "blind-free" }, h("h3", { text: pgettext("screen reader", "Free seats") }),
      ...free.map((b) => proxy(b, fmt(pgettext("screen reader", "Sit in seat %(n)s"), { n: Number(b.dataset.sit) + 1 })))));
  }
  replaceChanged($("#blind-doc"), parts);
}

/** `box`'s children made `parts`, replacing only those that changed: a screen reader reading a seat that did not change
 * stays where it is, and a button of the document that had the focus has it again after its section is drawn anew. */
function replaceChanged(box, parts) {
  const focused = box.contains(document.activeElement) ? document.activeElement.id : null;
  parts.forEach((part, i) => {
    const old = box.children[i];
    if (!old) box.append(part);
    else if (!old.isEqualNode(part)) old.replaceWith(part);
  });
  while (box.children.length > parts.length) box.lastElementChild.remove();
  if (focused && !box.contains(document.activeElement) && document.getElementById(focused)) {
    document.getElementById(focused).focus({ preventScroll: true });
  }
}

// --- the commands -------------------------------------------------------------------------------------------------

function answer(text) {
  const box = $("#blind-answer");
  // The same answer twice is a change all the same, so that a screen reader says it again.
  box.textContent = box.textContent === text ? text + "\u00a0" : text;
  record.answers.push(text);
}

/** The focus where a key is a command: the page, a button, the feed, the command box, and for the letters and ? an amount
 * of the controls (the bet box, where the table puts the focus when a bet is due: its digits and Enter stay the box's);
 * never another text field (the chat, the menu's). */
function commandFocus(target) {
  if (document.querySelector("dialog[open]")) return false;
  if (!target || target === document.body || target === document.documentElement) return true;
  if (target.id === "blind-command" || target.id === "feed" || amountField(target)) return true;
  return (target.tagName || "").toLowerCase() === "button";
}

const amountField = (t) => t.tagName === "INPUT" && t.type === "number" && !!t.closest("#actions");

const DIGITS = /^(?:Digit|Numpad)([0-9])$/;

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !commandFocus(e.target)) return;
  const inBox = e.target.id === "blind-command";
  const code = e.code;
  const help = e.key === "?" || (code === "Slash" && e.shiftKey);
  const digit = DIGITS.exec(code);
  const letter = /^Key([A-Z])$/.exec(code);
  let run = null;
  if (amountField(e.target) && !help && !letter) return; // a digit, Enter, Backspace: the amount's own
  if (help) run = () => answer(helpText());
  else if (digit) run = () => chip(Number(digit[1]));
  else if (code === "Enter" || code === "NumpadEnter") {
    if (!inBox && e.target.tagName === "BUTTON") return; // Enter on a button presses that button
    run = confirmBet;
  } else if (letter) {
    run = {
      C: () => answer(myHandWords(M.api.S.view).join(" ")), B: () => answer(bankWords(M.api.S.view).join(" ")),
      P: () => nextSeat(e.shiftKey ? -1 : 1), L: () => lastLines(e.shiftKey ? 5 : 1), T: () => answer(timeWords()),
      A: actions, M: stakeAnswer, H: () => press("#act-hit", gettext("Hit")), S: () => press("#act-stand", gettext("Stand")),
      K: askClock, V: () => blind(false, M.api),
    }[letter[1]];
  }
  if (!run && inBox && e.key.length === 1) run = () => answer(pgettext("screen reader", "Unknown key. Press ? for the commands."));
  if (!run) return;
  e.preventDefault();
  e.stopPropagation(); // table.js's own H, S and Enter would press the button a second time
  if (e.repeat) return;
  if (!M.api.S.view && !help && code !== "KeyV") {
    answer(pgettext("screen reader", "The table is not here yet."));
    return;
  }
  run();
}

function nextSeat(step) {
  const seats = otherSeats(M.api.S.view);
  if (!seats.length) return answer(pgettext("screen reader", "No other seat is taken."));
  M.seat = ((M.seat < 0 && step < 0 ? 0 : M.seat) + step + seats.length) % seats.length;
  const seat = seats[M.seat];
  answer(fmt(pgettext("screen reader", "%(name)s. %(about)s"), { name: seat.name, about: seatWords(M.api.S.view, seat).join(" ") }));
}

function lastLines(n) {
  const lines = (M.api.S.feed || []).filter((l) => !l.fair).slice(-n).map((l) => l.text);
  answer(lines.length ? lines.join(" ") : pgettext("screen reader", "Nothing has happened yet."));
}

function timeWords() {
  const v = M.api.S.view;
  const left = M.api.secondsLeft();
  const waiting = v.deadline_for || [];
  if (left === null || !waiting.length) return pgettext("screen reader", "No clock is running.");
  if (waiting.includes(v.you)) return fmt(npgettext("screen reader", "%(n)s second left for you.", "%(n)s seconds left for you.", left), { n: left });
  return fmt(npgettext("screen reader", "%(n)s second left, waiting for %(names)s.", "%(n)s seconds left, waiting for %(names)s.", left),
    { n: left, names: list(waiting.map(M.api.name)) });
}

/** A control's words: its label without its key hint, or what it is labelled by. */
function label(el) {
  if (el.tagName === "INPUT") return el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].textContent.trim() : "");
  const copy = el.cloneNode(true);
  for (const k of copy.querySelectorAll("kbd")) k.remove();
  return el.getAttribute("aria-label") || copy.textContent.trim();
}

/** The controls that can act now, in the order they are drawn: the action bar's (the bet's Confirm, Hit and Stand, the
 * bank decisions, every house rule's row), the proxies of the felt's own (the banker's Open), the host's Start. Chips and
 * Reset are the digit keys'; the row of Top up and Leave (table.js's `.more`) is the table's, not the moment's: Tab. */
function actionControls() {
  const bar = $$("#actions button:not([disabled])")
    .filter((b) => !b.classList.contains("chip") && b.id !== "act-reset" && !b.closest(".more"));
  const felt = $$("#blind-doc button[data-proxy]:not([disabled])").filter((b) => /^blind-(act-|sit-back-in)/.test(b.id));
  const host = $$("#host-controls #host-start");
  return bar.concat(felt, host);
}

function actions() {
  const controls = actionControls();
  if (!controls.length) return answer(pgettext("screen reader", "No action is yours now."));
  answer(fmt(pgettext("screen reader", "Actions: %(list)s."), { list: list(controls.map(label)) }));
  controls[0].focus();
}

function stakeAnswer() {
  const v = M.api.S.view;
  const me = v.seats.find((x) => x.id === v.you);
  if (!me) return answer(pgettext("screen reader", "You have no seat: you are watching."));
  const out = [];
  const box = $("#bet-box");
  if (box) out.push(fmt(pgettext("screen reader", "Your bet: %(n)s, not confirmed yet."), { n: box.value || "0" }));
  else {
    const bet = v.hand && v.hand.bets && v.hand.bets[me.id];
    const side = v.hand && (v.hand.side_bets || []).find((b) => b.seat === me.id);
    if (bet && bet.amount) out.push(...stakeWords(v, me.id));
    else if (side && side.amount) out.push(fmt(pgettext("screen reader", "Side bet: %(n)s on %(name)s."), { n: number(side.amount), name: M.api.name(side.backs) }));
    else if (me.id === v.banker) out.push(fmt(pgettext("screen reader", "You hold the bank: %(n)s."), { n: number(v.bank) }));
    else out.push(pgettext("screen reader", "You have no stake this hand."));
  }
  out.push(fmt(pgettext("screen reader", "Stack: %(n)s."), { n: number(me.stack) }));
  answer(out.join(" "));
}

/** The answer to a key that pressed a button: its label as a sentence ("Hit."). */
const done = (button) => fmt(pgettext("screen reader", "%(action)s."), { action: label(button) });

function press(selector, word) {
  const button = $(selector);
  if (!button || button.disabled) return answer(fmt(pgettext("screen reader", "%(action)s is not possible now."), { action: word }));
  button.click();
  answer(done(button));
}

function confirmBet() {
  const button = $("#act-confirm");
  if (!button || button.disabled) {
    const why = $("#bet-why");
    return answer(why && !why.hidden && why.textContent ? why.textContent : fmt(pgettext("screen reader", "%(action)s is not possible now."), { action: gettext("Confirm") }));
  }
  const box = $("#bet-box");
  const amount = box ? box.value : ($("#my-bet") || {}).textContent;
  button.click();
  answer(amount ? fmt(pgettext("screen reader", "Bet confirmed: %(n)s."), { n: amount }) : done(button));
}

function betAnswer() {
  const box = $("#bet-box");
  const why = $("#bet-why");
  const said = fmt(pgettext("screen reader", "Your bet: %(n)s."), { n: box.value || "0" });
  answer(why && !why.hidden && why.textContent ? `${said} ${why.textContent}` : said);
}

/** 1 to 9: the n-th chip added to the bet; 0: the bet back to the base stake. */
function chip(n) {
  const box = $("#bet-box");
  if (n === 0) {
    const v = M.api.S.view;
    if (box) {
      box.value = String((v.hand && v.hand.base_stake) || v.rules.base_stake);
      box.dispatchEvent(new Event("input", { bubbles: true })); // the bet box's own handler checks it
      return betAnswer();
    }
    const reset = $("#act-reset");
    if (reset && !reset.disabled) { reset.click(); return answer(done(reset)); }
    return answer(pgettext("screen reader", "There is no bet to change now."));
  }
  const chips = $$("#actions button.chip");
  if (!chips.length) return answer(pgettext("screen reader", "There is no bet to change now."));
  const button = chips[n - 1];
  if (!button) return answer(fmt(npgettext("screen reader", "There is %(n)s chip.", "There are %(n)s chips.", chips.length), { n: chips.length }));
  if (button.disabled) return answer(fmt(pgettext("screen reader", "%(action)s is not possible now."), { action: label(button) }));
  button.click();
  if (box) betAnswer();
  else answer(done(button));
}

function askClock() {
  import("./clock-ask.js")
    .then((m) => Promise.resolve(m.askClock()).then((sent) => answer(sent === false
      ? gettext("Not connected: wait a moment and try again.") : pgettext("screen reader", "You asked the host for a longer clock."))))
    .catch(() => answer(pgettext("screen reader", "Asking the host for a longer clock is not available.")));
}

const HELP = () => [
  ["C", pgettext("screen reader", "your hand and its total")], ["B", pgettext("screen reader", "the bank and its stakes")],
  ["P", pgettext("screen reader", "the next seat (Shift+P: the one before)")], ["L", pgettext("screen reader", "the last event (Shift+L: the last five)")],
  ["T", pgettext("screen reader", "the time left on the clock")], ["A", pgettext("screen reader", "the actions you can take, and the focus on the first")],
  ["M", pgettext("screen reader", "your stake and your stack")], ["H", gettext("Hit")], ["S", gettext("Stand")],
  [pgettext("screen reader", "Enter"), gettext("Confirm")], ["1–9", pgettext("screen reader", "add the n-th chip to your bet")], ["0", pgettext("screen reader", "your bet back to the base stake")],
  ["K", pgettext("screen reader", "ask the host for a longer clock")], ["V", pgettext("screen reader", "screen reader mode off")], ["?", pgettext("screen reader", "these commands")],
];

function helpText() {
  return fmt(pgettext("screen reader", "Commands: %(list)s."), { list: list(HELP().map(([key, what]) => fmt(pgettext("screen reader", "%(key)s %(what)s"), { key, what }))) });
}
