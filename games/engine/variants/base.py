"""The hooks a game overrides on top of the one hand machine (games/engine/machine.py).

A variant is a stateless object registered by slug. It answers questions about cards and hands
(deck, card values, hand class, comparison, visibility of the next card, when a turn is over, which
extra actions a hand has) and may react to moments of the hand (a turn starting, a card drawn, the
deal finished) through the table operations in games/engine/ops.py.
"""

from typing import NamedTuple


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


WIN, LOSE, PUSH, VOID = "win", "lose", "push", "void"


class Variant:
    slug = ""
    deck = ""
    units = 2  # totals are kept in half points for the ½ games, so 10½ is 21 and no float is ever needed
    initial_cards = 1
    target = 21
    basic_threshold = 15  # the basic bot stands from this total (in units)
    banker_last = True  # everybody but Ten and a Half acts in seat order with the bank last

    def points(self, code: str) -> int:
        raise NotImplementedError

    def evaluate(self, cards: list[str], rules) -> Eval:
        raise NotImplementedError

    def compare(self, c: Eval, b: Eval, rules) -> tuple[str, int]:
        """Outcome for the challenger holding ``c`` against the banker's ``b`` and the stake multiplier."""
        raise NotImplementedError

    def display_total(self, total: int):
        return total // 2 if total % 2 == 0 else total / 2 if self.units == 2 else total

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

    # Moments of the hand; the default is nothing special.
    def after_deal(self, table) -> None:
        pass

    def on_turn_start(self, table, seat: str, index: int, hand: dict) -> None:
        pass

    def after_draw(self, table, seat: str, index: int, hand: dict, ev: Eval) -> None:
        pass

    def act(self, table, seat: str, index: int, hand: dict, action: str, args: dict) -> bool:
        """Handle a variant action; return False when the action is not the variant's."""
        return False

    def after_settlement(self, table) -> None:
        pass
