"""House rules to share in real browsers (games/rules_codes.py): a host who reads English opens "Share these rules" in
the table's rules tab on a 360 x 740 phone, and its QR code and link appear; a reader whose language is Chinese opens
the link and reads the same changes worded in Chinese, creates a room with them, and that room's rules are the
original's; a reader in Italian reads them in Italian. The code's page and a refused code pass axe and the outline
check at 360 and 1280 px. Screenshots go to test-artifacts/."""

import re

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine import rules_from
from games.models import Room
from games.rules_codes import rules_code
from tests.e2e.conftest import PHONE, Player, log_in
from tests.e2e.test_a11y import Scan
from tests.games.test_rules_code_pages import CHANGES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1280, "height": 900}
# The changes of CHANGES as each language words them (the knob labels of the catalogs), and the create button.
WORDS = {
    "zh-hans": {"base_stake": "底注", "create": "用这套规则创建房间"},
    "it": {"base_stake": "Puntata base", "create": "Crea una stanza con queste regole"},
}


def person(browser, server, name: str, language: str, viewport=PHONE, csp: bool = False) -> Player:
    """A logged-in player whose account and browser speak `language` (under the site's CSP with `csp`: then no
    wait_for_function, which evaluates its text)."""
    user = get_user_model().objects.create_user(name, f"{name}@example.com", "a-long-password-1",
                                                display_name=name.capitalize(), language=language)
    context = browser.new_context(viewport=viewport, locale={"zh-hans": "zh-CN", "it": "it-IT"}.get(language, "en-US"),
                                  bypass_csp=not csp)
    player = Player(context, server, name, [])
    log_in(context, server, user)
    player.user = user
    return player


def changes_on(page) -> dict[str, str]:
    """The code page's list of changes: knob -> its line as the page words it."""
    rows = page.locator("#rules-code-changes li")
    return {rows.nth(i).get_attribute("data-knob"): rows.nth(i).inner_text() for i in range(rows.count())}


def test_a_shared_rules_code_opens_the_same_rules_in_another_language(browser, server, monkeypatch):
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # no socket here to tell
    alice = person(browser, server, "alice", "en")
    room = services.room_create(host=alice.user, preset="ten-half", overrides=CHANGES)
    original = Room.objects.get(pk=room.pk).rules

    # The host shares from the table's rules tab.
    page = alice.goto(f"/r/{room.code}/")
    alice.wait_connected()
    page.click("#menu-button")
    page.click("#tab-rules")
    assert not page.locator("#rules-share-qr").is_visible()
    page.locator("#rules-share summary").click()
    page.wait_for_function("document.querySelector('#rules-share-qr').complete"
                           " && document.querySelector('#rules-share-qr').naturalWidth > 0")
    assert page.locator("#rules-share-qr").bounding_box()["width"] == 180
    assert page.locator("#rules-share-button").is_visible()
    link = page.locator("#rules-share-link").get_attribute("href")
    assert re.fullmatch(rf"{re.escape(server)}/rules/code/h1\.[\w-]+/", link), link
    page.locator("#rules-share").scroll_into_view_if_needed()
    alice.screenshot("rules-code-table-share-360")
    page.set_viewport_size(WIDE)
    page.locator("#rules-share").scroll_into_view_if_needed()
    assert page.locator("#rules-share-qr").is_visible()
    alice.screenshot("rules-code-table-share-1280")

    # The host's own page of the code, in English.
    page = alice.goto(link.removeprefix(server))
    english = changes_on(page)
    assert english["base_stake"].startswith("Base stake: 20")

    # A reader in Chinese: the same changes in Chinese, and a room made of them.
    bob = person(browser, server, "bob", "zh-hans")
    page = bob.goto(link.removeprefix(server))
    assert page.evaluate("document.documentElement.lang") == "zh-hans"
    chinese = changes_on(page)
    assert list(chinese) == list(english)
    assert chinese["base_stake"].startswith(WORDS["zh-hans"]["base_stake"]) and "20" in chinese["base_stake"]
    assert all(chinese[k] != english[k] for k in ("base_stake", "bank_auction", "push_cap"))
    assert page.locator("#rules-code-create-title").inner_text() == WORDS["zh-hans"]["create"]
    page.wait_for_function("document.querySelector('#rules-code-qr').naturalWidth > 0")
    bob.screenshot("rules-code-page-zh-360")
    page.check("#rules-code-form input[name=kind][value=humans]")
    page.check("#rules-code-form input[name=currency][value=points]")
    page.click("#rules-code-submit")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    bob.wait_connected()
    made = Room.objects.exclude(pk=room.pk).get()
    assert made.host_id == bob.user.pk and made.currency == "points"
    assert made.rules == original
    assert page.evaluate("window.halfpoint.state.view.rules.base_stake") == 20

    # A reader in Italian, on a wide screen, under the site's CSP: nothing on the page is refused.
    chen = person(browser, server, "chen", "it", viewport=WIDE, csp=True)
    page = chen.goto(link.removeprefix(server))
    page.wait_for_load_state("networkidle")
    italian = changes_on(page)
    assert list(italian) == list(english)
    assert italian["base_stake"].startswith(WORDS["it"]["base_stake"])
    assert page.locator("#rules-code-submit").inner_text() == WORDS["it"]["create"]
    assert page.locator("#rules-code-qr").evaluate("img => img.complete && img.naturalWidth") > 0
    assert chen.console_errors == []
    chen.screenshot("rules-code-page-it-1280")
    assert Room.objects.count() == 2


def test_the_codes_page_and_a_refused_code_pass_axe_at_both_widths(browser, server, players):
    code = rules_code("ten-half", rules_from("ten-half", CHANGES).to_json())
    scan = Scan()
    visitor = players(server, "visitor", viewport=PHONE)
    visitor.goto(f"/rules/code/{code}/")
    scan(visitor, "a rules code, no session", unfold=True)
    for name, size in (("360", PHONE), ("1280", WIDE)):
        visitor.page.set_viewport_size(size)
        visitor.screenshot(f"rules-code-page-visitor-{name}")
    visitor.goto(f"/rules/code/{code[:-4]}/")
    assert visitor.page.locator("#rules-code-refusal").get_attribute("data-refusal") == "code_truncated"
    scan(visitor, "a refused rules code")
    visitor.screenshot("rules-code-refused-1280")
    dara = person(browser, server, "dara", "en")
    dara.goto(f"/rules/code/{code}/")
    scan(dara, "a rules code, logged in")
    dara.goto("/rules/ten-half/")
    dara.page.locator("#rules-share summary").click()
    dara.page.wait_for_function("document.querySelector('#rules-share-qr').naturalWidth > 0")
    scan(dara, "a game's rules, shared")
    assert not scan.found, scan.failures()
