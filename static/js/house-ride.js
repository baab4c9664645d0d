// Let it ride (推注, house-rules.md "Let it ride", knob `push_cap`): a challenger who beat the same bank in the previous
// hand may stake up to that stake plus its win, at most `push_cap` base stakes. Loaded by house.js only in a room that
// turns the rule on. The engine says who rides and to how much in the view's `house.ride` ({seat: cap}, public, set
// when the hand starts); this module raises the bet box's largest stake to the ride (never past what the stack covers),
// writes the offer in the box with a button that puts the whole ride in it, and tells the feed the engine's
// `ride_offered` and `ride_taken`. In a game with fixed stakes (Zhejiang) the engine makes `bet` legal for a rider
// only, so the table shows the bet box to that player alone.
import { fmt, pgettext } from "./i18n.js";

/** The viewer's ride cap in this hand, or null. */
function capOf(view) {
  const ride = view && view.house && view.house.ride;
  return ride && view.you && typeof ride[view.you] === "number" ? ride[view.you] : null;
}

/** What the stack covers (rules/README.md "No debt"; machine.py `_stake_cover`): against a bank won at auction, the
 * multiplier's share of it (the view's `house.auction.mult`). */
function cover(api) {
  const v = api.view;
  const stack = api.me ? api.me.stack : 0;
  const mult = (v.house && v.house.auction && v.house.auction.mult) || 1;
  return Math.floor((v.rules.stake_third_of_stack ? Math.floor(stack / 3) : stack) / mult);
}

/** The largest stake without the ride (machine.py `_room_max`): the stack's cover, within `max_bet` and, where
 * stakes are fixed, the hand's base stake. */
function usual(api) {
  const v = api.view;
  let high = cover(api);
  if (v.rules.max_bet !== null && v.rules.max_bet !== undefined) high = Math.min(high, v.rules.max_bet);
  if (v.rules.fixed_stake && v.hand) high = Math.min(high, v.hand.base_stake);
  return high;
}

/** The largest stake the ride allows, or null when it raises nothing (the stack already runs that far). */
function rideHigh(api) {
  const cap = capOf(api.view);
  if (cap === null) return null;
  const most = Math.min(cap, cover(api));
  return most > usual(api) ? most : null;
}

/** The bet box's largest stake (table.js `stakeLimits`): raised to the ride; a fixed stake otherwise. */
export function stakeHigh(high, api) {
  const v = api.view;
  const usualHigh = v.rules.fixed_stake && v.hand ? Math.min(high, v.hand.base_stake) : high;
  const most = rideHigh(api);
  return most === null ? usualHigh : Math.max(usualHigh, most);
}

/** Why the box refuses a stake above the ride (the engine's `above_ride_cap`), or null without a ride. */
export function stakeTooHigh(amount, high, api) {
  if (rideHigh(api) === null) return null;
  return fmt(pgettext("house rule", "Letting it ride, the stake is at most %(n)s."), { n: api.number(high) });
}

/** The line in the bet box: the ride's cap, and a button that puts it in the box. */
export function betNote(api) {
  const most = rideHigh(api);
  if (most === null) return null;
  const fill = () => {
    const input = document.getElementById("bet-box");
    if (!input) return;
    input.value = String(most);
    input.dispatchEvent(new Event("input", { bubbles: true })); // table.js takes the box's text as if typed
  };
  return api.h("p", { class: "ride-note", id: "ride-note" },
    api.h("span", { text: fmt(pgettext("house rule", "Let it ride: up to %(n)s"), { n: api.number(most) }) + " " }),
    // Out of the Tab order: Confirm stays one Tab from the box (table.js); a keyboard types the amount instead.
    api.h("button", { type: "button", class: "secondary", id: "act-ride", "data-action": "ride", tabindex: "-1", onclick: fill },
      fmt(pgettext("house rule", "Ride %(n)s"), { n: api.number(most) })));
}

export function tell(e, ctx) {
  if (e.type !== "ride_offered" && e.type !== "ride_taken") return null;
  const mine = e.seat === ctx.you();
  const p = { name: ctx.name(e.seat), cap: ctx.number(e.cap), amount: ctx.number(e.amount || 0) };
  if (e.type === "ride_offered") {
    return [ctx.line(ctx.fmt(mine ? pgettext("house rule", "You won the last hand: you may let it ride, up to %(cap)s.")
      : pgettext("house rule", "%(name)s won the last hand and may let it ride, up to %(cap)s."), p), { mine })];
  }
  return [ctx.line(ctx.fmt(mine ? pgettext("house rule", "You let it ride: %(amount)s.") : pgettext("house rule", "%(name)s lets it ride: %(amount)s."), p),
    { mine })];
}
