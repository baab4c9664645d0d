"""Moderation: bans, mutes, kicks, closing rooms, hiding chat, reports, rule changes by moderators.

Every action is a service that needs a reason, checks the actor's permission and writes one row of the
append-only ModerationLog. Site moderators hold the permissions (the "Moderators" group has exactly
these, migration games 0003); a club's owner and admins pass `club_admin` instead, and act on their
club's rooms and members only (games.clubs uses this module's reason, log, kick and close).
What must take effect at once on live tables does so after commit: a ban closes the user's open
sockets and releases their seats after the current hand; a mute is read by the chat service on every
message, so an open socket is refused from the next message on.
"""

from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import broadcast, services
from games.models import ChatMessage, Club, ClubMember, ModerationLog, Report, Room, Seat, Table
from games.services import GameError

PERMANENT = datetime(9999, 12, 31, tzinfo=UTC)
A = ModerationLog.Action
ADMIN_ROLES = (ClubMember.Role.OWNER, ClubMember.Role.ADMIN)


def _check(by, perm: str) -> None:
    if by is None or not by.is_active or not by.has_perm(f"games.{perm}"):
        raise GameError("not_allowed", _("You are not allowed to do that."))


def club_admin(club: Club, by) -> ClubMember:
    """The club permission check: `by`'s membership when they own or administer the club."""
    member = None
    if getattr(by, "is_authenticated", False):
        member = ClubMember.objects.filter(club=club, user=by, role__in=ADMIN_ROLES).first()
    if member is None:
        raise GameError("not_club_admin", _("Only the club's admins can do that."))
    return member


def _room_check(room: Room, by, *, as_club_admin: bool) -> Club | None:
    """A site moderator acts on any room; a club admin (as_club_admin) on their club's rooms only.
    Returns the club that the log row names."""
    if not as_club_admin:
        _check(by, "moderate_room")
        return None
    if room.club_id is None:
        raise GameError("not_club_admin", _("Club admins moderate their club's rooms only."))
    club = Club.objects.get(pk=room.club_id)
    club_admin(club, by)
    return club


def reason_clean(reason) -> str:
    """The reason every moderation action needs, stripped and cut to 2,000 characters."""
    reason = (reason or "").strip() if isinstance(reason, str) else ""
    if not reason:
        raise GameError("reason_required", _("Say why: a moderation action needs a reason."))
    if not services.storable_text(reason):
        raise GameError("bad_reason", _("The reason holds characters that cannot be sent."))
    return reason[:2000]


def log_write(*, by, action: str, reason: str, user=None, room=None, message=None, club: Club | None = None,
              **details) -> ModerationLog:
    """The one writer of ModerationLog rows (details that are None are left out)."""
    return ModerationLog.objects.create(actor=by, action=action, reason=reason, target_user=user, room=room,
                                        message=message, club=club,
                                        details={k: v for k, v in details.items() if v is not None})


def _until(duration: timedelta | None) -> datetime:
    return PERMANENT if duration is None else timezone.now() + duration


def _restrict(*, user, by, perm: str, field: str, action: str, reason: str, duration: timedelta | None,
              notify: str | None) -> ModerationLog:
    """Set (or, with action un*, lift) a ban or a mute: the user row, one log row, and on commit a
    message to every open socket of the user."""
    _check(by, perm)
    reason = reason_clean(reason)
    lifting = action in (A.UNBAN, A.UNMUTE)
    with transaction.atomic():
        until = None if lifting else _until(duration)
        get_user_model().objects.filter(pk=user.pk).update(**{field: until})
        setattr(user, field, until)
        entry = log_write(by=by, action=action, reason=reason, user=user, until=until.isoformat() if until else None)
        if notify:
            transaction.on_commit(lambda: broadcast.to_user(user.pk, notify))
    return entry


def user_ban(*, user, by, reason: str, duration: timedelta | None = None) -> ModerationLog:
    """Ban a player until now + duration (None: permanently). They cannot log in; their open sockets
    close at once; their seats are released after the current hand, by default actions."""
    if user.pk == by.pk or user.is_superuser:
        _check(by, "ban_user")
        raise GameError("not_allowed", _("You cannot ban this account."))
    entry = _restrict(user=user, by=by, perm="ban_user", field="banned_until", action=A.BAN, reason=reason,
                      duration=duration, notify="user.banned")
    for room_id in Seat.objects.filter(user=user, left_at__isnull=True).values_list("room_id", flat=True):
        services.seat_remove(room_id=room_id, user_id=user.pk, kicked=False)
    return entry


def user_unban(*, user, by, reason: str) -> ModerationLog:
    return _restrict(user=user, by=by, perm="ban_user", field="banned_until", action=A.UNBAN, reason=reason,
                     duration=None, notify=None)


def user_mute(*, user, by, reason: str, duration: timedelta | None = None) -> ModerationLog:
    """Mute a player's chat until now + duration (None: permanently), on every open socket at once."""
    return _restrict(user=user, by=by, perm="mute_user", field="muted_until", action=A.MUTE, reason=reason,
                     duration=duration, notify="user.muted")


def user_unmute(*, user, by, reason: str) -> ModerationLog:
    return _restrict(user=user, by=by, perm="mute_user", field="muted_until", action=A.UNMUTE, reason=reason,
                     duration=None, notify=None)


def seat_kick(*, room: Room, user, by, reason: str, as_club_admin: bool = False) -> ModerationLog:
    """Remove a player's seat (after the current hand) and keep them from sitting again in this room.
    as_club_admin: `by` acts as an admin of the room's club, and the log row names the club."""
    club = _room_check(room, by, as_club_admin=as_club_admin)
    reason = reason_clean(reason)
    if not services.seat_remove(room_id=room.pk, user_id=user.pk, kicked=True):
        raise GameError("not_seated", _("This player has no seat in this room."))
    return log_write(by=by, action=A.KICK, reason=reason, user=user, room=room, club=club)


def room_close(*, room: Room, by, reason: str, as_club_admin: bool = False) -> ModerationLog:
    """Close a room: the current hand is settled by default actions, every stack is released.
    as_club_admin: as for seat_kick."""
    club = _room_check(room, by, as_club_admin=as_club_admin)
    reason = reason_clean(reason)
    services.room_close(room_id=room.pk, by=by)
    return log_write(by=by, action=A.CLOSE_ROOM, reason=reason, room=room, club=club)


def chat_hide(*, message: ChatMessage, by, reason: str) -> ModerationLog:
    """Hide a chat message: gone from snapshots and from every open table at once."""
    _check(by, "moderate_room")
    reason = reason_clean(reason)
    with transaction.atomic():
        ChatMessage.objects.filter(pk=message.pk).update(hidden=True)
        message.hidden = True
        entry = log_write(by=by, action=A.HIDE_MESSAGE, reason=reason, user=message.user, room=message.room,
                     message=message)
        transaction.on_commit(lambda: broadcast.chat_hidden(message.room_id, message.pk))
    return entry


def room_rules_change(*, room: Room, overrides: dict, by, reason: str) -> ModerationLog:
    """A moderator changes a room's rules from the admin; it applies from the next hand."""
    _check(by, "moderate_room")
    reason = reason_clean(reason)
    rules = services.room_rules_update(room_id=room.pk, overrides=overrides, by=by)
    return log_write(by=by, action=A.RULES, reason=reason, room=room, overrides=overrides, game=rules.game)


def _an_id(value) -> bool:
    """A row's id as JSON gives it: an integer, and not `true` (which Python counts as the integer 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def report_create(*, reporter, room_id: int | None, reason, target_user_id=None, message_id=None,
                  seat_id=None) -> Report:
    """A player reports a chat message, or a player (by user id, or by the seat they hold at the table)."""
    if not isinstance(reason, str) or not reason.strip():
        raise GameError("reason_required", _("Say what happened."))
    if not services.storable_text(reason):
        raise GameError("bad_reason", _("The reason holds characters that cannot be sent."))
    message = None
    if seat_id is not None:
        users = Table.objects.filter(pk=room_id).values_list("meta", flat=True).first() or {}
        seated = {seat: int(uid) for uid, seat in (users.get("users") or {}).items()}
        if not isinstance(seat_id, str) or seat_id not in seated:
            raise GameError("not_seated", _("Nobody sits there."))
        target_user_id = seated[seat_id]
    if message_id is not None:
        message = ChatMessage.objects.filter(pk=message_id, room_id=room_id).select_related("user").first() \
            if _an_id(message_id) else None
        if message is None:
            raise GameError("no_message", _("There is no such message in this room."))
        target_user_id = message.user_id
    if not _an_id(target_user_id) or not get_user_model().objects.filter(pk=target_user_id).exists():
        raise GameError("no_player", _("There is no such player."))
    if target_user_id == reporter.pk:
        raise GameError("report_self", _("You cannot report yourself."))
    if Report.objects.filter(reporter=reporter, created_at__gte=timezone.now() - timedelta(hours=1)).count() >= 20:
        raise GameError("rate_limited", _("You have sent many reports; try again later."))
    return Report.objects.create(reporter=reporter, target_user_id=target_user_id, room_id=room_id, message=message,
                                 reason=reason.strip()[:500])


def report_resolve(*, report: Report, by, status: str, resolution: str) -> ModerationLog:
    _check(by, "moderate_room")
    resolution = reason_clean(resolution)
    if status not in (Report.Status.ACTIONED, Report.Status.DISMISSED):
        raise GameError("bad_status", _("A report is actioned or dismissed."))
    Report.objects.filter(pk=report.pk).update(status=status, resolved_by=by, resolved_at=timezone.now(),
                                               resolution=resolution)
    report.refresh_from_db()
    return log_write(by=by, action=A.REPORT, reason=resolution, user=report.target_user, room=report.room,
                message=report.message, report=report.pk, status=status)
