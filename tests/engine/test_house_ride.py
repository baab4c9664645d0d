"""Let it ride (推注, `push_cap`; house-rules.md, "Let it ride"; docs/rules.md): a challenger who beat the same bank in
the previous hand may stake up to that stake plus its win, at most `push_cap` x the base stake; a loss, a hand not
played, a new bank or an emptied one ends the ride."""

import pytest

from games.engine import KNOBS, PRESETS, EngineError, RulesError, bot_decide, legal_actions, redact_event, rules_from
from games.engine.simulate import simulate
from tests.engine.helpers import Game

RIDE = {"push_cap": 5, "max_bet": 20}  # base stake 10: the usual largest stake is 20, a ride at most 50
WIN = ["9S", "5H"]  # C1 9, B 5 (dice [1, 1]: C1 first): C1 wins
LOSE = ["5S", "9H"]  # C1 5, B 9: C1 loses


def ten_half(rules=None, seats=None, bank=500):
    return Game("ten-half", seats=seats or {"B": 1000, "C1": 500}, rules={**RIDE, **(rules or {})}, bank=bank)


def hand(g, deck, stake=None, seat="C1"):
    """One hand of two seats (B, C1), C1 first, every seat standing; C1 stakes ``stake`` (None: the timeout's)."""
    g.start(deck=deck, dice=[1, 1], seed=f"{g.state.hand_no + 20:02d}" * 32)
    if stake is not None:
        g.do(seat, "bet", amount=stake)
    g.play_out()


def refused(g, actor, action, code, **args):
    before = g.state
    with pytest.raises(EngineError) as e:
        g.do(actor, action, **args)
    assert e.value.code == code, e.value.message
    assert g.state is before  # a refused command changes nothing
    return e.value


# -- The knob ------------------------------------------------------------------------------------------------


def test_the_knob_is_off_except_in_the_chinese_preset_and_takes_0_5_10_or_20():
    knob = next(k for k in KNOBS if k["name"] == "push_cap")
    assert knob["defaults"] == {slug: 10 if slug == "ten-half-auction" else 0 for slug in PRESETS}
    for preset in ("ten-half", "zhejiang-ten-half"):
        for value in (0, 5, 10, 20):
            assert rules_from(preset, {"push_cap": value}).push_cap == value
        with pytest.raises(RulesError):
            rules_from(preset, {"push_cap": 7})
    for preset in ("seven-half", "ban-luck"):
        with pytest.raises(RulesError) as e:
            rules_from(preset, {"push_cap": 10})
        assert e.value.knob == "push_cap"


# -- A ride --------------------------------------------------------------------------------------------------


def test_a_winner_may_stake_the_previous_stake_plus_its_win_above_the_usual_largest_stake():
    g = ten_half()
    hand(g, WIN, 20)
    assert g.result("C1")["outcome"] == "win" and g.result("C1")["paid"] == 20
    assert "ride" not in g.view("C1")["house"]  # between hands: the next hand's ride is set when it starts
    events = g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert [e for e in events if e["type"] == "ride_offered"] == [
        {"type": "ride_offered", "seat": "C1", "cap": 40, "stake": 20, "win": 20}]
    assert events.index(next(e for e in events if e["type"] == "ride_offered")) == \
        events.index(next(e for e in events if e["type"] == "hand_started")) + 1
    # Public: the banker and a spectator see the cap too, as they saw the result it follows.
    for viewer in ("C1", "B", None):
        assert g.view(viewer)["house"]["ride"] == {"C1": 40}
    e = next(e for e in events if e["type"] == "ride_offered")
    assert redact_event(e, "B") == e
    events = g.do("C1", "bet", amount=40)
    assert [e for e in events if e["type"] == "ride_taken"] == [
        {"type": "ride_taken", "seat": "C1", "amount": 40, "cap": 40}]
    g.play_out()
    assert g.result("C1")["stake"] == 40 and g.result("C1")["outcome"] == "lose"
    assert "ride" not in g.view("C1")["house"]


def test_a_stake_within_the_usual_limits_is_no_ride_taken():
    g = ten_half()
    hand(g, WIN, 20)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert not [e for e in g.do("C1", "bet", amount=20) if e["type"] == "ride_taken"]


def test_a_stake_above_the_ride_is_refused_with_its_code_and_above_the_usual_max_without_a_ride_with_bad_amount():
    g = ten_half(seats={"B": 1000, "C1": 500, "C2": 500})
    g.start(deck=["9S", "5H", "8D"], dice=[1, 1], seed="21" * 32)  # C1 9, C2 5, B 8
    g.do("C1", "bet", amount=20)
    g.do("C2", "bet", amount=20)
    g.play_out()
    g.start(deck=["KS", "KH", "KD"], dice=[1, 1], seed="22" * 32)
    assert g.view("C2")["house"]["ride"] == {"C1": 40}
    assert "40" in refused(g, "C1", "bet", "above_ride_cap", amount=50).message
    refused(g, "C2", "bet", "bad_amount", amount=30)
    # The chips build the stake as far as the ride, and no further.
    g.do("C1", "chip", amount=10)
    g.do("C1", "chip", amount=10)
    g.do("C1", "chip", amount=10)
    g.do("C1", "chip", amount=10)
    refused(g, "C1", "chip", "above_ride_cap", amount=10)
    refused(g, "C2", "chip", "bad_amount", amount=50)
    g.do("C1", "confirm")
    assert g.state.hand["bets"]["C1"] == {"amount": 40, "confirmed": True}


def test_the_ride_is_capped_at_push_cap_base_stakes():
    g = ten_half()
    g.start(deck=["10S", "9H", "KD"], dice=[1, 1], seed="21" * 32)
    g.do("C1", "bet", amount=20)
    g.do("C1", "hit")  # 10½ pays x2: 20 + 40 = 60, above 5 x 10
    g.play_out()
    assert g.result("C1")["paid"] == 40
    events = g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert next(e for e in events if e["type"] == "ride_offered")["cap"] == 50
    refused(g, "C1", "bet", "above_ride_cap", amount=60)
    g.do("C1", "bet", amount=50)


def test_rides_follow_each_other_while_the_rider_wins():
    g = ten_half({"push_cap": 10})
    hand(g, WIN, 20)  # 20 + 20
    hand(g, WIN, 40)  # 40 + 40
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert g.view("C1")["house"]["ride"] == {"C1": 80}


def test_where_stakes_run_to_the_stack_a_ride_never_lowers_the_largest_stake():
    g = Game("ten-half", seats={"B": 1000, "C1": 500}, rules={"push_cap": 5}, bank=500)
    hand(g, WIN, 20)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert g.view("C1")["house"]["ride"] == {"C1": 40}
    events = g.do("C1", "bet", amount=300)  # the stack is the usual largest stake here
    assert not [e for e in events if e["type"] == "ride_taken"]


def test_no_debt_still_holds_under_a_ride():
    g = ten_half()
    hand(g, WIN, 20)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    g.state.seat("C1")["stack"] = 30  # a stack that cannot cover the ride (as the auction's multiplier may make it)
    refused(g, "C1", "bet", "bad_amount", amount=40)
    g.do("C1", "bet", amount=30)


# -- What ends a ride ----------------------------------------------------------------------------------------


def test_a_loss_ends_the_ride():
    g = ten_half()
    hand(g, WIN, 20)
    hand(g, LOSE, 40)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert "ride" not in g.view("C1")["house"]
    refused(g, "C1", "bet", "bad_amount", amount=30)


def test_a_hand_sat_out_ends_the_ride():
    g = ten_half(seats={"B": 1000, "C1": 500, "C2": 500})
    g.start(deck=["9S", "5H", "8D"], dice=[1, 1], seed="21" * 32)
    g.do("C1", "bet", amount=20)
    g.play_out()
    g.do("system", "set_seat", seat="C1", away=True, why="host")
    g.start(deck=["KS", "KH"], seed="22" * 32)
    g.play_out()
    g.do("system", "set_seat", seat="C1", away=False)
    g.start(deck=["KS", "KH", "KD"], seed="23" * 32)
    assert "ride" not in g.view("C1")["house"]


def test_an_emptied_bank_refilled_is_a_new_round_and_ends_the_ride():
    g = ten_half(bank=20)
    hand(g, WIN, 20)
    assert g.state.bank == 0 and g.state.pending["kind"] == "refill"
    g.do("B", "refill", amount=500)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert "ride" not in g.view("C1")["house"]


def test_a_bank_topped_up_before_it_emptied_is_the_same_bank():
    g = ten_half()
    hand(g, WIN, 20)
    g.do("B", "refill", amount=100)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert g.view("C1")["house"]["ride"] == {"C1": 40}


def test_the_same_banker_closing_and_reopening_the_bank_ends_the_ride():
    g = ten_half({"retire_needs_profit": False}, seats={"B": 1000, "C1": 500, "C2": 500})
    g.start(deck=["9S", "5H", "8D"], dice=[1, 1], seed="21" * 32)
    g.do("C1", "bet", amount=20)
    g.play_out()
    assert g.result("C1")["outcome"] == "win"
    g.do("B", "retire")
    for seat in ("C1", "C2"):
        g.do(seat, "decline_bank")
    assert g.state.banker is None
    g.do("B", "open_bank", amount=500)
    g.start(deck=["KS", "KH", "KD"], seed="22" * 32)
    assert g.state.banker == "B" and "ride" not in g.view("C1")["house"]


def test_a_new_banker_ends_the_ride():
    g = ten_half({"bank_turn_hands": 1}, seats={"B": 1000, "C1": 1000, "C2": 500})
    g.start(deck=["5H", "9S", "8D"], dice=[1, 1], seed="21" * 32)  # C1 5, C2 9, B 8: C2 wins
    g.do("C2", "bet", amount=20)
    g.play_out()
    g.do("C1", "open_bank", amount=500)
    g.start(deck=["KS", "KH", "KD"], seed="22" * 32)
    assert g.state.banker == "C1" and "ride" not in g.view("C2")["house"]
    refused(g, "C2", "bet", "bad_amount", amount=30)


def test_the_hand_keeps_its_ride_when_the_knob_changes_during_it():
    g = ten_half()
    hand(g, WIN, 20)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    g.do("system", "set_rules", rules={**g.state.rules.to_json(), "push_cap": 0})
    g.do("C1", "bet", amount=40)  # this hand's rules
    g.play_out()
    hand(g, WIN, 20)
    g.start(deck=LOSE, dice=[1, 1], seed="32" * 32)
    assert "ride" not in g.view("C1")["house"]  # the next hand plays without


# -- Zhejiang: a rider chooses a stake -----------------------------------------------------------------------

ZJ = {"base_stake_rule": "fixed", "base_stake": 10, "push_cap": 5}


def zhejiang_won():
    """C1 wins with 10½ (x2, paid 20) while C2 and C3 lose, so the banker keeps the bank (zhejiang.md: a banker who
    lost chips over the hand steps down)."""
    g = Game("zhejiang-ten-half", rules=ZJ, seats={"B": 1000, "C1": 1000, "C2": 1000, "C3": 1000})
    g.start(deck=["10S", "9H", "8D", "9C", "QS"], seed="21" * 32)
    g.do("C1", "hit")
    g.play_out()
    assert g.result("C1")["paid"] == 20 and g.state.banker == "B"
    return g


def test_in_zhejiang_a_rider_chooses_a_stake_the_others_keep_the_base_stake():
    g = zhejiang_won()
    g.start(deck=["KS", "KH", "KD", "KC"], seed="22" * 32)
    assert g.state.phase == "betting"  # the hand waits for the rider's stake
    assert g.state.hand["bets"] == {"C1": {"amount": 10, "confirmed": False}, "C2": {"amount": 10, "confirmed": True},
                                    "C3": {"amount": 10, "confirmed": True}}
    assert g.state.deadline_for == ["C1"]
    assert {"bet", "chip", "reset", "confirm"} <= set(legal_actions(g.state, "C1"))
    assert "bet" not in legal_actions(g.state, "C2")
    refused(g, "C2", "bet", "bet_locked", amount=20)  # the base stake, confirmed at the start
    refused(g, "C1", "bet", "above_ride_cap", amount=40)
    refused(g, "C1", "bet", "bad_amount", amount=5)  # never below the base stake
    g.do("C1", "chip", amount=10)
    g.do("C1", "chip", amount=10)
    events = g.do("C1", "confirm")
    assert [e["type"] for e in events][:3] == ["bet_confirmed", "ride_taken", "betting_closed"]
    assert g.state.hand["hands"]["C1"][0]["stake"] == 30


def test_in_zhejiang_a_rider_who_lets_the_clock_run_out_stakes_the_base_stake():
    g = zhejiang_won()
    g.start(deck=["KS", "KH", "KD", "KC"], seed="22" * 32)
    events = g.do("system", "timeout")
    assert {"type": "bet_defaulted", "seat": "C1", "amount": 10} in events
    assert not [e for e in events if e["type"] == "ride_taken"]


def test_in_zhejiang_a_ride_to_the_base_stake_or_less_is_none():
    g = zhejiang_won()
    # The next hand's base stake is 30 (poorest-share off, so set by the room): a ride to 30 is no ride.
    g.do("system", "set_rules", rules={**g.state.rules.to_json(), "base_stake": 30})
    g.start(deck=["KS", "KH", "KD", "KC"], seed="22" * 32)
    assert "ride" not in g.view("C1")["house"] and g.state.phase == "playing"


# -- Bots and the simulator ----------------------------------------------------------------------------------


def test_a_bot_lets_it_ride_to_the_whole_ride():
    g = ten_half()
    hand(g, WIN, 20)
    g.start(deck=LOSE, dice=[1, 1], seed="31" * 32)
    assert bot_decide(g.view("C1"), "basic", g.state.rules) == ("bet", {"amount": 40})
    z = zhejiang_won()
    z.start(deck=["KS", "KH", "KD", "KC"], seed="22" * 32)
    assert bot_decide(z.view("C1"), "expert", z.state.rules) == ("bet", {"amount": 30})


@pytest.mark.parametrize("preset", ["ten-half", "zhejiang-ten-half"])
def test_the_simulator_plays_rides_on_the_machine_path(preset):
    off = simulate(preset, 300, seed=3)
    on = simulate(preset, 300, seed=3, rules={"push_cap": 10})
    assert off["engine"] == "fast" and on["engine"] == "machine"
    assert off["challenger"]["stake_per_hand"] == 1
    assert on["challenger"]["stake_per_hand"] > 1.2  # the bots ride every win


def test_the_ride_shows_no_face_down_card_to_anyone_but_its_owner():
    """The ride is public while the hand is played; the cards stay as private as ever (rules/README.md, "Privacy")."""
    import json

    g = zhejiang_won()
    g.start(deck=["KS", "KH", "KD", "KC"], seed="22" * 32)
    g.do("C1", "bet", amount=30)
    assert g.state.phase == "playing"
    down = {seat: phs[0]["cards"][0][0] for seat, phs in g.state.hand["hands"].items()}
    for viewer in ("B", "C1", "C2", None):
        v = g.view(viewer)
        assert v["house"]["ride"] == {"C1": 30}
        text = json.dumps(v)
        for seat, card in down.items():
            assert (f'"{card}"' in text) == (seat == viewer), (viewer, seat)
