"""A closed room's chain in a real browser: three hands played through the services, the room closed by its host, then
a player opens a hand's record, follows its link to the room's chain, and the page checks every link and record there
and says the room is closed, at 360 and 1280 px (no sideways scroll). Screenshots: test-artifacts/closed-room-*.png."""

import hashlib

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Hand
from tests.e2e.conftest import PASSWORD, log_in
from tests.games.conftest import act, play_out, seat_of, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"360": {"width": 360, "height": 740}, "1280": {"width": 1280, "height": 800}}


def make_user(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD, display_name=name.capitalize())


@pytest.fixture
def night(settings, monkeypatch):
    """alice hosts and banks, bob stakes 20 with his own seed, chen 30; three hands, everyone stands; alice closes."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    monkeypatch.setattr("games.broadcast._send", lambda room_id, message: None)  # no browser is at the table
    users = {name: make_user(name) for name in ("alice", "bob", "chen")}
    room = services.room_create(host=users["alice"], preset="ten-half", overrides={})
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=users[name], buy_in=500)
    for n in range(1, 4):
        act(room, users["alice"], "start")
        if state(room)["pending"]:
            act(room, users["alice"], "open_bank", amount=300)
        act(room, users["bob"], "bet", amount=20, seed=hashlib.sha256(f"bob {n}".encode()).hexdigest())
        act(room, users["chen"], "bet", amount=30)
        assert seat_of(room, users["chen"])
        play_out(room)
    services.room_close(room_id=room.pk, by=users["alice"])
    room.refresh_from_db()
    assert not room.is_open and Hand.objects.filter(room=room, ended_at__isnull=False).count() == 3
    return users, room


@pytest.mark.parametrize("width", VIEWPORTS)
def test_a_closed_rooms_chain_is_checked_in_the_browser_and_says_the_room_is_closed(server, players, night, width):
    users, room = night
    bob = players(server, "bob", viewport=VIEWPORTS[width])
    log_in(bob.context, bob.base, users["bob"])
    page = bob.goto(Hand.objects.get(room=room, number=2).get_absolute_url())
    assert page.locator("#room-closed").is_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    bob.screenshot(f"closed-room-hand-{width}")
    page.click("#hand-chain")
    page.wait_for_url(f"**/r/{room.code}/chain/?room={room.pk}")
    page.wait_for_selector("#chain-status[data-ok='true']")
    assert "This room is closed." in page.locator("#room-closed").inner_text()
    assert page.locator("#chain-table .chain-check[data-ok='true']").count() == 3
    assert page.locator("#chain-table .chain-check").all_inner_texts() == ["✓ record", "✓ record and link",
                                                                           "✓ record and link"]
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    assert page.evaluate("""() => { const r = document.querySelector('#room-closed').getBoundingClientRect();
        return r.left >= 0 && r.right <= innerWidth; }""")
    bob.screenshot(f"closed-room-chain-{width}")
    page.click("#room-closed-settle")
    page.wait_for_url(f"**/r/{room.code}/ledger/?room={room.pk}")
    page.click("#ledger-hands")
    page.wait_for_selector("#room-closed")
    assert page.locator("#room-hands .hand-list li").count() == 3
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    bob.screenshot(f"closed-room-hands-{width}")
    assert not bob.console_errors, bob.console_errors
