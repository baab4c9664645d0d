"""What a rule set does to the game, before a host saves it: the banker's edge and the challengers'
win/push/lose rates from the engine's simulator, computed in a Celery task (with progress) and
cached per rule set, so the same rules are simulated once.

`GET|POST /rules/stats/?preset=P` with the rules form's fields (games/rules_form.py) answers
{"status": "invalid", "errors": {...}} or {"status": "running", "progress": 0..1} or
{"status": "done", "progress": 1, "result": {...}}; the page polls until done (static/js/rules-stats.js).
"""

import hashlib
import json

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_http_methods

from games.engine import PRESETS
from games.engine.simulate import FAST_GAMES, simulate
from games.rules_form import RulesForm

BLOCK = 1000
HANDS_FAST = 20_000  # Ten and a Half, Zhejiang, Chinese Blackjack: the simulator's fast path
HANDS_MACHINE = 4_000  # Seven and a Half plays through the full state machine
CACHE_SECONDS = 7 * 24 * 3600


def rules_key(preset: str, rules_json: dict) -> str:
    blob = json.dumps({"preset": preset, "rules": rules_json}, sort_keys=True).encode()
    return "rules-stats:" + hashlib.sha256(blob).hexdigest()


def compute(key: str, preset: str, overrides: dict) -> dict:
    """Simulate in blocks, publishing progress in the cache; the result is cached for a week."""
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
        cache.set(key, {"status": "running", "progress": (start + BLOCK) / hands}, CACHE_SECONDS)
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


@login_required
@require_http_methods(["GET", "POST"])
def rules_stats_view(request: HttpRequest) -> JsonResponse:
    from games.tasks import rules_stats

    preset = request.GET.get("preset", "")
    if preset not in PRESETS:
        return JsonResponse({"status": "invalid", "errors": {"preset": ["Unknown game."]}}, status=400)
    data = request.POST or None
    if request.GET.get("form") == "lobby":
        # The lobby's create-room form shows a game's main knobs only (games/forms.py KnobsForm), and
        # posts them only while that game is chosen; without them the room takes the preset as it is.
        from games.forms import KnobsForm

        form = KnobsForm(preset, data if data and data.get(f"{preset}-shown") == "1" else None)
    else:
        form = RulesForm(preset, data, prefix=request.GET.get("prefix") or None)
    if form.is_bound and not form.is_valid():
        return JsonResponse({"status": "invalid", "errors": form.errors.get_json_data()}, status=400)
    overrides = form.overrides if form.is_bound else {}
    rules = form.rules.to_json() if form.rules is not None else PRESETS[preset].to_json()
    key = rules_key(preset, rules)
    found = cache.get(key)
    if found is not None:
        return JsonResponse(found)
    # One simulation per rule set: only the request that sets the marker starts the task.
    if cache.add(key, {"status": "running", "progress": 0.0}, CACHE_SECONDS):
        rules_stats.delay(key, preset, overrides)
    return JsonResponse(cache.get(key) or {"status": "running", "progress": 0.0})
