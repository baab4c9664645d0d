"""Asking the host for a longer clock over the table socket (docs/protocol.md, `clock_ask`, `clock_grant`,
`clock_dismiss`): the ask reaches the host (also one who connects later), a grant lengthens every clock from the next
hand only, a dismissal changes nothing, and every refusal leaves the table, the room and the asks as they were."""

import time

import pytest

from games.models import ClockAsk, Room, Table
from tests.games.conftest import acked
from tests.games.sockets import Tab, catch_up, close_all, db, drain_all, me, seated_table, sensible_move

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

CLOCKS = ("bet_seconds", "act_seconds", "bank_seconds")
ANSWERS = ("error", "clock_asked", "clock_answered")


async def send(tab: Tab, message: dict) -> dict:
    """Send `message`; its answer on this socket: an `error`, or the room's `clock_asked` / `clock_answered`."""
    await tab.send(message)
    return await tab.reply(*ANSWERS)


def room_as_is(room) -> tuple:
    """Everything a refused message must leave alone: the table (version, state, meta), the room's rules and the
    asks."""
    t = Table.objects.get(pk=room.pk)
    r = Room.objects.get(pk=room.pk)
    asks = list(ClockAsk.objects.filter(room=room).order_by("pk").values_list(
        "user_id", "seat", "asked_at", "answered_at", "outcome", "seconds"))
    return t.version, t.state, t.meta, r.rules, r.overrides, r.status, asks


async def refused(tab: Tab, message: dict, code: str, room, others=()) -> None:
    """`message` from `tab` is refused with `code`, nothing changes, and nobody else hears of it."""
    before = await db(room_as_is)(room)
    frame = await send(tab, message)
    assert frame["type"] == "error" and frame["code"] == code, (message, frame)
    assert frame["message"]  # words for a log; the page words the code itself
    assert await db(room_as_is)(room) == before, message
    for frames in await drain_all(others):
        assert all(f["type"] not in ANSWERS for f in frames), message


def seconds_left(view) -> float:
    return view["deadline"] - time.time()


async def play_to_next_hand(tabs: dict, room) -> None:
    """Every seat plays the hand under way to its end with its own moves; the next hand is dealt."""
    hand = tabs["alice"].view["hand_no"]
    for _step in range(200):
        if all(t.view["hand_no"] > hand and t.view["phase"] == "betting" for t in tabs.values()):
            return
        moves = [(t, sensible_move(t.view)) for t in tabs.values()]
        tab, (action, args) = next((t, m) for t, m in moves if m is not None)
        assert acked(await tab.act(action, **args)), (action, args)
        await catch_up(tabs.values(), room)
    raise AssertionError("the next hand did not come")


async def test_an_ask_reaches_the_host_and_a_grant_lengthens_the_clock_from_the_next_hand(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, bob = tabs["alice"], tabs["bob"]
    try:
        assert alice.view["phase"] == "betting"
        rules = alice.view["rules"]
        assert [rules[k] for k in CLOCKS] == [15, 20, 20]
        assert seconds_left(bob.view) <= 15
        bob_seat = bob.view["you"]

        asked = await send(bob, {"type": "clock_ask"})
        assert asked == {"type": "clock_asked", "seat": bob_seat, "user": cast["bob"].pk, "version": bob.version}
        for tab in (alice, tabs["chen"]):  # the whole room hears it; the host's page draws the notice
            assert (await tab.reply("clock_asked"))["seat"] == bob_seat
        assert (await db(Table.objects.get)(pk=room.pk)).version == bob.version  # nothing about the game moved

        version = alice.version
        answered = await send(alice, {"type": "clock_grant", "seconds": 20})
        assert answered == {"type": "clock_answered", "outcome": "granted", "seconds": 20, "seats": [bob_seat],
                            "users": [cast["bob"].pk], "version": version + 1}
        assert answered == {**(await bob.reply("clock_answered")), "version": version + 1}
        changed = [e for e in alice.events("rules_changed") if e.get("from_hand") == alice.view["hand_no"] + 1]
        assert [changed[0]["rules"][k] for k in CLOCKS] == [35, 40, 40]
        # The hand under way keeps its clock.
        assert [bob.view["rules"][k] for k in CLOCKS] == [15, 20, 20]
        fresh = await db(Room.objects.get)(pk=room.pk)
        assert [fresh.rules[k] for k in CLOCKS] == [35, 40, 40]
        assert {k: fresh.overrides[k] for k in CLOCKS} == {"bet_seconds": 35, "act_seconds": 40, "bank_seconds": 40}
        ask = await db(ClockAsk.objects.get)(room=room)
        assert (ask.outcome, ask.seconds, ask.answered_at is not None) == ("granted", 20, True)

        # Nothing left to answer.
        await refused(alice, {"type": "clock_grant", "seconds": 10}, "no_clock_ask", room)
        await refused(alice, {"type": "clock_dismiss"}, "no_clock_ask", room)

        await play_to_next_hand(tabs, room)
        assert [bob.view["rules"][k] for k in CLOCKS] == [35, 40, 40]
        assert 20 < seconds_left(bob.view) <= 35  # the new hand's betting runs on the longer clock
    finally:
        await close_all(tabs.values())


async def test_a_host_who_connects_later_sees_the_ask_and_dismisses_it(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, chen = tabs["alice"], tabs["chen"]
    try:
        await alice.close()
        chen_seat = chen.view["you"]
        assert (await send(chen, {"type": "clock_ask"}))["seat"] == chen_seat
        before = await db(room_as_is)(room)

        again = Tab(cast["alice"], room.code)
        tabs["alice"] = again
        snapshot = await again.open()
        assert snapshot["type"] == "snapshot"
        pending = await again.next()
        assert pending == {"type": "clock_asked", "seat": chen_seat, "user": cast["chen"].pk,
                           "version": snapshot["version"]}
        # Nobody else is sent the pending asks on connecting.
        late = Tab(cast["bob"], room.code)
        try:
            await late.open()
            assert all(f["type"] not in ANSWERS for f in await late.drain())
        finally:
            await late.close()

        answered = await send(again, {"type": "clock_dismiss"})
        assert answered == {"type": "clock_answered", "outcome": "dismissed", "seconds": None, "seats": [chen_seat],
                            "users": [cast["chen"].pk], "version": again.version}
        assert (await chen.reply("clock_answered"))["outcome"] == "dismissed"
        version, state, meta, rules, overrides, status, asks = await db(room_as_is)(room)
        assert (version, state, rules, overrides, status) == before[:2] + before[3:6]  # the game and its rules as they were
        assert [a[4:] for a in asks] == [("dismissed", None)]

        # A host who connects once it was answered is sent nothing.
        third = Tab(cast["alice"], room.code)
        try:
            await third.open()
            assert all(f["type"] not in ANSWERS for f in await third.drain())
        finally:
            await third.close()
    finally:
        await close_all(tabs.values())


async def test_every_refusal_changes_nothing(people, clock, no_resync):
    room, tabs = await seated_table(people, bank=500, extra=("erin", "frank"))
    alice, bob, chen, erin, frank = (tabs[n] for n in ("alice", "bob", "chen", "erin", "frank"))
    others = (alice, chen)
    try:
        # Not seated: a spectator, and a player who left their seat.
        await refused(erin, {"type": "clock_ask"}, "not_seated", room, others)
        assert acked(await frank.act("sit", buy_in=500, role="side"))
        assert acked(await frank.act("leave"))
        await catch_up(tabs.values(), room)
        assert me(frank.view) is None
        await refused(frank, {"type": "clock_ask"}, "not_seated", room, others)
        # The host sets the clock, and asks nobody.
        await refused(alice, {"type": "clock_ask"}, "host_sets_clock", room, (bob, chen))
        # Answers with nothing pending.
        await refused(alice, {"type": "clock_grant", "seconds": 10}, "no_clock_ask", room, (bob, chen))
        await refused(alice, {"type": "clock_dismiss"}, "no_clock_ask", room, (bob, chen))

        assert (await send(bob, {"type": "clock_ask"}))["type"] == "clock_asked"
        for tab in (alice, chen, tabs["dara"], erin, frank):
            await tab.reply("clock_asked")
        # Once within two minutes, answered or not.
        clock.advance(110)  # and the test's own seconds
        await refused(bob, {"type": "clock_ask"}, "clock_ask_wait", room, others)
        # Only the host answers; with 10, 20 or 30 as a JSON number and nothing else.
        for message in ({"type": "clock_grant", "seconds": 10}, {"type": "clock_dismiss"}):
            await refused(bob, message, "not_host", room, others)
            await refused(erin, message, "not_host", room, others)
        for seconds in ("10", 15, -10, None, [10], 10.0, True, 0, 40, {"s": 10}):
            await refused(alice, {"type": "clock_grant", "seconds": seconds}, "bad_seconds", room, (bob, chen))
        await refused(alice, {"type": "clock_grant"}, "bad_seconds", room, (bob, chen))

        assert (await send(alice, {"type": "clock_dismiss"}))["outcome"] == "dismissed"
        for tab in (bob, chen, tabs["dara"], erin, frank):
            await tab.reply("clock_answered")
        await refused(bob, {"type": "clock_ask"}, "clock_ask_wait", room, others)
        clock.advance(11)  # two minutes since the ask
        assert (await send(bob, {"type": "clock_ask"}))["type"] == "clock_asked"
        for tab in (alice, chen, tabs["dara"], erin, frank):
            await tab.reply("clock_asked")

        # A room closed while the sockets are still open (the close is on its way).
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.CLOSED)
        await refused(chen, {"type": "clock_ask"}, "room_closed", room, (alice, bob))
        await refused(alice, {"type": "clock_grant", "seconds": 10}, "room_closed", room, (bob, chen))
        await refused(alice, {"type": "clock_dismiss"}, "room_closed", room, (bob, chen))
    finally:
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.OPEN)
        await close_all(tabs.values())


async def test_a_clock_at_its_largest_is_not_asked_for_and_a_grant_stops_there(cast, no_resync):
    most = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}
    room, tabs = await seated_table(cast, overrides=most, bank=500)
    alice, bob, chen = tabs["alice"], tabs["bob"], tabs["chen"]
    try:
        await refused(bob, {"type": "clock_ask"}, "clock_at_most", room, (alice, chen))

        # Below the largest, a grant lifts each clock up to it and no further.
        await db(Room.objects.filter(pk=room.pk).update)(
            rules={**(await db(Room.objects.get)(pk=room.pk)).rules, "bet_seconds": 590},
            overrides={**most, "bet_seconds": 590})
        assert (await send(bob, {"type": "clock_ask"}))["type"] == "clock_asked"
        await alice.reply("clock_asked")
        assert (await send(alice, {"type": "clock_grant", "seconds": 30}))["outcome"] == "granted"
        for tab in (bob, chen):
            await tab.reply("clock_answered")
        fresh = await db(Room.objects.get)(pk=room.pk)
        assert [fresh.rules[k] for k in CLOCKS] == [600, 600, 600]
        # Now at its largest: the next ask is refused for that, once the wait is over too.
        await refused(chen, {"type": "clock_ask"}, "clock_at_most", room, (alice, bob))
    finally:
        await close_all(tabs.values())
