"""Let it ride (推注, house-rules.md "Let it ride"; static/js/house-ride.js) at a newcomer's practice table, in a real
browser at 360 x 740, in each language: the newcomer wins the first hand (a stacked deal: their 10 against the bank's
8), then, in the next hand, reads the ride's offer with its cap in the bet box, puts the whole ride in the box with its
button, confirms a stake above the room's largest stake, and reads the ride in the feed.

The practice room is `ten-half` with `push_cap` 5 and `max_bet` 10 (the base stake), opened through
services.practice_open with those overrides, so the bank auction (another rule, off here) plays no part. The words are
those of /work/brief/tr-ride.py (the catalogs carry them once the lead compiles them)."""


import pytest
from django.contrib.auth import get_user_model

from tests.e2e.conftest import ARTIFACTS, PHONE, phone_table, practice_here
from tests.games.conftest import act, seat_of, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RULES = {"push_cap": 5, "max_bet": 10}
# A roll of 2 makes the newcomer (position 1, the bank's left) first: their 10, the bots' 9 and 9 (they stand from 8),
# the bank's 8: the newcomer's 10 beats the bank's 8 (8½ for the comparison), and wins the base stake, 10.
FIRST = ["10S", "9H", "9D", "8C"]

WORDS = {  # language: (browser locale, the bet box's offer, its button, the feed's line for the ride)
    "en": ("en-US", "Let it ride: up to 20", "Ride 20", "You let it ride: 20."),
    "zh-hans": ("zh-CN", "推注：最多 20", "推注 20", "你推注 20。"),
    "it": ("it-IT", "Lascia correre: fino a 20", "Lascia correre 20", "Lasci correre: 20."),
    "es": ("es-ES", "Deja correr: hasta 20", "Deja correr 20", "Dejas correr: 20."),
}


@pytest.mark.parametrize("language", list(WORDS))
def test_a_newcomer_who_won_lets_it_ride_above_the_largest_stake(server, browser, monkeypatch, settings, language):
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    locale, offer, ride, told = WORDS[language]
    user = get_user_model().objects.create_user(f"ride-{language}", f"ride-{language}@example.com",
                                                "a-long-password-1", language=language)
    # Ten and a Half with let it ride on; every hand dealt here has the roll of 2, the first one the deck FIRST.
    room = practice_here(monkeypatch, user, "ten-half", FIRST, dice=[1, 1], overrides=RULES)
    assert room.rules["push_cap"] == 5 and room.rules["max_bet"] == 10 and not room.rules["bank_auction"]
    player, page = phone_table(browser, server, user, room, locale)
    assert page.evaluate("document.documentElement.lang") == language

    # The first hand: no ride yet; the newcomer confirms the base stake, stands on 10 and wins.
    player.wait_view("v.you && v.hand && v.phase === 'betting'")
    assert page.locator("#ride-note").count() == 0
    page.locator("#act-confirm:not([disabled])").click()
    page.locator("#act-stand:not([disabled])").click()
    player.wait_view("v.hand && v.hand.over")
    me = seat_of(room, user)
    win = next(r for r in state(room)["last_hand"]["results"] if r["bettor"] == me)
    assert (win["stake"], win["outcome"], win["paid"]) == (10, "win", 10)

    # The next hand: the ride's offer, 10 + 10, in the bet box; its button fills the box; Confirm stakes it.
    act(room, user, "start")
    player.wait_view(f"v.hand_no === 2 && v.phase === 'betting' && v.house.ride && v.house.ride['{me}'] === 20")
    note = page.locator("#ride-note")
    note.wait_for()
    assert offer in note.inner_text()
    assert page.locator("#act-ride").inner_text() == ride
    page.locator("#act-ride").click()
    assert page.locator("#bet-box").input_value() == "20"
    assert page.locator("#bet-why").is_hidden()  # above the room's largest stake (10), within the ride
    ARTIFACTS.mkdir(exist_ok=True)
    note.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"house-ride-{language}-360-offer.png"))
    page.locator("#act-confirm:not([disabled])").click()
    player.wait_view(f"v.hand && v.hand.bets['{me}'] && v.hand.bets['{me}'].confirmed")
    assert state(room)["hand"]["bets"][me] == {"amount": 20, "confirmed": True}
    page.locator("#feed li", has_text=told).wait_for()

    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.screenshot(path=str(ARTIFACTS / f"house-ride-{language}-360.png"))
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()


def test_in_zhejiang_a_rider_alone_gets_the_bet_box_and_chooses_a_stake_above_the_fixed_one(server, browser,
                                                                                              monkeypatch, settings):
    """Zhejiang's stakes are fixed (no bet box): the newcomer wins (10 against the bank's 9, while both bots bust, so
    the bank gains over the hand and keeps the bank), and in the next hand gets the bet box with the ride."""
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    user = get_user_model().objects.create_user("ride-zj", "ride-zj@example.com", "a-long-password-1", language="en")
    # Seat order from the bank's left: the newcomer 10, the bots 6 and 6 (each hits a 7: bust), the bank 9.
    room = practice_here(monkeypatch, user, "zhejiang-ten-half", ["10S", "6H", "6D", "9C", "7H", "7D"],
                         overrides={"push_cap": 5, "base_stake_rule": "fixed", "base_stake": 10})
    player, page = phone_table(browser, server, user, room, "en-US")

    player.wait_view("v.you && v.hand && v.phase === 'playing'")
    assert page.locator("#bet-box").count() == 0  # a fixed stake: nothing to choose
    page.locator("#act-stand:not([disabled])").click()
    player.wait_view("v.hand && v.hand.over")
    me = seat_of(room, user)
    win = next(r for r in state(room)["last_hand"]["results"] if r["bettor"] == me)
    assert (win["stake"], win["outcome"], win["paid"]) == (10, "win", 10)
    assert state(room)["banker"] == state(room)["last_hand"]["banker"]

    act(room, user, "start")
    player.wait_view("v.hand_no === 2 && v.phase === 'betting' && v.legal_actions.includes('bet')")
    assert state(room)["hand"]["bets"][me] == {"amount": 10, "confirmed": False}
    page.locator("#bet-box").wait_for()
    assert page.locator("#bet-box").input_value() == "10"
    assert "Let it ride: up to 20" in page.locator("#ride-note").inner_text()
    page.fill("#bet-box", "30")
    page.locator("#bet-why", has_text="Letting it ride, the stake is at most 20.").wait_for()
    assert page.locator("#act-confirm").is_disabled()
    page.locator("#act-ride").click()
    page.locator("#act-confirm:not([disabled])").click()
    player.wait_view(f"v.hand && v.hand.bets['{me}'].confirmed")
    assert state(room)["hand"]["bets"][me] == {"amount": 20, "confirmed": True}
    page.locator("#feed li", has_text="You let it ride: 20.").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "house-ride-zhejiang-360.png"))
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()
