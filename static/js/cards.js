// Cards drawn with CSS and SVG built here (createElementNS, presentation attributes only: nothing inline for the
// CSP), no images to download. A card is {"card": "QH", "up": true}, {"card": "QH", "up": false} (face down, shown
// to its owner only) or {"hidden": true} (a back). The codes never change (games/engine/cards.py): only how a card
// is drawn and named here.
import { fmt, gettext, pgettext } from "./i18n.js";

const FRENCH = { S: "♠", H: "♥", D: "♦", C: "♣" };

// The deck art of the 40-card Spanish-suited deck (accounts.models.DECK_ART; docs/glossary.md, "Cards"): the player's
// choice rides on <html data-deck-art>; without one the page's language decides: Spanish players get the baraja
// (indices 1–7, 10, 11, 12), Italian players the Napoletane (A, 2–7, F, C, R: asso, fante, cavallo, re), everyone
// else the codes' plain letters (A, 2–7, J, N, K), whose letters match the English names and mark the picture cards
// as J, Q and K do in a French deck.
export const DECK_ARTS = ["baraja", "napoletane", "letters"];
const INDEX = {
  baraja: { J: "10", N: "11", K: "12" },
  napoletane: { 1: "A", J: "F", N: "C", K: "R" },
  letters: { 1: "A" },
};

/** The art a language gives when the player chose none. */
export function languageArt(lang = document.documentElement.lang) {
  const code = (lang || "").toLowerCase();
  if (code === "es" || code.startsWith("es-")) return "baraja";
  if (code === "it" || code.startsWith("it-")) return "napoletane";
  return "letters";
}

/** The art this page draws in: the player's choice, else their language's. */
export function deckArt(root = document.documentElement) {
  const chosen = root.dataset.deckArt;
  return DECK_ARTS.includes(chosen) ? chosen : languageArt(root.lang);
}

/** The index a card of the Spanish-suited deck shows in the art `art`, from its rank code (1..7, J, N, K). */
export function spanishIndex(rank, art = deckArt()) {
  return INDEX[art][rank] || rank;
}

// The suit marks, drawn on a 24 x 24 grid: [element, attributes] each. The baraja's are the Spanish deck's (a round
// gold coin, a chalice, a straight sword, a knotted club); the Napoletane's are the Italian deck's (a coin with a
// rosette, a rounder cup, a curved sword, a staff).
const INK = "#3b2a10";
const BARAJA = {
  O: [["circle", { cx: 12, cy: 12, r: 10, fill: "#e8b21c", stroke: "#8a5a00", "stroke-width": 1.6 }],
    ["circle", { cx: 12, cy: 12, r: 5.5, fill: "none", stroke: "#8a5a00", "stroke-width": 1.4 }],
    ["circle", { cx: 12, cy: 12, r: 1.8, fill: "#8a5a00" }]],
  C: [["path", { d: "M4.5 3h15c0 5.5-3 9-6 9.6V18h4v3h-11v-3h4v-5.4C7.5 12 4.5 8.5 4.5 3z", fill: "#c62828", stroke: "#7f1010", "stroke-width": 1 }],
    ["rect", { x: 4.6, y: 3, width: 14.8, height: 2.4, fill: "#e8b21c" }]],
  E: [["path", { d: "M12 1.5l2 3V15h-4V4.5z", fill: "#2f6fc0", stroke: "#173a6b", "stroke-width": 1 }],
    ["rect", { x: 5.5, y: 15, width: 13, height: 2.4, rx: 1, fill: "#e8b21c", stroke: "#8a5a00", "stroke-width": .8 }],
    ["rect", { x: 10.8, y: 17.4, width: 2.4, height: 3.4, fill: "#6d4118" }],
    ["circle", { cx: 12, cy: 21.4, r: 1.7, fill: "#e8b21c", stroke: "#8a5a00", "stroke-width": .8 }]],
  B: [["path", { d: "M7.5 5C7.5 1 16.5 1 16.5 5L13.6 22.5h-3.2z", fill: "#3f8f36", stroke: "#1f4d1c", "stroke-width": 1.2 }],
    ["circle", { cx: 10, cy: 7, r: 1.4, fill: "#6d4118" }],
    ["circle", { cx: 14.1, cy: 10.5, r: 1.3, fill: "#6d4118" }],
    ["circle", { cx: 11, cy: 15, r: 1.1, fill: "#6d4118" }]],
};
const NAPOLETANE = {
  O: [["circle", { cx: 12, cy: 12, r: 10, fill: "#e8b21c", stroke: "#8a5a00", "stroke-width": 1.6 }],
    ["path", { d: "M12 5.5c1.8 2.6 1.8 4.4 0 6.5-1.8-2.1-1.8-3.9 0-6.5zM12 18.5c-1.8-2.6-1.8-4.4 0-6.5 1.8 2.1 1.8 3.9 0 6.5zM5.5 12c2.6-1.8 4.4-1.8 6.5 0-2.1 1.8-3.9 1.8-6.5 0zM18.5 12c-2.6 1.8-4.4 1.8-6.5 0 2.1-1.8 3.9-1.8 6.5 0z", fill: "#c62828" }],
    ["circle", { cx: 12, cy: 12, r: 1.6, fill: "#8a5a00" }]],
  C: [["path", { d: "M5 3h14c.6 5-1.8 8.6-5.5 9.5V17H16c1 0 2 .8 2 2v2H6v-2c0-1.2 1-2 2-2h2.5v-4.5C6.8 11.6 4.4 8 5 3z", fill: "#c62828", stroke: "#7f1010", "stroke-width": 1 }],
    ["path", { d: "M5.2 4.8h13.6", stroke: "#e8b21c", "stroke-width": 2 }]],
  E: [["path", { d: "M11.5 1.5c5 4 5.5 9 3.2 13.5h-3.4c1.8-4 1.8-8.3.2-13.5z", fill: "#2f6fc0", stroke: "#173a6b", "stroke-width": 1 }],
    ["rect", { x: 6, y: 15, width: 12, height: 2.4, rx: 1.2, fill: "#e8b21c", stroke: "#8a5a00", "stroke-width": .8 }],
    ["rect", { x: 11, y: 17.4, width: 2.4, height: 3.4, fill: "#6d4118" }],
    ["circle", { cx: 12.2, cy: 21.4, r: 1.7, fill: "#e8b21c", stroke: "#8a5a00", "stroke-width": .8 }]],
  B: [["path", { d: "M10 2.5h4l-.6 20h-2.8z", fill: "#3f8f36", stroke: "#1f4d1c", "stroke-width": 1.2 }],
    ["path", { d: "M13.6 8.5c2.4-1.8 4-1.4 5-.6-1.6 1.4-3 1.7-5 .6zM10.5 13.5c-2.4-1.8-4-1.4-5-.6 1.6 1.4 3 1.7 5 .6z", fill: "#3f8f36", stroke: "#1f4d1c", "stroke-width": .8 }]],
};
const MARKS = { baraja: BARAJA, napoletane: NAPOLETANE, letters: BARAJA };

const SVG = "http://www.w3.org/2000/svg";
function suitMark(art, suit) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of MARKS[art][suit]) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.append(el);
  }
  return svg;
}

// One English word, two cards: pgettext's contexts keep the French deck's clubs and jack apart from the Spanish
// deck's (bastos, sota; docs/glossary.md). The Spanish deck's king has its own context too: Chinese names the
// French king by its letter (K) and the Spanish one by its figure (国王).
function rankName(rank, spanish) {
  if (spanish) {
    return { 1: gettext("ace"), J: pgettext("Spanish deck", "jack"), N: gettext("knight"),
      K: pgettext("Spanish deck", "king") }[rank] || rank;
  }
  if (rank === "J") return pgettext("French deck", "jack");
  return { A: gettext("ace"), Q: gettext("queen"), K: gettext("king") }[rank] || rank;
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

/** The card's name in the page's language, in the words of its deck (as de oros, asso di denari, queen of hearts). */
export function describe(code) {
  if (code === "BJ") return gettext("black joker");
  if (code === "RJ") return gettext("red joker");
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const spanish = isSpanish(code);
  const name = spanish ? spanishSuitName(suit) : suitName(suit);
  return fmt(gettext("%(rank)s of %(suit)s"), { rank: rankName(rank, spanish), suit: name });
}

/** Fill `el` (a span) so that it shows the card `code`, face up; `art` draws a Spanish-suited card in that art
 * instead of the page's (the profile's preview of each choice). */
export function paint(el, code, { down = false, art = null } = {}) {
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
    const drawn = DECK_ARTS.includes(art) ? art : deckArt();
    const suit = code.slice(-1);
    el.classList.add("spanish", "art-" + drawn, "suit-" + suit);
    rank.textContent = spanishIndex(code.slice(0, -1), drawn);
    pip.append(suitMark(drawn, suit));
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
