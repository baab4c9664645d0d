"""WebSocket consumers: parse and authenticate only; every write goes through services."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer

# Close codes (docs/protocol.md).
CLOSE_UNAUTHENTICATED = 4401


class TableConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            # Accept then close with a code the client can read; a bare reject gives it nothing.
            await self.accept()
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.accept()
