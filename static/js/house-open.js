// house-rules.md "The banker opens hands one by one" (banker_opens): from its total `banker_open_from` on, the banker
// may open (开牌) a challenger, who is settled at once against the banker's current hand. The banker sees an Open
// button on each challenger it may open (the view's house.banker_opens.openable, the banker's alone), a line on its
// turn says what it may do, a hand opened is marked "opened", and the feed tells each open and its result in words.
import { CLASS_NAMES } from "./feed.js";
import { fmt, pgettext } from "./i18n.js";

let opened = {}; // seat -> the hand_opened event of the hand being told (its totals, for the result that follows)

const opens = (api) => (api.view && api.view.house && api.view.house.banker_opens) || null;

/** A hand's worth in words: its total, or its class when the class decides (a Five Dragon). */
function worth(total, cls) {
  return cls && cls !== "ordinary" && cls !== "bust" ? CLASS_NAMES()[cls] || String(total) : String(total);
}

/** The banker's Open button on a challenger it may open now. */
export function seatExtras(seat, api) {
  const o = opens(api);
  if (!o || !api.legal("open") || !o.openable.includes(seat.id)) return null;
  return api.h("div", { class: "row house-open" },
    api.button("open", pgettext("house rule: the banker opens a challenger's hand (开牌)", "Open"), {
      cls: "secondary", args: { seat: seat.id }, id: "act-open-" + seat.id,
    }));
}

/** On the banker's turn, what the rule lets it do now. */
export function actionRows(api) {
  const v = api.view;
  const o = opens(api);
  if (!o || v.phase !== "playing" || !v.hand || !v.hand.turn || v.hand.turn.seat !== v.you || v.you !== v.banker) return null;
  const text = api.legal("open")
    ? pgettext("house rule", "Open a challenger's hand on their seat: settled now against your hand. Or draw, or stand: the hands not opened are settled against your final hand.")
    : fmt(pgettext("house rule", "Below %(n)s the bank must draw; from %(n)s it may open challengers' hands one by one."), { n: o.from });
  return api.h("div", { class: "row house-open-note" }, api.h("span", { class: "muted", id: "open-note", text }));
}

/** The word under a hand the banker opened. */
export function handInfo(ph, seatId, api) {
  const o = opens(api);
  return o && o.opened.includes(seatId) ? [pgettext("house rule: a hand the banker opened (开牌)", "opened")] : null;
}

/** The feed's lines: the open itself, and the result it settles. */
export function tell(e, ctx) {
  if (e.type === "hand_started") opened = {};
  if (e.type === "action" && e.action === "open") return []; // the hand_opened line tells it
  if (e.type === "hand_opened") {
    opened[e.seat] = e;
    const o = { banker: ctx.name(e.by), name: ctx.name(e.seat), bank: worth(e.banker_total, e.banker_class) };
    const text = e.seat === ctx.you()
      ? pgettext("house rule", "%(banker)s opens your hand: it is settled now against the bank's %(bank)s.")
      : pgettext("house rule", "%(banker)s opens %(name)s's hand: it is settled now against the bank's %(bank)s.");
    return [ctx.line(fmt(text, o), { mine: e.seat === ctx.you() || e.by === ctx.you() })];
  }
  if (e.type === "bet_settled" && e.why === "opened") {
    const at = opened[e.bettor];
    const o = {
      name: ctx.name(e.bettor), mult: e.multiplier, paid: ctx.number(e.paid), stake: ctx.number(e.stake),
      hand: at ? worth(at.total, at.class) : "?", bank: at ? worth(at.banker_total, at.banker_class) : "?",
    };
    const text = {
      win: pgettext("house rule", "%(name)s wins ×%(mult)s, +%(paid)s: opened, %(hand)s beats the bank's %(bank)s."),
      lose: pgettext("house rule", "%(name)s loses ×%(mult)s, −%(paid)s: opened, the bank's %(bank)s beats %(hand)s."),
      push: pgettext("house rule", "%(name)s: push, the stake of %(stake)s stays: opened, %(hand)s against the bank's %(bank)s."),
    }[e.outcome];
    if (!text) return null; // void (an empty bank): the shared feed says why
    let said = fmt(text, o);
    if (e.outcome === "win" && e.paid < e.due) {
      said += " " + fmt(pgettext("house rule", "The bank held only %(paid)s of the %(due)s due."), { paid: ctx.number(e.paid), due: ctx.number(e.due) });
    }
    return [ctx.line(said, { seat: e.bettor, mine: e.bettor === ctx.you(), outcome: e.outcome })];
  }
  return null;
}
