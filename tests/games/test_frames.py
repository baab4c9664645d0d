"""`update_frames`: each viewer's frame is exactly the text of that viewer's own `view`, although the parts every
viewer shares are encoded once and the hands evaluated once (games/frames.py, docs/performance.md)."""

import json

from hypothesis import HealthCheck, given, settings

from games.engine import EngineError, apply, redact_event, view
from games.fields import text as json_text
from games.frames import update_frames
from tests.engine.helpers import Game
from tests.engine.test_properties import _commands, _setup, scenarios


def expected(version, state, events, seat_id, started, stalled):
    """The frame as it was made before the shared parts: the viewer's own detached view, through json_text."""
    shown = [e for e in (redact_event(e, seat_id) for e in events) if e is not None]
    return json_text({"type": "update", "version": version, "view": view(state, seat_id), "events": shown,
                      "started": started, "stalled": stalled})


def check_frames(version, state, events, stalled=None):
    seat_ids = sorted(x["id"] for x in state.seats)
    frames = update_frames(version, state, events, seat_ids, True, stalled)
    assert set(frames) == {*seat_ids, ""}
    for seat_id in (*seat_ids, None):
        assert frames[seat_id or ""] == expected(version, state, events, seat_id, True, stalled), seat_id
    return frames


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_every_frame_is_the_text_of_its_viewers_own_view(scenario):
    rules, stacks, side, seeds, choices = scenario
    state, _ = _setup(rules, stacks, side)
    box, version = [state], 0
    for cmd in _commands(box, choices, seeds):
        try:
            after, events = apply(box[0], cmd)
        except EngineError:
            continue
        box[0], version = after, version + 1
        check_frames(version, after, events)


def test_frames_keep_each_viewers_secrets_and_totals_apart():
    """The hands' evaluations are shared between viewers: a hand's total still shows only to who sees all its cards."""
    g = Game(side={"S1": 100})
    g.start(dice=[3, 3], deck=["9H", "10H", "QS", "5D", "AS"])
    g.do("S1", "side_bet", backs="C1", amount=10)
    g.close_betting()
    g.do("C1", "hit")  # C1: 9H down, 10H... up: its total shows to C1 only
    frames = check_frames(5, g.state, [])
    hands = {viewer: json.loads(text)["view"]["hand"]["hands"] for viewer, text in frames.items()}
    assert hands["C1"]["C1"][0]["total"] is not None
    for viewer in ("C2", "C3", "B", "S1", ""):
        assert "total" not in hands[viewer]["C1"][0] and {"hidden": True} in hands[viewer]["C1"][0]["cards"]
        assert "9H" not in frames[viewer]


def test_text_orjson_refuses_takes_the_standard_librarys_way_for_every_frame():
    """A lone surrogate in a seat's name: orjson refuses it, so every frame goes through json_text as before."""
    state, _ = _setup(*_four_players())
    state.seats[1]["name"] = "bad \ud800 name"
    frames = check_frames(7, state, [], stalled="not_enough_players")
    assert "\\ud800" in frames[""]


def _four_players():
    from games.engine import rules_from

    return rules_from("ten-half", {}), [1000, 500, 500, 500], []
