"""The hand page's shuffle check (static/js/verify.js and fair.js, Web Crypto in Chromium) against the engine
(games/engine/shuffle.py): the same commitment, the same deck order for every deck and stream, the
same dice, a Seven and a Half shoe with its reshuffles in the middle of a hand, and a hand with a player's seed,
linked to the hand before it, whose every change is caught (docs/fairness.md)."""

import hashlib

import pytest

from games.engine import Command, apply, bot_decide, rules_from, view
from games.engine.cards import DECKS
from games.engine.machine import new_table
from games.engine.shuffle import commitment, roll_dice, shuffle, verify

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEEDS = ["00" * 32, "ff" * 32, *(hashlib.sha256(f"halfpoint-{i}".encode()).hexdigest() for i in range(6))]


def shoe_hand_with_a_reshuffle() -> dict:
    """Play Seven and a Half with six bots until a hand reshuffles its shoe mid-hand: its hand_over."""
    rules = rules_from("seven-half", {"max_main_seats": 6})
    state = new_table(rules)
    now = 1000.0
    for i in range(6):
        state, _ = apply(state, Command(actor=f"p{i}", action="sit", args={"name": f"P{i}", "stack": 10_000,
                                                                             "bot": "basic"}, now=now))
    for n in range(200):
        state, events = apply(state, Command(actor="system", action="start_hand",
                                             args={"seed_hex": hashlib.sha256(f"shoe-{n}".encode()).hexdigest()},
                                             now=now))
        for _step in range(500):
            over = next((e for e in events if e["type"] == "hand_over"), None)
            if over is not None:
                break
            moves = [(s["id"], bot_decide(view(state, s["id"]), "basic", rules)) for s in state.seats]
            seat, move = next((m for m in moves if m[1] is not None), (None, None))
            assert move is not None, "nobody can move"
            state, events = apply(state, Command(actor=seat, action=move[0], args=move[1], now=now))
        if over["reshuffles"] and over["reshuffles"][0]["at"] > 0:
            return over
        while state.phase == "bank_decision":
            seat = state.pending["seat"]
            state, _ = apply(state, Command(actor=seat, action="decline_bank" if state.pending["kind"] != "refill"
                                            else "pass_bank", now=now))
    raise AssertionError("no reshuffle in 200 hands")


def test_the_browser_recomputes_the_engine_shuffle_byte_for_byte(server, players):
    page = players(server, "anon").goto("/")
    cases = [{"seed": seed, "deck": deck, "label": label} for seed in SEEDS for deck in DECKS
             for label in ("0", "dice", "draw", "1", "12")]
    got = page.evaluate("""async (cases) => {
        const m = await import('/static/js/verify.js');
        const out = [];
        for (const c of cases) out.push(await m.shuffle(m.DECKS[c.deck], c.seed, c.label));
        const dice = [], commitments = [];
        for (const c of cases) { dice.push(await m.rollDice(c.seed)); commitments.push(await m.commitmentOf(c.seed)); }
        return { decks: Object.fromEntries(Object.entries(m.DECKS)), out, dice, commitments };
    }""", cases)
    assert got["decks"] == {name: list(cards) for name, cards in DECKS.items()}  # the canonical orders
    for case, order, dice, commit in zip(cases, got["out"], got["dice"], got["commitments"], strict=True):
        seed = bytes.fromhex(case["seed"])
        assert order == shuffle(DECKS[case["deck"]], seed, case["label"]), case
        assert dice == roll_dice(seed), case
        assert commit == commitment(case["seed"])


def test_the_browser_verifies_a_shoe_with_reshuffles_and_catches_a_tampered_hand(server, players):
    over = shoe_hand_with_a_reshuffle()
    assert verify(over["commitment"], over["seed"], over["dealt"][:over["reshuffles"][0]["at"]],
                  source=over["source"])
    data = {k: over[k] for k in ("commitment", "seed", "dealt", "deck", "source", "reshuffles")}
    tampered = dict(data, dealt=[*over["dealt"][:-2], over["dealt"][-1], over["dealt"][-2]])
    wrong_seed = dict(data, seed="ab" * 32)
    page = players(server, "anon").goto("/")
    got = page.evaluate("""async (hands) => {
        const m = await import('/static/js/verify.js');
        const out = [];
        for (const h of hands) {
            const r = await m.verifyHand(h);
            out.push({ ok: r.ok, commitmentOk: r.commitmentOk, deckOk: r.deckOk, labels: r.segments.map(s => s.label) });
        }
        return out;
    }""", [data, tampered, wrong_seed])
    labels = ["0", *(r["label"] for r in over["reshuffles"])]
    assert got[0] == {"ok": True, "commitmentOk": True, "deckOk": True, "labels": labels}
    assert got[1]["ok"] is False and got[1]["commitmentOk"] is True and got[1]["deckOk"] is False
    assert got[2]["ok"] is False and got[2]["commitmentOk"] is False


def two_linked_hands() -> list[dict]:
    """Two hands of Ten and a Half as the engine records them, a player's own seed in each (docs/fairness.md)."""
    state = new_table(rules_from("ten-half", {}))
    hands = []
    for i, name in enumerate(("B", "C1", "C2")):
        args = {"name": name, "stack": 1000, "position": i, **({"banker": True, "bank": 500} if name == "B" else {})}
        state, _ = apply(state, Command(actor=name, action="sit", args=args))
    for n in (1, 2):
        for actor, action, args in (("system", "commit_seed", {"seed_hex": hashlib.sha256(f"server {n}".encode()).hexdigest()}),
                                    ("C1", "seed", {"seed": hashlib.sha256(f"C1 {n}".encode()).hexdigest()}),
                                    ("system", "start_hand", {})):
            state, _ = apply(state, Command(actor=actor, action=action, args=args))
        while state.phase in ("betting", "playing"):
            state, _ = apply(state, Command(actor="system", action="timeout"))
        hands.append({**state.last_hand, "format": "halfpoint-hand-1", "room": "1234", "game": "ten-half",
                      "deck": "french-52", "names": {"B": "B", "C1": "C1"}, "order_policy": "dice"})
    return hands


def test_the_browser_checks_player_seeds_and_the_chain_link_and_catches_each_change(server, players):
    first, second = two_linked_hands()
    mine = next(i for i, x in enumerate(second["seeds"]) if x["by"] == "player")
    changed_seed = [dict(x, seed="cd" * 32) if i == mine else x for i, x in enumerate(second["seeds"])]
    cases = {
        "as dealt": (second, first),
        "player seed": (dict(second, seeds=changed_seed), first),
        "server seed": (dict(second, seed="ab" * 32), first),
        "dealt card": (dict(second, dealt=[second["dealt"][1], second["dealt"][0], *second["dealt"][2:]]), first),
        "chain link": (second, dict(first, deltas={k: -v for k, v in first["deltas"].items()})),
    }
    page = players(server, "anon").goto("/")
    got = page.evaluate("""async (cases) => {
        const f = await import('/static/js/fair.js');
        const out = {};
        for (const [name, [record, before]] of Object.entries(cases)) {
            const r = await f.verifyRecord(record, before);
            out[name] = Object.fromEntries(r.checks.map((c) => [c.id, c.ok]));
        }
        return out;
    }""", cases)
    assert got["as dealt"] == {"format": True, "commitment": True, "seeds": True, "source": True, "deck": True,
                               "dice": True, "hands": True, "names": True, "chain": True, "link": True}
    failed = {name: sorted(k for k, ok in checks.items() if not ok) for name, checks in got.items()}
    # A server seed that fixes other seats' seeds leaves no deal key to check the deck with.
    assert failed == {"as dealt": [], "player seed": ["chain", "deck", "dice"], "server seed": ["chain", "commitment",
                      "seeds"], "dealt card": ["chain", "deck"], "chain link": ["link"]}
