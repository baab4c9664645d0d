"""Chat over the socket: it reaches everyone in the room and only them, stays in the snapshot's history, and a
mute, given before connecting or while connected, stops it."""

import datetime

import pytest
from django.utils import timezone

from tests.games.conftest import acked
from tests.games.sockets import (
    Tab,
    close_all,
    create_room,
    db,
    seated_table,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


async def test_chat_reaches_everyone_in_the_room_and_only_them(cast, no_resync):
    room, tabs = await seated_table(cast)
    other = await db(create_room)(cast["dara"], "ban-luck")
    elsewhere = Tab(cast["dara"], other.code)
    try:
        await elsewhere.open()
        await tabs["bob"].send({"type": "chat", "text": "  good luck, all  "})
        for tab in tabs.values():
            frame = await tab.reply("chat")
            assert frame["message"]["text"] == "good luck, all" and frame["message"]["name"] == "Bob"
            assert frame["message"]["user"] == cast["bob"].pk and frame["version"] == tab.version
        assert await elsewhere.quiet()
        # A new connection finds it in the snapshot's history.
        late = Tab(cast["chen"], room.code)
        snap = await late.open()
        assert [m["text"] for m in snap["chat"]] == ["good luck, all"]
        await late.close()
    finally:
        await close_all([*tabs.values(), elsewhere])


async def test_a_muted_user_cannot_chat(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    bob = cast["bob"]
    bob.muted_until = timezone.now() + datetime.timedelta(hours=1)
    await db(bob.save)()
    tabs = [Tab(bob, room.code), Tab(cast["alice"], room.code)]
    try:
        for tab in tabs:
            await tab.open()
        await tabs[0].send({"type": "chat", "text": "spam"})
        frame = await tabs[0].reply("error", "chat")
        assert (frame["type"], frame["code"]) == ("error", "muted")
        assert await tabs[1].quiet()
        # Muted is not gagged from playing: the socket still takes actions.
        assert acked(await tabs[0].act("sit", buy_in=500))
    finally:
        await close_all(tabs)


async def test_a_mute_given_while_connected_applies_at_once(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        await tab.send({"type": "chat", "text": "hello"})
        assert (await tab.reply("chat", "error"))["type"] == "chat"
        await db(type(cast["bob"]).objects.filter(pk=cast["bob"].pk).update)(
            muted_until=timezone.now() + datetime.timedelta(hours=1))
        await tab.send({"type": "chat", "text": "more spam"})
        frame = await tab.reply("chat", "error")
        assert (frame["type"], frame["code"]) == ("error", "muted")
    finally:
        await tab.close()
