"""Seven and a Half (rules/seven-half.md): the Spanish 40-card shoe, one face-down card at most, the
bank last, a bust lost at once, and the optional house rules (double, split, 4 discard, secret pair, Mort), and the
matta (house-rules.md: the king of coins wild, its value chosen by the engine; docs/rules.md, "The matta")."""

from ..errors import RulesError, gettext_noop
from .base import LOSE, WIN, Eval, OwnSetting, Variant

POINTS = {}
for _suit in "OCEB":
    for _v in range(1, 8):
        POINTS[f"{_v}{_suit}"] = 2 * _v
    for _rank in "JNK":
        POINTS[_rank + _suit] = 1  # jack, knight and king count ½
FIGURES = frozenset(c for c in POINTS if c[0] in "JNK")
MATTA = "KO"  # house-rules.md "The matta": the king of coins (re di denari, rey de oros)
MATTA_VALUES = (14, 12, 10, 8, 6, 4, 2, 1)  # 7 down to 1, then ½, in half points


def matta_units(others: int, n: int) -> int:
    """The matta's value in half points beside cards worth ``others``: alone (n == 1) ½; else the highest of
    ½, 1..7 that keeps the total at most 7½, or ½ when none does (the hand is bust whatever it takes)."""
    if n == 1:
        return 1
    room = 15 - others
    for value in MATTA_VALUES:
        if value <= room:
            return value
    return 1


class SevenHalf(Variant):
    slug = "seven-half"
    deck = "spanish-40"
    main_seats = (2, 8)
    payout_classes = ("ordinary", "seven-and-a-half", "natural")
    own_settings = (
        OwnSetting("jackpot_enabled", gettext_noop("the jackpot is a Seven and a Half rule")),
        # The draw ranks Spanish cards (seven-half.md "Choosing the first bank"; machine._draw_rank).
        OwnSetting("first_banker", gettext_noop("a card draw for the first bank is a Seven and a Half rule"),
                   on="draw"),
        *(OwnSetting(name, gettext_noop("is a Seven and a Half house rule"))
          for name in ("house_rules", "double_down", "split", "four_discard", "secret_pair", "mort")),
        # house-rules.md "The matta": the wild card of the Spanish deck.
        OwnSetting("matta", gettext_noop("the matta is a Seven and a Half house rule"), on="king-of-coins"),
        OwnSetting("matta_natural", gettext_noop("the matta is a Seven and a Half house rule")))
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
            raise RulesError("bank_turn_hands",
                             gettext_noop("Seven and a Half passes the bank by its own limit: set %(setting)s"),
                             {"setting": "bank_max_hands"})
        if rules.bank_auction:
            raise RulesError("bank_auction",
                             gettext_noop("Seven and a Half's bank is drawn for and taken on 7½, not bid for"))
        if rules.push_cap:
            raise RulesError("push_cap", gettext_noop("let it ride is a Ten and a Half rule"))

    def fast_simulation(self, rules):
        # simulate()'s fast path sums card points and knows neither the shoe, the house rules nor the matta's value:
        # every Seven and a Half hand is played through the machine (docs/rules.md, "The matta").
        return False

    def smallest_bank(self, rules, challengers):
        return 2 * rules.base_stake * challengers  # seven-half.md: twice the base stake per challenger

    def points(self, code):
        return POINTS[code]

    def evaluate(self, cards, rules):
        total = 0
        for c in cards:
            total += POINTS[c]
        n = len(cards)
        wild = rules.matta == "king-of-coins" and MATTA in cards
        if wild:
            total += matta_units(total - POINTS[MATTA], n) - POINTS[MATTA]
        if total > 15:
            return Eval("bust", total, n, True, 1, 0)
        if total == 15:
            # "a natural (7½ with exactly two cards) pays net x2"; a Mort that makes 7½ has two cards too.
            # house-rules.md "The matta": a two-card 7½ with the matta is a natural only with matta_natural on.
            cls = "natural" if n == 2 and (not wild or rules.matta_natural) else "seven-and-a-half"
            return Eval(cls, total, n, False, rules.payout(cls), 1)
        return Eval("ordinary", total, n, False, rules.payout("ordinary"), 1)

    def matta_value(self, cards, rules) -> int | None:
        """The value in half points the matta takes in ``cards`` (what ``evaluate`` counted), or None when the
        rule is off or the hand does not hold it (docs/rules.md, "The matta")."""
        if rules.matta != "king-of-coins" or MATTA not in cards:
            return None
        return matta_units(sum(POINTS[c] for c in cards if c != MATTA), len(cards))

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

    def after_draw(self, table, seat, index, hand, ev):
        if ev.bust and seat != table.s.banker:
            table.reveal(seat, index)  # the hand is turned face up and lost at once (seven-half.md "Play")
            self.tell_matta(table, seat, index, hand)  # face up: its matta's value is public now
            table.settle_hand_now(seat, index, LOSE, ev.mult, "bust")

    def tell_matta(self, table, seat, index, hand):
        """``matta_valued`` (docs/protocol.md) for a hand that holds the matta, once every card of it is face up:
        the value it took is then as public as the hand's total."""
        value = self.matta_value([c[0] for c in hand["cards"]], table.rules)
        if value is not None and all(c[1] == "up" for c in hand["cards"]):
            table.emit("matta_valued", seat=seat, hand=index, value=self.display_total(value))

    def after_settlement(self, table):
        s = table.s
        h = table.hand
        if table.rules.matta != "off":
            # Every hand is face up now; a challenger's bust told its matta when it was turned up (after_draw).
            for seat in h["order"]:
                for i, ph in enumerate(h["hands"][seat]):
                    if seat == s.banker or not self.evaluate([c[0] for c in ph["cards"]], table.rules).bust:
                        self.tell_matta(table, seat, i, ph)
        if s.jackpot <= 0:
            return
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
