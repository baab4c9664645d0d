"""``python manage.py simulate --preset P --hands N --seed S [...]``: bot hands and their statistics.

A thin shell over games.engine.simulate.simulate (the docstring there says how hands are played).
"""

import json
import sys

from django.core.management.base import BaseCommand

from games.engine import PRESETS, EngineError
from games.engine.simulate import simulate


class Command(BaseCommand):
    help = "Simulate bot hands of a preset and report challenger win/push/lose rates, net per stake and classes."

    def add_arguments(self, parser):
        parser.add_argument("--preset", required=True, choices=sorted(PRESETS))
        parser.add_argument("--rules", default="{}", help="rule overrides as a JSON object")
        parser.add_argument("--hands", type=int, default=10_000)
        parser.add_argument("--seed", default="0")
        parser.add_argument("--strategy", default="basic", help="basic, expert or threshold:X")
        parser.add_argument("--seats", type=int, default=None, help="main seats, the banker included")
        parser.add_argument("--workers", type=int, default=1)
        parser.add_argument("--engine", default="auto", choices=("auto", "fast", "machine"))
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **o):
        try:
            overrides = json.loads(o["rules"])
            result = simulate(o["preset"], o["hands"], o["seed"], rules=overrides, strategy=o["strategy"],
                              seats=o["seats"], workers=o["workers"], engine=o["engine"])
        except EngineError as e:
            self.stdout.write(json.dumps({"error": e.to_json()}))
            sys.exit(2)
        except ValueError as e:
            self.stdout.write(json.dumps({"error": {"code": "bad_rules", "message": f"--rules is not JSON: {e}"}}))
            sys.exit(2)
        if o["json"]:
            self.stdout.write(json.dumps(result, indent=2))
            return
        c = result["challenger"]
        lines = [
            f"{result['preset']}: {result['hands']} hands, {result['seats']} seats, strategy {result['strategy']}"
            f" ({result['engine']} path, {result['workers']} worker(s))",
            f"challenger hands {c['hands']}: win {c['win']:.4f}  push {c['push']:.4f}  lose {c['lose']:.4f}",
            f"challenger net per unit staked {c['net_per_stake']:+.4f} (banker's edge {-c['net_per_stake']:+.4f})",
            "classes: " + ", ".join(f"{k} {v:.4f}" for k, v in result["classes"].items()),
            f"{result['hands_per_second']:.0f} hands/s",
        ]
        self.stdout.write("\n".join(lines))
