"""A small named cast for engine tests: B banks, C1..C3 challenge, S1/S2 side bet."""

import json
import pathlib

from games.engine import Command, apply, new_table, rules_from, view
from games.engine.script import run_script
from games.engine.variants import VARIANTS

SEED = "11" * 32
SCRIPTS = pathlib.Path(__file__).parent / "scripts"


class Game:
    def __init__(self, preset="ten-half", seats=None, rules=None, side=None, bank=None, banker="B"):
        self.rules = rules_from(preset, rules or {})
        self.state = new_table(self.rules)
        self.events: list[dict] = []
        self.now = 1000.0
        seats = seats if seats is not None else {"B": 500, "C1": 1000, "C2": 1000, "C3": 1000}
        for i, (name, stack) in enumerate(seats.items()):
            args = {"name": name, "stack": stack, "position": i}
            if name == banker:
                args["banker"] = True
                if bank is not None:
                    args["bank"] = bank
            self.do(name, "sit", **args)
        for i, (name, stack) in enumerate((side or {}).items()):
            self.do(name, "sit", name=name, stack=stack, role="side", position=i)

    def do(self, actor, action, **args):
        self.now += 1
        self.state, events = apply(self.state, Command(actor, action, args, self.now))
        self.events += events
        return events

    def start(self, deck=None, dice=None, seed=SEED):
        args = {"seed_hex": seed}
        if deck is not None:
            args["deck"] = deck
        if dice is not None:
            args["dice"] = dice
        return self.do("system", "start_hand", **args)

    def close_betting(self):
        if self.state.phase == "betting":
            self.do("system", "timeout")

    def turn(self):
        h = self.state.hand
        return h["turn"][0] if h and h["turn"] and self.state.phase == "playing" else None

    def play_out(self, action="stand"):
        """Every remaining turn takes ``action`` (or its timeout default when that is refused)."""
        self.close_betting()
        for _ in range(200):
            seat = self.turn()
            if seat is None:
                return
            from games.engine import legal_actions

            if action in legal_actions(self.state, seat):
                self.do(seat, action)
            else:
                self.do("system", "timeout")

    def stack(self, seat):
        return self.state.seat(seat)["stack"]

    def result(self, bettor, kind="main"):
        return next(r for r in self.state.last_hand["results"] if r["bettor"] == bettor and r["kind"] == kind)

    def results(self):
        return self.state.last_hand["results"]

    def view(self, viewer):
        return view(self.state, viewer)

    def of(self, type_):
        return [e for e in self.events if e["type"] == type_]


def ev(preset, cards, **overrides):
    rules = rules_from(preset, overrides)
    return VARIANTS[rules.game].evaluate(cards, rules)


def compare(preset, challenger, banker, **overrides):
    rules = rules_from(preset, overrides)
    v = VARIANTS[rules.game]
    return v.compare(v.evaluate(challenger, rules), v.evaluate(banker, rules), rules)


def script(name):
    """The output of the golden script tests/engine/scripts/NAME.json (its .expected.json holds the same)."""
    return run_script(json.loads((SCRIPTS / f"{name}.json").read_text()))
