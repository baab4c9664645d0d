"""SQL queries of one command on the hot path: ``python benchmarks/query_count.py [--json] [--sql]``.

Plays a hand of ten-half between two fresh accounts in the configured database (DATABASE_URL) until a
challenger's turn, then counts the queries of a `hit` and of a `stand` sent through
`services.action_submit`, as a player's socket sends them (django's CaptureQueriesContext). The wake
that the command schedules is a Celery task and runs elsewhere: it is recorded, not run. The room is
closed at the end (its chips go home); the two accounts stay (`qcount-...`).
"""

import argparse
import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from games import services, tasks  # noqa: E402
from games.engine import view  # noqa: E402
from games.models import Table  # noqa: E402
from wallets.models import Currency  # noqa: E402


def count(room, user, action: str, **args) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        services.action_submit(room_id=room.pk, user=user, action=action, args=args, action_id=uuid.uuid4().hex)
    return [q["sql"] for q in ctx.captured_queries]


def turn_of(room) -> str | None:
    from games.engine import state_from_json

    v = view(state_from_json(Table.objects.get(pk=room.pk).state), None)
    return v["hand"]["turn"]["seat"] if v["hand"] and v["hand"]["turn"] else None


def play_once() -> tuple[list, list, list] | None:
    """One hand up to a challenger's turn: the queries of a bet, a hit and a stand (None: the hit busted)."""
    tag = uuid.uuid4().hex[:8]
    User = get_user_model()
    host, guest = (User.objects.create_user(f"qcount-{tag}-{n}", f"qcount-{tag}-{n}@example.invalid", None)
                   for n in ("a", "b"))
    room = services.room_create(host=host, preset="ten-half", currency=Currency.POINTS,
                                overrides={"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600})
    try:
        for u in (host, guest):
            services.action_submit(room_id=room.pk, user=u, action="sit", args={"buy_in": room.buy_in_max})
        services.action_submit(room_id=room.pk, user=host, action="start")
        services.action_submit(room_id=room.pk, user=host, action="open_bank", args={"amount": 500})
        services.table_wake(room_id=room.pk)  # the hand starts
        bet = count(room, guest, "bet", amount=10)
        seats = Table.objects.get(pk=room.pk).meta["users"]
        by_seat = {seats[str(u.pk)]: u for u in (host, guest)}
        player = by_seat[turn_of(room)]
        hit = count(room, player, "hit")
        if turn_of(room) is None or by_seat[turn_of(room)] != player:
            return None
        return bet, hit, count(room, player, "stand")
    finally:
        services.room_close(room_id=room.pk, by=host)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sql", action="store_true", help="print every query")
    a = parser.parse_args()
    settings.GAMES_BOT_SECONDS = 0  # the next hand is due at once: table_wake below starts it
    tasks.schedule_wake = lambda room_id, version, wake_at: None  # a Celery task: the worker's queries, not these

    for _attempt in range(20):
        measured = play_once()
        if measured is not None:
            break
    else:
        raise SystemExit("every hit ended its turn (a bust); run again")
    bet, hit, stand = measured
    result = {"database": connection.vendor, "bet": len(bet), "hit": len(hit), "stand": len(stand)}
    if a.json:
        print(json.dumps(result))
    else:
        print(f"queries per command ({connection.vendor}): bet {len(bet)}, hit {len(hit)}, stand {len(stand)}")
    if a.sql:
        for name, sqls in (("hit", hit), ("stand", stand)):
            print(f"--- {name}")
            for q in sqls:
                print("  " + q[:300])


if __name__ == "__main__":
    main()
