"""The bank auction (抢庄; house-rules.md "The bank auction", games/engine/auction.py, docs/rules.md)."""

import pytest

from games.engine import EngineError, bot_decide, legal_actions, redact_event
from games.engine.auction import STREAM, pick
from games.engine.shuffle import WordStream
from tests.engine.helpers import Game

FOUR = {"A": 1000, "B": 1000, "C": 1000, "D": 1000}


def auction(rules=None, seats=None, preset="ten-half-auction", **start):
    g = Game(preset, seats=seats or dict(FOUR), rules=rules, banker=None)
    g.start(**start)
    return g


def bid_all(g, bids):
    for seat, mult in bids.items():
        g.do(seat, "bid", mult=mult)


def test_the_hand_starts_with_the_auction_and_each_bidder_holds_only_its_own_first_card():
    g = auction(deck=["9S", "5H", "KD", "2C"])
    assert g.state.phase == "auction" and g.state.banker is None
    assert g.state.deadline_for == ["A", "B", "C", "D"]
    mine = g.view("A")["hand"]["hands"]
    assert mine["A"][0]["cards"] == [{"card": "9S", "up": False}]
    assert mine["B"][0]["cards"] == [{"hidden": True}]
    assert all(c == {"hidden": True} for x in "ABCD" for c in g.view(None)["hand"]["hands"][x][0]["cards"])
    dealt = [e for e in g.events if e["type"] == "card_dealt"]
    assert [e["seat"] for e in dealt] == ["A", "B", "C", "D"]  # seat order, before the banker is known
    assert "card" not in redact_event(dealt[0], "B") and redact_event(dealt[0], "A")["card"] == "9S"
    assert legal_actions(g.state, "A") == ["bid", "leave"]
    house = g.view("A")["house"]["auction"]
    assert house == {"state": "bidding", "bidders": ["A", "B", "C", "D"], "bids": {}, "max": 4,
                     "deadline": g.state.deadline, "sees_first_card": True, "you_bid": True}


def test_the_highest_bid_wins_and_multiplies_every_settlement_of_its_bank():
    g = auction(deck=["9S", "5H", "KD", "2C"], dice=[1, 2])
    bid_all(g, {"A": 1, "B": 3, "C": 0})
    assert g.view("C")["house"]["auction"]["bids"] == {"A": 1, "B": 3, "C": 0}  # public once made
    g.do("D", "bid", mult=2)
    assert g.state.phase == "betting" and g.state.banker == "B" and g.state.bank_mult == 3
    won = g.of("auction_won")[0]
    assert (won["seat"], won["mult"], won["by"], won["tied"]) == ("B", 3, "bid", ["B"])
    assert g.state.bank == 1000 and g.stack("B") == 0  # the whole stack is the bank
    assert g.view("A")["house"]["auction"]["mult"] == 3
    g.play_out()
    for r in g.results():
        assert r["bank_mult"] == 3 and r["due"] == r["stake"] * r["multiplier"] * 3
    assert g.state.last_hand["auction"]["winner"] == "B"


def test_a_tie_goes_to_the_bidder_the_hands_stream_picks():
    g = auction(deck=["9S", "10H", "10D", "2C"])
    bid_all(g, {"A": 1, "B": 3, "C": 3, "D": 0})
    key = bytes.fromhex(g.state.hand["key"])
    assert g.state.banker == pick(key, ["B", "C"]) == ["B", "C"][WordStream(key, STREAM).below(2)]
    assert g.state.hand["auction"]["tied"] == ["B", "C"] and g.state.hand["auction"]["by"] == "tie"


def test_no_bid_gives_the_bank_to_the_usual_order_at_x1():
    g = Game("ten-half-auction", seats=dict(FOUR), banker=None)
    g.state.seats[2]["host"] = True  # C hosts: the host banks first
    g.start()
    bid_all(g, {"A": 0, "B": 0, "C": 0, "D": 0})
    assert g.state.banker == "C" and g.state.bank_mult == 1 and g.of("auction_won")[0]["by"] == "order"


def test_the_timeout_is_no_bid():
    g = auction()
    g.do("A", "bid", mult=2)
    g.do("system", "timeout")
    assert g.state.hand["auction"]["bids"] == {"A": 2, "B": 0, "C": 0, "D": 0}
    assert [e.get("timeout") for e in g.of("bid_made")] == [None, True, True, True]
    assert g.state.banker == "A" and g.state.phase == "betting"


@pytest.mark.parametrize("bid, code", [(5, "bid_too_high"), (-1, "bad_amount"), (True, "bad_amount")])
def test_refused_bids(bid, code):
    g = auction()
    with pytest.raises(EngineError) as e:
        g.do("A", "bid", mult=bid)
    assert e.value.code == code


def test_one_bid_each_only_in_the_auction_and_no_bank_opened_by_hand():
    g = Game("ten-half-auction", seats=dict(FOUR), banker=None, side={"S": 500})
    assert "open_bank" not in legal_actions(g.state, "A")
    with pytest.raises(EngineError) as e:
        g.do("A", "open_bank", amount=500)
    assert e.value.code == "bank_auction"
    with pytest.raises(EngineError) as e:
        g.do("A", "bid", mult=1)
    assert e.value.code == "wrong_phase"
    g.start()
    g.do("A", "bid", mult=1)
    with pytest.raises(EngineError) as e:
        g.do("A", "bid", mult=2)
    assert e.value.code == "already_bid"
    with pytest.raises(EngineError) as e:
        g.do("S", "bid", mult=2)
    assert e.value.code == "not_bidding"


def test_the_seeds_come_first_then_the_cards_then_the_bids():
    g = Game("ten-half-auction", seats=dict(FOUR), banker=None)
    g.do("system", "commit_seed", seed_hex="22" * 32)
    g.do("system", "start_hand", seed_wait={"seconds": 5, "seats": ["A"]})
    assert g.state.phase == "auction" and g.state.deadline_for == ["A"] and not g.state.hand["dealt"]
    assert g.view("A")["house"]["auction"]["state"] == "seeds" and legal_actions(g.state, "A") == ["leave"]
    g.do("A", "seed", seed="33" * 32)
    assert g.state.hand["seeds"][0] == {"seat": "A", "seed": "33" * 32, "by": "player"}
    assert len(g.state.hand["dealt"]) == 4 and "bid" in legal_actions(g.state, "A")
    with pytest.raises(EngineError) as e:
        g.do("B", "seed", seed="44" * 32)
    assert e.value.code == "seed_too_late"


def test_a_missing_seed_opens_the_bids_at_the_deadline():
    g = Game("ten-half-auction", seats=dict(FOUR), banker=None)
    g.do("system", "commit_seed", seed_hex="22" * 32)
    g.do("system", "start_hand", seed_wait={"seconds": 5, "seats": ["A"]})
    g.do("system", "timeout")
    assert g.of("seed_missing")[0]["seat"] == "A" and g.view("A")["house"]["auction"]["state"] == "bidding"


def test_blind_bids_come_before_the_first_card():
    g = auction(rules={"auction_sees_first_card": False})
    assert not g.state.hand["dealt"]
    bid_all(g, {"A": 2, "B": 1, "C": 0, "D": 0})
    g.close_betting()
    assert len(g.state.hand["dealt"]) == 4 and g.state.banker == "A"


def test_a_stake_against_a_multiplied_bank_is_covered_by_the_stack():
    g = auction(seats={"A": 1000, "B": 1000, "C": 100, "D": 1000})
    bid_all(g, {"A": 4, "B": 0, "C": 0, "D": 0})
    with pytest.raises(EngineError) as e:
        g.do("C", "bet", amount=30)  # 30 x4 is more than 100
    assert e.value.code == "stake_above_cover"
    g.do("C", "bet", amount=20)
    assert bot_decide(g.view("D"), "basic", g.rules) == ("bet", {"amount": 10})


def test_a_challenger_who_cannot_cover_the_smallest_stake_sits_out_and_its_card_is_set_aside():
    g = auction(seats={"A": 1000, "B": 1000, "C": 30, "D": 1000}, deck=["9S", "5H", "KD", "2C"])
    bid_all(g, {"A": 4, "B": 0, "C": 0, "D": 0})
    assert "C" in g.state.hand["sitting_out"] and "C" not in g.state.hand["bets"]
    assert "KD" in g.state.hand["set_aside"]


def test_the_multiplier_comes_down_when_no_challenger_could_stake_at_it():
    g = auction(seats={"A": 1000, "B": 30})
    bid_all(g, {"A": 4, "B": 0})
    assert g.state.banker == "A" and g.state.bank_mult == 3 and g.of("auction_won")[0]["bid"] == 4


def test_a_bidder_who_leaves_makes_no_bid_and_cannot_win():
    g = auction()
    g.do("A", "bid", mult=4)
    g.do("A", "leave")
    bid_all(g, {"B": 1, "C": 0, "D": 0})
    assert g.state.banker == "B" and g.state.hand["bets"]["A"]["confirmed"]


def test_the_bank_is_auctioned_again_after_a_retirement_and_the_multiplier_ends_with_its_bank():
    g = auction()
    bid_all(g, {"A": 2, "B": 0, "C": 0, "D": 0})
    g.play_out()
    g.state.bank = g.state.bank_opening * 3  # a profit that allows retiring
    g.do("A", "retire")
    assert g.state.banker is None and g.state.bank_mult == 1 and g.of("auction_due")
    assert g.view("B")["house"]["auction"] == {"state": "next"}
    g.start(seed="12" * 32)
    assert g.state.phase == "auction" and g.state.hand["auction"]["from"] == 0


def test_zhejiang_auctions_the_bank_after_a_step_down():
    g = auction(preset="zhejiang-ten-half", rules={"bank_auction": True}, seats={"A": 900, "B": 900, "C": 900})
    bid_all(g, {"A": 0, "B": 2, "C": 0})
    assert g.state.banker == "B" and g.state.phase in ("betting", "playing")
    g.play_out()
    if g.state.last_hand["deltas"]["B"] < 0:
        assert g.state.banker is None and g.of("auction_due")
    else:
        assert g.state.banker == "B" and g.state.bank_mult == 2


def test_bots_bid_higher_with_a_better_first_card():
    g = auction(deck=["10S", "6H", "2D", "QC"])
    bids = {x: bot_decide(g.view(x), "basic", g.rules)[1]["mult"] for x in "ABCD"}
    assert bids == {"A": 4, "B": 1, "C": 0, "D": 1}


def test_the_hand_record_carries_the_auction():
    g = auction(deck=["9S", "10H", "10D", "2C"])
    bid_all(g, {"A": 1, "B": 3, "C": 3, "D": 0})
    g.play_out()
    rec = g.state.last_hand["auction"]
    assert rec["tied"] == ["B", "C"] and rec["winner"] == g.state.last_hand["banker"] and rec["mult"] == 3


def test_the_offline_verifier_rederives_the_tie_break(monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import halfpoint_verify as tool

    g = Game("ten-half-auction", seats=dict(FOUR), banker=None)
    g.do("system", "commit_seed", seed_hex="22" * 32)
    g.do("system", "start_hand", seed_wait={"seconds": 5, "seats": ["A"]})
    g.do("A", "seed", seed="33" * 32)  # a player's seed: the deal key is not the server seed alone
    bid_all(g, {"A": 2, "B": 2, "C": 2, "D": 1})
    g.play_out()
    record = {"format": "halfpoint-hand-1", "room": "x", "game": "ten-half", "deck": "french-52",
              **g.state.last_hand, "names": {}}
    checks = {c[0]: c[1] for c in tool.check_record(record)}
    assert checks["auction"] and checks["deck"] and checks["chain"], tool.check_record(record)
    other = next(x for x in ("A", "B", "C") if x != record["banker"])
    forged = {**record, "auction": {**record["auction"], "winner": other}, "banker": other}
    assert not {c[0]: c[1] for c in tool.check_record(forged)}["auction"]


def test_an_empty_bank_passed_goes_to_auction_and_a_refilled_one_keeps_its_multiplier():
    # The golden script house-auction-multiplied-settlement's hand, whose stakes go past the preset's largest stake.
    g = auction(rules={"max_bet": None}, seats={"A": 1000, "B": 300, "C": 1000, "D": 1000},
                deck=["5S", "9H", "10S", "3C", "8D", "5D", "JD"], dice=[1, 1])
    bid_all(g, {"A": 2, "B": 4, "C": 0, "D": 1})
    g.do("A", "bet", amount=100)
    g.do("C", "bet", amount=50)
    g.do("D", "bet", amount=20)
    for seat, action in (("C", "stand"), ("D", "hit"), ("A", "hit"), ("A", "hit")):
        g.do(seat, action)
    g.play_out()
    assert g.state.pending == {"kind": "refill", "seat": "B", "queue": []} and g.state.bank == 0
    assert g.result("A")["due"] == 800 and g.result("A")["paid"] == 180
    g.do("B", "pass_bank")
    assert g.state.banker is None and g.state.bank_mult == 1 and g.state.auction_from == 1
    g.start(seed="13" * 32)
    assert g.state.phase == "auction" and "B" not in g.state.hand["auction"]["bidders"]  # B's stack is empty
