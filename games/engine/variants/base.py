"""The hooks a game overrides on top of the one hand machine (games/engine/machine.py).

A variant is a stateless object registered by slug. It declares what sets its game apart (deck, seats,
payout classes, the shoe, the bank's cover, the settings only it may turn on), answers questions about
cards and hands (card values, hand class, comparison, visibility of the next card, when a turn is over,
which extra actions a hand has), checks its own rule constraints, and may react to moments of the hand
(a turn starting, a card drawn, the deal finished) through the machine's ``Table`` operations.
"""

from typing import NamedTuple

from ..errors import RulesError, gettext_noop


class Eval(NamedTuple):
    """A hand's value: ``total`` in the game's units (half points for the ½ games), its class name,
    whether it busted, its card count, the payout multiplier of its class and a rank for class order.
    (A named tuple: simulations build millions of them.)"""

    cls: str
    total: int
    n: int
    bust: bool
    mult: int = 1
    rank: int = 0


class OwnSetting(NamedTuple):
    """A rule setting only this game may turn on, and why another game refuses it (English, marked with
    ``gettext_noop``: the refusal's template, ``RulesError``). It is on when it equals ``on``, or when ``on`` is None
    and it is neither unset (None) nor false."""

    knob: str
    why: str
    on: object = None

    def is_on(self, rules) -> bool:
        value = getattr(rules, self.knob)
        if self.on is not None:
            return value == self.on
        return value is not None and value is not False


WIN, LOSE, PUSH, VOID = "win", "lose", "push", "void"


class Variant:
    # Every game declares these three (rules files, "Table", "Cards" and "Hand classes").
    slug: str
    deck: str  # the only deck the game is played with (cards.DECKS)
    main_seats: tuple[int, int]  # fewest and most main seats a room may set, the banker included
    payout_classes: tuple[str, ...]  # the hand classes whose multiplier a room may change
    own_settings: tuple[OwnSetting, ...] = ()
    units = 2  # totals are kept in half points for the ½ games, so 10½ is 21 and no float is ever needed
    points_add_up = True  # a hand's total is the sum of its cards' points (Chinese Blackjack's aces are not)
    initial_cards = 1
    target = 21
    basic_threshold = 15  # the basic bot stands from this total (in units)
    special_ranks: dict[str, int] = {}  # classes settled right after the deal, the higher rank winning
    bust_settles_at_once = False  # a challenger's bust loses when drawn, even if the bank busts later
    shoe = False  # the stock lasts from hand to hand and the discards are reshuffled when it runs out
    covers_table = False  # after each hand a bank below its cover passes on (Variant.smallest_bank)
    stake_stays = False  # the default stake is the seat's stake of the previous hand while the limits allow it
    simulation_overrides: dict = {}  # settings simulate() plays with so that every stake is one base stake

    def points(self, code: str) -> int:
        raise NotImplementedError

    def evaluate(self, cards: list[str], rules) -> Eval:
        raise NotImplementedError

    def compare(self, c: Eval, b: Eval, rules) -> tuple[str, int]:
        """Outcome for the challenger holding ``c`` against the banker's ``b`` and the stake multiplier."""
        raise NotImplementedError

    def display_total(self, total: int):
        return total // 2 if total % 2 == 0 else total / 2 if self.units == 2 else total

    # -- the rules of a room ------------------------------------------------------------------------
    def check_rules(self, rules) -> None:
        """Raise RulesError for a rule set this game cannot be played with (games/engine/rules.py ``validate``
        calls it once each knob, the deck and the seats are checked). The default: a card limit of at most 5."""
        if rules.max_cards is None:
            raise RulesError("max_cards", gettext_noop("%(game)s needs a card limit"), {"game": self.slug})
        if rules.max_cards > 5:
            raise RulesError("max_cards", gettext_noop("%(game)s hands hold at most %(max)s cards"),
                             {"game": self.slug, "max": 5})

    def implied_overrides(self, overrides: dict, preset: dict) -> dict:
        """Settings that follow from a room's ``overrides`` of the ``preset`` (JSON) unless it sets them too."""
        return {}

    def hand_base_stake(self, rules, banker_chips: int, stacks: list[int]) -> int:
        """The base stake of a hand whose stakes are fixed (``fixed_stake``), from the banker's chips (bank
        and stack) and the challengers' stacks, as ``base_stake_rule`` says (zhejiang.md "Stake"; docs/rules.md)."""
        if rules.base_stake_rule == "fixed":
            return rules.base_stake
        if rules.base_stake_rule == "poorest-share":
            p = min(banker_chips, *stacks)
            if len(stacks) == 1:
                stake = p // 15  # two players: the banker and one challenger
            else:
                stake = p // 5 if banker_chips >= 3 * p else p // 15
            return max(1, min(stake, rules.base_stake_cap))
        # banker-sixtieth: K/60, never more than half the poorest challenger's stack
        return max(1, min(banker_chips // 60, min(stacks) // 2, rules.base_stake_cap))

    def smallest_bank(self, rules, challengers: int) -> int:
        """The smallest bank that may bank when the room leaves ``bank_min_cover`` empty."""
        return 1

    def fast_simulation(self, rules) -> bool:
        """Whether simulate()'s fast path reproduces this game's hands under ``rules`` with threshold bots
        (games/engine/simulate.py)."""
        return False

    # -- a hand -----------------------------------------------------------------------------------
    def visibility(self, hand: dict, is_banker: bool, in_turn: bool, rules) -> str:
        """'own' (face down: its owner only) or 'up' for the next card dealt to ``hand``."""
        return "own"

    def turn_over(self, hand: dict, ev: Eval, rules) -> bool:
        if ev.bust or ev.total >= self.target:
            return True
        if hand.get("doubled"):
            return True
        return rules.max_cards is not None and ev.n >= rules.max_cards

    def extra_actions(self, table, seat: str, hand: dict, ev: Eval) -> list[str]:
        return []

    def can_stand(self, hand: dict, ev: Eval, rules) -> bool:
        return True

    def default_action(self, hand: dict, ev: Eval, rules) -> str:
        """The action a timeout (or a seat that left) takes: stand (rules/README.md, "Play")."""
        return "stand"

    def special_outcome(self, c: Eval, b: Eval) -> tuple[str, int] | None:
        """A challenger's outcome and multiplier decided by the special classes (``special_ranks``) right
        after the deal, or None when neither hand holds one."""
        csp, bsp = self.special_ranks.get(c.cls, 0), self.special_ranks.get(b.cls, 0)
        if csp > bsp:
            return WIN, c.mult
        if bsp > csp:
            return LOSE, b.mult
        return (PUSH, 0) if csp else None

    # Moments of the hand; the default is nothing special.
    def after_deal(self, table) -> None:
        pass

    def on_turn_start(self, table, seat: str, index: int, hand: dict) -> None:
        pass

    def after_draw(self, table, seat: str, index: int, hand: dict, ev: Eval) -> None:
        if self.bust_settles_at_once and ev.bust and seat != table.s.banker:
            table.reveal(seat, index)  # the hand is turned face up and lost at once
            table.settle_hand_now(seat, index, LOSE, ev.mult, "bust")

    def act(self, table, seat: str, index: int, hand: dict, action: str, args: dict) -> bool:
        """Handle a variant action; return False when the action is not the variant's."""
        return False

    def after_settlement(self, table) -> None:
        pass
