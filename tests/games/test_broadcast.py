"""Broadcasts from outside a server's event loop (a Celery worker's wakes) go through one loop of the process's own,
over the real Redis channel layer, and arrive; from a server's database thread they use the server's loop."""

import asyncio
import threading

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import broadcast

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("fresh_layer")]


async def listener(room_id: int) -> tuple:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(broadcast.group_name(room_id), channel)
    return layer, channel


async def test_a_worker_thread_sends_through_one_loop_of_its_own_and_every_message_arrives():
    layer, channel = await listener(90_001)
    loops = []

    def worker_side():  # what a Celery task does: plain sync code, no server loop around it
        for message_id in (1, 2, 3):
            broadcast.chat_hidden(90_001, message_id)
            loops.append(broadcast._loop)

    thread = threading.Thread(target=worker_side)
    thread.start()
    await asyncio.to_thread(thread.join)
    got = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(3)]
    assert [m["id"] for m in got] == [1, 2, 3] and {m["type"] for m in got} == {"chat.hidden"}
    assert loops[0] is not None and loops.count(loops[0]) == 3  # one loop for every call...
    assert loops[0] is not asyncio.get_running_loop() and loops[0].is_running()  # ...running beside this one


async def test_a_server_database_thread_sends_through_the_server_loop(monkeypatch):
    layer, channel = await listener(90_002)
    monkeypatch.setattr(broadcast, "_own_loop", lambda: pytest.fail("a server thread used a loop of its own"))
    await database_sync_to_async(broadcast.chat_hidden)(90_002, 7)
    assert (await asyncio.wait_for(layer.receive(channel), 5))["id"] == 7
