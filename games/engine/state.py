"""The table state that spans many hands, and its lossless JSON form.

Every field is a JSON value except ``rules`` (a ``Rules``), so ``state_to_json`` is a shallow walk and
``state_from_json(state_to_json(s)) == s``. The state holds secrets (the seed and the stock of the
current hand, the next hand's committed seed, everybody's face-down cards): it is stored by the server and never sent to a player;
``view()`` is what leaves towards players.
"""

from dataclasses import dataclass, field, fields

from .codec import json_copy
from .rules import Rules


@dataclass
class TableState:
    rules: Rules
    next_rules: Rules | None = None  # a rules change waits for the next hand (rules/README.md)
    phase: str = "waiting"  # waiting | auction | betting | playing | between_hands | bank_decision
    hand_no: int = 0
    seats: list = field(default_factory=list)  # dicts, see machine.do_sit; main seats ordered by position
    seq: int = 0  # join counter: "the first player to sit down" (Zhejiang)
    banker: str | None = None
    bank: int = 0
    bank_opening: int = 0
    bank_topups: int = 0
    bank_hands: int = 0  # consecutive hands held by this banker (seven-half.md, bank_max_hands)
    retire_requested: bool = False
    jackpot: int = 0
    jackpot_owner: str | None = None
    shoe: dict | None = None  # Seven and a Half: {"stock": [...], "discards": [...]} across hands
    deadline: float | None = None
    deadline_for: list = field(default_factory=list)
    pending: dict | None = None  # a bank decision: {"kind", "seat", "queue"}
    hand: dict | None = None  # the current (or last finished) hand, see machine.do_start_hand
    commitment: str | None = None
    last_hand: dict | None = None  # the summary of the finished hand, everything revealed
    # docs/fairness.md: the next hand's server seed, committed between hands (secret; its SHA-256 is public),
    # the players' seeds for the coming deal (seat id -> hex), and the last finished hand's chain hash.
    next_seed: str | None = None
    next_commitment: str | None = None
    seeds: dict = field(default_factory=dict)
    chain: str | None = None
    # house-rules.md "The bank auction" (games/engine/auction.py): the winning bid's multiplier while its banker holds
    # the bank (1 otherwise), and the seat position the usual order starts from when the next auction has no bid
    # (the last banker's; None: the first bank's order).
    bank_mult: int = 1
    auction_from: int | None = None

    def seat(self, seat_id: str) -> dict | None:
        for s in self.seats:
            if s["id"] == seat_id:
                return s
        return None

    def main_seats(self) -> list[dict]:
        return sorted((s for s in self.seats if s["role"] == "main"), key=lambda s: s["position"])

    def side_seats(self) -> list[dict]:
        return sorted((s for s in self.seats if s["role"] == "side"), key=lambda s: s["position"])

    def chips(self) -> int:
        """Everything on the table: stacks, the bank and the jackpot (conserved by play)."""
        return sum(s["stack"] for s in self.seats) + self.bank + self.jackpot


def state_to_json(state: TableState, *, copy: bool = True) -> dict:
    """The state as JSON. ``copy=False`` shares the lists and dicts with the state: for a caller that writes
    the result at once and changes neither afterwards (games/services/save.py, `_save`), one deep copy less."""
    out = {}
    for f in fields(TableState):
        v = getattr(state, f.name)
        if isinstance(v, Rules):
            v = v.to_json()
        out[f.name] = v
    return json_copy(out) if copy else out


def state_from_json(data: dict, *, copy: bool = True) -> TableState:
    """The state from its JSON. ``copy=False`` takes ``data``'s lists and dicts as they are: for a caller that
    owns a freshly parsed value and does not use it afterwards (games/services/run.py, `_Run`)."""
    data = json_copy(data) if copy else dict(data)
    data["rules"] = Rules.from_json(data["rules"])
    if data.get("next_rules") is not None:
        data["next_rules"] = Rules.from_json(data["next_rules"])
    return TableState(**data)


def copy_state(state: TableState) -> TableState:
    """A deep copy (the machine works on a copy so that a refused command changes nothing)."""
    new = TableState.__new__(TableState)
    for f in fields(TableState):
        v = getattr(state, f.name)
        if isinstance(v, (list, dict)):
            v = json_copy(v)
        new.__dict__[f.name] = v
    return new
