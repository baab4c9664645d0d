"""When a player who is away is notified (Web Push; accounts/push.py sends, static/js/sw-push.js shows):
- your_turn: a deadline started for their seat (a turn, a bet, a bank decision) and, PUSH_GRACE_SECONDS later, it
  still waits for them and none of their tabs is in view (the sockets say so: `visibility_set`);
- next_hand: their table dealt a new hand and they have no socket open in that room (Seat.connected);
- club_room: a room opened in a club they belong to;
- night_again: a night they played is played again (games/nights.py), with the new room's invite link.
Each is on or off per player (accounts.push.KINDS); nothing at all happens unless push is configured.

The commit path only queues: the table's command sends `table_saved` on commit (games/services/save.py) and the
receiver here puts one `push_check` task on Celery's queue when a deadline or a hand started; it reads nothing, so a
command costs the same queries with notifications as without (tests/games/test_push.py). The worker does the reads
and the sending. Eager mode (tests, debugging) has no worker to wait the grace: the check runs at once.
"""

import logging
import time

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.language import for_user
from accounts.push import push_enabled, push_send, users_wanting
from games.models import ClubMember, Room, Seat, Table
from games.services.save import table_saved

logger = logging.getLogger(__name__)

PUSH_GRACE_SECONDS = 10  # a player who acts within this long after the turn came is not notified
# A socket's "visible" is kept this long; the page repeats it every two minutes while it stays in view
# (static/js/socket.js), and a socket that closes takes it back (games/consumers.py).
VISIBLE_SECONDS = 300
NEXT_HAND_TTL = 120  # seconds a "new hand" message may wait in the push service for an offline phone
CLUB_ROOM_TTL = 3600


# --- which tabs are in view: per user, in the cache (Redis in production) -----------------------------------------

def _visible_key(user_id: int) -> str:
    return f"push.visible.{user_id}"


def visibility_set(*, user_id: int, channel: str, visible: bool) -> None:
    """Remember whether the socket `channel` of the user shows its page. One cache entry per user maps their
    visible sockets to the time each stops counting; two tabs of one user changing in the same instant can lose
    one of the writes, which costs at most one notification sent or held back wrongly, until the next repeat."""
    key, now = _visible_key(user_id), time.time()
    shown = {c: until for c, until in (cache.get(key) or {}).items() if until > now}
    if visible:
        shown[channel] = now + VISIBLE_SECONDS
    else:
        shown.pop(channel, None)
    if shown:
        cache.set(key, shown, VISIBLE_SECONDS)
    else:
        cache.delete(key)


def user_visible(user_id: int) -> bool:
    now = time.time()
    return any(until > now for until in (cache.get(_visible_key(user_id)) or {}).values())


# --- the commit path: queue, read nothing ----------------------------------------------------------------------

def _humans(seats: dict, seat_ids) -> list[int]:
    return [info["user"] for seat_id in seat_ids if (info := seats.get(seat_id)) is not None and not info["bot"]]


@receiver(table_saved)
def _table_saved(sender, *, room_id: int, state, events: list[dict], seats: dict, deadline_before, **kwargs) -> None:
    if not push_enabled():
        return
    # A deadline that is new started a wait (engine: set_deadline): for the seats in deadline_for.
    new_wait = state.deadline is not None and state.deadline != deadline_before
    waiting = _humans(seats, state.deadline_for) if new_wait else []
    hand_no = next((e["hand_no"] for e in events if e["type"] == "hand_started"), None)
    dealt = _humans(seats, [s["id"] for s in state.seats if not s.get("away")]) if hand_no is not None else []
    if waiting or dealt:
        _queue(push_check, PUSH_GRACE_SECONDS, room_id=room_id, deadline=state.deadline if new_wait else None,
               waiting=waiting, hand_no=hand_no, dealt=dealt)


def club_room_opened(room: Room) -> None:
    """A club room was opened (games/clubs.py): its club's members are told, by a worker, once it is committed."""
    if not push_enabled() or room.club_id is None:
        return
    room_id = room.pk
    transaction.on_commit(lambda: _queue(push_club_room, 0, room_id=room_id))


def _queue(task, countdown: float, **kwargs) -> None:
    try:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            task(**kwargs)
        else:
            task.apply_async(kwargs=kwargs, countdown=countdown)
    except Exception:  # a notification is never worth failing the command that was committed
        logger.exception("could not queue %s %s", task.name, kwargs)


# --- the worker: read, decide, send ---------------------------------------------------------------------------

def _payload(user, room: Room, body: str) -> dict:
    """The message in the user's language: the room as the title (a tag per room, so a newer replaces an older)."""
    with for_user(user):
        return {"title": _("Room %(code)s") % {"code": room.code}, "body": _(body) if body else "",
                "url": room.get_absolute_url(), "tag": f"room-{room.pk}"}


# Translated in `_payload`, in the user's language.
YOUR_TURN = gettext_noop("It is your turn: the table is waiting for you.")
NEXT_HAND = gettext_noop("A new hand has been dealt at your table.")


@shared_task(name="games.push_check", ignore_result=True)
def push_check(*, room_id: int, deadline: float | None, waiting: list[int], hand_no: int | None,
               dealt: list[int]) -> dict[int, str]:
    """Notify the players of a deadline or a hand that started PUSH_GRACE_SECONDS ago, if they are still needed
    and away (module docstring). `waiting`: users whose seat had to act by `deadline`; `dealt`: users seated when
    hand `hand_no` started. Reads without a lock: a move made meanwhile is seen, or it is the next check's.
    Returns {user id: kind sent}."""
    if not push_enabled():
        return {}
    wanted = {"your_turn": users_wanting("your_turn", waiting) if waiting else set(),
              "next_hand": users_wanting("next_hand", dealt) if dealt else set()}
    candidates = wanted["your_turn"] | wanted["next_hand"]
    if not candidates:
        return {}
    table = Table.objects.select_related("room").filter(pk=room_id).first()
    if table is None or not table.room.is_open:
        return {}
    state, users = table.state, table.meta.get("users", {})
    connected = dict(Seat.objects.filter(room_id=room_id, user_id__in=candidates, left_at__isnull=True)
                     .values_list("user_id", "connected"))
    sent = {}
    for user in get_user_model().objects.filter(pk__in=candidates):
        seat_id = users.get(str(user.pk))
        if seat_id is None:  # left meanwhile
            continue
        if user.pk in wanted["next_hand"] and state.get("hand_no") == hand_no and not connected.get(user.pk):
            kind, body, ttl = "next_hand", NEXT_HAND, NEXT_HAND_TTL
        elif (user.pk in wanted["your_turn"] and deadline is not None and state.get("deadline") == deadline
              and seat_id in state.get("deadline_for", ()) and not user_visible(user.pk)):
            kind, body, ttl = "your_turn", YOUR_TURN, deadline - time.time()
        else:
            continue
        if push_send(user=user, payload=_payload(user, table.room, body), topic=f"room{room_id}", ttl=ttl):
            sent[user.pk] = kind
    return sent


@shared_task(name="games.push_club_room", ignore_result=True)
def push_club_room(*, room_id: int) -> list[int]:
    """Tell the members of the room's club who want it (not its host) that the room opened. Returns who was told."""
    if not push_enabled():
        return []
    room = Room.objects.select_related("club", "host").filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is None or room.club_id is None:
        return []
    members = ClubMember.objects.filter(club_id=room.club_id).exclude(user_id=room.host_id)
    told = []
    for user in get_user_model().objects.filter(pk__in=users_wanting("club_room", members.values_list("user_id",
                                                                                                      flat=True))):
        with for_user(user):
            body = _("%(host)s opened a room in %(club)s: %(game)s.") % {
                "host": room.host.public_name, "club": room.club.name, "game": room.get_preset_display()}
        if push_send(user=user, payload={**_payload(user, room, ""), "body": body}, topic=f"room{room_id}",
                     ttl=CLUB_ROOM_TTL):
            told.append(user.pk)
    return told


# --- the same night again (games/nights.py): an invitation -------------------------------------------------------

NIGHT_AGAIN_TTL = 3600 * 6  # an invitation to tonight's room is worth nothing tomorrow


def night_again_invite(room: Room, user_ids: list[int]) -> None:
    """`room` plays a closed night again: its players `user_ids` are invited, by a worker, once it is committed."""
    if not push_enabled() or not user_ids:
        return
    room_id = room.pk
    transaction.on_commit(lambda: _queue(push_night_again, 0, room_id=room_id, user_ids=list(user_ids)))


@shared_task(name="games.push_night_again", ignore_result=True)
def push_night_again(*, room_id: int, user_ids: list[int]) -> list[int]:
    """Invite the players of the night that `room_id` plays again (who want it) by the room's invite link, in each
    one's language. Returns who was told."""
    if not push_enabled():
        return []
    room = Room.objects.select_related("host").filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is None:
        return []
    url = reverse("games:invite", kwargs={"token": room.invite_token})
    told = []
    for user in get_user_model().objects.filter(pk__in=users_wanting("night_again", user_ids)):
        with for_user(user):
            body = _("%(host)s is playing the night again with the same rules: %(game)s.") % {
                "host": room.host.public_name, "game": room.get_preset_display()}
        if push_send(user=user, payload={**_payload(user, room, ""), "body": body, "url": url},
                     topic=f"room{room_id}", ttl=NIGHT_AGAIN_TTL):
            told.append(user.pk)
    return told
