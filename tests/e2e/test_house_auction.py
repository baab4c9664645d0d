"""The bank auction (抢庄, house-rules.md "The bank auction"; static/js/house-auction.js) at a newcomer's practice table,
in a real browser at 360 x 740, in each language: the practice table of the preset `ten-half-auction` starts with the
auction (the bots have bid already, each after its own first card), the newcomer reads the auction explained in the
feed, sees the bid row (no bid, ×1 .. ×4) with its countdown and the bots' bids on their seats, bids ×2 and wins the
bank, and reads the bid in the feed and the bank's multiplier by its seat.

The practice room is opened through services.practice_open in this process with a stacked first deal: the first cards go
to the bidders in seat order, the bots' are 2, 3 and 4 (they make no bid, bots.auction_bid), the newcomer's a 10. The
words are those of /work/brief/tr-auction.py (the catalogs carry them once the lead compiles them)."""


import pytest
from django.contrib.auth import get_user_model

from tests.e2e.conftest import ARTIFACTS, PHONE, phone_table, practice_here
from tests.games.conftest import seat_of, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FIRST = ["2S", "10H", "3D", "4C"]  # seat order: the bank's seat 0 (a bot), the newcomer at 1, then two bots

WORDS = {  # language: (browser locale, the feed's explanation, the row's label, the ×2 button, the feed's line for it)
    "en": ("en-US", "The bank is up for auction", "Bid for the bank:", "×2", "You bid ×2 for the bank."),
    "zh-hans": ("zh-CN", "开始抢庄", "抢庄：", "抢2倍", "你抢2倍。"),
    "it": ("it-IT", "Il banco va all'asta", "Offerta per il banco:", "×2", "Offri ×2 per il banco."),
    "es": ("es-ES", "La banca sale a subasta", "Puja por la banca:", "×2", "Pujas ×2 por la banca."),
}


@pytest.mark.parametrize("language", list(WORDS))
def test_a_newcomer_bids_for_the_bank_at_a_practice_table(server, browser, monkeypatch, settings, language):
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    locale, explained, label, two, told = WORDS[language]
    user = get_user_model().objects.create_user(f"auction-{language}", f"auction-{language}@example.com",
                                                "a-long-password-1", language=language)
    room = practice_here(monkeypatch, user, "ten-half-auction", FIRST, dice=[1, 1])
    me = seat_of(room, user)
    s = state(room)
    assert s["phase"] == "auction" and s["deadline_for"] == [me] and set(s["hand"]["auction"]["bids"].values()) == {0}

    player, page = phone_table(browser, server, user, room, locale)
    assert page.evaluate("document.documentElement.lang") == language
    player.wait_view("v.phase === 'auction' && v.legal_actions.includes('bid')")

    page.locator("#feed li", has_text=explained).first.wait_for()
    page.locator("#act-bid-2:not([disabled])").wait_for()
    assert page.locator("#auction-label").inner_text() == label
    assert page.locator("#act-bid-2").inner_text() == two
    assert page.locator("#act-bid-0").count() == 1 and page.locator("#act-bid-4").count() == 1
    assert page.locator("#act-bid-5").count() == 0
    assert page.locator(".house-auction-bid").count() == 4  # each bidder's seat: the bots' bids, the newcomer's wait
    assert page.locator(".house-auction .countdown").count() == 1
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"house-auction-{language}-360-bids.png"))

    page.locator("#act-bid-2").click()
    player.wait_view(f"v.banker === '{me}' && v.house.auction && v.house.auction.mult === 2")
    assert state(room)["bank_mult"] == 2
    page.locator("#feed li", has_text=told).wait_for()
    page.locator("#auction-mult").wait_for()
    page.screenshot(path=str(ARTIFACTS / f"house-auction-{language}-360-won.png"))
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()
