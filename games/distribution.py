"""The distribution report (docs/fairness.md, "The distribution report"): per game, how often each card came first
and which class the first two cards made, over every finished hand on the site, against what an honest shuffle
gives, with chi-square p-values. `distribution_refresh` (a Celery task, games/tasks.py, hourly) adds the hands that
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

from games.engine import Rules
from games.engine.cards import DECKS, canonical_sorted, rank
from games.engine.variants import VARIANTS
from games.models import Hand

CACHE_KEY = "games:distribution:1"
BATCH = 2000
ALARM = 0.001  # a p-value below this is shown as a warning


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


def chi_square(observed: dict, expected: dict) -> dict:
    """Pearson's statistic over the categories an honest shuffle can give, its degrees of freedom and p-value."""
    cells = [(observed.get(k, 0), e) for k, e in expected.items() if e > 0]
    statistic = sum((o - e) ** 2 / e for o, e in cells)
    df = max(len(cells) - 1, 1)
    return {"statistic": statistic, "df": df, "p": p_value(statistic, df)}


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


def report(games: dict) -> list[dict]:
    """What the page shows for each game: the rows (observed and expected) and their chi-square test."""
    out = []
    for game, t in sorted(games.items()):
        deck = canonical_sorted(t["first_expected"])
        first = [{"card": c, "observed": t["first"].get(c, 0), "expected": t["first_expected"][c]} for c in deck]
        classes = [{"class": k, "observed": t["classes"].get(k, 0), "expected": e}
                   for k, e in sorted(t["classes_expected"].items(), key=lambda kv: -kv[1])]
        tests = {"first": chi_square(t["first"], t["first_expected"]),
                 "classes": chi_square(t["classes"], t["classes_expected"])}
        out.append({"game": game, "hands": t["hands"], "first": first, "classes": classes, "tests": tests,
                    "alarm": any(x["p"] < ALARM for x in tests.values())})
    return out


def distribution_report() -> dict | None:
    """The last refresh's report, or None before the first one."""
    state = cache.get(CACHE_KEY)
    return None if state is None else {"at": datetime.fromisoformat(state["at"]), "games": report(state["games"])}
