"""End-to-end tests: Debian's Chromium driven by Playwright for Python, against a real daphne.

The daphne child runs Celery tasks inline (CELERY_TASK_ALWAYS_EAGER) so bots and the first hand of a
room happen in the web process at once; GAMES_NEXT_HAND_SECONDS is long so a finished hand stays on
the table for the test to read (the host's "Deal the next hand now" starts the next one). Deadlines
only expire when something wakes the table, which no test here waits for.

Every page a test opens is watched: a request to any other host than the test server fails the test.
Screenshots go to test-artifacts/ (git-ignored).
"""

import os
import re
import secrets
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.db import connections
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.pushservice import vapid_pair
from tests.servers import Daphne, daphne, free_port

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 360, "height": 740}
PASSWORD = "a-long-table-password-1"
TIMEOUT_MS = 15_000

SERVER_ENV = {
    "CELERY_TASK_ALWAYS_EAGER": "1",
    "GAMES_BOT_SECONDS": "0",  # eager: a bot's move is due at once, or nothing would ever wake it
    "GAMES_NEXT_HAND_SECONDS": "3600",
    # Commands this process applies itself (`act`, the timers) reach the server's sockets through its watcher, not
    # through a channel layer: through Redis it waits two passes, 10 s by default.
    "GAMES_RESYNC_SECONDS": "1",
    "WELCOME_BEANS": "10000",
    "DJANGO_ALLOW_ASYNC_UNSAFE": "",
}


def pytest_collection_modifyitems(config, items):
    if shutil.which("chromium") or os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason="needs Debian's chromium: `make browser` installs it")
    for item in items:
        if "e2e" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.e2e_failed = report.failed
        if report.failed and "browser" in item.funcargs:
            report.sections.append(("what each page showed", _pages_shown(item.funcargs["browser"], item.name)))
    return report


# A table page's state when a test failed: what its last frame said, and whether its socket was open.
_VIEW = """() => {
  const hp = window.halfpoint, v = hp && hp.state && hp.state.view;
  return JSON.stringify({socket: hp && hp.socket && hp.socket.ws ? hp.socket.ws.readyState : null, version: hp && hp.state && hp.state.version,
    view: v && {phase: v.phase, hand_no: v.hand_no, you: v.you, turn: v.hand && v.hand.turn, over: v.hand && v.hand.over,
                legal: v.legal_actions}});
}"""


def _pages_shown(browser, name: str) -> str:
    """Every open page of the failed test: its address, its table's state (above), and a full-page screenshot in
    test-artifacts/ (CI prints the first two; the screenshot is for a run on this machine)."""
    lines, stem = [], re.sub(r"[^\w-]+", "_", name)[:80]
    ARTIFACTS.mkdir(exist_ok=True)
    for i, context in enumerate(browser.contexts):
        for j, page in enumerate(context.pages):
            try:
                shown = page.evaluate(_VIEW) if "/r/" in page.url else ""
                page.screenshot(path=str(ARTIFACTS / f"FAILED-{stem}-{i}-{j}.png"),
                                full_page=True)
            except Exception as e:  # a closed or crashed page: say so, and go on to the others
                shown = f"unreadable: {e}"
            lines.append(f"context {i} page {j}: {page.url} {shown}")
    return "\n".join(lines) or "no open page"


@pytest.fixture(autouse=True)
def _sync_db_beside_playwright(monkeypatch):
    # Playwright's sync API keeps an event loop running in this thread, and Django refuses database
    # calls from a thread with a running loop. The test's own queries and the database flush after
    # the test are plain sync code, so allow them (the daphne child gets the check back: SERVER_ENV).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="package")
def _chromium():
    """One Playwright and one Chromium for the browser tests (each test still makes its own contexts, one per player:
    no cookie, storage or service worker passes from one test to the next). Package scope: Playwright's sync API keeps
    an event loop running in this thread for as long as it lives, which must not outlive the e2e tests (the rest of the
    suite checks for running loops, and Django refuses database calls beside one). Launching it per test cost about
    0.7 s a test."""
    from playwright.sync_api import sync_playwright

    # The database calls made beside the running loop (the flush after each test among them) are allowed for as long
    # as it runs: see _sync_db_beside_playwright.
    with pytest.MonkeyPatch.context() as mp, sync_playwright() as pw:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        launch = lambda: pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)  # noqa: E731
        holder = [launch()]

        def current():
            if not holder[0].is_connected():  # a test crashed it: the next one gets a new one
                holder[0] = launch()
            return holder[0]

        yield current
        if holder[0].is_connected():
            holder[0].close()


def _clear_cache_keeping_process_beats() -> None:
    """cache.clear(), except the servers' "this process is alive" keys (games/services/presence.py): a shared server
    says so once every 30 s, and a test process that read its sockets as a dead process's would count its seats
    absent."""
    from django.core.cache import caches

    from games.services.presence import PROCESS_TTL

    backend = caches["default"]  # `cache` is a proxy of it
    keys: list[str] = []
    if type(backend).__name__ == "DatabaseCache":
        with connections["default"].cursor() as cursor:
            cursor.execute(f"SELECT cache_key FROM {backend._table} WHERE cache_key LIKE %s", ["%games:process:%"])
            keys = [row[0].split(":", 2)[2] for row in cursor.fetchall()]  # made keys are ":<version>:<key>"
    elif type(backend).__name__ == "RedisCache":
        client = backend._cache.get_client(None, write=False)
        keys = [k.decode().split(":", 2)[2] for k in client.scan_iter(match="*games:process:*")]
    cache.clear()
    for key in keys:
        cache.set(key, 1, PROCESS_TTL)


def _server_done_with_sockets(timeout_s: float = 10) -> None:
    """Wait until the servers have handled the closes of the test's sockets: a seat's last close is written under its
    table's row lock (games/services/presence.py), and on PostgreSQL that write beside the flush after the test
    (TRUNCATE of every table) deadlocks, which fails the flush. With a server per test, the server was stopped first."""
    from games.models import Table

    def busy() -> bool:
        if any(any((meta or {}).get("sockets", {}).values()) for meta in Table.objects.values_list("meta", flat=True)):
            return True
        if connections["default"].vendor != "postgresql":
            return False
        with connections["default"].cursor() as cursor:  # a close that found no seat left no socket: still writing?
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                           " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
                           " AND state IN ('active', 'idle in transaction')")
            return cursor.fetchone()[0] > 0

    deadline = time.monotonic() + timeout_s
    while busy() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture
def browser(transactional_db, _chromium, request):
    """The shared Chromium (one per e2e package run); the contexts a test leaves open are closed after it."""
    # allauth counts sign-ups per IP in the cache every test server shares: each test starts at none
    _clear_cache_keeping_process_beats()
    b = _chromium()
    yield b
    for context in b.contexts:
        context.close()
    if "server" in request.fixturenames:  # the shared one, still serving; a test's own server is stopped before the flush
        _server_done_with_sockets()
    # Beside the running loop, asgiref keeps this thread's database connection in the loop's context, where
    # nothing after the test reaches it: closed here, or PostgreSQL would refuse to drop the test database.
    connections.close_all()


def _artifact_name(request) -> str:
    return re.sub(r"[^\w-]+", "_", request.node.name)[:80]


def log_in(context, base: str, user) -> None:
    """`user`'s session in the browser `context`: made here, in the database the server reads, and set as its cookie."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    context.add_cookies([{"name": name, "url": base, "value": client.cookies[name].value}])


@pytest.fixture(scope="package")
def _shared_daphne(django_db_setup):
    """The daphne of `server`, one for the e2e package run (starting one cost about 1.3 s a test, and its first pages
    more). Safe to share: the database is flushed between tests (transactional_db) and its sequences are not reset,
    so no room or user id comes back to meet the process's per-room state (the parsed states, the watched rooms, the
    in-memory layer's groups); the cache is shared with this process (the database's table, or Redis), cleared by
    `browser`; each test's sockets close with its contexts. Tests that stop or kill a server start their own
    (`server_control`, tests/games/test_faults.py)."""
    holder = [Daphne(**SERVER_ENV)]
    yield holder
    holder[0].stop()


@pytest.fixture
def server(transactional_db, _shared_daphne):
    """The base URL of a daphne serving the test database."""
    if _shared_daphne[0].proc.poll() is not None:  # it died during an earlier test: that test failed, this one gets a new one
        _shared_daphne[0].stop()
        _shared_daphne[0] = Daphne(**SERVER_ENV)
    yield _shared_daphne[0].base


@pytest.fixture
def server_control(transactional_db):
    """Stop and start a daphne on a fixed port by hand (the reconnect test)."""

    class Control:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        _cm = None

        def start(self):
            self._cm = daphne(self.port, **SERVER_ENV)
            self._cm.__enter__()

        def stop(self):
            if self._cm is not None:
                self._cm.__exit__(None, None, None)
                self._cm = None

    control = Control()
    control.start()
    yield control
    control.stop()


class Player:
    """One person in one browser context."""

    def __init__(self, context, base: str, name: str, requests: list[str]):
        self.context = context
        self.page = context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.base = base
        self.name = name
        self.requests = requests
        self.console_errors: list[str] = []
        self.page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.console_errors.append(str(e)))

    def goto(self, path: str):
        self.page.goto(self.base + path)
        return self.page

    def signup(self) -> "Player":
        """Sign up through allauth's real form."""
        p = self.goto("/accounts/signup/")
        p.fill("input[name=username]", self.name)
        p.fill("input[name=email]", f"{self.name}@example.com")
        p.fill("input[name=password1]", PASSWORD)
        p.fill("input[name=password2]", PASSWORD)
        p.locator("form[action*=signup] [type=submit]").click()
        p.wait_for_url(lambda url: "/accounts/signup/" not in url)
        assert p.locator(".topbar").get_by_text(self.name).count() >= 1
        return self

    def create_room(self, preset="ten-half", **knobs) -> str:
        p = self.goto("/lobby/")
        p.select_option("#create-form select[name=preset]", preset)
        p.check("#create-form input[name=kind][value=humans]")
        p.check("#create-form input[name=currency][value=beans]")
        for name, value in knobs.items():
            p.fill(f"#create-form [name='{preset}-{name}']", str(value))
        p.click("#create-submit")
        p.wait_for_url(re.compile(r"/r/\d{4}/$"))
        self.wait_connected()
        return p.locator("#room-code").inner_text()

    def join(self, code: str):
        p = self.goto("/lobby/")
        p.fill("#join input[name=code]", code)
        p.click("#join-submit")
        p.wait_for_url(re.compile(rf"/r/{code}/$"))
        self.wait_connected()

    def wait_connected(self):
        self.page.wait_for_function("window.halfpoint && window.halfpoint.state.version >= 0")

    def open_sit(self, position: int | None = None, side: bool = False):
        """Open the seat dialog. The room's first frames after the snapshot (presence, the spectators' count) can
        redraw the table between Playwright's aim and its click, so a click that opened nothing is made again once
        the dialog has had its chance to open."""
        p = self.page
        target = "#sit-side" if side else "button[data-sit]" if position is None else f"button[data-sit='{position}']"
        for attempt in range(3):
            p.locator(target).first.click()
            try:
                p.wait_for_selector("#sit-dialog[open]", timeout=3000)
                return
            except PlaywrightTimeout:
                if attempt == 2:
                    raise

    def sit(self, position: int | None = None, buy_in: int = 1000, side: bool = False):
        p = self.page
        self.open_sit(position, side)
        p.fill("#sit-buy-in", str(buy_in))
        p.click("#sit-confirm")
        p.wait_for_function("window.halfpoint.state.view && window.halfpoint.state.view.you")

    def view(self) -> dict:
        return self.page.evaluate("window.halfpoint.state.view")

    def wait_view(self, js_condition: str, timeout: int = TIMEOUT_MS):
        """Wait until `js_condition` (over `v`, the current view) holds."""
        self.page.wait_for_function(f"(() => {{ const v = window.halfpoint.state.view; return !!v && ({js_condition}); }})()",
                                    timeout=timeout)

    def my_turn(self) -> bool:
        return self.page.evaluate("(() => { const v = window.halfpoint.state.view; return !!v && v.phase === 'playing'"
                                  " && !!v.hand.turn && v.hand.turn.seat === v.you; })()")

    def click_enabled(self, selector: str):
        self.page.wait_for_selector(f"{selector}:not([disabled])")
        self.page.click(selector)

    def screenshot(self, name: str):
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def practice_here(monkeypatch, user, preset: str, deck: list[str], *, every_hand=False, dice=None, overrides=None):
    """A practice room of `preset` (with `overrides`) opened in this process (services.practice_open), its first hand
    dealt from `deck` (the top cards; every hand with `every_hand`) and `dice`: the web server is another process,
    where no deck can be stacked. The hands this process deals send no update (no socket here): the page learns them
    from its snapshot."""
    from games import services
    from games.services import rooms

    def start(run):
        run.meta["next_hand_at"] = None
        args = {"seed_hex": secrets.token_hex(32), "deck": deck if every_hand or run.state.hand_no == 0 else []}
        if dice is not None:
            args["dice"] = dice
        run.apply("system", "start_hand", args)

    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)
    monkeypatch.setattr("games.services.moves._start_hand", start)
    if overrides:
        create = rooms.room_create
        monkeypatch.setattr(rooms, "room_create", lambda **kw: create(**{**kw, "overrides": overrides}))
    return services.practice_open(user=user, preset=preset)


def phone_table(browser, base: str, user, room, locale: str):
    """`user` logged in on a 360 x 740 phone whose browser speaks `locale`, at `room`'s table and connected: (player,
    page)."""
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale=locale)
    player = Player(context, base, user.username, [])
    log_in(context, base, user)
    page = player.goto(f"/r/{room.code}/")
    player.wait_connected()
    return player, page


@pytest.fixture
def players(browser, request):
    """players(base, name, viewport=...) -> a Player in a fresh context. At the end of the test every
    request they made (pages, scripts, styles, fetches, WebSockets) must have gone to the test server."""
    contexts, requests, bases = [], [], set()

    def make(base: str, name: str, viewport=None) -> Player:
        # bypass_csp: the helpers' wait_for_function runs its predicate through eval, which the site's CSP forbids
        # (tests/e2e/test_csp.py checks the pages under the CSP).
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900}, locale="en-US",
                                      bypass_csp=True)
        context.on("request", lambda r: requests.append(r.url))
        context.on("websocket", lambda ws: requests.append(ws.url))
        contexts.append(context)
        bases.add(urlsplit(base).netloc)
        return Player(context, base, name, requests)

    yield make
    if getattr(request.node, "e2e_failed", False):  # what each browser showed when the test failed
        ARTIFACTS.mkdir(exist_ok=True)
        for i, context in enumerate(contexts):
            for page in context.pages:
                page.screenshot(path=str(ARTIFACTS / f"FAILED-{_artifact_name(request)}-{i}.png"), full_page=True)
    for context in contexts:
        context.close()
    hosts = {urlsplit(url).netloc for url in requests if not url.startswith(("data:", "blob:", "about:"))}
    assert hosts <= bases, f"requests to other hosts: {sorted(hosts - bases)}"


def play_out(players_, timeout_s: float = 30):
    """Everyone stands when it is their turn until every one of them sees the hand over (the order
    comes from the dice, and a page's view may lag behind the server's by a frame)."""
    deadline = time.monotonic() + timeout_s
    over = "(() => { const v = window.halfpoint.state.view; return !!(v && v.hand && v.hand.over); })()"
    while time.monotonic() < deadline:
        if all(p.page.evaluate(over) for p in players_):
            return
        for p in players_:
            if p.my_turn() and p.page.locator("#act-stand:not([disabled])").count():
                p.page.click("#act-stand")
                p.page.wait_for_function("!window.halfpoint.state.busy")
                break
        else:
            time.sleep(0.05)
    raise AssertionError("the hand did not finish")


@pytest.fixture
def here(settings, monkeypatch):
    """Rooms, seats and moves are made in this process before or beside the pages: there is no socket here to tell,
    so its broadcasts are off (the pages learn new versions from the server's watcher), its tasks run at once, and no
    next hand or bot move is scheduled by a timer."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)


@pytest.fixture
def push_server(transactional_db, service):
    """A daphne of the test's own with VAPID keys and the test's push service allowed: (its base URL, the public
    key)."""
    private, public = vapid_pair()
    env = {**SERVER_ENV, "VAPID_PRIVATE_KEY": private, "VAPID_PUBLIC_KEY": public,
           "VAPID_SUBJECT": "mailto:ops@halfpoint.example", "PUSH_SERVICE_HOSTS": "127.0.0.1"}
    with daphne(**env) as base:
        yield base, public


def at_table(browser, server, user, room, viewport=None, ready: str = "!!v.you") -> "Player":
    """`user`'s page of `room` in a browser context of its own (a phone's screen unless `viewport` says), once the
    view satisfies `ready` (over `v`: seated by default; "!!v" for a spectator)."""
    context = browser.new_context(viewport=viewport or PHONE, locale="en-US", bypass_csp=True)
    player = Player(context, server, user.username, [])
    log_in(context, server, user)
    player.goto(f"/r/{room.code}/")
    player.wait_view(ready)
    return player
