"""Chinese Blackjack / Ban Luck (rules/ban-luck.md): two cards, aces by hand size, specials paid at
once, must draw to 16, Five Dragon, and the banker's forced rule."""

from ..errors import RulesError
from .base import LOSE, PUSH, WIN, Eval, OwnSetting, Variant

TEN_VALUED = frozenset("10 J Q K".split())
POINTS = {}
for _suit in "SHDC":
    POINTS["A" + _suit] = 1
    for _v in range(2, 11):
        POINTS[f"{_v}{_suit}"] = _v
    for _rank in "JQK":
        POINTS[_rank + _suit] = 10


def best_total(cards) -> int:
    """ban-luck.md "Cards": an ace counts 1, 10 or 11 in a two-card hand, 1 or 10 in a three-card hand,
    1 with four or more; the best total not above 21, else the smallest."""
    base = 0
    aces = 0
    for c in cards:
        base += POINTS[c]
        if c[0] == "A":
            aces += 1
    n = len(cards)
    if not aces or n >= 4:
        return base
    extras = (0, 9, 10) if n == 2 else (0, 9)
    best = base
    totals = {base}
    for _ in range(aces):
        totals = {t + e for t in totals for e in extras}
    for total in totals:
        if best < total <= 21:
            best = total
    return best


class BanLuck(Variant):
    slug = "ban-luck"
    deck = "french-52"
    main_seats = (2, 7)
    payout_classes = ("ordinary", "five-dragon", "ban-luck", "ban-ban", "five-card-bust")
    own_settings = tuple(OwnSetting(name, "is a Chinese Blackjack rule")
                         for name in ("challenger_min_stand", "banker_forced_draw", "stake_third_of_stack",
                                      "banker_opens", "free_hand"))
    units = 1
    points_add_up = False  # an ace counts by the hand's size
    initial_cards = 2
    target = 21
    basic_threshold = 17
    special_ranks = {"ban-ban": 3, "ban-luck": 2}  # "Specials are settled at once, before anyone draws"
    bust_settles_at_once = True  # "Over 21 loses at once"
    stake_stays = True  # the bet stays in the box: a timeout stakes the previous hand's stake (docs/rules.md)
    simulation_overrides = {"max_bet": None}  # a simulated base stake may be above the preset's largest stake

    def check_rules(self, rules):
        super().check_rules(rules)
        if rules.max_cards != 5:
            raise RulesError("max_cards", "Chinese Blackjack's Five Dragon needs exactly 5 cards")
        if not rules.stake_third_of_stack:
            # rules/README.md "No debt": a x3 loss must be covered when betting.
            raise RulesError("stake_third_of_stack", "Chinese Blackjack losses reach x3: the stake must stay a third")
        if rules.bank_auction:
            # The auction's multiplier on top of x3 losses would break the stake-a-third cover (rules/README.md
            # "No debt"); house-rules.md offers the auction to the games whose bank passes.
            raise RulesError("bank_auction", "the bank auction is a Ten and a Half rule")
        if rules.push_cap:
            raise RulesError("push_cap", "let it ride needs base stakes: Chinese Blackjack's stakes are free")

    def fast_simulation(self, rules):
        return rules.banker_forced_draw  # the fast path plays the forced banker

    def points(self, code):
        return POINTS[code]

    def display_total(self, total):
        return total

    def evaluate(self, cards, rules):
        n = len(cards)
        total = best_total(cards)
        if n == 2:
            aces = sum(1 for c in cards if c[0] == "A")
            if aces == 2:
                return Eval("ban-ban", total, n, False, rules.payout("ban-ban"), 3)
            if aces == 1 and any(c[:-1] in TEN_VALUED for c in cards):
                return Eval("ban-luck", total, n, False, rules.payout("ban-luck"), 2)
        if total > 21:
            # "going over 21 on the fifth card loses net x2"
            return Eval("bust", total, n, True, rules.payout("five-card-bust") if n >= 5 else 1, -1)
        if n >= 5:
            return Eval("five-dragon", total, n, False, rules.payout("five-dragon"), 1)
        return Eval("ordinary", total, n, False, rules.payout("ordinary"), 0)

    def compare(self, c, b, rules):
        if c.bust:
            return LOSE, c.mult
        if c.cls == "five-dragon":
            return (PUSH, 0) if b.cls == "five-dragon" else (WIN, c.mult)
        if b.bust:
            return WIN, b.mult  # x2 when the banker's bust came on the fifth card
        if b.cls == "five-dragon":
            return LOSE, b.mult
        if c.total > b.total:
            return WIN, c.mult
        if c.total < b.total:
            return LOSE, b.mult
        return PUSH, 0  # "Equal totals are a push"

    def visibility(self, hand, is_banker, in_turn, rules):
        return "up" if is_banker and in_turn else "own"

    def turn_over(self, hand, ev, rules):
        return ev.bust or ev.n >= 5  # "21 does not end it"

    def can_stand(self, hand, ev, rules):
        return hand["stake"] == 0 or rules.challenger_min_stand is None or ev.total >= rules.challenger_min_stand

    def default_action(self, hand, ev, rules):
        if hand["stake"] == 0:  # the banker (when freed from the forced rule) times out by the forced rule
            return "hit" if ev.total < rules.banker_stand_on else "stand"
        return "stand" if self.can_stand(hand, ev, rules) else "hit"

    def after_deal(self, table):
        # "Specials are settled at once, before anyone draws".
        s, h = table.s, table.hand
        banker = s.banker
        b = table.eval(banker)
        if b.cls in self.special_ranks:
            table.reveal(banker)
        for seat in h["order"]:
            if seat == banker:
                continue
            settled = self.special_outcome(table.eval(seat), b)
            if settled is None:
                continue
            outcome, mult = settled
            if outcome == LOSE:
                table.settle_hand_now(seat, 0, LOSE, mult, "banker_special")
            else:
                table.reveal(seat)
                table.settle_hand_now(seat, 0, outcome, mult, "special")

    def on_turn_start(self, table, seat, index, hand):
        if seat == table.s.banker:
            table.reveal(seat)  # "The banker reveals, draws on 15 or less..."
