// The bank auction (抢庄, house-rules.md "The bank auction", knob `bank_auction`): whenever the bank is to be opened, the
// next hand starts with bids for it. Loaded by house.js only in a room that turns the rule on. The engine's view says
// everything in `house.auction` (games/engine/auction.py `view`): while bidding, the bidders, the bids made (public)
// and the deadline; once won, the multiplier the bank plays at. This module draws the bid row (no bid, ×1 .. ×max)
// with its countdown, each seat's bid on the seat, the multiplier by the bank, the centre's line during the auction,
// limits the bet box to what the stack covers at the multiplier, and tells the feed the bids and the winner in words.
import { fmt, pgettext } from "./i18n.js";

const auctionOf = (api) => (api.view && api.view.house && api.view.house.auction) || null;

/** A bid in words: "no bid" or "×3" (抢3倍). */
function bidText(mult) {
  return mult > 0 ? fmt(pgettext("house rule: a bid for the bank (抢庄)", "×%(n)s"), { n: mult }) : pgettext("house rule: a bid for the bank (抢庄)", "No bid");
}

/** The centre's line while the bank is bid for. */
export function statusLine(api) {
  const v = api.view;
  const a = auctionOf(api);
  if (v.phase !== "auction" || !a) return null;
  if (a.state === "seeds") return [pgettext("house rule", "The bank auction opens once every seat's seed is in."), false];
  if (api.legal("bid")) {
    return [a.sees_first_card ? pgettext("house rule", "Bid for the bank after your first card: the highest bid banks, and every stake against it counts that many times.")
      : pgettext("house rule", "Bid for the bank: the highest bid banks, and every stake against it counts that many times."), true];
  }
  const waiting = (v.deadline_for || []).map(api.name).join(pgettext("between the items of a list", ", "));
  return [fmt(pgettext("house rule", "Bids for the bank: waiting for %(names)s"), { names: waiting }), false];
}

/** The bid row: no bid, ×1 .. ×max, and the time left. */
export function actionRows(api) {
  const v = api.view;
  const a = auctionOf(api);
  if (v.phase !== "auction" || !a || a.state !== "bidding") return null;
  if (!api.legal("bid")) {
    const mine = v.you && a.bids[v.you];
    if (mine === undefined || mine === null) return null;
    return api.h("div", { class: "row house-auction-note" }, api.h("span", {
      class: "muted", id: "auction-note",
      text: fmt(pgettext("house rule", "Your bid: %(bid)s. Waiting for the other bids."), { bid: bidText(mine) }),
    }));
  }
  const row = api.h("div", { class: "row house-auction", role: "group", "aria-labelledby": "auction-label" },
    api.h("span", { id: "auction-label", text: pgettext("house rule: the bid row's label (抢庄)", "Bid for the bank:") }));
  row.append(api.button("bid", bidText(0), { cls: "secondary", args: { mult: 0 }, id: "act-bid-0" }));
  for (let k = 1; k <= a.max; k++) {
    row.append(api.button("bid", bidText(k), { cls: k === 1 ? "primary" : "", args: { mult: k }, id: "act-bid-" + k }));
  }
  row.append(api.h("span", { class: "countdown", "data-countdown": "1" }));
  return row;
}

/** On a seat: its bid during the auction (public once made); the multiplier on the bank's seat afterwards. */
export function seatExtras(seat, api) {
  const v = api.view;
  const a = auctionOf(api);
  if (!a || seat.role !== "main") return null;
  if (v.phase === "auction" && a.bidders.includes(seat.id)) {
    const made = a.bids[seat.id];
    const text = made === undefined ? pgettext("house rule: a seat still bidding for the bank", "bidding…") : bidText(made);
    return api.h("div", { class: "house-auction-bid", "data-bid": made === undefined ? "" : String(made), text });
  }
  if (a.mult > 1 && seat.id === v.banker) {
    return api.h("div", { class: "house-auction-bid", id: "auction-mult",
      text: fmt(pgettext("house rule", "Bank at ×%(n)s"), { n: a.mult }) });
  }
  return null;
}

/** What the stack covers against a bank won at ×N (machine.py `_stake_cover`): its Nth. */
function cover(api) {
  const v = api.view;
  const a = auctionOf(api);
  const mult = (a && a.mult) || 1;
  if (mult <= 1 || !api.me || api.me.role !== "main") return null;
  const stack = v.rules.stake_third_of_stack ? Math.floor(api.me.stack / 3) : api.me.stack;
  return Math.floor(stack / mult);
}

/** The bet box's largest stake: what the stack covers at the bank's multiplier. */
export function stakeHigh(high, api) {
  const most = cover(api);
  return most === null ? high : Math.min(high, most);
}

/** Why the box refuses a larger stake (the engine's `stake_above_cover`), unless a ride says it (house-ride.js). */
export function stakeTooHigh(amount, high, api) {
  const a = auctionOf(api);
  const ride = api.view.house && api.view.house.ride;
  if (cover(api) === null || (ride && ride[api.view.you])) return null;
  return fmt(pgettext("house rule", "The bank plays at ×%(mult)s: your stake is at most %(n)s."), { mult: a.mult, n: api.number(high) });
}

export function tell(e, ctx) {
  const mine = e.seat === ctx.you();
  switch (e.type) {
    case "auction_started": {
      const lines = [ctx.line(fmt(pgettext("house rule", "The bank is up for auction: each player may bid ×1 to ×%(max)s, or make no bid. The highest bid banks with their whole stack, and every stake against that bank counts that many times, win or lose."), { max: e.max }))];
      if (e.sees_first_card) lines.push(ctx.line(pgettext("house rule", "Each bidder sees their own first card before bidding.")));
      return lines;
    }
    case "bids_open": case "betting_opened":
      return [];
    case "bid_made": {
      const p = { name: ctx.name(e.seat), bid: bidText(e.mult) };
      let text;
      if (e.mult > 0) text = mine ? pgettext("house rule", "You bid %(bid)s for the bank.") : pgettext("house rule", "%(name)s bids %(bid)s for the bank.");
      else if (e.timeout) text = mine ? pgettext("house rule", "You made no bid (time ran out).") : pgettext("house rule", "%(name)s makes no bid (time ran out).");
      else if (e.left) text = pgettext("house rule", "%(name)s left: no bid.");
      else text = mine ? pgettext("house rule", "You make no bid.") : pgettext("house rule", "%(name)s makes no bid.");
      return [ctx.line(fmt(text, p), { mine })];
    }
    case "auction_won": {
      const p = { name: ctx.name(e.seat), mult: e.mult, bid: e.bid, bank: ctx.number(e.bank),
        names: (e.tied || []).map(ctx.name).join(pgettext("between the items of a list", ", ")) };
      let text;
      if (e.by === "order") text = pgettext("house rule", "Nobody bid: %(name)s banks %(bank)s in the usual order, at ×1.");
      else if (e.by === "tie") {
        text = pgettext("house rule", "%(names)s tied at ×%(bid)s; the hand's shuffle picks %(name)s, who banks %(bank)s.");
      } else text = mine ? pgettext("house rule", "You win the bank with ×%(bid)s and bank %(bank)s.") : pgettext("house rule", "%(name)s wins the bank with ×%(bid)s and banks %(bank)s.");
      const lines = [ctx.line(fmt(text, p), { mine })];
      if (e.mult > 1) lines.push(ctx.line(fmt(pgettext("house rule", "Every stake against this bank counts ×%(mult)s, win or lose, while %(name)s holds it."), p)));
      if (e.mult < e.bid) lines.push(ctx.line(fmt(pgettext("house rule", "The bid was lowered to ×%(mult)s: no challenger's stack could cover a stake at ×%(bid)s."), p)));
      return lines;
    }
    case "auction_due":
      return [ctx.line(pgettext("house rule", "The bank will be bid for at the start of the next hand."))];
    default:
      return null;
  }
}
