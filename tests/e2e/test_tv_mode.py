"""TV mode in real browsers at 360 x 740 (static/js/tv.js; docs/protocol.md, "Spectators and TV mode"): a seated
player is asked once and agrees from the table, a spectator's page shows that player's face-down cards one action
late and never a card of a player who did not agree, and after a withdrawal from the menu never one of theirs again.
Every `tv` frame the spectator's page received is checked against the hand's stored record (its events). Screenshots
of the spectator's and the player's pages at 360 and 1280 px go to test-artifacts/."""

import json
import time

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine import state_from_json, view
from games.models import HandEvent, Room, Seat, Table, TvConsent
from tests.e2e.conftest import PHONE, Player, log_in
from tests.games.sockets import sensible_move
from tests.games.test_socket_privacy import Record

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}


def at_table(browser, server, user, room, viewport) -> Player:
    context = browser.new_context(viewport=viewport, locale="en-US", bypass_csp=True)
    player = Player(context, server, user.username, [])
    log_in(context, server, user)
    player.frames = []
    player.page.on("websocket", lambda ws: ws.on("framereceived", lambda text: player.frames.append(json.loads(text))))
    player.goto(f"/r/{room.code}/")
    player.wait_connected()
    return player


def move(room, users: dict) -> bool:
    """One sensible move of the first seat that has one (in this process: the pages learn it from the server's
    watcher). False when nobody has one."""
    table = Table.objects.get(pk=room.pk)
    state = state_from_json(table.state)
    for seat_id, user in users.items():
        found = sensible_move(view(state, seat_id))
        if found is not None:
            action, args = found
            services.action_submit(room_id=room.pk, user=user, action=action, args=args,
                                   action_id=f"{seat_id}-{table.version}")
            return True
    return False


def deal(room, host, action_id: str) -> None:
    """The host deals the next hand (the next hand's timer is off in this process: the `here` fixture)."""
    if Table.objects.get(pk=room.pk).state["phase"] in ("waiting", "between_hands"):
        services.action_submit(room_id=room.pk, user=host, action="start", args={}, action_id=action_id)
    assert Table.objects.get(pk=room.pk).state["phase"] == "betting"


def wait_version(player: Player, version: int) -> None:
    player.page.wait_for_function(f"window.halfpoint.state.version >= {version}")


def shown(player: Player, seat: str) -> list[str]:
    return player.page.evaluate(
        f"[...document.querySelectorAll('.tv-cards[data-tv-seat=\"{seat}\"] .pcard')].map((e) => e.dataset.card)")


def test_a_spectator_sees_only_consenting_players_cards_one_action_late_and_none_after_a_withdrawal(
        server, browser, here):
    User = get_user_model()
    names = ("alice", "bob", "chen", "finn")
    alice, bob, chen, finn = (User.objects.create_user(n, f"{n}@example.com", "a-long-password-1",
                                                       display_name=n.title()) for n in names)
    room = services.room_create(host=alice, preset="ten-half", spectators="tv")
    for user, buy_in in ((alice, 1000), (bob, 500), (chen, 500)):
        services.seat_take(room_id=room.pk, user=user, buy_in=buy_in)
    meta = Table.objects.get(pk=room.pk).meta
    seats = {u: meta["users"][str(u.pk)] for u in (alice, bob, chen)}
    bob_seat, chen_seat = seats[bob], seats[chen]

    # Bob is asked once, at the table, and agrees: from the next hand, the first.
    player = at_table(browser, server, bob, room, PHONE)
    player.page.wait_for_selector("#tv-ask")
    player.screenshot("tv-ask-360")
    player.page.click("#tv-ask-yes")
    player.page.wait_for_selector("#tv-ask", state="detached")
    deadline = time.monotonic() + 10
    while not TvConsent.objects.filter(room=room, user=bob, given=True).exists():
        assert time.monotonic() < deadline, "the consent never arrived"
        time.sleep(0.1)
    assert TvConsent.objects.get(room=room, user=bob).from_hand == 1

    spectator = at_table(browser, server, finn, room, PHONE)
    assert spectator.page.evaluate("window.halfpoint.state.view.role") == "spectator"
    # The table counts who watches.
    player.page.wait_for_function("(document.querySelector('#tv-count') || {}).textContent === '1 watching'")
    player.page.locator("#tv-count").wait_for(state="visible")  # shown once its stylesheet is in
    box = player.page.locator("#tv-count").bounding_box()
    assert box["width"] > 40 and box["x"] + box["width"] <= PHONE["width"]
    services.action_submit(room_id=room.pk, user=alice, action="start", args={}, action_id="start")
    services.action_submit(room_id=room.pk, user=alice, action="open_bank", args={"amount": 500}, action_id="bank")
    deal(room, alice, "deal-1")
    users = {seats[u]: u for u in (alice, bob, chen)}

    # The first hand: after each command, once the spectator's page has that version, bob's cards under his seat are
    # those the hand's record says he held face down one version earlier; chen's never show.
    seen_bob = 0
    for _step in range(60):
        if not move(room, users):
            break
        version = Table.objects.get(pk=room.pk).version
        wait_version(spectator, version)
        spectator.page.wait_for_timeout(150)  # the tv frame follows its update
        if shown(spectator, bob_seat):
            seen_bob += 1
            if seen_bob == 2:
                spectator.screenshot("tv-spectator-360")
                spectator.page.set_viewport_size(DESKTOP)
                spectator.screenshot("tv-spectator-1280")
                spectator.page.set_viewport_size(PHONE)
        assert not shown(spectator, chen_seat)
        if Table.objects.get(pk=room.pk).state["phase"] != "playing" and seen_bob and \
                Table.objects.get(pk=room.pk).state["hand"]["over"]:
            break
    assert seen_bob >= 1, spectator.frames[-5:]

    # The next hand: bob withdraws from the menu mid-hand; his cards go at once and never come back.
    deal(room, alice, "deal-2")
    for _step in range(20):  # until bob's cards show again in this hand
        if shown(spectator, bob_seat):
            break
        assert move(room, users)
        wait_version(spectator, Table.objects.get(pk=room.pk).version)
        spectator.page.wait_for_timeout(150)
    assert shown(spectator, bob_seat) and not Table.objects.get(pk=room.pk).state["hand"]["over"]
    player.page.click("#menu-button")
    player.page.click("#tv-menu")
    player.page.wait_for_selector("#tv-panel")
    player.screenshot("tv-panel-360")  # the count above the table too
    player.page.set_viewport_size(DESKTOP)
    player.screenshot("tv-panel-1280")
    player.page.set_viewport_size(PHONE)
    player.page.click("#tv-no")
    spectator.page.wait_for_function(
        f"!document.querySelector('.tv-cards[data-tv-seat=\"{bob_seat}\"]')")
    for _step in range(40):
        if not move(room, users):
            break
        wait_version(spectator, Table.objects.get(pk=room.pk).version)
        spectator.page.wait_for_timeout(100)
        assert not shown(spectator, bob_seat) and not shown(spectator, chen_seat)

    # Every tv frame against the record: bob's cards as he held them face down one version before, within the hand;
    # never chen's, never alice's (the bank), never bob's after his withdrawal.
    record = Record(room)
    over = set(HandEvent.objects.filter(room=room, data__type="hand_over").values_list("version", flat=True))
    frames = [f for f in spectator.frames if f["type"] == "tv"]
    withdrawal = next(i for i, f in enumerate(spectator.frames) if f["type"] == "tv_consent" and not f["on"])
    checked = 0
    for i, f in enumerate(spectator.frames):
        if f["type"] != "tv":
            continue
        assert set(f["cards"]) <= {bob_seat}, f
        if i > withdrawal:
            assert not f["cards"], f
            continue
        down_before = record.at(f["version"] - 1)[0].get(bob_seat, set())
        cards = {c for hand in f["cards"].get(bob_seat, []) for c in hand}
        assert cards <= down_before, (f, down_before)
        if f["version"] not in over:
            assert cards == down_before, (f, down_before)
        checked += bool(cards)
    assert frames and checked >= 1
    errors = [e for p in (player, spectator) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors


def test_the_host_sees_who_watches_removes_one_and_shuts_the_room_to_spectators(server, browser, here):
    User = get_user_model()
    alice, finn, gus = (User.objects.create_user(n, f"{n}@example.com", "a-long-password-1", display_name=n.title())
                        for n in ("alice", "finn", "gus"))
    room = services.room_create(host=alice, preset="ten-half", spectators="tv")
    services.seat_take(room_id=room.pk, user=alice, buy_in=1000)
    host = at_table(browser, server, alice, room, PHONE)
    watcher = at_table(browser, server, finn, room, PHONE)
    host.page.wait_for_function("(document.querySelector('#tv-count') || {}).textContent === '1 watching'")
    host.page.click("#tv-count")
    host.page.wait_for_selector("#tv-panel [data-tv-remove]")
    assert host.page.locator("#tv-panel .tv-watchers li span").all_inner_texts() == ["Finn"]
    assert host.page.locator("[data-tv-mode='tv']").get_attribute("class") == "primary"  # the room's setting
    host.screenshot("tv-host-panel-360")
    host.page.set_viewport_size(DESKTOP)
    host.screenshot("tv-host-panel-1280")
    host.page.set_viewport_size(PHONE)
    for b in host.page.locator("#tv-panel button").all():
        box = b.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]

    host.page.click("[data-tv-remove]")
    watcher.page.wait_for_function("document.querySelector('#toast') && !document.querySelector('#toast').hidden")
    assert watcher.page.locator("#toast").inner_text() == "The host asked you not to watch this room."
    host.page.wait_for_selector("#tv-count", state="detached")  # nobody watches now
    page = watcher.goto(f"/r/{room.code}/")
    assert page.locator("#watch-refusal").inner_text() == "The host asked you not to watch this room."
    assert page.locator("#sit-to-watch").count() == 0

    # No spectators: a newcomer gets a seat to take instead of the table, and sits from there.
    host.page.click("#tv-panel [data-tv-mode='none']")
    host.page.wait_for_selector("[data-tv-mode='none'].primary")
    assert Room.objects.get(pk=room.pk).spectators == "none"
    newcomer = Player(browser.new_context(viewport=PHONE, locale="en-US", bypass_csp=True), server, "gus", [])
    log_in(newcomer.context, server, gus)
    page = newcomer.goto(f"/r/{room.code}/")
    assert page.locator("#watch-refusal").inner_text() == "This room has no spectators: take a seat to watch."
    newcomer.screenshot("tv-no-spectators-360")
    page.set_viewport_size(DESKTOP)
    newcomer.screenshot("tv-no-spectators-1280")
    page.set_viewport_size(PHONE)
    page.fill("#sit-buy-in", "500")
    with page.expect_navigation():
        page.click("#sit-to-watch-confirm")
    newcomer.wait_connected()
    newcomer.wait_view("!!v.you")
    assert Seat.objects.filter(room=room, user=gus, left_at__isnull=True).exists()
    errors = [e for p in (host, newcomer) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
