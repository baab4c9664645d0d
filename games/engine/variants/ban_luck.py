"""Chinese Blackjack / Ban Luck (rules/ban-luck.md): two cards, aces by hand size, specials paid at
once, must draw to 16, Five Dragon, and the banker's forced rule."""

from ..errors import EngineError, RulesError, gettext_noop
from .base import LOSE, PUSH, VOID, WIN, Eval, OwnSetting, Variant

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
    own_settings = tuple(OwnSetting(name, gettext_noop("is a Chinese Blackjack rule"))
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
            raise RulesError("max_cards", gettext_noop("Chinese Blackjack's Five Dragon needs exactly %(n)s cards"),
                             {"n": 5})
        if not rules.stake_third_of_stack:
            # rules/README.md "No debt": a x3 loss must be covered when betting.
            raise RulesError("stake_third_of_stack",
                             gettext_noop("Chinese Blackjack losses reach x3: the stake must stay a third"))
        if rules.bank_auction:
            # The auction's multiplier on top of x3 losses would break the stake-a-third cover (rules/README.md
            # "No debt"); house-rules.md offers the auction to the games whose bank passes.
            raise RulesError("bank_auction", gettext_noop("the bank auction is a Ten and a Half rule"))
        if rules.push_cap:
            raise RulesError("push_cap",
                             gettext_noop("let it ride needs base stakes: Chinese Blackjack's stakes are free"))

    def fast_simulation(self, rules):
        # the fast path plays the forced banker; a banker who opens hands, and a free hand's escape (bots.py), are
        # decided on the machine path
        return rules.banker_forced_draw and not rules.banker_opens and not rules.free_hand

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
        if is_banker and in_turn and rules.banker_opens:
            # house-rules.md "The banker opens": the banker's cards stay down until the first open turns them up.
            return "up" if all(c[1] == "up" for c in hand["cards"]) else "own"
        return "up" if is_banker and in_turn else "own"

    def turn_over(self, hand, ev, rules):
        return ev.bust or ev.n >= 5  # "21 does not end it"

    def can_stand(self, hand, ev, rules):
        if hand["stake"] == 0 and rules.banker_opens:
            return ev.total >= rules.banker_open_from  # "below banker_open_from ... only hit is legal"
        return hand["stake"] == 0 or rules.challenger_min_stand is None or ev.total >= rules.challenger_min_stand

    def default_action(self, hand, ev, rules):
        if hand["stake"] == 0:  # the banker (when freed from the forced rule) times out by the forced rule
            # With banker_opens, never a stand below banker_open_from (docs/rules.md, "The banker opens").
            stand_on = max(rules.banker_stand_on, rules.banker_open_from) if rules.banker_opens \
                else rules.banker_stand_on
            return "hit" if ev.total < stand_on else "stand"
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
        if seat == table.s.banker and not table.rules.banker_opens:
            table.reveal(seat)  # "The banker reveals, draws on 15 or less..."

    # -- house-rules.md "The banker opens hands one by one" (banker_opens) --------------------------------
    def openable(self, table) -> list[str]:
        """The challengers the banker may open now: still unsettled in the hand, in seat order."""
        h = table.hand
        return [k for k in h["order"] if k != table.s.banker and any(not ph["settled"] for ph in h["hands"][k])]

    def open_actions(self, table, seat, hand, ev) -> list[str]:
        r = table.rules
        if seat == table.s.banker and r.banker_opens and ev.total >= r.banker_open_from and self.openable(table):
            return ["open"]
        return []

    def extra_actions(self, table, seat, hand, ev):
        return self.open_actions(table, seat, hand, ev) + (["escape"] if self.may_escape(table, seat, hand) else [])

    def act(self, table, seat, index, hand, action, args):
        if action == "open":
            self.open_hand(table, seat, args)
            return True
        if action == "escape":
            self.free_hand_escape(table, seat, index)
            return True
        return False

    def open_hand(self, table, banker, args) -> None:
        """The banker opens one challenger: its cards turn up, it is settled at once against the banker's current
        hand (``compare``, why "opened") and leaves the hand; the banker's own cards turn up at the first open."""
        target = args.get("seat")
        h = table.hand
        if not isinstance(target, str) or target not in h["order"] or target == banker:
            raise EngineError("bad_seat", "Open a challenger who plays this hand.")
        if target not in self.openable(table):
            raise EngineError("not_openable", "That challenger's hand is settled already.")
        opens = h.setdefault("opens", [])
        if not opens:
            table.reveal(banker)
        b, c = table.eval(banker), table.eval(target)
        opens.append(target)
        table.emit("hand_opened", seat=target, by=banker, total=self.display_total(c.total), **{"class": c.cls},
                   banker_cards=[x[0] for x in h["hands"][banker][0]["cards"]],
                   banker_total=self.display_total(b.total), banker_class=b.cls, nth=len(opens))
        table.reveal(target)
        for i, ph in enumerate(h["hands"][target]):
            if not ph["settled"]:
                outcome, mult = self.compare(table.eval(target, i), b, table.rules)
                table.settle_hand_now(target, i, outcome, mult, "opened")

    # -- house-rules.md "The free hand" (free_hand) ------------------------------------------------------------
    def free_hand(self, cards, rules) -> bool:
        """Two cards worth exactly 15 by the hand's usual count (an ace with a 4 counts 15), with the rule on."""
        return bool(rules.free_hand) and len(cards) == 2 and best_total(cards) == 15

    def may_escape(self, table, seat, hand) -> bool:
        """The hand on turn may escape now: a free hand at its holder's first decision. A challenger's first
        decision is any time its turn holds the two cards dealt (an action either draws a card or ends the turn); the
        banker's is the start of its turn, two cards and nobody opened yet (``banker_opens``)."""
        if hand["done"] or hand["settled"] or not self.free_hand([c[0] for c in hand["cards"]], table.rules):
            return False
        return seat != table.s.banker or not table.hand.get("opens")

    def free_hand_escape(self, table, seat, index) -> None:
        """The free hand escapes (docs/rules.md, "The free hand"): a challenger's two cards turn up (the 15 that allows
        it, as a bust's cards do) and its stake comes back (void, why "free_hand"); the banker's hand ends the hand:
        every stake not yet settled comes back the same way, and what the specials settled stays settled."""
        h = table.hand
        h.setdefault("free_hands", []).append(seat)
        if seat != table.s.banker:
            table.emit("free_hand_escaped", seat=seat, hand=index, banker=False)
            table.reveal(seat, index)
            table.settle_hand_now(seat, index, VOID, 0, "free_hand")
            return
        table.emit("free_hand_escaped", seat=seat, hand=index, banker=True)  # the reveal that ends the hand shows it
        for k in h["order"]:
            if k == seat:
                continue
            for i, ph in enumerate(h["hands"][k]):
                if not ph["settled"]:
                    table.settle_hand_now(k, i, VOID, 0, "free_hand")
        h["hands"][seat][index]["done"] = True
