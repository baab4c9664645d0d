"""Reads of rooms, tables and hand records. Nothing here writes or locks.

Everything that reaches a player goes through `engine.view` (the live table, here and in games/frames.py) or
`hand_record` (a hand, only once it is over): the stored state and events hold face-down cards. Who may read a
hand's record is `hands_visible_to` alone; every page and API answer that shows one asks it.
"""

from collections import OrderedDict
from typing import NamedTuple

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse

from games.engine import state_from_json, view
from games.engine.shuffle import CHAIN_FIELDS, chain_hash
from games.frames import chat_json, hand_events, record_update, update_frame
from games.models import (
    ChatMessage,
    ClubMember,
    Hand,
    HandEvent,
    HandSeat,
    HandShare,
    Room,
    RoomVisit,
    Seat,
    Table,
    is_room_code,
)
from games.tv import TV, tv_frame, tv_shown

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
    """The open room of `code`, or None; a text that cannot be a room code (`is_room_code`: a path's or a form's) is
    answered without a query."""
    if not is_room_code(code):
        return None
    return Room.objects.filter(code=code, status=Room.Status.OPEN).select_related("host").first()


def room_info(room: Room, *, started: bool | None = None) -> dict:
    info = {
        "id": room.pk, "code": room.code, "invite_url": reverse("games:invite", kwargs={"token": room.invite_token}),
        "preset": room.preset, "currency": room.currency, "kind": room.kind, "buy_in_min": room.buy_in_min,
        "buy_in_max": room.buy_in_max, "status": room.status, "approve_buy_ins": room.approve_buy_ins,
        "spectators": room.spectators,
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
    # The current (or just finished) hand's events, as this viewer's live updates showed them: the table log is
    # rebuilt from them after a refresh. Read up to the snapshot's version: a command committed since comes after.
    events = [] if table.hand_id is None else list(
        HandEvent.objects.filter(hand_id=table.hand_id, version__lte=table.version).order_by("version", "seq")
        .values_list("data", flat=True))
    return {
        "type": "snapshot", "version": table.version, "room": room_info(room, started=table.meta.get("started", False)),
        "me": {"user": user.pk, "name": user.public_name, "seat": seat_id},
        "view": view(state, seat_id), "presence": presence, "stalled": table.meta.get("start_refused"),
        "chat": [chat_json(m) for m in reversed(list(chat))], "hand_events": hand_events(events, seat_id),
        # TV mode's cards for a spectator, sent as the `tv` frame after the snapshot (games/tv.py)
        **({"tv": tv_frame(table.version, tv_shown(table.meta, state))}
           if seat_id is None and room.spectators == TV else {}),
    }


class Updates(NamedTuple):
    """`updates_since`: one viewer's update frames as (version, text), the viewer's seat id, the room open or not."""

    frames: list[tuple[int, str]]
    seat: str | None
    open: bool
    tv: dict | None = None  # a TV-mode spectator's `tv` frame of the last version (games/tv.py)


def updates_since(room_id: int, user, after: int) -> Updates | None:
    """`user`'s update frames of the table's versions after `after`, rebuilt from the stored events (docs/protocol.md,
    "Gaps"): each version's events as its live update showed them to this viewer, the last version with the table's
    view. None when they begin before the current hand: a snapshot answers then."""
    table = Table.objects.select_related("room").get(pk=room_id)
    seat_id = (table.meta.get("users") or {}).get(str(user.pk))
    updates = Updates([], seat_id, table.room.is_open)
    if after >= table.version:
        return updates
    if table.hand_id is not None:
        first = HandEvent.objects.filter(hand_id=table.hand_id).order_by("version").values_list("version", flat=True)
        if after + 1 < first.first():  # the hand's `hand_started`
            return None
    events: dict[int, list[dict]] = {}
    rows = HandEvent.objects.filter(room_id=room_id, version__gt=after, version__lte=table.version)
    for version, data in rows.order_by("version", "seq").values_list("version", "data"):
        events.setdefault(version, []).append(data)
    last = table.version
    updates.frames.extend((version, record_update(version, events.get(version, []), seat_id))
                          for version in range(after + 1, last))
    state = state_at(room_id, last, table.state)
    updates.frames.append((last, update_frame(last, state, events.get(last, []), seat_id,
                                              table.meta.get("started", False), table.meta.get("start_refused"))))
    if seat_id is None and table.room.spectators == TV:
        return updates._replace(tv=tv_frame(last, tv_shown(table.meta, state)))
    return updates


def hands_for(user, *, room_code: str | None = None, game: str | None = None):
    """The user's finished hands, newest first, with their net result (the records page)."""
    rows = HandSeat.objects.filter(user=user, hand__ended_at__isnull=False).select_related("hand", "hand__room")
    if room_code:
        rows = rows.filter(hand__room__code=room_code)
    if game:
        rows = rows.filter(hand__room__preset=game)
    return rows.order_by("-hand_id")


def hands_visible_to(user) -> QuerySet[Hand]:
    """The finished hands whose record `user` may read (docs/rules.md, "Who may read a hand record"): who sat in the
    hand (main seat or side bet), who came to the room before it ended, the room's host, the members of the room's
    club, and moderators (the `view_hand` permission)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return Hand.objects.none()
    finished = Hand.objects.filter(ended_at__isnull=False)
    if user.has_perm("games.view_hand"):
        return finished
    sat = HandSeat.objects.filter(hand=OuterRef("pk"), user=user)
    watched = RoomVisit.objects.filter(room=OuterRef("room"), user=user, first_at__lte=OuterRef("ended_at"))
    member = ClubMember.objects.filter(club=OuterRef("room__club"), user=user)
    return finished.filter(Q(room__host=user) | Exists(sat) | Exists(watched) | Exists(member))


def hand_visible_to(hand: Hand, user) -> bool:
    """`user` may read `hand`'s record (`hands_visible_to`); anyone else is answered 404, never 403."""
    return hands_visible_to(user).filter(pk=hand.pk).exists()


def hand_shared(token: str) -> HandShare | None:
    """The share link `token` while it is not revoked, with its finished hand, room and maker."""
    return (HandShare.objects.filter(token=token, revoked_at__isnull=True, hand__ended_at__isnull=False)
            .select_related("hand__room", "created_by").first())


def hand_shares(hand: Hand, user) -> list[HandShare]:
    """The share links of `hand` that `user` made and has not revoked, oldest first (the hand page lists them)."""
    return list(HandShare.objects.filter(hand=hand, created_by=user, revoked_at__isnull=True).order_by("pk"))


def hand_record(hand: Hand) -> dict | None:
    """A finished hand: every event in order (all cards), the result, the commitment and seed.
    None while the hand is being played (its events hold face-down cards)."""
    if not hand.is_over:
        return None
    events = list(HandEvent.objects.filter(hand=hand).order_by("version", "seq").values("version", "type", "data"))
    return {"hand": hand, "events": events, "summary": hand.summary or {}, "players": list(hand.players.select_related("user"))}


RECORD_FORMAT = "halfpoint-hand-1"  # the record file (docs/fairness.md, "The record file")
CHAIN_FORMAT = "halfpoint-chain-1"  # a room's chain file
CHAIN_PAGE = 200  # hands on one page of a room's chain, newest last


def hand_export(hand: Hand) -> dict:
    """A finished hand's record file, for those who may read it: what the offline verifier checks (the chain's
    fields, the chain hash) and, for a person, the cards of each hand and the players' names."""
    summary = hand.summary or {}
    return {
        "format": RECORD_FORMAT, "room": hand.room.code, "game": hand.rules.get("game"), "deck": hand.rules.get("deck"),
        "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
        **{name: summary.get(name) for name in CHAIN_FIELDS}, "chain": summary.get("chain"),
        "hands": summary.get("hands", {}), "names": {p.seat_id: p.user.public_name for p in hand.players.all()},
        "order_policy": hand.rules.get("order_policy"),  # "dice": the record must hold the dice (docs/fairness.md)
        # house-rules.md "The bank auction": the bids and the tie the deal key's stream broke (docs/fairness.md).
        **({"auction": summary["auction"]} if summary.get("auction") else {}),
        **({"voided": True} if summary.get("voided") else {}),  # hashed into the chain (docs/fairness.md)
    }


def room_chain(room: Room, user, *, upto: int | None = None) -> list[dict]:
    """The room's finished hands in order, at most CHAIN_PAGE up to hand `upto` (default: the last), each with its
    link and chain hash, and its record file when `user` may read it (the hashes alone tell nothing of the cards)."""
    hands = Hand.objects.filter(room=room, ended_at__isnull=False)
    if upto is not None:
        hands = hands.filter(number__lte=upto)
    page = list(hands.select_related("room").prefetch_related("players__user").order_by("-number")[:CHAIN_PAGE])
    readable = set(hands_visible_to(user).filter(pk__in=[h.pk for h in page]).values_list("pk", flat=True))
    return [{"hand_no": h.number, "prev": h.prev_chain or None, "chain": h.chain or None,
             "url": h.get_absolute_url() if h.pk in readable else None,
             "record": hand_export(h) if h.pk in readable else None} for h in reversed(page)]


def room_chain_problems(room: Room | int) -> list[str]:
    """What no longer holds in the room's stored hash chain: a hand whose record does not hash to its chain hash, or
    whose link does not name the hand stored before it. Empty when every hand is as it was dealt. Hands from before
    the chain (no hash) are left out."""
    problems, before = [], None
    rows = (Hand.objects.filter(room=room, ended_at__isnull=False).exclude(chain="").order_by("number")
            .values_list("number", "prev_chain", "chain", "summary"))
    for number, prev, chain, summary in rows:
        summary = summary or {}
        if chain_hash(summary) != chain or summary.get("chain") != chain:
            problems.append(f"hand {number}: its record does not hash to its chain hash {chain}")
        if summary.get("prev") != prev or (before is not None and prev != before):
            problems.append(f"hand {number}: its link {prev} does not name the hand before it")
        before = chain
    return problems


def live_seat_refs() -> set[str]:
    """Seat references of every seat still at a table (wallet_audit: no hold without a seat)."""
    return {f"room{room_id}:s{pk}" for pk, room_id in Seat.objects.filter(left_at__isnull=True).values_list("pk", "room_id")}
