"""Accessibility in a real browser: axe-core (axe-playwright-python, its default rules with the best practices) over
every page of the site at 360 and 1280 px, failing on a finding of any impact, with each page's outline checked (one
main landmark, one h1, no skipped heading level, labelled navigation, nothing outside a landmark); and a hand played
with the keyboard alone (Tab to reach a control, Enter or Space to press it)."""

import hashlib
import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model

from games import clubs, ledger_shares, services
from games.engine import PRESETS
from games.models import Hand, Room
from games.rules_codes import rules_code
from tests.e2e.blind import tab_to
from tests.e2e.conftest import PASSWORD, PHONE, log_in, play_out
from tests.e2e.test_distribution import seed_report
from tests.games.conftest import act
from tests.games.conftest import play_out as play_out_here

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1280, "height": 900}
STATS = {"status": "done", "progress": 1,
         "result": {"banker_edge": 0.05, "win": 0.4, "push": 0.1, "lose": 0.5, "hands": 20000}}
axe = Axe()

# The page's outline, as a list of what is wrong with it: the landmarks and headings a screen reader's user moves by.
OUTLINE = """() => {
  const wrong = [];
  const shown = (el) => el.checkVisibility();
  const say = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + el.textContent.trim().slice(0, 40) + '"';
  const mains = [...document.querySelectorAll('main, [role=main]')].filter(shown);
  if (mains.length !== 1) wrong.push(`${mains.length} main landmarks`);
  const level = (h) => Number(h.getAttribute('aria-level') || h.tagName.slice(1));
  const heads = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]')].filter(shown);
  const ones = heads.filter((h) => level(h) === 1);
  if (ones.length !== 1) wrong.push(`${ones.length} h1: ${ones.map(say).join(', ')}`);
  let before = 0;
  for (const h of heads) {
    if (level(h) > before + 1) wrong.push(`h${level(h)} after h${before}: ${say(h)}`);
    before = level(h);
  }
  for (const nav of document.querySelectorAll('nav, [role=navigation]'))
    if (shown(nav) && !nav.hasAttribute('aria-label') && !nav.hasAttribute('aria-labelledby')) wrong.push(`unlabelled ${say(nav)}`);
  const LANDMARK = 'body > header, body > footer, main, nav, aside, dialog, [role=banner], [role=contentinfo], [role=main], '
    + '[role=navigation], [role=complementary], [role=dialog], [role=alertdialog], '
    + 'section[aria-label], section[aria-labelledby], [role=region][aria-label], [role=region][aria-labelledby]';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const outside = new Set();
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const el = t.parentElement;
    if (!t.textContent.trim() || !el || el.closest('script, style, template') || !shown(el)) continue;
    if (!el.closest(LANDMARK)) outside.add(el);
  }
  for (const el of outside) wrong.push(`outside every landmark: ${say(el)}`);
  return wrong;
}"""


def violations(page) -> list[str]:
    """axe's findings on the page as it is now, at every impact level, one line each (rule, impact, where, why)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe.axe_script)
    results = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    lines = []
    for v in results["violations"]:
        for node in v["nodes"]:
            why = "; ".join(c["message"] for c in node["any"] + node["all"] + node["none"])
            lines.append(f"{v['id']} ({v['impact']}) at {' '.join(map(str, node['target']))}: {why}")
    return lines


class Scan:
    """axe and the outline over pages, at both widths; `found` holds every finding, by page."""

    def __init__(self):
        self.found: dict[str, list[str]] = {}

    def __call__(self, player, name: str, shot: str | None = None, unfold: bool = False) -> None:
        page = player.page
        if unfold:  # what the page folds away is read too
            page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        for width, size in (("360", PHONE), ("1280", WIDE)):
            page.set_viewport_size(size)
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            lines = violations(page) + [f"outline: {wrong}" for wrong in page.evaluate(OUTLINE)]
            if lines:
                self.found[f"{name} ({width} px)"] = lines
            if shot and width == "360":
                player.screenshot(f"a11y-{shot}-360")

    def failures(self) -> str:
        return "\n".join(f"{page}:\n  " + "\n  ".join(lines) for page, lines in self.found.items())


def make_user(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD, display_name=name.capitalize())


def start_and_open_bank(host, amount=400):
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    host.page.fill("#amount-bank", str(amount))
    host.click_enabled("#act-open_bank")


def test_every_page_passes_axe_at_every_impact_level_with_its_outline(server, players, settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the hands this process plays (the closed room) run their tasks here
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    monkeypatch.setattr("games.broadcast._send", lambda room_id, message: None)  # no browser watches those
    scan = Scan()
    users = {name: make_user(name) for name in ("alice", "bob", "chen")}

    # A closed room with one hand: its chain, hands, ledger and shared settle-up.
    closed = services.room_create(host=users["alice"], preset="ten-half", overrides={})
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=closed.pk, user=users[name], buy_in=500)
    act(closed, users["alice"], "start")
    act(closed, users["alice"], "open_bank", amount=300)
    act(closed, users["bob"], "bet", amount=20, seed=hashlib.sha256(b"bob").hexdigest())
    act(closed, users["chen"], "bet", amount=30)
    play_out_here(closed)
    services.room_close(room_id=closed.pk, by=users["alice"])
    shared = ledger_shares.ledger_share_create(room=Room.objects.get(pk=closed.pk), by=users["bob"])
    club = clubs.club_create(owner=users["alice"], name="Friday Night", description="Cards at Ana's.",
                             open_joining=True)
    clubs.club_join(club=club, user=users["bob"])

    # Visitors without a session.
    visitor = players(server, "visitor")
    seed_report()
    for path, name in (("/", "home"), ("/accounts/login/", "login"), ("/accounts/signup/", "signup"),
                       ("/offline/", "offline"), ("/verify/", "verify"), ("/verify/distribution/", "distribution")):
        visitor.goto(path)
        scan(visitor, f"{name}, no session", shot=f"{name}-no-session", unfold=True)
    visitor.goto("/accounts/login/")
    visitor.page.fill("input[name=login]", "alice")
    visitor.page.fill("input[name=password]", "not-her-password")
    visitor.page.locator("form[action*=login] [type=submit]").click()
    visitor.page.wait_for_selector(".errorlist")
    scan(visitor, "login, refused", shot="login-refused")
    for preset in PRESETS:
        visitor.goto(f"/rules/{preset}/")
        scan(visitor, f"rules of {preset}", shot=f"rules-{preset}", unfold=True)
    visitor.goto(f"/rules/code/{rules_code('ten-half-auction', PRESETS['ten-half-auction'].to_json())}/")
    scan(visitor, "a rules code", shot="rules-code", unfold=True)

    alice = players(server, "alice", viewport=WIDE)
    bob = players(server, "bob", viewport=PHONE)
    log_in(alice.context, server, users["alice"])
    log_in(bob.context, server, users["bob"])
    alice.goto("/")
    scan(alice, "home")
    # The create form's statistics come from a simulation that holds the test server for seconds per rule set: the
    # page gets one answer here, the same for every game, and shows it as it would the server's. The route stays
    # while a page with the form is open (the join's refusal is the lobby again).
    page = alice.page
    page.route("**/rules/stats/**", lambda route: route.fulfill(json=STATS))
    stats = page.locator("#rules-stats").get_by_text("Banker's edge")
    alice.goto("/lobby/")
    stats.wait_for()
    scan(alice, "lobby, its statistics shown", shot="lobby")
    for preset in PRESETS:
        page.evaluate("document.querySelector('#rules-stats').replaceChildren()")  # shown again for these rules
        page.select_option("#create-form select[name=preset]", preset)
        knobs = page.locator(f"#create-form fieldset.knobs[data-preset='{preset}']")
        for box in knobs.locator("input[type=checkbox]:not(:checked)").all():
            if box.is_visible():
                box.check()  # a house rule on shows its settings
        stats.wait_for()
        scan(alice, f"lobby, creating {preset} with its statistics")
    alice.goto("/join/?code=0000")
    scan(alice, "join with a code, refused")
    for path, name in (("/wallet/", "wallet"), ("/profile/", "profile"), ("/clubs/", "clubs"),
                       (f"/clubs/{club.pk}/", "a club")):
        alice.goto(path)
        if name == "wallet":
            page.unroute_all(behavior="wait")
        scan(alice, name, shot=name.replace(" ", "-"))

    # The live table, a hand of alice (the bank) and bob.
    live = services.room_create(host=users["alice"], preset="ten-half", overrides={})
    visitor.goto(f"/join/{live.invite_token}/")
    scan(visitor, "invite")
    services.seat_take(room_id=live.pk, user=users["alice"], buy_in=1000)
    services.seat_take(room_id=live.pk, user=users["bob"], buy_in=500)
    for player in (alice, bob):
        player.goto(f"/r/{live.code}/")
        player.wait_connected()
    scan(alice, "table, before the first hand")
    # Someone not seated: the seats to take, the side bettors' box and the seat's dialog.
    chen = players(server, "chen", viewport=PHONE)
    log_in(chen.context, server, users["chen"])
    chen.goto(f"/r/{live.code}/")
    chen.wait_connected()
    chen.page.wait_for_selector("#sit-side")
    scan(chen, "table, not seated", shot="table-not-seated")
    chen.page.locator("button[data-sit]").first.click()
    chen.page.wait_for_selector("#sit-dialog[open]")
    scan(chen, "table, the seat's dialog", shot="table-sit-dialog")
    chen.context.close()
    # The menu's tabs, with no results above them (and no clock running while the tabs are read).
    bob.page.click("#menu-button")
    for tab in ("rules", "hands", "chat", "fair", "ledger"):
        bob.page.click(f"#tab-{tab}")
        bob.page.wait_for_selector(f"#menu [role=tabpanel][data-tab={tab}]:not([hidden])")
        if tab == "ledger":
            bob.page.wait_for_selector("#ledger-people")
        scan(bob, f"table, menu: {tab}", shot=f"table-menu-{tab}")
    bob.page.click("#menu-close")
    start_and_open_bank(alice)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    scan(bob, "table, betting", shot="table-betting")
    scan(alice, "table, the bank waits for stakes")
    bob.click_enabled("#actions .chips button:nth-child(1)")
    bob.click_enabled("#act-confirm")
    for player in (alice, bob):
        player.wait_view("v.phase === 'playing'")
    scan(bob, "table, playing", shot="table-playing")
    scan(alice, "table, playing (the bank)")
    # The screen-reader mode (static/js/blind.js), turned on and off with V.
    bob.page.evaluate("document.activeElement && document.activeElement.blur()")
    bob.page.keyboard.press("v")
    bob.page.wait_for_selector("#blind")
    scan(bob, "table, playing, in the screen-reader mode", shot="table-screen-reader")
    bob.page.keyboard.press("v")
    bob.page.wait_for_selector("#blind", state="detached")
    play_out([alice, bob])
    for player in (alice, bob):
        player.page.wait_for_selector("#results-table")
    scan(bob, "table, results", shot="table-results")
    scan(alice, "table, results (the bank)")

    # The pages of the hands played and of the closed room.
    hand = Hand.objects.get(room=live, number=1)
    bob.goto(f"/hands/{hand.key}/")
    bob.page.wait_for_selector("#replay:not([hidden])")
    bob.page.wait_for_selector("#verify-deckview .deck-order", state="attached")  # the deal checked
    scan(bob, "hand record and its replayer", shot="hand", unfold=True)
    bob.page.click("#replay-next")
    bob.page.click("#replay-copy")
    bob.page.wait_for_selector("#replay-url:not([hidden])")
    scan(bob, "hand record, the replayer stepped")
    for path, name in (("/records/", "records"), (f"/r/{live.code}/ledger/?room={live.pk}", "an open room's ledger"),
                       (f"/r/{closed.code}/", "closed room"),
                       (f"/r/{closed.code}/chain/?room={closed.pk}", "chain"),
                       (f"/r/{closed.code}/hands/?room={closed.pk}", "a closed room's hands"),
                       (f"/settle/{shared.token}/", "shared settle-up")):
        bob.goto(path)
        if name == "chain":
            bob.page.wait_for_selector("#chain-status[data-ok='true']")
        scan(bob, name, shot=re.sub(r"\W+", "-", name))
    assert not scan.found, scan.failures()


def press(player, selector: str, key: str, until: str) -> None:
    """Reach `selector` with Tab and press `key` on it, again if the table redrew it first, until the view
    condition `until` holds."""
    for _ in range(5):
        tab_to(player, selector)
        player.page.keyboard.press(key)
        try:
            player.wait_view(until, timeout=3000)
            return
        except Exception:  # redrawn under the focus before the key landed: reach it again
            continue
    raise AssertionError(f"{key} on {selector} never led to {until}")


def test_a_hand_played_with_the_keyboard_alone(server, players):
    alice = players(server, "alice").signup()
    bob = players(server, "bob").signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    # bob: Tab and Enter or Space only, from taking a seat to standing on his turn.
    tab_to(bob, "button[data-sit]")
    bob.page.keyboard.press("Enter")
    assert bob.page.evaluate("document.activeElement.id") == "sit-buy-in"  # the dialog takes the focus
    bob.page.keyboard.press("Control+A")
    bob.page.keyboard.type("500")
    tab_to(bob, "#sit-confirm")
    bob.page.keyboard.press("Enter")
    bob.wait_view("!!v.you")
    start_and_open_bank(alice)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    tab_to(bob, "#actions .chips button")
    bob.page.keyboard.press("Space")  # a chip: the bet grows, not yet sent
    bob.page.wait_for_function("document.querySelector('#bet-box').value === '20'")  # the base stake + 10
    press(bob, "#act-confirm", "Enter", "v.phase === 'playing'")
    over = "v.hand && v.hand.over"
    for _ in range(40):
        if alice.page.evaluate("(() => { const v = window.halfpoint.state.view; return !!(v.hand && v.hand.over); })()"):
            break
        if bob.my_turn():
            press(bob, "#act-stand", "Enter", f"({over}) || !v.hand.turn || v.hand.turn.seat !== v.you")
        elif alice.my_turn():
            alice.click_enabled("#act-stand")
            alice.page.wait_for_function("!window.halfpoint.state.busy")
        else:
            alice.page.wait_for_timeout(100)
    bob.wait_view(over)
    bob.page.wait_for_selector("#results-table")
    assert bob.page.locator("#results-table tr[data-outcome]").count() == 1
    hand = Hand.objects.get(room__code=code, number=1)
    assert hand.ended_at is not None
    # Every control bob used showed where the focus was (a visible focus ring, not `outline: none`).
    tab_to(bob, "#menu-button")
    ring = bob.page.evaluate("(() => { const s = getComputedStyle(document.activeElement);"
                             " return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0"
                             " || s.boxShadow !== 'none'; })()")
    assert ring, "the focused control shows no focus ring"
