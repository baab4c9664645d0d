"""What a rule set does to the game, before a host saves it: the banker's edge and the challengers'
win/push/lose rates from the engine's simulator (every preset, the house rules' too, and any room's knobs: the
simulator plays each house rule), computed in a Celery task (games/tasks.py, `rules_stats`)
with progress, and cached per rule set, so the same rules are simulated once. Pure computation: the page
that asks for it is `rules_stats_view` (games/views.py).
"""

import hashlib
import json

from django.core.cache import cache

from games.engine.simulate import fast_path_applies, sim_rules, simulate

BLOCK = 1000
HANDS_FAST = 20_000  # Ten and a Half, Zhejiang, Chinese Blackjack: the simulator's fast path
HANDS_MACHINE = 4_000  # Seven and a Half, and the house rules the fast path does not play, through the state machine
CACHE_SECONDS = 7 * 24 * 3600
# How long a "running" mark lasts unless the worker's progress renews it (each block takes a few seconds): the mark
# of a task that never ran or whose worker died expires, and the next poll starts the simulation again.
RUNNING_SECONDS = 60


def running(progress: float) -> dict:
    return {"status": "running", "progress": progress}


def rules_key(preset: str, rules_json: dict) -> str:
    blob = json.dumps({"preset": preset, "rules": rules_json}, sort_keys=True).encode()
    return "rules-stats:" + hashlib.sha256(blob).hexdigest()


def hands_for(preset: str, overrides: dict) -> int:
    """How many hands the figure plays: more where the simulator's fast path plays the rule set (the four games'
    presets but Seven and a Half's), fewer through the state machine (Seven and a Half, the bank auction, let it
    ride, and any house rule the fast path leaves to the machine)."""
    return HANDS_FAST if fast_path_applies(sim_rules(preset, overrides), "basic") else HANDS_MACHINE


def compute(key: str, preset: str, overrides: dict) -> dict:
    """Simulate in blocks, publishing progress in the cache (the database's cache table in the embedded default,
    Redis otherwise: a store the web process reads too); the result is cached for a week."""
    hands = hands_for(preset, overrides)
    totals = {"hands": 0, "win": 0.0, "push": 0.0, "lose": 0.0, "net": 0.0, "staked": 0.0, "challenger_hands": 0}
    for start in range(0, hands, BLOCK):
        part = simulate(preset, BLOCK, seed=f"stats:{start}", rules=overrides)
        n = part["challenger"]["hands"]
        totals["hands"] += part["hands"]
        totals["challenger_hands"] += n
        for k in ("win", "push", "lose"):
            totals[k] += part["challenger"][k] * n
        # In base stakes: a stake is one base stake a hand, more with let it ride or a bank won at auction.
        staked = part["challenger"].get("stake_per_hand", 1.0) * n
        totals["staked"] += staked
        totals["net"] += part["challenger"]["net_per_stake"] * staked
        cache.set(key, running((start + BLOCK) / hands), RUNNING_SECONDS)
    n = max(totals["challenger_hands"], 1)
    result = {
        "hands": totals["hands"],
        "win": totals["win"] / n, "push": totals["push"] / n, "lose": totals["lose"] / n,
        # What the bank earns per unit a challenger stakes (the challengers' loss): the banker's edge.
        "banker_edge": -totals["net"] / max(totals["staked"], 1e-9),
    }
    done = {"status": "done", "progress": 1.0, "result": result}
    cache.set(key, done, CACHE_SECONDS)
    return done

