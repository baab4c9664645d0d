"""Asking the host for a longer clock in real browsers (static/js/clock-ask.js): a player asks from the table menu, the
host's page shows the notice (role alert) with +10 s, +20 s, +30 s and Not now, the host grants +20 s, the asker reads
the answer, and the next hand's betting runs on the longer clock while the hand under way kept its own. Screenshots
of the host's notice on a 360 x 740 phone and at 1280 px go to test-artifacts/."""

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Table
from tests.e2e.conftest import PHONE, Player, at_table, play_out

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LEFT = "(window.halfpoint.state.view.deadline - (Date.now() / 1000 + window.halfpoint.state.skew))"


def betting_clock(room) -> float:
    """The seconds the current hand's betting was given: its deadline less the moment the hand was dealt (the
    server's clock on both sides; the page's estimate of the server's time can be a second out)."""
    table = Table.objects.select_related("hand").get(pk=room.pk)
    return (table.deadline - table.hand.started_at).total_seconds()


def deal(host: Player, *others: Player) -> None:
    """The host starts the table and opens a bank of 500 from the page, once every page is at the table: the hand's
    betting clock runs from then, not while the pages load."""
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    host.page.fill("#amount-bank", "500")
    host.click_enabled("#act-open_bank")
    for p in (host, *others):
        p.wait_view("v.phase === 'betting'")


@pytest.mark.parametrize("host_viewport", [PHONE, {"width": 1280, "height": 900}], ids=["phone", "desktop"])
def test_a_player_asks_from_the_menu_the_host_grants_20_s_and_the_next_hand_runs_on_the_longer_clock(
        server, browser, host_viewport, monkeypatch):
    # The seats are taken here, before the pages open: they learn them from their snapshots. This process's broadcasts
    # would reach no socket of the server's (another process) and fail beside Playwright's event loop.
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)
    User = get_user_model()
    alice = User.objects.create_user("alice", "alice@example.com", "a-long-password-1", display_name="Alice")
    bob = User.objects.create_user("bob", "bob@example.com", "a-long-password-1", display_name="Bob")
    room = services.room_create(host=alice, preset="ten-half")
    services.seat_take(room_id=room.pk, user=alice, buy_in=1000)
    services.seat_take(room_id=room.pk, user=bob, buy_in=500)
    host = at_table(browser, server, alice, room, host_viewport)
    asker = at_table(browser, server, bob, room, host_viewport)
    deal(host, asker)
    for p in (host, asker):
        assert p.page.evaluate("window.halfpoint.state.view.rules.bet_seconds") == 15
    assert 14 < betting_clock(room) <= 15.5

    # The asker asks from the menu's settings.
    asker.page.click("#menu-button")
    asker.page.locator("#clock-ask").scroll_into_view_if_needed()
    asker.screenshot(f"clock-ask-menu-{host_viewport['width']}")
    asker.page.click("#clock-ask")
    asker.page.wait_for_selector("#toast:not([hidden])")
    assert asker.page.locator("#toast").inner_text() == "You asked the host for a longer clock."
    assert asker.page.locator("#clock-notice").count() == 0  # the notice is the host's alone

    notice = host.page.locator("#clock-notice")
    notice.wait_for()
    assert notice.get_attribute("role") == "alert"
    assert notice.locator("p").inner_text() == "Bob asks for a longer clock"
    assert notice.locator("button").all_inner_texts() == ["+10 s", "+20 s", "+30 s", "Not now"]
    assert notice.locator("[data-grant='20']").get_attribute("aria-label") == "20 seconds more on every clock"
    host.screenshot(f"clock-ask-host-notice-{host_viewport['width']}")
    box = notice.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= host_viewport["width"]  # on the screen, nothing cut off
    for b in notice.locator("button").all():
        assert b.bounding_box()["x"] + b.bounding_box()["width"] <= host_viewport["width"]

    notice.locator("[data-grant='20']").click()
    notice.wait_for(state="detached")
    asker.page.wait_for_function("document.querySelector('#toast').textContent.includes('20 seconds more')")
    assert asker.page.locator("#toast").inner_text() == \
        "The host gave every clock 20 seconds more, from the next hand."
    # The hand under way keeps its clock.
    assert asker.page.evaluate("window.halfpoint.state.view.rules.bet_seconds") == 15

    # The hand is played out; the host deals the next one, whose betting runs on 35 seconds.
    asker.page.click("#menu-close")
    asker.click_enabled("#act-confirm")
    play_out([host, asker])
    hand = asker.page.evaluate("window.halfpoint.state.view.hand_no")
    host.click_enabled("#host-start")
    asker.wait_view(f"v.hand_no > {hand} && v.phase === 'betting' && !!v.deadline")
    assert asker.page.evaluate("window.halfpoint.state.view.rules.bet_seconds") == 35
    assert 34 < betting_clock(room) <= 35.5
    assert asker.page.evaluate(LEFT) > 20  # the page counts down from the longer clock
    # Chromium's refusal of the turn cue's vibration before a tap (static/js/cues.js) is no error of the page's.
    errors = [e for p in (host, asker) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors


def test_in_screen_reader_mode_k_asks_a_reloaded_host_still_sees_it_and_not_now_is_heard(server, browser, monkeypatch):
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # as above
    User = get_user_model()
    alice = User.objects.create_user("alice", "alice@example.com", "a-long-password-1", display_name="Alice")
    noor = User.objects.create_user("noor", "noor@example.com", "a-long-password-1", display_name="Noor",
                                    screen_reader=True)
    room = services.room_create(host=alice, preset="ten-half")
    services.seat_take(room_id=room.pk, user=alice, buy_in=1000)
    services.seat_take(room_id=room.pk, user=noor, buy_in=500)
    host = at_table(browser, server, alice, room, PHONE)
    asker = at_table(browser, server, noor, room, PHONE)
    deal(host, asker)
    answers = "window.halfpoint.blind.answers"
    asker.page.wait_for_selector("#blind-command")

    asker.page.focus("#blind-command")
    asker.page.keyboard.press("k")
    asker.page.wait_for_function(f"{answers}.length > 0")
    assert asker.page.evaluate(f"{answers}[{answers}.length - 1]") == "You asked the host for a longer clock."
    host.page.locator("#clock-notice").wait_for()

    # A host who reloads (a new connection) is sent the ask still waiting.
    host.page.reload()
    host.wait_connected()
    notice = host.page.locator("#clock-notice")
    notice.wait_for()
    assert notice.locator("p").inner_text() == "Noor asks for a longer clock"
    notice.locator("#clock-dismiss").click()
    notice.wait_for(state="detached")
    asker.page.wait_for_function("document.querySelector('#toast').textContent.includes('keeps the clock')")
    assert asker.page.locator("#toast").get_attribute("role") == "alert"
    assert asker.page.locator("#toast").inner_text() == "The host keeps the clock as it is for now."

    # Asked again within two minutes: the refusal in the page's words, and nothing reaches the host.
    asker.page.focus("#blind-command")
    asker.page.keyboard.press("k")
    asker.page.wait_for_function("document.querySelector('#toast').textContent.includes('two minutes')")
    assert asker.page.locator("#toast").inner_text() == "You asked less than two minutes ago: the host has your ask."
    assert host.page.locator("#clock-notice").count() == 0
    assert asker.page.evaluate("window.halfpoint.state.view.rules.bet_seconds") == 15
    errors = [e for p in (host, asker) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
