"""simulate: the fast path equals the state machine, workers do not change results, bots decide."""

import io
import json

import pytest

from games.engine import EngineError, bot_decide, view
from games.engine.simulate import simulate

from .helpers import Game


def _strip(r):
    return {k: v for k, v in r.items() if k not in ("hands_per_second", "engine", "workers")}


@pytest.mark.parametrize("preset,seats", [("ten-half", 4), ("ten-half", 2), ("zhejiang-ten-half", 4),
                                          ("ban-luck", 5), ("zhejiang-ten-half", 3)])
def test_fast_path_gives_the_same_results_as_the_state_machine(preset, seats):
    fast = simulate(preset, 400, seed=7, seats=seats, engine="fast")
    machine = simulate(preset, 400, seed=7, seats=seats, engine="machine")
    assert _strip(fast) == _strip(machine)


def test_fast_path_matches_the_machine_with_a_threshold_strategy():
    kw = dict(seed=3, strategy="threshold:6.5", seats=4)
    assert _strip(simulate("ten-half", 300, engine="fast", **kw)) == _strip(simulate("ten-half", 300,
                                                                                      engine="machine", **kw))


def test_same_seed_same_numbers_and_workers_do_not_change_them():
    one = simulate("ten-half", 2500, seed="abc", seats=4)
    again = simulate("ten-half", 2500, seed="abc", seats=4)
    two = simulate("ten-half", 2500, seed="abc", seats=4, workers=2)
    assert _strip(one) == _strip(again) == _strip(two)
    assert _strip(one) != _strip(simulate("ten-half", 2500, seed="abd", seats=4))


def test_simulation_reports_rates_net_and_classes():
    r = simulate("seven-half", 60, seed=1, seats=3)
    c = r["challenger"]
    assert abs(c["win"] + c["push"] + c["lose"] - 1) < 1e-9 and c["hands"] == 120
    assert abs(sum(r["classes"].values()) - 1) < 1e-9 and r["hands_per_second"] > 0


def test_bad_strategy_and_seats_are_refused():
    with pytest.raises(EngineError):
        simulate("ten-half", 10, strategy="lucky")
    with pytest.raises(EngineError):
        simulate("ten-half", 10, seats=5)


def test_simulate_command_prints_json():
    from django.core.management import call_command

    buf = io.StringIO()
    call_command("simulate", "--preset", "ten-half", "--hands", "200", "--seed", "1", "--json", stdout=buf)
    out = json.loads(buf.getvalue())
    assert out["hands"] == 200 and set(out["challenger"]) >= {"win", "push", "lose", "net_per_stake"}


# -- bots ----------------------------------------------------------------------------------------------
def test_basic_bot_stands_from_its_threshold_and_bets_the_base_stake():
    g = Game()
    g.start(dice=[3, 3], deck=["8S", "5H"])
    assert bot_decide(view(g.state, "C1"), "basic", g.rules) == ("bet", {"amount": 10})
    g.close_betting()
    assert bot_decide(view(g.state, "C1"), "basic", g.rules) == ("stand", {})
    g.do("C1", "stand")
    assert bot_decide(view(g.state, "C2"), "basic", g.rules) == ("hit", {})


def test_expert_bot_stands_on_ten_and_hits_a_low_card():
    g = Game()
    g.start(dice=[3, 3], deck=["10S", "AH"])
    g.close_betting()
    assert bot_decide(view(g.state, "C1"), "expert", g.rules)[0] == "stand"
    g.do("C1", "stand")
    assert bot_decide(view(g.state, "C2"), "expert", g.rules)[0] == "hit"


def test_expert_bot_beats_a_bad_fixed_threshold():
    expert = simulate("ten-half", 80, seed=5, seats=2, strategy="expert")
    reckless = simulate("ten-half", 80, seed=5, seats=2, strategy="threshold:10")
    assert expert["challenger"]["net_per_stake"] > reckless["challenger"]["net_per_stake"]


def test_a_bot_never_sees_more_than_its_view():
    g = Game()
    g.start(dice=[3, 3])
    g.close_betting()
    v = view(g.state, "C1")
    assert all("hidden" in c for k, phs in v["hand"]["hands"].items() if k != "C1" for ph in phs for c in ph["cards"])
    assert bot_decide(v, "expert", g.rules)[0] in v["legal_actions"]


def test_the_ban_luck_banker_bot_follows_the_forced_rule():
    g = Game("ban-luck", seats={"B": 3000, "C1": 300})
    g.start(deck=["9S", "5D", "8S", "4D", "2C", "5C"])
    g.close_betting()
    g.do("C1", "stand")
    assert g.state.last_hand["hands"]["B"][0]["cards"] == ["5D", "4D", "2C", "5C"]
