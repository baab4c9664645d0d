"""Ten and a Half (rules/ten-half.md): 52 cards, one private card each, dice order, ½ to the banker."""

from ..errors import gettext_noop
from .base import LOSE, WIN, Eval, OwnSetting, Variant

# ten-half.md "Cards": A counts 1, 2..10 their value, J Q K count ½ (in half points: 2, 4..20, 1).
POINTS = {}
for _suit in "SHDC":
    for _rank, _value in (("A", 1), *((str(v), v) for v in range(2, 11))):
        POINTS[_rank + _suit] = 2 * _value
    for _rank in "JQK":
        POINTS[_rank + _suit] = 1


class TenHalf(Variant):
    slug = "ten-half"
    deck = "french-52"
    main_seats = (2, 4)
    payout_classes = ("ordinary", "ten-and-a-half", "five-dragons")
    own_settings = (OwnSetting("order_policy", gettext_noop("the dice order is part of Ten and a Half only"),
                               on="dice"),)
    target = 21
    basic_threshold = 16  # stand from 8

    def fast_simulation(self, rules):
        return True

    def points(self, code):
        return POINTS[code]

    def evaluate(self, cards, rules):
        total = sum(map(POINTS.__getitem__, cards))
        n = len(cards)
        if total > 21:
            return Eval("bust", total, n, True, 0, 0)
        if n >= 5:
            # "Bonuses never stack": five dragons that also total 10½ is still five dragons.
            return Eval("five-dragons", total, n, False, rules.payouts.get("five-dragons", 1), 2)
        if total == 21:
            return Eval("ten-and-a-half", total, n, False, rules.payouts.get("ten-and-a-half", 1), 1)
        return Eval("ordinary", total, n, False, rules.payouts.get("ordinary", 1), 1)

    def compare(self, c, b, rules):
        # ten-half.md "Comparing a challenger with the banker", steps 1-4; a loss always costs x1.
        if c.bust:
            return LOSE, 1
        if b.bust:
            return WIN, c.mult
        c5, b5 = c.cls == "five-dragons", b.cls == "five-dragons"
        if c5 != b5:
            return (WIN, c.mult) if c5 else (LOSE, 1)
        # ½ is added to the banker's total for comparison only; equal compared totals go to the banker.
        if c.total > b.total + 1:
            return WIN, c.mult
        return LOSE, 1

    def visibility(self, hand, is_banker, in_turn, rules):
        return "own"  # "Cards stay private during play"
