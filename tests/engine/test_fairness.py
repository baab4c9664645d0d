"""The fair deal (docs/fairness.md): the server commits between hands, each seat adds a seed until the deal, the deck
comes from the deal key, and each hand's record carries the previous hand's chain hash."""

import hashlib
import hmac
import json
import pathlib
import struct

import pytest

from games.engine import EngineError, verify
from games.engine.cards import DECKS
from games.engine.shuffle import ZERO_CHAIN, chain_hash, commitment, deal_key, roll_dice, seat_seed, shuffle

from .helpers import SEED, Game

FAIRNESS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "fairness.md"
MINE = hashlib.sha256(b"C1's seed").hexdigest()
THEIRS = hashlib.sha256(b"C2's seed").hexdigest()
NEXT = "22" * 32


def vectors() -> list[dict]:
    """The test vectors of docs/fairness.md, the JSON block after its marker."""
    text = FAIRNESS.read_text()
    return json.loads(text.split("<!-- vectors -->", 1)[1].split("```json", 1)[1].split("```", 1)[0])


@pytest.mark.parametrize("v", [v for v in vectors() if "record" not in v], ids=lambda v: v["name"])
def test_the_documented_vectors_give_the_documented_deal_key_and_deck(v):
    server = bytes.fromhex(v["server_seed"])
    assert commitment(v["server_seed"]) == v["commitment"]
    for x in v["seeds"]:
        if x["by"] != "player":
            assert seat_seed(server, x["seat"]) == x["seed"]
    key = deal_key(server, v["hand_no"], v["prev"], v["seeds"])
    assert key.hex() == v["deal_key"]
    assert shuffle(v["source"] if isinstance(v["source"], list) else DECKS[v["source"]], key, v["label"]) == v["order"]
    if "dice" in v:
        assert roll_dice(key) == v["dice"]


def test_the_documented_chain_vector_hashes_to_its_chain_hash():
    v = next(v for v in vectors() if "record" in v)
    assert chain_hash(v["record"]) == v["chain"]
    assert chain_hash({**v["record"], "dealt": v["record"]["dealt"][::-1]}) != v["chain"]


def test_the_vectors_cover_every_game_and_the_shoe():
    names = {v.get("game") for v in vectors()}
    assert {"ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"} <= names
    assert any(isinstance(v.get("source"), list) and v["label"] == "0" for v in vectors())
    assert any(v.get("label") == "1" for v in vectors())


def test_a_full_decks_source_is_its_name_everywhere_and_the_shoes_its_sorted_stock():
    """docs/fairness.md, "Byte level", 10: the vectors, hand_over and the record carry one value."""
    for v in vectors():
        if "deck" in v:
            assert v["source"] == v["deck"] if v["game"] != "seven-half" else isinstance(v["source"], list), v["name"]
    for preset in ("ten-half", "zhejiang-ten-half", "ban-luck", "seven-half"):
        g = committed_game(preset=preset, seats={"B": 2000, "C1": 1000, "C2": 1000}, rules={"order_policy": "seat"})
        g.start()
        g.play_out()
        over, last = g.of("hand_over")[-1], g.state.last_hand
        assert over["source"] == last["source"]
        assert last["source"] == (list(DECKS["spanish-40"]) if preset == "seven-half" else g.rules.deck)


def plain_modulo_shuffle(cards, key: bytes, label: str = "0") -> list[str]:
    """Fisher-Yates taking every word modulo m, with no rejection: the mistake the `rejection` vector catches."""
    words = (w for k in range(100) for w in struct.unpack(">8I", hmac.digest(key, f"{label}:{k}".encode(), "sha256")))
    a = list(cards)
    for i in range(len(a) - 1):
        j = i + next(words) % (len(a) - i)
        a[i], a[j] = a[j], a[i]
    return a


def test_the_rejection_vector_skips_word_6_and_a_plain_modulo_shuffle_fails_it():
    v = next(v for v in vectors() if v["name"] == "rejection")
    key = bytes.fromhex(v["deal_key"])
    word6 = int.from_bytes(hmac.digest(key, b"0:0", "sha256")[24:28], "big")
    assert word6 >= 2**32 - (2**32 % 46)  # drawn for the seventh card, below 46: rejected
    assert shuffle(DECKS["french-52"], key) == v["order"]
    wrong = plain_modulo_shuffle(DECKS["french-52"], key)
    assert wrong[:6] == v["order"][:6] and wrong[6:] != v["order"][6:]



def committed_game(**kwargs) -> Game:
    """B banks, C1..C3 challenge; the next hand's server seed is committed, as the services do between hands."""
    g = Game(**kwargs)
    g.do("system", "commit_seed", seed_hex=SEED)
    return g


def dealt_deck(g: Game) -> list[str]:
    return g.of("hand_over")[-1]["dealt"] if g.of("hand_over") else g.state.hand["dealt"]


def test_a_seed_before_any_commitment_is_refused_and_one_after_it_is_taken():
    g = Game()
    with pytest.raises(EngineError) as e:
        g.do("C1", "seed", seed=MINE)
    assert e.value.code == "no_commitment"
    events = g.do("system", "commit_seed", seed_hex=SEED)
    assert events == [{"type": "seed_committed", "hand_no": 1, "commitment": commitment(SEED)}]
    assert g.view("C2")["fair_deal"] == {"hand_no": 1, "commitment": commitment(SEED), "open": True, "seeds": {}}
    assert g.do("C1", "seed", seed=MINE.upper()) == [
        {"type": "seed_received", "seat": "C1", "hand_no": 1, "seed": MINE}]
    assert g.view("C2")["fair_deal"]["seeds"] == {"C1": MINE}


@pytest.mark.parametrize("bad", ["ab" * 31, "ab" * 33, "zz" * 32, "ab " * 21 + "a", ["ab" * 32], 7, None, ""])
def test_a_malformed_seed_is_bad_seed_and_changes_nothing(bad):
    g = committed_game()
    for action, args in (("seed", {"seed": bad}), ("sit", {"name": "D", "stack": 100, "role": "side", "seed": bad})):
        with pytest.raises(EngineError) as e:
            g.do("D" if action == "sit" else "C1", action, **args)
        assert e.value.code == "bad_seed"
    g.start()
    with pytest.raises(EngineError) as e:
        g.do("C1", "bet", amount=20, seed=bad)
    assert e.value.code == "bad_seed"
    assert g.state.seeds == {} and g.state.seat("D") is None
    assert g.state.hand["bets"]["C1"] == {"amount": 0, "confirmed": False}


def test_a_seed_after_the_deal_is_refused_with_seed_too_late():
    g = committed_game()
    g.start()
    g.close_betting()
    assert g.state.phase == "playing"
    with pytest.raises(EngineError) as e:
        g.do("C1", "seed", seed=MINE)
    assert e.value.code == "seed_too_late"


def test_a_seed_sent_with_sit_before_the_commitment_is_left_out_and_the_seat_sits():
    g = Game(seats={"B": 500})
    g.do("C1", "sit", name="C1", stack=1000, seed=MINE)
    assert g.state.seat("C1") is not None and g.state.seeds == {}
    g.do("system", "commit_seed", seed_hex=SEED)
    g.do("C2", "sit", name="C2", stack=1000, seed=THEIRS)
    assert g.state.seeds == {"C2": THEIRS}


def test_the_same_server_seed_with_another_player_seed_deals_another_deck():
    decks = []
    for seed in (MINE, THEIRS, MINE):
        g = committed_game()
        g.start(seed="ff" * 32)  # ignored: the committed seed deals
        g.do("C1", "bet", amount=20, seed=seed)
        g.play_out()
        assert g.state.last_hand["seed"] == SEED
        decks.append(dealt_deck(g))
    assert decks[0] != decks[1] and decks[0] == decks[2]


def test_without_a_seed_of_a_players_own_the_deck_is_the_server_seeds_as_it_always_was():
    g = Game(seats={"B": 500, "C1": 1000, "C2": 1000}, rules={"order_policy": "seat"})
    g.start()
    g.close_betting()
    over = g.state.hand
    assert all(x["by"] == "server" for x in over["seeds"])
    assert over["dealt"] == shuffle(DECKS["french-52"], bytes.fromhex(SEED))[:3]


def test_every_seat_in_seat_order_gives_its_seed_or_the_one_the_server_seed_fixes():
    g = committed_game(seats={"B": 500, "C1": 1000, "C2": 1000, "C3": 1000}, side={"S1": 300})
    g.do("S2", "sit", name="S2", stack=300, role="side", position=1, bot="basic")
    g.start()
    g.do("C1", "bet", amount=20, seed=MINE)
    g.do("S1", "seed", seed=THEIRS)
    g.close_betting()
    server = bytes.fromhex(SEED)
    assert g.state.hand["seeds"] == [
        {"seat": "B", "seed": seat_seed(server, "B"), "by": "server"},
        {"seat": "C1", "seed": MINE, "by": "player"},
        {"seat": "C2", "seed": seat_seed(server, "C2"), "by": "server"},
        {"seat": "C3", "seed": seat_seed(server, "C3"), "by": "server"},
        {"seat": "S1", "seed": THEIRS, "by": "player"},
        {"seat": "S2", "seed": seat_seed(server, "S2"), "by": "bot"},
    ]
    assert g.state.seeds == {}
    key = deal_key(server, 1, ZERO_CHAIN, g.state.hand["seeds"])
    assert g.state.hand["dice"] == roll_dice(key)
    assert g.state.hand["dealt"] == shuffle(DECKS["french-52"], key)[:len(g.state.hand["dealt"])]
    assert g.view("C2")["fair_deal"] == {"hand_no": 1, "commitment": commitment(SEED), "open": False,
                                         "seeds": {"C1": MINE, "S1": THEIRS}}


def test_a_seat_that_leaves_takes_its_seed_with_it():
    g = committed_game()
    g.do("C3", "seed", seed=MINE)
    g.do("C3", "leave")
    assert g.state.seeds == {}


def test_the_commitment_is_made_between_hands_once():
    g = committed_game()
    for actor, action, code in (("system", "commit_seed", "already_committed"), ("C1", "commit_seed", "not_allowed")):
        with pytest.raises(EngineError) as e:
            g.do(actor, action, seed_hex=NEXT)
        assert e.value.code == code
    g.start()
    assert g.state.next_seed is None and g.view("C1")["fair_deal"]["hand_no"] == 1
    with pytest.raises(EngineError) as e:
        g.do("system", "commit_seed", seed_hex=NEXT)
    assert e.value.code == "wrong_phase"


def played() -> Game:
    """One hand played out, C1 betting with its own seed; the others' seeds are the server's."""
    g = committed_game(rules={"order_policy": "seat"})
    g.start()
    g.do("C1", "bet", amount=20, seed=MINE)
    g.play_out()
    return g


def test_each_hand_links_the_one_before_and_its_chain_hash_covers_its_record():
    g = played()
    first = g.state.last_hand
    assert first["prev"] == ZERO_CHAIN and first["chain"] == chain_hash(first) == g.state.chain
    over = g.of("hand_over")[-1]
    assert (over["prev"], over["chain"], over["seeds"]) == (ZERO_CHAIN, first["chain"], first["seeds"])
    for name, value in (("dealt", first["dealt"][::-1]), ("seed", NEXT), ("deltas", {}), ("seeds", []),
                        ("results", first["results"][1:]), ("prev", NEXT)):
        assert chain_hash({**first, name: value}) != first["chain"], name
    g.do("system", "commit_seed", seed_hex=NEXT)
    g.do("C2", "seed", seed=THEIRS)  # between hands: for hand 2
    g.start()
    g.play_out()
    second = g.state.last_hand
    assert second["prev"] == first["chain"] and second["hand_no"] == 2
    key = deal_key(bytes.fromhex(NEXT), 2, first["chain"], second["seeds"])
    assert second["dealt"] == shuffle(DECKS["french-52"], key)[:len(second["dealt"])]
    assert verify(second["commitment"], second["seed"], second["dealt"], deck="french-52", seeds=second["seeds"],
                  hand_no=2, prev=second["prev"])


def test_verify_refuses_a_changed_player_seed_server_seed_dealt_card_or_server_made_seed():
    h = played().state.last_hand

    def ok(**changes):
        r = {**h, **changes}
        return verify(r["commitment"], r["seed"], r["dealt"], deck="french-52", seeds=r["seeds"], hand_no=r["hand_no"],
                      prev=r["prev"])

    assert ok()
    mine = next(i for i, x in enumerate(h["seeds"]) if x["by"] == "player")
    made = next(i for i, x in enumerate(h["seeds"]) if x["by"] == "server")
    assert not ok(seeds=[*h["seeds"][:mine], {**h["seeds"][mine], "seed": THEIRS}, *h["seeds"][mine + 1:]])
    assert not ok(seeds=[*h["seeds"][:made], {**h["seeds"][made], "seed": THEIRS}, *h["seeds"][made + 1:]])
    assert not ok(seed=NEXT)
    assert not ok(dealt=[*h["dealt"][:-1], next(c for c in DECKS["french-52"] if c not in h["dealt"])])
    assert not ok(prev=NEXT)


def test_zhejiang_seeds_sent_between_hands_go_into_its_fixed_stake_deal():
    g = committed_game(preset="zhejiang-ten-half", seats={"B": 2000, "C1": 1000, "C2": 1000})
    g.do("C1", "seed", seed=MINE)
    g.do("B", "seed", seed=THEIRS)
    g.start()
    assert g.state.phase == "playing"  # no betting: the deal came with the start
    seeds = {x["seat"]: (x["by"], x["seed"]) for x in g.state.hand["seeds"]}
    assert seeds["C1"] == ("player", MINE) and seeds["B"] == ("player", THEIRS) and seeds["C2"][0] == "server"


def test_a_stacked_deck_puts_its_cards_on_top_of_the_deal_keys_order():
    g = committed_game(rules={"order_policy": "seat"})
    g.start(deck=["AS", "KH"])
    g.do("C1", "bet", amount=20, seed=MINE)
    g.close_betting()
    h = g.state.hand
    rest = [c for c in DECKS["french-52"] if c not in ("AS", "KH")]
    key = deal_key(bytes.fromhex(SEED), 1, ZERO_CHAIN, h["seeds"])
    assert h["dealt"] + h["stock"] == ["AS", "KH", *shuffle(rest, key)]
