// The matta (house-rules.md, "The matta"): the king of coins is wild, and the engine gives it the value that makes
// its hand best. Loaded by house.js only in a room that turns the rule on. The value shows wherever the hand's total
// shows (the view's `matta` on a hand: to its owner, and to everyone once the hand is face up), under the hand and
// as a badge on the card; the feed tells it from the engine's `matta_valued`, sent only once the hand is face up.
// Besides the hooks of house.js it has `recordInfo(h)`: the words beside a hand of a hand record and its replay.
import { showTotal } from "./feed.js";
import { fmt, pgettext } from "./i18n.js";

const MATTA = "KO"; // the king of coins (games/engine/variants/seven_half.py, MATTA)

/** "matta = 5": the words under a hand and on the card. */
export const mattaText = (value) => fmt(pgettext("house rule", "matta = %(value)s"), { value: showTotal(value) });

/** The value on the matta's card: a badge on it, and its spoken name. Drawn after the table's render, which made
 * the card elements (cards.js `cardEl`) without knowing the rule. */
function badge(card, value) {
  if (!card || card.querySelector(".matta-badge")) return;
  const mark = document.createElement("span");
  mark.className = "badge matta-badge";
  mark.textContent = showTotal(value);
  mark.setAttribute("aria-hidden", "true");
  // CSSOM, not a style attribute: the page's Content-Security-Policy allows no inline style.
  Object.assign(mark.style, { position: "absolute", top: "-.45rem", right: "-.45rem", padding: "0 .3rem",
    fontSize: ".62rem", lineHeight: "1.1rem", background: "var(--accent, #f2c14e)", color: "#1d2433" });
  card.append(mark);
  card.classList.add("matta");
  const label = card.getAttribute("aria-label") || "";
  card.setAttribute("aria-label", label + pgettext("between a card's name and a remark about it", ", ") + mattaText(value));
}

/** The words beside a hand of a finished hand's record (hand.js, replay.js): `h` as the record or the engine's count
 * of it has it ({cards, total, class, bust, matta}). */
export function recordInfo(h) {
  return h && h.matta !== undefined && h.matta !== null ? [mattaText(h.matta)] : null;
}

export function handInfo(ph, seatId, api) {
  if (ph.matta === undefined || ph.matta === null) return null;
  const hands = (api && api.view && api.view.hand && api.view.hand.hands[seatId]) || [];
  const index = hands.indexOf(ph);
  queueMicrotask(() => {
    const where = `.seat[data-seat="${CSS.escape(seatId)}"] .hand[data-hand="${index}"]`;
    for (const card of document.querySelectorAll(`${where} .pcard[data-card="${MATTA}"]`)) badge(card, ph.matta);
  });
  return [mattaText(ph.matta)];
}

export function tell(e, ctx) {
  if (e.type !== "matta_valued") return null;
  const value = showTotal(e.value);
  const mine = e.seat === ctx.you();
  const text = mine ? ctx.fmt(pgettext("house rule", "Your matta (the king of coins) counts as %(value)s."), { value })
    : e.seat === ctx.banker() ? ctx.fmt(pgettext("house rule", "The bank's matta (the king of coins) counts as %(value)s."), { value })
      : ctx.fmt(pgettext("house rule", "%(name)s's matta (the king of coins) counts as %(value)s."), { name: ctx.name(e.seat), value });
  return [ctx.line(text, { mine })];
}
