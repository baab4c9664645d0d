"""Away seats in a real browser (docs/rules.md, "Away"): the host sits a player out between hands from the player's
seat box and the player sits back in with one click on their own; a player who closes the table's tab plays the hand
under way by default actions, is shown away to everyone from the next hand, and is dealt in again from the hand after
they sit back in. Screenshots at 360 and 1280 px go to test-artifacts/."""

import pytest

from games import services
from games.models import Room
from tests.e2e import test_feed as feed_tests
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.test_feed import seat_named, wait_feed
from tests.games.conftest import act, expire, make_player, seat_of, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

wake_here = feed_tests.wake_here  # the table's timers, applied from this process (a fixture)

ME_AWAY = "v.seats.find(s => s.id === v.you).away"


def away_badge(player, seat: str):
    return player.page.locator(f".seat[data-seat='{seat}'] .badge", has_text="away")


def shots(player, name: str) -> None:
    for width, height in ((360, 740), (1280, 800)):
        player.page.set_viewport_size({"width": width, "height": height})
        player.page.wait_for_timeout(100)  # the layout settles
        player.screenshot(f"{name}-{width}")


def play_out(room, alice, chen, bob_seat: str, clock) -> None:
    """The hand's turns: bob's run out on the clock, chen (no browser) stands, alice stands in her page."""
    for _ in range(12):
        s = state(room)
        if s["phase"] != "playing":
            return
        turn = s["hand"]["turn"][0]
        if turn == bob_seat:
            assert expire(room, clock) == "timeout"
        elif turn == seat_of(room, chen):
            act(room, chen, "stand")
        else:
            alice.wait_view("v.phase === 'playing' && v.hand.turn && v.hand.turn.seat === v.you")
            alice.click_enabled("#act-stand")
            alice.page.wait_for_function("!window.halfpoint.state.busy")
    raise AssertionError("the hand did not end")


def test_a_seat_away_is_shown_to_everyone_and_sits_back_in_with_one_click(server, players, wake_here):
    alice = players(server, "alice").signup()
    bob = players(server, "bob", viewport={"width": 360, "height": 740}).signup()
    code = alice.create_room("ten-half", base_stake=10)
    bob.join(code)
    alice.sit(0, buy_in=1000)
    bob.sit(2, buy_in=500)
    room = Room.objects.get(code=code)
    chen = make_player("chen")
    services.seat_take(room_id=room.pk, user=chen, buy_in=500)  # a third player, without a browser
    alice.wait_view("v.seats.length === 3")
    bob_seat = seat_named(bob, "bob")

    # Between hands the host sits bob out from his seat box; bob sits back in with one click on his own.
    alice.click_enabled(f"[data-sit-out='{bob_seat}']")
    bob.wait_view(ME_AWAY)
    away_badge(alice, bob_seat).wait_for()
    wait_feed(alice, "The host sits bob out until they are back.")
    bob.page.wait_for_selector("#sit-back-in")
    assert bob.page.locator("#status").inner_text().startswith("You sit out")
    shots(bob, "away-sit-back-in")
    bob.page.click("#sit-back-in")
    bob.wait_view("!" + ME_AWAY)
    assert bob.page.locator("#sit-back-in").count() == 0
    alice.page.wait_for_function(f"!document.querySelector(\".seat[data-seat='{bob_seat}'].away\")")

    # Hand 1: bob bets nothing yet and closes his only tab. The hand is played for him by the timers.
    alice.click_enabled("#host-start")
    alice.wait_view("v.legal_actions.includes('open_bank')")
    alice.page.fill("#amount-bank", "400")
    alice.click_enabled("#act-open_bank")
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    bob.page.close()
    alice.page.wait_for_function(f"window.halfpoint.state.presence['{bob_seat}'] === false")
    act(room, chen, "bet", amount=10)
    assert expire(room, wake_here) == "timeout"  # bob's default stake
    play_out(room, alice, chen, bob_seat, wake_here)
    alice.wait_view("v.hand && v.hand.over")

    # Hand 2 deals him out, and everyone sees why.
    alice.click_enabled("#host-start")
    alice.wait_view(f"v.hand && v.hand.no === 2 && v.hand.sitting_out.includes('{bob_seat}')")
    assert bob_seat not in alice.view()["hand"]["bets"]
    away_badge(alice, bob_seat).wait_for()
    wait_feed(alice, "bob is not connected and sits out until they are back.")
    wait_feed(alice, "bob is away and sits this hand out.")
    alice.page.locator(f".seat[data-seat='{bob_seat}']").scroll_into_view_if_needed()
    shots(alice, "away-seat")

    # bob opens the table again: his seat offers "Sit back in"; he plays from the next hand.
    bob.page = bob.context.new_page()
    bob.page.set_default_timeout(TIMEOUT_MS)
    bob.goto(f"/r/{code}/")
    bob.wait_connected()
    bob.page.wait_for_selector("#sit-back-in")
    alice.page.wait_for_function(f"window.halfpoint.state.presence['{bob_seat}'] === true")
    shots(bob, "away-back-after-a-closed-tab")
    bob.page.click("#sit-back-in")
    bob.wait_view("!" + ME_AWAY + f" && v.hand.sitting_out.includes('{bob_seat}')")  # this hand goes on without him
    act(room, chen, "bet", amount=10)
    play_out(room, alice, chen, bob_seat, wake_here)
    alice.wait_view("v.hand && v.hand.over")
    alice.click_enabled("#host-start")
    bob.wait_view("v.hand && v.hand.no === 3 && v.phase === 'betting' && !!v.hand.bets[v.you]")
    bob.page.wait_for_selector("#act-confirm")

    # A seat released after its time away: the feed's line (and the hand record's: the same teller).
    told = alice.page.evaluate("""async () => {
        const f = await import('/static/js/feed.js');
        const teller = f.createTeller({ name: () => 'bob' });
        const tell = (e) => teller.tell({ type: 'seat_left', seat: 's1', stack: 490, chips_out: 490, ...e }).map((l) => l.text);
        return [tell({ why: 'away', minutes: 10 }), tell({ why: 'away', minutes: 1 }), tell({})];
    }""")
    assert told == [["bob leaves the table after 10 minutes away, with 490."],
                    ["bob leaves the table after 1 minute away, with 490."], ["bob leaves the table with 490."]]
    assert not alice.console_errors and not bob.console_errors, (alice.console_errors, bob.console_errors)
