"""The ack and the version rule (docs/protocol.md): an action id applies once, an applied action is acked in
its sender's own update or in an `ack` frame before the frame that draws its version; every update carries
the next version, and a lost update is filled in from the stored events or repaired by a snapshot."""

import asyncio

import pytest

from games import broadcast
from tests.games.conftest import acked
from tests.games.sockets import (
    Tab,
    catch_up,
    close_all,
    db,
    seated_table,
    table_version,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


# --- the ack ------------------------------------------------------------------------------------------


async def test_the_same_action_id_twice_is_applied_once(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        first = await bob.act("chip", action_id="chip-once", amount=50)
        again = await bob.act("chip", action_id="chip-once", amount=50)
        assert (first["type"], first["ack"]) == ("update", "chip-once")  # applied: the ack rides in the update
        assert again == {"type": "ack", "action_id": "chip-once", "version": first["version"], "duplicate": True}
        assert again["version"] == await db(table_version)(room)
        await catch_up(tabs.values(), room)
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 50  # not 100
        assert first["version"] == before + 1
        assert [f["version"] for f in tabs["chen"].of("update")][-1] == before + 1
        # The same id from someone else is theirs: it applies.
        assert (await tabs["chen"].act("chip", action_id="chip-once", amount=10))["ack"] == "chip-once"
    finally:
        await close_all(tabs.values())


def _drop_next_update(monkeypatch) -> list[int]:
    """The next table update is lost (a channel layer delivers at most once); returns [its version] once dropped."""
    real, dropped = broadcast.table_update, []

    def lossy(*args, **kw):
        if not dropped:
            dropped.append(args[1])
            return None
        return real(*args, **kw)

    monkeypatch.setattr(broadcast, "table_update", lossy)
    return dropped


async def _next_frames(tab, n: int) -> list[dict]:
    """The next `n` frames of `tab`, presence frames left out."""
    frames = []
    while len(frames) < n:
        frame = await tab.next()
        if frame["type"] != "presence":
            frames.append(frame)
    return frames


async def _until_version(room, version: int) -> None:
    for _ in range(500):
        if await db(table_version)(room) >= version:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the table never reached v{version}")


async def test_an_applied_action_is_acked_in_the_senders_own_update_and_nowhere_else(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob, twin = tabs["bob"], Tab(cast["bob"], room.code)  # twin: bob's second tab
    try:
        await tabs["alice"].act("open_bank", amount=500)
        await twin.open()
        await catch_up([*tabs.values(), twin], room)
        seen = len(bob.frames)
        frame = await bob.act("chip", action_id="bob-chip", amount=10)
        version = await db(table_version)(room)
        assert (frame["type"], frame["ack"], frame["version"]) == ("update", "bob-chip", version)
        await catch_up([*tabs.values(), twin], room)
        # One frame answers the action and draws its version: no separate ack.
        assert [f["type"] for _t, f in bob.frames[seen:] if f["type"] != "presence"] == ["update"]
        # The same user's other connection, and everyone else, get that version without the ack.
        same = next(f for f in twin.of("update") if f["version"] == version)
        assert same == {k: v for k, v in frame.items() if k != "ack"}
        for name in ("alice", "chen", "dara"):
            assert "ack" not in next(f for f in tabs[name].of("update") if f["version"] == version), name
    finally:
        await close_all([*tabs.values(), twin])


async def test_actions_sent_back_to_back_are_each_acked_in_their_own_update(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        for n in (1, 2, 3):
            await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": f"pipe-{n}"})
        frames = await _next_frames(bob, 3)
        assert [(f["type"], f.get("ack"), f["version"]) for f in frames] == [
            ("update", "pipe-1", before + 1), ("update", "pipe-2", before + 2), ("update", "pipe-3", before + 3)]
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 30
        assert await bob.quiet()  # and nothing more: no ack frames after them
    finally:
        await close_all(tabs.values())


async def test_an_action_whose_update_does_not_come_is_acked_before_the_frame_that_draws_it(
        cast, no_resync, monkeypatch):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        # 1. bob's update is lost and he asks for a snapshot: the ack comes first, then the snapshot.
        dropped = _drop_next_update(monkeypatch)
        await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": "lost-1"})
        await _until_version(room, before + 1)
        await bob.send({"type": "snapshot"})
        ack, snap = await _next_frames(bob, 2)
        assert dropped == [before + 1]
        assert ack == {"type": "ack", "action_id": "lost-1", "version": before + 1, "duplicate": False}
        assert (snap["type"], snap["version"]) == ("snapshot", before + 1)
        # 2. Lost again; this time the next update (chen's) comes first: the lost version is filled in from the
        # stored events, with the ack in it, before chen's (docs/protocol.md, "Gaps").
        dropped = _drop_next_update(monkeypatch)
        await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": "lost-2"})
        await _until_version(room, before + 2)
        chen = await tabs["chen"].act("chip", action_id="chen-chip", amount=10)
        assert chen.get("ack") == "chen-chip", chen
        filled, update = await _next_frames(bob, 2)
        assert dropped == [before + 2]
        assert (filled["type"], filled["version"], filled["ack"], filled["view"]) == ("update", before + 2, "lost-2", None)
        assert (update["type"], update["version"]) == ("update", before + 3) and "ack" not in update
        assert await bob.quiet()  # each action acked once
    finally:
        await close_all(tabs.values())


# --- the version rule ---------------------------------------------------------------------------------


async def test_every_update_carries_the_next_version_and_a_snapshot_on_request_is_current(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        await tabs["alice"].act("open_bank", amount=500)
        await tabs["bob"].act("bet", amount=10)
        version = await catch_up(tabs.values(), room)
        for tab in tabs.values():
            versions = [f["version"] for f in tab.of("update")]
            assert versions == sorted(set(versions)) and versions[-1] == version
        await tabs["chen"].send({"type": "snapshot"})
        snap = await tabs["chen"].reply("snapshot")
        assert snap["version"] == version and snap["view"] == tabs["chen"].view
    finally:
        await close_all(tabs.values())


async def test_a_lost_update_is_repaired_by_a_snapshot(cast, settings, monkeypatch):
    settings.GAMES_RESYNC_SECONDS = 0.2
    room, tabs = await seated_table(cast)
    try:
        dropped = _drop_next_update(monkeypatch)
        assert acked(await tabs["alice"].act("open_bank", amount=500))
        version = await db(table_version)(room)
        frame = await tabs["chen"].reply("snapshot", "update")
        # Either the watcher's snapshot, or the next update with a gap that the client answers with a snapshot.
        if frame["type"] == "update":
            assert frame["version"] > dropped[0]
            await tabs["chen"].send({"type": "snapshot"})
            frame = await tabs["chen"].reply("snapshot")
        # The snapshot covers the lost version; the versions after it (the wakes that start the hand) may come
        # as updates, when the watcher's pass fell between the commands.
        assert frame["version"] >= dropped[0] and frame["view"]["banker"] == tabs["alice"].view["you"]
        await tabs["chen"].catch_up(version)
        assert tabs["chen"].version == version
        assert dropped[0] not in [f["version"] for f in tabs["chen"].of("update")]
    finally:
        await close_all(tabs.values())
