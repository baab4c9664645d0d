"""A hand voided before anyone staked (docs/rules.md, "A room closed during betting").

A room closed while its hand is still in betting (or in the bank auction), before any card of it is dealt and before
any player has staked (a stake or a side bet confirmed by its player), does not play that hand by default actions:
nobody chose to bet on it. The hand ends as **voided**: no card is dealt, no chip moves, it has no results and no
deltas. It still ends as every hand does, with its server seed revealed and its record in the room's hash chain
(`hand_voided`, then `hand_over`), so the commitment made before it can be checked like any other (docs/fairness.md,
"A voided hand"). A stake confirmed by its player, a side bet, or a card dealt (the bank auction's first cards) means
the hand is played as before: by default actions until it settles.

The machine calls this module, so it takes nothing from the machine but what the machine hands it.
"""

from .errors import EngineError
from .shuffle import ZERO_CHAIN, chain_hash

VOID_PHASES = ("auction", "betting")


def voidable(s) -> bool:
    """The table's hand may be voided: it is in betting or the auction, no card of it is dealt and nobody has staked."""
    h = s.hand
    return (s.phase in VOID_PHASES and h is not None and not h.get("over") and not h.get("dealt")
            and not h.get("staked") and not h.get("side_order"))


def do_void_hand(t, actor: str, args: dict) -> None:
    """``void_hand`` (the table only, when the room closes): the hand ends voided, as the module says."""
    s, h = t.s, t.s.hand
    if actor != "system":
        raise EngineError("not_allowed", "Only the table voids a hand.")
    if not voidable(s):
        raise EngineError("wrong_phase", "Only a hand nobody has staked on, before its deal, can be voided.")
    if s.shoe is not None:
        s.shoe["stock"] = list(h["stock"])  # seven-half.md: the shoe keeps every card this hand took and never dealt
        h["stock"] = []
    s.bank_hands = max(s.bank_hands - 1, 0)  # the voided hand is no hand of the banker's turn
    s.seeds = {}  # the players' seeds were for this deal
    h.update(over=True, voided=True, turn=None)
    s.phase = "between_hands"
    t.set_deadline(None, [])
    s.last_hand = {
        "hand_no": h["no"], "commitment": h["commitment"], "seed": h["seed"], "dice": None, "order": [], "hands": {},
        "results": [], "deltas": {}, "dealt": [], "reshuffles": [],
        "source": h["source"] if s.shoe is not None else t.rules.deck, "stacked": h["stacked"], "banker": s.banker,
        "seeds": h.get("seeds", []), "prev": h.get("prev", s.chain or ZERO_CHAIN), "voided": True,
    }
    s.last_hand["chain"] = s.chain = chain_hash(s.last_hand)
    t.emit("hand_voided", hand_no=h["no"], why="closed")
    t.emit("hand_over", hand_no=h["no"], seed=h["seed"], commitment=h["commitment"], dealt=[], deck=t.rules.deck,
           source=s.last_hand["source"], reshuffles=[], seeds=s.last_hand["seeds"], prev=s.last_hand["prev"],
           chain=s.chain, voided=True)
