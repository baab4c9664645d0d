"""Zhejiang Ten and a Half (rules/zhejiang.md): 54 cards, picture cards, special hands up to x10."""

from ..errors import RulesError, gettext_noop
from .base import LOSE, WIN, Eval, OwnSetting, Variant
from .ten_half import POINTS as _TEN_HALF_POINTS

POINTS = dict(_TEN_HALF_POINTS, BJ=1, RJ=1)  # both jokers are picture cards worth ½
PICTURES = frozenset(c for c in POINTS if c in ("BJ", "RJ") or c[0] in "JQK")

# zhejiang.md "Hand classes, highest first": the rank orders classes for step 3 of the comparison.
RANK = {name: i for i, name in enumerate(reversed((
    "grand-heavenly-king", "nine-small", "eight-small", "seven-small", "six-small", "heavenly-king",
    "five-pictures", "five-small", "ten-and-a-half", "ordinary")))}
_SMALL = {6: "six-small", 7: "seven-small", 8: "eight-small", 9: "nine-small"}
MODE_MAX_CARDS = {"classic": 5, "extended": 9}  # the extended mode adds the six-to-nine-card hands


class Zhejiang(Variant):
    slug = "zhejiang-ten-half"
    deck = "french-54"
    main_seats = (2, 4)
    payout_classes = ("ordinary", "ten-and-a-half", "five-small", "five-pictures", "heavenly-king", "six-small",
                      "seven-small", "eight-small", "nine-small", "grand-heavenly-king")
    own_settings = (OwnSetting("double_once", gettext_noop("is a Zhejiang rule (Seven and a Half has double_down)")),
                    OwnSetting("banker_multiplies", gettext_noop("is a Zhejiang house rule")))
    target = 21
    basic_threshold = 16
    simulation_overrides = {"base_stake_rule": "fixed"}

    def check_rules(self, rules):
        if rules.max_cards is None:
            raise RulesError("max_cards", gettext_noop("%(game)s needs a card limit"), {"game": self.slug})
        want = MODE_MAX_CARDS[rules.mode]
        if rules.max_cards != want:
            raise RulesError("max_cards", gettext_noop("the %(mode)s mode holds at most %(max)s cards"),
                              {"mode": rules.mode, "max": want})

    def implied_overrides(self, overrides, preset):
        # Setting {"mode": "extended"} alone also moves max_cards to 9.
        if "mode" in overrides and "max_cards" not in overrides and isinstance(overrides["mode"], str):
            return {"max_cards": MODE_MAX_CARDS.get(overrides["mode"], preset["max_cards"])}
        return {}

    def fast_simulation(self, rules):
        return True

    def points(self, code):
        return POINTS[code]

    def classify(self, cards, total, rules) -> str:
        n = len(cards)
        extended = rules.mode == "extended"
        if extended and n >= 6:
            return "grand-heavenly-king" if n == 9 and total == 21 else _SMALL[n]
        if n == 5:
            if extended and total == 21:
                return "heavenly-king"
            if all(c in PICTURES for c in cards):
                return "five-pictures"
            if extended or total < 21:
                return "five-small"
            return "ten-and-a-half"  # classic: five cards making exactly 10½ are "ten and a half"
        return "ten-and-a-half" if total == 21 else "ordinary"

    def evaluate(self, cards, rules):
        total = 0
        for c in cards:
            total += POINTS[c]
        if total > 21:
            return Eval("bust", total, len(cards), True, 1, -1)
        cls = self.classify(cards, total, rules)
        return Eval(cls, total, len(cards), False, rules.payout(cls), RANK[cls])

    def compare(self, c, b, rules):
        # zhejiang.md "Comparing": a winning challenger is paid their own class's multiplier; the banker has
        # none (莊家沒有翻倍), so a losing challenger pays the stake, unless the room's house rule
        # banker_multiplies pays a banker who wins "with a special hand" its class's multiplier: an ordinary hand
        # stays at the stake even where the room raised the ordinary payout (a challenger's alone).
        lose = (LOSE, b.mult if rules.banker_multiplies and b.cls != "ordinary" else 1)
        if c.bust:
            return lose  # both bust: the banker wins (a bust is worth x1)
        if b.bust:
            return WIN, c.mult
        if (c.rank, c.total, c.n) > (b.rank, b.total, b.n):
            return WIN, c.mult
        return lose  # same class, total and count: the banker wins

    def visibility(self, hand, is_banker, in_turn, rules):
        # "the first card is hidden from everyone else"; the others are dealt face up.
        return "own" if not hand["cards"] else "up"

    def extra_actions(self, table, seat, hand, ev):
        # 加注: once per hand, challengers only, and only with the chips to cover the doubled stake.
        if (table.rules.double_once and seat != table.s.banker and not hand.get("doubled")
                and table.stack(seat) >= 2 * hand["stake"]):
            return ["double"]
        return []
