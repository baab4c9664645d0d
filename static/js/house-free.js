// house-rules.md "The free hand" (free_hand): a two-card 15 may run (escape) at its holder's first decision. The table
// shows the Run button only while the engine lists `escape` among the player's legal actions, and the feed tells the
// escape and the stakes it gives back in words (the words: free hand, run; docs/rules.md "The free hand").
import { fmt, pgettext } from "./i18n.js";

let ran = new Set(); // the seats that ran in the hand being told (a banker's run gives back the others' stakes)

/** The row with the Run button, while `escape` is legal for this player. */
export function actionRows(api) {
  if (!api.legal("escape")) return null;
  const v = api.view;
  const banker = v.you && v.you === v.banker;
  return api.h("div", { class: "row house-free" },
    api.button("escape", pgettext("house rule", "Run (free hand)"), { cls: "secondary" }),
    api.h("span", { class: "muted", id: "free-hand-note", text: banker
      ? pgettext("house rule", "A two-card 15: run, and every stake not yet settled comes back.")
      : pgettext("house rule", "A two-card 15: run, and your stake comes back, no win and no loss.") }));
}

/** The words under a hand that ran. */
export function handInfo(ph, seatId, api) {
  const free = api.view && api.view.house && api.view.house.free_hand;
  return free && free.escaped.includes(seatId) ? [pgettext("house rule", "ran (free hand)")] : null;
}

/** The feed's lines for the escape: the run itself, and each stake it gives back. */
export function tell(e, ctx) {
  if (e.type === "hand_started") ran = new Set();
  if (e.type === "action" && e.action === "escape") return []; // the free_hand_escaped line tells it
  if (e.type === "free_hand_escaped") {
    ran.add(e.seat);
    const text = e.banker
      ? pgettext("house rule", "%(name)s, the banker, runs with a free hand (a two-card 15): every stake not yet settled comes back.")
      : pgettext("house rule", "%(name)s runs with a free hand (a two-card 15): the stake comes back, no win and no loss.");
    return [ctx.line(fmt(text, { name: ctx.name(e.seat) }), { mine: e.seat === ctx.you() })];
  }
  if (e.type === "bet_settled" && e.why === "free_hand") {
    const o = { name: ctx.name(e.bettor), stake: ctx.number(e.stake) };
    const text = ran.has(e.bettor) ? pgettext("house rule", "%(name)s gets the stake of %(stake)s back: ran with a free hand.")
      : pgettext("house rule", "%(name)s gets the stake of %(stake)s back: the banker ran with a free hand.");
    return [ctx.line(fmt(text, o), { seat: e.bettor, mine: e.bettor === ctx.you(), outcome: e.outcome })];
  }
  return null;
}
