"""The deal that waits for seeds (docs/fairness.md, "Who commits what, when"): `start_hand`'s `seed_wait` names the
seats whose own seed the deal waits for; once betting closes the cards wait until those of them that play have sent
one, or until the wait's deadline, after which the missing seats get the seed the server seed fixes (`by: "server"`)
and a `seed_missing` event says whose it was. Without `seed_wait` (scripts, simulations) nothing waits."""

import copy
import hashlib

import pytest

from games.engine import EngineError, legal_actions, verify
from games.engine.shuffle import ZERO_CHAIN, commitment, seat_seed

from .helpers import SEED, Game

MINE = hashlib.sha256(b"C1's seed").hexdigest()
THEIRS = hashlib.sha256(b"C2's seed").hexdigest()


def waiting_game(seats=("C1",), seconds=5, preset="ten-half", **kwargs) -> Game:
    """B banks, C1..C3 challenge; the hand's deal waits `seconds` for the seeds of `seats`."""
    g = Game(preset=preset, **kwargs)
    g.do("system", "commit_seed", seed_hex=SEED)
    g.do("system", "start_hand", seed_hex=SEED, seed_wait={"seconds": seconds, "seats": list(seats)})
    return g


def bet_all(g: Game, **seeds) -> None:
    for seat in ("C1", "C2", "C3"):
        g.do(seat, "bet", amount=10, **({"seed": seeds[seat]} if seat in seeds else {}))


def by(g: Game) -> dict:
    return {x["seat"]: x["by"] for x in g.state.hand["seeds"]}


def test_the_deal_waits_for_an_awaited_seed_and_deals_with_it_when_it_comes():
    g = waiting_game()
    bet_all(g)
    s = g.state
    assert s.phase == "betting" and s.hand["awaiting"] == ["C1"] and s.hand["dealt"] == []
    assert s.deadline == g.now + 5 and s.deadline_for == ["C1"]
    assert g.of("seed_awaited") == [{"type": "seed_awaited", "seat": "C1", "hand_no": 1}]
    assert legal_actions(s, "C1") == ["leave"]  # nothing to bet: the page sends its seed by itself
    assert g.view("C2")["fair_deal"]["open"] is True
    events = g.do("C1", "seed", seed=MINE)
    assert events[0]["type"] == "seed_received" and "betting_closed" in [e["type"] for e in events]
    assert g.state.phase == "playing" and g.state.hand["awaiting"] == []
    assert by(g) == {"B": "server", "C1": "player", "C2": "server", "C3": "server"}
    assert not g.of("seed_missing")
    g.play_out()
    over = g.state.last_hand
    assert verify(over["commitment"], over["seed"], over["dealt"], deck="french-52", seeds=over["seeds"], hand_no=1,
                  prev=ZERO_CHAIN)


def test_after_the_deadline_the_hand_is_dealt_and_the_missing_seed_is_the_servers_and_said():
    g = waiting_game(seats=("C1", "C2"))
    bet_all(g, C2=THEIRS)  # C2's seed came with its bet: only C1's is awaited
    assert g.state.hand["awaiting"] == ["C1"]
    g.do("system", "timeout")
    assert g.state.phase == "playing"
    assert g.of("seed_missing") == [{"type": "seed_missing", "seat": "C1", "hand_no": 1}]
    seeds = {x["seat"]: x for x in g.state.hand["seeds"]}
    assert seeds["C1"] == {"seat": "C1", "seed": seat_seed(bytes.fromhex(SEED), "C1"), "by": "server"}
    assert seeds["C2"] == {"seat": "C2", "seed": THEIRS, "by": "player"}
    g.play_out()
    assert {x["seat"]: x["by"] for x in g.state.last_hand["seeds"]}["C1"] == "server"  # the record says so


def test_a_seed_already_in_means_no_wait():
    g = waiting_game(seats=("C1", "C2"))
    g.do("C1", "seed", seed=MINE)
    bet_all(g, C2=THEIRS)
    assert g.state.phase == "playing" and not g.of("seed_awaited")
    assert by(g)["C1"] == by(g)["C2"] == "player"


def test_without_seed_wait_nothing_waits_and_the_deck_is_the_one_it_always_was():
    waited, plain = waiting_game(), Game()
    plain.do("system", "commit_seed", seed_hex=SEED)
    plain.do("system", "start_hand", seed_hex=SEED)
    bet_all(plain)
    assert plain.state.phase == "playing" and "awaiting" not in plain.state.hand
    bet_all(waited)
    waited.do("system", "timeout")
    assert waited.state.hand["dealt"] == plain.state.hand["dealt"]  # no player seed either way: same deal key


def test_the_wait_starts_after_the_betting_timeout_and_only_once():
    g = waiting_game(seats=("C1",))
    g.do("C2", "bet", amount=10)
    g.do("C3", "bet", amount=10)
    g.do("system", "timeout")  # C1 did not bet: its stake is the default, then its seed is awaited
    assert g.state.phase == "betting" and g.state.hand["bets"]["C1"]["confirmed"] and g.of("bet_defaulted")
    assert g.state.hand["awaiting"] == ["C1"]
    g.do("system", "timeout")
    assert g.state.phase == "playing" and g.of("seed_missing")


def test_only_awaited_seats_that_play_the_hand_are_waited_for():
    # B (the banker) and S1 (a side bettor who does not bet) are listed; the banker plays, S1 does not.
    g = Game(side={"S1": 500})
    g.do("system", "commit_seed", seed_hex=SEED)
    g.do("system", "start_hand", seed_hex=SEED, seed_wait={"seconds": 5, "seats": ["B", "S1", "nobody"]})
    bet_all(g)
    g.do("S1", "no_bet")
    assert g.state.hand["awaiting"] == ["B"]
    g.do("B", "seed", seed=MINE)
    assert g.state.phase == "playing" and by(g)["B"] == "player" and by(g)["S1"] == "server"


def test_an_awaited_seat_that_leaves_is_not_waited_for():
    g = waiting_game(seats=("C1", "C2"))
    bet_all(g)
    assert g.state.hand["awaiting"] == ["C1", "C2"]
    g.do("C2", "leave")  # leaves after the hand: its stake stands, its seed is no longer awaited
    assert g.state.phase == "betting" and g.state.hand["awaiting"] == ["C1"] and g.state.deadline_for == ["C1"]
    g.do("C1", "seed", seed=MINE)
    assert g.state.phase == "playing" and by(g)["C2"] == "server"


def test_a_fixed_stake_game_waits_at_the_start_of_the_hand():
    # Zhejiang: every stake is fixed, so betting closes as the hand starts; the deal waits there.
    g = waiting_game(preset="zhejiang-ten-half", seats=("C2",))
    assert g.state.phase == "betting" and g.state.hand["awaiting"] == ["C2"]
    assert all(b["confirmed"] for b in g.state.hand["bets"].values())
    g.do("C2", "seed", seed=THEIRS)
    assert g.state.phase == "playing" and by(g)["C2"] == "player"


@pytest.mark.parametrize("bad", ["ab" * 31, "zz" * 32, ["ab" * 32], None])
def test_a_bad_seed_during_the_wait_is_refused_and_changes_nothing(bad):
    g = waiting_game()
    bet_all(g)
    before = copy.deepcopy(g.state)
    with pytest.raises(EngineError) as e:
        g.do("C1", "seed", seed=bad)
    assert e.value.code == "bad_seed"
    assert g.state == before


@pytest.mark.parametrize("wait", [5, [], {"seconds": 5}, {"seconds": 0, "seats": []}, {"seconds": True, "seats": []},
                                  {"seconds": "5", "seats": []}, {"seconds": 5, "seats": "C1"},
                                  {"seconds": 5, "seats": [1]}, {"seconds": 5, "seats": [], "more": 1}], ids=repr)
def test_a_malformed_seed_wait_is_refused_and_changes_nothing(wait):
    g = Game()
    g.do("system", "commit_seed", seed_hex=SEED)
    before = copy.deepcopy(g.state)
    with pytest.raises(EngineError) as e:
        g.do("system", "start_hand", seed_hex=SEED, seed_wait=wait)
    assert e.value.code == "bad_command"
    assert g.state == before


def test_the_commitment_the_wait_shows_is_the_one_dealt():
    g = waiting_game()
    bet_all(g)
    shown = g.view("C1")["fair_deal"]
    assert shown == {"hand_no": 1, "commitment": commitment(SEED), "open": True, "seeds": {}}
    g.do("C1", "seed", seed=MINE)
    assert g.view("C1")["fair_deal"] == {"hand_no": 1, "commitment": commitment(SEED), "open": False,
                                         "seeds": {"C1": MINE}}
