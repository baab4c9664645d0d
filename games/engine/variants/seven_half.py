"""Seven and a Half (rules/seven-half.md): the Spanish 40-card shoe, one face-down card at most, the
bank last, a bust lost at once, and the optional house rules (double, split, 4 discard, secret pair, Mort)."""

from ..errors import RulesError
from .base import LOSE, WIN, Eval, OwnSetting, Variant

POINTS = {}
for _suit in "OCEB":
    for _v in range(1, 8):
        POINTS[f"{_v}{_suit}"] = 2 * _v
    for _rank in "JNK":
        POINTS[_rank + _suit] = 1  # jack, knight and king count ½
FIGURES = frozenset(c for c in POINTS if c[0] in "JNK")


class SevenHalf(Variant):
    slug = "seven-half"
    deck = "spanish-40"
    main_seats = (2, 8)
    payout_classes = ("ordinary", "seven-and-a-half", "natural")
    own_settings = (
        OwnSetting("jackpot_enabled", "the jackpot is a Seven and a Half rule"),
        # The draw ranks Spanish cards (seven-half.md "Choosing the first bank"; machine._draw_rank).
        OwnSetting("first_banker", "a card draw for the first bank is a Seven and a Half rule", on="draw"),
        *(OwnSetting(name, "is a Seven and a Half house rule")
          for name in ("house_rules", "double_down", "split", "four_discard", "secret_pair", "mort")),
        # house-rules.md "The matta": the wild card of the Spanish deck.
        OwnSetting("matta", "the matta is a Seven and a Half house rule", on="king-of-coins"),
        OwnSetting("matta_natural", "the matta is a Seven and a Half house rule"))
    target = 15
    basic_threshold = 11  # stand from 5½
    bust_settles_at_once = True  # "turns the hand face up and loses at once, even if the bank busts later"
    shoe = True  # seven-half.md "Cards": the discards become a new stock when it runs out, even mid-hand
    covers_table = True  # seven-half.md "Moving the bank": a bank that cannot cover the table passes on

    def check_rules(self, rules):
        """Any card limit, or none (the knob's own minimum is 2). The bank by turns (house-rules.md) is refused:
        seven-half.md "Moving the bank" already passes the bank after `bank_max_hands` hands, to the next player
        who can cover it, and two limits on one bank would contradict each other."""
        if rules.bank_turn_hands:
            raise RulesError("bank_turn_hands", "Seven and a Half passes the bank by its own limit: set bank_max_hands")
        if rules.bank_auction:
            raise RulesError("bank_auction", "Seven and a Half's bank is drawn for and taken on 7½, not bid for")
        if rules.push_cap:
            raise RulesError("push_cap", "let it ride is a Ten and a Half rule")

    def smallest_bank(self, rules, challengers):
        return 2 * rules.base_stake * challengers  # seven-half.md: twice the base stake per challenger

    def points(self, code):
        return POINTS[code]

    def evaluate(self, cards, rules):
        total = 0
        for c in cards:
            total += POINTS[c]
        n = len(cards)
        if total > 15:
            return Eval("bust", total, n, True, 1, 0)
        if total == 15:
            # "a natural (7½ with exactly two cards) pays net x2"; a Mort that makes 7½ has two cards too.
            cls = "natural" if n == 2 else "seven-and-a-half"
            return Eval(cls, total, n, False, rules.payout(cls), 1)
        return Eval("ordinary", total, n, False, rules.payout("ordinary"), 1)

    def compare(self, c, b, rules):
        # seven-half.md "Settling"; losses are always x1.
        if c.bust:
            return LOSE, 1
        if b.bust:
            return WIN, c.mult
        if b.total == 15:
            return LOSE, 1  # the bank's 7½ beats every standing hand, naturals too
        if c.total > b.total:
            return WIN, c.mult
        return LOSE, 1  # equal totals go to the bank

    def visibility(self, hand, is_banker, in_turn, rules):
        if is_banker:
            return "up" if in_turn else "own"  # the bank's cards are hidden until the bank's turn
        # "A hand holds at most one face-down card".
        return "up" if any(c[1] == "own" for c in hand["cards"]) else "own"

    def turn_over(self, hand, ev, rules):
        return super().turn_over(hand, ev, rules) or hand["secret"] or hand["mort"] == "accepted"

    def on_turn_start(self, table, seat, index, hand):
        r = table.rules
        if seat == table.s.banker:
            table.reveal(seat)  # "the bank reveals its cards and hits or stands"
            return
        if hand["split"] or len(hand["cards"]) != 1:
            return
        # House rules act on the opening card when its turn begins (docs/rules.md, "Seven and a Half").
        if r.house("four_discard") and hand["cards"][0][0][0] == "4":
            table.discard(seat, index, 0)
            table.deal(seat, index, "own")  # replaced once: a second 4 stays
        elif r.house("secret_pair") and hand["cards"][0][0][0] == "3":
            table.discard(seat, index, 0)
            table.deal(seat, index, "own")
            table.deal(seat, index, "own")
            hand["secret"] = True  # two secret cards; the player may only stand
            hand["done"] = True
            return
        if r.house("mort") and hand["cards"][0][0][0] == "7":
            hand["mort"] = "offered"

    def extra_actions(self, table, seat, hand, ev):
        r, out = table.rules, []
        if seat == table.s.banker:
            return out
        spare = table.stack(seat) - table.committed(seat)
        if r.house("double_down") and len(hand["cards"]) == 1 and not hand["doubled"] and spare >= hand["stake"]:
            out.append("double")
        if (r.house("split") and len(hand["cards"]) == 2 and not hand["split"] and spare >= hand["stake"]
                and all(c[0] in FIGURES for c in hand["cards"])):
            out.append("split")
        return out

    def act(self, table, seat, index, hand, action, args):
        if action == "split":
            hands = table.hand["hands"][seat]
            second = hand["cards"].pop()
            hand["split"] = True
            new = dict(hand, cards=[second], split=True, opened=True, outcome=None)
            hands.insert(index + 1, new)
            table.emit("hand_split", seat=seat, stake=hand["stake"])
            return True
        if action == "mort_decline":
            hand["mort"] = "declined"
            return True
        if action == "mort_accept":
            hand["mort"] = "accepted"
            table.deal(seat, index, "own")
            ev = table.eval(seat, index)
            if ev.total != 15:
                # "unless the two cards make exactly 7½ the stake is lost at once"
                table.reveal(seat, index)
                table.settle_hand_now(seat, index, LOSE, 1, "mort")
            hand["done"] = True
            return True
        return False

    def after_settlement(self, table):
        s = table.s
        if s.jackpot <= 0:
            return
        h = table.hand
        for seat in h["order"]:
            if seat == s.banker:
                continue
            for ph in h["hands"][seat]:
                if self.evaluate([c[0] for c in ph["cards"]], table.rules).cls == "natural":
                    # "the first natural collects it whole (also against a busted bank)"
                    amount, s.jackpot = s.jackpot, 0
                    s.jackpot_owner = None
                    s.seat(seat)["stack"] += amount
                    table.emit("jackpot_won", seat=seat, amount=amount, chips_in=0)
                    return
