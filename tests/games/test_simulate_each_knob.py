"""`simulate --each-knob`: the banker's edge of a game without and with each of its house rules (docs/rules.md)."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from games.management.commands.simulate import HOUSE_KNOBS


def each_knob(preset: str, hands: int = 200) -> list[dict]:
    out = StringIO()
    call_command("simulate", preset=preset, each_knob=True, hands=hands, json=True, stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("game", sorted(HOUSE_KNOBS))
def test_each_house_rule_of_a_game_gets_its_own_line_played_by_the_state_machine(game):
    rows = each_knob(game)
    assert [r["house_rules"] for r in rows] == ["(none)"] + [json.dumps(c, sort_keys=True) for c in HOUSE_KNOBS[game]]
    assert all(r["hands"] == 200 for r in rows)
    # The fast path knows no house rule: a knob on must be played by the machine, or its line would be the preset's.
    assert all(r["engine"] == "machine" for r in rows[1:]), rows


def test_a_house_preset_prints_the_lines_of_its_game():
    assert [r["house_rules"] for r in each_knob("seven-half-matta", 100)] == \
        [r["house_rules"] for r in each_knob("seven-half", 100)]
