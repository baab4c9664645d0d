"""One client WebSocket of the load generator, and the frames it reads."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

import orjson
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.typing import Origin
from websockets.uri import parse_uri


def parse_frame(text: str) -> dict:
    """A server frame. orjson, except for what it refuses and the server may send: a lone surrogate, which the
    server writes as an escape through `json` (games.fields.text), as when an error quotes a frame back."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class Socket(asyncio.Protocol):
    """One client WebSocket: websockets' Sans-I/O protocol driven from asyncio's own callbacks. A frame is
    handled (`on_text`) in the callback that read it: no task is woken, no queue is filled per frame, as
    websockets' asyncio client does. The load generator shares the machine with the servers it measures, so
    its cost per frame is the servers' loss (docs/performance.md). Text frames only, as the server sends
    (a fragmented one is put together); pings are answered by the protocol."""

    def __init__(self, url: str, origin: str, headers: dict[str, str] | None, on_text, on_close):
        self.protocol = ClientProtocol(parse_uri(url), origin=Origin(origin), max_size=2**22)
        self.request = self.protocol.connect()
        for name, value in (headers or {}).items():
            self.request.headers[name] = value
        self.on_text, self.on_close = on_text, on_close
        self.transport: asyncio.Transport | None = None
        self.opened = asyncio.get_running_loop().create_future()
        self.lost = asyncio.get_running_loop().create_future()
        self.parts: list[bytes] = []
        self.abort_timer: asyncio.TimerHandle | None = None  # a closing socket not closed by its peer in 2 s

    @classmethod
    async def open(cls, url: str, origin: str, headers: dict[str, str] | None, on_text, on_close,
                   timeout: float) -> Socket:
        split = urlsplit(url)
        sock = cls(url, origin, headers, on_text, on_close)

        async def opening():
            await asyncio.get_running_loop().create_connection(lambda: sock, split.hostname, split.port)
            await sock.opened

        try:
            await asyncio.wait_for(opening(), timeout)
        except BaseException:
            if sock.transport is not None:
                sock.transport.abort()
            raise
        return sock

    # asyncio's callbacks
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.protocol.send_request(self.request)
        self._write()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        self._events()

    def eof_received(self) -> None:
        self.protocol.receive_eof()
        self._events()

    def connection_lost(self, exc) -> None:
        self.protocol.state = State.CLOSED
        if not self.opened.done():  # never opened: the caller of `open` has the error, there is no close to tell
            self.opened.set_exception(ConnectionError("socket closed during the handshake"))
            self.on_close = lambda: None
        if not self.lost.done():
            self.lost.set_result(None)
            self.on_close()

    def _events(self) -> None:
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                if self.protocol.handshake_exc is not None:
                    self.opened.set_exception(self.protocol.handshake_exc)
                else:
                    self.opened.set_result(None)
            elif event.opcode is Opcode.TEXT or event.opcode is Opcode.CONT:
                if event.fin and not self.parts:
                    self.on_text(event.data.decode())
                elif event.fin:
                    text, self.parts = b"".join((*self.parts, event.data)).decode(), []
                    self.on_text(text)
                else:
                    self.parts.append(event.data)
        self._write()

    def _write(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()
            else:
                self.transport.close()
        if self.protocol.close_expected() and self.abort_timer is None and not self.lost.done():
            self.abort_timer = asyncio.get_running_loop().call_later(2, self.transport.abort)

    # what the client calls
    def send(self, text: str) -> None:
        if self.protocol.state is not State.OPEN:
            raise ConnectionError("socket closed")
        self.protocol.send_text(text.encode())
        self._write()

    async def close(self) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(1000)
            self._write()
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), 2)
        except TimeoutError:
            self.transport.abort()
