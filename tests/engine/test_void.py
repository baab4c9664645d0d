"""A hand voided before anyone staked (games/engine/void.py): when its room closes during betting, the hand ends with
no card dealt and no chip moved, its seed revealed and its record in the chain; anything else refuses the void and
changes nothing."""

import pytest

from games.engine import EngineError, verify
from games.engine.shuffle import ZERO_CHAIN, chain_hash, commitment
from games.engine.void import voidable

from .helpers import SEED, Game


def stacks(g):
    return {x["id"]: x["stack"] for x in g.state.seats}, g.state.bank


def test_a_hand_nobody_staked_on_is_voided_no_chip_moves_and_its_record_verifies():
    g = Game(side={"S1": 300})
    g.do("system", "commit_seed", seed_hex=SEED)
    g.start()
    g.do("C1", "chip", amount=10)  # chips put forward, never confirmed: no stake
    before = stacks(g)
    assert voidable(g.state)
    events = g.do("system", "void_hand")
    assert [e["type"] for e in events] == ["hand_voided", "hand_over"]
    assert events[0] == {"type": "hand_voided", "hand_no": 1, "why": "closed"}
    s, last = g.state, g.state.last_hand
    assert s.phase == "between_hands" and s.deadline is None and s.hand["voided"] and s.hand["over"]
    assert stacks(g) == before and s.chips() == 500 + 3000 + 300
    assert last["voided"] is True and last["dealt"] == [] and last["results"] == [] and last["deltas"] == {}
    assert last["order"] == [] and last["hands"] == {} and last["seed"] == SEED and last["prev"] == ZERO_CHAIN
    assert last["commitment"] == commitment(SEED) == events[1]["commitment"]
    assert last["chain"] == chain_hash(last) == s.chain == events[1]["chain"]
    assert verify(last["commitment"], last["seed"], last["dealt"], deck=g.rules.deck, seeds=last["seeds"], hand_no=1)
    # The claim of a void is hashed: the same record without it is another hash.
    assert chain_hash({**last, "voided": False}) != last["chain"]
    assert g.state.bank_hands == 0


def test_the_next_hand_links_to_the_voided_one():
    g = Game()
    g.start()
    g.do("system", "void_hand")
    voided = g.state.chain
    g.do("system", "commit_seed", seed_hex="22" * 32)
    g.start()
    g.close_betting()
    assert g.state.hand["prev"] == voided
    g.play_out()
    assert g.state.last_hand["prev"] == voided and g.state.last_hand["hand_no"] == 2


def test_the_shoe_keeps_the_cards_of_a_voided_hand():
    g = Game("seven-half")
    g.start()
    g.close_betting()
    g.play_out()
    left = sorted(g.state.shoe["stock"])
    g.start()
    g.do("system", "void_hand")
    assert sorted(g.state.shoe["stock"]) == left and g.state.hand["stock"] == []
    assert g.state.last_hand["source"] == g.state.hand["source"]


def refused(g, actor="system"):
    before = g.state
    with pytest.raises(EngineError) as e:
        g.do(actor, "void_hand")
    assert g.state is before  # the machine works on a copy: a refused command changes nothing
    return e.value.code


def test_a_hand_someone_staked_on_or_dealt_is_never_voided():
    g = Game()
    g.start()
    assert refused(g, actor="C1") == "not_allowed"
    g.do("C1", "bet", amount=10)  # C1 staked: the hand is played by default actions
    assert not voidable(g.state) and refused(g) == "wrong_phase"

    g = Game()
    g.start()
    g.do("C2", "chip", amount=10)
    g.do("C2", "confirm")
    assert refused(g) == "wrong_phase"

    g = Game(side={"S1": 300})
    g.start()
    g.do("S1", "side_bet", backs="C1", amount=10)
    assert refused(g) == "wrong_phase"

    g = Game()
    g.start()
    g.close_betting()  # dealt
    assert g.state.phase == "playing" and refused(g) == "wrong_phase"
    g.play_out()
    assert refused(g) == "wrong_phase"  # between hands: nothing to void

    assert refused(Game()) == "wrong_phase"  # no hand yet


def test_the_bank_auction_is_voided_before_its_first_cards_and_played_after_them():
    g = Game("ten-half-auction", seats={"A": 1000, "B": 1000, "C": 1000}, rules={"auction_sees_first_card": False},
             banker=None)
    g.start()
    assert g.state.phase == "auction" and g.state.hand["dealt"] == []
    g.do("A", "bid", mult=2)  # a bid is no stake
    events = g.do("system", "void_hand")
    assert [e["type"] for e in events] == ["hand_voided", "hand_over"]
    assert g.state.banker is None and g.state.bank == 0 and g.state.chips() == 3000
    assert {x["id"]: x["stack"] for x in g.state.seats} == {"A": 1000, "B": 1000, "C": 1000}
    last = g.state.last_hand
    assert last["chain"] == chain_hash(last) and last["seeds"]  # the auction sealed the deal before its bids
    assert verify(last["commitment"], last["seed"], [], deck=g.rules.deck, seeds=last["seeds"], hand_no=1,
                  prev=last["prev"])

    g = Game("ten-half-auction", seats={"A": 1000, "B": 1000, "C": 1000}, banker=None)  # bidders see a first card
    g.start()
    assert g.state.hand["dealt"] and refused(g) == "wrong_phase"
