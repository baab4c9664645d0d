// Spectators by consent (docs/protocol.md, "Spectators and TV mode"): how many watch, the host's setting and removals,
// each seated player's answer to TV mode, and, for a spectator of a TV-mode room, the cards of the players who agree,
// one action late (the `tv` frame after each update). static/js/room-frames.js loads this module on the first of these
// frames, or the menu's "Spectators and TV mode" button. The frames carry codes and ids only: the words are this
// page's, with the context "tv mode" from /jsi18n/tv/ (config/urls.py). The table is table.js's `window.halfpoint`.
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { addWords, fmt, gettext, npgettext, pgettext } from "./i18n.js";

const T = () => window.halfpoint;
const loadWords = () => addWords("tv mode", "/jsi18n/tv/");
const M = { cards: {}, watchers: [], mode: null, observer: null };

/** The module's stylesheet, added once; resolves when it has loaded (or failed). */
function css() {
  if (!M.css) {
    const link = h("link", { rel: "stylesheet", href: new URL("../css/tv.css", import.meta.url).href });
    M.css = new Promise((resolve) => { link.onload = link.onerror = resolve; });
    document.head.append(link);
  }
  return M.css;
}

const me = () => T().state.me && T().state.me.user;
const seated = () => !!(T().state.view && T().state.view.you);
const isHost = () => !!(T().state.room && T().state.room.host.id === me());

function say(text, kind) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.className = "toast " + (kind || "ok");
  box.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

function send(message) {
  if (!T().socket.send(message)) say(gettext("Not connected: wait a moment and try again."), "error");
}

// --- a spectator's TV cards: under each consenting seat, redrawn whenever the table redraws the felt ---

function drawCards() {
  const felt = document.getElementById("felt");
  if (!felt) return;
  for (const old of felt.querySelectorAll(".tv-cards")) {
    if (!M.cards[old.dataset.tvSeat]) old.remove();
  }
  for (const [seat, hands] of Object.entries(M.cards)) {
    const node = felt.querySelector(`.seat[data-seat="${CSS.escape(seat)}"]`);
    if (!node || node.querySelector(`.tv-cards[data-tv-seat="${CSS.escape(seat)}"]`)) continue;
    const row = h("div", { class: "tv-cards", "data-tv-seat": seat },
      h("span", { class: "tv-label", text: pgettext("tv mode", "TV mode") }),
      hands.flat().map((code) => cardEl({ card: code, up: true })));
    row.setAttribute("aria-label", pgettext("tv mode", "Face-down cards, shown one action late with the player's consent"));
    node.append(row);
  }
  if (!M.observer) {
    M.observer = new MutationObserver(() => { if (Object.keys(M.cards).length) drawCards(); });
    M.observer.observe(felt, { childList: true, subtree: true });
  }
}

function setCards(cards) {
  M.cards = cards || {};
  css();
  drawCards();
}

// --- how many watch; the host's list to remove one ---

function drawCount() {
  let badge = document.getElementById("tv-count");
  const n = M.watchers.length;
  if (!n) {
    if (badge) badge.remove();
    return;
  }
  const text = fmt(npgettext("tv mode", "%(n)s watching", "%(n)s watching", n), { n });
  css();
  if (!badge) {
    badge = h("button", { type: "button", id: "tv-count", class: "tv-count link", "data-more": "tv" });
    badge.hidden = true; // until its stylesheet is in: unstyled, its white words would be on the page's white
    const shown = badge;
    css().then(() => { shown.hidden = false; });
    const felt = document.getElementById("felt"); // beside the felt, whose content the table redraws
    if (felt) felt.before(badge);
    else document.body.prepend(badge);
  }
  badge.textContent = text;
  if (document.getElementById("tv-panel")) panel();
}

// --- the panel: a seated player's consent, the host's setting and spectators ---

function closePanel() {
  const box = document.getElementById("tv-panel");
  if (box) box.remove();
}

function panel() {
  css();
  if (M.mode === null) M.mode = T().state.room.spectators;
  const rows = [];
  if (seated()) {
    rows.push(h("p", { class: "small", text: pgettext("tv mode", "In TV mode, spectators see the cards of each player who agrees, one action late. Your answer applies from the next hand; stopping applies at once.") }),
      h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", id: "tv-yes", text: pgettext("tv mode", "Show my cards"), onclick: () => send({ type: "tv_consent", on: true }) }),
        h("button", { type: "button", class: "secondary", id: "tv-no", text: pgettext("tv mode", "Stop showing my cards"), onclick: () => send({ type: "tv_consent", on: false }) })));
  }
  if (isHost()) {
    const modes = [["none", pgettext("tv mode", "No spectators")], ["public", pgettext("tv mode", "Spectators see what is face up")],
      ["tv", pgettext("tv mode", "TV mode")]];
    rows.push(h("p", { class: "small", text: pgettext("tv mode", "Who may watch without a seat:") }));
    rows.push(h("div", { class: "row tv-modes" }, modes.map(([mode, text]) => h("button", {
      type: "button", class: mode === M.mode ? "primary" : "secondary", "data-tv-mode": mode, text,
      onclick: () => send({ type: "spectators_set", mode }) }))));
    rows.push(h("ul", { class: "tv-watchers" }, M.watchers.map((u) => h("li", {},
      h("span", { text: u.name }), " ",
      h("button", { type: "button", class: "secondary small", "data-tv-remove": u.id, text: pgettext("tv mode", "Remove"),
        "aria-label": fmt(pgettext("tv mode", "Remove %(name)s from the spectators"), { name: u.name }),
        onclick: () => send({ type: "spectator_remove", target: u.id }) })))));
  }
  const n = M.watchers.length;
  if (!seated() && !isHost()) rows.push(h("p", { text: fmt(npgettext("tv mode", "%(n)s watching", "%(n)s watching", n), { n }) }));
  const fresh = h("section", { id: "tv-panel", class: "push-offer tv-panel", "aria-labelledby": "tv-title" },
    h("p", { id: "tv-title", text: pgettext("tv mode", "Spectators and TV mode") }), rows,
    h("button", { type: "button", class: "secondary small", id: "tv-close", text: pgettext("tv mode", "Close"), onclick: closePanel }));
  const box = document.getElementById("tv-panel");
  if (box) box.replaceWith(fresh);
  else (document.querySelector(".table-wrap") || document.body).before(fresh);
}

// --- the ask, once per seated player of a TV-mode room ---

function ask() {
  if (document.getElementById("tv-ask")) return;
  const answer = (on) => { send({ type: "tv_consent", on }); document.getElementById("tv-ask").remove(); };
  const box = h("div", { id: "tv-ask", class: "push-offer", role: "alert" },
    h("p", { text: pgettext("tv mode", "This room is in TV mode. Show your cards to the spectators, one action late, from the next hand?") }),
    h("div", { class: "row push-offer-buttons" },
      h("button", { type: "button", class: "primary", id: "tv-ask-yes", text: pgettext("tv mode", "Show my cards"), onclick: () => answer(true) }),
      h("button", { type: "button", class: "secondary", id: "tv-ask-no", text: pgettext("tv mode", "Keep them hidden"), onclick: () => answer(false) })));
  (document.querySelector(".table-wrap") || document.body).before(box);
}

/** A frame of spectators by consent (room-frames.js passes them on). */
export function onFrame(f) {
  loadWords().then(() => {
    if (f.type === "tv") setCards(f.cards);
    else if (f.type === "tv_ask") ask();
    else if (f.type === "spectators") { M.watchers = f.users || []; drawCount(); }
    else if (f.type === "spectators_mode") {
      M.mode = f.mode;
      if (f.mode !== "tv") setCards({});
      if (document.getElementById("tv-panel")) panel();
    } else if (f.type === "tv_consent") {
      if (!f.on && M.cards[f.seat]) { delete M.cards[f.seat]; setCards(M.cards); } // a withdrawal hides at once
      if (f.user === me()) say(f.on ? fmt(pgettext("tv mode", "Spectators see your cards one action late from hand %(n)s."), { n: f.from_hand })
        : pgettext("tv mode", "Spectators do not see your cards."));
    }
  });
}

/** The menu's button (the menu closes: the panel is above the table), or the count of spectators. */
export function onClick(el) {
  if (el.id === "tv-menu") document.getElementById("menu-close").click();
  loadWords().then(() => {
    panel();
    document.getElementById("tv-panel").scrollIntoView({ block: "nearest" });
  });
}
