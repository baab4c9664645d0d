"""The distribution report (docs/fairness.md, "The distribution report"): per game, how often each card came first
and which class the first two cards made, over every finished hand on the site, against what an honest shuffle
gives, and Pearson's chi-square test once its expected counts are large enough (`MIN_EXPECTED`). `distribution_refresh` (a Celery task, games/tasks.py, hourly) adds the hands that
ended since its last run to the tallies kept in the cache; the public page reads them (`distribution_report`).

The first two cards of a deal are a uniform ordered pair of the hand's cards (its deck, or what was left in the Seven
and a Half shoe), so each hand adds to the expected counts what its own cards make likely: exact, with no simulation.
"""

import json
import math
from collections import Counter
from datetime import datetime

from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.engine import Rules
from games.engine.cards import DECKS, FRENCH_RANKS, FRENCH_SUITS, JOKERS, SPANISH_RANKS, SPANISH_SUITS, rank
from games.engine.variants import VARIANTS
from games.models import Hand

CACHE_KEY = "games:distribution:1"
BATCH = 2000
ALARM = 0.001  # a p-value below this is shown as a warning
# Cochran's rule for Pearson's test: its chi-square p-value is sound once every expected count is at least 5. Below
# that the page shows the counts alone: with 0.2 expected per card the statistic's distribution is not chi-square.
MIN_EXPECTED = 5
SLACK = 1e-9  # expected counts are sums of fractions: 260 hands of 1/52 may add up to 4.9999999999


def p_value(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with `df` degrees of freedom: the regularized upper incomplete gamma
    Q(df/2, statistic/2), by its series below a + 1 and its continued fraction above (Numerical Recipes, 6.2)."""
    a, x = df / 2, statistic / 2
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1 - total * math.exp(log_front))
    b, c, d = x + 1 - a, 1 / 1e-300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def hands_needed(hands: int, smallest: float) -> int | None:
    """How many more hands bring the smallest expected count to `MIN_EXPECTED` if the hands to come are like those so
    far (expected counts grow in step with the hands: exact for a whole deck, an estimate for the shoe)."""
    if hands <= 0 or smallest <= 0:
        return None
    return max(math.ceil(MIN_EXPECTED * hands / smallest - 1e-6) - hands, 1)


def chi_square(observed: dict, expected: dict, hands: int) -> dict:
    """Pearson's test over the categories an honest shuffle can give (`expected` over 0): ``ready`` once every one
    of them expects at least `MIN_EXPECTED`, with the statistic, its degrees of freedom and p-value; before that the
    smallest expected count and the hands still needed (`hands_needed`), and no statistic at all."""
    cells = [(observed.get(k, 0), e) for k, e in expected.items() if e > 0]
    smallest = min((e for _o, e in cells), default=0.0)
    if len(cells) < 2 or smallest < MIN_EXPECTED - SLACK:
        return {"ready": False, "smallest": smallest,
                "more": hands_needed(hands, smallest) if len(cells) >= 2 else None}
    statistic = sum((o - e) ** 2 / e for o, e in cells)
    df = len(cells) - 1
    p = p_value(statistic, df)
    return {"ready": True, "smallest": smallest, "statistic": statistic, "df": df, "p": p, "alarm": p < ALARM}


def _pair_classes(variant, rules: Rules, source: list[str]) -> dict:
    """The class of the first two cards drawn from `source`, as probabilities. A two-card hand's class depends on its
    ranks alone in every game (the variants score by rank), so one pair of cards stands for each pair of ranks."""
    by_rank: dict[str, list[str]] = {}
    for card in source:
        by_rank.setdefault(rank(card), []).append(card)
    n = len(source)
    out: Counter = Counter()
    ranks = list(by_rank)
    for i, ra in enumerate(ranks):
        for rb in ranks[i:]:
            a, b = by_rank[ra], by_rank[rb]
            ways = len(a) * (len(a) - 1) if ra == rb else 2 * len(a) * len(b)
            if ways:
                out[variant.evaluate([a[0], b[-1]], rules).cls] += ways / (n * (n - 1))
    return out


def new_tally() -> dict:
    return {"hands": 0, "first": {}, "first_expected": {}, "classes": {}, "classes_expected": {}}


class Tallies:
    """Per-game tallies of hands (JSON, kept in the cache between refreshes) and what each kind of deal makes
    likely, worked out once per rule set and cards."""

    def __init__(self, games: dict | None = None):
        self.games = games or {}
        self._likely: dict = {}
        self._pending: Counter = Counter()  # (rules key, cards) -> hands, added to the expectations by `settle`

    def add(self, rules_json: dict, source: list[str], dealt: list[str]) -> None:
        """One hand: its rules, the cards it was dealt from (canonical order) and the cards dealt."""
        if len(dealt) < 2 or len(source) < 2:
            return
        key = (json.dumps(rules_json, sort_keys=True), tuple(source))
        if key not in self._likely:
            rules = Rules.from_json(rules_json)
            variant = VARIANTS[rules.game]
            self._likely[key] = (rules.game, variant, rules, _pair_classes(variant, rules, source))
        game, variant, rules, _classes = self._likely[key]
        tally = self.games.setdefault(game, new_tally())
        tally["hands"] += 1
        tally["first"][dealt[0]] = tally["first"].get(dealt[0], 0) + 1
        cls = variant.evaluate(dealt[:2], rules).cls
        tally["classes"][cls] = tally["classes"].get(cls, 0) + 1
        self._pending[key] += 1

    def settle(self) -> None:
        for key, hands in self._pending.items():
            game, _variant, _rules, classes = self._likely[key]
            tally = self.games[game]
            for card in key[1]:
                tally["first_expected"][card] = tally["first_expected"].get(card, 0.0) + hands / len(key[1])
            for cls, p in classes.items():
                tally["classes_expected"][cls] = tally["classes_expected"].get(cls, 0.0) + hands * p
        self._pending.clear()


def _source(rules_json: dict, summary: dict) -> list[str]:
    source = summary.get("source")
    return list(source) if isinstance(source, list) else list(DECKS[rules_json.get("deck", "french-52")])


def distribution_refresh() -> dict:
    """Add the hands finished since the last refresh (a deck stacked by a test is left out), keep the tallies."""
    state = cache.get(CACHE_KEY) or {"last": 0, "games": {}}
    tallies = Tallies(state["games"])
    rows = (Hand.objects.filter(pk__gt=state["last"], ended_at__isnull=False).order_by("pk")
            .values_list("pk", "rules", "summary"))
    for pk, rules_json, summary in rows.iterator(chunk_size=BATCH):
        summary = summary or {}
        if not summary.get("stacked"):
            tallies.add(rules_json, _source(rules_json, summary), summary.get("dealt") or [])
        state["last"] = pk
    tallies.settle()
    state.update(games=tallies.games, at=timezone.now().isoformat())
    cache.set(CACHE_KEY, state, None)
    return state


# How the page heads a suit's column: French suits by their symbol, Spanish ones (which have none) by their name.
SUITS = {"S": ("♠", gettext_lazy("spades")), "H": ("♥", gettext_lazy("hearts")),
         "D": ("♦", gettext_lazy("diamonds")), "C": ("♣", pgettext_lazy("French deck", "clubs"))}
SPANISH = {"O": gettext_lazy("coins"), "C": gettext_lazy("cups"), "E": gettext_lazy("swords"),
           "B": pgettext_lazy("Spanish deck", "clubs")}
JOKER_NAMES = {"BJ": gettext_lazy("black joker"), "RJ": gettext_lazy("red joker")}


def deck_of(game: str) -> str:
    return VARIANTS[game].deck if game in VARIANTS else "french-52"


def in_deck_order(deck: str, cards) -> list[str]:
    """`cards` as the deck lays them out before a shuffle (docs/fairness.md, "Byte level" 7): suit by suit, ranks
    ascending, jokers last. The deck decides: 3C is the three of clubs in a French deck, of cups in a Spanish one."""
    place = {code: i for i, code in enumerate(DECKS[deck])}
    return sorted(cards, key=lambda code: (place.get(code, len(place)), code))


def card_grid(deck: str, rows: list[dict]) -> dict:
    """The first-card rows as the page lays them out: a column per suit in the deck's order, a row per rank,
    ascending (reading down a column is the deck's order), then the jokers. A card never in a source is None."""
    spanish = deck == "spanish-40"
    by_card = {r["card"]: r for r in rows}
    suits = SPANISH_SUITS if spanish else FRENCH_SUITS
    heads = [{"suit": s, "symbol": "", "name": SPANISH[s], "red": False} if spanish else
             {"suit": s, "symbol": SUITS[s][0], "name": SUITS[s][1], "red": s in "HD"} for s in suits]
    ranks = []
    for r in SPANISH_RANKS if spanish else FRENCH_RANKS:
        cells = [by_card.get(r + s) for s in suits]
        if any(cells):
            ranks.append({"rank": r, "cells": cells})
    jokers = [{**by_card[j], "name": JOKER_NAMES[j]} for j in JOKERS if j in by_card]
    return {"suits": heads, "ranks": ranks, "jokers": jokers}


def report(games: dict) -> list[dict]:
    """What the page shows for each game, in the site's order of games: the rows (observed and expected; the cards
    in their deck's order) and the chi-square test of each, where its expected counts allow one."""
    out = []
    for game in sorted(games, key=lambda g: (list(VARIANTS).index(g) if g in VARIANTS else len(VARIANTS), g)):
        t = games[game]
        deck = deck_of(game)
        first = [{"card": c, "observed": t["first"].get(c, 0), "expected": t["first_expected"][c]}
                 for c in in_deck_order(deck, t["first_expected"])]
        classes = [{"class": k, "observed": t["classes"].get(k, 0), "expected": e}
                   for k, e in sorted(t["classes_expected"].items(), key=lambda kv: -kv[1])]
        tests = {"first": chi_square(t["first"], t["first_expected"], t["hands"]),
                 "classes": chi_square(t["classes"], t["classes_expected"], t["hands"])}
        out.append({"game": game, "deck": deck, "hands": t["hands"], "first": first, "grid": card_grid(deck, first),
                    "classes": classes, "tests": tests, "alarm": any(x.get("alarm") for x in tests.values())})
    return out


def distribution_report() -> dict | None:
    """The last refresh's report, or None before the first one."""
    state = cache.get(CACHE_KEY)
    if state is None:
        return None
    return {"at": datetime.fromisoformat(state["at"]), "games": report(state["games"]), "min_expected": MIN_EXPECTED}
