"""Golden scripts: every tests/engine/scripts/NAME.json gives NAME.expected.json (play_script)."""

import io
import json
import pathlib
import subprocess
import sys

import pytest

from games.engine.script import run_script_safe

SCRIPTS = pathlib.Path(__file__).parent / "scripts"
ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = sorted(p for p in SCRIPTS.glob("*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_script(path):
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    out, status = run_script_safe(json.loads(path.read_text()))
    assert status == expected["status"]
    assert out == expected["output"]


def test_script_results_have_the_documented_keys():
    out, _ = run_script_safe(json.loads((SCRIPTS / "ten-half-dice-and-side-bet.json").read_text()))
    assert {"order", "hands", "results", "bank", "stacks"} <= set(out)
    assert set(out["results"][0]) >= {"bettor", "kind", "backs", "stake", "outcome", "multiplier", "due", "paid"}
    assert set(out["hands"]["C1"]) >= {"cards", "total", "class", "bust"}


@pytest.mark.parametrize("data", [[], {"preset": "nope", "seats": []}, {"preset": "ten-half"},
                                  {"preset": "ten-half", "seats": [{"name": "B", "stack": "x"}]},
                                  {"preset": "ten-half", "seats": [{"name": "B", "stack": 9, "banker": True},
                                                                   {"name": "C", "stack": 9}], "actions": [["C"]]}])
def test_a_malformed_script_is_an_error_never_a_traceback(data):
    out, status = run_script_safe(data)
    assert status == 2 and set(out["error"]) == {"code", "message"}


def test_play_script_command_prints_the_result():
    from django.core.management import call_command

    buf = io.StringIO()
    call_command("play_script", str(SCRIPTS / "ten-half-five-dragons.json"), stdout=buf)
    assert json.loads(buf.getvalue())["results"][0]["multiplier"] == 2


def test_play_script_command_exits_2_with_the_error_code():
    proc = subprocess.run([sys.executable, "manage.py", "play_script", str(SCRIPTS / "error-not-your-turn.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "not_your_turn"
    assert "Traceback" not in proc.stderr
