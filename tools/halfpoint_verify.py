#!/usr/bin/env python3
"""Check HalfPoint hand records on your own machine, with Python 3.10 or later and nothing else.

    python3 halfpoint_verify.py hand-41.json hand-42.json   # each record, and 42's link to 41
    python3 halfpoint_verify.py room-4821-chain.json        # a room's chain file: every link, every record in it
    python3 halfpoint_verify.py --vectors fairness.md       # the test vectors of docs/fairness.md, first

A record file is what "Download this record" on a hand's page gives; a chain file what "Download the chain" on a
room's chain page gives. For each hand it checks: the server seed against the commitment shown before the first
card, the seats' seeds the server made against the server seed, the deck and dice from the deal key against the
cards dealt, the record against its chain hash, and the link to the hand before it when that one is given too.
Exit status 0 when everything holds, 1 when something does not, 2 when a file cannot be read.

This file repeats the site's own algorithm (games/engine/shuffle.py, docs/fairness.md) on purpose, so that it can
be read and run alone: copy it anywhere.
"""

import argparse
import hashlib
import hmac
import json
import re
import struct
import sys

FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SPANISH_RANKS = ["1", "2", "3", "4", "5", "6", "7", "J", "N", "K"]
FRENCH_52 = [r + s for s in "SHDC" for r in FRENCH_RANKS]
DECKS = {"french-52": FRENCH_52, "french-54": [*FRENCH_52, "BJ", "RJ"],
         "spanish-40": [r + s for s in "OCEB" for r in SPANISH_RANKS]}
ZERO_CHAIN = "0" * 64
CHAIN_FIELDS = ("hand_no", "prev", "commitment", "seed", "seeds", "source", "stacked", "reshuffles", "dealt", "dice",
                "order", "banker", "results", "deltas")
TWO32 = 1 << 32


def seed_bytes(text) -> bytes:
    if not isinstance(text, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise ValueError(f"{text!r} is not 64 hexadecimal digits")
    return bytes.fromhex(text)


def words(key: bytes, label: str):
    """The 32-bit words of stream `label`: block k is HMAC-SHA256(key, "label:k"), eight big-endian words."""
    k = 0
    while True:
        yield from struct.unpack(">8I", hmac.digest(key, f"{label}:{k}".encode("ascii"), "sha256"))
        k += 1


def below(stream, m: int) -> int:
    """A uniform integer in [0, m): words at or above 2^32 - (2^32 mod m) are skipped (no modulo bias)."""
    limit = TWO32 - (TWO32 % m)
    w = next(stream)
    while w >= limit:
        w = next(stream)
    return w % m


def shuffle(cards: list[str], key: bytes, label: str = "0") -> list[str]:
    """Forward Fisher-Yates: for i from 0, swap card i with card i + uniform(n - i). Card 0 is dealt first."""
    a, stream = list(cards), words(key, label)
    for i in range(len(a) - 1):
        j = i + below(stream, len(a) - i)
        a[i], a[j] = a[j], a[i]
    return a


def dice(key: bytes) -> list[int]:
    stream = words(key, "dice")
    return [below(stream, 6) + 1, below(stream, 6) + 1]


def seat_seed(server: bytes, seat: str) -> str:
    return hmac.digest(server, f"seat:{seat}".encode(), "sha256").hex()


def deal_key(server: bytes, hand_no: int, prev: str, seeds: list[dict]) -> bytes:
    if not any(x["by"] == "player" for x in seeds):
        return server
    message = ":".join(["deal", str(hand_no), prev, *(x["seed"] for x in seeds)])
    return hmac.digest(server, message.encode(), "sha256")


def chain_hash(record: dict) -> str:
    body = {name: record.get(name) for name in CHAIN_FIELDS}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def name_of(record: dict) -> str:
    return f"room {record.get('room', '?')}, hand {record.get('hand_no', '?')}"


def check_record(record: dict, previous: dict | None = None) -> list[tuple[bool, str]]:
    """(holds, what) for each check of one record, `previous` the record of the hand before it when given."""
    out = []
    try:
        server = seed_bytes(record.get("seed"))
        dealt = list(record["dealt"])
    except (ValueError, KeyError, TypeError) as e:
        return [(False, f"not a hand record: {e}")]
    made = hashlib.sha256(server).hexdigest()
    if made == str(record.get("commitment", "")).lower():
        out.append((True, "the server seed's SHA-256 is the commitment shown before the first card"))
    else:
        out.append((False, f"the server seed's SHA-256 is {made}, not the commitment {record.get('commitment')}"))
    seeds = record.get("seeds") or []
    wrong = [x.get("seat") for x in seeds
             if x.get("by") != "player" and x.get("seed") != seat_seed(server, str(x.get("seat")))]
    if wrong:
        out.append((False, f"the seeds of seats {', '.join(map(str, wrong))} are marked as the server's but are not "
                           "the ones its seed fixes"))
        return out
    if seeds:
        own = sum(x["by"] == "player" for x in seeds)
        out.append((True, f"every seat ({own}) sent a seed of its own" if own == len(seeds) else
                    f"{own} of the {len(seeds)} seats sent a seed of their own; the others' are the ones the server "
                    "seed fixes"))
    try:
        key = deal_key(server, record.get("hand_no"), record.get("prev") or ZERO_CHAIN,
                       [{"by": x["by"], "seed": seed_bytes(x["seed"]).hex()} for x in seeds])
    except (ValueError, KeyError, TypeError) as e:
        return [*out, (False, f"a seat's seed is malformed: {e}")]
    source = record.get("source")
    parts = [(source if isinstance(source, list) else DECKS.get(record.get("deck")), "0", 0)]
    parts += [(r["source"], r["label"], r["at"]) for r in record.get("reshuffles") or []]
    mismatch = None
    for k, (cards, label, at) in enumerate(parts):
        end = parts[k + 1][2] if k + 1 < len(parts) else len(dealt)
        if cards is None:
            mismatch = f"the record names no deck it knows ({record.get('deck')!r})"
            break
        order = shuffle(cards, key, label)
        for i, card in enumerate(dealt[at:end]):
            if i >= len(order) or order[i] != card:
                mismatch = (f"card {at + i + 1} dealt was {card}, but the deal key's stream {label!r} puts "
                            f"{order[i] if i < len(order) else 'no card'} there")
                break
        if mismatch:
            break
    if record.get("stacked"):
        out.append((False, "this deck was stacked by a test script: it does not verify, by design"))
    elif mismatch:
        out.append((False, mismatch))
    else:
        out.append((True, f"the deck from the deal key deals exactly the {len(dealt)} cards of this hand, in order"))
    if record.get("dice"):
        rolled = dice(key)
        out.append((rolled == list(record["dice"]),
                    f"the dice from the deal key are {rolled[0]} and {rolled[1]}"
                    + ("" if rolled == list(record["dice"]) else f", not {record['dice']}")))
    if record.get("chain"):
        made = chain_hash(record)
        out.append((made == record["chain"], f"the record hashes to its chain hash {made}" if made == record["chain"]
                    else f"the record hashes to {made}, not to its chain hash {record['chain']}: it was changed"))
    else:
        out.append((True, "this hand is from before the hash chain: no chain hash to check"))
    if previous is not None:
        made = chain_hash(previous)
        ok = record.get("prev") == made and previous.get("hand_no", 0) + 1 == record.get("hand_no")
        out.append((ok, f"its link is the hash of {name_of(previous)}" if ok
                    else f"its link {record.get('prev')} is not the hash {made} of {name_of(previous)}: the chain is "
                         "broken here"))
    return out


def check_files(files: list[dict]) -> list[tuple[str, list[tuple[bool, str]]]]:
    """Each hand's checks: chain files' hands with their links, hand records with the one before each when given."""
    report, records = [], []
    for data in files:
        if data.get("format") == "halfpoint-chain-1":
            rows = data.get("hands") or []
            for i, row in enumerate(rows):
                before = rows[i - 1] if i and rows[i - 1]["hand_no"] + 1 == row["hand_no"] else None
                lines = []
                if before is not None and row.get("prev"):
                    ok = row["prev"] == before.get("chain")
                    lines.append((ok, f"its link names hand {before['hand_no']}" if ok
                                  else f"its link {row['prev']} is not hand {before['hand_no']}'s hash: broken here"))
                if row.get("record"):
                    rec = row["record"]
                    lines += check_record(rec)
                    same = rec.get("chain") == row.get("chain") and rec.get("prev") == row.get("prev")
                    lines.append((same, "the record carries the hashes the chain lists" if same
                                  else "the record does not carry the hashes the chain lists for it"))
                else:
                    lines.append((True, "not yours to read: only its link is checked"))
                report.append((f"room {data.get('room')}, hand {row['hand_no']}", lines))
        else:
            records.append(data)
    records.sort(key=lambda r: (str(r.get("room")), r.get("hand_no") or 0))
    for i, rec in enumerate(records):
        before = records[i - 1] if i and records[i - 1].get("room") == rec.get("room") \
            and (records[i - 1].get("hand_no") or 0) + 1 == rec.get("hand_no") else None
        report.append((name_of(rec), check_record(rec, before)))
    return report


def check_vectors(text: str) -> list[tuple[str, list[tuple[bool, str]]]]:
    """The test vectors: the JSON block after "<!-- vectors -->" in docs/fairness.md (or a file holding that JSON)."""
    block = text.split("<!-- vectors -->", 1)[1].split("```json", 1)[1].split("```", 1)[0] if "<!-- vectors" in text \
        else text
    report = []
    for v in json.loads(block):
        lines = []
        if "record" in v:
            made = chain_hash(v["record"])
            lines.append((made == v["chain"], f"chain hash {made}"))
        else:
            server = seed_bytes(v["server_seed"])
            lines.append((hashlib.sha256(server).hexdigest() == v["commitment"], "commitment"))
            made = [seat_seed(server, x["seat"]) for x in v["seeds"] if x["by"] != "player"]
            lines.append((made == [x["seed"] for x in v["seeds"] if x["by"] != "player"], "the server's seat seeds"))
            key = deal_key(server, v["hand_no"], v["prev"], v["seeds"])
            lines.append((key.hex() == v["deal_key"], f"deal key {key.hex()}"))
            cards = v["source"] if v.get("source") else DECKS[v["deck"]]
            lines.append((shuffle(cards, key, v.get("label", "0")) == v["order"], "deck order"))
            if "dice" in v:
                lines.append((dice(key) == v["dice"], f"dice {dice(key)}"))
        report.append((f"vector {v['name']}", lines))
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Check HalfPoint hand records and chains offline.")
    parser.add_argument("files", nargs="*", help="hand record or room chain files (JSON)")
    parser.add_argument("--vectors", metavar="FILE", help="check the test vectors of docs/fairness.md first")
    args = parser.parse_args(argv)
    if not args.files and not args.vectors:
        parser.error("give record or chain files, or --vectors")
    report = []
    try:
        if args.vectors:
            with open(args.vectors, encoding="utf-8") as f:
                report += check_vectors(f.read())
        files = []
        for path in args.files:
            with open(path, encoding="utf-8") as f:
                files.append(json.load(f))
    except (OSError, ValueError) as e:
        print(f"cannot read: {e}", file=sys.stderr)
        return 2
    report += check_files(files)
    failed = 0
    for title, lines in report:
        print(title)
        for ok, what in lines:
            print(f"  {'ok  ' if ok else 'FAIL'} {what}")
            failed += not ok
    print("everything holds" if not failed else f"{failed} check(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
