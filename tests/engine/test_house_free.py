"""The free hand (house-rules.md, `free_hand`; docs/rules.md "The free hand"): a two-card 15 may escape at its holder's
first decision, a challenger's stake back, or the banker's every stake not yet settled."""

import copy

import pytest

from games.engine import EngineError, bot_decide, legal_actions, rules_from
from games.engine.simulate import simulate
from games.engine.variants import VARIANTS
from tests.engine.helpers import Game, script

FREE = {"free_hand": True}
SEATS = {"B": 3000, "C1": 300, "C2": 300}


def game(deck, rules=FREE, seats=SEATS, preset="ban-luck", side=None):
    g = Game(preset, seats=dict(seats), rules=dict(rules), side=side)
    g.start(deck=deck)
    for seat in seats:
        if seat != "B":
            g.do(seat, "bet", amount=50)
    return g


def refused(g, actor, action, **args):
    with pytest.raises(EngineError) as e:
        g.do(actor, action, **args)
    return e.value.code


@pytest.mark.parametrize(("cards", "free"), [
    (["7H", "8S"], True), (["5D", "KC"], True), (["6C", "9D"], True), (["AS", "4H"], True),  # the ace counts 11
    (["7H", "9S"], False), (["AS", "5H"], False), (["5D", "5C", "5H"], False), (["AS", "KH"], False)])
def test_a_free_hand_is_two_cards_worth_exactly_15(cards, free):
    rules = rules_from("ban-luck", FREE)
    assert VARIANTS["ban-luck"].free_hand(cards, rules) is free
    assert VARIANTS["ban-luck"].free_hand(cards, rules_from("ban-luck", {})) is False  # the knob off: never


def test_the_challenger_escapes_at_the_first_decision_and_gets_the_stake_back():
    g = game(["7H", "9H", "10D", "8S", "8H", "6C"])
    assert g.turn() == "C1"
    assert "escape" in legal_actions(g.state, "C1")
    assert "stand" not in legal_actions(g.state, "C1")  # 15 must still draw when it does not escape
    g.do("C1", "escape")
    [esc] = g.of("free_hand_escaped")
    assert esc == {"type": "free_hand_escaped", "seat": "C1", "hand": 0, "banker": False}
    assert g.turn() == "C2"
    assert "escape" not in legal_actions(g.state, "C2")  # 17 is not a free hand
    g.do("C2", "stand")
    r = g.result("C1")
    assert (r["outcome"], r["paid"], r["multiplier"], r["why"]) == ("void", 0, 0, "free_hand")
    assert g.stack("C1") == 300 and g.result("C2")["outcome"] == "win"
    assert g.state.last_hand["hands"]["C1"][0]["cards"] == ["7H", "8S"]  # revealed at the end like every hand


def test_the_escaped_cards_turn_up_at_once_and_no_other_card_does():
    g = game(["7H", "9H", "10D", "8S", "8H", "6C"])
    before = g.view("C2")["hand"]["hands"]["C1"][0]["cards"]
    assert before == [{"hidden": True}, {"hidden": True}]
    g.do("C1", "escape")
    for viewer in ("C2", "B", None):
        v = g.view(viewer)
        mine = v["hand"]["hands"]["C1"][0]
        assert [c["card"] for c in mine["cards"]] == ["7H", "8S"] and mine["total"] == 15
        assert v["house"]["free_hand"] == {"escaped": ["C1"], "banker": False}
        if viewer != "C2":
            assert all("hidden" in c for c in v["hand"]["hands"]["C2"][0]["cards"])
        if viewer != "B":
            assert all("hidden" in c for c in v["hand"]["hands"]["B"][0]["cards"])
    shown = [e for e in g.of("hand_shown") if e["seat"] == "C1"]
    assert shown == [{"type": "hand_shown", "seat": "C1", "hand": 0, "cards": [["7H", "8S"]]}]


def test_escape_is_refused_after_a_hit_and_on_a_hand_that_is_not_15():
    g = game(["7H", "9H", "10D", "8S", "7C", "6C", "AC"])
    assert refused(g, "C2", "escape") == "not_your_turn"
    g.do("C1", "hit")  # 7 8 A: 16, the turn goes on
    assert g.turn() == "C1" and "escape" not in legal_actions(g.state, "C1")
    assert refused(g, "C1", "escape") == "escape_too_late"
    g.do("C1", "stand")
    assert refused(g, "C2", "escape") == "not_a_free_hand"


def test_without_the_knob_escape_is_refused_and_never_legal():
    g = game(["7H", "9H", "10D", "8S", "8H", "6C"], rules={})
    assert "escape" not in legal_actions(g.state, "C1")
    assert refused(g, "C1", "escape") == "free_hand_off"
    assert refused(g, "C1", "stand") == "must_hit_below_16"


def test_the_forced_banker_with_a_free_hand_chooses_first_escape_or_the_forced_draw():
    g = game(["9H", "10S", "7D", "8H", "7C", "8C"])  # C1 17, C2 17, B 7 8
    g.do("C1", "stand")
    g.do("C2", "stand")
    assert g.turn() == "B" and g.state.deadline_for == ["B"]
    assert legal_actions(g.state, "B")[:2] == ["hit", "escape"]
    assert g.view("C1")["hand"]["hands"]["B"][0]["total"] == 15  # the banker's turn turned its cards up
    assert refused(g, "B", "stand") == "must_hit_below_16"  # the forced rule still holds: 15 draws
    g.do("B", "escape")
    assert [(r["bettor"], r["outcome"], r["why"]) for r in g.results()] == [
        ("C1", "void", "free_hand"), ("C2", "void", "free_hand")]
    assert g.state.phase == "between_hands" and g.stack("C1") == g.stack("C2") == 300
    assert g.of("free_hand_escaped")[0]["banker"] is True


def test_the_banker_escape_keeps_the_specials_paid():
    out = script("house-free-hand-banker-escapes")
    assert [(r["bettor"], r["outcome"], r["paid"]) for r in out["results"]] == [
        ("C1", "win", 200), ("C2", "void", 0), ("C3", "void", 0)]
    assert out["hands"]["B"]["cards"] == ["7D", "8C"] and out["deltas"]["B"] == -200


def test_a_timeout_never_escapes():
    g = game(["7H", "9H", "7D", "8S", "8H", "8C", "2C", "3C"])  # C1 7 8, C2 17, B 7 8
    g.do("system", "timeout")  # C1 draws, as below 16 always
    assert [c[0] for c in g.state.hand["hands"]["C1"][0]["cards"]] == ["7H", "8S", "2C"]
    g.do("C1", "stand")
    g.do("C2", "stand")
    assert g.turn() == "B"
    g.do("system", "timeout")  # the banker plays by the forced rule: 7 8 3 = 18
    assert g.state.phase == "between_hands" and not g.of("free_hand_escaped")
    assert g.state.last_hand["hands"]["B"][0]["cards"] == ["7D", "8C", "3C"]


def test_a_banker_who_leaves_plays_the_forced_rule_without_waiting():
    g = game(["9H", "10S", "7D", "8H", "7C", "8C", "5C"])
    g.do("B", "leave")
    g.do("C1", "stand")
    g.do("C2", "stand")
    assert g.state.phase == "between_hands" and not g.of("free_hand_escaped")


def test_with_banker_opens_the_banker_escapes_before_opening_anyone_only():
    rules = {**FREE, "banker_opens": True, "banker_open_from": 15}
    g = game(["9H", "10S", "7D", "8H", "7C", "8C"], rules=rules)
    g.do("C1", "stand")
    g.do("C2", "stand")
    assert g.turn() == "B" and "escape" in legal_actions(g.state, "B") and "open" in legal_actions(g.state, "B")
    before = copy.deepcopy(g.state)
    g.do("B", "open", seat="C1")
    assert refused(g, "B", "escape") == "escape_too_late"
    g.state = before
    g.do("B", "escape")
    assert {r["bettor"]: r["why"] for r in g.results()} == {"C1": "free_hand", "C2": "free_hand"}


def test_the_knob_is_frozen_for_the_hand():
    g = game(["7H", "9H", "10D", "8S", "8H", "6C"])
    g.do("system", "set_rules", rules=rules_from("ban-luck", {}).to_json())
    assert "escape" in legal_actions(g.state, "C1")
    g.do("C1", "escape")
    assert g.state.hand["results"][0]["why"] == "free_hand"


def test_a_side_bet_on_an_escaped_hand_comes_back():
    rules = {**FREE, "side_bets_enabled": True, "max_side_bettors": 2}
    g = Game("ban-luck", seats=dict(SEATS), rules=rules, side={"S1": 300})
    g.start(deck=["7H", "9H", "10D", "8S", "8H", "6C"])
    g.do("C1", "bet", amount=50)
    g.do("C2", "bet", amount=50)
    g.do("S1", "side_bet", backs="C1", amount=40)
    g.do("C1", "escape")
    g.do("C2", "stand")
    side = g.result("S1", "side")
    assert (side["outcome"], side["paid"]) == ("void", 0) and g.stack("S1") == 300


@pytest.mark.parametrize("level", ["basic", "expert"])
def test_the_bots_escape_as_challenger_and_as_banker(level):
    g = game(["7H", "9H", "7D", "8S", "8H", "8C"])
    rules = g.state.rules
    assert bot_decide(g.view("C1"), level, rules) == ("escape", {})
    g.do("C1", "hit")
    g.do("C1", "stand") if "stand" in legal_actions(g.state, "C1") else None
    if g.turn() == "C2":
        g.do("C2", "stand")
    assert g.turn() == "B"
    assert bot_decide(g.view("B"), level, rules) == ("escape", {})


def test_the_simulator_plays_the_escape_on_the_machine_path():
    out = simulate("ban-luck", 300, seed=7, rules=FREE)
    assert out["engine"] == "machine"
    plain = simulate("ban-luck", 300, seed=7)
    assert plain["engine"] == "fast"
    assert out["challenger"]["push"] > plain["challenger"]["push"]  # escapes come back as voids
    with pytest.raises(EngineError):
        simulate("ban-luck", 10, rules=FREE, engine="fast")


def test_the_records_of_hands_with_escapes_pass_the_verifier():
    from tests.test_verifier import honest_records, tool

    records = honest_records("ban-luck", FREE, 40)
    whys = [r.get("why") for rec in records for r in rec["results"]]
    assert "free_hand" in whys
    report = tool.check_files(records)
    assert [(title, c, what) for title, lines in report for c, ok, what in lines if not ok] == []


def test_the_browser_verifier_passes_them_too(tmp_path):
    """static/js/fair.js (the verify page's checks), run by Node on the same records."""
    import json
    import pathlib
    import shutil
    import subprocess

    from tests.test_verifier import honest_records

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node")
    records = [r for r in honest_records("ban-luck", FREE, 40)
               if any(x.get("why") == "free_hand" for x in r["results"])]
    assert records
    (tmp_path / "records.json").write_text(json.dumps(records))
    fair = (pathlib.Path(__file__).resolve().parents[2] / "static" / "js" / "fair.js").as_uri()
    code = (f"import('{fair}').then(async (f) => {{ const rs = JSON.parse(require('fs').readFileSync("
            f"'{tmp_path / 'records.json'}', 'utf8')); const out = []; for (const r of rs) {{ const v = await "
            "f.verifyRecord(r); out.push(v.checks.filter((c) => !c.ok).map((c) => c.id)); } "
            "console.log(JSON.stringify(out)); });")
    done = subprocess.run([node, "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[] for _ in records]
