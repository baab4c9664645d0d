// Votes at the table (docs/protocol.md, "Votes"): a seated player calls a vote to end the room (the table menu's
// button, once the host has been away five minutes or at any time when the host allows it) or to skip an away
// player's timers for the rest of the hand (the menu's second button, then the player). While a vote is open a banner
// over the table says what it is, counts its minute down and, for a voter who has not answered, offers Vote yes and
// Vote no; then it says the outcome. The host's menu has the setting that allows a vote at any time.
// static/js/room-frames.js loads this module on the first vote frame or the first click on a `data-more="vote"`
// control. The frames carry codes and ids only: the words are this page's, context "table vote", from /jsi18n/vote/.
import { h } from "./dom.js";
import { addWords, fmt, gettext, npgettext, pgettext } from "./i18n.js";

const T = () => window.halfpoint;
const loadWords = () => addWords("table vote", "/jsi18n/vote/");
const css = h("link", { rel: "stylesheet", href: new URL("../css/vote.css", import.meta.url).href });
document.head.append(css);

let open = null; // the open vote: its frame, with `ends` (this page's clock) and `answered`
let timer = null;

const name = (seat) => (T().state.names || {})[seat] || gettext("a player who left");

function send(message) {
  if (!T().socket.send(message)) T().toast(gettext("Not connected: wait a moment and try again."), "error");
}

function what(v) {
  if (v.kind === "skip") {
    return fmt(pgettext("table vote", "%(name)s asks to skip %(target)s's timers for the rest of this hand."),
      { name: name(v.seat), target: name(v.target) });
  }
  return fmt(pgettext("table vote", "%(name)s calls a vote to end the room."), { name: name(v.seat) });
}

function outcome(f) {
  if (f.outcome === "failed") return pgettext("table vote", "The vote failed: the game goes on.");
  if (f.kind === "skip") return fmt(pgettext("table vote", "Passed: %(target)s's timers are skipped for the rest of this hand."), { target: name(f.target) });
  return f.after_hand ? pgettext("table vote", "Passed: the room ends after this hand.") : pgettext("table vote", "Passed: the room ends now.");
}

function banner(children, live) {
  const fresh = h("div", { id: "vote-banner", class: "push-offer vote-banner", role: live ? "alert" : "status" }, children);
  const box = document.getElementById("vote-banner");
  if (box) box.replaceWith(fresh);
  else (document.querySelector(".table-wrap") || document.body).before(fresh);
  return fresh;
}

function draw() {
  clearInterval(timer);
  if (!open) return;
  const left = () => Math.max(0, Math.round((open.ends - Date.now()) / 1000));
  const you = T().state.view && T().state.view.you;
  const asks = you && open.voters.includes(you) && !open.answered.includes(you);
  const count = h("span", { class: "vote-left", id: "vote-left" });
  const tally = fmt(pgettext("table vote", "%(yes)s yes, %(no)s no, of %(n)s"), { yes: open.yes, no: open.no, n: open.voters.length });
  const answer = (yes) => () => {
    for (const b of document.querySelectorAll("#vote-banner button")) b.disabled = true;
    send({ type: "vote_cast", vote: open.vote, yes });
  };
  banner([h("p", { text: what(open) }), h("p", { class: "small", id: "vote-tally", text: tally }), count,
    asks && h("div", { class: "row push-offer-buttons" },
      h("button", { type: "button", class: "primary", id: "vote-yes", text: pgettext("table vote", "Vote yes"), onclick: answer(true) }),
      h("button", { type: "button", class: "secondary", id: "vote-no", text: pgettext("table vote", "Vote no"), onclick: answer(false) }))], asks);
  const tick = () => {
    const n = left();
    count.textContent = fmt(npgettext("table vote", "%(n)s second left", "%(n)s seconds left", n), { n });
    if (n > 0) return;
    clearInterval(timer);
    open = null;
    ended(pgettext("table vote", "The vote ran out of time: the game goes on."));
  };
  tick();
  timer = setInterval(tick, 1000);
}

// A room voted to end: from then on the banner leads to its settle-up, the room's ledger page (the address of the
// menu's Ledger tab's JSON).
let closing = false;
const settle = () => closing && h("a", { id: "vote-settle", href: document.getElementById("ledger-panel").dataset.url
  .replace("ledger.json", "ledger/"), text: pgettext("table vote", "Settle up") });

function ended(text) {
  const box = banner([h("p", { text }), settle()], false);
  setTimeout(() => { if (box.isConnected && !open && !closing) box.remove(); }, 8000);
}

// The caller's vote opened: the menu it was called from covers the table on a phone, so it closes, and the banner
// (above the table) is brought into view; a refused call leaves the menu open under its message.
function shown() {
  const menu = document.getElementById("menu");
  if (menu && !menu.hidden) document.getElementById("menu-close").click();
  const box = document.getElementById("vote-banner");
  if (box) box.scrollIntoView({ block: "nearest" });
}

/** A room frame of the votes (table.js passes them on through room-frames.js). */
export function onFrame(f) {
  loadWords().then(() => {
    if (f.type === "vote_anytime") {
      const box = document.getElementById("vote-anytime");
      if (box) box.checked = f.allow;
      return;
    }
    if (f.type === "vote_opened" || f.type === "vote_tally") {
      open = { ...f, ends: Date.now() + f.seconds * 1000 };
      draw();
      if (f.type === "vote_opened" && f.seat === (T().state.view && T().state.view.you)) shown();
    } else if (f.type === "vote_ended") {
      clearInterval(timer);
      open = null;
      if (f.outcome === "passed" && f.kind === "close") closing = true;
      ended(outcome(f));
    }
  });
}

function away() {
  const v = T().state.view;
  const p = T().state.presence || {};
  return v ? v.seats.filter((x) => x.id !== v.you && !x.bot && (x.away || p[x.id] === false)) : [];
}

/** The menu's controls: `#vote-close`, `#vote-skip` (then a player's button), and the host's `#vote-anytime`. */
export function onClick(el) {
  loadWords().then(() => {
    if (el.id === "vote-anytime") send({ type: "vote_anytime", allow: el.checked });
    else if (el.id === "vote-close") send({ type: "vote_call", kind: "close" });
    else if (el.dataset.seat) send({ type: "vote_call", kind: "skip", seat: el.dataset.seat });
    else if (el.id === "vote-skip") {
      const seats = away();
      const list = document.getElementById("vote-skip-seats");
      list.replaceChildren(...(seats.length ? seats.map((x) => h("button", {
        type: "button", class: "secondary small", "data-more": "vote", "data-seat": x.id, text: x.name,
        "aria-label": fmt(pgettext("table vote", "Skip %(name)s's timers"), { name: x.name }) }))
        : [h("span", { class: "muted small", text: pgettext("table vote", "Nobody is away.") })]));
      list.hidden = false;
    }
  });
}
