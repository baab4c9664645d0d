"""Reads of rooms, tables and hand records. Nothing here writes or locks.

Everything that reaches a player goes through `engine.view` (the live table) or `hand_record`
(a hand, only once it is over): the stored state and events hold face-down cards.
"""

from collections import OrderedDict

import orjson
from django.urls import reverse

from games.broadcast import chat_json
from games.engine import TableState, redact_event, shared_view, state_from_json, view
from games.fields import dumps as json_dumps
from games.fields import text as json_text
from games.models import ChatMessage, Hand, HandEvent, HandSeat, Room, Seat, Table

CHAT_HISTORY = 50

_STATES: OrderedDict = OrderedDict()  # (room, version) -> TableState: one parse per process, not per viewer
_STATES_KEPT = 512


def state_at(room_id: int, version: int, state_json: dict):
    key = (room_id, version)
    state = _STATES.get(key)
    if state is None:
        state = state_from_json(state_json)
        _STATES[key] = state
        if len(_STATES) > _STATES_KEPT:
            _STATES.popitem(last=False)
    return state


def open_room_by_code(code: str) -> Room | None:
    return Room.objects.filter(code=code, status=Room.Status.OPEN).select_related("host").first()


def room_info(room: Room, *, started: bool | None = None) -> dict:
    info = {
        "id": room.pk, "code": room.code, "invite_url": reverse("games:invite", kwargs={"token": room.invite_token}),
        "preset": room.preset, "currency": room.currency, "kind": room.kind, "buy_in_min": room.buy_in_min,
        "buy_in_max": room.buy_in_max, "status": room.status,
        "host": {"id": room.host_id, "name": room.host.public_name},
    }
    if started is not None:
        info["started"] = started
    return info


def update_frames(version: int, state: TableState, events: list[dict], seat_ids, started: bool,
                  stalled: str | None = None) -> dict[str, str]:
    """The `update` frame of every viewer, as the text the socket sends: one per seat id in `seat_ids`, and
    one under "" for everyone else (spectators). Made once per command by the process that committed it,
    so that each connection only picks its own text (games/broadcast.py, games/consumers.py).
    `stalled`: why the engine refused the next hand (games/services.py, `start_refused`), until the table changes.

    What every viewer's view shares (the rules, the seats, the last hand: `engine.view.shared_view`) is made and
    encoded once, and each frame embeds that text (`orjson.Fragment`); the hands are evaluated once too. A frame
    is the same text as `json_text` of the viewer's own `view` (tests/games/test_frames.py)."""
    viewers = (*seat_ids, None)
    try:
        shared = {k: orjson.Fragment(json_dumps(v)) for k, v in shared_view(state).items()}
        evals: dict = {}
        return {seat_id or "": json_dumps(_update(version, state, events, seat_id, started, stalled,
                                                   view(state, seat_id, detached=False, shared=shared,
                                                        evals=evals))).decode()
                for seat_id in viewers}
    except orjson.JSONEncodeError:  # what orjson refuses (games.fields.text): each frame through json_text
        return {seat_id or "": json_text(_update(version, state, events, seat_id, started, stalled,
                                                 view(state, seat_id, detached=False)))
                for seat_id in viewers}


def _update(version: int, state: TableState, events: list[dict], seat_id: str | None, started: bool,
            stalled: str | None, seen: dict) -> dict:
    shown = [e for e in (redact_event(e, seat_id) for e in events) if e is not None]
    return {"type": "update", "version": version, "view": seen, "events": shown, "started": started,
            "stalled": stalled}


def snapshot(room: Room, user) -> dict:
    """Everything a connection needs to draw the table from nothing (on connect, on request)."""
    table = Table.objects.select_related("room__host").get(pk=room.pk)
    room = table.room  # as it is now, not as the socket found it: the host passes when the host leaves
    seat_id = (table.meta.get("users") or {}).get(str(user.pk))
    state = state_at(room.pk, table.version, table.state)
    presence = {s.engine_id: s.connected for s in Seat.objects.filter(room=room, left_at__isnull=True).only("pk", "connected", "room_id")}
    chat = ChatMessage.objects.filter(room=room, hidden=False).select_related("user").order_by("-pk")[:CHAT_HISTORY]
    return {
        "type": "snapshot", "version": table.version, "room": room_info(room, started=table.meta.get("started", False)),
        "me": {"user": user.pk, "name": user.public_name, "seat": seat_id},
        "view": view(state, seat_id), "presence": presence, "stalled": table.meta.get("start_refused"),
        "chat": [chat_json(m) for m in reversed(list(chat))],
    }


def hands_for(user, *, room_code: str | None = None, game: str | None = None):
    """The user's finished hands, newest first, with their net result (the records page)."""
    rows = HandSeat.objects.filter(user=user, hand__ended_at__isnull=False).select_related("hand", "hand__room")
    if room_code:
        rows = rows.filter(hand__room__code=room_code)
    if game:
        rows = rows.filter(hand__room__preset=game)
    return rows.order_by("-hand_id")


def hand_record(hand: Hand) -> dict | None:
    """A finished hand: every event in order (all cards), the result, the commitment and seed.
    None while the hand is being played (its events hold face-down cards)."""
    if not hand.is_over:
        return None
    events = list(HandEvent.objects.filter(hand=hand).order_by("version", "seq").values("version", "type", "data"))
    return {"hand": hand, "events": events, "summary": hand.summary or {}, "players": list(hand.players.select_related("user"))}


def live_seat_refs() -> set[str]:
    """Seat references of every seat still at a table (wallet_audit: no hold without a seat)."""
    return {f"room{room_id}:s{pk}" for pk, room_id in Seat.objects.filter(left_at__isnull=True).values_list("pk", "room_id")}
