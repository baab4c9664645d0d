"""house-rules.md "The matta": the king of coins is wild in Seven and a Half (docs/rules.md, "The matta")."""

import itertools
import json

import pytest

from games.engine import legal_actions, rules_from, view
from games.engine import script as script_module
from games.engine.bots import bot_decide
from games.engine.cards import SPANISH_40
from games.engine.machine import _draw_rank
from games.engine.variants import VARIANTS
from games.engine.variants.seven_half import POINTS

from .helpers import SCRIPTS, Game

V = VARIANTS["seven-half"]
MATTA = rules_from("seven-half-matta")
NATURAL = rules_from("seven-half-matta", {"matta_natural": True})
OFF = rules_from("seven-half")
MATTA_VALUES = (1, 2, 4, 6, 8, 10, 12, 14)  # ½, 1..7 in half points


def game(rules=None, seats=None):
    return Game("seven-half-matta", rules=rules, seats=seats or {"B": 1000, "C1": 1000, "C2": 1000})


# -- the value ---------------------------------------------------------------------------------------
def test_alone_the_matta_is_worth_a_half():
    assert V.evaluate(["KO"], MATTA).total == 1 and V.matta_value(["KO"], MATTA) == 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_matta_takes_the_value_that_makes_the_best_total_without_going_over(n):
    others_pool = [c for c in SPANISH_40 if c != "KO"]
    for others in itertools.combinations(others_pool, n - 1):
        base = sum(POINTS[c] for c in others)
        cards = ["KO", *others]
        ev = V.evaluate(cards, MATTA)
        value = V.matta_value(cards, MATTA)
        fitting = [base + v for v in MATTA_VALUES if base + v <= 15]
        best = max(fitting) if fitting else base + 1  # nothing fits: bust, the matta at its lowest
        assert value in MATTA_VALUES and ev.total == base + value == best, cards


def test_examples_in_docs_rules():
    # docs/rules.md "The matta": a worked example.
    assert (V.matta_value(["KO", "JC"], MATTA), V.evaluate(["KO", "JC"], MATTA).total) == (14, 15)  # 7, 7½
    assert (V.matta_value(["KO", "2C"], MATTA), V.evaluate(["KO", "2C"], MATTA).total) == (10, 14)  # 5, 7
    assert (V.matta_value(["6C", "KO"], MATTA), V.evaluate(["6C", "KO"], MATTA).total) == (2, 14)  # 1, 7
    assert (V.matta_value(["5C", "2E", "KO"], MATTA), V.evaluate(["5C", "2E", "KO"], MATTA).total) == (1, 15)
    assert V.evaluate(["4C", "3E", "1O", "KO"], MATTA).bust  # 8 already: ½ is the least, still bust


def test_the_king_of_coins_is_a_plain_king_with_the_rule_off():
    assert V.evaluate(["KO", "5C"], OFF).total == 11 and V.matta_value(["KO", "5C"], OFF) is None
    assert V.matta_value(["KC", "5C"], MATTA) is None  # only the king of coins


def test_a_two_card_matta_seven_and_a_half_is_a_natural_only_with_matta_natural():
    for hand in (["KO", "JC"], ["7C", "KO"]):
        assert V.evaluate(hand, MATTA).cls == "seven-and-a-half" and V.evaluate(hand, MATTA).mult == 1
        assert V.evaluate(hand, NATURAL).cls == "natural" and V.evaluate(hand, NATURAL).mult == 2
    assert V.evaluate(["7C", "JO"], MATTA).cls == "natural"  # without the matta, as before
    assert V.evaluate(["KO", "3C", "JE"], NATURAL).cls == "seven-and-a-half"  # three cards are never a natural


# -- golden scripts ----------------------------------------------------------------------------------
def played(name, monkeypatch):
    """A golden script's output, and the events and last hand of its run."""
    runs = []
    real = script_module._output
    monkeypatch.setattr(script_module, "_output", lambda run: (runs.append(run), real(run))[1])
    out = script_module.run_script(json.loads((SCRIPTS / f"{name}.json").read_text()))
    return out, runs[-1].events, runs[-1].state.last_hand


def mattas(events):
    return [(e["seat"], e["hand"], e["value"]) for e in events if e["type"] == "matta_valued"]


@pytest.mark.parametrize(("name", "told", "classes", "paid"), [
    ("house-matta-alone", [("C1", 0, 0.5)], {"C1": "ordinary"}, [("lose", 1)]),
    ("house-matta-three-cards", [("C1", 0, 4)], {"C1": "seven-and-a-half"}, [("win", 1)]),
    ("house-matta-two-card-natural-off", [("C1", 0, 0.5)], {"C1": "seven-and-a-half", "C2": "natural"},
     [("win", 1), ("win", 2)]),
    ("house-matta-two-card-natural-on", [("C1", 0, 0.5)], {"C1": "natural", "C2": "natural"}, [("win", 2), ("win", 2)]),
    ("house-matta-avoids-bust", [("C1", 0, 1)], {"C1": "ordinary"}, [("win", 1)]),
    ("house-matta-mort", [("C1", 0, 0.5)], {"C1": "seven-and-a-half"}, [("win", 1)]),
    ("house-matta-bank", [("B", 0, 3)], {"B": "ordinary"}, [("lose", 1)]),
])
def test_golden_scripts_tell_the_value_the_matta_took(monkeypatch, name, told, classes, paid):
    out, events, last = played(name, monkeypatch)
    assert mattas(events) == told
    for seat, cls in classes.items():
        assert out["hands"][seat]["class"] == cls
    assert [(r["outcome"], r["multiplier"]) for r in out["results"]] == paid
    seat, index, value = told[0]
    assert last["hands"][seat][index]["matta"] == value  # the hand record carries it
    revealed = next(e for e in events if e["type"] == "hand_revealed")
    assert revealed["hands"][seat][index]["matta"] == value
    assert all("matta" not in ph for k, phs in last["hands"].items() for ph in phs if k != seat)


# -- privacy -----------------------------------------------------------------------------------------
def test_the_value_is_shown_only_where_the_total_is():
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["5C", "4B", "KO"])  # C1: 5 of cups face down, the bank a 4, then the matta face up to C1
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")
    mine = g.view("C1")["hand"]["hands"]["C1"][0]
    assert mine["cards"][1] == {"card": "KO", "up": True} and mine["matta"] == 2 and mine["total"] == 7
    for viewer in ("B", None):  # the bank, a spectator: the matta is up, but its value would tell the 5
        other = g.view(viewer)["hand"]["hands"]["C1"][0]
        assert other["cards"][0] == {"hidden": True} and "matta" not in other and "total" not in other
    assert not g.of("matta_valued")
    g.do("C1", "stand")
    g.play_out()
    assert g.of("matta_valued")[-1] == {"type": "matta_valued", "seat": "C1", "hand": 0, "value": 2}
    for viewer in ("B", "C1", None):
        assert g.view(viewer)["hand"]["hands"]["C1"][0]["matta"] == 2
        assert g.view(viewer)["last_hand"]["hands"]["C1"][0]["matta"] == 2


def test_the_banks_matta_shows_to_everyone_once_its_cards_are_up():
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["5C", "KO", "2E"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    assert "matta" not in g.view("C1")["hand"]["hands"]["B"][0]  # the bank's card is down until its turn
    assert g.view("B")["hand"]["hands"]["B"][0]["matta"] == 0.5  # the banker sees their own, alone: ½
    g.do("C1", "stand")
    g.do("B", "hit")
    bank = g.view("C1")["hand"]["hands"]["B"][0]
    assert bank["matta"] == 5 and bank["total"] == 7


def test_a_bust_tells_the_matta_when_it_is_turned_up():
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["4C", "5B", "4E", "KO"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")  # 4 + 4 = 8: bust at once, before the matta
    assert g.of("matta_valued") == []
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["4C", "5B", "3E", "KO", "1O"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")
    g.do("C1", "hit")  # 4 + 3 + matta ½ = 7½: the turn ends
    assert g.state.hand["hands"]["C1"][0]["done"]
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["4C", "5B", "2E", "KO", "2O"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")
    g.do("C1", "hit")  # 4 + 2 + matta 1 = 7
    g.do("C1", "hit")  # + 2: 8½ with the matta at ½, bust
    types = [e["type"] for e in g.events]
    at = types.index("matta_valued")
    assert types[at - 1] == "hand_shown" and types[at + 1] == "bet_settled"
    assert g.of("matta_valued") == [{"type": "matta_valued", "seat": "C1", "hand": 0, "value": 0.5}]
    g.play_out()
    assert len(g.of("matta_valued")) == 1  # told once


# -- the house rules ---------------------------------------------------------------------------------
HOUSE = {"house_rules": True}


def test_the_4_discard_the_secret_pair_and_the_mort_look_at_the_rank_the_matta_is_a_king():
    g = game(HOUSE, seats={"B": 1000, "C1": 1000})
    g.start(deck=["KO", "5B"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    h = g.state.hand["hands"]["C1"][0]
    assert [c[0] for c in h["cards"]] == ["KO"] and h["mort"] is None and not h["secret"]
    assert "double" in legal_actions(g.state, "C1")


def test_a_secret_pair_may_hold_the_matta():
    g = game(HOUSE, seats={"B": 1000, "C1": 1000})
    g.start(deck=["3C", "5B", "KO", "6E"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    assert g.view("C1")["hand"]["hands"]["C1"][0]["matta"] == 1  # 6 + 1 = 7, the owner sees it
    assert "matta" not in g.view("B")["hand"]["hands"]["C1"][0]
    g.play_out()
    assert g.state.last_hand["hands"]["C1"][0]["matta"] == 1


def test_a_mort_made_with_the_matta_wins_and_is_a_natural_only_with_matta_natural():
    for rules, mult in ((HOUSE, 1), ({**HOUSE, "matta_natural": True}, 2)):
        g = game(rules, seats={"B": 1000, "C1": 1000})
        g.start(deck=["7C", "5B", "KO"])
        g.do("C1", "bet", amount=10)
        g.close_betting()
        g.do("C1", "mort_accept")
        g.play_out()
        assert (g.result("C1")["outcome"], g.result("C1")["multiplier"]) == ("win", mult)


def test_a_figure_and_the_matta_are_seven_and_a_half_so_they_are_never_split():
    g = game(HOUSE, seats={"B": 1000, "C1": 1000})
    g.start(deck=["JC", "5B", "KO"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")
    assert g.state.hand["hands"]["C1"][0]["done"] and "split" not in legal_actions(g.state, "C1")


def test_a_double_down_values_the_matta_on_the_two_cards():
    g = game(HOUSE, seats={"B": 1000, "C1": 1000})
    g.start(deck=["KO", "5B", "3C"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "double")
    g.play_out()
    assert g.state.last_hand["hands"]["C1"][0]["matta"] == 4 and g.state.last_hand["hands"]["C1"][0]["total"] == 7


def test_the_first_bank_draw_ranks_the_king_of_coins_as_a_king():
    assert _draw_rank("NC") < _draw_rank("KO") < _draw_rank("KC")


# -- bots and the simulator --------------------------------------------------------------------------
def test_bots_play_on_the_total_with_the_matta():
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["KO", "5B"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    assert bot_decide(view(g.state, "C1"), "basic", g.rules) == ("hit", {})  # alone: ½
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["KO", "5B", "2E"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")
    assert bot_decide(view(g.state, "C1"), "basic", g.rules) == ("stand", {})  # 2 + matta 5 = 7


def test_the_simulator_plays_the_matta_through_the_machine():
    from games.engine.simulate import fast_path_applies, sim_rules, simulate

    assert not fast_path_applies(sim_rules("seven-half-matta", {}), "basic")
    with_matta = simulate("seven-half", 200, "m", rules={"matta": "king-of-coins"}, seats=4)
    without = simulate("seven-half", 200, "m", seats=4)
    assert with_matta["engine"] == "machine" and with_matta["classes"] != without["classes"]


# -- the record file and the offline verifier ---------------------------------------------------------
def test_a_hand_with_the_matta_verifies_and_the_verifier_shows_its_value():
    import sys
    from pathlib import Path

    from tests import verifier_fixtures as fx

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import halfpoint_verify as tool

    found = []
    for tag in ("matta", "matta 2", "matta 3", "matta 4", "matta 5"):
        hands = fx.play("seven-half-matta", tag=tag)
        found = [(last, seat, i) for last in hands for seat, phs in last["hands"].items()
                 for i, ph in enumerate(phs) if "matta" in ph]
        if found:
            break
    last, seat, i = found[0]
    rec = {**fx.record("seven-half-matta", last, room="4105"), "game": "seven-half"}
    checks = tool.check_record(rec, predates=False)
    assert all(ok for _check, ok, _what in checks if _check != "link"), checks
    hands_line = next(what for check, _ok, what in checks if check == "hands")
    assert f"the matta took {seat}'s hand {i + 1}: {last['hands'][seat][i]['matta']:g}" in hands_line
