"""The table's feed (static/js/feed.js) in a real browser: a player who lets the timers run out reads that the table
placed the default stake and stood for them, and why their hand won or lost; a refresh mid-hand tells the hand's
lines again, the same ones, from the snapshot's events; the lines about the player reach the screen reader's live
region. Screenshots at 1280 and 360 px go to test-artifacts/."""

import re

import pytest

from games.models import Room
from tests.e2e.conftest import TIMEOUT_MS
from tests.games.conftest import Clock, expire, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The reasons feed.js gives a result compared at the reveal (ten-half.md, "Comparing a challenger with the banker").
REASON = re.compile(r": (bust with \S+|the bank busts with \S+|.+ beats the bank's .+|the bank's .+ beats .+"
                    r"|tie at \S+: the bank wins ties|.+ against the bank's .+: the bank counts half a point more)\.$")


@pytest.fixture
def wake_here(settings, monkeypatch):
    """This process applies a table's expired deadline (what the Celery timeout does) with its clock moved past it;
    the server's sockets pick the new versions up from the database within a second (games/consumers.py)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # no socket in this process
    clock = Clock()
    monkeypatch.setattr("games.services.run._now", clock)
    return clock


def feed_lines(player, since_hand: bool = True) -> list[str]:
    """The feed's lines, from the current hand's first line on."""
    lines = player.page.locator("#feed li").evaluate_all(
        "lis => lis.map(li => [li.classList.contains('hand_started'), li.textContent])")
    starts = [i for i, (start, _text) in enumerate(lines) if start]
    first = starts[-1] if since_hand and starts else 0
    return [text for _start, text in lines[first:]]


def wait_feed(player, text: str):
    player.page.wait_for_function(
        "t => [...document.querySelectorAll('#feed li')].some(li => li.textContent.includes(t))", arg=text,
        timeout=TIMEOUT_MS)


def seat_named(player, name: str) -> str:
    return next(x["id"] for x in player.view()["seats"] if x["name"] == name)


def open_table(players, server, bob_viewport=None):
    alice = players(server, "alice").signup()
    bob = players(server, "bob", viewport=bob_viewport).signup()
    code = alice.create_room("ten-half", base_stake=10)
    bob.join(code)
    alice.sit(0, buy_in=1000)
    bob.sit(2, buy_in=500)
    alice.click_enabled("#host-start")
    alice.wait_view("v.legal_actions.includes('open_bank')")
    alice.page.fill("#amount-bank", "400")
    alice.click_enabled("#act-open_bank")
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    return alice, bob, Room.objects.get(code=code)


def test_a_player_who_times_out_reads_the_defaults_and_why_the_hand_went_as_it_did(server, players, wake_here):
    alice, bob, room = open_table(players, server)
    bob_seat = seat_named(bob, "bob")

    # bob never bets: the betting timer places the base stake for him.
    assert expire(room, wake_here) == "timeout"
    wait_feed(bob, "Time ran out for bob: default stake 10.")
    bob.wait_view("v.phase === 'playing'")
    wait_feed(alice, "bob is dealt a face-down card.")  # the banker learns only that a card was dealt
    own = [line for line in feed_lines(bob) if line.startswith("bob is dealt ")]
    assert len(own) == 1 and own[0].endswith(", face down.") and "face-down card" not in own[0]

    # bob never acts either: the action timer stands for him; alice stands when it is her turn.
    for _ in range(6):
        s = state(room)
        if s["phase"] != "playing":
            break
        if s["hand"]["turn"][0] == bob_seat:
            assert expire(room, wake_here) == "timeout"
        else:
            alice.wait_view("v.hand.turn && v.hand.turn.seat === v.you")
            alice.click_enabled("#act-stand")
            alice.page.wait_for_function("!window.halfpoint.state.busy")
    for p in (alice, bob):
        p.wait_view("v.hand && v.hand.over")
        wait_feed(p, "Time ran out for bob: stands.")

    result = next(r for r in bob.view()["hand"]["results"] if r["bettor"] == bob_seat)
    verb = {"win": "wins", "lose": "loses"}[result["outcome"]]
    sign = "+" if result["outcome"] == "win" else "−"
    expected = f"bob {verb} ×{result['multiplier']}, {sign}{result['paid']}: "
    line = bob.page.locator(f"#feed li.bet_settled[data-seat='{bob_seat}']").inner_text()
    assert line.startswith(expected), line
    assert REASON.search(line), line  # the result says why
    mine = bob.view()["hand"]["hands"][bob_seat][0]
    if mine["bust"]:
        assert "bust with" in line
    assert alice.page.locator(f"#feed li.bet_settled[data-seat='{bob_seat}']").inner_text() == line
    # The screen reader hears bob's own lines: his default stake, his card, his result.
    heard = bob.page.locator("#feed-live").inner_text()
    assert line in heard, heard
    assert bob.page.locator("#feed").evaluate("f => getComputedStyle(f).overflowY") == "auto"
    bob.page.locator("#feed").scroll_into_view_if_needed()
    bob.screenshot("feed-timeout-1280")
    table_lines = feed_lines(bob)

    # The hand's record tells the same events in the same words.
    bob.page.click("#hand-record-link")
    bob.page.wait_for_url(re.compile(r"/hands/[\w-]{22}/$"))
    record = bob.page.locator("#events li").all_inner_texts()
    assert record[0] == table_lines[0] and record[0].startswith("Hand 1 starts")
    assert "Time ran out for bob: default stake 10." in record and "Time ran out for bob: stands." in record
    assert line in [text.strip() for text in record]
    bob.screenshot("feed-hand-record-1280")
    assert not bob.console_errors, bob.console_errors


def test_a_refresh_mid_hand_tells_the_same_lines_again(server, players):
    alice, bob, room = open_table(players, server, bob_viewport={"width": 360, "height": 740})
    bob.click_enabled("#actions .chips button:nth-child(2)")
    bob.click_enabled("#act-confirm")
    for p in (alice, bob):
        p.wait_view("v.phase === 'playing'")
    first = alice if alice.my_turn() else bob
    first.page.keyboard.press("h")  # a card more for whoever acts first (the feed tells it to both)
    first.page.wait_for_function("!window.halfpoint.state.busy")
    wait_feed(alice, "hits.")
    wait_feed(bob, "hits.")

    for p in (bob, alice):
        before = feed_lines(p)
        assert before[0].startswith("Hand 1 starts") and len(before) >= 8, before
        p.page.reload()
        p.wait_connected()
        p.page.wait_for_function("document.querySelectorAll('#feed li').length > 0")
        assert feed_lines(p) == before
        assert not p.page.locator("#feed-live p").count()  # a rebuilt feed is not read out again
    assert any(line.endswith(", face down.") and line.startswith("bob is dealt") for line in feed_lines(bob))
    assert "bob is dealt a face-down card." in feed_lines(alice)

    width = bob.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide on a 360 px screen"
    bob.page.locator("#feed").scroll_into_view_if_needed()
    bob.screenshot("feed-refresh-360")
    alice.page.locator("#feed").scroll_into_view_if_needed()
    alice.screenshot("feed-refresh-1280")
