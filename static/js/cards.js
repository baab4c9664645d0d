// Cards drawn with CSS and inline SVG: no images to download. A card is {"card": "QH", "up": true},
// {"card": "QH", "up": false} (face down, shown to its owner only) or {"hidden": true} (a back).
import { fmt, gettext, pgettext } from "./i18n.js";

const FRENCH = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SPANISH = {
  O: '<svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="#d9a520" stroke="#8a6d0b"/><circle cx="8" cy="8" r="3" fill="none" stroke="#8a6d0b"/></svg>',
  C: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 2h10c0 4-2 6-4 6.5V12h3v2H4v-2h3V8.5C5 8 3 6 3 2z" fill="#c0392b"/></svg>',
  E: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M7.2 1h1.6v9H7.2zM4.5 10h7v1.4h-7zM7.3 11.4h1.4V15H7.3z" fill="#2e5c9a"/></svg>',
  B: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M6 1.5c2-1 4 0 4 1.5l-1 11.5H7L6 3z" fill="#3b7d2b"/></svg>',
};
// One English word, two cards: pgettext's contexts keep the French deck's clubs and jack apart from the Spanish
// deck's (bastos, sota; docs/glossary.md).

function rankName(rank, spanish) {
  if (rank === "J") return spanish ? pgettext("Spanish deck", "jack") : pgettext("French deck", "jack");
  return { A: gettext("ace"), Q: gettext("queen"), K: gettext("king"), N: gettext("knight") }[rank] || rank;
}

function suitName(suit) {
  return {
    S: gettext("spades"), H: gettext("hearts"), D: gettext("diamonds"), C: pgettext("French deck", "clubs"),
  }[suit];
}

function spanishSuitName(suit) {
  return { O: gettext("coins"), C: gettext("cups"), E: gettext("swords"), B: pgettext("Spanish deck", "clubs") }[suit];
}

// "3C" is the 3 of clubs in a French deck and the 3 of cups in a Spanish one: the deck decides.
let spanishDeck = false;
export function setDeck(deck) {
  spanishDeck = deck === "spanish-40";
}
const isSpanish = (code) => spanishDeck && /^[1-7JNK][OCEB]$/.test(code);

export function describe(code) {
  if (code === "BJ") return gettext("black joker");
  if (code === "RJ") return gettext("red joker");
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const spanish = isSpanish(code);
  const name = spanish ? spanishSuitName(suit) : suitName(suit);
  return fmt(gettext("%(rank)s of %(suit)s"), { rank: rankName(rank, spanish), suit: name });
}

/** Fill `el` (a span) so that it shows the card `code`, face up. */
export function paint(el, code, { down = false } = {}) {
  el.className = "pcard";
  el.textContent = "";
  el.setAttribute("role", "img");
  el.dataset.card = code;
  const rank = document.createElement("span");
  rank.className = "rank";
  const pip = document.createElement("span");
  pip.className = "pip";
  if (code === "BJ" || code === "RJ") {
    el.classList.add("joker", code === "RJ" ? "red" : "black");
    rank.textContent = "★";
    pip.textContent = gettext("Joker");
  } else if (isSpanish(code)) {
    el.classList.add("spanish", "suit-" + code.slice(-1));
    rank.textContent = code.slice(0, -1);
    pip.innerHTML = SPANISH[code.slice(-1)]; // a fixed SVG from this file, never data from the server
  } else {
    const suit = code.slice(-1);
    el.classList.add(suit === "H" || suit === "D" ? "red" : "black");
    rank.textContent = code.slice(0, -1);
    pip.textContent = FRENCH[suit] || "?";
  }
  el.append(rank, pip);
  let label = describe(code);
  if (down) {
    el.classList.add("private");
    el.title = gettext("Face down: only you can see this card");
    label += pgettext("between a card's name and a remark about it", ", ") + gettext("face down, only you see it");
  }
  el.setAttribute("aria-label", label);
  return el;
}

export function cardEl(c) {
  const el = document.createElement("span");
  if (!c || c.hidden || !c.card) {
    el.className = "pcard back";
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", gettext("face-down card"));
    return el;
  }
  return paint(el, c.card, { down: c.up === false });
}

/** Draw every server-rendered `<span class="pcard" data-card="QH">QH</span>` under `root`. */
export function hydrate(root = document) {
  for (const el of root.querySelectorAll("span.pcard[data-card]")) paint(el, el.dataset.card);
}
