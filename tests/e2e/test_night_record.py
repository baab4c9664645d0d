"""A room closed during betting, in real browsers at 360 x 740 (docs/ledger.md, docs/protocol.md "The closed state"):
the host closes the room before anyone has staked on the hand; no bean moves and the ledger does not change; every
page at the table turns closed without a reload (no invite link, no notifications offer, no side seat to take, the
night's links instead); the table menu's Ledger tab and the ledger page show the log of buy-ins, top-ups and
departures and the hand-by-hand matrix, the voided hand marked. Screenshots at 360 and 1280 px in test-artifacts/."""

import pytest
from django.contrib.auth import get_user_model

from games import ledger, services
from games.models import Hand, HandSeat
from tests.e2e.conftest import PASSWORD, phone_table
from tests.games.conftest import act, play_out, seat_of, state
from wallets.models import Transaction
from wallets.selectors import balances_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def wealth(users) -> dict[str, int]:
    return {u.username: sum(balances_for(u)["beans"].values()) for u in users}


def closed_drawn(page) -> None:
    page.wait_for_selector("#room-closed")
    assert page.locator(".invite").is_hidden() and page.locator("#copy-invite").is_hidden()
    assert page.locator("#sit-side").count() == 0 or page.locator("#sit-side").is_hidden()
    assert page.locator("#side-seats").is_hidden()
    assert page.locator("#push-offer").count() == 0 or page.locator("#push-offer").is_hidden()
    assert page.locator("#host-close").count() == 0
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


def test_a_close_during_betting_voids_the_hand_turns_the_pages_closed_and_the_ledger_tells_the_night(
        server, browser, here):
    User = get_user_model()
    alice, bob, dara = (User.objects.create_user(n, f"{n}@example.com", PASSWORD, display_name=n.capitalize())
                        for n in ("alice", "bob", "dara"))
    room = services.room_create(host=alice, preset="ten-half")
    services.seat_take(room_id=room.pk, user=alice, buy_in=1000)
    services.seat_take(room_id=room.pk, user=bob, buy_in=500)
    act(room, alice, "start")  # hand 1, played with a stake
    if state(room)["pending"]:
        act(room, alice, "open_bank", amount=500)
    act(room, bob, "bet", amount=20)
    play_out(room)
    act(room, bob, "top_up", amount=100)
    assert seat_of(room, bob) and state(room)["phase"] == "between_hands"

    host, host_page = phone_table(browser, server, alice, room, "en-US")
    guest, guest_page = phone_table(browser, server, bob, room, "en-US")
    watcher, watcher_page = phone_table(browser, server, dara, room, "en-US")
    watcher_page.wait_for_selector("#sit-side")  # before the close: a side seat to take, the invite link
    assert watcher_page.locator(".invite").is_visible()

    host.click_enabled("#host-start")  # hand 2: betting opens, nobody stakes
    for p in (host, guest, watcher):
        p.wait_view("v.phase === 'betting' && v.hand_no === 2")
    guest_page.locator("button.chip").first.click()  # chips put forward, never confirmed
    before, settled = wealth((alice, bob, dara)), Transaction.objects.filter(kind=Transaction.Kind.SETTLE).count()
    nets = [(p.name, p.net, p.hands) for p in ledger.room_ledger(room).people]

    host_page.once("dialog", lambda d: d.accept())
    host_page.click("#host-close")
    for page in (host_page, guest_page, watcher_page):
        closed_drawn(page)
    assert "This room is closed." in watcher_page.locator("#room-closed").inner_text()
    assert watcher_page.locator("#room-closed-voided").inner_text() == \
        "Hand 2 was voided: nobody had staked on it, and no chip moved."
    assert watcher_page.locator("#results").is_hidden()
    watcher.screenshot("night-record-closed-360")
    watcher_page.set_viewport_size({"width": 1280, "height": 900})
    closed_drawn(watcher_page)
    watcher.screenshot("night-record-closed-1280")

    assert wealth((alice, bob, dara)) == before  # nobody was charged for the hand nobody bet on
    assert Transaction.objects.filter(kind=Transaction.Kind.SETTLE).count() == settled
    assert [(p.name, p.net, p.hands) for p in ledger.room_ledger(room).people] == nets
    voided = Hand.objects.get(room=room, number=2)
    assert voided.summary["voided"] and not HandSeat.objects.filter(hand=voided).exists()

    # The table menu's Ledger tab: the log and the matrix.
    guest_page.click("#menu-button")
    guest_page.click("#tab-ledger")
    guest_page.wait_for_selector("#ledger-log li")
    log = guest_page.locator("#ledger-log li").evaluate_all(
        "(lis) => lis.map((li) => [...li.childNodes].filter((n) => n.nodeName !== 'TIME').map((n) => n.textContent)"
        ".join('').trim())")
    assert log[:3] == ["Alice bought in 1,000", "Bob bought in 500", "Bob topped up 100"]
    assert guest_page.locator("#ledger-log li time").count() == len(log)
    assert sum("left with" in t for t in log) == 2
    rows = guest_page.locator("#ledger-matrix tbody tr")
    assert rows.count() == 2 and rows.nth(1).get_attribute("data-voided") is not None
    hand1 = {s.user_id: s.delta for s in HandSeat.objects.filter(hand__room=room, hand__number=1)}
    for user in (alice, bob):
        cell = rows.nth(0).locator(f"td[data-user='{user.pk}']").inner_text()
        assert cell.replace("−", "-").replace(",", "").lstrip("+") == str(hand1[user.pk])
    guest_page.locator("#ledger-matrix").scroll_into_view_if_needed()
    guest.screenshot("night-record-ledger-tab-360")

    # The ledger page, from the closed table's link.
    guest_page.click("#menu-close")
    guest_page.click("#room-closed-settle")
    guest_page.wait_for_url(f"**/r/{room.code}/ledger/?room={room.pk}")
    assert guest_page.locator("#ledger-log li").count() == len(log)
    assert guest_page.locator("#ledger-matrix tbody tr[data-voided]").count() == 1
    assert guest_page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    guest.screenshot("night-record-ledger-page-360")
    guest_page.set_viewport_size({"width": 1280, "height": 900})
    guest.screenshot("night-record-ledger-page-1280")

    # The voided hand's page checks its record in the browser: it verifies, the void included.
    guest_page.set_viewport_size({"width": 360, "height": 740})
    guest.goto(voided.get_absolute_url())
    guest_page.wait_for_selector("#verify-status[data-ok]", timeout=20_000)
    assert guest_page.locator("#verify-status").get_attribute("data-ok") == "true"
    assert guest_page.locator("#verify-void").get_attribute("data-ok") == "true"
    assert guest_page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    guest.screenshot("night-record-voided-hand-360")

    # The night under "past nights", its ledger, and the transfers the card shows, read in the card's alt and JSON.
    guest.goto("/nights/")
    guest_page.click(f"#nights li[data-room='{room.pk}'] a")
    guest_page.wait_for_url(f"**/r/{room.code}/ledger/?room={room.pk}")
    transfers = ledger.room_ledger(room).settle_up()
    assert transfers  # hand 1 moved beans: somebody pays somebody
    alt = guest_page.locator("img.settle-card").get_attribute("alt")
    for t in transfers:
        assert f"{t.payer.name} → {t.payee.name} {t.amount:,}" in alt, alt
    book = guest_page.evaluate(f"fetch('/r/{room.code}/ledger.json?room={room.pk}').then((r) => r.json())")
    assert book["card"] == alt
    assert book["settle"] == [{"from": t.payer.user_id, "to": t.payee.user_id, "amount": t.amount} for t in transfers]
    errors = [e for p in (host, guest, watcher) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
