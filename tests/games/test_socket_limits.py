"""The socket's limits (docs/protocol.md, "Client to server"): a frame over 16 KiB closes it with 4409, just
under is read; more than 20 messages in a second are refused and not applied."""

import asyncio
import json

import pytest

from games.consumers import CLOSE_TOO_BIG
from tests.games.conftest import acked
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
