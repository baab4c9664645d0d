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
import struct
from itertools import chain, count

from .cards import DECKS
from .errors import EngineError

_TWO32 = 1 << 32
_unpack8 = struct.Struct(">8I").unpack  # one digest = eight big-endian 32-bit words


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


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


class HmacKey:
    """HMAC-SHA256 under one key (RFC 2104) with the padded key hashed once, then copied per message:
    the same bytes as ``hmac.digest(key, msg, "sha256")`` (tested) at a third of its cost, which a
    simulation of millions of hands notices."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes):
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def digest(self, msg: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


class WordStream:
    """The 32-bit words of one labelled HMAC stream, and unbiased integers drawn from them."""

    __slots__ = ("word",)

    def __init__(self, seed: "bytes | HmacKey", label: str):
        mac = seed if isinstance(seed, HmacKey) else HmacKey(seed)

        def blocks():
            for k in count():
                yield _unpack8(mac.digest(f"{label}:{k}".encode("ascii")))

        self.word = chain.from_iterable(blocks()).__next__

    def below(self, m: int) -> int:
        """A uniform integer in [0, m) by rejection sampling."""
        limit = _TWO32 - (_TWO32 % m)
        word = self.word
        w = word()
        while w >= limit:
            w = word()
        return w % m


def shuffle(cards, seed: bytes, label: str = "0") -> list[str]:
    """The whole deck in dealing order (forward Fisher-Yates, see the module docstring)."""
    a = list(cards)
    below = WordStream(seed, label).below
    n = len(a)
    for i in range(n - 1):
        j = i + below(n - i)
        a[i], a[j] = a[j], a[i]
    return a


class LazyDeck:
    """The same order as ``shuffle`` but each step done only when a card is drawn (``deck.draw()``)."""

    __slots__ = ("draw",)

    def __init__(self, cards, seed: "bytes | HmacKey", label: str = "0"):
        a = list(cards)
        n = len(a)
        word = WordStream(seed, label).word
        i = 0

        def draw() -> str:
            nonlocal i
            m = n - i
            if m > 1:
                limit = _TWO32 - (_TWO32 % m)  # the same rejection sampling as WordStream.below
                w = word()
                while w >= limit:
                    w = word()
                j = i + w % m
                a[i], a[j] = a[j], a[i]
            i += 1
            return a[i - 1]

        self.draw = draw


_DICE_LIMIT = _TWO32 - (_TWO32 % 6)


def roll_dice(seed: "bytes | HmacKey") -> list[int]:
    """Two dice from the stream labelled "dice" (Ten and a Half's order): ``below(6) + 1`` twice."""
    mac = seed if isinstance(seed, HmacKey) else HmacKey(seed)
    w = _unpack8(mac.digest(b"dice:0"))
    if w[0] < _DICE_LIMIT and w[1] < _DICE_LIMIT:
        return [w[0] % 6 + 1, w[1] % 6 + 1]
    stream = WordStream(mac, "dice")  # six of eight words rejected: practically never, same result
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
