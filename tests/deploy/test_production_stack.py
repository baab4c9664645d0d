"""Production as deploy/ sets it up, past one machine, on this one (docs/deploy.md): nginx from Debian's package with a
self-signed certificate in front of two daphne processes, two Celery workers and beat, on PostgreSQL with a streaming
replica and two Redis servers as the channel layer's shards (tests/deploy/stack.py).

Chromium plays a hand of each game through https:// and wss://; one daphne is killed in the middle of a hand and its
browser finishes the hand through nginx on the other; the records page is read from the replica, and from the primary
just after the user wrote; the ledger audits clean. Everything the test starts is stopped when it ends."""

import http.client
import ssl
import subprocess
import sys
import time
import urllib.request

import psutil
import pytest
import redis
from channels_redis.core import RedisChannelLayer
from django.conf import global_settings, settings
from django.contrib.auth import get_user_model
from django.db import connections
from playwright.sync_api import sync_playwright

from config.db_router import PIN_COOKIE
from games.broadcast import group_name
from games.models import Hand, Room
from tests.deploy import stack as s
from tests.e2e.conftest import ARGS, CHROMIUM, PASSWORD, Player
from tests.games.processes import wait_until
from tests.games.sockets import sensible_move
from tests.servers import ROOT, free_port

pytestmark = [pytest.mark.services, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GAMES = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")
KNOBS = {"bet_seconds": 120, "act_seconds": 120}  # nobody times out while a daphne goes away
VIEW = "(() => { const s = window.halfpoint.state; return s.busy ? null : s.view; })()"  # null while an action waits
OVER = "(() => { const v = window.halfpoint.state.view; return !!(v && v.hand && v.hand.over); })()"


def click(p: Player, view: dict, action: str, args: dict) -> None:
    """Make `sensible_move`'s move with the table's own controls."""
    if action == "bet":  # the stake goes into the bet box (docs/rules.md, "The bet box") and Confirm sends it
        p.page.fill("#bet-box", str(args["amount"]))
        action = "confirm"
    amount = {"open_bank": "#amount-bank", "refill": "#amount-refill"}.get(action)
    if amount and p.page.locator(amount).count():  # a whole-stack bank has no amount to type
        p.page.fill(amount, str(args["amount"]))
    p.click_enabled(f"#act-{action}")
    p.page.wait_for_function("!window.halfpoint.state.busy")


def play(players: list[Player], until: str, timeout: float = 60) -> None:
    """Each player makes their own sensible moves, from the view their page shows, until `until` holds everywhere."""
    deadline = time.monotonic() + timeout
    while not all(p.page.evaluate(until) for p in players):
        assert time.monotonic() < deadline, [p.page.evaluate(VIEW) for p in players]
        for p in players:
            view = p.page.evaluate(VIEW)
            move = view and sensible_move(view)
            if move and (move[0] != "bet" or "chip" in view["legal_actions"]):  # a fixed stake confirms itself
                click(p, view, *move)
                break
        else:
            players[0].page.wait_for_timeout(100)


def log_in(p: Player) -> Player:
    """A new player logs in through the login form. Not through sign-up: its rate limit counts per address in the
    Redis cache, across runs."""
    get_user_model().objects.create_user(p.name, f"{p.name}@example.com", PASSWORD)
    page = p.goto("/accounts/login/")
    page.fill("input[name=login]", p.name)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form[action*=login] [type=submit]").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return p


def unix_connections(child: s.Child) -> int:
    """The connections daphne has accepted on its socket (nginx's: one per open WebSocket), its listener aside."""
    sock = child.argv[child.argv.index("-e") + 1].split(":")[1]
    return sum(c.laddr == sock for c in psutil.Process(child.proc.pid).net_connections(kind="unix")) - 1


def kill_the_busier_daphne(webs: dict[str, s.Child], sockets: dict[str, list], page) -> str:
    """kill -9 the daphne holding the most table sockets; returns its instance once its browsers have opened new
    sockets (`sockets`: each browser's WebSockets, oldest first, as `page`'s Playwright reports them)."""
    doomed = max(webs, key=lambda i: unix_connections(webs[i]))
    assert unix_connections(webs[doomed]) >= 1
    opened = {name: len(ws) for name, ws in sockets.items()}
    webs[doomed].kill()

    def reconnected() -> bool:
        page.wait_for_timeout(100)  # Playwright's events arrive while it is called
        return (any(len(sockets[n]) > opened[n] for n in sockets)
                and not any(ws[-1].is_closed() for ws in sockets.values()))

    wait_until("the browsers to reconnect", reconnected, timeout=30)
    return doomed


def test_the_deployed_site_plays_every_game_over_tls_survives_a_dead_daphne_and_reads_records_from_the_replica(
        monkeypatch, settings):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's loop runs in this thread (tests/e2e/)
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS  # the site's, which checks the players' passwords
    with s.Stack() as stack:
        try:
            run_the_site(stack)
        except BaseException:
            print(stack.logs())
            raise
    assert not [c.name for c in stack.children if c.alive()]


def run_the_site(stack: s.Stack) -> None:
    replica = s.Replica(stack)
    shards = [settings.REDIS_URL, s.redis_server(stack)]
    http_port, https_port = free_port(), free_port()
    origin = f"127.0.0.1:{https_port}"
    base = f"https://{origin}"
    env = s.site_env(
        SECRET_KEY="tests-deploy-" + "k" * 50, ALLOWED_HOSTS="127.0.0.1", CSRF_TRUSTED_ORIGINS=base,
        DATABASE_REPLICA_URL=replica.url, REDIS_URL=",".join(shards),
        EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend", ACCOUNT_EMAIL_VERIFICATION="optional",
        GAMES_BOT_SECONDS="0", GAMES_NEXT_HAND_SECONDS="600", STATIC_ROOT=str(stack.directory / "static"))
    manage(env, "collectstatic", "--noinput")  # as an upgrade does (docs/deploy.md): DEBUG=0 serves these
    webs = {i: s.web(stack, i, env) for i in ("1", "2")}
    workers = [stack.start(f"worker{i}", s.unit_command("halfpoint-worker@.service", stack, i), env=env)
               for i in ("1", "2")]
    beat = stack.start("beat", s.unit_command("halfpoint-beat.service", stack), env=env)
    for w in workers:
        w.wait_for("ready", lambda w=w: " ready." in w.text())
    nginx = s.nginx(stack, http_port, https_port)

    with urllib.request.urlopen(base + "/healthz", context=ssl._create_unverified_context(), timeout=10) as r:
        assert (r.status, r.read()) == (200, b"ok\n")
    plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    plain.request("GET", "/records/")
    answer = plain.getresponse()
    assert (answer.status, answer.getheader("Location")) == (301, "https://127.0.0.1/records/")

    browser = stack.enter_context(sync_playwright()).chromium.launch(
        executable_path=CHROMIUM, headless=True, args=[*ARGS, "--ignore-certificate-errors"])
    stack.callback(browser.close)
    # Beside Playwright's running loop the ORM opens another connection (asgiref keeps one per context): closed here,
    # or the test database could not be dropped at the end of the session.
    stack.callback(connections.close_all)
    requests: list[str] = []
    # bypass_csp: the helpers' wait_for_function compiles its predicate in the page, which the site's CSP forbids.
    alice, bob = (log_in(Player(browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US",
                                                    bypass_csp=True), base, name, requests)) for name in ("alice", "bob"))
    sockets: dict[str, list] = {p.name: [] for p in (alice, bob)}
    for p in (alice, bob):
        p.context.on("request", lambda r: requests.append(r.url))
        p.page.on("websocket", lambda ws, name=p.name: (sockets[name].append(ws), requests.append(ws.url)))
    layer = RedisChannelLayer(hosts=shards)

    rooms = []
    for preset in GAMES:
        code = alice.create_room(preset, **KNOBS)
        room = Room.objects.get(code=code, status="open")
        rooms.append(room)
        bob.join(code)
        alice.sit(0, buy_in=min(1000, room.buy_in_max))
        bob.sit(1, buy_in=min(1000, room.buy_in_max))
        alice.wait_view("v.seats.length === 2")
        alice.click_enabled("#host-start")
        if preset == GAMES[0]:
            # Mid-hand, the daphne holding the most table sockets dies: its browsers come back through nginx on
            # the other one, and the hand goes on from the database.
            play([alice, bob], "window.halfpoint.state.view.phase === 'playing'")
            doomed = kill_the_busier_daphne(webs, sockets, alice.page)
            for p in (alice, bob):
                p.page.wait_for_selector("#conn-banner", state="hidden", timeout=30_000)
        play([alice, bob], OVER)
        if preset == GAMES[0]:
            webs[doomed] = s.web(stack, doomed, env)  # what systemd's Restart=always does
        # Both browsers are in the room: its group is on the shard that the layer's hash picks, for every process
        # (the first shard is CI's Redis, which other tests' groups may share; the second is this test's alone).
        key, shard = f"asgi:group:{group_name(room.pk)}", layer.consistent_hash(group_name(room.pk))
        assert redis.Redis.from_url(shards[shard]).exists(key)
        assert redis.Redis.from_url(shards[1]).exists(key) == (shard == 1)

    for room in rooms:
        hand = Hand.objects.get(room=room, number=1)
        assert hand.ended_at is not None and sum(hand.summary["deltas"].values()) == 0, hand.summary

    # The records page comes from the replica once alice's last write is PIN_SECONDS old; just after a write (the
    # daily bonus), from the primary.
    pins = [c["expires"] for c in alice.context.cookies() if c["name"] == PIN_COOKIE]
    time.sleep(max([0, *(t - time.time() + 0.5 for t in pins)]))
    replica.catch_up()
    before = len(replica.server.text())
    alice.goto("/records/")
    assert alice.page.locator("#records tr[data-hand]").count() == len(GAMES)
    assert "games_handseat" in replica.statements_since(before)
    alice.goto("/wallet/")
    with alice.page.expect_navigation():
        alice.page.locator("form[action*='daily-bonus'] [type=submit]").click()
    before = len(replica.server.text())
    alice.goto("/records/")
    assert alice.page.locator("#records tr[data-hand]").count() == len(GAMES)
    assert "games_handseat" not in replica.statements_since(before)

    # Every page and socket went through nginx, over TLS; beat's sweeps reached the workers through the broker.
    assert {u.split("/")[2] for u in requests if u.startswith(("https://", "wss://"))} == {origin}
    assert not [u for u in requests if u.startswith(("http://", "ws://"))]
    assert any(u.startswith(f"wss://{origin}/ws/rooms/") for u in requests)
    assert any("games.sweep" in w.text() for w in workers)

    manage(env, "wallet_audit")
    for child in [nginx, *webs.values(), *workers, beat, replica.server]:
        assert child.alive(), child.name


def manage(env: dict, *command: str) -> None:
    done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
