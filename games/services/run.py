"""The locked run of one command (`_locked`, `_Run`), the time it reads (`_now`) and what each seat owns
(`_owned`). Above store.py and errors.py; every module above builds on a `_Run`.

Bookkeeping that is not rules lives in `Table.meta`, written under the same lock (`_meta_defaults`):
- users: {user id: seat id}; seats: {seat id: {user, hold, bot, role}}
- actions: recent [user id, action id, version] (a client action id is applied once)
- started: hands follow one another once the host started (always in AI rooms)
- next_hand_at: when the next hand starts (epoch seconds), set when a hand or bank decision ends
- acted / timed: seats that acted themselves / were timed out in the current hand
- streak: hands in a row a seat played entirely by timeouts; away: {seat id: since}
- sockets: {seat id: {socket: process}}, its owner's open sockets (presence.py); absent: {seat id: since the last
  one closed}
- kicked: user ids the host removed (they cannot sit again in this room)
"""

import time
from datetime import UTC, datetime

from django.utils.translation import gettext as _

from games.engine import Command, apply, state_from_json
from games.models import Room, Table
from games.services.errors import GameError
from games.services.store import _lock_table_row


def _now() -> float:
    """The time a run reads once (`_Run.now`). Tests move it here: games.services.run._now."""
    return time.time()


def _dt(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


class _Run:
    """One locked command: the table, its state and meta, and the events gathered so far."""

    def __init__(self, table: Table, room: Room):
        self.table = table
        self.room = room
        # What `_save` compares the command's result with: the phase and what each seat owned before it.
        self.phase_before = table.state["phase"]
        self.owned_before = _owned(table.state)
        # The row's state was parsed for this command alone: the engine's state takes it over (no copy). The
        # engine's `apply` works on a copy of it, so a refused command changes nothing; `_save` writes the result.
        self.state = state_from_json(table.state, copy=False)
        self.meta = _meta_defaults(table.meta)
        self.events: list[tuple[str, dict]] = []  # (actor, event)
        self.now = _now()
        self.chips_in: dict[str, int] = {}  # seat id -> chips this command put into its hold first
        self.left_seats: dict[str, dict] = {}  # seats removed by this command (their meta, for the record)

    def apply(self, actor: str, action: str, args: dict | None = None) -> list[dict]:
        self.state, events = apply(self.state, Command(actor=actor, action=action, args=args or {}, now=self.now))
        self.events += [(actor, e) for e in events]
        return events

    def seat_of(self, user) -> str | None:
        return self.meta["users"].get(str(user.pk))


def _meta_defaults(meta: dict) -> dict:
    meta = dict(meta or {})
    for key, default in (("users", {}), ("seats", {}), ("actions", []), ("started", False), ("next_hand_at", None),
                         ("acted", []), ("timed", []), ("streak", {}), ("away", {}), ("kicked", []),
                         ("hand_over_at", 0.0), ("sockets", {}), ("absent", {})):
        meta.setdefault(key, default)
    return meta


def _locked(room_id: int) -> _Run:
    """Lock the room's table (needs an open transaction). Raises GameError for an unknown room."""
    table = _lock_table_row(room_id)
    if table is None:
        raise GameError("no_room", _("There is no such room."))
    return _Run(table, table.room)


def _owned(state: dict) -> dict[str, int]:
    """What each seat owns at the table: its stack, the bank for the banker, a jackpot it seeded."""
    out = {x["id"]: x["stack"] for x in state["seats"]}
    if state.get("banker") in out:
        out[state["banker"]] += state["bank"]
    if state.get("jackpot") and state.get("jackpot_owner") in out:
        out[state["jackpot_owner"]] += state["jackpot"]
    return out
