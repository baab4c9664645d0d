"""An invite opened on a phone (360 x 740) by a friend without a session, in Chinese, Italian and Spanish: the page
says who invites to what, the HEADER's sign-up button (not only the link in the text) brings the new player to the
room's seats with a word on their welcome beans, and an existing player's log-in does the same. Screenshots go to
test-artifacts/newcomer/."""

import re

import pytest
from django.contrib.auth import get_user_model

from games import services
from tests.e2e.conftest import ARTIFACTS, PASSWORD, Player

pytestmark = pytest.mark.e2e

SHOTS = ARTIFACTS / "newcomer"
PHONE = {"width": 360, "height": 740}
LANGS = ["zh-hans", "it", "es"]


def visitor(browser, server: str, name: str, lang: str) -> Player:
    context = browser.new_context(viewport=PHONE, locale={"zh-hans": "zh-CN"}.get(lang, lang), bypass_csp=True)
    return Player(context, server, name, [])


def hosted_room():
    host = get_user_model().objects.create_user("alice", "alice@example.com", PASSWORD, display_name="Alice Wu")
    return services.room_create(host=host, preset="seven-half", currency="beans")


def fits(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a {PHONE['width']} px screen"


def read_the_invite(player: Player, room, lang: str, path: str) -> None:
    page = player.goto(path)
    page.locator("#invite-offer").wait_for()
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.locator("#invite-host").inner_text() == "Alice Wu"
    assert page.locator("#invite-code").inner_text() == room.code
    assert page.locator("#invite-game").inner_text().strip()
    assert page.locator("#invite-stake").inner_text().startswith("10")
    assert "Alice Wu" in page.locator("h1").inner_text()
    fits(page)


@pytest.mark.parametrize("lang", LANGS)
def test_the_headers_sign_up_brings_the_invited_friend_to_the_rooms_seats(browser, server, lang):
    SHOTS.mkdir(parents=True, exist_ok=True)
    room = hosted_room()
    friend = visitor(browser, server, f"friend{lang.replace('-', '')}", lang)
    read_the_invite(friend, room, lang, f"/join/{room.invite_token}/")
    page = friend.page
    page.screenshot(path=str(SHOTS / f"invite-{lang}-offer.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(SHOTS / f"invite-{lang}-offer-1280.png"))
    page.set_viewport_size(PHONE)

    page.click("header #header-signup")  # the big button at the top, not the link in the text
    page.wait_for_url(re.compile(r"/accounts/signup/"))
    assert room.code in page.locator("#invite-reminder").inner_text()
    fits(page)
    page.screenshot(path=str(SHOTS / f"invite-{lang}-signup.png"), full_page=True)
    page.fill("input[name=username]", friend.name)
    page.fill("input[name=email]", f"{friend.name}@example.com")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("form[action*=signup] [type=submit]").click()

    page.wait_for_url(re.compile(rf"/r/{room.code}/$"))
    friend.wait_connected()
    page.locator("button[data-sit]").first.wait_for()  # the seat offer
    welcome = page.locator(".messages li.welcome")
    assert welcome.count() == 1 and "10" in welcome.inner_text()
    fits(page)
    page.screenshot(path=str(SHOTS / f"invite-{lang}-room-welcome.png"))
    page.reload()
    friend.wait_connected()
    assert page.locator(".messages li.welcome").count() == 0  # said once
    friend.sit(None, buy_in=500)
    friend.context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_headers_log_in_brings_an_existing_player_to_the_rooms_seats(browser, server, lang):
    room = hosted_room()
    friend = visitor(browser, server, "dara", lang).signup()  # an account of some time ago
    friend.page.click("header form[action*=logout] button")
    friend.page.wait_for_selector("header #header-login")
    read_the_invite(friend, room, lang, room.get_absolute_url())
    page = friend.page
    page.click("header #header-login")
    page.wait_for_url(re.compile(r"/accounts/login/"))
    assert room.code in page.locator("#invite-reminder").inner_text()
    page.screenshot(path=str(SHOTS / f"invite-{lang}-login.png"), full_page=True)
    page.fill("input[name=login]", "dara")
    page.fill("input[name=password]", PASSWORD)
    page.locator("form[action*=login] [type=submit]").click()
    page.wait_for_url(re.compile(rf"/r/{room.code}/$"))
    friend.wait_connected()
    page.locator("button[data-sit]").first.wait_for()
    assert page.locator(".messages li.welcome").count() == 0  # an existing account: no welcome
    friend.context.close()
