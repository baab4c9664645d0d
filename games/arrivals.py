"""A table socket's incoming frames, judged as they arrive (docs/protocol.md, "Client to server").

The consumer handles one message at a time, and a command waits for the database before the next is handled: a
frame judged when its turn came was judged late, and a burst behind slow commands let more through than the rate
allows. `Arrivals` takes each message from the server the moment it comes, judges it then, and hands it on in order.
Its cost is one queue hop a message (a few microseconds, against the milliseconds of a command).
"""

import asyncio
import time
from collections import deque

# daphne's own limit on an incoming message, set wherever daphne is started (Procfile, deploy/systemd, tests/servers.py,
# benchmarks/bench.py, config/settings.py for runserver): above the socket's limit, so that a frame between the two
# reaches `Arrivals` and gets 4409 (with daphne's default, 1 MiB, a larger one was dropped: 1006), and bounded, since
# daphne holds a whole message in memory before any of our code sees it (docs/protocol.md, "Client to server").
SERVER_MESSAGE_MAX = 4 * 1024 * 1024

TOO_BIG = {"type": "websocket.receive", "refused": "too_big"}
RATE_LIMITED = {"type": "websocket.receive", "refused": "rate_limited"}


class Arrivals:
    """The server's messages for one socket, each judged on arrival: a frame over `max_frame` bytes, or over
    `rate_limit` in the second before it, becomes TOO_BIG or RATE_LIMITED, its payload let go at once. A frame too big
    does not count towards the rate; every other frame does, whatever it holds. `receive` is the ASGI receive the
    consumer reads instead of the server's; `stop` ends the pump."""

    def __init__(self, receive, *, max_frame: int, rate_limit: int):
        self.max_frame, self.rate_limit = max_frame, rate_limit
        self.recent: deque[float] = deque(maxlen=rate_limit)  # arrival times of the latest frames counted
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.pump = asyncio.get_running_loop().create_task(self._pump(receive))

    async def receive(self) -> dict:
        message = await self.inbox.get()
        if isinstance(message, BaseException):  # the server's receive failed: fail here, as it would have
            raise message
        return message

    def stop(self) -> None:
        self.pump.cancel()

    async def _pump(self, receive) -> None:
        try:
            while True:
                message = await receive()
                if message["type"] == "websocket.receive":
                    message = self.judge(message)
                self.inbox.put_nowait(message)
                if message["type"] == "websocket.disconnect":
                    return
        except Exception as e:
            self.inbox.put_nowait(e)

    def judge(self, message: dict) -> dict:
        text = message.get("text")
        if text is not None:
            chars = len(text)  # UTF-8 is 1 to 4 bytes a character: encode only when the count leaves it open
            too_big = chars > self.max_frame or (chars * 4 > self.max_frame and len(text.encode()) > self.max_frame)
        else:
            too_big = len(message.get("bytes") or b"") > self.max_frame
        if too_big:
            return TOO_BIG
        now = time.monotonic()
        if len(self.recent) == self.rate_limit and now - self.recent[0] < 1.0:
            return RATE_LIMITED
        self.recent.append(now)
        return message
