"""``python manage.py simulate --preset P --hands N --seed S [...]``: bot hands and their statistics.
``--each-knob``: the banker's edge of the preset as it is, then with each house rule (house-rules.md) its game
offers turned on, one line each (the figures of docs/rules.md, "House rules: the banker's edge").

A thin shell over games.engine.simulate.simulate (the docstring there says how hands are played).
"""

import json
import sys

from django.core.management.base import BaseCommand

from games.engine import PRESETS, EngineError
from games.engine.rules import HOUSE_PRESETS
from games.engine.simulate import simulate

# The house rules each game offers, as the overrides that turn each on (house-rules.md), in the order the lines print.
HOUSE_KNOBS = {
    "ten-half": [{"bank_auction": True}, {"push_cap": 10}, {"bank_auction": True, "push_cap": 10}],
    "zhejiang-ten-half": [{"bank_auction": True}, {"push_cap": 10}],
    "seven-half": [{"matta": "king-of-coins"}, {"matta": "king-of-coins", "matta_natural": True}],
    "ban-luck": [{"banker_opens": True}, {"free_hand": True}, {"banker_opens": True, "free_hand": True}],
}


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
        parser.add_argument("--each-knob", action="store_true",
                            help="the banker's edge without and with each house rule of the preset's game")

    def handle(self, *args, **o):
        if o["each_knob"]:
            return self.each_knob(o)
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

    def each_knob(self, o):
        """One line per rule set: the preset as it is (its house knobs off), then each house rule on."""
        game = HOUSE_PRESETS.get(o["preset"], o["preset"])
        off = {k: PRESETS[game].to_json()[k] for case in HOUSE_KNOBS[game] for k in case}
        cases = [("(none)", off)] + [(json.dumps(case, sort_keys=True), {**off, **case}) for case in HOUSE_KNOBS[game]]
        rows = []
        for label, overrides in cases:
            r = simulate(game, o["hands"], o["seed"], rules=overrides, strategy=o["strategy"], seats=o["seats"],
                         workers=o["workers"], engine=o["engine"])
            c = r["challenger"]
            rows.append({"game": game, "house_rules": label, "hands": r["hands"], "engine": r["engine"],
                         "bankers_edge": -c["net_per_stake"], "win": c["win"], "push": c["push"], "lose": c["lose"]})
            if not o["json"]:
                self.stdout.write(f"{game:18} {label:55} {r['hands']:>8} hands  banker's edge {-c['net_per_stake']:+.4f}"
                                  f"  (win {c['win']:.4f} push {c['push']:.4f} lose {c['lose']:.4f}; {r['engine']})")
        if o["json"]:
            self.stdout.write(json.dumps(rows, indent=2))
