"""What a table sends its viewers: the `update` frame of every viewer of a command (`update_frames`), one
viewer's update of a version rebuilt from the stored events (`update_frame`, `record_update`), the current hand's
events for a snapshot (`hand_events`) and a chat message as JSON (`chat_json`). games/broadcast.py (a command's
group message) and games/selectors.py (the snapshot, the updates since a version) both build on it; it imports
neither.
"""

import orjson

from games.engine import TableState, redact_event, shared_view, view
from games.fields import dumps as json_dumps
from games.fields import text as json_text


def update_frames(version: int, state: TableState, events: list[dict], seat_ids, started: bool,
                  stalled: str | None = None) -> dict[str, str]:
    """The `update` frame of every viewer, as the text the socket sends: one per seat id in `seat_ids`, and
    one under "" for everyone else (spectators). Made once per command by the process that committed it,
    so that each connection only picks its own text (games/broadcast.py, games/consumers.py).
    `stalled`: why the engine refused the next hand (`start_refused` in Table.meta), until the table changes.

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


def update_frame(version: int, state: TableState, events: list[dict], seat_id: str | None, started: bool,
                 stalled: str | None) -> str:
    """The `update` frame of one viewer: the text `update_frames` makes for that viewer."""
    return json_text(_update(version, state, events, seat_id, started, stalled, view(state, seat_id, detached=False)))


def record_update(version: int, events: list[dict], seat_id: str | None) -> str:
    """The `update` frame of a past version, rebuilt from its stored events: the events as its live update showed
    them to `seat_id`, and no view, `started` or `stalled` (a past version's state is not kept; docs/protocol.md,
    "Gaps")."""
    return json_text({"type": "update", "version": version, "view": None, "events": _shown(events, seat_id),
                      "started": None, "stalled": None})


def hand_events(events: list[dict], seat_id: str | None) -> list[dict]:
    """The current hand's events for a snapshot (docs/protocol.md, "snapshot"): each as the live update showed it
    to `seat_id`, so a reconnecting browser rebuilds the same table log and learns nothing more than it saw."""
    return _shown(events, seat_id)


def _update(version: int, state: TableState, events: list[dict], seat_id: str | None, started: bool,
            stalled: str | None, seen: dict) -> dict:
    return {"type": "update", "version": version, "view": seen, "events": _shown(events, seat_id),
            "started": started, "stalled": stalled}


def _shown(events: list[dict], seat_id: str | None) -> list[dict]:
    """The events as `seat_id` may see them (a spectator: None): a face-down card is its owner's alone."""
    return [e for e in (redact_event(e, seat_id) for e in events) if e is not None]


def chat_json(message) -> dict:
    return {"id": message.pk, "user": message.user_id, "name": message.user.public_name, "text": message.text,
            "at": message.created_at.isoformat()}
