"""rules/zhejiang.md, one test per rule."""

import pytest

from games.engine import EngineError, rules_from, view
from games.engine.cards import FRENCH_54

from .helpers import Game, compare, ev, script

P = "zhejiang-ten-half"
EXT = {"mode": "extended"}


def game(rules=None, seats=None, **kw):
    return Game(P, rules=rules, seats=seats or {"B": 1500, "C1": 1500, "C2": 1500, "C3": 1500}, **kw)


def test_deck_has_54_cards_with_two_jokers():
    assert len(FRENCH_54) == 54 and {"BJ", "RJ"} <= set(FRENCH_54)


def test_pictures_and_jokers_count_half():
    assert all(ev(P, [c]).total == 1 for c in ("JS", "QH", "KD", "BJ", "RJ"))


def test_classic_mode_holds_five_cards_extended_nine():
    assert rules_from(P).max_cards == 5
    assert rules_from(P, EXT).max_cards == 9
    with pytest.raises(EngineError):
        rules_from(P, {"mode": "extended", "max_cards": 5})


# -- Hand classes --------------------------------------------------------------------------------------
@pytest.mark.parametrize("cards,cls,mult", [
    (["9S"], "ordinary", 1),
    (["10S", "BJ"], "ten-and-a-half", 2),
    (["AS", "2S", "3S", "4S", "KS"], "ten-and-a-half", 2),  # classic: five cards making exactly 10½
    (["AS", "2S", "3S", "AH", "KS"], "five-small", 3),
    (["JS", "QS", "KS", "BJ", "RJ"], "five-pictures", 4),
])
def test_classic_hand_classes(cards, cls, mult):
    e = ev(P, cards)
    assert (e.cls, e.mult) == (cls, mult)


@pytest.mark.parametrize("cards,cls,mult", [
    (["AS", "2S", "3S", "4S", "KS"], "heavenly-king", 5),
    (["AS", "2S", "3S", "AH", "KS"], "five-small", 3),
    (["JS", "QS", "KS", "BJ", "RJ"], "five-pictures", 4),
    (["AS", "AH", "AD", "AC", "JS", "QS"], "six-small", 6),
    (["AS", "AH", "AD", "AC", "JS", "QS", "KS"], "seven-small", 7),
    (["AS", "AH", "AD", "AC", "JS", "QS", "KS", "JH"], "eight-small", 8),
    (["AS", "AH", "AD", "AC", "JS", "QS", "KS", "JH", "QH"], "nine-small", 9),
    (["AS", "AH", "2D", "4C", "JS", "QS", "KS", "JH", "QH"], "grand-heavenly-king", 10),
])
def test_extended_hand_classes(cards, cls, mult):
    e = ev(P, cards, **EXT)
    assert (e.cls, e.mult) == (cls, mult)


def test_bust_is_above_ten_and_a_half():
    assert ev(P, ["10S", "AS"]).bust


# -- Comparing -----------------------------------------------------------------------------------------
def test_busted_challenger_loses_and_both_bust_goes_to_the_banker():
    assert compare(P, ["10S", "2S"], ["9S"]) == ("lose", 1)
    assert compare(P, ["10S", "2S"], ["10H", "3S"]) == ("lose", 1)


def test_busted_banker_loses_to_every_challenger_who_did_not_bust():
    assert compare(P, ["2S"], ["10H", "3S"]) == ("win", 1)


def test_higher_class_wins():
    assert compare(P, ["10S", "KH"], ["10H"]) == ("win", 2)
    assert compare(P, ["AS", "2S", "3S", "AH", "KS"], ["10H", "JD"]) == ("win", 3)


def test_same_class_higher_total_wins():
    assert compare(P, ["9S"], ["8S"]) == ("win", 1)


def test_same_class_and_total_more_cards_wins():
    assert compare(P, ["4S", "5S"], ["9H"]) == ("win", 1)
    assert compare(P, ["9H"], ["4S", "5S"]) == ("lose", 1)


def test_same_class_total_and_card_count_the_banker_wins():
    assert compare(P, ["4S", "5S"], ["4H", "5H"]) == ("lose", 1)


def test_a_winning_challenger_is_paid_their_own_class_and_a_loser_pays_the_stake_whatever_the_banker_holds():
    assert compare(P, ["10S", "KH"], ["9H"]) == ("win", 2)
    assert compare(P, ["9S"], ["10S", "KH"]) == ("lose", 1)
    assert compare(P, ["10S", "2S"], ["JS", "QS", "KS", "BJ", "RJ"]) == ("lose", 1)


def test_house_rule_banker_multiplies_pays_the_banker_the_multiplier_of_its_class():
    assert compare(P, ["9S"], ["10S", "KH"], banker_multiplies=True) == ("lose", 2)
    assert compare(P, ["10S", "2S"], ["JS", "QS", "KS", "BJ", "RJ"], banker_multiplies=True) == ("lose", 4)


def test_banker_multiplies_pays_special_hands_only_even_with_a_raised_ordinary_payout():
    # zhejiang.md: "a banker who wins with a special hand is paid at that class's multiplier"; a challenger who wins
    # is paid their own class's, the ordinary one included.
    raised = {"banker_multiplies": True, "payouts": {"ordinary": 2}}
    assert compare(P, ["8S"], ["9S"], **raised) == ("lose", 1)  # the banker's ordinary 9 beats an 8: the stake
    assert compare(P, ["9S"], ["8S"], **raised) == ("win", 2)  # the challenger's ordinary 9: its class's ×2
    assert compare(P, ["9S"], ["10S", "KH"], **raised) == ("lose", 2)  # the banker's 10½: special, ×2


def test_a_banker_ten_and_a_half_wins_exactly_the_stake_and_twice_it_with_banker_multiplies():
    # zhejiang.md: 莊家沒有翻倍，只有閑家才能翻倍; C2 doubled its stake (scripts/zhejiang-banker-*.json).
    paid = [(r["bettor"], r["stake"], r["outcome"], r["paid"]) for r in script(
        "zhejiang-banker-ten-half-wins-the-stake")["results"]]
    assert paid == [("C1", 10, "lose", 10), ("C2", 20, "lose", 20)]
    house = script("zhejiang-banker-multiplies-house-rule")
    assert house["hands"]["B"]["class"] == "ten-and-a-half"
    assert [(r["bettor"], r["paid"]) for r in house["results"]] == [("C1", 20), ("C2", 40)]


def test_banker_multiplies_is_a_zhejiang_setting_off_by_default():
    assert rules_from(P).banker_multiplies is False
    with pytest.raises(EngineError) as e:
        rules_from("ten-half", {"banker_multiplies": True})
    assert e.value.knob == "banker_multiplies"


# -- Stake ---------------------------------------------------------------------------------------------
def test_challengers_do_not_choose_an_amount():
    g = game()
    g.start()
    assert g.state.phase == "playing"  # every stake is the base stake: betting closes at once
    assert all(b["confirmed"] and b["amount"] == g.state.hand["base"] for b in g.state.hand["bets"].values())
    with pytest.raises(EngineError):
        g.do("C1", "bet", amount=10)


def test_fixed_base_stake_rule_uses_the_rooms_base_stake():
    g = game(rules={"base_stake_rule": "fixed", "base_stake": 25})
    g.start()
    assert g.state.hand["base"] == 25


def test_poorest_share_with_two_players_is_p_over_15():
    g = game(seats={"B": 3000, "C1": 1500})
    g.start()
    assert g.state.hand["base"] == 100


def test_poorest_share_with_more_players_is_p_over_5_when_the_banker_has_three_times_p():
    g = game(seats={"B": 4500, "C1": 1500, "C2": 2000})
    g.start()
    assert g.state.hand["base"] == 300


def test_poorest_share_with_more_players_otherwise_p_over_15():
    g = game(seats={"B": 4000, "C1": 1500, "C2": 2000})
    g.start()
    assert g.state.hand["base"] == 100


def test_poorest_share_is_capped_at_800000_and_at_least_one():
    g = game(seats={"B": 10**9, "C1": 10**8, "C2": 10**8})
    g.start()
    assert g.state.hand["base"] == 800_000
    g = game(seats={"B": 10, "C1": 3})
    g.start()
    assert g.state.hand["base"] == 1


def test_banker_sixtieth_never_more_than_half_the_poorest_challenger():
    g = game(rules={"base_stake_rule": "banker-sixtieth"}, seats={"B": 6000, "C1": 1000, "C2": 150})
    g.start()
    assert g.state.hand["base"] == 75
    g = game(rules={"base_stake_rule": "banker-sixtieth"}, seats={"B": 6000, "C1": 1000})
    g.start()
    assert g.state.hand["base"] == 100


def test_double_once_takes_exactly_one_card_and_ends_the_turn():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start(deck=["2S", "3S", "4S", "5S", "AS"])
    g.do("C1", "hit")
    g.do("C1", "double")
    ph = g.state.hand["hands"]["C1"][0]
    assert ph["stake"] == 20 and len(ph["cards"]) == 3 and g.turn() == "C2"


def test_banker_cannot_double():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start()
    for c in ("C1", "C2", "C3"):
        g.do(c, "stand")
    assert g.turn() == "B" and "double" not in view(g.state, "B")["legal_actions"]


def test_a_doubled_stake_doubles_the_amount_won():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start(deck=["9S", "3S", "4S", "5S", "KS"])
    g.do("C1", "double")  # 9½
    g.play_out()
    r = g.result("C1")
    assert (r["stake"], r["outcome"], r["paid"]) == (20, "win", 20)


# -- Play ----------------------------------------------------------------------------------------------
def test_first_card_hidden_from_everyone_else_the_rest_face_up():
    g = game()
    g.start(deck=["2S", "3S", "4S", "5S", "AS"])
    g.do("C1", "hit")
    assert view(g.state, "C2")["hand"]["hands"]["C1"][0]["cards"] == [{"hidden": True}, {"card": "AS", "up": True}]


def test_challengers_act_in_seat_order_after_the_banker_banker_last():
    g = game()
    g.start()
    assert g.state.hand["order"] == ["C1", "C2", "C3", "B"]


def test_a_bust_ends_the_turn():
    g = game()
    g.start(deck=["10S", "3S", "4S", "5S", "AS"])
    g.do("C1", "hit")
    assert g.turn() == "C2"


def test_loss_is_capped_at_the_losers_stack():
    # Only the house rule can cost more than the stake (a double needs twice the stake in the stack).
    g = game(rules={"base_stake_rule": "fixed", "base_stake": 100, "banker_multiplies": True},
             seats={"B": 5000, "C1": 150})
    g.start(deck=["9S", "JS", "QS", "KS", "BJ", "RJ"])
    g.do("C1", "stand")
    for _ in range(4):
        g.do("B", "hit")  # five pictures: x4 = 400 due
    r = g.result("C1")
    assert (r["due"], r["paid"]) == (400, 150) and g.stack("C1") == 0


# -- The bank ------------------------------------------------------------------------------------------
def test_the_first_player_to_sit_down_is_the_banker():
    g = Game(P, seats={"X": 1000, "Y": 1000, "Z": 1000}, banker=None)
    g.start()
    assert g.state.banker == "X"


def test_a_banker_who_loses_over_a_hand_steps_down_counter_clockwise():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start(deck=["9S", "9H", "9D", "5S"])
    g.play_out()
    assert g.state.last_hand["deltas"]["B"] < 0
    assert g.state.banker == "C3"  # counter-clockwise from B


def test_a_banker_who_wins_keeps_the_bank():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start(deck=["2S", "2H", "2D", "9S"])
    g.play_out()
    assert g.state.banker == "B"


# -- Escape penalty ------------------------------------------------------------------------------------
def test_a_challenger_who_leaves_mid_hand_forfeits_the_stake_at_once():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start(deck=["2S", "2H", "2D", "9S"])
    g.do("C2", "leave")
    r = g.state.hand["results"][0]
    assert (r["bettor"], r["outcome"], r["paid"], r.get("why")) == ("C2", "lose", 10, "escaped")
    g.play_out()
    assert g.state.seat("C2") is None


def test_a_banker_who_leaves_mid_hand_pays_every_challenger_their_stake_and_the_hand_ends():
    g = game(rules={"base_stake_rule": "fixed"})
    g.start(deck=["2S", "2H", "2D", "9S"])
    g.do("C1", "stand")
    g.do("B", "leave")
    assert g.state.phase != "playing"
    assert [(r["bettor"], r["outcome"], r["paid"]) for r in g.results()] == [
        ("C1", "win", 10), ("C2", "win", 10), ("C3", "win", 10)]
    assert g.state.seat("B") is None and g.state.banker is not None
