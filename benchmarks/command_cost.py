"""Cost of one table command on this machine: ``python benchmarks/command_cost.py [--steps N] [--json]``.

Plays ten-half at one table of four accounts in the configured database (DATABASE_URL), every move
decided by the engine's basic bot, sent through `services.action_submit` as a socket sends it; each
broadcast is turned into the frames of the four seats and a spectator with the broadcast's own code
(`games.frames.update_frames`), as the committing process does. No socket, no channel layer, no Celery (the
wakes that the commands schedule run inline when due): what is left is the work of our own code and
of the database, per command, in wall time, in this process's CPU time and (PostgreSQL on this machine) in
the CPU time of the connection's backend process. docs/performance.md
compares it with what the live stack manages.

`--state` adds what a command spends on the table's whole state and meta, which a process owning the table, with
them in memory and writing only a command's change, would no longer spend (docs/performance.md, "Table ownership:
its ceiling"): their parse and encoding in this process, measured on the rows the play stored, and in the
PostgreSQL backend an UPDATE that writes them against one that does not, on a scratch table of the same storage.
"""

import argparse
import gc
import json
import os
import sys
import time
import uuid

import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from games import broadcast, services, tasks  # noqa: E402
from games.engine import bot_decide, state_from_json, state_to_json, view  # noqa: E402
from games.engine.state import copy_state  # noqa: E402
from games.fields import dumps, jsonb  # noqa: E402
from games.frames import update_frames  # noqa: E402
from games.models import Table  # noqa: E402
from wallets.models import Currency  # noqa: E402

LONG_TIMERS = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}


def backend_cpu() -> tuple[int, float] | None:
    """This connection's PostgreSQL backend and the CPU seconds it has used so far (same machine, /proc), or
    None."""
    if connection.vendor != "postgresql":
        return None
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:  # another machine, or no permission
        return None
    return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _per_item(items: list, step, rounds: int) -> float:
    """Microseconds of this process's CPU an item for `step(item)`, over `rounds` passes of `items`."""
    for item in items:  # once unmeasured: caches, first imports
        step(item)
    c0 = time.process_time()
    for _ in range(rounds):
        for item in items:
            step(item)
    return 1e6 * (time.process_time() - c0) / (rounds * len(items))


def state_parts(rows: list[tuple[bytes, bytes]], *, rounds: int = 20, updates: int = 2000) -> dict:
    """What a command does with the whole state and meta (`rows`: stored texts of a played table, one a step) that
    an owner with them in memory and writing only the change would not, in microseconds a command. Our process:
    their parse (orjson, then the engine's TableState) and their encoding for the UPDATE (orjson, then psycopg
    quoting the text into the statement, as Django's client-side cursor does). The engine's own copy of the state
    (`apply` works on a copy so that a refused command changes nothing) is given apart: an owner keeps it unless the
    engine changes its state in place. PostgreSQL (this machine's backend, None elsewhere): an UPDATE that writes
    state and meta against one that writes only a version, each committed, and a SELECT of them against one of the
    version, on a scratch table with the row's storage (LZ4). PostgreSQL only: the encoding is psycopg's."""
    from psycopg import sql

    connection.ensure_connection()
    raw = connection.connection
    loaded = [(state_from_json(orjson.loads(state), copy=False), orjson.loads(meta)) for state, meta in rows]

    def parse(row):
        state_from_json(orjson.loads(row[0]), copy=False)
        orjson.loads(row[1])

    def encode(row):
        sql.Literal(jsonb(state_to_json(row[0], copy=False))).as_bytes(raw)
        sql.Literal(jsonb(row[1])).as_bytes(raw)

    return {
        "rows": len(rows),
        "state_bytes": round(sum(len(s) for s, _m in rows) / len(rows)),
        "meta_bytes": round(sum(len(m) for _s, m in rows) / len(rows)),
        "parse_us": round(_per_item(rows, parse, rounds), 1),
        "encode_us": round(_per_item(loaded, encode, rounds), 1),
        "engine_copy_us": round(_per_item(loaded, lambda row: copy_state(row[0]), rounds), 1),
        **(_database_cost(rows, updates) if backend_cpu() is not None else {"write_us": None, "read_us": None}),
    }


def _database_cost(rows: list[tuple[bytes, bytes]], updates: int) -> dict:
    """The PostgreSQL backend's CPU a committed UPDATE spends on writing state and meta (with them against
    without), and a SELECT of the row on reading them (the same)."""
    name = f"hp_state_cost_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {name} (id int PRIMARY KEY, version int NOT NULL, "
                       "state jsonb COMPRESSION lz4 NOT NULL, meta jsonb COMPRESSION lz4 NOT NULL)")
    try:
        with connection.cursor() as cursor:
            for i, (state, meta) in enumerate(rows):
                cursor.execute(f"INSERT INTO {name} VALUES (%s, 0, %s::jsonb, %s::jsonb)",
                               [i, state.decode(), meta.decode()])
        texts = [(state.decode(), meta.decode()) for state, meta in rows]
        spent = {}
        for label, statement, params in (
                ("read", f"SELECT state, meta FROM {name} WHERE id = %s", lambda i: [i % len(texts)]),
                ("read_none", f"SELECT version FROM {name} WHERE id = %s", lambda i: [i % len(texts)]),
                ("with", f"UPDATE {name} SET version = version + 1, state = %s::jsonb, meta = %s::jsonb WHERE id = %s",
                 lambda i: [*texts[i % len(texts)], i % len(texts)]),
                ("without", f"UPDATE {name} SET version = version + 1 WHERE id = %s", lambda i: [i % len(texts)])):
            b0 = backend_cpu()[1]
            for i in range(updates):
                with connection.cursor() as cursor:
                    cursor.execute(statement, params(i))
                    if cursor.description is not None:
                        cursor.fetchone()
            spent[label] = backend_cpu()[1] - b0
        return {"write_us": round(1e6 * (spent["with"] - spent["without"]) / updates, 1),
                "read_us": round(1e6 * (spent["read"] - spent["read_none"]) / updates, 1)}
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {name}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=500, help="moves to time (default 500)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--state", action="store_true",
                        help="also what the whole state and meta cost a command (a table owner's ceiling)")
    a = parser.parse_args()
    if a.state and connection.vendor != "postgresql":
        parser.error("--state measures PostgreSQL's storage: set DATABASE_URL to a PostgreSQL database")
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 0
    tasks.schedule_wake = lambda room_id, version, wake_at: None  # the wakes are run below, when nothing is to do
    frames = 0

    def frames_of(room_id, version, state, events, users, is_open, started, stalled=None, watch=None):
        nonlocal frames
        frames += len(update_frames(version, state, events, sorted(set(users.values())), started, stalled))

    broadcast.table_update = frames_of
    tag = uuid.uuid4().hex[:8]
    users = [get_user_model().objects.create_user(f"ccost-{tag}-{i}", None, None) for i in range(4)]
    room = services.room_create(host=users[0], preset="ten-half", currency=Currency.POINTS, overrides=LONG_TIMERS)
    by_pk = {u.pk: u for u in users}
    commands = wakes = 0
    rows = []  # the stored state and meta texts, one a step (`--state`)
    try:
        for u in users:
            services.action_submit(room_id=room.pk, user=u, action="sit", args={"buy_in": room.buy_in_max})
        services.action_submit(room_id=room.pk, user=users[0], action="start")
        gc_before = gc.get_stats()
        wall = time.perf_counter()
        spent_wall = spent_cpu = 0.0
        spent_backend = 0.0 if backend_cpu() is not None else None
        for _ in range(a.steps):
            table = Table.objects.get(pk=room.pk)  # the client's side: what to play (not timed)
            if a.state:
                rows.append((dumps(table.state), dumps(table.meta)))
            state = state_from_json(table.state)
            move = None
            for uid, seat in table.meta["users"].items():
                decided = bot_decide(view(state, seat), "basic", state.rules)
                if decided is not None:
                    move = (by_pk[int(uid)], *decided)
                    break
            b0 = backend_cpu()
            w0, c0 = time.perf_counter(), time.process_time()
            if move is None:
                services.table_wake(room_id=room.pk)  # between hands: the next one starts
                wakes += 1
            else:
                user, action, args = move
                services.action_submit(room_id=room.pk, user=user, action=action, args=args,
                                       action_id=uuid.uuid4().hex)
                commands += 1
            spent_wall += time.perf_counter() - w0
            spent_cpu += time.process_time() - c0
            b1 = backend_cpu()
            if None in (b0, b1, spent_backend) or b0[0] != b1[0]:  # not measurable, or another connection
                spent_backend = None
            else:
                spent_backend += b1[1] - b0[1]
        total_wall = time.perf_counter() - wall
        gc_after = gc.get_stats()
    finally:
        services.room_close(room_id=room.pk, by=users[0])
    result = {
        "database": connection.vendor, "commands": commands, "wakes": wakes, "frames": frames,
        "ms_per_command_wall": round(1000 * spent_wall / a.steps, 2),
        "ms_per_command_cpu": round(1000 * spent_cpu / a.steps, 2),
        "ms_per_step_with_client_wall": round(1000 * total_wall / a.steps, 2),
        "ms_per_command_database_cpu": None if spent_backend is None else round(1000 * spent_backend / a.steps, 2),
        # The cyclic garbage collector over the steps, client's side included (Python's default thresholds): its
        # passes of each generation per 1,000 steps, and the objects it found unreachable a step.
        "gc_passes_per_1000": [round(1000 * (b["collections"] - a0["collections"]) / a.steps, 1)
                               for a0, b in zip(gc_before, gc_after, strict=True)],
        "gc_collected_per_step": round(sum(b["collected"] - a0["collected"]
                                           for a0, b in zip(gc_before, gc_after, strict=True)) / a.steps, 1),
    }
    if a.state:
        result["state"] = state_parts(rows)
    if a.json:
        print(json.dumps(result))
    else:
        print(f"{connection.vendor}: {commands} commands and {wakes} wakes, {frames} viewer frames; per command "
              f"(with its frames): {result['ms_per_command_wall']} ms wall, {result['ms_per_command_cpu']} ms CPU "
              "in this process, " + (f"{result['ms_per_command_database_cpu']} ms CPU in the PostgreSQL backend"
                                        if spent_backend is not None else "the database's own CPU not measured"))
        print(f"garbage collector, per 1,000 steps: {result['gc_passes_per_1000']} passes of generations 0, 1, 2; "
              f"{result['gc_collected_per_step']} objects collected a step")
        if a.state:
            p = result["state"]
            print(f"the whole state ({p['state_bytes']} bytes) and meta ({p['meta_bytes']} bytes), per command: parsed "
                  f"{p['parse_us']} us, encoded {p['encode_us']} us; in PostgreSQL "
                  + (f"written {p['write_us']} us, read {p['read_us']} us" if p["write_us"] is not None
                     else "not measured")
                  + f"; apart, the engine's copy of the state: {p['engine_copy_us']} us a copy")


if __name__ == "__main__":
    main()
