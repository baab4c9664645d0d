"""The bank by turns (`bank_turn_hands`, docs/rules.md) in a real browser: the lobby's create form starts Ten and a
Half at 5 hands, a room made with 2 shows every player the hands left in the banker's turn beside the bank, the feed
tells when the turn is over and the bank is offered on, and the room's rules tab explains it. Screenshots at 360
and 1280 px go to test-artifacts/."""

import time

import pytest
from django.contrib.auth import get_user_model

from games.models import Room
from tests.e2e.test_feed import wait_feed, wake_here  # noqa: F401 (a fixture: the table's moves from this process)
from tests.games.conftest import act, state, table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def shots(player, name: str) -> None:
    for width, height in ((360, 740), (1280, 800)):
        player.page.set_viewport_size({"width": width, "height": height})
        player.page.wait_for_timeout(150)  # the layout settles
        player.screenshot(f"{name}-{width}")


def play_hand(room, users) -> None:
    """bob stakes the base stake and everyone stands (the deal may wait a moment for the pages' seeds)."""
    act(room, users["bob"], "bet", amount=10)
    for _ in range(200):
        s = state(room)
        if s["phase"] == "betting":  # the deal waits for the open pages' seeds (docs/fairness.md)
            time.sleep(0.05)
            continue
        if s["phase"] != "playing":
            return
        user = next(u for u in users.values() if u.pk == _seat_user(room, s["hand"]["turn"][0]))
        act(room, user, "stand")
    raise AssertionError("the hand did not end")


def _seat_user(room, seat_id: str) -> int:
    return next(int(k) for k, v in table(room).meta["users"].items() if v == seat_id)


def bank_turn(player) -> tuple[str, str]:
    el = player.page.locator("#bank-turn")
    return el.get_attribute("data-left"), el.inner_text()


def test_every_player_sees_the_hands_left_in_the_bankers_turn_and_the_feed_tells_its_end(server, players, wake_here):  # noqa: F811
    alice = players(server, "alice").signup()
    bob = players(server, "bob", viewport=PHONE).signup()
    lobby = alice.goto("/lobby/")
    lobby.select_option("#create-form select[name=preset]", "ten-half")
    assert lobby.input_value("#create-form [name='ten-half-bank_turn_hands']") == "5"
    shots(alice, "bank-turns-lobby")
    code = alice.create_room("ten-half", base_stake=10, bank_turn_hands=2)
    room = Room.objects.get(code=code)
    assert room.rules["bank_turn_hands"] == 2
    bob.join(code)
    alice.sit(0, buy_in=1000)
    bob.sit(2, buy_in=500)
    alice.click_enabled("#host-start")
    alice.wait_view("v.legal_actions.includes('open_bank')")
    alice.page.fill("#amount-bank", "400")
    alice.click_enabled("#act-open_bank")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "bob"])}

    for player in (alice, bob):
        player.wait_view("v.phase === 'betting' && v.bank_turn_left === 2")
        assert bank_turn(player) == ("2", " · 2 hands left in this turn")
    play_hand(room, users)
    for player in (alice, bob):
        player.wait_view("v.phase === 'between_hands' && v.bank_turn_left === 1")
        assert bank_turn(player) == ("1", " · 1 hand left in this turn")
    shots(bob, "bank-turns-table")

    act(room, users["alice"], "start")  # the host deals the next hand: alice's last of the turn
    bob.wait_view("v.phase === 'betting' && v.hand_no === 2 && v.bank_turn_left === 1")
    play_hand(room, users)
    wait_feed(bob, "alice's turn at the bank is over after 2 hands: the bank passes on.")
    bob.wait_view("v.pending && v.pending.kind === 'open' && v.pending.seat === v.you && v.banker === null")
    assert bob.page.locator("#bank-turn").count() == 0  # no banker, no turn
    shots(bob, "bank-turns-offered")

    bob.page.click("#menu-button")
    section = bob.page.locator("#rules-panel .bank-turns")
    assert "With these rules the bank passes after 2 hands." in section.inner_text()
    assert "Example, with turns of 3 hands" in section.inner_text()
    section.scroll_into_view_if_needed()
    shots(bob, "bank-turns-rules-tab")
    alice.goto("/rules/zhejiang-ten-half/")
    assert "These rules play without it" in alice.page.locator(".bank-turns").inner_text()
    shots(alice, "bank-turns-rules-page")
