// The table's house-rule parts (house-rules.md), loaded only in a room that turns one on, so that the table of every
// other room stays as light as before (tests/e2e/test_csp.py). One module per knob; each exports the hooks it needs:
//   handInfo(ph, seatId, api) -> [text]            words under a hand (the matta's value, "opened")
//   seatExtras(seat, api) -> Node | null           controls on a seat (the banker's Open)
//   actionRows(api) -> Node | null                 rows of the action bar (the escape, the bid row)
//   betNote(api) -> Node | null                    a line in the bet box (the ride offer)
//   stakeHigh(high, api) -> number                 the bet box's largest stake (let it ride)
//   stakeTooHigh(amount, high, api) -> text|null  why the bet box refuses a stake above `high` (let it ride)
//   statusLine(api) -> [text, mine] | null         the centre's line in a phase of the rule's own (the bank auction)
//   tell(e, ctx) -> [line] | null                  the feed's lines for an event the shared feed does not know
//                                                  (ctx: {name, you, line, fmt, number, gettext, ngettext, pgettext})
// `api` (table.js): {view, send, legal, name, button, h, fmt, number, me}.
import { addWords } from "./i18n.js";

const MODULES = [
  ["banker_opens", (r) => r.banker_opens, () => import("./house-open.js")],
  ["free_hand", (r) => r.free_hand, () => import("./house-free.js")],
  ["matta", (r) => r.matta && r.matta !== "off", () => import("./house-matta.js")],
  ["bank_auction", (r) => r.bank_auction, () => import("./house-auction.js")],
  ["push_cap", (r) => r.push_cap > 0, () => import("./house-ride.js")],
];

/** The knobs of `rules` that are on, in the order above. */
export const knobsOn = (rules) => MODULES.filter(([, on]) => rules && on(rules)).map(([knob]) => knob);

// The modules' words carry the context "house rule" (or "house rule: ..."): the page's own catalog (/jsi18n/) goes without
// them, and they come from /jsi18n/house/ with the modules (config/urls.py).
/** The modules of the knobs `rules` turns on, once their words are in the page's catalog (a promise of a list; empty
 * when none is on). */
export function loadHouse(rules) {
  const wanted = MODULES.filter(([, on]) => rules && on(rules));
  if (!wanted.length) return Promise.resolve([]);
  return addWords("house rule", "/jsi18n/house/").then(() => Promise.all(wanted.map(([, , load]) => load())));
}

/** Every module's answer to `hook`, in order, leaving out the modules without it and the empty answers. */
export function each(modules, hook, ...args) {
  const out = [];
  for (const m of modules || []) {
    if (typeof m[hook] !== "function") continue;
    const r = m[hook](...args);
    if (r !== null && r !== undefined) out.push(r);
  }
  return out;
}
