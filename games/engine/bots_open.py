"""The bots' banker under house-rules.md "The banker opens hands one by one" (``banker_opens``).

The banker sees its own cards, how many cards each challenger holds (and any of them face up), and its total.
For each challenger still in the hand it weighs two values, both in stakes won by the bank:

- *now*: opening the challenger at once, settled against the banker's current hand;
- *later*: the best it can do with that challenger after drawing one more card, opening it at the best moment
  afterwards (``V(hand) = max(settle(hand), E[V(hand + card)])``, only drawing below ``banker_open_from`` and
  settling every challenger left on a bust or at five cards).

A challenger whose *now* is at least its *later* is opened (the largest gain first): no later moment can do better
for it, whatever the banker draws for the others. When every challenger left is like that the banker stands (the
same settlement as opening them all); when none is, the banker draws. Below ``banker_open_from`` it draws.

A challenger's hand is estimated from its card count: two cards dealt from the unseen cards, then a draw while the
hand was below the basic bot's total (``Variant.basic_threshold``, at least ``challenger_min_stand``); a hand that
busted or held a two-card special was settled already, so it is left out; cards it shows face up must be in it.
Cards are drawn with replacement from the deck less the banker's own cards, grouped by what decides a hand (as the
expert bot does, games/engine/bots.py), so the values depend only on the rules, the banker's cards by group, the
challenger's count and its face-up cards: they are cached across hands, which keeps the simulator's machine path
fast. The other challengers' face-up cards (a bust, an opened hand) are not taken out of the deck: a small
approximation for that cache.
"""

from functools import cache, lru_cache

from .cards import DECKS
from .variants import VARIANTS

EPS = 1e-9


def _key(v, card: str) -> tuple:
    return v.points(card), card[0] == "A", card in ("BJ", "RJ") or card[0] in "JQKN"


@cache
def _groups(deck: str, slug: str) -> tuple[dict, dict]:
    """card -> its group's representative card, and representative -> how many cards of the deck it stands for."""
    v = VARIANTS[slug]
    rep, count, first = {}, {}, {}
    for c in DECKS[deck]:
        k = _key(v, c)
        first.setdefault(k, c)
        rep[c] = first[k]
        count[first[k]] = count.get(first[k], 0) + 1
    return rep, count


def _pool(rules, own: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    _, count = _groups(rules.deck, rules.game)
    left = dict(count)
    for c in own:
        left[c] -= 1
    n = sum(left.values())
    return tuple((c, k / n) for c, k in sorted(left.items()) if k > 0)


def _challenger(rules, pool, n: int, known: tuple[str, ...]) -> list[tuple[object, float]]:
    """[(Eval, probability)] of a challenger still in the hand with ``n`` cards, ``known`` (representatives) among
    them."""
    v = VARIANTS[rules.game]
    ev = v.evaluate
    stand_from = max(v.basic_threshold, rules.challenger_min_stand or 0)
    states: dict[tuple, float] = {(): 1.0}
    for k in range(n):
        new: dict[tuple, float] = {}
        for hand, p in states.items():
            if k >= v.initial_cards:
                e = ev(list(hand), rules)
                if e.bust or e.total >= stand_from or (k == v.initial_cards and e.cls in v.special_ranks):
                    continue  # it would have stood, or was settled already
            for c, q in pool:
                nh = tuple(sorted(hand + (c,)))
                new[nh] = new.get(nh, 0.0) + p * q
        states = new
    dist: dict = {}
    limit = rules.max_cards or 12
    for hand, p in states.items():
        if known and not _contains(hand, known):
            continue
        e = ev(list(hand), rules)
        if e.bust or (n == v.initial_cards and e.cls in v.special_ranks):
            continue  # settled at once
        if e.total < stand_from and n < limit:
            continue  # it would have drawn again
        dist[e] = dist.get(e, 0.0) + p
    if not dist:  # a challenger who played otherwise (stood on 16, say): every unsettled hand of that count
        for hand, p in states.items():
            e = ev(list(hand), rules)
            if not e.bust and not (known and not _contains(hand, known)):
                dist[e] = dist.get(e, 0.0) + p
    total = sum(dist.values()) or 1.0
    return [(e, p / total) for e, p in dist.items()]


def _contains(hand: tuple, known: tuple) -> bool:
    rest = list(hand)
    for c in known:
        if c not in rest:
            return False
        rest.remove(c)
    return True


def open_values(rules, cards: list[str], n: int, known: list[str] = ()) -> tuple[float, float]:
    """(now, later) for one challenger of ``n`` cards, ``known`` of them face up, against the banker's ``cards``, in
    the bank's stakes (module docstring)."""
    rep, _ = _groups(rules.deck, rules.game)
    return _open_values(rules, tuple(sorted(rep[c] for c in cards)), n, tuple(sorted(rep[c] for c in known)))


@lru_cache(maxsize=200_000)
def _open_values(rules, own: tuple[str, ...], n: int, known: tuple[str, ...]) -> tuple[float, float]:
    """``open_values`` with the cards as their groups' representatives, sorted: the cached part."""
    v = VARIANTS[rules.game]
    pool = _pool(rules, own)
    dist = _challenger(rules, pool, n, known)
    limit = rules.max_cards or 12
    settles: dict = {}
    values: dict = {}

    def settle(b: tuple) -> float:
        if b not in settles:
            be = v.evaluate(list(b), rules)
            gain = 0.0
            for c, p in dist:
                outcome, mult = v.compare(c, be, rules)
                gain += p * (mult if outcome == "lose" else -mult if outcome == "win" else 0)
            settles[b] = gain
        return settles[b]

    def draw(b: tuple) -> float:
        return sum(q * value(tuple(sorted(b + (c,)))) for c, q in pool)

    def value(b: tuple) -> float:
        if b not in values:
            e = v.evaluate(list(b), rules)
            if e.bust or len(b) >= limit:
                values[b] = settle(b)
            elif e.total < rules.banker_open_from:
                values[b] = draw(b)
            else:
                values[b] = max(settle(b), draw(b))
        return values[b]

    return settle(own), draw(own)


def opener_action(view: dict, rules, cards: list[str], legal: list[str]) -> tuple[str, dict]:
    """The banker's next action at its turn under ``banker_opens`` (module docstring)."""
    if "open" not in legal:
        return ("hit", {}) if "hit" in legal and "stand" not in legal else (
            ("stand", {}) if "stand" in legal else (legal[0], {}))
    h = view["hand"]
    gains: dict[str, float] = {}
    for seat in h["order"]:
        if seat == view["you"]:
            continue
        for ph in h["hands"][seat]:
            if ph["settled"]:
                continue
            known = [c["card"] for c in ph["cards"] if "card" in c]
            now, later = open_values(rules, cards, len(ph["cards"]), known)
            gains[seat] = gains.get(seat, 0.0) + (now - later) * (ph["stake"] or 1)
    keep = [s for s, g in gains.items() if g < -EPS]
    if not keep and "stand" in legal:
        return "stand", {}  # every challenger left is best settled now: the same as opening each of them
    ready = [s for s, g in gains.items() if g >= -EPS]
    if ready:
        return "open", {"seat": max(ready, key=lambda s: (gains[s], s))}
    return ("hit", {}) if "hit" in legal else ("stand", {})
