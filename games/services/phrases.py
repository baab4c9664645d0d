"""Quick phrases and reactions (docs/protocol.md, `phrase`, `react`): one tap sends a fixed phrase ("Good luck",
"Hurry up") or an emoji to the whole room, drawn at the sender's seat for two seconds. The top layer: above run.py,
whose clock it reads.

A phrase or a reaction goes out as a room frame of codes and ids (`phrase_said`, `reacted`): each page words a phrase
in its own reader's language (static/js/phrases.js), so no server-made text reaches a browser. Nothing is stored: not
in the chat's history, not in a snapshot or a hand record; a page that connects later sees none. Being fixed texts,
they are nothing a moderator needs to read, but the chat's mutes silence them too (read from the database on every
message, as games/services/chat.py does), and the rate limit keeps a seat from drawing over the table.

Decisions where the issue is silent:
- Seated players only (main seats and side bettors): a spectator is `not_seated`. A seat away or leaving still speaks.
- "Place your bets" (`place_bets`) is the banker's: from anyone else, `not_banker`.
- One rate limit for phrases and reactions together, per user per room: one every 2 seconds and 5 a minute, kept in
  the cache (shared by every process). Two sockets of one user sending at the same instant may both pass: the
  limit is a courtesy to the others' screens, not a lock.
- A refusal changes nothing: neither the table nor the limit's count.
"""

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import broadcast
from games.models import ClubMember, Room, Table
from games.services import run
from games.services.errors import GameError

# The phrases' codes, in the order the page offers them; their words are the page's (static/js/phrases.js).
PHRASES = ("good_luck", "hurry_up", "nice_hand", "well_played", "thanks", "one_more", "brb", "place_bets")
BANKER_ONLY = frozenset({"place_bets"})
REACTIONS = ("thumbs_up", "clap", "laugh", "wow", "cry", "angry")

GAP = 2.0  # seconds between two phrases or reactions of one user in one room
PER_MINUTE = 5
MINUTE = 60.0


def _key(room_id: int, user_id: int) -> str:
    return f"phrases:{room_id}:{user_id}"


def _seated(room_id: int, user) -> tuple[Room, str]:
    """The open room and the user's seat in it, checked as the chat checks who may speak: GameError otherwise."""
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is None:
        raise GameError("room_closed", _("This room is closed."))
    fresh = get_user_model().objects.only("muted_until", "banned_until").get(pk=user.pk)
    if fresh.is_banned:
        raise GameError("banned", _("Your account is banned."))
    if fresh.is_muted:
        raise GameError("muted", _("You are muted and cannot chat."))
    if room.club_id is not None:
        muted = ClubMember.objects.filter(club_id=room.club_id, user_id=user.pk,
                                          muted_until__gt=timezone.now()).exists()
        if muted:
            raise GameError("muted", _("A club admin muted you in this club's chat."))
    users = Table.objects.filter(pk=room_id).values_list("meta", flat=True).first() or {}
    seat_id = (users.get("users") or {}).get(str(user.pk))
    if seat_id is None:
        raise GameError("not_seated", _("Take a seat first."))
    return room, seat_id


def _count(room_id: int, user_id: int) -> None:
    """Count one more message against the user's limit in this room; GameError `phrase_wait` (counting nothing) when
    it is over."""
    now = run._now()
    key = _key(room_id, user_id)
    times = [t for t in cache.get(key, []) if now - t < MINUTE]
    if (times and now - times[-1] < GAP) or len(times) >= PER_MINUTE:
        raise GameError("phrase_wait", _("One quick phrase or reaction every 2 seconds, 5 a minute: wait a moment."))
    cache.set(key, [*times, now], timeout=int(MINUTE) + 1)


def _send(room_id: int, frame: dict) -> None:
    transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))


def phrase_send(*, room_id: int, user, code) -> dict:
    """A seated player says the quick phrase `code` to the room: the `phrase_said` frame (returned). Raises GameError
    and changes nothing when `code` is no phrase's (`bad_phrase`), the room is closed, the user is banned or muted
    (`muted`, also by the room's club), not seated (`not_seated`), says the banker's phrase without holding the bank
    (`not_banker`) or is over the rate limit (`phrase_wait`)."""
    if not isinstance(code, str) or code not in PHRASES:
        raise GameError("bad_phrase", _("There is no such quick phrase."))
    _room, seat_id = _seated(room_id, user)
    if code in BANKER_ONLY:
        state = Table.objects.filter(pk=room_id).values_list("state", flat=True).first() or {}
        if state.get("banker") != seat_id:
            raise GameError("not_banker", _("Only the banker can say that."))
    _count(room_id, user.pk)
    frame = {"type": "phrase_said", "seat": seat_id, "user": user.pk, "code": code}
    _send(room_id, frame)
    return frame


def reaction_send(*, room_id: int, user, code) -> dict:
    """A seated player shows the reaction (emoji) `code` at their seat: the `reacted` frame (returned). GameError as
    `phrase_send`, with `bad_reaction` for a code that is no reaction's and no `not_banker`."""
    if not isinstance(code, str) or code not in REACTIONS:
        raise GameError("bad_reaction", _("There is no such reaction."))
    _room, seat_id = _seated(room_id, user)
    _count(room_id, user.pk)
    frame = {"type": "reacted", "seat": seat_id, "user": user.pk, "code": code}
    _send(room_id, frame)
    return frame
