"""The bank's decisions in the screen-reader mode (docs/accessibility.md), with the keyboard alone: in Ten and a Half the
player in the mode opens the smallest bank the stakes allow (one base stake), so that one challenger's win empties it;
they bust on purpose as the banker until the bank is empty, refill it (A, Shift+Tab to the amount, Tab to Refill the
bank, Enter), let it be emptied again and pass it; their friend opens it, busts as the banker and passes it back; then,
with the bank opened again, the friend busts until the bank has made its opening in profit, and they retire from it. Each decision put to them is alerted, every feed line is
announced once in order, and the finished hand's seats are described as that hand had them (the banker of the hand on
show, though the bank has been passed; the one who holds it now said apart)."""

import re
import time

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Room
from tests.e2e.blind import (
    PHONE,
    WIDE,
    act_by_keys,
    amount_by_keys,
    assert_announced_once_in_order,
    assert_bursts,
    click_timed,
    command,
    feed_lines,
    install_log,
    only_this_server,
    open_table,
    person,
    to_command_box,
    wait_mode,
)
from tests.e2e.conftest import ARTIFACTS, practice_here
from tests.e2e.test_house_open import make_the_bank_offer_due
from tests.games.conftest import seat_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLOW = {"bet_seconds": 300, "act_seconds": 300, "bank_seconds": 300}
IDLE = "!v.hand || v.hand.over"


def settle(p, version: int) -> None:
    try:
        p.page.wait_for_function(f"window.halfpoint.state.version > {version} && !window.halfpoint.state.busy", timeout=5000)
    except Exception:  # noqa: BLE001 - refused or not yet applied: the loop looks again
        pass


def click(p, selector: str) -> bool:
    version = p.page.evaluate("window.halfpoint.state.version")
    if click_timed(p, selector) is None:
        return False
    settle(p, version)
    return True


def test_refill_pass_and_retire_in_ten_and_a_half_with_the_keys(server, browser, here):
    make = get_user_model().objects.create_user
    blind_user = make("blind-bank", "blind-bank@example.com", "a-long-password-1", display_name="Ruolan",
                      screen_reader=True)
    friend_user = make("friend", "friend@example.com", "a-long-password-1", display_name="Zaira")
    # The host (the friend) does not bank first: the bank is offered to the player in the mode.
    room = services.room_create(host=friend_user, preset="ten-half", overrides={**SLOW, "host_banks": False})
    services.seat_take(room_id=room.pk, user=friend_user, buy_in=1000)
    services.seat_take(room_id=room.pk, user=blind_user, buy_in=1000)
    blind = person(browser, server, blind_user, "en", WIDE)
    friend = person(browser, server, friend_user, "en", WIDE)
    at_start = open_table(blind, friend, room.code)
    to_command_box(blind)
    b, f = blind.view()["you"], friend.view()["you"]
    base = blind.view()["rules"]["base_stake"]
    done: list[str] = []  # the blind player's bank decisions, in order
    alerts: dict[str, str] = {}
    described: list[str] = []  # after the pass: the player's seat; once the friend opens, the friend's and theirs
    friend_banked: list[int] = []

    def blind_step() -> bool:
        p, v = blind, blind.view()
        legal, pending, hand = v["legal_actions"], v.get("pending"), v.get("hand")
        mine = pending and pending["seat"] == b
        if (mine and pending["kind"] == "open") or "open_bank" in legal:
            if mine:
                p.page.wait_for_function("document.querySelector('#blind-alert').textContent.trim() !== ''")
                alerts.setdefault("open", p.page.locator("#blind-alert").inner_text())
            said_a = amount_by_keys(p, "#amount-bank", base, "#act-open_bank", f"v.banker === {b!r}")
            assert "Open the bank" in said_a, said_a
            done.append("opened")
            return True
        if mine and pending["kind"] == "refill":
            p.page.wait_for_function("document.querySelector('#blind-alert').textContent.trim() !== ''")
            kind = "refill" if "refilled" not in done else "pass"
            alerts[kind] = p.page.locator("#blind-alert").inner_text()
            if kind == "refill":
                said_a = amount_by_keys(p, "#amount-refill", base, "#act-refill", "!v.pending")
                assert "Refill the bank" in said_a and "Pass the bank" in said_a, said_a
                assert p.view()["bank"] == base
                done.append("refilled")
            else:
                act_by_keys(p, "#act-pass_bank", f"v.banker !== {b!r}")
                done.append("passed")
                # The hand on show was banked by this player, though the bank has moved on: their seat says so.
                p.page.wait_for_function("!document.querySelector('#blind-mine').textContent.includes('Role: challenger')")
                described.append(p.page.locator("#blind-mine").inner_text())
            return True
        if "retire" in legal and "passed" in done and "retired" not in done:
            act_by_keys(p, "#act-retire", "!v.legal_actions.includes('retire')")
            done.append("retired")
            return True
        if v["phase"] == "betting" and "bet" in legal:  # not the banker: a bet of the base stake
            command(p, "Digit0")
            command(p, "Enter")
            p.wait_view("!v.legal_actions.includes('bet')")
            return True
        if v["phase"] == "playing" and hand and hand["turn"] and hand["turn"]["seat"] == b and not hand["over"]:
            # The banker busts on purpose while the bank is to be emptied; then stands, to keep what it won.
            hit = "hit" in legal and ("passed" not in done or "stand" not in legal) and v.get("banker") == b
            version = p.page.evaluate("window.halfpoint.state.version")
            answer = command(p, "KeyH" if hit else "KeyS")
            assert answer == ("Hit." if hit else "Stand."), answer
            settle(p, version)
            return True
        return False

    def friend_step() -> bool:
        p, v = friend, friend.view()
        legal, pending, hand = v["legal_actions"], v.get("pending"), v.get("hand")
        if pending and pending["seat"] == f and pending["kind"] == "open" and "passed" in done and not friend_banked:
            # The friend opens the bank the player in the mode passed: the hand on show still has its own banker.
            p.page.fill("#amount-bank", str(base))
            click(p, "#act-open_bank")
            friend_banked.append(blind.view()["hand"]["no"])
            seat = f"#blind-doc [data-seat={f!r}]"
            blind.page.wait_for_function(f"document.querySelector({seat!r}).textContent.includes('holds the bank now')")
            described.append(blind.page.locator(seat).inner_text())
            described.append(blind.page.locator("#blind-mine").inner_text())
            return True
        if pending and pending["seat"] == f:
            # Declined or passed: the bank goes back to the player in the mode.
            return click(p, "#act-pass_bank" if pending["kind"] == "refill" else "#act-decline_bank")
        if "retire" in legal and v.get("banker") == f:
            return click(p, "#act-retire")
        if v["phase"] == "betting" and "bet" in legal:
            # While the bank is to be emptied the friend stakes all it holds; then the base stake.
            stake = v["bank"] if "passed" not in done else base
            p.page.fill("#bet-box", str(min(stake, next(x["stack"] for x in v["seats"] if x["id"] == f))))
            return click(p, "#act-confirm")
        if v["phase"] == "playing" and hand and hand["turn"] and hand["turn"]["seat"] == f:
            # One card stands (it cannot bust) while the bank is to be emptied; then the friend hits until busting (as
            # the banker too: its bank goes to the challenger in the mode).
            hit = "stand" not in legal or "passed" in done
            return click(p, "#act-hit" if hit else "#act-stand")
        if p.page.locator("#host-start:not([disabled])").count() and p.page.evaluate(
                f"(() => {{ const v = window.halfpoint.state.view; return {IDLE} && !v.pending; }})()"):
            return click(p, "#host-start")
        return False

    deadline = time.monotonic() + 150
    while "retired" not in done:
        assert time.monotonic() < deadline, f"the decisions did not all come: {done}, phase {blind.view()['phase']}"
        if not (blind_step() or friend_step()):
            time.sleep(0.05)
    blind.wait_view(f"v.banker !== {b!r} || v.hand && !v.hand.over")  # the retirement is asked during a hand or done
    # The player's own seat is told anew when only its stack changed (the bank's chips back in it).
    blind.page.wait_for_function("""(() => { const v = window.halfpoint.state.view;
      const me = v.seats.find((x) => x.id === v.you);
      return document.querySelector('#blind-mine').textContent.includes(`Stack: ${me.stack.toLocaleString('en-US')}.`); })()""")

    print(f"\ndecisions {done}\nalerts {alerts}\nthe seat after the pass: {described[0]!r}")
    assert done[:4] == ["opened", "refilled", "passed", "opened"] and done[-1] == "retired", done
    assert all(text.startswith("Your turn.") for text in alerts.values()), alerts
    assert "Role: banker" in described[0] and "The bank's result: −" in described[0], described
    # The friend holds the bank now, the hand on show was the player's: each seat says so.
    assert friend_banked and "Role: challenger, host, holds the bank now." in described[1], described
    assert "Role: banker" in described[2] and "The bank's result: −" in described[2], described
    told = {line["type"] for line in feed_lines(blind)[at_start:]}
    assert {"bank_refilled", "bank_passed"} <= told, sorted(told)
    assert told & {"bank_retire_requested", "bank_closed"}, sorted(told)
    assert_announced_once_in_order(blind, at_start)
    assert_bursts(blind)
    ARTIFACTS.mkdir(exist_ok=True)
    blind.page.screenshot(path=str(ARTIFACTS / "blind-bank-ten-half-1280.png"), full_page=True)
    errors = [e for e in blind.console_errors + friend.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
    only_this_server([blind, friend])


def test_a_bid_for_the_bank_with_the_keys(server, browser, monkeypatch, settings):
    """The bank auction (house rule bank_auction, preset ten-half-auction) at a practice table, on a phone: V turns the
    mode on at the bid row, the bid is the player's own moment, alerted as their turn; A lists the bid row, Tab reaches ×2, Enter bids, and the player
    holds the bank at ×2. The first deal is stacked as in tests/e2e/test_house_auction.py (the bots make no bid)."""
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    user = get_user_model().objects.create_user("blind-bidder", "blind-bidder@example.com", "a-long-password-1",
                                                display_name="Ruolan")
    room = practice_here(monkeypatch, user, "ten-half-auction", ["2S", "10H", "3D", "4C"], dice=[1, 1],
                         overrides={"bank_seconds": 300, "bet_seconds": 300, "act_seconds": 300})
    me = seat_of(room, user)
    blind = person(browser, server, user, "en", PHONE)
    blind.goto(f"/r/{room.code}/")
    blind.wait_connected()
    blind.wait_view("v.phase === 'auction' && v.legal_actions.includes('bid')")
    page = blind.page
    # The auction's lines and row come with its module (house-auction.js): once they are on the page, V turns the mode on
    # (the focus is on the bid row, where the table put it), so that the lines on the feed before are not news.
    page.locator("#act-bid-2:not([disabled])").wait_for()
    page.wait_for_function("(document.activeElement.id || '').startsWith('act-bid-')")
    page.keyboard.press("KeyV")
    wait_mode(blind)
    at_start = install_log(blind)
    page.wait_for_function("document.querySelector('#blind-alert').textContent.startsWith('Your turn.')")
    assert in_command_box_or_body(blind)
    answer = command(blind, "KeyA")
    assert all(word in answer for word in ("×1", "×2", "×4")), answer
    act_by_keys(blind, "#act-bid-2", f"v.banker === {me!r} && v.house.auction && v.house.auction.mult === 2")
    assert blind.view()["banker"] == me
    assert_announced_once_in_order(blind, at_start)
    assert_bursts(blind)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "blind-auction-360.png"), full_page=True)
    assert not [e for e in blind.console_errors if "navigator.vibrate" not in e], blind.console_errors


def in_command_box_or_body(player) -> bool:
    """With the mode on, a moment of the player's does not take the focus out of the command box."""
    return player.page.evaluate("(() => { const a = document.activeElement; return !a || a === document.body"
                                " || a.id === 'blind-command'; })()")


def test_the_banker_opens_a_hand_with_the_keys(server, browser):
    """The banker's open (house rule banker_opens, preset ban-luck-opens) at a practice table: the player in the mode
    takes the bank offered to them, draws at their turn with H until the rule lets them open, and opens a challenger's
    hand with the Open button that #blind draws for that seat (A lists it; Tab, Enter); the feed's open and its result
    are announced."""
    user = get_user_model().objects.create_user("blind-opener", "blind-opener@example.com", "a-long-password-1",
                                                display_name="Ruolan", screen_reader=True)
    blind = person(browser, server, user, "en", WIDE)
    page = blind.goto("/lobby/")
    page.focus("button[data-practice='ban-luck-opens']")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    blind.wait_connected()
    wait_mode(blind)
    at_start = install_log(blind)
    blind.wait_view("v.you && v.hand")
    room = Room.objects.filter(code=page.url.rstrip("/").rsplit("/", 1)[-1]).latest("pk")
    make_the_bank_offer_due(room)
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, f"no open came: {blind.view()['phase']}"
        v = blind.view()
        legal, hand, me = v["legal_actions"], v.get("hand"), v["you"]
        mine = hand and hand["turn"] and hand["turn"]["seat"] == me and not hand["over"]
        if page.locator("#blind-doc button[id^=blind-act-open-]:not([disabled])").count():
            break
        if "take_bank" in legal:
            act_by_keys(blind, "#act-take_bank", f"v.banker === {me!r}")
        elif v["phase"] == "betting" and "bet" in legal:
            command(blind, "Enter")
            blind.wait_view("!v.legal_actions.includes('bet')")
        elif mine and ("hit" in legal or "stand" in legal):
            hit = "hit" in legal and (v["banker"] == me or "stand" not in legal)
            version = page.evaluate("window.halfpoint.state.version")
            command(blind, "KeyH" if hit else "KeyS")
            settle(blind, version)
        elif page.locator("#host-start:not([disabled])").count() and (not hand or hand["over"]):
            act_by_keys(blind, "#host-start", "!!v.pending || (v.hand && !v.hand.over)")
        else:
            time.sleep(0.05)
    v = blind.view()
    assert v["banker"] == v["you"] and v["hand"]["turn"]["seat"] == v["you"]
    answer = command(blind, "KeyA")
    assert "Open" in answer, answer
    before = len(feed_lines(blind))
    act_by_keys(blind, "#blind-doc button[id^=blind-act-open-]", "true")
    page.wait_for_function(f"window.__feedLog && Object.values(window.__feedLog.hands).flat().length > {before}")
    blind.page.wait_for_function("""(() => Object.values(window.__feedLog.hands).flat()
      .some((l) => / opens .+'s hand: it is settled now against the bank's /.test(l.text)))()""")
    lines, start = assert_announced_once_in_order(blind, at_start)
    assert any(" opens " in text and "settled now" in text for text in lines[start:]), lines[start:]
    assert_bursts(blind)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "blind-open-1280.png"), full_page=True)
    assert not [e for e in blind.console_errors if "navigator.vibrate" not in e], blind.console_errors
