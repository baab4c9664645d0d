"""The verifiable shuffle (docs/rules.md "Verifiable shuffle")."""

import hashlib
import hmac

from games.engine import commitment, shuffle, verify
from games.engine.cards import DECKS, FRENCH_52
from games.engine.shuffle import HmacKey, LazyDeck, WordStream, roll_dice, seed_bytes

SEED = "ab" * 32


def test_commitment_is_sha256_of_the_seed_bytes():
    assert commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_verify_accepts_the_real_seed_and_rejects_a_wrong_one():
    dealt = shuffle(FRENCH_52, seed_bytes(SEED))[:12]
    assert verify(commitment(SEED), SEED, dealt)
    assert not verify(commitment(SEED), "cd" * 32, dealt)
    assert not verify(commitment("cd" * 32), SEED, dealt)
    assert not verify(commitment(SEED), SEED, dealt[::-1])
    assert not verify(commitment(SEED), "not hex", dealt)


def test_verify_a_deck_by_name_and_each_deck_is_a_permutation():
    for name, deck in DECKS.items():
        order = shuffle(deck, seed_bytes(SEED))
        assert sorted(order) == sorted(deck)
        assert verify(commitment(SEED), SEED, order[:5], deck=name)


def test_the_stream_is_hmac_sha256_of_label_and_counter():
    seed = seed_bytes(SEED)
    words = WordStream(seed, "0")
    digest = hmac.digest(seed, b"0:0", "sha256")
    assert [words.word() for _ in range(8)] == [int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4)]
    digest = hmac.digest(seed, b"0:1", "sha256")
    assert words.word() == int.from_bytes(digest[:4], "big")
    assert HmacKey(seed).digest(b"x") == hmac.digest(seed, b"x", "sha256")


def test_rejection_sampling_skips_words_at_or_above_the_limit():
    class Fixed(WordStream):
        def __init__(self, words):
            it = iter(words)
            self.word = it.__next__

    limit = 2**32 - (2**32 % 52)
    assert Fixed([limit, 2**32 - 1, 105]).below(52) == 105 % 52


def test_forward_fisher_yates_reference_order():
    """The byte-level reference a browser re-implementation checks against (docs/rules.md)."""
    seed = bytes(range(32))
    stream = WordStream(seed, "0")
    a = list(FRENCH_52)
    for i in range(51):
        j = i + stream.below(52 - i)
        a[i], a[j] = a[j], a[i]
    assert shuffle(FRENCH_52, seed) == a
    assert shuffle(FRENCH_52, seed)[:5] == REFERENCE_TOP5


REFERENCE_TOP5 = shuffle(FRENCH_52, bytes(range(32)))[:5]


def test_lazy_deck_deals_exactly_the_shuffled_order():
    seed = seed_bytes(SEED)
    deck = LazyDeck(FRENCH_52, seed)
    assert [deck.draw() for _ in range(52)] == shuffle(FRENCH_52, seed)


def test_dice_are_two_uniform_rolls_from_the_dice_stream():
    seed = seed_bytes(SEED)
    stream = WordStream(seed, "dice")
    assert roll_dice(seed) == [stream.below(6) + 1, stream.below(6) + 1]


def test_card_by_position_frequencies_pass_chi_square():
    n = 5200
    counts = [[0] * 52 for _ in range(52)]
    index = {c: i for i, c in enumerate(FRENCH_52)}
    for k in range(n):
        order = shuffle(FRENCH_52, hashlib.sha256(k.to_bytes(4, "big")).digest())
        for pos, card in enumerate(order):
            counts[pos][index[card]] += 1
    expected = n / 52
    chi2 = sum((c - expected) ** 2 / expected for row in counts for c in row)
    df = 51 * 51  # rows and columns both sum to fixed totals
    z = (chi2 - df) / (2 * df) ** 0.5
    assert abs(z) < 4, (chi2, df, z)
    # and no single position is skewed
    for row in counts:
        row_chi2 = sum((c - expected) ** 2 / expected for c in row)
        assert row_chi2 < 110  # df 51: p < 1e-5 above ~103


def test_canonical_order_sorts_each_deck_by_its_own_order():
    # French clubs and Spanish cups share codes (3C): each deck sorts them in its own order, the start of every shoe
    # and reshuffle (docs/fairness.md, "Byte level" 7).
    from games.engine.cards import canonical_sorted

    for name, deck in DECKS.items():
        assert canonical_sorted(reversed(deck), name) == list(deck)
    assert canonical_sorted(["2C", "AC", "RJ", "KS", "QC", "BJ"], "french-54") == ["KS", "AC", "2C", "QC", "BJ", "RJ"]
    assert canonical_sorted(["KC", "2C", "1O", "JC"], "spanish-40") == ["1O", "2C", "JC", "KC"]
