"""The verifiable shuffle (docs/rules.md, "Verifiable shuffle", gives the byte-level algorithm).

A 32-byte server seed drives a stream of 32-bit words: block ``k`` of a stream named ``label`` is
``HMAC-SHA256(key=seed, msg=f"{label}:{k}".encode("ascii"))``, read as eight big-endian 4-byte words.
A uniform integer in ``[0, m)`` takes the next word ``w`` and rejects it while
``w >= 2**32 - (2**32 % m)`` (no modulo bias), else returns ``w % m``. The deck is ordered by the
forward Fisher-Yates shuffle: for ``i`` from 0 to n-2 swap ``a[i]`` with ``a[i + uniform(n - i)]``;
``a[0]`` is dealt first. Because position ``i`` is final after step ``i``, a deck can also be drawn
lazily (``LazyDeck``) with exactly the same order, which the fast simulation uses.
"""

import hashlib
import hmac

from .cards import DECKS
from .errors import EngineError

_TWO32 = 1 << 32


def seed_bytes(seed_hex: str) -> bytes:
    """The 32 seed bytes of a 64-hex-digit seed; anything else is refused."""
    if not isinstance(seed_hex, str) or len(seed_hex) != 64:
        raise EngineError("bad_seed", "The seed must be 64 hexadecimal digits (32 bytes).")
    try:
        return bytes.fromhex(seed_hex)
    except ValueError:
        raise EngineError("bad_seed", "The seed must be 64 hexadecimal digits (32 bytes).") from None


def commitment(seed_hex: str) -> str:
    """SHA-256 of the 32 seed bytes (not of the hex text), as lowercase hex."""
    return hashlib.sha256(seed_bytes(seed_hex)).hexdigest()


class WordStream:
    """The 32-bit words of one labelled HMAC stream, and unbiased integers drawn from them."""

    __slots__ = ("_seed", "_label", "_block", "_words", "_pos")

    def __init__(self, seed: bytes, label: str):
        self._seed = seed
        self._label = label
        self._block = 0
        self._words = ()
        self._pos = 8

    def word(self) -> int:
        if self._pos == 8:
            digest = hmac.digest(self._seed, f"{self._label}:{self._block}".encode("ascii"), "sha256")
            self._block += 1
            self._words = [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]
            self._pos = 0
        w = self._words[self._pos]
        self._pos += 1
        return w

    def below(self, m: int) -> int:
        """A uniform integer in [0, m) by rejection sampling."""
        limit = _TWO32 - (_TWO32 % m)
        while True:
            w = self.word()
            if w < limit:
                return w % m


def shuffle(cards, seed: bytes, label: str = "0") -> list[str]:
    """The whole deck in dealing order (forward Fisher-Yates, see the module docstring)."""
    a = list(cards)
    stream = WordStream(seed, label)
    n = len(a)
    for i in range(n - 1):
        j = i + stream.below(n - i)
        a[i], a[j] = a[j], a[i]
    return a


class LazyDeck:
    """The same order as ``shuffle`` but each step done only when a card is drawn."""

    __slots__ = ("_a", "_i", "_stream")

    def __init__(self, cards, seed: bytes, label: str = "0"):
        self._a = list(cards)
        self._i = 0
        self._stream = WordStream(seed, label)

    def draw(self) -> str:
        a, i = self._a, self._i
        n = len(a)
        if i < n - 1:
            j = i + self._stream.below(n - i)
            a[i], a[j] = a[j], a[i]
        self._i = i + 1
        return a[i]


def roll_dice(seed: bytes) -> list[int]:
    """Two dice from the stream labelled "dice" (Ten and a Half's order)."""
    stream = WordStream(seed, "dice")
    return [stream.below(6) + 1, stream.below(6) + 1]


def verify(commitment_hex: str, seed_hex: str, dealt_cards: list[str], *, deck: str | None = None,
           source: list[str] | None = None, label: str = "0") -> bool:
    """True when ``seed_hex`` matches ``commitment_hex`` and ``dealt_cards`` is how that seed orders the deck.

    ``dealt_cards`` are the cards in the order they were dealt (the hand record's ``dealt``), a prefix of
    the shuffled deck. The deck is the canonical ``source`` when given (the Seven and a Half shoe: the
    sorted stock at the start of the hand), else ``deck`` by name, else every deck that holds the cards.
    """
    try:
        seed = seed_bytes(seed_hex)
    except EngineError:
        return False
    if not hmac.compare_digest(hashlib.sha256(seed).hexdigest(), str(commitment_hex).lower()):
        return False
    if source is not None:
        candidates = [list(source)]
    elif deck is not None:
        candidates = [DECKS[deck]]
    else:
        candidates = [d for d in DECKS.values() if set(dealt_cards) <= set(d)]
    for cards in candidates:
        order = LazyDeck(cards, seed, label)
        if len(dealt_cards) <= len(cards) and all(order.draw() == c for c in dealt_cards):
            return True
    return False
