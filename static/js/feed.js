// The table log in words: every engine event (docs/protocol.md, "Events") told as one or more lines, for the live
// table's feed (table.js) and the hand record (hand.js), so both tell a hand the same way. A teller reads the events
// of a hand in order and keeps what later lines need (the banker, who left, the hands revealed); each line is a
// pure function of the events before it and of the hands as they end up, so a feed rebuilt from a snapshot's
// events tells the same lines as the live one did.
import { describe } from "./cards.js";
import { number } from "./format.js";
import { fmt, gettext, ngettext, pgettext } from "./i18n.js";

/** The hand classes' names (the engine's `Eval.cls`), shared by the table and the log. */
export const CLASS_NAMES = () => ({
  "ten-and-a-half": gettext("ten and a half"), "five-dragons": gettext("five dragons"),
  "seven-and-a-half": gettext("seven and a half"), natural: gettext("natural"), "five-small": gettext("five small"),
  "five-pictures": gettext("five pictures"), "heavenly-king": gettext("heavenly king"), "six-small": gettext("six small"),
  "seven-small": gettext("seven small"), "eight-small": gettext("eight small"), "nine-small": gettext("nine small"),
  "grand-heavenly-king": gettext("grand heavenly king"), "five-dragon": gettext("Five Dragon"),
  "ban-luck": gettext("Ban-Luck"), "ban-ban": gettext("Ban-Ban"), "five-card-bust": gettext("five-card bust"),
});

/** 10.5 -> "10½", 0.5 -> "½". */
export function showTotal(total) {
  return String(total).replace(/\.5$/, "½").replace(/^0½$/, "½");
}

/** The outcomes' words, shared by the table, the replayer and the screen-reader mode. */
export const OUTCOMES = () => ({ win: gettext("win"), lose: gettext("lose"), push: gettext("push"), void: gettext("void") });

/** Items as a list in the page's language ("A, B, C"; 甲、乙). */
export const list = (items) => items.join(pgettext("between the items of a list", ", "));
const cardList = (codes) => list(codes.map(describe));

/** A hand as words: "9½", "ten and a half (10½)", "bust with 12". `h`: {total, class, bust}. */
function handWords(h) {
  if (h.bust) return fmt(gettext("bust with %(total)s"), { total: showTotal(h.total) });
  const cls = h.class && h.class !== "ordinary" ? CLASS_NAMES()[h.class] || h.class : null;
  return cls ? fmt(gettext("%(class)s (%(total)s)"), { class: cls, total: showTotal(h.total) }) : showTotal(h.total);
}

// A hand's card count: the reveal lists the cards, `handOf` counts them.
const count = (h) => (Array.isArray(h.cards) ? h.cards.length : h.cards);
const className = (cls) => CLASS_NAMES()[cls] || cls;
const named = (cls) => !!cls && cls !== "ordinary" && cls !== "bust" && !!CLASS_NAMES()[cls];
// The classes that beat every other hand but their own kind (ten-half.md, ban-luck.md "Five Dragon").
const DRAGONS = new Set(["five-dragons", "five-dragon"]);
// zhejiang.md "Hand classes, highest first" (games/engine/variants/zhejiang.py, RANK).
const ZHEJIANG_RANK = ["ordinary", "ten-and-a-half", "five-small", "five-pictures", "heavenly-king", "six-small",
  "seven-small", "eight-small", "nine-small", "grand-heavenly-king"];

const WHY = () => ({
  bank_empty: gettext("the bank was empty"), backed_hand_void: gettext("the backed hand was void"),
  escaped: gettext("left during the hand"), banker_escaped: gettext("the banker left during the hand"),
  mort: gettext("the Mort did not make seven and a half"),
});

const BANK_CLOSED = () => ({
  left: gettext("the banker left"), retired: gettext("retired"), passed: gettext("passed on"),
  taken: gettext("taken over"), rotation: gettext("the bank moves on"), stepped_down: gettext("stepped down"),
});

/**
 * A teller for one viewer. `name(seatId)`: a seat's name. `you()`: the viewer's seat id (or null). `game()`: the
 * game's slug (how ties are broken differs). `handOf(seat,
 * index)`: that hand as the viewer sees it now ({cards: count, total, class, bust}) or null when a card of it is
 * hidden from the viewer; only asked about hands that can no longer change (busted, or settled).
 * `tell(event)` returns its lines: {type, text, seat, cards (codes to draw), mine (about the viewer: announced),
 * minor (a detail), fair (a step of the fair deal: the table lists it in its "Fair deal" tab, not in the feed), outcome
 * (a result's)}; [] for an event with nothing to tell. A bet is told once, when it is placed (confirmed, defaulted):
 * the amounts on the way there (`bet_changed`, `side_bet_changed`) are the bet box's, not news.
 */
export function createTeller({ name, you = () => null, game = () => null, handOf = () => null, house = [] }) {
  let banker = null;
  let leaving = new Set();
  let revealed = {}; // seat -> [{cards, total, class, bust}] once every hand is turned up
  let shown = {}; // seat -> the card lists of its hands turned up early (hand_shown)
  let counts = {}; // seat -> per hand: {n: cards dealt, hidden: cards the viewer did not see}
  let whys = {}; // "seat/hand" -> the engine's reason for a main bet settled (`why`), for the side bets that follow it

  const hands = (seat) => (counts[seat] = counts[seat] || []);
  const handAt = (seat, i) => (hands(seat)[i] = hands(seat)[i] || { n: 0, hidden: 0 });

  function line(e, text, extra = {}) {
    const seat = e.seat === undefined ? null : e.seat;
    return { type: e.type, text, seat, cards: [], mine: false, minor: false, fair: false, ...extra };
  }

  /** The class of the banker's two cards turned up at the deal (ban-luck.md: two aces are Ban-Ban, else Ban-Luck). */
  function bankSpecial() {
    const cards = (shown[banker] || [[]])[0] || [];
    if (!cards.length) return null;
    return cards.length === 2 && cards.every((c) => c[0] === "A") ? "ban-ban" : "ban-luck";
  }

  /** Why a Chinese Blackjack special settled a bet right after the deal (ban-luck.md, "Deal and specials"). */
  function specialReason(seat, index, r) {
    const h = handOf(seat, index);
    const mine = h && named(h.class) ? h.class : null;
    const bank = bankSpecial();
    if (r.why === "banker_special") {
      if (mine) return fmt(gettext("the bank's %(bank)s beats %(hand)s"), { bank: className(bank), hand: className(mine) });
      return fmt(gettext("the bank was dealt %(class)s, which beats every hand without an equal special"), { class: className(bank) });
    }
    if (!mine) return gettext("a special hand");
    if (r.outcome === "push" && bank) {
      return fmt(gettext("%(hand)s against the bank's %(bank)s: a tie is a push"), { hand: className(mine), bank: className(bank) });
    }
    if (bank) return fmt(gettext("%(hand)s beats the bank's %(bank)s"), { hand: className(mine), bank: className(bank) });
    return fmt(gettext("dealt %(class)s: a special is paid at once, before anyone draws"), { class: className(mine) });
  }

  /** The reason a main bet settled as it did, from the hands as they were compared (each game's rules file,
   * "Comparing"): a bust, the bank's bust, a class that beats the other, the totals, a tie and who takes it. */
  function reason(seat, index, r) {
    if (r.why === "bust") {
      const h = handOf(seat, index);
      return h ? fmt(gettext("bust with %(total)s"), { total: showTotal(h.total) }) : gettext("bust");
    }
    if (r.why === "special" || r.why === "banker_special") return specialReason(seat, index, r);
    if (r.why) return WHY()[r.why] || null;
    const c = (revealed[seat] || [])[index];
    const b = (revealed[banker] || [])[0];
    if (!c || !b) return null;
    const g = game();
    const o = { hand: handWords(c), bank: handWords(b) };
    if (c.bust) {
      return b.bust ? fmt(gettext("bust with %(total)s: a bust loses even when the bank busts too"), { total: showTotal(c.total) })
        : fmt(gettext("bust with %(total)s"), { total: showTotal(c.total) });
    }
    if (b.bust) return fmt(gettext("the bank busts with %(total)s"), { total: showTotal(b.total) });
    const by = (rule) => fmt({ win: gettext("%(hand)s beats the bank's %(bank)s: %(rule)s"),
      lose: gettext("the bank's %(bank)s beats %(hand)s: %(rule)s") }[r.outcome]
      || gettext("%(hand)s against the bank's %(bank)s: %(rule)s"), { ...o, rule });
    // ten-half.md step 3, ban-luck.md "Five Dragon": five cards that did not bust beat every other hand; two of them
    // compare by total (Ten and a Half) or push (Chinese Blackjack).
    const c5 = DRAGONS.has(c.class);
    const b5 = DRAGONS.has(b.class);
    if (c5 && b5 && r.outcome === "push") {
      return fmt(gettext("%(hand)s against the bank's %(bank)s: a tie is a push"), { hand: className(c.class), bank: className(b.class) });
    }
    if (c5 !== b5) return by(fmt(gettext("%(class)s beats every other hand"), { class: className(c5 ? c.class : b.class) }));
    // zhejiang.md step 3: the higher class wins, whatever the totals.
    if (g === "zhejiang-ten-half" && c.class !== b.class) {
      const [high, low] = ZHEJIANG_RANK.indexOf(c.class) > ZHEJIANG_RANK.indexOf(b.class) ? [c.class, b.class] : [b.class, c.class];
      return by(low === "ordinary" ? fmt(gettext("%(high)s ranks above an ordinary hand"), { high: className(high) })
        : fmt(gettext("%(high)s ranks above %(low)s"), { high: className(high), low: className(low) }));
    }
    // seven-half.md "Settling": the bank's 7½ beats every standing hand, a natural too.
    if (g === "seven-half" && r.outcome === "lose" && b.total === 7.5 && c.class === "natural") {
      return by(gettext("the bank's 7½ beats every hand, naturals too"));
    }
    // zhejiang.md step 4: the same class and total, the hand with more cards wins; elsewhere the bank wins ties.
    const tied = c.total === b.total && c.class === b.class;
    const moreCards = tied && g === "zhejiang-ten-half" && count(c) !== count(b);
    if (r.outcome === "win") {
      if (moreCards) return fmt(gettext("tie at %(total)s: the hand with more cards wins"), { total: showTotal(c.total) });
      return fmt(gettext("%(hand)s beats the bank's %(bank)s"), o);
    }
    if (r.outcome === "push") return fmt(gettext("%(hand)s against the bank's %(bank)s: a tie is a push"), o);
    if (r.outcome === "lose") {
      if (moreCards) return fmt(gettext("tie at %(total)s: the hand with more cards wins"), { total: showTotal(c.total) });
      if (tied) return fmt(gettext("tie at %(total)s: the bank wins ties"), { total: showTotal(c.total) });
      if (g === "ten-half" && c.total === b.total + 0.5) {
        // ten-half.md step 4: the bank's total counts ½ more when compared, so half a point ahead is still a tie, whatever
        // the class (a 10½ loses to the bank's 10).
        return fmt(gettext("%(hand)s against the bank's %(bank)s: the bank counts half a point more"), o);
      }
      return fmt(gettext("the bank's %(bank)s beats %(hand)s"), o);
    }
    return null;
  }

  /** Why a win or a loss counts more than the stake: the class whose multiplier the game pays (ten-half.md,
   * zhejiang.md, seven-half.md, ban-luck.md: the winner's class; Chinese Blackjack's banker's class, and a bust on the
   * fifth card, and the bank's special when it wins; Zhejiang's `banker_multiplies`). */
  function payout(seat, index, r) {
    if (!(r.multiplier > 1) || (r.outcome !== "win" && r.outcome !== "lose")) return null;
    const m = { mult: r.multiplier };
    let c = (revealed[seat] || [])[index];
    let b = (revealed[banker] || [])[0];
    if (r.why === "special" || r.why === "banker_special" || r.why === "bust") {
      c = handOf(seat, index);
      b = r.why === "banker_special" ? { class: bankSpecial(), cards: 2 } : null;
    }
    const fiveCardBust = (h) => !!h && h.bust && game() === "ban-luck" && count(h) >= 5;
    let own = null;
    let bank = null;
    if (r.outcome === "win") {
      // ban-luck.md: a banker's bust pays what the bust costs (×2 on the fifth card), unless a Five Dragon won first.
      if (game() === "ban-luck" && b && b.bust && !(c && DRAGONS.has(c.class))) bank = fiveCardBust(b) ? "five-card-bust" : null;
      else own = c && c.class;
    } else if (c && c.bust) {
      own = fiveCardBust(c) ? "five-card-bust" : null;
    } else {
      bank = b && b.class;
    }
    if (r.outcome === "win") {
      if (named(own)) return fmt(gettext("%(class)s pays ×%(mult)s"), { ...m, class: className(own) });
      if (named(bank)) return fmt(gettext("the bank's %(class)s pays ×%(mult)s"), { ...m, class: className(bank) });
      return fmt(gettext("this room's rules pay ×%(mult)s"), m);
    }
    if (named(own)) return fmt(gettext("%(class)s costs ×%(mult)s"), { ...m, class: className(own) });
    if (named(bank)) return fmt(gettext("the bank's %(class)s takes ×%(mult)s"), { ...m, class: className(bank) });
    return fmt(gettext("this room's rules take ×%(mult)s"), m);
  }

  /** The reason and the multiplier's, in one clause. */
  function because(seat, index, r) {
    const why = reason(seat, index, r);
    const pays = payout(seat, index, r);
    if (why && pays) return fmt(gettext("%(reason)s; %(payout)s"), { reason: why, payout: pays });
    return why || pays;
  }

  function settled(e) {
    const side = e.kind === "side";
    const many = !side && hands(e.bettor).length > 1;
    const who = side ? fmt(gettext("%(name)s's side bet on %(backs)s"), { name: name(e.bettor), backs: name(e.backs) })
      : many ? fmt(gettext("%(name)s's hand %(n)s"), { name: name(e.bettor), n: e.hand + 1 }) : name(e.bettor);
    // A side bet follows the backed hand's result, and so its reason (a special, a bust settled at once...).
    if (!side) whys[`${e.bettor}/${e.hand}`] = e.why;
    let why = because(e.backs, e.hand, side && !e.why ? { ...e, why: whys[`${e.backs}/${e.hand}`] } : e);
    if (side && !e.why) {
      why = why ? fmt(gettext("it follows %(backs)s's hand: %(why)s"), { backs: name(e.backs), why })
        : fmt(gettext("it follows %(backs)s's hand"), { backs: name(e.backs) });
    }
    const o = { who, mult: e.multiplier, paid: number(e.paid), stake: number(e.stake), why: why || "" };
    const short = { paid: number(e.paid), due: number(e.due) };
    let text;
    if (e.outcome === "win") {
      text = why ? fmt(gettext("%(who)s wins ×%(mult)s, +%(paid)s: %(why)s."), o) : fmt(gettext("%(who)s wins ×%(mult)s, +%(paid)s."), o);
      if (e.paid < e.due) text += " " + fmt(gettext("The bank held only %(paid)s of the %(due)s due."), short);
    } else if (e.outcome === "lose") {
      text = why ? fmt(gettext("%(who)s loses ×%(mult)s, −%(paid)s: %(why)s."), o) : fmt(gettext("%(who)s loses ×%(mult)s, −%(paid)s."), o);
      if (e.paid < e.due) text += " " + fmt(gettext("Only %(paid)s of the %(due)s due: nobody loses more than their stack."), short);
    } else if (e.outcome === "push") {
      text = why ? fmt(gettext("%(who)s: push, the stake of %(stake)s stays: %(why)s."), o) : fmt(gettext("%(who)s: push, the stake of %(stake)s stays."), o);
    } else {
      text = why ? fmt(gettext("%(who)s: void, the stake of %(stake)s goes back: %(why)s."), o) : fmt(gettext("%(who)s: void, the stake of %(stake)s goes back."), o);
    }
    return line(e, text, { seat: e.bettor, mine: e.bettor === you(), outcome: e.outcome });
  }

  function action(e) {
    const n = { name: name(e.seat) };
    if (e.timeout) {
      const timed = {
        stand: gettext("Time ran out for %(name)s: stands."), hit: gettext("Time ran out for %(name)s: draws (must hit)."),
        mort_decline: gettext("Time ran out for %(name)s: declines the Mort."),
      }[e.action];
      if (timed) return fmt(timed, n);
    }
    if (leaving.has(e.seat)) {
      const left = {
        stand: gettext("%(name)s has left: stands by default."), hit: gettext("%(name)s has left: draws by default."),
        mort_decline: gettext("%(name)s has left: declines the Mort."),
      }[e.action];
      if (left) return fmt(left, n);
    }
    const text = {
      hit: gettext("%(name)s hits."), stand: gettext("%(name)s stands."), double: gettext("%(name)s doubles."),
      split: gettext("%(name)s splits."), mort_accept: gettext("%(name)s accepts the Mort."),
      mort_decline: gettext("%(name)s declines the Mort."),
    }[e.action];
    return text ? fmt(text, n) : null; // an action this page does not know yet
  }

  function dealt(e) {
    const h = handAt(e.seat, e.hand || 0);
    h.n += 1;
    const n = { name: name(e.seat), card: e.card ? describe(e.card) : "" };
    let text;
    if (!e.card) {
      h.hidden += 1;
      text = fmt(gettext("%(name)s is dealt a face-down card."), n);
    } else {
      text = fmt(e.face === "down" ? gettext("%(name)s is dealt %(card)s, face down.") : gettext("%(name)s is dealt %(card)s, face up."), n);
    }
    const mine = e.seat === you();
    const out = [line(e, text, { cards: e.card ? [e.card] : [], mine })];
    // A bust is told with the card that made it, when the viewer saw every card of the hand (otherwise the hand's
    // total is news only once it is turned up: the reveal and the settlement say it).
    const now = h.hidden ? null : handOf(e.seat, e.hand || 0);
    if (now && now.bust && now.cards === h.n) {
      out.push(line(e, fmt(gettext("%(name)s busts with %(total)s."), { name: name(e.seat), total: showTotal(now.total) }), { mine }));
    }
    return out;
  }

  // Events told by one sentence of their own fields (`name`: the seat's name, `backs`: the backed seat's, `n`: the
  // hand number); the minor ones are details.
  const SIMPLE = () => ({
    seat_leaving: gettext("%(name)s is leaving: default actions until this hand is over."),
    seat_left: gettext("%(name)s leaves the table with %(stack)s."),
    seat_escaped: gettext("%(name)s leaves during the hand and forfeits."),
    rules_changed: gettext("The room's rules change from hand %(n)s."),
    bet_confirmed: gettext("%(name)s bets %(amount)s."),
    side_bet_confirmed: gettext("%(name)s side-bets %(amount)s on %(backs)s."),
    side_bet_skipped: gettext("%(name)s places no side bet."),
    stake_doubled: gettext("%(name)s's stake is now %(stake)s."),
    hand_split: gettext("%(name)s plays two hands of %(stake)s each."),
    hand_settled: gettext("Settled: the bank holds %(bank)s."),
    jackpot_seeded: gettext("%(name)s seeds the jackpot with %(amount)s; it holds %(jackpot)s."),
    jackpot_won: gettext("%(name)s wins the jackpot: %(amount)s."),
    jackpot_returned: gettext("The jackpot of %(amount)s goes back to %(name)s."),
    hand_over: gettext("Hand %(n)s is over; its server seed is revealed."),
    seed_committed: gettext("The server's seed for hand %(n)s is committed."),
    seed_received: gettext("%(name)s's seed goes into the deal of hand %(n)s."),
    seed_awaited: gettext("The deal waits a moment for %(name)s's seed."),
    seed_missing: gettext("%(name)s's seed did not come: the deal of hand %(n)s uses the one the server seed fixes."),
    bank_opened: gettext("%(name)s opens the bank with %(amount)s."), bank_declined: gettext("%(name)s declines the bank."),
    bank_taken: gettext("%(name)s takes the bank."), bank_passed: gettext("%(name)s passes the bank."),
    bank_refilled: gettext("%(name)s refills the bank with %(amount)s; it holds %(bank)s."),
    bank_retire_requested: gettext("%(name)s retires from the bank after this hand."),
    bank_cannot_cover: gettext("%(name)s's bank of %(bank)s cannot cover the table (it needs %(cover)s): the bank moves on."),
    banker_steps_down: gettext("%(name)s lost chips as the banker and steps down."),
    bank_vacant: gettext("Nobody holds the bank: any player may open it."),
  });
  const MINOR = new Set(["seed_committed", "seed_received", "seed_awaited", "shoe_reshuffled"]);
  // The fair deal's steps (docs/fairness.md): told for the table's "Fair deal" tab and the hand's record, not its feed.
  const FAIR = new Set(["seed_committed", "seed_received", "seed_awaited", "seed_missing", "hand_over"]);
  // The events' fields that are chips, grouped the page language's way in the lines (format.js).
  const AMOUNTS = ["amount", "bank", "stack", "stake", "jackpot", "cover", "returned", "paid", "due"];

  function tell(e) {
    const n = { ...e, name: name(e.seat), backs: name(e.backs), n: e.hand_no === undefined ? e.from_hand : e.hand_no };
    for (const k of AMOUNTS) if (typeof e[k] === "number") n[k] = number(e[k]);
    const one = (text, extra = {}, params = n) => [line(e, fmt(text, params), { minor: MINOR.has(e.type), fair: FAIR.has(e.type), ...extra })];
    if (e.type === "auction_won") banker = e.seat; // the bank auction's winner banks this hand (house-auction.js)
    // A house rule's own events are told by its module (static/js/house.js), which the page loads with the room's rules.
    for (const m of house) {
      const lines = m.tell ? m.tell(e, { name, you, banker: () => banker, n, line: (text, extra = {}) => line(e, text, extra), fmt, number, gettext, ngettext, pgettext }) : null;
      if (lines) return lines;
    }
    switch (e.type) {
      case "hand_started":
        banker = e.banker;
        leaving = new Set();
        revealed = {};
        shown = {};
        counts = {};
        whys = {};
        if (!e.banker) return one(gettext("Hand %(n)s starts with the bank auction: the bank goes to the highest bid.")); // house-rules.md
        return one(gettext("Hand %(n)s starts: %(banker)s banks %(bank)s, base stake %(base)s."), {},
          { ...n, banker: name(e.banker), base: number(e.base_stake) });
      case "seat_joined":
        n.name = e.name;
        return one(e.bot ? gettext("%(name)s (a bot) sits down with %(stack)s.") : e.role === "side"
          ? gettext("%(name)s sits down as a side bettor with %(stack)s.") : gettext("%(name)s sits down with %(stack)s."));
      case "seat_leaving":
        leaving.add(e.seat);
        break;
      case "seat_updated": {
        const out = [];
        if (e.name !== undefined) out.push(fmt(gettext("A player is now called %(name)s."), { name: e.name }));
        if (e.host === true) out.push(fmt(gettext("%(name)s is now the host."), n));
        if (e.no_bank === true) out.push(fmt(gettext("%(name)s takes the bank only when offered."), n));
        const lines = out.map((text) => line(e, text, { minor: true }));
        // Away and back are news for everyone at the table (docs/rules.md, "Away"), with the reason it was marked.
        if (e.away === true) {
          const away = { disconnected: gettext("%(name)s is not connected and sits out until they are back."),
            host: gettext("The host sits %(name)s out until they are back.") }[e.why]
            || gettext("%(name)s is away and sits out the next hands.");
          lines.unshift(line(e, fmt(away, n), { mine: e.seat === you() }));
        }
        if (e.away === false) lines.unshift(line(e, fmt(gettext("%(name)s is back."), n)));
        return lines;
      }
      case "seat_left":
        if (e.why === "away") {
          return one(ngettext("%(name)s leaves the table after %(minutes)s minute away, with %(stack)s.",
            "%(name)s leaves the table after %(minutes)s minutes away, with %(stack)s.", e.minutes), {}, { ...n, minutes: e.minutes });
        }
        break;
      case "seat_sits_out":
        return one(e.why === "away" ? gettext("%(name)s is away and sits this hand out.")
          : gettext("%(name)s sits this hand out: the stack cannot cover a stake."));
      case "stack_topped_up":
        return one(e.into === "bank" ? gettext("%(name)s tops up the bank with %(amount)s.") : gettext("%(name)s tops up %(amount)s."));
      case "bet_defaulted":
        // Only two things place a default stake: the betting timer, or the seat leaving (its seat_leaving came first).
        return one(leaving.has(e.seat) ? gettext("%(name)s has left: default stake %(amount)s.")
          : gettext("Time ran out for %(name)s: default stake %(amount)s."), { mine: e.seat === you() });
      case "dice_rolled":
        return one(gettext("Dice: %(a)s + %(b)s = %(total)s."), {}, { a: e.dice[0], b: e.dice[1], total: e.total });
      case "betting_closed":
        return [line(e, fmt(gettext("Betting closes. Order of play: %(order)s."), { order: e.order.map(name).join(pgettext("between the items of a list", ", ")) }))];
      case "card_dealt": return dealt(e);
      case "card_discarded": {
        const h = handAt(e.seat, e.hand || 0);
        h.n = Math.max(0, h.n - 1);
        if (!e.card) h.hidden = Math.max(0, h.hidden - 1);
        return e.card ? one(gettext("%(name)s discards %(card)s."), { cards: [e.card] }, { ...n, card: describe(e.card) })
          : one(gettext("%(name)s discards a face-down card."));
      }
      case "turn_started":
        return e.seat === you() ? one(gettext("Your turn."), { mine: true }) : one(gettext("%(name)s's turn."), { minor: true });
      case "action": {
        if (e.action === "split") {
          // seven-half.md: the second card becomes a hand of its own, right after this one.
          handAt(e.seat, e.hand).n -= 1;
          hands(e.seat).splice(e.hand + 1, 0, { n: 1, hidden: 0 });
        }
        const text = action(e);
        return text === null ? [] : [line(e, text, { mine: !!e.timeout && e.seat === you() })];
      }
      case "hand_shown": {
        const lists = e.cards || [];
        const first = e.hand === null || e.hand === undefined ? 0 : e.hand;
        shown[e.seat] = lists;
        lists.forEach((codes, k) => { handAt(e.seat, first + k).hidden = 0; });
        return [line(e, fmt(gettext("%(name)s turns up %(cards)s."), { ...n, cards: lists.map(cardList).join(" / ") }),
          { cards: lists.flat() })];
      }
      case "shoe_reshuffled":
        return one(ngettext("The discards are shuffled into a new stock of %(n)s card.",
          "The discards are shuffled into a new stock of %(n)s cards.", e.cards), {}, { n: e.cards });
      case "bet_settled": return [settled(e)];
      case "hand_revealed": {
        revealed = e.hands;
        const out = [line(e, gettext("Every hand is turned up."))];
        for (const seat of e.order) {
          const list = e.hands[seat] || [];
          list.forEach((hand, k) => {
            const o = { who: list.length > 1 ? fmt(gettext("%(name)s's hand %(n)s"), { name: name(seat), n: k + 1 }) : name(seat),
              cards: cardList(hand.cards), hand: handWords(hand) };
            const text = seat === banker ? gettext("%(who)s (bank): %(cards)s, %(hand)s.") : gettext("%(who)s: %(cards)s, %(hand)s.");
            out.push(line({ type: "hand_revealed", seat }, fmt(text, o), { cards: hand.cards }));
          });
        }
        return out;
      }
      case "bank_offered":
        return one({ take: gettext("%(name)s may take the bank."), refill: gettext("The bank is empty: %(name)s may refill it or pass it.") }[e.kind]
          || gettext("The bank is offered to %(name)s."));
      case "bank_closed":
        return one(gettext("%(name)s's bank closes (%(why)s): %(returned)s go back to the stack."), {},
          { ...n, why: BANK_CLOSED()[e.why] || "" });
      case "bank_term_over":
        return [line(e, fmt(ngettext("%(name)s has banked %(hands)s hand: the bank moves on.",
          "%(name)s has banked %(hands)s hands: the bank moves on.", e.hands), n))];
      case "bank_turn_over":
        return [line(e, fmt(ngettext("%(name)s's turn at the bank is over after %(hands)s hand: the bank passes on.",
          "%(name)s's turn at the bank is over after %(hands)s hands: the bank passes on.", e.hands), n))];
      case "bank_draw": {
        const draws = Object.entries(e.cards).map(([seat, code]) => fmt(gettext("%(name)s: %(card)s"), { name: name(seat), card: describe(code) }));
        return [line(e, fmt(gettext("A card each for the first bank: %(draws)s. %(name)s banks."),
          { draws: draws.join(pgettext("between the items of a list that has commas", "; ")), name: name(e.winner) }), { cards: Object.values(e.cards) })];
      }
    }
    const text = SIMPLE()[e.type];
    return text ? one(text) : []; // an event this page does not know yet says nothing
  }

  return { tell };
}

/** Every line of `events` in order, told by one new teller (the hand record; a feed rebuilt from a snapshot). */
export function tellAll(events, options) {
  const teller = createTeller(options);
  return { teller, lines: events.flatMap((e) => teller.tell(e)) };
}
