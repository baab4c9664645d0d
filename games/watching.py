"""The table socket's part in spectators by consent (games/services/spectators.py, games/tv.py), kept out of
games/consumers.py: what a socket without a seat is sent beyond the update, and when it must close.

- In TV mode, a spectator's socket sends the command's `tv` frame right after its update (made and encoded once per
  command by the process that committed it: games/broadcast.py, `table_update`).
- With no spectators, a socket whose user is neither seated nor the host closes (4403, `no_spectators`): at the first
  update after its user stood up, or when the host chose the setting (the room's `spectators_mode` frame).
- The host's `spectator_removed` frame closes every socket of that user without a seat (4403, `spectator_removed`), and
  so does the first update after such a user, seated since, stands up.
- Every socket counts its user as watching while they have no seat (`watch_open`, `watch_close`: in this process's
  memory and its cache slot, games/services/watchers.py, never in the table row), and a socket whose user sits down
  or stands up moves between the two.
"""

from django.utils.translation import gettext as _

from games import services
from games.fields import text as json_text
from games.socket_db import db

CLOSE_FORBIDDEN = 4403


class Watching:
    """Mixed into games.consumers.TableConsumer: the methods it calls for spectators."""

    closed_by_watch = False

    async def watch_update(self, event: dict, seat_id: str | None) -> None:
        """After the update of `event` (a `table.update` group message) was drawn for this socket."""
        watch = event.get("watch")
        if seat_id is not None or not watch or not event["open"]:
            return
        me = self.scope["user"].pk
        if me in watch.get("removed", ()):  # removed by the host, sat down since, and now stood up
            await self.watch_refuse("spectator_removed")
        elif watch["mode"] == "none" and watch["host"] != me:
            await self.watch_refuse("no_spectators")
        elif watch.get("tv"):
            await self.send(text_data=watch["tv"])

    async def watch_filled(self, tv: dict | None, last: int | None) -> None:
        """After the versions up to `last` were filled in from the stored events: a spectator's `tv` frame of the last
        one (`tv`), unless a live update already drew a newer version."""
        if tv is not None and last is not None and self.version == last and not self.closed_by_watch:
            await self.send(text_data=json_text(tv))

    async def watch_opened(self) -> None:
        """This socket opened (after its snapshot): its user counts as watching while without a seat."""
        for frame in await db(services.watch_open)(room_id=self.room.pk, user=self.scope["user"],
                                                   socket=self.channel_name):
            await self.send(text_data=json_text({**frame, "version": self.version}))

    async def watch_tv(self, tv: dict | None) -> None:
        """A TV-mode spectator's `tv` frame, after the snapshot that came with it (games/selectors.py)."""
        if tv is not None:
            await self.send(text_data=json_text(tv))

    async def watch_seat(self, was: str | None, now: str | None) -> None:
        """This socket's user sat down (`was` None) or stood up (`now` None): a watcher no more, or again."""
        if (was is None) == (now is None):
            return
        if was is None:
            await db(services.watch_close)(room_id=self.room.pk, user=self.scope["user"], socket=self.channel_name)
        await self.watch_opened()

    async def watch_frame(self, frame: dict) -> None:
        """After the room's `frame` was sent: the frames that close a spectator's socket."""
        if self.seat_id is not None:
            return
        me = self.scope["user"].pk
        if frame["type"] == "spectator_removed" and frame["user"] == me:
            await self.watch_refuse("spectator_removed")
        elif frame["type"] == "spectators_mode" and frame["mode"] == "none" and frame["host"] != me:
            await self.watch_refuse("no_spectators")

    async def watch_refuse(self, code: str) -> None:
        message = {"no_spectators": _("This room has no spectators: take a seat to watch."),
                   "spectator_removed": _("The host asked you not to watch this room.")}[code]
        await self.send(text_data=json_text({"type": "error", "code": code, "message": message,
                                             "version": self.version}))
        self.closed_by_watch = True
        await self.close(code=CLOSE_FORBIDDEN)
