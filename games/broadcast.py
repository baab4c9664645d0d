"""Messages to a room's connections, sent after commit (DESIGN.md, "Broadcast after commit, versioned").

One group message per command carries the `update` frame of every viewer, made once by the process
that committed the command (games/selectors.py, `update_frames`): each seat's own, and the spectators'.
Every consumer sends the one of its viewer as it is (games/consumers.py): no consumer decodes the table
state, and a face-down card is only ever in the frame of its owner's seat. Channel layers deliver at most once: a lost message is repaired by the
consumers' version check and the snapshot (games/consumers.py, `_watch`).
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.engine import TableState

logger = logging.getLogger(__name__)


def group_name(room_id: int) -> str:
    return f"room.{room_id}"


def _send(room_id: int, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(room_id), message)
    except Exception:  # the layer being down must not undo a committed command; clients resync
        logger.exception("broadcast to room %s failed", room_id)


def table_update(room_id: int, version: int, state: TableState, events: list[dict], users: dict, is_open: bool,
                 started: bool) -> None:
    """`users` maps user ids to their seat ids: a connection finds its seat, and its frame, there."""
    from games.selectors import update_frames

    frames = update_frames(version, state, events, sorted(set(users.values())), started)
    _send(room_id, {"type": "table.update", "version": version, "frames": frames, "users": users,
                    "open": is_open})


def chat(room_id: int, message) -> None:
    _send(room_id, {"type": "chat.message", "message": chat_json(message)})


def presence(room_id: int, seat_id: str, connected: bool) -> None:
    _send(room_id, {"type": "presence.changed", "seat": seat_id, "connected": connected})


def chat_hidden(room_id: int, message_id: int) -> None:
    _send(room_id, {"type": "chat.hidden", "id": message_id})


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def to_user(user_id: int, kind: str) -> None:
    """Tell every open socket of a user (any room, any process): user.banned, user.muted."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": kind})
    except Exception:
        logger.exception("message to user %s failed", user_id)


def chat_json(message) -> dict:
    return {"id": message.pk, "user": message.user_id, "name": message.user.public_name, "text": message.text,
            "at": message.created_at.isoformat()}
