"""rules/ban-luck.md, one test per rule."""

import pytest

from games.engine import EngineError, rules_from, view

from .helpers import Game, compare, ev, script

P = "ban-luck"


def game(rules=None, seats=None, **kw):
    return Game(P, rules=rules, seats=seats or {"B": 3000, "C1": 300, "C2": 300}, **kw)


def deal(c1, c2, b, draws=()):
    """The deck for B, C1, C2: two rounds in the order C1, C2, B, then the draws."""
    return [c1[0], c2[0], b[0], c1[1], c2[1], b[1], *draws]


# -- Cards ---------------------------------------------------------------------------------------------
def test_two_to_ten_count_their_number_pictures_count_ten():
    assert ev(P, ["2S", "9H"]).total == 11 and ev(P, ["KS", "QH", "JD"]).total == 30


def test_ace_counts_1_10_or_11_in_a_two_card_hand():
    assert ev(P, ["AS", "5H"]).total == 16
    assert ev(P, ["AS", "AH"]).total == 21


def test_ace_counts_1_or_10_in_a_three_card_hand():
    assert ev(P, ["AS", "5H", "6D"]).total == 21
    assert ev(P, ["AS", "5H", "7D"]).total == 13
    assert ev(P, ["AS", "5H", "2D"]).total == 17


def test_ace_counts_1_with_four_or_more_cards():
    assert ev(P, ["AS", "5H", "2D", "3C"]).total == 11


def test_total_is_the_smallest_when_every_choice_is_above_21():
    assert ev(P, ["KS", "QH", "AD"]).total == 21
    assert ev(P, ["KS", "QH", "5D"]).total == 25 and ev(P, ["KS", "QH", "5D"]).bust


# -- Specials ------------------------------------------------------------------------------------------
def test_ban_ban_is_two_aces_paying_net_three():
    assert (ev(P, ["AS", "AH"]).cls, ev(P, ["AS", "AH"]).mult) == ("ban-ban", 3)


@pytest.mark.parametrize("ten", ["10H", "JH", "QH", "KH"])
def test_ban_luck_is_an_ace_with_a_ten_or_picture_paying_net_two(ten):
    assert (ev(P, ["AS", ten]).cls, ev(P, ["AS", ten]).mult) == ("ban-luck", 2)


def test_challenger_special_is_paid_at_once_before_anyone_draws():
    g = game()
    g.start(deck=deal(["AS", "KH"], ["5S", "6S"], ["9D", "7D"]))
    g.do("C1", "bet", amount=100)
    g.close_betting()
    r = g.state.hand["results"][0]
    assert (r["bettor"], r["outcome"], r["multiplier"], r["paid"]) == ("C1", "win", 2, 200)
    assert g.turn() == "C2"  # C1's hand takes no further part


def test_ban_ban_beats_ban_luck():
    g = game()
    g.start(deck=deal(["AS", "AH"], ["5S", "6S"], ["AD", "KD"]))
    g.do("C1", "bet", amount=100)
    g.close_betting()
    r = g.state.hand["results"][0]
    assert (r["bettor"], r["outcome"], r["multiplier"]) == ("C1", "win", 3)


def test_banker_special_beats_every_challenger_without_an_equal_or_better_one():
    g = game()
    g.start(deck=deal(["5S", "6S"], ["AS", "KH"], ["AD", "AH"]))
    g.do("C1", "bet", amount=50)
    g.do("C2", "bet", amount=50)
    assert g.state.phase == "between_hands"  # everybody settled by the banker's Ban-Ban
    assert [(r["bettor"], r["outcome"], r["multiplier"], r["paid"]) for r in g.results()] == [
        ("C1", "lose", 3, 150), ("C2", "lose", 3, 150)]


def test_the_same_special_on_both_sides_is_a_push():
    g = game()
    g.start(deck=deal(["AS", "KH"], ["5S", "6S"], ["AD", "QD"]))
    g.close_betting()
    assert [(r["bettor"], r["outcome"]) for r in g.results()] == [("C1", "push"), ("C2", "lose")]


# -- Betting -------------------------------------------------------------------------------------------
def test_stake_is_at_most_one_third_of_the_stack():
    g = game()
    g.start()
    with pytest.raises(EngineError) as e:
        g.do("C1", "bet", amount=101)
    assert e.value.code == "stake_above_third"
    g.do("C1", "bet", amount=100)


def test_stake_is_between_min_bet_and_max_bet():
    g = game(seats={"B": 10000, "C1": 3000})
    g.start()
    with pytest.raises(EngineError):
        g.do("C1", "bet", amount=501)
    g.do("C1", "bet", amount=1)


def test_third_of_stack_cannot_be_turned_off():
    with pytest.raises(EngineError):
        rules_from(P, {"stake_third_of_stack": False})


def test_default_stake_is_lowered_to_a_third_of_the_stack():
    g = game(seats={"B": 3000, "C1": 15})
    g.start()
    g.close_betting()
    assert g.state.hand["bets"]["C1"]["amount"] == 5


def test_the_bet_stays_in_the_box_the_previous_stake_is_the_default_while_it_fits():
    g = game(seats={"B": 3000, "C1": 300, "C2": 300, "C3": 300})
    g.start(deck=["10S", "10H", "10C", "10D", "9S", "6H", "7C", "8D"])  # C1 19, C2 16, C3 17, B 18
    g.do("C1", "bet", amount=60)
    g.do("C2", "bet", amount=100)
    g.do("C3", "bet", amount=90)
    g.play_out()  # C1 wins 60, C2 and C3 lose
    g.do("C3", "top_up", amount=300)  # 510: a third still holds 90
    g.start(seed="22" * 32)
    g.close_betting()
    # C2's 100 is above a third of its 200 now: the base stake instead (scripts/ban-luck-stake-stays.json).
    assert {k: b["amount"] for k, b in g.state.hand["bets"].items()} == {"C1": 60, "C2": 10, "C3": 90}
    assert [(r["bettor"], r["stake"]) for r in script("ban-luck-stake-stays")["results"]] == [("C1", 60), ("C2", 10)]


def test_only_chinese_blackjack_keeps_the_previous_stake():
    g = Game("ten-half", seats={"B": 1000, "C1": 1000})
    g.start(dice=[1, 1])
    g.do("C1", "bet", amount=50)
    g.play_out()
    g.start(seed="22" * 32, dice=[1, 1])
    g.close_betting()
    assert g.state.hand["bets"]["C1"]["amount"] == 10  # the room's base stake (rules/README.md)


# -- Challengers' turns --------------------------------------------------------------------------------
def test_stand_is_refused_below_16():
    g = game()
    g.start(deck=deal(["5S", "6S"], ["9S", "8S"], ["9D", "7D"]))
    g.close_betting()
    with pytest.raises(EngineError) as e:
        g.do("C1", "stand")
    assert e.value.code == "must_hit_below_16"
    assert "stand" not in view(g.state, "C1")["legal_actions"]


def test_timeout_below_16_hits():
    g = game()
    g.start(deck=deal(["5S", "6S"], ["9S", "8S"], ["9D", "7D"], ["2C"]))
    g.close_betting()
    g.do("system", "timeout")
    assert len(g.state.hand["hands"]["C1"][0]["cards"]) == 3


def test_21_does_not_end_the_turn():
    g = game()
    g.start(deck=deal(["5S", "6S"], ["9S", "8S"], ["9D", "7D"], ["KC"]))
    g.close_betting()
    g.do("C1", "hit")
    assert g.turn() == "C1"


def test_over_21_loses_at_once_even_if_the_banker_busts_later():
    g = game()
    g.start(deck=deal(["5S", "6S"], ["9S", "8S"], ["9D", "5D"], ["2C", "KC", "KH"]))
    g.do("C1", "bet", amount=10)
    g.close_betting()
    g.do("C1", "hit")
    g.do("C1", "hit")  # 5 + 6 + 2 + 10 = 23
    r = g.state.hand["results"][0]
    assert (r["bettor"], r["outcome"], r["multiplier"]) == ("C1", "lose", 1)
    g.do("C2", "stand")
    assert g.result("C1")["outcome"] == "lose"  # the banker's 24 changes nothing


def test_going_over_21_on_the_fifth_card_loses_double():
    g = game()
    g.start(deck=deal(["2S", "3S"], ["9S", "8S"], ["9D", "7D"], ["5C", "6C", "KH"]))
    g.close_betting()
    for _ in range(3):
        g.do("C1", "hit")
    r = g.state.hand["results"][0]
    assert (r["outcome"], r["multiplier"]) == ("lose", 2)


def test_five_dragon_wins_double_whatever_the_banker_holds():
    assert compare(P, ["2S", "3S", "2C", "4C", "5H"], ["KD", "QD"]) == ("win", 2)
    assert compare(P, ["2S", "3S", "2C", "4C", "5H"], ["KD", "QD", "5S"]) == ("win", 2)


def test_five_dragon_against_a_bankers_five_dragon_is_a_push():
    assert compare(P, ["2S", "3S", "2C", "4C", "5H"], ["2D", "3D", "2H", "4H", "5D"]) == ("push", 0)


def test_a_turn_ends_at_five_cards():
    g = game()
    g.start(deck=deal(["2S", "3S"], ["9S", "8S"], ["9D", "7D"], ["2C", "4C", "3H"]))
    g.close_betting()
    for _ in range(3):
        g.do("C1", "hit")
    assert g.turn() == "C2"


# -- The banker's turn ---------------------------------------------------------------------------------
def test_the_banker_draws_on_15_or_less_and_stands_on_16_by_itself():
    g = game()
    g.start(deck=deal(["9S", "8S"], ["9H", "8H"], ["5D", "4D"], ["2C", "5C", "3H"]))
    g.close_betting()
    g.do("C1", "stand")
    g.do("C2", "stand")
    b = g.state.last_hand["hands"]["B"][0]["cards"]
    assert b == ["5D", "4D", "2C", "5C"]  # 9, 11, 16: stands


def test_the_banker_reveals_at_its_turn():
    g = game()
    g.start(deck=deal(["9S", "8S"], ["9H", "8H"], ["5D", "4D"]))
    g.close_betting()
    assert view(g.state, "C1")["hand"]["hands"]["B"][0]["cards"] == [{"hidden": True}] * 2


def test_a_human_banker_may_be_freed_from_the_forced_draw():
    g = game(rules={"banker_forced_draw": False})
    g.start(deck=deal(["9S", "8S"], ["9H", "8H"], ["5D", "4D"]))
    g.close_betting()
    g.do("C1", "stand")
    g.do("C2", "stand")
    assert g.turn() == "B" and "stand" in view(g.state, "B")["legal_actions"]


def test_bankers_five_dragon_beats_every_remaining_challenger_double():
    assert compare(P, ["KS", "9S"], ["2D", "3D", "2H", "4H", "5D"]) == ("lose", 2)


def test_banker_over_21_pays_every_remaining_challenger_and_double_on_the_fifth_card():
    assert compare(P, ["KS", "7S"], ["KD", "6D", "9D"]) == ("win", 1)
    assert compare(P, ["KS", "7S"], ["2D", "3D", "5H", "6H", "KD"]) == ("win", 2)


def test_higher_total_wins_and_equal_totals_push():
    assert compare(P, ["KS", "9S"], ["KD", "8D"]) == ("win", 1)
    assert compare(P, ["KS", "8S"], ["KD", "9D"]) == ("lose", 1)
    assert compare(P, ["KS", "8S"], ["KD", "8D"]) == ("push", 0)


def test_settlement_in_seat_order_against_the_finite_bank():
    g = game(seats={"B": 100, "C1": 300, "C2": 300})
    g.start(deck=deal(["KS", "9S"], ["KH", "9H"], ["KD", "6D"], ["9C"]))
    g.do("C1", "bet", amount=80)
    g.do("C2", "bet", amount=80)
    g.play_out()
    assert [(r["bettor"], r["outcome"], r["paid"]) for r in g.results()] == [("C1", "win", 80), ("C2", "win", 20)]
