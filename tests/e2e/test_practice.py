"""Practice in one click, in a real browser: from the lobby's button to the first enabled Hit/Stand, the first-visit
hint, the centre's state texts with the host controls that can act, and the player's seed in the first deal (the
click brings it, drawn after the lobby showed the commitment: docs/fairness.md).

The server runs bots with no pause (tests/e2e/conftest.py, GAMES_BOT_SECONDS=0, eager tasks), so the times measured
here are the page, the socket and the service path, not the bots' thinking pauses of production.
"""

import re
import time
from urllib.parse import parse_qs

import pytest

from tests.e2e.conftest import ARTIFACTS, play_out

pytestmark = pytest.mark.e2e

GAMES = ["ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"]
FIRST_DECISION_S = 3.0
DECISION = "#act-hit:not([disabled]), #act-stand:not([disabled])"
HAND_OVER = "(() => { const v = window.halfpoint && window.halfpoint.state.view; return !!(v && v.hand && v.hand.over); })()"


def errors(player) -> list[str]:
    """The page's console errors, less Chrome's notice that a vibration before the first tap was blocked (the turn
    cue's, static/js/cues.js: it changes nothing on the page)."""
    return [e for e in player.console_errors if "navigator.vibrate" not in e]


def practice_click(player, preset: str) -> float:
    """Click the game's practice button in the lobby; the click's time (time.monotonic)."""
    page = player.goto("/lobby/")
    button = page.locator(f"button[data-practice='{preset}']")
    button.wait_for()
    started = time.monotonic()
    button.click()
    return started


def first_decision(player, preset: str) -> tuple[float, dict] | None:
    """Seconds from the practice click to an enabled Hit or Stand (the preset stake confirmed with one click on the
    way) and the times of the steps, or None when this deal gave the newcomer no decision (a Chinese Blackjack
    special settled at once)."""
    started = practice_click(player, preset)
    page = player.page
    page.wait_for_url(re.compile(r"/r/\d{4}/$"), wait_until="commit")
    steps = {"table page": time.monotonic() - started}
    # The first thing to do: Confirm the bet (already the base stake), or Hit/Stand where nobody bets.
    page.wait_for_function(
        "() => document.querySelector('#act-confirm:not([disabled]), #act-hit:not([disabled]),"
        " #act-stand:not([disabled])') || (" + HAND_OVER + ")")
    steps["first control"] = time.monotonic() - started
    if page.locator("#act-confirm:not([disabled])").count():
        page.click("#act-confirm")
    page.wait_for_function("() => document.querySelector('" + DECISION + "') || (" + HAND_OVER + ")")
    elapsed = time.monotonic() - started
    return None if page.evaluate(HAND_OVER) and not page.locator(DECISION).count() else (elapsed, steps)


@pytest.mark.parametrize("preset", GAMES)
def test_one_click_from_the_lobby_reaches_hit_or_stand_within_three_seconds(server, players, preset):
    mei = players(server, "mei").signup()
    mei.goto("/lobby/")  # the server's first page, so that the measure does not include a cold start
    for _attempt in range(3):  # a deal that settles at once (a special) leaves nothing to decide: deal again
        measured = first_decision(mei, preset)
        if measured is not None:
            break
    assert measured is not None, "three deals in a row gave no decision"
    elapsed, steps = measured
    print(f"\n{preset}: first enabled Hit/Stand {elapsed:.2f} s after the practice click ("
          + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()) + ")")
    assert elapsed < FIRST_DECISION_S, f"{preset}: {elapsed:.2f} s"
    status = mei.page.locator("#status").inner_text()
    assert status.startswith("Your turn"), status
    assert mei.page.locator("#host-start").count() == 0  # the hand is under way: nothing to deal
    assert not errors(mei), errors(mei)


@pytest.mark.parametrize("width", [360, 1280])
def test_the_practice_table_explains_its_controls_once(server, players, width):
    mei = players(server, f"mei{width}", viewport={"width": width, "height": 800}).signup()
    mei.goto("/lobby/").locator("#practice").screenshot(path=str(ARTIFACTS / f"practice-lobby-{width}.png"))
    practice_click(mei, "ten-half")
    page = mei.page
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.wait_connected()
    hint = page.locator("#table-hint")
    hint.wait_for()
    text = hint.text_content()
    assert "Confirm" in text and "Hit" in text and "bot holds the bank" in text
    is_open = "document.querySelector('#table-hint').open"
    if width < 700:  # a phone: one line above the felt, opened with a tap
        assert not page.evaluate(is_open)
        page.screenshot(path=str(ARTIFACTS / f"practice-hint-{width}-closed.png"))
        page.click("#table-hint summary")
    assert page.evaluate(is_open)
    page.wait_for_selector("#act-confirm:not([disabled])")
    assert page.input_value("#bet-box") == "10"  # the base stake, one Confirm away
    status = page.locator("#status").inner_text()
    assert status.startswith("Your bet is 10: Confirm it"), status
    assert page.locator("#phase").text_content() == "Hand 1 · Betting"
    assert page.locator("#host-start").count() == 0
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"the page is {scroll_width} px wide on a {width} px screen"
    mei.screenshot(f"practice-hint-{width}")
    page.screenshot(path=str(ARTIFACTS / f"practice-hint-{width}-screen.png"))  # what the first screen shows
    page.click("#table-hint-close")
    assert hint.count() == 0
    page.reload()
    mei.wait_connected()
    page.wait_for_selector("#act-confirm:not([disabled])")
    page.wait_for_function("document.querySelector('#table-hint').hidden")  # dismissed once: remembered
    assert page.locator("#table-hint").is_hidden()
    assert not errors(mei), errors(mei)


def test_state_texts_and_host_controls_through_a_practice_hand_and_a_closed_room(server, players):
    mei = players(server, "mei").signup()
    practice_click(mei, "seven-half")
    page = mei.page
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.wait_connected()
    mei.click_enabled("#act-confirm")
    play_out([mei])
    page.wait_for_selector("#results-table")
    assert page.locator("#status").inner_text().startswith("Hand over: read the results")
    assert page.locator("#phase").text_content() == "Hand 1 · Between hands"
    # After a hand, between hands, the host may deal the next one now (the pause is an hour in these tests).
    page.wait_for_selector("#host-start")
    assert page.locator("#host-start").inner_text() == "Deal the next hand now"
    page.on("dialog", lambda d: d.accept())
    page.click("#host-close")
    page.wait_for_function("document.querySelector('#status').textContent === 'This room is closed.'")
    assert page.locator("#phase").text_content() == "Closed"
    assert page.locator("#host-controls").is_hidden() and page.locator("#host-start").count() == 0
    mei.screenshot("practice-closed-1280")
    assert not errors(mei), errors(mei)


def test_a_friends_room_before_its_first_hand_says_what_it_waits_for(server, players):
    alice, bob = (players(server, name).signup() for name in ("alice", "bob"))
    code = alice.create_room("ten-half")
    alice.sit(0)
    page = alice.page
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Waiting for players:')")
    assert page.locator("#phase").text_content() == "Before the first hand"
    assert page.locator("#host-start").count() == 0  # one player: Start could not act
    bob.join(code)
    bob.sit(None, buy_in=500)
    page.wait_for_selector("#host-start")
    assert page.locator("#host-start").inner_text() == "Start"
    assert page.locator("#status").text_content() == "Press Start when everyone is seated."
    assert bob.page.locator("#status").text_content() == "Waiting for the host to start."
    assert not errors(alice) and not errors(bob)


@pytest.mark.parametrize("preset", ["zhejiang-ten-half", "ten-half"])
def test_the_first_practice_hands_record_lists_the_players_seed(server, players, preset):
    mei = players(server, "mei").signup()
    page = mei.goto("/lobby/")
    form = page.locator("form.practice-form").filter(has=page.locator(f"button[data-practice='{preset}']"))
    shown = form.locator("[name=commitment]").get_attribute("value")
    assert re.fullmatch(r"[0-9a-f]{64}", shown)
    assert page.locator("#practice-commitment").inner_text() == shown[:16] + "…"
    posted = []
    page.on("request", lambda r: posted.append(r.post_data) if r.method == "POST" and "/practice/" in r.url else None)
    form.locator("button").click()
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    code = re.search(r"/r/(\d{4})/$", page.url).group(1)
    mei.wait_connected()
    sent = parse_qs(posted[0])["seed"][0]
    assert re.fullmatch(r"[0-9a-f]{64}", sent) and parse_qs(posted[0])["commitment"] == [shown]
    if preset == "ten-half":  # the stake is one Confirm away; the table page's own seed goes with it
        mei.click_enabled("#act-confirm")
    play_out([mei])
    me = mei.view()["you"]
    found = mei.context.request.get(f"{server}/r/{code}/hands/1/")
    assert found.ok and "/hands/" in found.url
    record = mei.context.request.get(found.url + "record.json").json()
    assert record["commitment"] == shown  # the lobby's: committed before the browser drew its seed
    seeds = {x["seat"]: x for x in record["seeds"]}
    assert seeds[me]["by"] == "player"
    if preset == "zhejiang-ten-half":  # dealt in the click's own request: the click's seed
        assert seeds[me]["seed"] == sent
    else:  # a later seed of the same seat replaces the earlier one until the deal
        assert seeds[me]["seed"] == page.evaluate("window.halfpoint.state.seeds[1]")
    assert {x["by"] for seat, x in seeds.items() if seat != me} == {"bot"}
    assert mei.view()["last_hand"]["seeds"] == record["seeds"]
    assert not errors(mei), errors(mei)
