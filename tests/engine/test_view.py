"""view(): exactly what a seat, side bettor or spectator may see (rules/README.md, "Privacy")."""

import json

from games.engine import redact_event, view

from .helpers import Game


def _started():
    g = Game(side={"S1": 100})
    g.start(dice=[3, 3], deck=["9H", "10H", "QS", "5D", "AS"])
    g.do("S1", "side_bet", backs="C1", amount=10)
    g.close_betting()
    return g


def test_owner_sees_its_face_down_card_others_see_hidden():
    g = _started()
    assert view(g.state, "C1")["hand"]["hands"]["C1"][0]["cards"] == [{"card": "9H", "up": False}]
    for viewer in ("C2", "B", "S1", None, "nobody"):
        assert view(g.state, viewer)["hand"]["hands"]["C1"][0]["cards"] == [{"hidden": True}]


def test_spectators_and_side_bettors_see_no_face_down_card_anywhere():
    g = _started()
    for viewer in ("S1", None):
        text = json.dumps(view(g.state, viewer))
        for code in ("9H", "10H", "QS", "5D"):
            assert f'"{code}"' not in text


def test_totals_only_for_hands_the_viewer_sees_fully():
    g = _started()
    mine = view(g.state, "C1")["hand"]["hands"]
    assert mine["C1"][0]["total"] == 9 and "total" not in mine["C2"][0]


def test_the_seed_appears_only_after_the_hand():
    g = _started()
    v = view(g.state, "C1")
    assert v["commitment"] and v["seed"] is None and v["hand"]["seed"] is None and v["hand"]["dealt"] is None
    g.play_out()
    v = view(g.state, None)
    assert v["seed"] == g.state.last_hand["seed"] and v["last_hand"]["hands"]["C1"][0]["cards"] == ["9H"]


def test_view_shows_phase_turn_deadline_dice_order_and_legal_actions():
    g = _started()
    v = view(g.state, "C1")
    assert v["phase"] == "playing" and v["hand"]["turn"] == {"seat": "C1", "hand": 0}
    assert v["deadline"] == g.state.deadline and v["deadline_for"] == ["C1"]
    assert v["hand"]["dice"] == [3, 3] and v["hand"]["order"] == ["C1", "C2", "C3", "B"]
    assert "hit" in v["legal_actions"] and view(g.state, "C2")["legal_actions"] == ["leave"]
    assert view(g.state, None)["legal_actions"] == [] and view(g.state, None)["role"] == "spectator"


def test_results_after_settlement_are_in_the_view():
    g = _started()
    g.play_out()
    v = view(g.state, "C2")
    assert [r["bettor"] for r in v["last_hand"]["results"]] == ["C1", "C2", "C3", "S1"]
    assert sum(v["last_hand"]["deltas"].values()) == 0


def test_face_down_card_events_are_redacted_for_everyone_but_the_owner():
    g = Game()
    events = g.start(dice=[3, 3])
    events = g.do("system", "timeout")
    dealt = [e for e in events if e["type"] == "card_dealt"]
    assert all("card" in redact_event(e, e["seat"]) for e in dealt)
    assert all("card" not in redact_event(e, "someone else") for e in dealt)
