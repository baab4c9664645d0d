"""The verifiable shuffle (docs/fairness.md gives the byte-level algorithm, with test vectors).

A 32-byte key drives a stream of 32-bit words: block ``k`` of a stream named ``label`` is
``HMAC-SHA256(key=key, msg=f"{label}:{k}".encode("ascii"))``, read as eight big-endian 4-byte words.
The key of a hand's deck and dice is its deal key (``deal_key``): the server seed mixed with every seat's
seed, the hand's number and the previous hand's chain hash (``chain_hash``).
A uniform integer in ``[0, m)`` takes the next word ``w`` and rejects it while
``w >= 2**32 - (2**32 % m)`` (no modulo bias), else returns ``w % m``. The deck is ordered by the
forward Fisher-Yates shuffle: for ``i`` from 0 to n-2 swap ``a[i]`` with ``a[i + uniform(n - i)]``;
``a[0]`` is dealt first. Because position ``i`` is final after step ``i``, a deck can also be drawn
lazily (``LazyDeck``) with exactly the same order, which the fast simulation uses.
"""

import hashlib
import hmac
import json
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
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        seed = b""
    if len(seed) != 32:  # fromhex skips spaces: "ab ab ..." is 64 characters but fewer bytes
        raise EngineError("bad_seed", "The seed must be 64 hexadecimal digits (32 bytes).")
    return seed


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


ZERO_CHAIN = "0" * 64  # the "previous hand" of a table's first hand

# What a hand's chain hash covers (docs/fairness.md, "The hash chain"): each a JSON value without fractions.
CHAIN_FIELDS = ("hand_no", "prev", "commitment", "seed", "seeds", "source", "stacked", "reshuffles", "dealt", "dice",
                "order", "banker", "results", "deltas")


def seat_seed(server_seed: bytes, seat_id: str) -> str:
    """The seed the server gives a seat that sent none (a bot, or a player who sent none in time):
    HMAC-SHA256(key = server seed, message = UTF-8 "seat:<seat id>"). The committed server seed fixes it,
    so the server cannot pick it after seeing the players' seeds."""
    return hmac.digest(server_seed, f"seat:{seat_id}".encode(), "sha256").hex()


def deal_key(server_seed: bytes, hand_no: int, prev_chain: str, seeds: list[dict]) -> bytes:
    """The key of a hand's deck, dice and reshuffles. ``seeds`` is every seat's ``{"seat", "seed", "by"}`` in
    seat order; with no seed of a player's own among them the key is the server seed itself (the seats'
    seeds then come from it and add nothing), else HMAC-SHA256(key = server seed, message = UTF-8
    "deal:<hand_no>:<prev_chain>:<seed 1>:...:<seed n>") with the seeds as lowercase hex."""
    if not any(x["by"] == "player" for x in seeds):
        return server_seed
    message = ":".join(["deal", str(hand_no), prev_chain, *(x["seed"] for x in seeds)])
    return hmac.digest(server_seed, message.encode(), "sha256")


def chain_hash(record: dict) -> str:
    """SHA-256 of a finished hand's ``CHAIN_FIELDS`` (and ``voided`` for a voided hand) as canonical JSON (keys
    sorted, no spaces, ASCII), hex.
    A hand's ``prev`` is its table's previous hand's chain hash, so changing any stored hand breaks the chain."""
    body = {name: record.get(name) for name in CHAIN_FIELDS}
    if record.get("voided"):
        body["voided"] = True  # only a voided hand's body has the key, so every other hand hashes as it always did
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def verify(commitment_hex: str, seed_hex: str, dealt_cards: list[str], *, deck: str | None = None,
           source: list[str] | None = None, label: str = "0", seeds: list[dict] | None = None, hand_no: int = 0,
           prev: str = ZERO_CHAIN) -> bool:
    """True when ``seed_hex`` matches ``commitment_hex`` and ``dealt_cards`` is how the hand's deal key orders
    the deck: the key from ``seeds``, ``hand_no`` and ``prev`` (the record's) when given, else the seed itself.

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
    if seeds:
        if any(x["by"] != "player" and x["seed"] != seat_seed(seed, x["seat"]) for x in seeds):
            return False  # a seat's seed marked as the server's must be the one the commitment fixed
        seed = deal_key(seed, hand_no, prev, seeds)
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
