#!/usr/bin/env python3
"""Check HalfPoint hand records on your own machine, with Python 3.10 or later and nothing else.

    python3 halfpoint_verify.py hand-41.json hand-42.json   # each record, and 42's link to 41
    python3 halfpoint_verify.py room-4821-chain.json        # a room's chain file: every page of it, every record in it
    python3 halfpoint_verify.py --trust 9f2c... chain.json  # a chain that starts after the last hash you noted
    python3 halfpoint_verify.py --vectors fairness.md       # the test vectors of docs/fairness.md, first

A record file is what "Download this record" on a hand's page gives; a chain file what "Download the chain" on a
room's chain page gives (200 hands a page: give every page). docs/fairness.md, "Checking", lists every check; each
printed line names its check (`[format]`, `[start]`, `[contiguous]`, `[hands]`, ...). Exit status 0 when everything
holds, 1 when something does not, 2 when a file cannot be read.

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

RECORD_FORMAT, CHAIN_FORMAT = "halfpoint-hand-1", "halfpoint-chain-1"
FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SPANISH_RANKS = ["1", "2", "3", "4", "5", "6", "7", "J", "N", "K"]
FRENCH_52 = [r + s for s in "SHDC" for r in FRENCH_RANKS]
DECKS = {"french-52": FRENCH_52, "french-54": [*FRENCH_52, "BJ", "RJ"],
         "spanish-40": [r + s for s in "OCEB" for r in SPANISH_RANKS]}
GAME_DECKS = {"ten-half": "french-52", "seven-half": "spanish-40", "zhejiang-ten-half": "french-54",
              "ban-luck": "french-52"}
SHOE_GAMES = {"seven-half"}  # the source is the shoe's sorted stock; a house rule may set dealt cards aside
ZERO_CHAIN = "0" * 64
CHAIN_FIELDS = ("hand_no", "prev", "commitment", "seed", "seeds", "source", "stacked", "reshuffles", "dealt", "dice",
                "order", "banker", "results", "deltas")
TWO32 = 1 << 32
HEX64 = re.compile(r"[0-9a-f]{64}")


def seed_bytes(text) -> bytes:
    """The 32 bytes of a seed written as 64 hexadecimal digits (either case, as the engine reads a seed)."""
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
    """The server seed when no seat sent a seed of its own, else HMAC over "deal:<n>:<prev>:<seed>:..." (the seeds'
    text as the record holds it: lowercase, as the engine writes it)."""
    if not any(x["by"] == "player" for x in seeds):
        return server
    message = ":".join(["deal", str(hand_no), prev, *(x["seed"] for x in seeds)])
    return hmac.digest(server, message.encode(), "sha256")


def chain_hash(record: dict) -> str:
    body = {name: record.get(name) for name in CHAIN_FIELDS}
    if record.get("voided"):
        body["voided"] = True  # a voided hand's body has the key too; no other hand's does
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def name_of(record: dict) -> str:
    return f"room {record.get('room', '?')}, hand {record.get('hand_no', '?')}"


def is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def malformed(record) -> str | None:
    """Why `record` cannot be read as a hand record, or None."""
    if not isinstance(record, dict):
        return "it is not a JSON object"
    if not isinstance(record.get("seed"), str) or not re.fullmatch(r"[0-9a-fA-F]{64}", record["seed"]):
        return "its server seed is not 64 hexadecimal digits"
    if not is_int(record.get("hand_no")) or record["hand_no"] < 1:
        return "its hand number is not a whole number from 1"
    if not isinstance(record.get("dealt"), list) or not all(isinstance(c, str) for c in record["dealt"]):
        return "it has no list of dealt cards"
    seeds = record.get("seeds") or []
    if not isinstance(seeds, list) or not all(
            isinstance(x, dict) and isinstance(x.get("seat"), str) and x.get("by") in ("player", "server", "bot")
            and isinstance(x.get("seed"), str) and HEX64.fullmatch(x["seed"]) for x in seeds):
        return "a seat's seed is not {seat, seed: 64 lowercase hexadecimal digits, by: player, server or bot}"
    if record.get("prev") is not None and not (isinstance(record["prev"], str) and HEX64.fullmatch(record["prev"])):
        return "its link is not 64 lowercase hexadecimal digits"
    for r in record.get("reshuffles") or []:
        if not (isinstance(r, dict) and isinstance(r.get("source"), list) and isinstance(r.get("label"), str)
                and is_int(r.get("at"))):
            return "a reshuffle is not {label, source, at}"
    return None


def source_problem(record: dict) -> str | None:
    """The deck a hand was shuffled from, as the record names it: the deck's name for a full deck, the shoe's stock in
    canonical order (sorted, each card once) for Seven and a Half, each reshuffle's discards sorted the same way."""
    game, deck, source = record.get("game"), record.get("deck"), record.get("source")
    if deck not in DECKS:
        return f"the record names no deck this verifier knows ({deck!r})"
    if game in GAME_DECKS and GAME_DECKS[game] != deck:
        return f"{game} is played with {GAME_DECKS[game]}, not {deck}"
    order = {c: i for i, c in enumerate(DECKS[deck])}

    def canonical(cards) -> bool:
        return (isinstance(cards, list) and all(c in order for c in cards)
                and all(order[a] < order[b] for a, b in zip(cards, cards[1:], strict=False)))
    if game in SHOE_GAMES:
        if not canonical(source):
            return "its source is not the shoe's stock in the deck's canonical order, each card once"
    elif source != deck:
        return f"its source is {json.dumps(source)[:80]}, not the name of its deck {deck!r}"
    for r in record.get("reshuffles") or []:
        if not canonical(r["source"]):
            return f"reshuffle {r['label']!r} does not start from the sorted discards"
    return None


def hands_problem(record: dict) -> str | None:
    """The cards and stakes the record shows for each seat against what the chain binds: every seat of `order` has
    its hands and no other seat does; each card shown was dealt, once, and each hand's cards in the order dealt; every
    dealt card is shown (Seven and a Half's house rules set some aside); a challenger's hands are those its results
    settle, with their stakes; the bank's hand has no stake."""
    hands, order, dealt = record.get("hands"), record.get("order") or [], record["dealt"]
    if not isinstance(hands, dict) or set(hands) != set(order):
        return f"the hands shown are for seats {sorted(hands) if isinstance(hands, dict) else hands}, " \
               f"not the seats that played ({', '.join(map(str, order))})"
    at = {c: i for i, c in enumerate(dealt)}
    seen = set()
    for seat in order:
        if not isinstance(hands[seat], list) or not hands[seat]:
            return f"seat {seat} shows no hand"
        for i, ph in enumerate(hands[seat]):
            cards = ph.get("cards") if isinstance(ph, dict) else None
            if not isinstance(cards, list):
                return f"seat {seat}'s hand {i + 1} shows no cards"
            last = -1
            for c in cards:
                if c not in at or c in seen or at[c] < last:
                    return f"seat {seat}'s hand {i + 1} shows {c}, which was not dealt to it in that order"
                seen.add(c)
                last = at[c]
    if record.get("game") not in SHOE_GAMES and len(seen) != len(dealt):
        missing = next(c for c in dealt if c not in seen)
        return f"{missing} was dealt but no hand shows it"
    settled = {}
    for r in record.get("results") or []:
        if isinstance(r, dict) and r.get("kind") == "main":
            settled[(r.get("bettor"), r.get("hand"))] = r.get("stake")
    shown = {(seat, i): ph.get("stake") for seat in order if seat != record.get("banker")
             for i, ph in enumerate(hands[seat])}
    for (seat, i), stake in shown.items():
        if (seat, i) not in settled or settled[(seat, i)] != stake:
            return f"seat {seat}'s hand {i + 1} shows a stake of {stake}, not the one its result settles"
    if set(settled) != set(shown):
        seat, i = next(k for k in settled if k not in shown)
        return f"a result settles seat {seat}'s hand {i + 1 if is_int(i) else i}, which no hand shows"
    if any(ph.get("stake") not in (0, None) for ph in hands.get(record.get("banker"), [])):
        return "the bank's hand shows a stake"
    return None


def void_problem(record: dict) -> str | None:
    """A hand the record says was voided (docs/fairness.md, "A voided hand"): nothing was dealt or played, no result
    settled and no chip moved."""
    if record.get("dealt") or record.get("order") or record.get("dice") or record.get("hands"):
        return "the record says the hand was voided, but it shows cards dealt or a hand played"
    if record.get("results") or any(v != 0 for v in (record.get("deltas") or {}).values()):
        return "the record says the hand was voided, but it settles stakes or moves chips"
    return None


def matta_note(record: dict) -> str:
    """The values the matta (Seven and a Half's wild king of coins, a house rule) took, as the record shows them beside
    each hand's total: the game's reading of the cards, shown and not checked (docs/fairness.md, "The record file")."""
    hands = record.get("hands")
    notes = [f"{seat}'s hand {i + 1}: {ph['matta']:g}" for seat in record.get("order") or []
             for i, ph in enumerate(hands.get(seat) or [] if isinstance(hands, dict) else [])
             if isinstance(ph, dict) and isinstance(ph.get("matta"), (int, float))]
    return f" (the matta took {', '.join(notes)})" if notes else ""


def auction_problem(record: dict, key: bytes) -> str | None:
    """The bank auction (docs/fairness.md, "Byte level", 8): the winner banks; with a bid, every tied bidder made the
    highest bid (those of seats that left, `void`, do not count), they are listed in seat order (the order of `seeds`), and of two or more the winner is the one the
    stream "auction" picks: tied[uniform(len(tied))] (the first card of a shuffle of `tied` by that stream)."""
    a = record["auction"]
    bids, tied, winner = a.get("bids") or {}, a.get("tied") or [], a.get("winner")
    bids = {k: v for k, v in bids.items() if k not in (a.get("void") or [])}  # the bids of seats that left
    if winner != record.get("banker"):
        return f"the auction's winner {winner} is not the banker {record.get('banker')}"
    top = max(bids.values(), default=0) if all(is_int(v) for v in bids.values()) else None
    if top is None or a.get("bid", 0) != top:
        return "the auction's bids do not give its winning bid"
    if not top:
        return None if not tied else "nobody bid, yet the auction lists tied bidders"
    seats = [x.get("seat") for x in record.get("seeds") or []]
    if not tied or any(bids.get(x) != top or x not in seats for x in tied) or winner not in tied:
        return f"the tied bidders {tied} are not bidders of the highest bid x{top} with the winner among them"
    if tied != sorted(tied, key=seats.index):
        return f"the tied bidders {tied} are not in seat order"
    if len(tied) > 1 and shuffle(tied, key, "auction")[0] != winner:
        return f"the deal key's stream \"auction\" picks {shuffle(tied, key, 'auction')[0]}, not {winner}"
    return None


def check_record(record: dict, previous: dict | None = None, *, predates: bool = False) -> list[tuple]:
    """(check, holds, what) for each check of one record, `previous` the record of the hand before it when given,
    `predates` when the room's chain lists this hand as one from before the chain."""
    fmt = record.get("format") if isinstance(record, dict) else None
    out = [("format", fmt == RECORD_FORMAT, f"format {fmt}" if fmt == RECORD_FORMAT
            else f"the format is {json.dumps(fmt)}, not one this verifier knows ({RECORD_FORMAT})")]
    why = malformed(record)
    if why:
        return [*out, ("malformed", False, f"not a hand record: {why}")]
    server = seed_bytes(record["seed"])
    dealt = record["dealt"]
    made = hashlib.sha256(server).hexdigest()
    ok = made == str(record.get("commitment", "")).lower()
    out.append(("commitment", ok, "the server seed's SHA-256 is the commitment shown before the first card" if ok
                else f"the server seed's SHA-256 is {made}, not the commitment {record.get('commitment')}"))
    seeds = record.get("seeds") or []
    wrong = [x["seat"] for x in seeds if x["by"] != "player" and x["seed"] != seat_seed(server, x["seat"])]
    if wrong:
        out.append(("seeds", False, f"the seeds of seats {', '.join(wrong)} are marked as the server's but are not "
                                    "the ones its seed fixes"))
    elif seeds:
        own = sum(x["by"] == "player" for x in seeds)
        out.append(("seeds", True, f"every seat ({own}) sent a seed of its own" if own == len(seeds) else
                    f"{own} of the {len(seeds)} seats sent a seed of their own; the others' are the ones the server "
                    "seed fixes"))
    why = source_problem(record)
    out.append(("source", not why, why or "its source is the deck in canonical order"))
    key = None if wrong else deal_key(server, record["hand_no"], record.get("prev") or ZERO_CHAIN, seeds)
    source = record.get("source")
    deck = DECKS.get(source) if isinstance(source, str) else source if isinstance(source, list) else None
    parts = [(deck, "0", 0), *((r["source"], r["label"], r["at"]) for r in record.get("reshuffles") or [])]
    mismatch = None
    for k, (cards, label, at) in enumerate(parts if key else []):
        end = parts[k + 1][2] if k + 1 < len(parts) else len(dealt)
        if cards is None:
            mismatch = "no deck to shuffle"
            break
        order = shuffle(cards, key, label)
        for i, card in enumerate(dealt[at:end]):
            if i >= len(order) or order[i] != card:
                mismatch = (f"card {at + i + 1} dealt was {card}, but the deal key's stream {label!r} puts "
                            f"{order[i] if i < len(order) else 'no card'} there")
                break
        if mismatch:
            break
    if key is None:
        pass  # the seats' seeds are wrong: there is no deal key to check the deck and dice with
    elif record.get("stacked"):
        out.append(("deck", False, "this deck was stacked by a test script: it does not verify, by design"))
    else:
        out.append(("deck", not mismatch, mismatch or
                    f"the deck from the deal key deals exactly the {len(dealt)} cards of this hand, in order"))
    policy = record.get("order_policy") or ("dice" if record.get("game") == "ten-half" else "seat")
    rolled = record.get("dice")
    if rolled and key is not None:
        made = dice(key)
        order, banker = record.get("order") or [], record.get("banker")
        ordered = banker in order and order.index(banker) == (1 - sum(made)) % len(order)
        ok = made == list(rolled) and ordered
        out.append(("dice", ok, f"the dice from the deal key are {made[0]} and {made[1]}, and they give the order"
                    if ok else f"the dice from the deal key are {made[0]} and {made[1]}" + (
                        f", not {rolled}" if made != list(rolled) else ", but the order does not follow them")))
    elif not rolled and policy == "dice" and not predates and not record.get("voided"):
        out.append(("dice-missing", False, "the game rolls dice for the order, but the record has none"))
    if isinstance(record.get("auction"), dict) and key is not None:
        why = auction_problem(record, key)
        out.append(("auction", not why, why or "the bank went to the highest bid, a tie to the bidder the deal key's "
                                              "stream \"auction\" picks"))
    if record.get("voided"):
        why = void_problem(record)
        out.append(("void", not why, why or "the hand was voided before its deal: no card, no stake, no chip moved"))
    why = hands_problem(record)
    out.append(("hands", not why, why or "the hands shown hold exactly the cards dealt to them, and the stakes settled"
                + matta_note(record)))
    names = record.get("names")
    seats = set(record.get("deltas") or {})
    ok = isinstance(names, dict) and set(names) <= seats and all(isinstance(v, str) for v in names.values())
    out.append(("names", ok, "the names are those of seats in this hand" if ok
                else f"the names are for seats {sorted(names) if isinstance(names, dict) else names}, "
                     f"not seats in this hand ({', '.join(sorted(seats))})"))
    if record.get("chain"):
        made = chain_hash(record)
        out.append(("chain", made == record["chain"], f"the record hashes to its chain hash {made}"
                    if made == record["chain"]
                    else f"the record hashes to {made}, not to its chain hash {record['chain']}: it was changed"))
    elif predates:
        out.append(("chain-missing", True, "this hand is from before the hash chain, as the room's chain says"))
    else:
        out.append(("chain-missing", False, "the record has no chain hash, and no chain file says its hand is from "
                                            "before the chain"))
    if previous is not None:
        made = chain_hash(previous)
        ok = record.get("prev") == made and previous.get("hand_no", 0) + 1 == record.get("hand_no")
        out.append(("link", ok, f"its link is the hash of {name_of(previous)}" if ok
                    else f"its link {record.get('prev')} is not the hash {made} of {name_of(previous)}: the chain is "
                         "broken here"))
    return out


def parse_trust(text: str | None) -> tuple[int | None, str] | None:
    """--trust HASH or N:HASH: the chain hash of the last hand the player trusts (hand N's)."""
    if not text:
        return None
    m = re.fullmatch(r"(?:(\d+):)?([0-9a-fA-F]{64})", text.strip())
    if not m:
        raise ValueError(f"--trust takes a chain hash of 64 hexadecimal digits, or N:HASH, not {text!r}")
    return (int(m[1]) if m[1] else None, m[2].lower())


def missing(first: int, last: int) -> str:
    return f"hand {first} is missing" if first == last else f"hands {first} to {last} are missing"


def merge_pages(pages: list[dict]) -> tuple[list[dict], list[tuple]]:
    """The rows of every page of one room's chain, in order, and the problems of their order: each page lists its hands
    one after the other (no gap, repeat or reordering), pages may overlap only with the same rows, none is missing."""
    problems, rows = [], {}
    for page in pages:
        before, broken = None, False
        for row in page.get("hands") or []:
            n = row.get("hand_no") if isinstance(row, dict) else None
            if not is_int(n):
                problems.append(("contiguous", False, "a hand of the chain has no hand number"))
                continue
            if before is not None and n != before + 1 and not broken:  # the first break of each page
                broken = True
                problems.append(("contiguous", False, f"hand {n} comes after hand {before}: the hands must follow one "
                                 "another, each once, none missing"))
            before = n
            if n in rows and (rows[n].get("prev"), rows[n].get("chain")) != (row.get("prev"), row.get("chain")):
                problems.append(("contiguous", False, f"hand {n} is listed twice, with different hashes"))
            rows.setdefault(n, row)
    ordered = [rows[n] for n in sorted(rows)]
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b["hand_no"] != a["hand_no"] + 1 and not problems:  # a gap between pages, each whole
            problems.append(("contiguous", False, f"{missing(a['hand_no'] + 1, b['hand_no'] - 1)}: give every page "
                                                  "of the chain"))
    return ordered, problems


def check_chain(room: str, pages: list[dict], trust: tuple | None) -> list[tuple[str, list[tuple]]]:
    """One room's chain from all its pages: the room's lines (format, contiguous, start, trust), then each hand's."""
    head = [("format", p.get("format") == CHAIN_FORMAT, f"format {CHAIN_FORMAT}" if p.get("format") == CHAIN_FORMAT
             else f"the format is {json.dumps(p.get('format'))}, not one this verifier knows ({CHAIN_FORMAT})")
            for p in pages]
    rows, problems = merge_pages(pages)
    head += problems or ([("contiguous", True, f"hands {rows[0]['hand_no']} to {rows[-1]['hand_no']} follow one "
                                               "another, each once")] if rows else
                         [("contiguous", False, "the chain lists no hand")])
    chained = [r for r in rows if r.get("chain")]
    first = chained[0] if chained else None
    if first is not None:
        start = first.get("prev")
        ok = start == ZERO_CHAIN or (trust is not None and start == trust[1])
        head.append(("start", ok, f"the chain starts at hand {first['hand_no']}, from 64 zeros" if start == ZERO_CHAIN
                     else f"the chain starts at hand {first['hand_no']}, from the hash you trust" if ok
                     else f"hand {first['hand_no']} links to {start}, not to 64 zeros nor to a hash you trust: give "
                          "the earlier pages, or --trust the last hash you noted"))
    if trust is not None:
        n, value = trust
        found = (first is not None and first.get("prev") == value and (n is None or n == first["hand_no"] - 1)) or any(
            r.get("chain") == value and (n is None or n == r["hand_no"]) for r in rows)
        head.append(("trust", found, "the hash you trust is in this chain" if found
                     else f"the hash you trust ({value}) is not in this chain"))
    report = [(f"room {room}, chain", head)]
    seen_chain, before = False, None
    for row in rows:
        lines = []
        predates = not row.get("chain") and not seen_chain
        if row.get("chain"):
            if seen_chain and before is not None and before["hand_no"] + 1 == row["hand_no"]:
                ok = row.get("prev") == before.get("chain")
                lines.append(("link", ok, f"its link names hand {before['hand_no']}" if ok
                              else f"its link {row.get('prev')} is not hand {before['hand_no']}'s hash: broken here"))
            seen_chain = True
        elif not predates:
            lines.append(("chain-missing", False, "this hand has no chain hash, but hands before it have"))
        rec = row.get("record")
        if rec:
            lines += check_record(rec, predates=predates)
            same = (isinstance(rec, dict) and rec.get("chain") == row.get("chain") and rec.get("prev") == row.get("prev")
                    and rec.get("hand_no") == row.get("hand_no") and str(rec.get("room")) == room)
            lines.append(("row", same, "the record carries the hashes the chain lists" if same
                          else "the record does not carry the hashes the chain lists for it"))
        else:
            lines.append(("row", True, "not yours to read: only its link is checked"))
        report.append((f"room {room}, hand {row['hand_no']}", lines))
        before = row
    return report


def check_files(files: list, trust: tuple | None = None) -> list[tuple[str, list[tuple]]]:
    """Each room's chain from its pages, then the hand records given alone, each with the one before it when given
    too, and with its room's chain when given too."""
    chains, records = {}, []
    for data in files:
        if isinstance(data, dict) and isinstance(data.get("hands"), list):  # a chain file: hands is a list of rows
            chains.setdefault(str(data.get("room")), []).append(data)
        else:
            records.append(data)
    report, listed = [], {}
    for room, pages in chains.items():
        report += check_chain(room, pages, trust)
        rows, _ = merge_pages(pages)
        first = next((r["hand_no"] for r in rows if r.get("chain")), None)
        listed.update({(room, r["hand_no"]): (r, first is None or r["hand_no"] < first) for r in rows})
    keyed = sorted((r for r in records if isinstance(r, dict) and is_int(r.get("hand_no"))),
                   key=lambda r: (str(r.get("room")), r["hand_no"]))
    before = None
    for rec in [r for r in records if r not in keyed] + keyed:
        row, predates = listed.get((str(rec.get("room")), rec.get("hand_no")), (None, False)) if isinstance(
            rec, dict) else (None, False)
        previous = before if before is not None and isinstance(rec, dict) and before.get("room") == rec.get("room") \
            and before["hand_no"] + 1 == rec.get("hand_no") else None
        lines = check_record(rec, previous, predates=predates and not (row or {}).get("chain"))
        if previous is None and before is not None and isinstance(rec, dict) and before.get("room") == rec.get("room") \
                and before["hand_no"] == rec.get("hand_no") and before != rec:
            lines.append(("contiguous", False, f"hand {rec['hand_no']} of room {rec.get('room')} is given twice, "
                                               "different"))
        if row is not None:
            same = rec.get("chain") == row.get("chain") and rec.get("prev") == row.get("prev")
            lines.append(("row", same, "the record carries the hashes its room's chain lists" if same
                          else "the record does not carry the hashes its room's chain lists for it"))
        report.append((name_of(rec) if isinstance(rec, dict) else "a file", lines))
        if isinstance(rec, dict) and is_int(rec.get("hand_no")):
            before = rec
    return report


def vector_files(v: dict) -> tuple[list, tuple | None]:
    """A check vector's files: its chain, or `base` with its changes (`set`: [path, value] pairs, `drop`: keys)."""
    if "chain" in v:
        return [v["chain"]], parse_trust(v.get("trust"))
    record = json.loads(json.dumps(v["base"]))
    for path, value in v.get("set", []):
        target = record
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
    for name in v.get("drop", []):
        record.pop(name, None)
    return [record], parse_trust(v.get("trust"))


def check_vectors(text: str) -> list[tuple[str, list[tuple]]]:
    """The test vectors: the JSON block after "<!-- vectors -->" in docs/fairness.md (or a file holding that JSON),
    then the check vectors after "<!-- check vectors -->"."""
    def block(marker):
        return json.loads(text.split(marker, 1)[1].split("```json", 1)[1].split("```", 1)[0])
    vectors = block("<!-- vectors -->") if "<!-- vectors" in text else json.loads(text)
    report = []
    for v in vectors:
        lines = []
        if "record" in v:
            made = chain_hash(v["record"])
            lines.append(("vector", made == v["chain"], f"chain hash {made}"))
        else:
            server = seed_bytes(v["server_seed"])
            lines.append(("vector", hashlib.sha256(server).hexdigest() == v["commitment"], "commitment"))
            made = [seat_seed(server, x["seat"]) for x in v["seeds"] if x["by"] != "player"]
            lines.append(("vector", made == [x["seed"] for x in v["seeds"] if x["by"] != "player"],
                          "the server's seat seeds"))
            key = deal_key(server, v["hand_no"], v["prev"], v["seeds"])
            lines.append(("vector", key.hex() == v["deal_key"], f"deal key {key.hex()}"))
            cards = v["source"] if isinstance(v["source"], list) else DECKS[v["source"]]
            lines.append(("vector", shuffle(cards, key, v.get("label", "0")) == v["order"], "deck order"))
            if "dice" in v:
                lines.append(("vector", dice(key) == v["dice"], f"dice {dice(key)}"))
        report.append((f"vector {v['name']}", lines))
    if "<!-- check vectors -->" in text:
        for v in block("<!-- check vectors -->")["vectors"]:
            files, trust = vector_files({**v, "base": block("<!-- check vectors -->")["base"]})
            failed = sorted({c for _title, lines in check_files(files, trust) for c, ok, _what in lines if not ok})
            ok = failed == sorted(v["fails"])
            report.append((f"check vector {v['name']}", [("vector", ok, f"fails {failed or 'nothing'}" if ok else
                                                          f"fails {failed}, not {v['fails']}")]))
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Check HalfPoint hand records and chains offline.")
    parser.add_argument("files", nargs="*", help="hand record or room chain files (JSON); every page of a chain")
    parser.add_argument("--trust", metavar="HASH", help="the chain hash of the last hand you trust (or N:HASH, hand "
                                                        "N's): a chain may start from it instead of 64 zeros")
    parser.add_argument("--vectors", metavar="FILE", help="check the test vectors of docs/fairness.md first")
    args = parser.parse_args(argv)
    if not args.files and not args.vectors:
        parser.error("give record or chain files, or --vectors")
    report = []
    try:
        trust = parse_trust(args.trust)
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
    report += check_files(files, trust)
    failed = 0
    for title, lines in report:
        print(title)
        for check, ok, what in lines:
            print(f"  {'ok  ' if ok else 'FAIL'} [{check}] {what}")
            failed += not ok
    print("everything holds" if not failed else f"{failed} check(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
