"""rules/ten-half.md, one test per rule."""

import pytest

from games.engine import EngineError

from .helpers import Game, compare, ev


# -- Cards and hand classes ---------------------------------------------------------------------------
def test_ace_counts_one_numbers_face_value_and_pictures_half():
    assert ev("ten-half", ["AS"]).total == 2
    assert ev("ten-half", ["7H"]).total == 14
    assert ev("ten-half", ["10D"]).total == 20
    for pic in ("JS", "QH", "KD"):
        assert ev("ten-half", [pic]).total == 1


def test_bust_is_an_actual_total_above_ten_and_a_half():
    assert ev("ten-half", ["10S", "AS"]).cls == "bust"
    assert ev("ten-half", ["10S", "KS"]).cls == "ten-and-a-half"


def test_five_dragons_is_five_cards_not_bust():
    assert ev("ten-half", ["AS", "AH", "2D", "2C", "KS"]).cls == "five-dragons"
    assert ev("ten-half", ["AS", "AH", "2D", "2C", "KS"]).mult == 2


def test_five_dragons_totalling_ten_and_a_half_still_pays_two_bonuses_never_stack():
    e = ev("ten-half", ["AS", "2H", "3D", "4C", "KS"])
    assert e.total == 21 and e.cls == "five-dragons" and e.mult == 2


def test_ten_and_a_half_needs_fewer_than_five_cards():
    assert ev("ten-half", ["5S", "5H", "QD"]).cls == "ten-and-a-half"
    assert ev("ten-half", ["5S", "5H", "QD"]).mult == 2


def test_ordinary_is_anything_else():
    assert ev("ten-half", ["9S"]).cls == "ordinary"
    assert ev("ten-half", ["9S"]).mult == 1


# -- Comparing -----------------------------------------------------------------------------------------
def test_busted_challenger_loses_even_when_banker_busts():
    assert compare("ten-half", ["10S", "5H"], ["10H", "6D"]) == ("lose", 1)


def test_busted_banker_loses_to_a_standing_challenger():
    assert compare("ten-half", ["2S"], ["10H", "6D"]) == ("win", 1)


def test_busted_banker_pays_ten_and_a_half_double():
    assert compare("ten-half", ["10S", "QH"], ["10H", "6D"]) == ("win", 2)


def test_five_dragons_beat_any_hand_that_is_not_five_dragons():
    assert compare("ten-half", ["AS", "AH", "AD", "AC", "2S"], ["10H", "KD"]) == ("win", 2)
    assert compare("ten-half", ["10H", "KD"], ["AS", "AH", "AD", "AC", "2S"]) == ("lose", 1)


def test_both_five_dragons_compare_totals_with_half_to_the_banker():
    assert compare("ten-half", ["AS", "AH", "AD", "2C", "4S"], ["AC", "2H", "2D", "2S", "KS"]) == ("win", 2)
    assert compare("ten-half", ["AC", "2H", "2D", "2S", "KS"], ["AS", "AH", "AD", "2C", "4S"]) == ("lose", 1)


def test_equal_totals_go_to_the_banker():
    assert compare("ten-half", ["8S"], ["8H"]) == ("lose", 1)


def test_half_point_is_added_to_the_banker_for_comparison_only():
    # 8½ against 8: compared as 8½ against 8½, the banker wins.
    assert compare("ten-half", ["8S", "KH"], ["8H"]) == ("lose", 1)
    # 9 against 8: 9 beats 8½.
    assert compare("ten-half", ["9S"], ["8H"]) == ("win", 1)


def test_challenger_ten_and_a_half_against_banker_ten_goes_to_the_banker():
    assert compare("ten-half", ["10S", "KH"], ["10H"]) == ("lose", 1)


def test_loss_costs_one_stake_whatever_the_banker_holds():
    assert compare("ten-half", ["5S"], ["10H", "QS"]) == ("lose", 1)


# -- Betting -------------------------------------------------------------------------------------------
def test_bet_must_be_a_multiple_of_the_base_stake():
    g = Game()
    g.start()
    with pytest.raises(EngineError) as e:
        g.do("C1", "bet", amount=25)
    assert e.value.code == "stake_not_multiple"


def test_bet_is_at_least_one_base_stake_and_at_most_the_stack():
    g = Game(seats={"B": 500, "C1": 100})
    g.start()
    for amount in (0, 110):
        with pytest.raises(EngineError) as e:
            g.do("C1", "bet", amount=amount)
        assert e.value.code == "bad_amount"


def test_chip_buttons_build_the_bet_reset_clears_it_confirm_locks_it():
    g = Game()
    g.start()
    g.do("C1", "chip", amount=50)
    g.do("C1", "chip", amount=10)
    assert g.state.hand["bets"]["C1"]["amount"] == 60
    g.do("C1", "reset")
    assert g.state.hand["bets"]["C1"]["amount"] == 0
    g.do("C1", "chip", amount=100)
    g.do("C1", "confirm")
    with pytest.raises(EngineError) as e:
        g.do("C1", "chip", amount=10)
    assert e.value.code == "bet_locked"
    with pytest.raises(EngineError):
        g.do("C1", "chip", amount=30)  # not a chip button


def test_unconfirmed_challenger_gets_one_base_stake_at_the_timer():
    g = Game()
    g.start()
    g.do("C1", "chip", amount=50)  # built but not confirmed
    g.close_betting()
    assert {k: v["amount"] for k, v in g.state.hand["bets"].items()} == {"C1": 10, "C2": 10, "C3": 10}


def test_unconfirmed_side_bettor_does_not_bet():
    g = Game(side={"S1": 100})
    g.start()
    g.do("S1", "back", seat="C1")
    g.do("S1", "chip", amount=50)
    g.close_betting()
    assert g.state.hand["side"] == {}


def test_side_bet_on_the_banker_is_refused():
    g = Game(side={"S1": 100})
    g.start()
    with pytest.raises(EngineError) as e:
        g.do("S1", "side_bet", backs="B", amount=10)
    assert e.value.code == "side_bet_on_banker"


def test_betting_closes_when_everyone_has_confirmed():
    g = Game(side={"S1": 100})
    g.start()
    for c in ("C1", "C2", "C3"):
        g.do(c, "bet", amount=10)
    assert g.state.phase == "betting"
    g.do("S1", "side_bet", backs="C2", amount=20)
    assert g.state.phase == "playing"


def test_betting_deadline_is_now_plus_bet_seconds():
    g = Game()
    g.start()
    assert g.state.deadline == g.now + 15
    assert g.state.deadline_for == ["C1", "C2", "C3"]


# -- Order: the dice -----------------------------------------------------------------------------------
def test_dice_order_example_roll_of_six_starts_with_c1():
    g = Game()
    g.start(dice=[2, 4])
    g.close_betting()
    assert g.state.hand["order"] == ["C1", "C2", "C3", "B"]


@pytest.mark.parametrize("dice,first", [([1, 1], "C1"), ([1, 2], "C2"), ([2, 3], "B"), ([6, 6], "C3"),
                                        ([4, 4], "C3"), ([4, 5], "B")])
def test_dice_count_clockwise_with_the_banker_as_one(dice, first):
    g = Game()
    g.start(dice=dice)
    g.close_betting()
    order = g.state.hand["order"]
    assert order[0] == first
    clockwise = ["B", "C1", "C2", "C3"]
    i = clockwise.index(first)
    assert order == clockwise[i:] + clockwise[:i]


@pytest.mark.parametrize("why", ["away", "stack too small"])
def test_the_dice_count_only_the_seats_dealt_in(why):
    """docs/rules.md: a seat sitting the hand out is not counted, so the count never lands on a seat with no cards.
    A roll of 3 counts B=1, C2=2, C3=3 with C1 out (C2 would be first if C1 were counted)."""
    g = Game(seats={"B": 500, "C1": 1000 if why == "away" else 5, "C2": 1000, "C3": 1000})
    if why == "away":
        g.do("system", "set_seat", seat="C1", away=True)
    g.start(dice=[1, 2])
    g.close_betting()
    assert "C1" in g.state.hand["sitting_out"]
    assert g.state.hand["order"] == ["C3", "B", "C2"]


def test_dice_are_rolled_from_the_seed_when_not_given():
    g1, g2 = Game(), Game()
    g1.start()
    g2.start()
    g1.close_betting()
    g2.close_betting()
    assert g1.state.hand["dice"] == g2.state.hand["dice"]
    assert all(1 <= d <= 6 for d in g1.state.hand["dice"])


def test_same_order_is_used_to_deal_act_and_settle():
    g = Game()
    g.start(dice=[1, 2], deck=["2S", "3S", "4S", "5S"])  # order C2, C3, B, C1
    g.close_betting()
    assert [g.state.hand["hands"][k][0]["cards"][0][0] for k in ("C2", "C3", "B", "C1")] == ["2S", "3S", "4S", "5S"]
    assert g.turn() == "C2"
    g.play_out()
    assert [r["bettor"] for r in g.results()] == ["C2", "C3", "C1"]


# -- Play ----------------------------------------------------------------------------------------------
def test_every_main_seat_gets_one_private_card():
    g = Game()
    g.start(dice=[3, 3])
    g.close_betting()
    hands = g.state.hand["hands"]
    assert all(len(h[0]["cards"]) == 1 and h[0]["cards"][0][1] == "own" for h in hands.values())


def test_turn_ends_by_itself_at_ten_and_a_half():
    g = Game()
    g.start(dice=[3, 3], deck=["10S", "2S", "3S", "4S", "KH"])
    g.close_betting()
    g.do("C1", "hit")
    assert g.turn() == "C2"


def test_turn_ends_by_itself_at_five_cards():
    g = Game()
    g.start(dice=[3, 3], deck=["AS", "2S", "3S", "4S", "AH", "AD", "KC", "KD"])
    g.close_betting()
    for _ in range(4):
        g.do("C1", "hit")
    assert g.turn() == "C2"
    assert len(g.state.hand["hands"]["C1"][0]["cards"]) == 5


def test_turn_ends_by_itself_on_a_bust():
    g = Game()
    g.start(dice=[3, 3], deck=["10S", "2S", "3S", "4S", "AH"])
    g.close_betting()
    g.do("C1", "hit")
    assert g.turn() == "C2"


def test_action_timer_stands_for_a_human():
    g = Game()
    g.start(dice=[3, 3])
    g.close_betting()
    assert g.state.deadline == g.now + 20
    g.do("system", "timeout")
    assert g.turn() == "C2"
    assert g.state.hand["hands"]["C1"][0]["done"]


def test_acting_out_of_turn_is_refused():
    g = Game()
    g.start(dice=[3, 3])
    g.close_betting()
    with pytest.raises(EngineError) as e:
        g.do("C2", "hit")
    assert e.value.code == "not_your_turn"


def test_banker_hits_or_stands_freely_at_its_place():
    g = Game()
    g.start(dice=[1, 2], deck=["2S", "3S", "4S", "5S", "6S"])  # order C2, C3, B, C1
    g.close_betting()
    g.do("C2", "stand")
    g.do("C3", "stand")
    assert g.turn() == "B"
    g.do("B", "hit")
    g.do("B", "stand")
    assert g.turn() == "C1"


def test_refused_command_leaves_the_state_untouched():
    g = Game()
    g.start()
    before = g.state
    from games.engine import state_to_json

    snapshot = state_to_json(before)
    with pytest.raises(EngineError):
        g.do("C1", "bet", amount=15)
    assert g.state is before and state_to_json(before) == snapshot


# -- Settlement and the bank --------------------------------------------------------------------------
def test_challenger_wins_ten_and_a_half_net_double():
    g = Game()
    g.start(dice=[3, 3], deck=["10S", "2S", "3S", "9S", "QH"])
    for c in ("C1", "C2", "C3"):
        g.do(c, "bet", amount=50)
    g.do("C1", "hit")  # 10½
    g.play_out()
    r = g.result("C1")
    assert (r["outcome"], r["multiplier"], r["due"], r["paid"]) == ("win", 2, 100, 100)


def test_side_bets_follow_the_backed_hand_with_the_same_multiplier():
    g = Game(side={"S1": 100, "S2": 100})
    g.start(dice=[3, 3], deck=["10S", "2S", "3S", "9S", "QH"])
    g.do("S2", "side_bet", backs="C2", amount=30)
    g.do("S1", "side_bet", backs="C1", amount=20)
    g.close_betting()
    g.do("C1", "hit")
    g.play_out()
    assert g.result("S1", "side")["outcome"] == "win" and g.result("S1", "side")["paid"] == 40
    assert g.result("S2", "side")["outcome"] == "lose" and g.result("S2", "side")["paid"] == 30
    # side bets settle after the main bets, in the order they were confirmed
    assert [(r["bettor"], r["kind"]) for r in g.results()][-2:] == [("S2", "side"), ("S1", "side")]


def test_winner_is_paid_what_is_left_when_the_bank_runs_short_then_later_bets_are_void():
    g = Game(seats={"B": 500, "C1": 1000, "C2": 1000, "C3": 1000}, bank=150)
    g.start(dice=[3, 3], deck=["9S", "9H", "AS", "5D"])
    g.do("C1", "bet", amount=100)
    g.do("C2", "bet", amount=100)
    g.do("C3", "bet", amount=100)
    g.play_out()
    r1, r2, r3 = g.results()
    assert (r1["outcome"], r1["paid"]) == ("win", 100)
    assert (r2["outcome"], r2["due"], r2["paid"]) == ("win", 100, 50)  # no sharing: what is left
    assert r3["outcome"] == "void" and r3["paid"] == 0  # would have lost: void all the same
    assert g.state.bank == 0
    assert g.stack("C3") == 1000


def test_deltas_sum_to_zero_with_the_banker_included():
    g = Game(side={"S1": 100})
    g.start(dice=[3, 3])
    g.do("S1", "side_bet", backs="C1", amount=20)
    g.close_betting()
    g.play_out("hit")
    settled = g.of("hand_settled")[-1]
    assert sum(settled["deltas"].values()) == 0
    assert set(settled["deltas"]) >= {"B", "C1", "C2", "C3", "S1"}


def test_empty_bank_asks_the_banker_to_refill_or_pass():
    g = Game(bank=100)
    g.start(dice=[3, 3], deck=["9S", "2S", "3S", "5D"])
    g.do("C1", "bet", amount=100)
    g.play_out()
    assert g.state.bank == 0
    assert g.state.phase == "bank_decision" and g.state.pending["kind"] == "refill"
    g.do("B", "refill", amount=200)
    assert g.state.bank == 200 and g.state.bank_topups == 200 and g.state.phase == "between_hands"


def test_passing_an_empty_bank_offers_it_clockwise():
    g = Game(bank=100)
    g.start(dice=[3, 3], deck=["9S", "2S", "3S", "5D"])
    g.do("C1", "bet", amount=100)
    g.play_out()
    g.do("B", "pass_bank")
    assert g.state.banker is None and g.state.pending == {"kind": "open", "seat": "C1", "queue": ["C2", "C3"]}
    g.do("C1", "decline_bank")
    assert g.state.pending["seat"] == "C2"
    g.do("C2", "open_bank", amount=300)
    assert g.state.banker == "C2" and g.state.bank == 300 and g.stack("C2") == 700


def test_bank_decision_times_out_to_the_next_player():
    g = Game(bank=100)
    g.start(dice=[3, 3], deck=["9S", "2S", "3S", "5D"])
    g.do("C1", "bet", amount=100)
    g.play_out()
    g.do("system", "timeout")  # the refill decision: passes
    assert g.state.pending["seat"] == "C1"


def test_retire_refused_before_net_profit_reaches_the_opening_bank():
    g = Game(bank=100)
    with pytest.raises(EngineError) as e:
        g.do("B", "retire")
    assert e.value.code == "retire_not_allowed"


def test_retire_after_profit_at_least_the_opening_bank_takes_effect_after_the_hand():
    g = Game(bank=100)
    g.start(dice=[3, 3], deck=["2S", "2H", "2D", "9S"])
    for c in ("C1", "C2", "C3"):
        g.do(c, "bet", amount=50)
    g.play_out()  # the banker's 9 beats three 2s: +150
    assert g.state.bank == 250
    g.start(dice=[3, 3], seed="22" * 32)
    g.do("B", "retire")
    assert g.state.banker == "B" and g.state.retire_requested
    g.close_betting()
    g.play_out()
    assert g.state.banker is None
    assert g.of("bank_closed")[-1]["why"] == "retired"
    assert g.state.pending["kind"] == "open" and g.state.pending["seat"] == "C1"


def test_top_ups_never_count_as_profit():
    g = Game(bank=100)
    g.start(dice=[3, 3], deck=["9S", "2S", "3S", "5D"])
    g.do("C1", "bet", amount=100)
    g.play_out()
    g.do("B", "refill", amount=400)
    with pytest.raises(EngineError) as e:
        g.do("B", "retire")
    assert e.value.code == "retire_not_allowed"


def test_host_banks_first():
    g = Game(seats={}, banker=None)
    g.do("C1", "sit", stack=1000)
    g.do("H", "sit", stack=1000, host=True)
    g.start()
    assert g.state.pending == {"kind": "open", "seat": "H", "queue": ["C1"]}
    g.do("H", "open_bank", amount=400)
    g.start()
    assert g.state.phase == "betting" and g.state.banker == "H"


def test_host_banks_off_lets_the_next_player_bank():
    g = Game(seats={}, banker=None, rules={"host_banks": False})
    g.do("H", "sit", stack=1000, host=True)
    g.do("C1", "sit", stack=1000)
    g.start()
    assert g.state.pending["seat"] == "C1"


def test_leaving_mid_hand_plays_on_by_defaults_and_releases_after_settlement():
    g = Game()
    g.start(dice=[3, 3])
    g.do("C1", "leave")
    assert g.state.hand["bets"]["C1"] == {"amount": 10, "confirmed": True}
    g.close_betting()
    assert g.turn() == "C2"  # C1 stood by itself
    g.play_out()
    left = g.of("seat_left")[-1]
    assert left["seat"] == "C1" and g.state.seat("C1") is None
    assert left["stack"] == 1000 + g.state.last_hand["deltas"]["C1"]


def test_banker_who_leaves_mid_hand_finishes_by_defaults_then_the_bank_passes():
    g = Game()
    g.start(dice=[2, 3])  # the banker acts first
    g.close_betting()
    assert g.turn() == "B"
    g.do("B", "leave")
    assert g.turn() == "C1"
    g.play_out()
    assert g.state.seat("B") is None and g.state.banker is None
    assert g.state.pending["kind"] == "open"


def test_between_hands_seats_join_and_leave_and_top_up():
    g = Game()
    g.do("C3", "leave")
    assert g.state.seat("C3") is None and g.of("seat_left")[-1]["chips_out"] == 1000
    g.do("C2", "top_up", amount=500)
    assert g.stack("C2") == 1500
    g.do("C4", "sit", stack=300)
    assert g.state.seat("C4")["position"] == 3


def test_the_fifth_main_seat_is_refused():
    g = Game()
    with pytest.raises(EngineError) as e:
        g.do("C4", "sit", stack=100)
    assert e.value.code == "table_full"
