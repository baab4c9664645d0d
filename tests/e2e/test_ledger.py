"""The room's ledger in a real browser (docs/ledger.md): the table menu's Ledger tab lists the people at the table and
follows each hand by itself; once the host closes the room, the tab and the ledger page show the settle-up, and the
card is a PNG. Screenshots at 360 and 1280 pixels go to test-artifacts/."""

import re

import pytest
from django.contrib.auth import get_user_model

from games import ledger
from games.models import Room
from tests.e2e.conftest import ARTIFACTS, play_out

pytestmark = pytest.mark.e2e

PHONE = {"width": 360, "height": 740}
WIDE = {"width": 1280, "height": 800}


def figure(player, user_id: int, name: str) -> str | None:
    """The raw value of one figure of one person's line in the player's Ledger tab."""
    node = player.page.locator(f"#ledger-people > li[data-user='{user_id}'] dd[data-figure='{name}']")
    return node.get_attribute("data-value") if node.count() else None


def open_ledger_tab(player):
    player.page.click("#menu-button")
    player.page.click("#tab-ledger")
    player.page.wait_for_selector("#ledger-people > li")


def test_the_ledger_tab_follows_the_hands_and_the_closed_room_settles_up(server, players):
    mei = players(server, "mei", viewport=WIDE).signup()
    get_user_model().objects.filter(username="mei").update(display_name="梅花")  # a Chinese name on every view
    me = get_user_model().objects.get(username="mei")
    page = mei.goto("/lobby/")
    page.click("button[data-practice='ten-half']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.wait_connected()
    room = Room.objects.get(host=me, status=Room.Status.OPEN)
    mei.wait_view("v.you && v.seats.filter(s => s.bot).length === 3 && v.phase === 'betting'")

    # A friend watching on a phone opens the menu's Ledger tab: everyone at the table, no hand finished yet.
    ren = players(server, "ren", viewport=PHONE).signup()
    ren.join(room.code)
    open_ledger_tab(ren)
    assert ren.page.locator("#ledger-people > li").count() == 4  # mei and three bots
    assert ren.page.locator("#ledger-people > li .badge", has_text="bot").count() == 3
    assert figure(ren, me.pk, "hands") == "0"
    assert figure(ren, me.pk, "bought_in") == str(ledger.room_ledger(room).people[0].bought_in)
    loads = ren.page.locator("#ledger-panel").get_attribute("data-loads")

    # mei plays her hand out; the watcher's open tab follows by itself.
    mei.click_enabled("#act-confirm")
    mei.wait_view("v.phase === 'playing' || (v.hand && v.hand.over)")
    play_out([mei])
    ren.page.wait_for_function(
        f"document.querySelector(\"#ledger-people > li[data-user='{me.pk}'] dd[data-figure='hands']\")"
        "?.dataset.value === '1'")
    assert ren.page.locator("#ledger-panel").get_attribute("data-loads") != loads
    book = {p.user_id: p for p in ledger.room_ledger(room).people}
    assert book[me.pk].hands == 1
    for p in book.values():
        shown = ren.page.locator(f"#ledger-people > li[data-user='{p.user_id}'] .ledger-net").get_attribute("data-net")
        assert int(shown) == p.net
    assert sum(p.net for p in book.values()) == 0
    ren.screenshot("ledger-tab-360")
    open_ledger_tab(mei)
    mei.screenshot("ledger-tab-1280")

    # The host closes the room: the open tab shows the settle-up.
    page.once("dialog", lambda d: d.accept())
    page.dispatch_event("#host-close", "click")  # the open menu covers the host's controls on this screen
    mei.page.wait_for_selector("#ledger-settle")
    ren.page.wait_for_selector("#ledger-settle")
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED
    transfers = ledger.room_ledger(room).settle_up()
    assert mei.page.locator("#ledger-settle .transfers li").count() == len(transfers)
    mei.screenshot("ledger-tab-settle-1280")
    ren.screenshot("ledger-tab-settle-360")
    ren.page.reload()  # the closed table's address now leads to its settle-up, with a line that says why
    assert ren.page.locator("#settle").count() == 1 and ren.page.locator("ul.messages li").count() == 1
    ren.screenshot("ledger-reload-closed-360")

    # The ledger page of the closed room, on both screens, and its card.
    url = mei.page.locator("#ledger-panel .ledger-links a").first.get_attribute("href")
    for player, width in ((mei, 1280), (ren, 360)):
        player.goto(url)
        assert player.page.locator("#settle").count() == 1
        assert player.page.locator("#ledger tbody tr").count() == len(book)
        player.screenshot(f"ledger-page-settle-{width}")
    assert mei.page.locator("#share-make").count() == 1 and ren.page.locator("#share-make").count() == 0
    mei.page.click("#share-make")  # a link for the chat: anyone who has it sees the settle-up, logged in or not
    link = mei.page.locator("#share-links code").first.inner_text()
    guest = players(server, "guest", viewport=PHONE)
    guest.page.goto(link)
    assert guest.page.locator("#settle .transfers li").count() == len(transfers)
    image = guest.page.locator("meta[property='og:image']").get_attribute("content")
    assert image == link.rstrip("/") + ".png"
    guest.screenshot("ledger-shared-360")
    card = mei.page.request.get(server + f"/r/{room.code}/settle.png?room={room.pk}")
    assert card.status == 200 and card.headers["content-type"] == "image/png"
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "ledger-settle-card.png").write_bytes(card.body())
    chinese = mei.page.request.get(server + f"/r/{room.code}/settle.png?room={room.pk}",
                                   headers={"Accept-Language": "zh-hans"})
    (ARTIFACTS / "ledger-settle-card-zh.png").write_bytes(chinese.body())
    assert not [e for e in mei.console_errors + ren.console_errors if "navigator.vibrate" not in e]
