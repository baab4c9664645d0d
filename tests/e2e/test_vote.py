"""Votes at the table in real browsers on a 360 x 740 phone (static/js/vote.js): the host has left; a player calls a vote
to end the room from the table menu, the other says yes on the banner, the room is to end after the hand; the second
player has the away host's timers skipped, so the hand does not wait for the banker; the hand ends, the room closes
and the settle-up page shows the night's nets, every bean back in the wallets. Screenshots of the banner at 360 and
1280 px go to test-artifacts/."""

import time

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from games import ledger, services
from games.models import Room, RoomVote, Table
from tests.e2e.conftest import PHONE, at_table
from wallets.models import Account

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def wallets(users) -> dict[int, int]:
    return {a.user_id: a.balance for a in Account.objects.filter(user__in=users, currency="beans",
                                                                  kind=Account.Kind.AVAILABLE)}


def host_gone_since(room, seat_id: str, seconds: float) -> None:
    """The host's last socket closed `seconds` ago (the server wrote when it closed: it is moved back)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with transaction.atomic():
            table = Table.objects.select_for_update().get(pk=room.pk)
            if seat_id in table.meta.get("absent", {}):
                table.meta["absent"][seat_id] = time.time() - seconds
                Table.objects.filter(pk=room.pk).update(meta=table.meta)
                return
        time.sleep(0.1)
    raise AssertionError("the host's page did not leave")


def test_two_players_end_the_room_of_a_host_who_left_and_the_settle_up_balances(server, browser, monkeypatch):
    # Seats taken here, before the pages open (as in test_clock_ask.py): this process's broadcasts reach no page.
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)
    User = get_user_model()
    users = [User.objects.create_user(n, f"{n}@example.com", "a-long-password-1", display_name=n.capitalize())
             for n in ("alice", "bob", "chen")]
    alice, bob_user, chen_user = users
    before = wallets(users)
    room = services.room_create(host=alice, preset="ten-half")
    for u in users:
        services.seat_take(room_id=room.pk, user=u, buy_in=500)
    host = at_table(browser, server, alice, room)
    bob = at_table(browser, server, bob_user, room)
    chen = at_table(browser, server, chen_user, room)
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    host.page.fill("#amount-bank", "300")
    host.click_enabled("#act-open_bank")
    for p in (bob, chen):
        p.wait_view("v.phase === 'betting'")
    host_seat = host.view()["you"]
    host.context.close()  # the host leaves, six minutes ago
    host_gone_since(room, host_seat, 360)

    # bob calls the vote from the table menu; chen's page asks her.
    bob.page.click("#menu-button")
    bob.page.locator("#vote-close").scroll_into_view_if_needed()
    bob.screenshot("vote-menu-360")
    bob.page.click("#vote-close")
    # The caller's menu closes once the vote is open (it covers a phone's screen), with the banner in view.
    bob.page.wait_for_selector("#menu", state="hidden")
    bob.page.wait_for_selector("#vote-banner")
    mine = bob.page.locator("#vote-banner").bounding_box()
    assert mine["y"] >= 0 and mine["y"] + mine["height"] <= PHONE["height"]
    banner = chen.page.locator("#vote-banner")
    banner.wait_for()
    assert banner.locator("p").first.inner_text() == "Bob calls a vote to end the room."
    assert banner.get_attribute("role") == "alert"
    assert chen.page.locator("#vote-tally").inner_text() == "1 yes, 0 no, of 2"
    assert chen.page.locator("#vote-left").inner_text().endswith("seconds left")
    assert bob.page.locator("#vote-banner #vote-yes").count() == 0  # the caller said yes by calling
    chen.screenshot("vote-banner-360")
    box = banner.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    chen.page.set_viewport_size({"width": 1280, "height": 900})
    chen.screenshot("vote-banner-1280")
    chen.page.set_viewport_size(PHONE)
    chen.page.click("#vote-yes")
    for p in (bob, chen):
        p.page.wait_for_function(
            "document.querySelector('#vote-banner p').textContent === 'Passed: the room ends after this hand.'")
    assert Room.objects.get(pk=room.pk).is_open  # the hand goes on

    # chen has the away host's timers skipped: bob agrees.
    chen.page.click("#menu-button")
    chen.page.click("#vote-skip")
    chen.page.click(f"#vote-skip-seats [data-seat='{host_seat}']")
    chen.page.wait_for_selector("#menu", state="hidden")
    bob.page.wait_for_selector("#vote-banner #vote-yes")
    assert bob.page.locator("#vote-banner p").first.inner_text() == \
        "Chen asks to skip Alice's timers for the rest of this hand."
    bob.page.click("#vote-yes")
    bob.page.wait_for_function("document.querySelector('#vote-banner p').textContent.startsWith('Passed: Alice')")
    assert RoomVote.objects.filter(room=room, outcome="passed").count() == 2

    # bob and chen play their hands; the host's decisions come at once; the room closes after the hand.
    for p in (bob, chen):
        p.click_enabled("#act-confirm")
    deadline = time.monotonic() + 30
    while Room.objects.get(pk=room.pk).is_open:
        assert time.monotonic() < deadline, "the room did not close"
        for p in (bob, chen):
            if p.my_turn() and p.page.locator("#act-stand:not([disabled])").count():
                p.page.click("#act-stand")
        time.sleep(0.1)
    bob.page.wait_for_selector("#vote-settle")  # the passed vote's banner leads to the settle-up
    bob.page.wait_for_function("!document.querySelector('#conn-banner').hidden")
    bob.screenshot("vote-closed-360")
    bob.page.click("#vote-settle")
    bob.page.wait_for_selector("#settle")
    bob.screenshot("vote-settle-360")
    assert bob.page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")

    # The room's log of its votes, on the same page.
    log = bob.page.locator("#vote-log li")
    assert [(li.get_attribute("data-kind"), li.get_attribute("data-result")) for li in log.all()] == [
        ("close", "passed"), ("skip", "passed")]
    assert "Bob called a vote to end the room · 2 yes, 0 no, of 2" in log.first.inner_text()
    assert "Chen called a vote to skip Alice's timers" in log.nth(1).inner_text()
    closed = Room.objects.get(pk=room.pk)
    book = ledger.room_ledger(closed)
    assert book.balanced and all(p.on_table == 0 for p in book.people) and any(p.net for p in book.people)
    shown = {int(r.get_attribute("data-user")): int(r.locator("[data-net]").get_attribute("data-net"))
             for r in bob.page.locator("#settle-nets tbody tr").all()}
    assert shown == {p.user_id: p.net for p in book.people}
    # Beans conserved: each wallet moved by its net, nothing left on a hold.
    assert wallets(users) == {u: before[u] + shown[u] for u in before}
    assert sum(a.balance for a in Account.objects.filter(user__in=users, kind=Account.Kind.HOLD)) == 0
    errors = [e for p in (bob, chen) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors


def test_a_host_who_allows_votes_any_time_votes_too_and_the_room_ends_at_once_between_hands(server, browser, monkeypatch):
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # as above
    User = get_user_model()
    alice, bob_user = (User.objects.create_user(n, f"{n}@example.com", "a-long-password-1", display_name=n.capitalize())
                       for n in ("alice", "bob"))
    room = services.room_create(host=alice, preset="ten-half")
    for u in (alice, bob_user):
        services.seat_take(room_id=room.pk, user=u, buy_in=500)
    host = at_table(browser, server, alice, room)
    bob = at_table(browser, server, bob_user, room)

    # The host is here: bob's call is refused, in words.
    bob.page.click("#menu-button")
    assert bob.page.locator("#vote-anytime").count() == 0  # the host's setting only
    bob.page.click("#vote-close")
    bob.page.wait_for_function("document.querySelector('#toast').textContent.includes('The host is here')")
    # A refused call leaves the menu open, its message below the menu's tabs rather than over them.
    assert bob.page.locator("#menu").is_visible()
    tabs = bob.page.locator("#menu [role=tablist]").bounding_box()
    assert bob.page.locator("#toast").bounding_box()["y"] >= tabs["y"] + tabs["height"]
    assert RoomVote.objects.count() == 0

    # The host allows votes at any time from the menu.
    host.page.click("#menu-button")
    assert host.page.locator("#vote-close").count() == 0  # the host closes the room instead
    assert not host.page.is_checked("#vote-anytime")
    host.page.check("#vote-anytime")
    deadline = time.monotonic() + 10
    while not Room.objects.get(pk=room.pk).vote_anytime:
        assert time.monotonic() < deadline, "the setting did not reach the server"
        time.sleep(0.1)
    host.screenshot("vote-host-setting-360")
    host.page.click("#menu-close")

    bob.page.click("#vote-close")
    bob.page.wait_for_selector("#menu", state="hidden")
    host.page.wait_for_selector("#vote-banner #vote-yes")
    assert host.page.locator("#vote-tally").inner_text() == "1 yes, 0 no, of 2"  # the host votes too
    host.page.click("#vote-yes")
    for p in (host, bob):
        p.page.wait_for_function(
            "document.querySelector('#vote-banner p').textContent === 'Passed: the room ends now.'")
        p.page.wait_for_selector("#conn-banner:not([hidden])")
    closed = Room.objects.get(pk=room.pk)
    assert closed.status == Room.Status.CLOSED
    book = ledger.room_ledger(closed)
    assert book.balanced and all(p.net == 0 and p.on_table == 0 for p in book.people)  # no hand was played
    host.page.click("#vote-settle")
    host.page.wait_for_selector("#settle #transfers-none")
    errors = [e for p in (host, bob) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
