"""Broadcasts over the real Redis channel layer: from outside a server's event loop (a Celery worker's wakes) through
one loop of the process's own; from a server's request thread through the server's loop; from a socket's database
call by its own thread, at once, on a loop of that thread's."""

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


async def test_a_socket_database_call_publishes_from_its_own_thread_in_order_before_it_returns(monkeypatch):
    from games.socket_db import db

    layer, channel = await listener(90_003)
    monkeypatch.setattr(broadcast, "async_to_sync", lambda f: pytest.fail("the call handed its message to a server loop"))
    both_arrived = threading.Event()
    loops = []

    async def receive_two():
        got = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(2)]
        both_arrived.set()
        return got

    def call():
        broadcast.chat_hidden(90_003, 1)
        broadcast.chat_hidden(90_003, 2)
        loops.append(broadcast._threads.loop)
        # Both are out while the call still runs: the socket's loop is free to receive them meanwhile.
        return both_arrived.wait(5)

    receiving = asyncio.get_running_loop().create_task(receive_two())
    assert await db(call)() is True
    assert [m["id"] for m in await receiving] == [1, 2]
    assert loops[0] is not asyncio.get_running_loop() and not loops[0].is_running()  # the thread's own, idle between
    assert getattr(broadcast._outboxes, "current", None) is None


async def test_a_call_that_raises_after_a_broadcast_still_sends_it():
    from games.socket_db import db

    layer, channel = await listener(90_004)

    def call():
        broadcast.chat_hidden(90_004, 3)
        raise ValueError("after the commit")

    with pytest.raises(ValueError):
        await db(call)()
    assert (await asyncio.wait_for(layer.receive(channel), 5))["id"] == 3


async def test_a_cancelled_call_sends_what_it_committed_and_its_thread_sends_the_rest():
    from games.socket_db import db

    layer, channel = await listener(90_005)
    reached, go_on, finished = threading.Event(), threading.Event(), threading.Event()

    def call():
        broadcast.chat_hidden(90_005, 4)
        reached.set()
        go_on.wait(10)
        broadcast.chat_hidden(90_005, 5)  # after the socket gave up on the call: the thread sends it itself
        finished.set()

    task = asyncio.get_running_loop().create_task(db(call)())
    assert await asyncio.to_thread(reached.wait, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    go_on.set()
    got = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(2)]
    assert [m["id"] for m in got] == [4, 5]
    assert await asyncio.to_thread(finished.wait, 10)
