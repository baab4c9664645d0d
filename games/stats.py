"""What a rule set does to the game, before a host saves it: the banker's edge and the challengers'
win/push/lose rates from the engine's simulator, computed in a Celery task (games/tasks.py, `rules_stats`)
with progress, and cached per rule set, so the same rules are simulated once. Pure computation: the page
that asks for it is `rules_stats_view` (games/views.py).
"""

import hashlib
import json

from django.core.cache import cache

from games.engine import PRESETS
from games.engine.simulate import FAST_GAMES, simulate

BLOCK = 1000
HANDS_FAST = 20_000  # Ten and a Half, Zhejiang, Chinese Blackjack: the simulator's fast path
HANDS_MACHINE = 4_000  # Seven and a Half plays through the full state machine
CACHE_SECONDS = 7 * 24 * 3600
# How long a "running" mark lasts unless the worker's progress renews it (each block takes a few seconds): the mark
# of a task that never ran or whose worker died expires, and the next poll starts the simulation again.
RUNNING_SECONDS = 60


def running(progress: float) -> dict:
    return {"status": "running", "progress": progress}


def rules_key(preset: str, rules_json: dict) -> str:
    blob = json.dumps({"preset": preset, "rules": rules_json}, sort_keys=True).encode()
    return "rules-stats:" + hashlib.sha256(blob).hexdigest()


def compute(key: str, preset: str, overrides: dict) -> dict:
    """Simulate in blocks, publishing progress in the cache (the database's cache table in the embedded default,
    Redis otherwise: a store the web process reads too); the result is cached for a week."""
    game = PRESETS[preset].game
    hands = HANDS_FAST if game in FAST_GAMES else HANDS_MACHINE
    totals = {"hands": 0, "win": 0.0, "push": 0.0, "lose": 0.0, "net": 0.0, "challenger_hands": 0}
    for start in range(0, hands, BLOCK):
        part = simulate(preset, BLOCK, seed=f"stats:{start}", rules=overrides)
        n = part["challenger"]["hands"]
        totals["hands"] += part["hands"]
        totals["challenger_hands"] += n
        for k in ("win", "push", "lose"):
            totals[k] += part["challenger"][k] * n
        totals["net"] += part["challenger"]["net_per_stake"] * n
        cache.set(key, running((start + BLOCK) / hands), RUNNING_SECONDS)
    n = max(totals["challenger_hands"], 1)
    result = {
        "hands": totals["hands"],
        "win": totals["win"] / n, "push": totals["push"] / n, "lose": totals["lose"] / n,
        # What the bank earns per unit a challenger stakes (the challengers' loss): the banker's edge.
        "banker_edge": -totals["net"] / n,
    }
    done = {"status": "done", "progress": 1.0, "result": result}
    cache.set(key, done, CACHE_SECONDS)
    return done

