"""rules/seven-half.md, one test per rule."""

import pytest

from games.engine import EngineError, rules_from, view
from games.engine.cards import SPANISH_40

from .helpers import Game, compare, ev, script

P = "seven-half"
HOUSE = {"house_rules": True}


def game(rules=None, **kw):
    kw.setdefault("seats", {"B": 1000, "C1": 1000, "C2": 1000, "C3": 1000})
    return Game(P, rules=rules, **kw)


# -- Cards ---------------------------------------------------------------------------------------------
def test_spanish_deck_has_forty_cards_without_eights_and_nines():
    assert len(SPANISH_40) == 40 and not any(c[0] in "89" for c in SPANISH_40)


def test_one_to_seven_count_their_number_figures_count_half():
    assert ev(P, ["7O"]).total == 14 and ev(P, ["1C"]).total == 2
    assert all(ev(P, [f]).total == 1 for f in ("JO", "NC", "KE"))


def test_natural_is_seven_and_a_half_with_exactly_two_cards():
    assert ev(P, ["7O", "KB"]).cls == "natural" and ev(P, ["7O", "KB"]).mult == 2
    assert ev(P, ["5O", "2C", "KB"]).cls == "seven-and-a-half" and ev(P, ["5O", "2C", "KB"]).mult == 1


def test_over_seven_and_a_half_is_a_bust():
    assert ev(P, ["7O", "1C"]).bust


# -- Settling ------------------------------------------------------------------------------------------
def test_bank_bust_pays_every_standing_hand_and_a_natural_double():
    assert compare(P, ["5O"], ["7C", "4B"]) == ("win", 1)
    assert compare(P, ["7O", "JC"], ["7C", "4B"]) == ("win", 2)


def test_bank_seven_and_a_half_beats_every_standing_hand_naturals_too():
    assert compare(P, ["7O", "JC"], ["5C", "2B", "KE"]) == ("lose", 1)


def test_higher_total_wins_equal_totals_go_to_the_bank():
    assert compare(P, ["6O"], ["5C"]) == ("win", 1)
    assert compare(P, ["5O"], ["5C"]) == ("lose", 1)
    assert compare(P, ["4O"], ["5C"]) == ("lose", 1)


def test_challenger_over_seven_and_a_half_loses_at_once_face_up_even_if_the_bank_busts():
    g = game()
    g.start(deck=["7O", "2C", "3C", "6B", "5E", "KE", "7E"])
    g.close_betting()
    g.do("C1", "hit")  # 7 + 5 = 12: bust
    r = g.state.hand["results"][0]
    assert (r["bettor"], r["outcome"]) == ("C1", "lose")  # settled before anyone else plays
    assert all(c[1] == "up" for c in g.state.hand["hands"]["C1"][0]["cards"])
    g.play_out()
    assert g.result("C1")["outcome"] == "lose"


def test_bank_does_not_play_when_every_challenger_already_busted():
    g = game(seats={"B": 1000, "C1": 1000})
    g.start(deck=["7O", "6B", "5E"])
    g.close_betting()
    g.do("C1", "hit")
    assert g.state.phase == "between_hands"


def test_bank_pays_only_what_it_holds():
    g = game(seats={"B": 50, "C1": 1000, "C2": 1000})
    g.start(deck=["6O", "6C", "5B", "4E", "3O"])  # B: 5 then 4 -> 9, bust
    g.do("C1", "bet", amount=40)
    g.do("C2", "bet", amount=40)
    g.play_out()
    r1, r2 = g.results()
    assert (r1["paid"], r2["due"], r2["paid"]) == (40, 40, 10)


# -- Betting -------------------------------------------------------------------------------------------
def test_stake_is_at_least_the_table_minimum_and_at_most_the_stack_any_amount():
    g = game(seats={"B": 1000, "C1": 100, "C2": 100})
    g.start()
    g.do("C1", "bet", amount=37)  # no multiple rule in Seven and a Half
    with pytest.raises(EngineError):
        g.do("C2", "bet", amount=5)
    with pytest.raises(EngineError):
        g.do("C2", "bet", amount=101)


def test_bank_does_not_bet():
    g = game()
    g.start()
    with pytest.raises(EngineError) as e:
        g.do("B", "bet", amount=10)
    assert e.value.code == "banker_does_not_bet"


def test_no_side_bets_by_default():
    g = game()
    with pytest.raises(EngineError) as e:
        g.do("S1", "sit", stack=100, role="side")
    assert e.value.code == "side_bets_disabled"


# -- Who sees what -------------------------------------------------------------------------------------
def test_first_card_face_down_then_alternating_at_most_one_face_down():
    g = game()
    g.start(deck=["1O", "2C", "3C", "4B", "1C", "1E", "1B"])
    g.close_betting()
    g.do("C1", "hit")  # holding a face-down card: face up
    g.do("C1", "hit")  # all up? no: the first is still down, so up again
    vis = [c[1] for c in g.state.hand["hands"]["C1"][0]["cards"]]
    assert vis == ["own", "up", "up"]


def test_drawing_with_every_card_face_up_gives_a_face_down_card():
    g = game(rules=HOUSE)
    g.start(deck=["JO", "2C", "3C", "4B", "NC", "1E"])
    g.close_betting()
    g.do("C1", "hit")
    g.do("C1", "split")  # second hand holds the face-up knight alone
    g.do("C1", "stand")
    g.do("C1", "hit")
    assert [c[1] for c in g.state.hand["hands"]["C1"][1]["cards"]] == ["up", "own"]


def test_bank_cards_hidden_from_everyone_until_the_banks_turn():
    g = game()
    g.start(deck=["1O", "2C", "3C", "4B"])
    g.close_betting()
    assert view(g.state, "C1")["hand"]["hands"]["B"][0]["cards"] == [{"hidden": True}]
    g.do("C1", "stand")
    g.do("C2", "stand")
    g.do("C3", "stand")
    assert view(g.state, "C1")["hand"]["hands"]["B"][0]["cards"] == [{"card": "4B", "up": True}]


def test_challengers_act_in_seat_order_from_the_banks_left_bank_last():
    g = game(seats={"C1": 1000, "B": 1000, "C2": 1000, "C3": 1000})
    g.start()
    g.close_betting()
    assert g.state.hand["order"] == ["C2", "C3", "C1", "B"]


def test_no_card_limit_turn_ends_at_exactly_seven_and_a_half():
    g = game()
    g.start(deck=["JO", "2C", "3C", "4B", "NC", "KC", "JC", "NO", "KO", "JE", "2E"])
    g.close_betting()
    for _ in range(5):
        g.do("C1", "hit")
    assert len(g.state.hand["hands"]["C1"][0]["cards"]) == 6 and g.turn() == "C1"
    g.do("C1", "hit")  # 3 + 2 = 5? no: six figures = 3, plus 2 = 5
    assert g.turn() == "C1"


# -- The shoe ------------------------------------------------------------------------------------------
def test_the_shoe_lasts_across_hands():
    g = game()
    g.start()
    g.play_out()
    used = g.state.last_hand["dealt"]
    assert sorted(g.state.shoe["discards"]) == sorted(used)
    assert len(g.state.shoe["stock"]) == 40 - len(used)
    g.start(seed="33" * 32)
    assert sorted(g.state.hand["source"]) == sorted(set(SPANISH_40) - set(used))


def test_the_shoe_reshuffles_its_discards_in_the_middle_of_a_hand():
    g = game()
    stock = ["1O", "2O", "3O", "4O"]
    g.state.shoe = {"stock": stock, "discards": [c for c in SPANISH_40 if c not in stock]}
    g.start()
    g.close_betting()
    assert g.state.hand["stock"] == []
    g.do("C1", "hit")
    assert g.of("shoe_reshuffled") and len(g.state.hand["stock"]) == 35
    assert g.state.shoe["discards"] == []


def test_reshuffled_stock_verifies_from_the_seed():
    from games.engine import verify

    g = game()
    stock = ["1O", "2O", "3O", "4O"]
    g.state.shoe = {"stock": stock, "discards": [c for c in SPANISH_40 if c not in stock]}
    g.start()
    g.play_out("hit")
    last = g.state.last_hand
    at = last["reshuffles"][0]["at"]
    assert verify(last["commitment"], last["seed"], last["dealt"][:at], source=last["source"])
    assert verify(last["commitment"], last["seed"], last["dealt"][at:], source=last["reshuffles"][0]["source"],
                  label=last["reshuffles"][0]["label"])


# -- Choosing and moving the bank ----------------------------------------------------------------------
def test_first_bank_goes_to_the_highest_draw():
    g = Game(P, seats={"A": 1000, "C": 1000, "D": 1000}, banker=None)
    g.start()
    draw = g.of("bank_draw")[0]
    from games.engine.machine import _draw_rank

    assert draw["winner"] == max(draw["cards"], key=lambda k: _draw_rank(draw["cards"][k]))
    assert g.state.banker == draw["winner"] and g.state.phase == "betting"


def test_draw_ranks_figures_above_seven_and_suits_cups_coins_clubs_swords():
    from games.engine.machine import _draw_rank

    order = ["7C", "JE", "NE", "KE", "KB", "KO", "KC"]
    assert sorted(order, key=_draw_rank) == order


def _make_target(g, who_first):
    """Stack so that C1 makes 7½ (7 then a figure) and the bank stands on 5."""
    g.start(deck=["7O", "2C", "3C", "5B", "KO"])
    g.close_betting()
    g.do("C1", "hit")
    g.play_out()


def test_challenger_with_seven_and_a_half_may_take_the_bank_when_the_bank_does_not():
    g = game()
    _make_target(g, "C1")
    assert g.state.pending == {"kind": "take", "seat": "C1", "queue": []}
    g.do("C1", "take_bank")
    assert g.state.banker == "C1" and g.state.bank == g.state.last_hand["deltas"]["C1"] + 1000
    assert g.stack("B") == 1000 + g.state.last_hand["deltas"]["B"]


def test_a_player_who_declined_once_must_take_the_bank_the_next_time():
    g = game()
    _make_target(g, "C1")
    g.do("C1", "decline_bank")
    assert g.state.banker == "B" and g.state.seat("C1")["declined_take"]
    g.state.shoe = None  # a fresh shoe, so that the stacked cards are in the stock
    g.start(deck=["7O", "2C", "3C", "5B", "KO"], seed="44" * 32)
    g.close_betting()
    g.do("C1", "hit")
    g.play_out()
    assert g.state.banker == "C1" and g.of("bank_taken")


def test_several_seven_and_a_halfs_offer_the_bank_in_seat_order():
    g = game()
    g.start(deck=["7O", "7C", "3C", "5B", "KO", "JC"])
    g.close_betting()
    g.do("C1", "hit")
    g.do("C2", "hit")
    g.play_out()
    assert g.state.pending == {"kind": "take", "seat": "C1", "queue": ["C2"]}
    g.do("C1", "decline_bank")
    assert g.state.pending["seat"] == "C2"


def test_a_player_who_must_take_the_bank_does_not_jump_ahead_of_an_earlier_seat():
    g = game()
    g.state.seat("C2")["declined_take"] = True  # C2 declined the bank in an earlier hand
    g.start(deck=["7O", "7C", "3C", "5B", "KO", "JC"])
    g.close_betting()
    g.do("C1", "hit")
    g.do("C2", "hit")
    g.play_out()
    assert g.state.banker == "B" and g.state.pending == {"kind": "take", "seat": "C1", "queue": ["C2"]}
    g.do("C1", "decline_bank")
    assert g.state.banker == "C2" and g.of("bank_taken")  # the offer reached C2, who must take it
    # The same over two hands: C2 declines, then C1 is offered first and takes it.
    assert script("seven-half-take-bank-in-seat-order")["next_banker"] == "C1"


def test_nobody_holds_the_bank_more_than_three_consecutive_hands():
    g = game()
    for i in range(3):
        assert g.state.banker == "B"
        g.state.shoe = None
        g.start(deck=["1O", "1C", "1E", "2B"], seed=f"{i + 50}" * 32)
        g.play_out()
    assert g.state.banker == "C1" and g.of("bank_term_over")


def test_a_bank_that_cannot_cover_the_table_passes_to_the_next_who_can():
    g = game(seats={"B": 1000, "C1": 50, "C2": 1000, "C3": 1000})
    g.start(deck=["7O", "7C", "7E", "1B", "3O", "3C", "3E", "4O"])  # bank: 1 + 4 = 5 loses 3 x 10 = fine
    g.play_out()
    assert g.state.banker == "B"
    g.state.bank = 20  # with the 30 it wins, 50: below 2 x 10 x 3 = 60
    g.state.shoe = None
    g.start(deck=["1O", "1C", "1E", "2B"], seed="66" * 32)
    g.play_out()
    assert g.state.banker == "C2"  # C1 cannot cover either
    assert g.of("bank_cannot_cover")


# -- The jackpot ---------------------------------------------------------------------------------------
def test_the_first_natural_collects_the_jackpot_whole_even_against_a_busted_bank():
    g = Game(P, rules={"jackpot_enabled": True}, seats={"B": 1000, "C1": 1000, "C2": 1000})
    g.state.seat("C2")["host"] = True
    g.do("C2", "seed_jackpot", amount=100)
    assert g.state.jackpot == 100 and g.stack("C2") == 900
    g.start(deck=["7O", "7C", "6B", "KO", "JO", "3O"])
    g.close_betting()
    g.do("C1", "hit")
    g.do("C2", "hit")
    g.play_out("hit")
    won = g.of("jackpot_won")
    assert won and won[0]["seat"] == "C1" and won[0]["amount"] == 100 and g.state.jackpot == 0


def test_jackpot_is_off_by_default():
    g = game()
    g.state.seat("C1")["host"] = True
    with pytest.raises(EngineError):
        g.do("C1", "seed_jackpot", amount=10)


# -- House rules ---------------------------------------------------------------------------------------
def test_house_rules_are_off_by_default_and_each_is_a_toggle():
    r = rules_from(P, {})
    assert not any(r.house(k) for k in ("double_down", "split", "four_discard", "secret_pair", "mort"))
    r = rules_from(P, {"house_rules": True, "mort": False})
    assert r.house("split") and not r.house("mort")


def test_double_down_holding_only_the_first_card_takes_exactly_one_card():
    g = game(rules=HOUSE)
    g.start(deck=["5O", "2C", "3C", "4B", "1C"])
    g.do("C1", "bet", amount=100)
    g.close_betting()
    g.do("C1", "double")
    ph = g.state.hand["hands"]["C1"][0]
    assert ph["stake"] == 200 and len(ph["cards"]) == 2 and g.turn() == "C2"


def test_double_down_needs_the_stack_to_match_the_stake():
    g = game(rules=HOUSE, seats={"B": 1000, "C1": 150})
    g.start(deck=["5O", "2C"])
    g.do("C1", "bet", amount=100)
    assert "double" not in view(g.state, "C1")["legal_actions"]


def test_split_two_opening_figures_into_two_hands_with_an_equal_stake():
    g = game(rules=HOUSE)
    g.start(deck=["JO", "2C", "3C", "4B", "NC", "7O", "7C"])
    g.do("C1", "bet", amount=50)
    g.close_betting()
    g.do("C1", "hit")
    g.do("C1", "split")
    hands = g.state.hand["hands"]["C1"]
    assert [h["stake"] for h in hands] == [50, 50] and [len(h["cards"]) for h in hands] == [1, 1]
    g.do("C1", "hit")  # J + 7 = 7½ on the first hand: it ends
    assert g.state.hand["turn"] == ["C1", 1]
    g.do("C1", "hit")
    g.play_out()
    assert [r["bettor"] for r in g.results()].count("C1") == 2


def test_the_four_discard_replaces_an_opening_four_once():
    g = game(rules=HOUSE)
    g.start(deck=["4O", "2C", "3C", "5B", "4C", "6E"])
    g.close_betting()
    cards = [c[0] for c in g.state.hand["hands"]["C1"][0]["cards"]]
    assert cards == ["4C"]  # replaced once: the second 4 stays
    assert g.of("card_discarded")[0]["card"] == "4O"


def test_secret_pair_on_a_three_two_secret_cards_stand_only():
    g = game(rules=HOUSE)
    g.start(deck=["3O", "2C", "3C", "5B", "1C", "2E"])
    g.close_betting()
    ph = g.state.hand["hands"]["C1"][0]
    assert [c[0] for c in ph["cards"]] == ["1C", "2E"] and ph["secret"] and ph["done"]
    assert view(g.state, "C2")["hand"]["hands"]["C1"][0]["cards"] == [{"hidden": True}, {"hidden": True}]
    assert g.turn() == "C2"


def test_the_mort_accepted_making_seven_and_a_half_counts_as_a_natural():
    g = game(rules=HOUSE)
    g.start(deck=["7O", "2C", "3C", "5B", "KC"])
    g.do("C1", "bet", amount=10)
    g.close_betting()
    assert view(g.state, "C1")["legal_actions"][:2] == ["mort_accept", "mort_decline"]
    g.do("C1", "mort_accept")
    g.play_out()
    assert (g.result("C1")["outcome"], g.result("C1")["multiplier"]) == ("win", 2)


def test_the_mort_accepted_without_seven_and_a_half_loses_the_stake_at_once():
    g = game(rules=HOUSE)
    g.start(deck=["7O", "2C", "3C", "5B", "1C"])
    g.close_betting()
    g.do("C1", "mort_accept")
    assert g.state.hand["results"][0]["outcome"] == "lose" and g.turn() == "C2"


def test_the_mort_declined_plays_on_with_the_seven_and_may_double():
    g = game(rules=HOUSE)
    g.start(deck=["7O", "2C", "3C", "5B", "1C"])
    g.close_betting()
    g.do("C1", "mort_decline")
    assert "double" in view(g.state, "C1")["legal_actions"]
    with pytest.raises(EngineError):
        g.do("C1", "mort_accept")


def test_a_split_hand_busting_shows_only_its_own_cards_not_the_other_hands_face_down_card():
    g = game(rules=HOUSE)
    g.start(deck=["JO", "2C", "3C", "4B", "NC", "2O", "7C"])
    g.close_betting()
    g.do("C1", "hit")
    g.do("C1", "split")  # first hand: the face-down jack; second hand: the face-up knight
    g.do("C1", "stand")
    g.do("C1", "hit")  # face down
    shown = g.do("C1", "hit")  # ½ + 2 + 7: the second hand busts and is turned up
    event = next(e for e in shown if e["type"] == "hand_shown")
    assert (event["hand"], event["cards"]) == (1, [["NC", "2O", "7C"]])
    assert "JO" not in repr([e for e in shown if e["type"] != "card_dealt"])
    assert view(g.state, "C2")["hand"]["hands"]["C1"][0]["cards"] == [{"hidden": True}]


def test_a_seat_that_left_declines_the_mort_at_its_turn_and_the_hand_goes_on():
    g = game(rules=HOUSE)
    g.start(deck=["7O", "2C", "3C", "4B"])
    g.do("C1", "leave")  # during betting: default stake, then default actions
    g.close_betting()  # C1's turn opens on a 7: the Mort is offered to a seat nobody plays
    assert g.state.hand["hands"]["C1"][0]["mort"] == "declined"
    assert g.state.hand["turn"] == ["C2", 0]
    g.play_out()
    assert g.state.last_hand is not None and g.state.seat("C1") is None  # released after settlement
