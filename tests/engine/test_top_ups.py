"""Top-ups are between hands only (docs/rules.md), for side bettors as for main seats: what is offered is what
is accepted."""

import pytest

from games.engine import EngineError

from .helpers import Game


def test_a_side_bettor_choosing_its_bet_is_neither_offered_a_top_up_nor_allowed_one():
    g = Game(side={"S1": 100})
    g.start()
    g.do("S1", "back", seat="C1")
    g.do("S1", "chip", amount=10)  # a side bet built, not confirmed
    for seat in ("S1", "C1"):  # C1: an unconfirmed challenger, refused the same way
        assert "top_up" not in g.view(seat)["legal_actions"]
        with pytest.raises(EngineError) as e:
            g.do(seat, "top_up", amount=50)
        assert e.value.code == "in_hand"
    g.do("S1", "confirm")
    assert "top_up" not in g.view("S1")["legal_actions"]
    g.play_out()
    assert g.state.phase == "between_hands" and "top_up" in g.view("S1")["legal_actions"]
    g.do("S1", "top_up", amount=50)
    assert g.of("stack_topped_up")[-1] == {"type": "stack_topped_up", "seat": "S1", "amount": 50, "chips_in": 50,
                                           "into": "stack"}
