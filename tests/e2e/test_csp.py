"""Production as it is served: DEBUG=0, the static files that collectstatic gathered served by the app itself
(WhiteNoise), and a Content-Security-Policy that allows no inline script or style (config/settings.py). Chromium
visits every kind of page, plays a hand at a practice table and checks it on the hand page: no page may report a
CSP violation or a console error, and every static file must come back, the ones a page names by hashed name and
cached for good. Screenshots of each page at 1280 and 360 px go to test-artifacts/."""

import re
import subprocess
import sys
import time

import pytest
from django.contrib.auth import get_user_model

from games import clubs
from games.models import Hand, Room
from tests.e2e.conftest import SERVER_ENV, Player, log_in
from tests.servers import ROOT, child_env, daphne

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PRODUCTION_ENV = {"DEBUG": "0", "SECRET_KEY": "csp-test-" + "k7#Q" * 12, "SECURE_SSL_REDIRECT": "0"}
# Every violation a document reports, kept where the test can read it (before any of the page's scripts run).
WATCH_CSP = """window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`));"""
HASHED = re.compile(r"/static/.+\.[0-9a-f]{12}\.\w+$")


@pytest.fixture
def production_server(transactional_db, tmp_path):
    """A daphne with DEBUG=0 serving what collectstatic gathered, at `localhost` (a secure context for Chromium,
    which then keeps the Secure cookies of DEBUG=0 over plain HTTP)."""
    env = {**PRODUCTION_ENV, "STATIC_ROOT": str(tmp_path / "static")}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT,
                   env=child_env(**env), check=True)
    with daphne(**SERVER_ENV, **env) as base:
        yield base.replace("127.0.0.1", "localhost")


@pytest.fixture
def mei(browser, production_server):
    """Mei's browser, keeping the CSP (the `players` fixture's contexts bypass it for their helpers)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.add_init_script(WATCH_CSP)
    yield Player(context, production_server, "mei", [])
    context.close()


def wait_js(page, expression: str) -> None:
    """Until `expression` holds in the page. A function, not an expression string: Playwright runs an expression
    through eval, which this CSP refuses (and reports)."""
    page.wait_for_function(f"() => ({expression})")


def play_the_hand(page, timeout_s: float = 30) -> None:
    """Stand at each of the player's turns until the hand is over (the bots play theirs)."""
    view = "window.halfpoint.state.view"
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(f"!!({view}.hand && {view}.hand.over)"):
        assert time.monotonic() < deadline, "the hand did not finish"
        if page.evaluate(f"{view}.phase === 'playing' && {view}.hand.turn && {view}.hand.turn.seat === {view}.you") \
                and page.locator("#act-stand:not([disabled])").count():
            page.click("#act-stand")
            wait_js(page, "!window.halfpoint.state.busy")
        else:
            time.sleep(0.05)


def logged_in(player, user, settings):
    settings.SECRET_KEY = PRODUCTION_ENV["SECRET_KEY"]  # the server's: it signs the session and checks its user
    log_in(player.context, player.base, user)


def test_every_page_keeps_to_the_csp_and_loads_its_static_files_with_debug_off(mei, settings):
    responses: list[tuple[str, int, str]] = []
    mei.context.on("response", lambda r: responses.append((r.url, r.status, r.headers.get("cache-control", ""))))

    def check(name: str) -> None:
        page = mei.page
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.__csp") == [], name
        named = page.evaluate("""[...document.querySelectorAll('script[src], link[rel=stylesheet]')]
            .map(e => e.src || e.href).filter(u => u.includes('/static/'))""")
        assert named and all(HASHED.search(u) for u in named), (name, named)
        for width, height in ((1280, 900), (360, 740)):
            page.set_viewport_size({"width": width, "height": height})
            mei.screenshot(f"csp-{name}-{width}")
        page.set_viewport_size({"width": 1280, "height": 900})

    mei.goto("/")
    check("home")
    mei.goto("/accounts/login/")
    check("login")

    user = get_user_model().objects.create_superuser("mei", "mei@example.com", "a-long-password-1",
                                                     display_name="Mei")
    logged_in(mei, user, settings)
    page = mei.goto("/lobby/")
    check("lobby")

    page.click("button[data-practice='ten-half']")  # the table: seated at once against a bot bank, a hand played
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    wait_js(page, "window.halfpoint && window.halfpoint.state.version >= 0")
    view = "window.halfpoint.state.view"
    wait_js(page, f"{view} && {view}.you && {view}.seats.filter(s => s.bot).length === 3")
    page.click("#act-confirm:not([disabled])")
    play_the_hand(page)
    page.wait_for_selector("#results-table")
    page.click("#menu-button")
    page.click("#tab-hands")
    page.click("#tab-chat")
    page.fill("#chat-input", "hello table")
    page.press("#chat-input", "Enter")
    page.locator("#chat-list li", has_text="hello table").wait_for()
    page.click("#menu-close")
    check("table")

    room = Room.objects.get(host=user)
    mei.goto(Hand.objects.get(room=room, number=1).get_absolute_url())  # the hand, and its shuffle check
    page.wait_for_selector("#verify-results li[data-ok='true']")
    assert page.locator("#verify-results li[data-ok='false']").count() == 0
    check("hand")

    club = clubs.club_create(owner=user, name="Night Owls")
    for name, path in (("records", "/records/"), ("wallet", "/wallet/"), ("profile", "/profile/"),
                       ("club", club.get_absolute_url()), ("rules", "/rules/zhejiang-ten-half/"),
                       ("verify", "/verify/"), ("distribution", "/verify/distribution/"),
                       ("chain", f"/r/{room.code}/chain/"),
                       ("admin", "/admin/"), ("admin-rooms", "/admin/games/room/"),
                       ("admin-room", f"/admin/games/room/{room.pk}/change/"),
                       ("admin-users", "/admin/accounts/user/")):
        mei.goto(path)
        check(name)
    mei.goto(f"/admin/games/room/{room.pk}/rules/")  # the rules form and its banker's edge, computed in the page
    page.locator("[data-rules-stats-out]", has_text="Banker's edge").wait_for()
    check("admin-room-rules")

    failed = [(url, status) for url, status, _ in responses if status >= 400]
    assert not failed, failed
    assert not mei.console_errors, mei.console_errors
    for url, _, cache in (r for r in responses if "/static/" in r[0]):
        assert ("immutable" in cache) == bool(HASHED.search(url)), (url, cache)  # plain names: a short max-age


def test_the_table_page_weight_in_every_language(browser, production_server, settings):
    """The table page as production serves it (our scripts and stylesheets minified, config/static.py): its own JS
    and CSS under 100 KB uncompressed, and the translation catalog it loads, per language, under 40 KB."""
    weights = {}
    for code, _name in settings.LANGUAGES:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        player = Player(context, production_server, f"w-{code}", [])
        user = get_user_model().objects.create_user(f"w-{code}", f"w-{code}@example.com", "a-long-password-1",
                                                    language=code)
        logged_in(player, user, settings)
        page = player.goto("/lobby/")
        page.click("button[data-practice='ten-half']")
        page.wait_for_url(re.compile(r"/r/\d{4}/$"))
        wait_js(page, "window.halfpoint && window.halfpoint.state.view && window.halfpoint.state.view.you")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.lang") == code
        urls = page.evaluate("""performance.getEntriesByType('resource').map(e => e.name)
            .filter(u => /\\.(js|css)$/.test(new URL(u).pathname) || new URL(u).pathname === '/jsi18n/')""")
        sizes = {url.replace(production_server, ""): len(context.request.get(url).body()) for url in set(urls)}
        catalog = sizes.pop("/jsi18n/")
        weights[code] = {"own": sum(sizes.values()), "catalog": catalog}
        assert any("/static/js/table." in u for u in sizes) and any("/static/css/table." in u for u in sizes), sizes
        context.close()
    print(weights)
    assert all(w["own"] < 100 * 1024 for w in weights.values()), weights
    assert all(w["catalog"] < 40 * 1024 for w in weights.values()), weights
