"""Numbers and dates in each player's language, in Chromium (static/js/format.js, accounts/templatetags/formats.py):
a player with 12345 beans reads them grouped their language's way on the wallet page and at the table, types the
amount into the buy-in as plain digits, reads a hand's time on the records page in their own time zone and language
(the server's UTC text stays as its title), and the CSV export keeps 12345. Screenshots of the wallet and the table
at 360 and 1280 px, in Chinese and Italian, go to test-artifacts/formats/."""

import datetime

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Hand, HandSeat
from tests.e2e.conftest import ARTIFACTS, Player, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "formats"
# The spec: 12345 as each language groups it (CLDR; Intl.NumberFormat and the server's pages agree).
GROUPED = {"en": "12,345", "zh-hans": "12,345", "it": "12.345", "es": "12.345"}
# Where each player's browser is, and 2026-03-04 05:06:07 UTC there: the medium date and the short time of CLDR.
ZONES = {"en": "America/New_York", "zh-hans": "Asia/Shanghai", "it": "Europe/Rome", "es": "Europe/Madrid"}
ENDED = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.UTC)
LOCAL = {"en": "Mar 4, 2026, 12:06 AM", "zh-hans": "2026年3月4日 13:06", "it": "4 mar 2026, 06:06",
         "es": "4 mar 2026, 6:06"}
UTC_TEXT = {"en": "03/04/2026 5:06 a.m. UTC", "zh-hans": "2026年3月4日 05:06 UTC", "it": "04/03/2026 05:06 UTC",
            "es": "04/03/2026 05:06 UTC"}
PHONE, DESKTOP = {"width": 360, "height": 740}, {"width": 1280, "height": 800}


def spaced(text: str) -> str:
    """Spaces collapsed: ICU puts a narrow no-break space before AM, Django a no-break one in some formats."""
    return " ".join(text.split())


def player_in_zone(browser, base: str, user, code: str) -> Player:
    """A logged-in player whose saved language is `code` (as tests/e2e/test_languages.py switches it), in a browser
    set to that language and to a time zone where it is spoken."""
    context = browser.new_context(viewport=DESKTOP, bypass_csp=True, locale={"zh-hans": "zh-CN"}.get(code, code),
                                  timezone_id=ZONES[code])
    player = Player(context, base, user.username, [])
    log_in(context, base, user)
    return player


def shoot(player: Player, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("360", PHONE), ("1280", DESKTOP)):
        player.page.set_viewport_size(size)
        player.page.screenshot(path=str(SHOTS / f"{name}-{label}.png"), full_page=True)
    player.page.set_viewport_size(DESKTOP)


def test_amounts_and_times_read_in_each_players_language(browser, server, settings):
    settings.WELCOME_BEANS = 12_345  # the welcome gift, given in this process when the user is made
    for code, grouped in GROUPED.items():
        user = get_user_model().objects.create_user(f"f-{code}", f"f-{code}@example.com", "a-long-password-1",
                                                    language=code)
        room = services.room_create(host=user, preset="ten-half", buy_in_min=100, buy_in_max=20_000)
        hand = Hand.objects.create(room=room, number=1, rules=room.rules, commitment="0" * 64, ended_at=ENDED)
        HandSeat.objects.create(hand=hand, user=user, seat_id="s1", role="challenger", delta=12_345)
        player = player_in_zone(browser, server, user, code)
        page = player.page

        player.goto("/wallet/")
        assert page.locator("#balance-beans td").all_inner_texts() == [grouped, "0"], code
        page.wait_for_selector(".ledger time[data-shown]")  # the history's times, in this browser's zone

        player.goto("/records/")
        when = page.locator(f"#records tr[data-hand='{hand.pk}'] time[data-shown]")
        assert spaced(when.inner_text()) == LOCAL[code], code
        assert spaced(when.get_attribute("title")) == UTC_TEXT[code], code
        assert page.locator(f"#records tr[data-hand='{hand.pk}'] td.num").inner_text().startswith(f"+{grouped}")
        csv = page.evaluate("fetch('/records.csv').then((r) => r.text())")
        assert ",12345," in csv and grouped not in csv, code

        # At the table: the buy-in is typed as digits, the stack and the feed read grouped.
        player.goto(room.get_absolute_url())
        player.wait_connected()
        assert page.locator("#sit-buy-in").get_attribute("max") == "20000"
        player.open_sit()
        page.fill("#sit-buy-in", "12345")
        page.click("#sit-confirm")
        player.wait_view("v.you && v.seats.some((x) => x.id === v.you && x.stack === 12345)")
        stack = page.locator(".seat.me .stack")
        stack.filter(has_text=grouped).wait_for()
        assert "12345" not in stack.inner_text()
        page.locator("#feed li.seat_joined", has_text=grouped).first.wait_for()
        if code in ("zh-hans", "it"):
            shoot(player, f"table-{code}")

        player.goto("/wallet/")
        assert page.locator("#balance-beans td").all_inner_texts() == ["0", grouped], code  # all of it on the table
        if code in ("zh-hans", "it"):
            shoot(player, f"wallet-{code}")
        assert not player.console_errors, (code, player.console_errors)
        player.context.close()
