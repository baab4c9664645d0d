"""One ordered stream per table (docs/protocol.md, "The version rule", "Gaps", "The ack"): an update that comes
ahead of the one before it waits for it; a version whose message is lost is filled in from the stored events, as
its live update showed them to each viewer; `since` asks for versions again; a duplicate's ack follows the first's."""

import asyncio
import json

import pytest

from games import broadcast, consumers, selectors
from games.engine import state_from_json
from games.frames import record_update, update_frame, update_frames
from games.models import Table
from tests.games.conftest import make_player
from tests.games.sockets import Tab, catch_up, close_all, db, seated_table, table_version
from tests.games.test_socket_acks import _until_version

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


class HeldBack:
    """Replaces broadcast.table_update: the next table update is held back and sent right after the one that
    follows it (two senders whose messages cross), or never (`lost`). `frames` keeps what each viewer's live frame
    of the held version was."""

    def __init__(self, monkeypatch, *, lost: bool = False):
        self.real, self.lost = broadcast.table_update, lost
        self.version: int | None = None
        self.frames: dict[str, dict] = {}
        self.args: tuple | None = None
        monkeypatch.setattr(broadcast, "table_update", self)

    def __call__(self, room_id, version, state, events, users, is_open, started, stalled=None, watch=None):
        if self.version is None:
            self.version = version
            texts = update_frames(version, state, events, sorted(set(users.values())), started, stalled)
            self.frames = {seat: json.loads(text) for seat, text in texts.items()}
            self.args = (room_id, version, state, events, users, is_open, started, stalled, watch)
            return
        self.real(room_id, version, state, events, users, is_open, started, stalled, watch)
        if self.args is not None and not self.lost:
            self.real(*self.args)
        self.args = None


def updates(tab: Tab, after: int) -> list[dict]:
    return [f for f in tab.of("update") if f["version"] > after]


def seat_tab(tabs, seat: str) -> Tab:
    return next(tab for tab in tabs.values() if tab.view["you"] == seat)


def record_read(monkeypatch) -> list[int]:
    """Count the reads of the stored events (`selectors.updates_since`)."""
    reads, real = [], selectors.updates_since

    def counted(room_id, user, after):
        reads.append(after)
        return real(room_id, user, after)

    monkeypatch.setattr(selectors, "updates_since", counted)
    return reads


async def test_an_update_that_comes_ahead_of_the_one_before_waits_for_it(cast, no_resync, monkeypatch):
    room, tabs = await seated_table(cast, bank=500)
    try:
        before = await db(table_version)(room)
        held, reads = HeldBack(monkeypatch), record_read(monkeypatch)
        await tabs["bob"].send({"type": "action", "action": "bet", "args": {"amount": 10}, "action_id": "ahead-bob"})
        await _until_version(room, before + 1)
        chen = await tabs["chen"].act("bet", action_id="ahead-chen", amount=10)
        assert held.version == before + 1 and chen["version"] == before + 2
        await catch_up(tabs.values(), room)
        for name, tab in tabs.items():
            got = updates(tab, before)
            assert [f["version"] for f in got] == [before + 1, before + 2], name
            assert all(f["view"] is not None for f in got), name  # both live: nothing was rebuilt
            assert got[0]["events"] == held.frames[tab.view["you"] or ""]["events"], name
        assert updates(tabs["bob"], before)[0]["ack"] == "ahead-bob"
        assert reads == []
    finally:
        await close_all(tabs.values())


async def test_a_lost_update_is_filled_from_the_stored_events_as_each_viewer_saw_it_live(cast, no_resync,
                                                                                           monkeypatch):
    monkeypatch.setattr(consumers, "GAP_SECONDS", 0.05)
    room, tabs = await seated_table(cast, bank=500)
    erin = tabs["erin"] = Tab(await db(make_player)("erin"), room.code)  # a spectator
    try:
        await erin.open()
        await tabs["bob"].act("bet", amount=10)
        await tabs["chen"].act("bet", amount=10)
        await catch_up(tabs.values(), room)
        before = await db(table_version)(room)
        lost = HeldBack(monkeypatch, lost=True)
        # dara's bet closes the betting: the cards are dealt, each challenger's first one face down.
        await tabs["dara"].send({"type": "action", "action": "bet", "args": {"amount": 10}, "action_id": "lost-dara"})
        await _until_version(room, before + 1)
        turn = (await db(lambda: Table.objects.get(pk=room.pk).state)())["hand"]["turn"][0]
        frame = await seat_tab(tabs, turn).act("stand")
        assert frame["version"] == before + 2
        await catch_up(tabs.values(), room)
        for name, tab in tabs.items():
            got = updates(tab, before)
            assert [f["version"] for f in got] == [before + 1, before + 2], name
            filled, live = got
            seen = lost.frames[tab.view["you"] or ""]
            assert filled["view"] is None and filled["started"] is None and filled["stalled"] is None, name
            assert filled["events"] == seen["events"], name  # exactly the live update's events, cards redacted alike
            assert live["view"] == tab.view, name
            down = [e for e in filled["events"] if e["type"] == "card_dealt" and e["face"] == "down"]
            assert down and {e["seat"] for e in down if "card" in e} <= {tab.view["you"]}, name  # own cards only
        for name in ("bob", "chen", "dara"):
            assert any("card" in e for e in updates(tabs[name], before)[0]["events"]), name
        assert updates(tabs["dara"], before)[0]["ack"] == "lost-dara"
    finally:
        await close_all(tabs.values())


async def test_a_lost_last_update_is_filled_by_the_watcher_with_the_current_view(cast, settings, monkeypatch):
    room, tabs = await seated_table(cast, bank=500)
    # The watcher's quick passes from here on: during the seating, a tab that a loaded machine kept behind for 0.2 s
    # would be filled with a snapshot, which is not what this test is about.
    settings.GAMES_RESYNC_SECONDS = 0.2
    try:
        before = await db(table_version)(room)
        snapshots = {name: len(tab.of("snapshot")) for name, tab in tabs.items()}
        lost = HeldBack(monkeypatch, lost=True)
        frame = await tabs["bob"].act("chip", action_id="bob-chip", amount=10)
        assert (frame["type"], frame["version"], frame["ack"]) == ("update", before + 1, "bob-chip")
        await catch_up(tabs.values(), room)
        await tabs["chen"].send({"type": "snapshot"})
        snapshot = await tabs["chen"].reply("snapshot")
        for name, tab in tabs.items():
            (got,) = updates(tab, before)
            assert got["events"] == lost.frames[tab.view["you"]]["events"], name
            assert len(tab.of("snapshot")) == snapshots[name] + (name == "chen"), name  # the update was not a snapshot's
        assert updates(tabs["chen"], before)[0]["view"] == snapshot["view"]
    finally:
        await close_all(tabs.values())


async def test_since_sends_the_versions_after_it_again_and_a_snapshot_before_the_current_hand(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    chen = tabs["chen"]
    try:
        for name in ("bob", "chen", "dara"):
            await tabs[name].act("bet", amount=10)
        now = await catch_up(tabs.values(), room)
        live = {f["version"]: f for f in chen.of("update")}
        started = next(v for v, f in live.items() if any(e["type"] == "hand_started" for e in f["events"]))
        seen = len(chen.frames)
        await chen.send({"type": "since", "version": started - 1})
        again = [await chen.next() for _ in range(now - started + 1)]
        assert [f["version"] for f in again] == list(range(started, now + 1))
        assert [f["events"] for f in again] == [live[f["version"]]["events"] for f in again]
        assert all(f["view"] is None for f in again[:-1]) and again[-1]["view"] == chen.view
        assert await chen.quiet() and len(chen.frames) == seen + len(again)

        await chen.send({"type": "since", "version": started - 2})  # from before the current hand: a snapshot
        assert (await chen.next())["type"] == "snapshot"
        await chen.send({"type": "since", "version": now})  # nothing is missing: nothing comes
        assert await chen.quiet()
        for bad in (-1, "3", 2.0, True, None):
            await chen.send({"type": "since", "version": bad})
            assert (await chen.next())["code"] == "bad_version", bad
    finally:
        await close_all(tabs.values())


async def test_a_duplicates_ack_comes_after_the_first_ones(cast, no_resync, monkeypatch):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        HeldBack(monkeypatch)  # bob's update is still on its way when his retry is answered
        message = {"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": "twice"}
        await bob.send(message)
        await _until_version(room, before + 1)
        await bob.send(message)
        await asyncio.sleep(0.1)  # the retry is answered while the first one's update has not come
        await tabs["chen"].act("chip", action_id="chen-chip", amount=10)
        await catch_up(tabs.values(), room)
        await bob.drain()
        answers = [f for _text, f in bob.frames if f.get("ack") == "twice" or f.get("action_id") == "twice"]
        assert [(f["type"], f["version"]) for f in answers] == [("update", before + 1), ("ack", before + 1)]
        assert answers[1]["duplicate"] is True
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 10
    finally:
        await close_all(tabs.values())


async def test_a_viewers_update_rebuilt_from_the_record_is_its_live_one(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    try:
        for name in ("bob", "chen", "dara"):
            await tabs[name].act("bet", amount=10)
        version = await catch_up(tabs.values(), room)
        table = await db(lambda: Table.objects.get(pk=room.pk))()
        state = state_from_json(table.state)
        for tab in tabs.values():
            seat = tab.view["you"]
            live = next(f for f in tab.of("update") if f["version"] == version)
            rebuilt = update_frame(version, state, live["events"], seat, True, None)
            assert rebuilt == update_frames(version, state, live["events"], [seat], True)[seat]
            assert json.loads(rebuilt) == {k: v for k, v in live.items() if k != "ack"}
            assert json.loads(record_update(version, [], seat)) == {
                "type": "update", "version": version, "view": None, "events": [], "started": None, "stalled": None}
    finally:
        await close_all(tabs.values())
