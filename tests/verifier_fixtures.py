"""The test files both verifiers share (tools/halfpoint_verify.py and the verify page's static/js/fair.js): hands of
every game played through the engine with fixed seeds, written as the site writes its record and chain files
(games/selectors.py, `hand_export`, `room_chain`), and from them one good and one bad file for each check, each bad
one a forgery an outside auditor tried or a record a dishonest server could write. `cases.json` lists every case:
its files, the trusted hash given with them if any, and the checks that must fail (none for a good case).

    .venv/bin/python -m tests.verifier_fixtures     # rewrites tests/fixtures/verify/ (tests/test_verifier.py checks
                                                   # that the committed files are exactly what this writes)
"""

import copy
import hashlib
import json
import sys
from pathlib import Path
from unittest import mock

from games.engine import Command, apply, bot_decide, machine, new_table, rules_from, view
from games.engine.shuffle import CHAIN_FIELDS, chain_hash

ROOT = Path(__file__).resolve().parent / "fixtures" / "verify"
GAMES = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")
ROOMS = {"ten-half": "4101", "seven-half": "4102", "zhejiang-ten-half": "4103", "ban-luck": "4104"}
NAMES = {"s11": "Alice", "s12": "Bob"}  # s13 is a bot: the record names the people only
HANDS = 4


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def play(game: str, *, start: str | None = None, predating: int = 0, tag: str = "", void_last: bool = False) -> list[dict]:
    """HANDS hands of `game` at one table: s11 banks (no seed of its own), s12 sends its own seed, s13 is a bot; each
    hand's server seed is committed first, as the services do. `start`: the chain hash the table's chain continues
    from (a forged start); `predating`: that many first hands are from before the chain (no seed of a player's, no
    hashes), as an old room's are. `void_last`: the last hand is voided in its betting, as a room closed then voids it
    (games/engine/void.py). Each hand as the engine ends it (`last_hand`)."""
    rules = rules_from(game, {})
    state = new_table(rules)
    now = [1000.0]

    def do(actor, action, **args):
        nonlocal state
        now[0] += 1
        state, _events = apply(state, Command(actor, action, args, now[0]))

    do("s11", "sit", name="Alice", stack=5000, position=0, banker=True, bank=2000)
    do("s12", "sit", name="Bob", stack=3000, position=1)
    do("s13", "sit", name="Bot", stack=3000, position=2, bot="basic")
    state.chain = start
    out = []
    for n in range(1, HANDS + 1):
        if n == predating + 1:
            state.chain = start  # the first hand of the chain links to 64 zeros (or to the forged start)
        do("system", "commit_seed", seed_hex=sha(f"server {game}{tag} {n}"))
        if n > predating:
            do("s12", "seed", seed=sha(f"player {game}{tag} {n}"))
        do("system", "start_hand")
        if void_last and n == HANDS:
            do("system", "void_hand")
        for _step in range(400):
            if state.phase not in ("betting", "playing", "bank_decision"):
                break
            if state.phase == "bank_decision":
                p = state.pending
                do(p["seat"], "pass_bank" if p["kind"] == "refill" else "decline_bank")
                continue
            moves = [(x["id"], bot_decide(view(state, x["id"]), "basic", rules)) for x in state.seats]
            seat, move = next((m for m in moves if m[1] is not None), (None, None))
            if move is None:
                do("system", "timeout")
            else:
                do(seat, move[0], **move[1])
        assert state.last_hand and state.last_hand["hand_no"] == n, (game, n, state.phase)
        last = copy.deepcopy(state.last_hand)
        if n <= predating:  # an old room's hand: no seeds, no link, no hash, perhaps no dice
            last.update(seeds=None, prev=None)
            last.pop("chain")
            if n == 1:
                last["dice"] = None
        out.append(last)
    return out


def record(game: str, last: dict, room: str | None = None) -> dict:
    """The record file of a hand, as `hand_export` writes it."""
    rules = rules_from(game, {})
    rec = {"format": "halfpoint-hand-1", "room": room or ROOMS[game], "game": game, "deck": rules.deck,
           "ended_at": f"2025-03-01T20:{last['hand_no']:02d}:00+00:00",
           **{name: last.get(name) for name in CHAIN_FIELDS}, "chain": last.get("chain"),
           "hands": last["hands"], "names": {k: v for k, v in NAMES.items() if k in last["deltas"]},
           "order_policy": rules.order_policy, **({"voided": True} if last.get("voided") else {})}
    if "chain" not in last:
        del rec["chain"]
    return rec


def chain_file(game: str, records: list[dict], *, readable: bool = True) -> dict:
    """The chain file of a room (one page), as `room_chain` writes it; `readable`: the records are the player's."""
    return {"format": "halfpoint-chain-1", "room": records[0]["room"], "hands": [
        {"hand_no": r["hand_no"], "prev": r.get("prev"), "chain": r.get("chain"),
         "url": f"/hands/{sha(r['room'] + str(r['hand_no']))[:22]}/" if readable else None,
         "record": r if readable else None} for r in records]}


def rehash(rec: dict) -> dict:
    """What a dishonest server would do after changing a record: hash it again."""
    rec["chain"] = chain_hash(rec)
    return rec


def undealt(game: str, rec: dict) -> str:
    from games.engine.cards import DECKS
    return next(c for c in DECKS[rec["deck"]] if c not in rec["dealt"])


def forged_source(game: str) -> dict:
    """A hand dealt from the deck in reverse order, the record naming that order as its source (and hashed again):
    a server that could pick the order before the shuffle could pick the cards."""
    from games.engine.cards import DECKS
    rules = rules_from(game, {})
    backwards = {**DECKS, rules.deck: tuple(reversed(DECKS[rules.deck]))}
    with mock.patch.object(machine, "DECKS", backwards), \
            mock.patch.object(machine, "canonical_sorted", lambda cards, deck: sorted(cards, key=backwards[deck].index)):
        rec = record(game, play(game, tag=" reversed")[0])
    rec["source"] = list(backwards[rules.deck]) if isinstance(rec["source"], str) else rec["source"]
    return rehash(rec)


def cases(game: str) -> dict[str, dict]:
    """Every case of one game: name -> {"files": [file, ...], "trust": hash or None, "fails": [check, ...]}."""
    records = [record(game, h) for h in play(game)]
    r1, r2, r3 = records[0], records[1], records[2]
    chain = chain_file(game, records)
    dice = game == "ten-half"  # the only game that rolls dice (for the order of play)

    def changed(rec, **fields):
        return {**copy.deepcopy(rec), **fields}

    def without(rec, *names):
        return {k: v for k, v in copy.deepcopy(rec).items() if k not in names}

    def rows(file, hands):
        return {**file, "hands": [copy.deepcopy(file["hands"][n - 1]) for n in hands]}

    out = {}

    def case(name, files, fails=(), trust=None):
        out[name] = {"files": files, "trust": trust, "fails": sorted(fails)}

    # Good: what the site writes.
    case("record", [r2])
    case("records-linked", [r1, r2])
    case("chain", [chain])
    case("chain-pages", [rows(chain, [1, 2]), rows(chain, [3, 4])])
    case("chain-hashes-only", [chain_file(game, records, readable=False)])
    case("chain-trusted-page", [rows(chain, [3, 4])], trust=r2["chain"])
    case("chain-trust-noted", [chain], trust=f"2:{r2['chain']}")
    case("chain-predates", [chain_file(game, [record(game, h) for h in play(game, predating=2, tag=" old")])])

    # Bad: the auditor's forgeries and their kin.
    case("format", [changed(r2, format="halfpoint-hand-2")], ["format"])
    case("chain-format", [{**chain, "format": "halfpoint-chain-0"}], ["format"])
    case("malformed", [without(r2, "seed")], ["malformed"])
    case("commitment", [changed(r2, commitment=sha("another commitment"))], ["chain", "commitment"])
    made = next(i for i, x in enumerate(r2["seeds"]) if x["by"] != "player")
    seeds = copy.deepcopy(r2["seeds"])
    seeds[made]["seed"] = sha("not the server's")
    case("seeds", [changed(r2, seeds=seeds)], ["chain", "seeds"])
    case("source", [forged_source(game)], ["source"])
    forged = copy.deepcopy(r2)  # a dealt card changed, and the hand that shows it: the deck no longer deals it
    card, new = forged["dealt"][-1], undealt(game, r2)
    forged["dealt"][-1] = new
    for hands in forged["hands"].values():
        for ph in hands:
            ph["cards"] = [new if c == card else c for c in ph["cards"]]
    case("deck", [forged], ["chain", "deck"])
    shown = copy.deepcopy(r2)  # the auditor's: a card changed in `hands`, `dealt` intact
    seat = next(s for s in shown["order"] if s != shown["banker"])
    shown["hands"][seat][0]["cards"][0] = undealt(game, r2)
    case("hands", [shown], ["hands"])
    case("names", [changed(r2, names={**r2["names"], "s99": "Mallory"})], ["names"])
    result = copy.deepcopy(r2)
    result["results"][0]["paid"] += 10
    case("chain-hash", [result], ["chain"])
    case("chain-missing", [without(result, "chain")], ["chain-missing"])  # the auditor's: "from before the chain"
    case("dice-null-chain-deleted", [without(changed(r2, dice=None), "chain")],
         ["chain-missing", "dice-missing"] if dice else ["chain-missing"])
    if dice:
        case("dice", [changed(r2, dice=[(r2["dice"][0] % 6) + 1, r2["dice"][1]])], ["chain", "dice"])
        case("dice-missing", [rehash(changed(r2, dice=None))], ["dice-missing"])
    case("records-link", [rehash(changed(r1, deltas={k: -v for k, v in r1["deltas"].items()})), r2], ["link"])
    hashes = chain_file(game, records, readable=False)
    hashes["hands"][2]["prev"] = sha("another hand")
    case("link", [hashes], ["link"])
    case("row", [{**chain, "hands": [*chain["hands"][:1], {**chain["hands"][1], "record": r3}, *chain["hands"][2:]]}],
         ["row"])
    case("start", [chain_file(game, [record(game, h) for h in play(game, start=sha("another room"), tag=" forked")])],
         ["start"])
    case("start-page", [rows(chain, [3, 4])], ["start"])
    case("trust", [chain], ["trust"], trust=sha("a hash the player never noted"))
    case("contiguous-gap", [rows(chain, [1, 2, 4])], ["contiguous"])  # the auditor's: one hand removed
    case("contiguous-swap", [rows(chain, [1, 3, 2, 4])], ["contiguous"])  # the auditor's: two entries swapped
    case("contiguous-repeat", [rows(chain, [1, 2, 2, 3, 4])], ["contiguous"])
    case("contiguous-pages", [rows(chain, [1, 2]), rows(chain, [4])], ["contiguous"])  # a page left out

    case("voided-staked", [rehash(changed(r2, voided=True))], ["void"])  # a void claimed of a hand with stakes
    if not rules_from(game, {}).fixed_stake:  # fixed stakes (Zhejiang): betting closes, and the deal comes, at once
        # A voided hand (docs/fairness.md, "A voided hand"): its record verifies and links; without its claim, not.
        void3, void4 = [record(game, h) for h in play(game, void_last=True, tag=" voided")][2:]
        assert void4["voided"] and not void4["dealt"]
        case("voided", [void3, void4])
        case("voided-unclaimed", [without(void4, "voided")], ["chain", "dice-missing"] if dice else ["chain"])
    return out


def dump(value) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def generate() -> dict[str, str]:
    """Every file of tests/fixtures/verify/: relative path -> text."""
    files, index = {}, []
    for game in GAMES:
        for name, c in cases(game).items():
            paths = []
            for i, data in enumerate(c["files"]):
                path = f"{game}/{name}{'' if len(c['files']) == 1 else f'-{i + 1}'}.json"
                files[path] = dump(data)
                paths.append(path)
            index.append({"game": game, "case": name, "files": paths, "trust": c["trust"], "fails": c["fails"]})
    files["cases.json"] = dump(index)
    return files


def main() -> int:
    for path in ROOT.rglob("*.json"):
        path.unlink()
    for path, text in generate().items():
        (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / path).write_text(text)
    print(f"{len(list(ROOT.rglob('*.json')))} files in {ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
