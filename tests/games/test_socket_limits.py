"""The socket's limits (docs/protocol.md, "Client to server"): a frame over 16 KiB closes it with 4409, just
under is read; more than 20 messages in a second (counted as they arrive) are refused and not applied."""

import asyncio
import json
import time

import pytest

from games.consumers import CLOSE_TOO_BIG
from tests.games.conftest import acked, answers
from tests.games.sockets import (
    Closed,
    Tab,
    catch_up,
    close_all,
    create_room,
    db,
    seated_table,
    table_version,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


async def test_a_frame_over_16_kib_closes_the_socket_with_4409(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        await bob.send({"type": "chat", "text": "x" * (16 * 1024)})
        with pytest.raises(Closed) as closed:
            await bob.reply("chat")
        assert closed.value.code == CLOSE_TOO_BIG
        assert await db(table_version)(room) == before
        assert "chat" not in [f["type"] for f in await tabs["alice"].drain()]
    finally:
        await close_all(tabs.values())


async def test_just_under_16_kib_is_read(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        padding = 16 * 1024 - len(json.dumps({"type": "ping", "pad": ""}))
        await tab.send(json.dumps({"type": "ping", "pad": "y" * padding}))
        assert (await tab.next())["type"] == "pong"
    finally:
        await tab.close()


async def test_more_than_20_messages_in_a_second_are_refused_and_not_applied(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob = tabs["bob"]
    try:
        # alice opens the bank: bob can bet with chips.
        assert acked(await tabs["alice"].act("open_bank", amount=500))
        before = await catch_up(tabs.values(), room)
        await asyncio.sleep(1.05)  # bob's sit is out of the window
        for _ in range(20):
            await bob.send({"type": "ping"})
        for i in range(5):
            await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": f"burst-{i}"})
        frames = [await bob.next() for _ in range(25)]
        assert [f["type"] for f in frames[:20]] == ["pong"] * 20
        assert [f["code"] for f in frames[20:]] == ["rate_limited"] * 5
        assert await db(table_version)(room) == before
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 0
    finally:
        await close_all(tabs.values())


async def test_the_rate_counts_messages_as_they_arrive_not_as_their_turn_comes(cast, no_resync, monkeypatch):
    """A burst that waits behind slow commands is still one burst: 40 actions sent at once, each taking 80 ms of the
    database, apply 20 (counted when handled, the 21st came 1.6 s after the first was handled, and all 40 applied)."""
    from games import services

    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    real = services.action_submit

    def slow(**kwargs):
        time.sleep(0.08)
        return real(**kwargs)

    try:
        await catch_up(tabs.values(), room)
        await asyncio.sleep(1.05)  # bob's sit is out of the window
        before = await db(table_version)(room)
        monkeypatch.setattr(services, "action_submit", slow)
        ids = [f"burst-{i}" for i in range(40)]
        for i, action_id in enumerate(ids):  # chip, reset, chip, ...: each applied one makes a version
            action = "chip" if i % 2 == 0 else "reset"
            args = {"amount": 10} if action == "chip" else {}
            await bob.send({"type": "action", "action": action, "args": args, "action_id": action_id})
        answered, limited = [], 0
        while len(answered) + limited < len(ids):
            frame = await bob.next()
            if frame.get("code") == "rate_limited":
                limited += 1
            elif any(answers(frame, a) for a in ids):
                assert acked(frame), frame
                answered.append(frame.get("ack") or frame["action_id"])
        assert (answered, limited) == (ids[:20], 20)
        assert await db(table_version)(room) == before + 20
        # The window rolls by arrival too: a second after the burst, a message is read again.
        monkeypatch.setattr(services, "action_submit", real)
        await asyncio.sleep(1.05)
        assert acked(await bob.act("chip", amount=10))
    finally:
        await close_all(tabs.values())
