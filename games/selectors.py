"""Reads of rooms, tables and hand records. Nothing here writes or locks.

Everything that reaches a player goes through `engine.view` (the live table, here and in games/frames.py) or
`hand_record` (a hand, only once it is over): the stored state and events hold face-down cards.
"""

from collections import OrderedDict

from django.urls import reverse

from games.engine import state_from_json, view
from games.frames import chat_json
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
