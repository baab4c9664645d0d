"""Card codes and the three decks.

French cards: rank ``A 2..10 J Q K`` plus suit ``S H D C`` (``10H``, ``QS``), jokers ``BJ`` and ``RJ``.
Spanish cards: rank ``1..7``, ``J`` (jack), ``N`` (knight), ``K`` (king) plus suit ``O`` (coins),
``C`` (cups), ``E`` (swords), ``B`` (clubs).

The *canonical order* of a deck (the input of every shuffle, see docs/rules.md) is suit by suit in
the order listed here, ranks ascending within a suit, jokers last.
"""

FRENCH_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FRENCH_SUITS = ("S", "H", "D", "C")
JOKERS = ("BJ", "RJ")
SPANISH_RANKS = ("1", "2", "3", "4", "5", "6", "7", "J", "N", "K")
SPANISH_SUITS = ("O", "C", "E", "B")

FRENCH_52 = tuple(r + s for s in FRENCH_SUITS for r in FRENCH_RANKS)
FRENCH_54 = FRENCH_52 + JOKERS
SPANISH_40 = tuple(r + s for s in SPANISH_SUITS for r in SPANISH_RANKS)

DECKS = {"french-52": FRENCH_52, "french-54": FRENCH_54, "spanish-40": SPANISH_40}


def rank(code: str) -> str:
    """The rank part of a card code (a joker is its own rank)."""
    return code if code in JOKERS else code[:-1]


def suit(code: str) -> str:
    return "" if code in JOKERS else code[-1]


def canonical_sorted(cards, deck: str) -> list[str]:
    """Cards of `deck` sorted in its canonical order (the order a reshuffle starts from). The deck is named, not
    guessed: French clubs and Spanish cups share codes (``3C``), and sort differently in their decks."""
    return sorted(cards, key=_CANON[deck].__getitem__)


_CANON = {name: {code: i for i, code in enumerate(cards)} for name, cards in DECKS.items()}
