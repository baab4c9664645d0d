"""The offline verifier (tools/halfpoint_verify.py) on the test files it shares with the verify page
(tests/fixtures/verify/, written by tests/verifier_fixtures.py): every good file passes, every forgery fails with
exactly the checks its case names, in all four games; the check vectors of docs/fairness.md, read from the doc;
honest hands of every game never raise a false alarm; the seeds' case as the engine treats it.
(tests/e2e/test_verifier_page.py uploads the same files to /verify/.)"""

import copy
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Command, apply, bot_decide, new_table, rules_from, view
from tests.verifier_fixtures import GAMES, ROOT, generate

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "halfpoint_verify.py"
CASES = json.loads((ROOT / "cases.json").read_text())

sys.path.insert(0, str(SCRIPT.parent))
import halfpoint_verify as tool  # noqa: E402  (the script, imported as a module: it is standard library only)

sys.path.remove(str(SCRIPT.parent))


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def failed_checks(stdout: str) -> list[str]:
    return sorted(set(re.findall(r"^  FAIL \[([\w-]+)\]", stdout, re.M)))


def test_the_generator_still_writes_exactly_the_committed_files():
    made = generate()
    on_disk = {str(p.relative_to(ROOT)): p.read_text() for p in ROOT.rglob("*.json")}
    assert sorted(made) == sorted(on_disk)
    assert [path for path in made if made[path] != on_disk[path]] == []


def test_the_cases_cover_every_check_in_every_game_with_a_good_and_a_bad_file():
    for game in GAMES:
        mine = [c for c in CASES if c["game"] == game]
        failing = {check for c in mine for check in c["fails"]}
        assert failing >= {"format", "malformed", "commitment", "seeds", "source", "deck", "hands", "names", "chain",
                           "chain-missing", "link", "row", "start", "trust", "contiguous"}, game
        assert ("dice" in failing and "dice-missing" in failing) == (game == "ten-half")
        assert sum(not c["fails"] for c in mine) >= 8
    # The auditor's forgeries, in every game, each refused with the check it breaks.
    expected = {"contiguous-gap": ["contiguous"], "contiguous-swap": ["contiguous"], "hands": ["hands"],
                "chain-missing": ["chain-missing"], "start": ["start"], "format": ["format"],
                "chain-format": ["format"]}
    for game in GAMES:
        cases = {c["case"]: c["fails"] for c in CASES if c["game"] == game}
        assert {name: cases[name] for name in expected} == expected
        assert "chain-missing" in cases["dice-null-chain-deleted"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['game']}/{c['case']}")
def test_every_file_gives_its_verdict_and_names_the_failing_check(case):
    done = run(*(["--trust", case["trust"]] if case["trust"] else []), *case["files"])
    assert done.returncode == (1 if case["fails"] else 0), done.stdout + done.stderr
    assert failed_checks(done.stdout) == case["fails"], done.stdout
    assert ("everything holds" in done.stdout) == (not case["fails"])


def test_the_script_runs_alone_copied_into_an_empty_folder(tmp_path):
    shutil.copy(SCRIPT, tmp_path / "verify.py")
    case = next(c for c in CASES if c["case"] == "chain-pages" and c["game"] == "seven-half")
    files = [shutil.copy(ROOT / f, tmp_path / Path(f).name) for f in case["files"]]
    done = subprocess.run([sys.executable, "-I", "-S", "verify.py", *map(str, files)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "everything holds" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("trust", ["abc", "0" * 63, "x:" + "0" * 64, "12:" + "g" * 64])
def test_a_trusted_hash_that_is_not_one_is_refused_before_any_file_is_read(trust):
    done = run("--trust", trust, "ten-half/chain.json")
    assert done.returncode == 2 and "--trust takes a chain hash" in done.stderr


def test_a_trusted_hash_is_read_in_either_case():
    case = next(c for c in CASES if c["case"] == "chain-trusted-page" and c["game"] == "ban-luck")
    assert run("--trust", case["trust"].upper(), *case["files"]).returncode == 0


def doc_check_vectors() -> dict:
    text = (REPO / "docs" / "fairness.md").read_text()
    return json.loads(text.split("<!-- check vectors -->", 1)[1].split("```json", 1)[1].split("```", 1)[0])


@pytest.mark.parametrize("vector", doc_check_vectors()["vectors"], ids=lambda v: v["name"])
def test_each_check_vector_of_the_doc_fails_exactly_its_checks(vector, tmp_path):
    files, _trust = tool.vector_files({**vector, "base": doc_check_vectors()["base"]})
    paths = []
    for i, data in enumerate(files):
        (tmp_path / f"{i}.json").write_text(json.dumps(data))
        paths.append(f"{i}.json")
    done = run(*(["--trust", vector["trust"]] if vector.get("trust") else []), *paths, cwd=tmp_path)
    assert failed_checks(done.stdout) == sorted(vector["fails"]), done.stdout
    assert done.returncode == (1 if vector["fails"] else 0)


def test_the_check_vectors_name_every_check_and_the_doc_passes_its_own_vectors():
    named = {check for v in doc_check_vectors()["vectors"] for check in v["fails"]}
    assert named >= {"format", "malformed", "commitment", "seeds", "source", "deck", "dice", "dice-missing", "hands",
                     "names", "chain", "chain-missing", "start", "trust", "contiguous", "link"}
    done = run("--vectors", str(REPO / "docs" / "fairness.md"))
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("check vector ") == len(doc_check_vectors()["vectors"])


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def honest_records(game: str, overrides: dict, hands: int, *, level: str = "basic", server_case=str.lower,
                   player_case=str.lower) -> list[dict]:
    """`hands` hands of bots (and seat s1 sending its own seed every other hand), as record files."""
    rules = rules_from(game, overrides)
    state = new_table(rules)
    now = [0.0]

    def do(actor, action, **args):
        nonlocal state
        now[0] += 1
        state, _events = apply(state, Command(actor, action, args, now[0]))

    seats = 6 if rules.max_main_seats >= 6 else 4
    for i in range(seats):
        do(f"s{i}", "sit", name=f"P{i}", stack=100_000, position=i, bot=level,
           **({"banker": True, "bank": 50_000} if i == 0 else {}))
    out = []
    for n in range(hands):
        do("system", "commit_seed", seed_hex=server_case(sha(f"{game} {overrides} {n}")))
        if n % 2:
            do("s1", "seed", seed=player_case(sha(f"player {n}")))
        do("system", "start_hand")
        for _step in range(1000):
            if state.phase == "bank_decision":
                p = state.pending
                do(p["seat"], "pass_bank" if p["kind"] == "refill" else "decline_bank")
                continue
            if state.phase not in ("betting", "playing"):
                break
            moves = [(x["id"], bot_decide(view(state, x["id"]), level, rules)) for x in state.seats]
            seat, move = next((m for m in moves if m[1] is not None), (None, None))
            if move is None:
                do("system", "timeout")
            else:
                do(seat, move[0], **move[1])
        last = copy.deepcopy(state.last_hand)
        out.append({"format": "halfpoint-hand-1", "room": "1", "game": game, "deck": rules.deck,
                    **{k: last.get(k) for k in tool.CHAIN_FIELDS}, "chain": last["chain"], "hands": last["hands"],
                    "names": {}, "order_policy": rules.order_policy})
    return out


@pytest.mark.parametrize(("game", "overrides"), [
    ("ten-half", {}), ("ten-half", {"order_policy": "seat"}), ("seven-half", {}),
    ("seven-half", {"house_rules": True, "max_main_seats": 6}), ("zhejiang-ten-half", {}), ("ban-luck", {})])
def test_honest_hands_of_every_game_raise_no_false_alarm(game, overrides):
    for level in ("basic", "expert"):
        records = honest_records(game, overrides, 20, level=level)
        report = tool.check_files(records)
        assert [(title, c, what) for title, lines in report for c, ok, what in lines if not ok] == []
        assert len(report) == 20 and sum(c == "link" for _t, lines in report for c, _ok, _w in lines) == 19


def test_the_verifier_reads_seeds_as_the_engine_does():
    """The engine takes a player's seed in either case and keeps it lowercase, and reads a server seed in either case
    as its bytes: such hands verify. A record whose seat's seed is upper case is one the engine never writes (its deal
    key would read other text): refused, as malformed."""
    records = honest_records("ten-half", {}, 4, server_case=str.upper, player_case=str.upper)
    assert all(r["seed"].isupper() for r in records) and all(x["seed"].islower() for r in records for x in r["seeds"])
    assert all(ok for _t, lines in tool.check_files(records) for _c, ok, _w in lines)
    shouting = copy.deepcopy(records[1])
    mine = next(x for x in shouting["seeds"] if x["by"] == "player")
    mine["seed"] = mine["seed"].upper()
    shouting["chain"] = tool.chain_hash(shouting)
    assert [c for c, ok, _w in tool.check_record(shouting) if not ok] == ["malformed"]
