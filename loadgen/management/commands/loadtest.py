"""``python manage.py loadtest --url ws://127.0.0.1:8000 --tables N --seconds S [--rate R|max] [--json]``.

Live tables played by bot-like clients over real sockets, against running servers on this machine, with
the latency of every command to every seat. A thin shell over the loadgen package (its docstring says how
a run goes); docs/performance.md has the figures and the commands that made them.
"""

import json
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.engine import PRESETS
from loadgen import LoadTestError, setup
from loadgen.players import Plan, TablePlan
from loadgen.processes import listening_pids, with_children
from loadgen.report import format_report
from loadgen.runner import execute
from loadgen.setup import SEATS
from loadgen.targets import parse_targets

MAX_SECONDS = 3600
MAX_TABLES = 2000


def rate(value: str) -> float | None:
    if value == "max":
        return None
    try:
        r = float(value)
    except ValueError:
        raise CommandError("--rate is commands per second per table, or max") from None
    if not 0 < r <= 50:
        raise CommandError("--rate is between 0 and 50 commands per second per table, or max")
    return r


class Command(BaseCommand):
    help = "Play N live tables with bot-like clients over real sockets and report command-to-every-seat latency."

    def add_arguments(self, parser):
        parser.add_argument("--url", action="append", required=True,
                            help="a server, e.g. ws://127.0.0.1:8000; repeat it or give a comma list to spread "
                                 "the tables' seats over several servers (loopback only)")
        parser.add_argument("--tables", type=int, required=True)
        parser.add_argument("--seconds", type=float, required=True, help="length of the measured window")
        parser.add_argument("--warmup", type=float, default=0.0,
                            help="seconds of play before the measured window (every table starts in the same second)")
        parser.add_argument("--rate", default="0.5", help="commands per second per table (default 0.5), or max")
        parser.add_argument("--preset", default="ten-half", choices=sorted(PRESETS))
        parser.add_argument("--rules", default="{}", help="rule overrides as a JSON object")
        parser.add_argument("--workers", type=int, default=1,
                            help="client processes (one process drives about 2,000 sockets at the default rate)")
        parser.add_argument("--pids", action="append", default=[],
                            help="more server process ids to watch (memory, CPU), e.g. Celery's; the processes "
                                 "listening on the --url ports and every child process are watched too")
        parser.add_argument("--fresh-logins", action="store_true",
                            help="log every account in over HTTP even when a valid session exists")
        parser.add_argument("--bare", action="store_true",
                            help="drive the bare relay of benchmarks/bare_asgi.py (the baseline) instead of HalfPoint")
        parser.add_argument("--payload", type=int, default=2000,
                            help="--bare: bytes each command carries to every seat (default 2000)")
        parser.add_argument("--seed", type=int, default=None, help="seed of the clients' pacing")
        parser.add_argument("--reconnect", action="store_true",
                            help="open a dropped socket again and report each table's recovery (a server killed on "
                                 "purpose, benchmarks/nodes.py)")
        parser.add_argument("--by-room", action="store_true",
                            help="every seat of a table on one server (the table's server: tables go round the "
                                 "servers), as a proxy that routes each room's sockets to one process; without it "
                                 "a table's seats go round the servers, as a proxy balancing connections does")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **o):
        try:
            targets = parse_targets(o["url"])
        except LoadTestError as e:
            raise CommandError(str(e)) from None
        if not 1 <= o["tables"] <= MAX_TABLES:
            raise CommandError(f"--tables is between 1 and {MAX_TABLES}")
        if not 0 < o["seconds"] <= MAX_SECONDS:
            raise CommandError(f"--seconds is between 0 and {MAX_SECONDS}")
        if not 0 <= o["warmup"] <= MAX_SECONDS:
            raise CommandError(f"--warmup is between 0 and {MAX_SECONDS}")
        try:
            overrides = json.loads(o["rules"])
        except ValueError as e:
            raise CommandError(f"--rules is not JSON: {e}") from None
        log = (lambda msg: print(msg, file=sys.stderr)) if o["json"] else self.stdout.write
        try:
            pids = {int(p) for value in o["pids"] for p in value.split(",") if p.strip()}
        except ValueError:
            raise CommandError("--pids takes process ids") from None
        pids = with_children(pids | listening_pids({t.port for t in targets}))

        n, rooms = o["tables"], []
        try:
            if o["bare"]:
                tables = [TablePlan(code=f"{i:04d}", seats=self._seats(targets, i, [None] * SEATS, o["by_room"]))
                          for i in range(n)]
            else:
                closed = setup.close_pool_rooms()
                if closed:
                    log(f"closed {closed} rooms left open by an earlier run")
                users = setup.ensure_accounts(n * SEATS)
                cookies = setup.log_in(users, targets, fresh=o["fresh_logins"], log=log)
                rooms = setup.create_rooms(users[::SEATS], o["preset"], overrides)
                tables = []
                for i, room in enumerate(rooms):
                    seated = users[i * SEATS:(i + 1) * SEATS]
                    tables.append(TablePlan(code=room.code, buy_in=room.buy_in_max,
                                            seats=self._seats(targets, i, [cookies[u.pk] for u in seated], o["by_room"])))
            plan = Plan(tables=tables, seconds=o["seconds"], rate=rate(o["rate"]), bare=o["bare"],
                        payload=o["payload"], cookie_name=settings.SESSION_COOKIE_NAME, seed=o["seed"],
                        warmup=o["warmup"], reconnect=o["reconnect"])
            log(f"{n} tables, {n * SEATS} sockets over {len(targets)} server(s); setting up...")
            result = execute(plan, workers=o["workers"], pids=pids, log=log)
        except LoadTestError as e:
            raise CommandError(str(e)) from None
        finally:
            if rooms:
                setup.close_pool_rooms([r.pk for r in rooms])
        result["urls"] = [t.ws for t in targets]
        if o["json"]:
            self.stdout.write(json.dumps(result, indent=2))
        else:
            self.stdout.write(format_report(result, result["urls"]))

    @staticmethod
    def _seats(targets, table: int, cookies: list, by_room: bool = False) -> list:
        # Seats of one table on different servers when there are several: every command crosses processes
        # through the channel layer, as behind a load balancer. `by_room`: all on the table's own server.
        servers = [targets[(table if by_room else table + s) % len(targets)] for s in range(len(cookies))]
        return [(server.ws, server.http, cookie) for server, cookie in zip(servers, cookies, strict=True)]
