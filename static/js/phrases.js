// Quick phrases and reactions (docs/protocol.md, `phrase`, `react`): the room bar's button (`data-more="phrases"`)
// opens a panel of fixed phrases and emoji; one tap sends one and closes the panel. Every page of the room draws it at
// the sender's seat for two seconds, worded in its own reader's language: the `phrase_said` and `reacted` frames
// carry codes and ids only. static/js/room-frames.js loads this module on the first of those frames or the first tap.
// "Hide the others' phrases and reactions" is this browser's (localStorage: it follows the device, not the account),
// and keeps the player's own in view, the answer to their tap. The screen-reader mode says the others' in its chat
// region (#blind-chat, static/js/blind.js).
// The words carry the context "quick phrase" and come from /jsi18n/phrases/ (config/urls.py).
import { h } from "./dom.js";
import { addWords, fmt, gettext, pgettext } from "./i18n.js";

const T = () => window.halfpoint;
const SHOWN_MS = 2000;
const HIDE_KEY = "halfpoint:hide-phrases";

const loadWords = () => addWords("quick phrase", "/jsi18n/phrases/");

// The codes the server accepts (games/services/phrases.py), in its order; each call names its context literally, for
// makemessages to find it.
const PHRASES = () => ({
  good_luck: pgettext("quick phrase", "Good luck!"),
  hurry_up: pgettext("quick phrase", "Hurry up!"),
  nice_hand: pgettext("quick phrase", "Nice hand!"),
  well_played: pgettext("quick phrase", "Well played!"),
  thanks: pgettext("quick phrase", "Thanks!"),
  one_more: pgettext("quick phrase", "One more hand?"),
  brb: pgettext("quick phrase", "Be right back."),
  place_bets: pgettext("quick phrase", "Place your bets!"), // the banker's alone
});
const BANKER_ONLY = ["place_bets"];
// The emoji are the same in every language; their names are read by screen readers.
const REACTIONS = () => ({
  thumbs_up: ["👍", pgettext("quick phrase", "Thumbs up")],
  clap: ["👏", pgettext("quick phrase", "Applause")],
  laugh: ["😂", pgettext("quick phrase", "Laughing")],
  wow: ["😮", pgettext("quick phrase", "Surprised")],
  cry: ["😢", pgettext("quick phrase", "Crying")],
  angry: ["😠", pgettext("quick phrase", "Angry")],
});

// The panel and the bubbles are drawn once their stylesheet is in: a bubble is measured to be placed.
let styled = null;
function stylesheet() {
  if (!styled) {
    const link = h("link", { rel: "stylesheet", href: new URL("../css/phrases.css", import.meta.url).href });
    styled = new Promise((resolve) => { link.onload = link.onerror = resolve; });
    document.head.append(link);
  }
  return styled;
}
const ready = () => Promise.all([stylesheet(), loadWords()]);

const hidden = () => localStorage.getItem(HIDE_KEY) === "1";
const mine = () => {
  const v = T().state.view;
  return v && v.seats.find((x) => x.id === v.you);
};

function send(message) {
  if (!T().socket.send(message)) T().toast(gettext("Not connected: wait a moment and try again."), "error");
  close();
}

// A tap anywhere else closes the panel, as a phone's sheet does (the button's own tap toggles it: onClick).
function outside(e) {
  if (!e.target.closest("#phrases, #phrases-button")) close();
}

function close() {
  document.removeEventListener("pointerdown", outside, true);
  const panel = document.getElementById("phrases");
  const button = document.getElementById("phrases-button");
  const focused = panel && panel.contains(document.activeElement);
  if (panel) panel.remove();
  if (button) {
    button.setAttribute("aria-expanded", "false");
    if (focused) button.focus();
  }
}

function open(button) {
  if (document.getElementById("phrases")) return; // a second tap while the words were on their way
  const seat = mine();
  const phrases = PHRASES();
  const sendable = seat ? Object.keys(phrases).filter((c) => seat.banker || !BANKER_ONLY.includes(c)) : [];
  const hide = h("input", { type: "checkbox", id: "phrases-hide", checked: hidden(),
    onchange: (e) => localStorage.setItem(HIDE_KEY, e.target.checked ? "1" : "0") });
  const panel = h("section", { id: "phrases", class: "phrases", "aria-labelledby": "phrases-title",
    onkeydown: (e) => { if (e.key === "Escape") close(); } },
  h("div", { class: "phrases-head" },
    h("h2", { id: "phrases-title", text: pgettext("quick phrase", "Quick phrases") }),
    h("button", { type: "button", id: "phrases-close", class: "link-dark", text: "✕",
      "aria-label": pgettext("quick phrase", "Close the quick phrases"), onclick: close })),
  seat ? null : h("p", { class: "muted small", text: pgettext("quick phrase", "Take a seat to send phrases and reactions.") }),
  sendable.length ? h("div", { class: "phrases-list" }, sendable.map((code) => h("button", {
    type: "button", class: "secondary", "data-phrase": code, text: phrases[code],
    onclick: () => send({ type: "phrase", code }),
  }))) : null,
  seat ? h("div", { class: "phrases-reactions", role: "group", "aria-label": pgettext("quick phrase", "Reactions") },
    Object.entries(REACTIONS()).map(([code, [emoji, label]]) => h("button", {
      type: "button", class: "secondary", "data-reaction": code, text: emoji, title: label, "aria-label": label,
      onclick: () => send({ type: "react", code }),
    }))) : null,
  h("label", { class: "phrases-hide" }, hide, " ", pgettext("quick phrase", "Hide the others' phrases and reactions")));
  button.setAttribute("aria-expanded", "true");
  (document.querySelector("main") || document.body).append(panel); // in the page's main landmark, read after the table
  document.addEventListener("pointerdown", outside, true);
  (panel.querySelector("[data-phrase], [data-reaction]") || hide).focus();
}

/** The room bar's button (`data-more="phrases"`): opens the panel, or closes it. */
export function onClick(el) {
  if (document.getElementById("phrases")) return close();
  ready().then(() => open(el));
}

// What a frame says, for the seat's bubble and for the screen-reader mode.
function worded(f) {
  if (f.type === "phrase_said") return PHRASES()[f.code];
  const reaction = REACTIONS()[f.code];
  return reaction && reaction[0];
}

function say(f, text) {
  const box = document.getElementById("blind-chat");
  if (!box || !document.body.classList.contains("blind")) return;
  const name = (T().state.names || {})[f.seat] || "";
  box.append(h("p", { text: f.type === "phrase_said"
    ? fmt(pgettext("screen reader", "%(name)s says: %(text)s"), { name, text })
    : fmt(pgettext("quick phrase", "%(name)s reacts: %(reaction)s"), { name, reaction: REACTIONS()[f.code][1] }) }));
  while (box.childNodes.length > 5) box.firstChild.remove();
}

/** Draw `text` over the seat `f.seat` for two seconds. It sits on the page, not in the seat: the table redraws its
 * seats on every update, and the bubble outlives that. */
function bubble(f, text) {
  const seat = document.querySelector(`#seats [data-seat="${f.seat}"], #side-seats [data-seat="${f.seat}"]`);
  if (!seat || !seat.getClientRects().length) return;
  for (const old of document.querySelectorAll(`.phrase-bubble[data-seat="${f.seat}"]`)) old.remove();
  const r = seat.getBoundingClientRect();
  const node = h("div", { class: "phrase-bubble" + (f.type === "reacted" ? " reaction" : ""), "data-seat": f.seat,
    "data-code": f.code, "aria-hidden": "true", text });
  (document.querySelector("main") || document.body).append(node);
  // Centred on the seat's top edge (the name line stays readable below it), kept on the screen; placed from the box
  // it is positioned in (the page, unless a stylesheet positions <main>).
  const w = node.offsetWidth;
  const left = Math.min(Math.max(r.left + r.width / 2 - w / 2, 4), document.documentElement.clientWidth - w - 4);
  const top = Math.max(r.top - node.offsetHeight * 0.6, 4 - scrollY);
  const box = node.offsetParent && node.offsetParent !== document.body ? node.offsetParent.getBoundingClientRect()
    : { left: -scrollX, top: -scrollY };
  node.style.left = `${left - box.left}px`;
  node.style.top = `${top - box.top}px`;
  setTimeout(() => node.remove(), SHOWN_MS);
}

/** A `phrase_said` or `reacted` frame (table.js passes them on). */
export function onFrame(f) {
  const own = T().state.me && f.user === T().state.me.user;
  if (!own && hidden()) return;
  ready().then(() => {
    const text = worded(f);
    if (!text) return; // a code this page does not know (a newer server): nothing to draw
    bubble(f, text);
    if (!own) say(f, text);
  });
}
