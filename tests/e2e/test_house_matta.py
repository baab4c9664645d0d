"""The matta at a newcomer's practice table (house-rules.md, "The matta"; static/js/house-matta.js), in a real browser at
360 x 740, in each language: the newcomer is dealt the king of coins alone (the matta is ½), hits a figure (the matta
takes 7: 7½), and reads the value under the hand, on the card's badge and, once the hand is face up, in the feed; then
the hand's record page shows it beside the hand's total, in its list of events and at the replay's last step.

The words are those of /work/brief/tr-matta.py (the catalogs carry them once the lead compiles them)."""


import pytest
from django.contrib.auth import get_user_model

from games.engine.cards import SPANISH_40
from games.models import Hand
from tests.e2e.conftest import ARTIFACTS, PHONE, phone_table, practice_here

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The newcomer sits first from the bank and is dealt first: the king of coins; every other card of the first rounds is
# a picture card, so the newcomer's hit is a figure whatever the number of bots.
PICTURES = [r + s for r in "JNK" for s in "OCEB" if r + s != "KO"]
STACK = ["KO"] + PICTURES + [c for c in SPANISH_40 if c != "KO" and c not in PICTURES]

WORDS = {  # language: (browser locale, "matta = %s", the feed's line for the newcomer's matta at 7, the end of the
    # hand record's line for it, which names the player: "%(name)s's matta (the king of coins) counts as %(value)s.")
    "en": ("en-US", "matta = %s", "Your matta (the king of coins) counts as 7.", "'s matta (the king of coins) counts as 7."),
    "zh-hans": ("zh-CN", "百搭 = %s", "你的百搭（金币国王）算作 7 点。", " 的百搭（金币国王）算作 7 点。"),
    "it": ("it-IT", "matta = %s", "La tua matta (il re di denari) vale 7.", " (il re di denari) vale 7."),
    "es": ("es-ES", "comodín = %s", "Tu comodín (el rey de oros) vale 7.", " (el rey de oros) vale 7."),
}
MINE = "#felt .seat.me"


@pytest.mark.parametrize("language", list(WORDS))
def test_the_mattas_value_shows_on_the_card_under_the_hand_and_in_the_feed(server, browser, monkeypatch, language):
    locale, info, told, recorded = WORDS[language]
    user = get_user_model().objects.create_user(f"matta-{language}", f"matta-{language}@example.com",
                                                "a-long-password-1", language=language)
    room = practice_here(monkeypatch, user, "seven-half-matta", STACK, every_hand=True)
    player, page = phone_table(browser, server, user, room, locale)
    assert page.evaluate("document.documentElement.lang") == language

    # The king of coins alone: ½, under the hand (the owner sees the total) and on the card.
    player.wait_view("v.you && v.hand")
    page.locator("#act-confirm:not([disabled])").click()
    page.locator("#act-hit:not([disabled])").wait_for()
    mine = player.view()["hand"]["hands"][player.view()["you"]][0]
    assert mine["cards"][0]["card"] == "KO" and mine["matta"] == 0.5, mine
    page.locator(f"{MINE} .hand-info", has_text=info % "½").wait_for()
    assert page.locator(f'{MINE} .pcard[data-card="KO"] .matta-badge').inner_text() == "½"

    # A figure: the matta takes 7, the hand is 7½ and its turn ends; the feed tells the value once it is face up.
    page.locator("#act-hit:not([disabled])").click()
    player.wait_view("v.hand && v.hand.over")
    page.locator(f"{MINE} .hand-info", has_text=info % "7").wait_for()
    badge = page.locator(f'{MINE} .pcard[data-card="KO"] .matta-badge')
    assert badge.inner_text() == "7"
    assert info % "7" in page.locator(f'{MINE} .pcard[data-card="KO"]').get_attribute("aria-label")
    page.locator("#feed li", has_text=told).wait_for()

    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.locator("#felt").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#felt").screenshot(path=str(ARTIFACTS / f"house-matta-{language}-360-felt.png"))

    # The hand's record page: the value beside the hand's total, the feed's line, and the replay's last step.
    hand = Hand.objects.get(room=room, number=1)
    page = player.goto(hand.get_absolute_url())
    you = player_seat(hand, user)
    page.locator(f'table.hand-seats tr[data-seat="{you}"]', has_text=info % "7").wait_for()
    page.locator("#events li", has_text=recorded).wait_for()
    page.locator("#replay:not([hidden]) #replay-seats").wait_for()
    page.locator("#replay-last").click()
    page.locator(f'#replay-seats .seat[data-seat="{you}"] .hand-info', has_text=info % "7").wait_for()
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()


def player_seat(hand, user) -> str:
    return hand.players.get(user=user).seat_id
