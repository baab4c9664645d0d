"""Clubs: player-run groups with members, admins, their own rooms and variants, and a leaderboard.

Roles: one owner (an admin who also transfers ownership and dissolves the club), admins (approve
requests, open rooms, moderate the club's rooms), members (play in club rooms; open rooms when the
club allows it). Club admins' powers stop at the club's edge: every check below names the club.
Their moderation is games.moderation's: its permission check for clubs, reason rule, kick and close,
and log rows that name the club.
The leaderboard is computed from the ledger (the settlement entries of the holds of club rooms'
seats), never from a counter that could drift.
"""

import secrets
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from games import moderation, notify, services
from games.models import (
    Club,
    ClubJoinRequest,
    ClubMember,
    GameSetting,
    HouseVariant,
    ModerationLog,
    Room,
    Seat,
)
from games.services import GameError
from wallets.models import Entry, Transaction

Role = ClubMember.Role
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed by friends


def _new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


def membership(club: Club, user) -> ClubMember | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return ClubMember.objects.filter(club=club, user=user).first()


def _active(club: Club) -> None:
    if not club.is_active:
        raise GameError("club_dissolved", _("This club has been dissolved."))


def club_create(*, owner, name: str, description: str = "", open_joining: bool = False,
                members_create_rooms: bool = False) -> Club:
    name = (name or "").strip()
    if not name or len(name) > 60:
        raise GameError("bad_name", _("A club's name has 1 to 60 characters."))
    if getattr(owner, "is_banned", False):
        raise GameError("banned", _("Your account is banned."))
    for _attempt in range(20):
        try:
            with transaction.atomic():
                club = Club.objects.create(name=name, description=(description or "")[:500], owner=owner,
                                           join_code=_new_join_code(), open_joining=open_joining,
                                           members_create_rooms=members_create_rooms)
                ClubMember.objects.create(club=club, user=owner, role=Role.OWNER)
                return club
        except IntegrityError:
            if Club.objects.filter(name=name).exists():
                raise GameError("name_taken", _("A club with this name exists already.")) from None
    raise GameError("no_code", _("Try again in a moment."))


def club_join(*, club: Club, user) -> ClubMember | ClubJoinRequest:
    """Join by link or code: at once when the club is open, else a request for an admin to approve.
    Joining twice, or asking twice, changes nothing."""
    _active(club)
    if getattr(user, "is_bot", False) or getattr(user, "is_banned", False):
        raise GameError("not_allowed", _("This account cannot join clubs."))
    existing = membership(club, user)
    if existing is not None:
        return existing
    if club.open_joining:
        member, _created = ClubMember.objects.get_or_create(club=club, user=user)
        return member
    pending = ClubJoinRequest.objects.filter(club=club, user=user, status=ClubJoinRequest.Status.PENDING).first()
    if pending is not None:
        return pending
    try:
        with transaction.atomic():
            return ClubJoinRequest.objects.create(club=club, user=user)
    except IntegrityError:
        return ClubJoinRequest.objects.get(club=club, user=user, status=ClubJoinRequest.Status.PENDING)


def request_decide(*, request: ClubJoinRequest, by, approve: bool) -> ClubMember | None:
    moderation.club_admin(request.club, by)
    _active(request.club)
    with transaction.atomic():
        updated = ClubJoinRequest.objects.filter(pk=request.pk, status=ClubJoinRequest.Status.PENDING).update(
            status=ClubJoinRequest.Status.APPROVED if approve else ClubJoinRequest.Status.DENIED,
            decided_by=by, decided_at=timezone.now())
        if not updated:
            raise GameError("already_decided", _("This request has already been answered."))
        if approve:
            member, _created = ClubMember.objects.get_or_create(club=request.club, user=request.user)
            return member
    return None


def member_leave(*, club: Club, user) -> None:
    """Leave a club. The owner first transfers ownership (or dissolves the club). Seats in the club's
    rooms are given up like any leave (after the current hand)."""
    m = membership(club, user)
    if m is None:
        raise GameError("not_member", _("You are not in this club."))
    if m.role == Role.OWNER:
        raise GameError("owner_cannot_leave", _("Transfer the ownership first, or dissolve the club."))
    _release_seats(club, user.pk)
    m.delete()


def member_remove(*, club: Club, user, by, reason: str) -> None:
    """An admin removes a member (never the owner; an admin is removed only by the owner)."""
    admin = moderation.club_admin(club, by)
    m = membership(club, user)
    if m is None:
        raise GameError("not_member", _("This player is not in the club."))
    if m.role == Role.OWNER or (m.role == Role.ADMIN and admin.role != Role.OWNER):
        raise GameError("not_allowed", _("You cannot remove this member."))
    reason = moderation.reason_clean(reason)
    _release_seats(club, user.pk)
    m.delete()
    moderation.log_write(by=by, action=ModerationLog.Action.KICK, reason=reason, user=user, club=club,
                         removed_from_club=True)


def member_set_role(*, club: Club, user, role: str, by) -> ClubMember:
    """The owner makes a member an admin, or an admin a member again."""
    owner = membership(club, by)
    if owner is None or owner.role != Role.OWNER:
        raise GameError("not_owner", _("Only the owner changes roles."))
    if role not in (Role.ADMIN, Role.MEMBER):
        raise GameError("bad_role", _("A role is admin or member."))
    m = membership(club, user)
    if m is None or m.role == Role.OWNER:
        raise GameError("not_member", _("This player is not a member you can change."))
    m.role = role
    m.save(update_fields=["role"])
    return m


def ownership_transfer(*, club: Club, to_user, by) -> None:
    """The owner hands the club to another member; the old owner stays on as an admin."""
    _active(club)
    old = membership(club, by)
    if old is None or old.role != Role.OWNER:
        raise GameError("not_owner", _("Only the owner transfers the club."))
    new = membership(club, to_user)
    if new is None or new.pk == old.pk:
        raise GameError("not_member", _("The new owner must be another member of the club."))
    with transaction.atomic():
        ClubMember.objects.filter(pk=old.pk).update(role=Role.ADMIN)  # first: one owner per club at any time
        ClubMember.objects.filter(pk=new.pk).update(role=Role.OWNER)
        Club.objects.filter(pk=club.pk).update(owner=to_user)
    club.owner = to_user


def club_dissolve(*, club: Club, by) -> None:
    """The owner dissolves the club: every open club room closes cleanly (hands settled by default
    actions, every stack released), then the club is gone from the site (its history stays)."""
    m = membership(club, by)
    if m is None or m.role != Role.OWNER:
        raise GameError("not_owner", _("Only the owner dissolves the club."))
    _active(club)
    for room in Room.objects.filter(club=club, status=Room.Status.OPEN):
        services.room_close(room_id=room.pk, by=by)
    Club.objects.filter(pk=club.pk).update(dissolved_at=timezone.now())
    ClubJoinRequest.objects.filter(club=club, status=ClubJoinRequest.Status.PENDING).update(
        status=ClubJoinRequest.Status.DENIED, decided_by=by, decided_at=timezone.now())
    club.dissolved_at = timezone.now()


def club_settings_update(*, club: Club, by, open_joining: bool, members_create_rooms: bool,
                         description: str | None = None) -> None:
    moderation.club_admin(club, by)
    fields = {"open_joining": bool(open_joining), "members_create_rooms": bool(members_create_rooms)}
    if description is not None:
        fields["description"] = description[:500]
    Club.objects.filter(pk=club.pk).update(**fields)
    for name, value in fields.items():
        setattr(club, name, value)


# --- club rooms -------------------------------------------------------------------------------------------


def game_available_in_clubs(preset: str) -> bool:
    setting = GameSetting.objects.filter(preset=preset).first()
    return setting is None or setting.available_in_clubs


def club_room_create(*, club: Club, by, preset: str | None = None, variant: HouseVariant | None = None,
                     overrides: dict | None = None, **room_options) -> Room:
    """Open a club room from a preset (plus overrides) or one of the club's (or the platform's) variants.
    Admins may always; members when the club allows it. Only members can then join it."""
    _active(club)
    m = membership(club, by)
    if m is None or not (m.is_admin or club.members_create_rooms):
        raise GameError("not_allowed", _("Only the club's admins open rooms in this club."))
    if variant is not None:
        if variant.club_id not in (None, club.pk) or not variant.active:
            raise GameError("bad_variant", _("This variant is not offered in this club."))
        preset, overrides = variant.preset, {**variant.overrides, **(overrides or {})}
    if not preset or not game_available_in_clubs(preset):
        raise GameError("not_in_clubs", _("This game is not available in clubs."))
    room = services.room_create(host=by, preset=preset, overrides=overrides, club=club, **room_options)
    notify.club_room_opened(room)  # the members who want to hear of it, from a worker (games/notify.py)
    return room


# --- club moderation: games.moderation's, within the club ------------------------------------------------------


def club_mute(*, club: Club, user, by, reason: str, duration: timedelta | None = timedelta(hours=24)) -> ModerationLog:
    """Mute a member in the club's rooms' chat (not elsewhere on the site)."""
    moderation.club_admin(club, by)
    reason = moderation.reason_clean(reason)
    m = membership(club, user)
    if m is None or m.role == Role.OWNER:
        raise GameError("not_member", _("This player is not a member you can mute."))
    until = timezone.now() + (duration or timedelta(days=3650))
    ClubMember.objects.filter(pk=m.pk).update(muted_until=until)
    return moderation.log_write(by=by, action=ModerationLog.Action.MUTE, reason=reason, user=user, club=club,
                                until=until.isoformat())


def club_seat_kick(*, room: Room, user, by, reason: str) -> ModerationLog:
    """A club admin's kick, in one of the club's rooms only."""
    return moderation.seat_kick(room=room, user=user, by=by, reason=reason, as_club_admin=True)


def club_room_close(*, room: Room, by, reason: str) -> ModerationLog:
    """A club admin closes one of the club's rooms (never another)."""
    return moderation.room_close(room=room, by=by, reason=reason, as_club_admin=True)


def _release_seats(club: Club, user_id: int) -> None:
    for room_id in Seat.objects.filter(room__club=club, user_id=user_id, left_at__isnull=True).values_list(
            "room_id", flat=True):
        services.seat_remove(room_id=room_id, user_id=user_id, kicked=False)


# --- the leaderboard, from the ledger ----------------------------------------------------------------------------

PERIODS = {"week": timedelta(days=7), "month": timedelta(days=30), "all": None}


def leaderboard(club: Club, period: str = "all", *, now=None) -> dict[str, list[dict]]:
    """Net results of the club's rooms per player, beans and points apart, best first:
    {"beans": [{"user_id", "name", "net"}...], "points": [...]}. A player's net is the sum of the
    settlement entries on the holds of their seats in the club's rooms within the period."""
    since = None if PERIODS[period] is None else (now or timezone.now()) - PERIODS[period]
    entries = Entry.objects.filter(
        transaction__kind=Transaction.Kind.SETTLE,
        account__in=Seat.objects.filter(room__club=club, hold__isnull=False, user__is_bot=False).values("hold"),
    )
    if since is not None:
        entries = entries.filter(transaction__created_at__gte=since)
    rows = (entries.values("account__user_id", "account__user__username", "account__user__display_name",
                           "account__currency")
            .annotate(net=Sum("amount")).order_by("account__currency", "-net", "account__user__username"))
    board: dict[str, list[dict]] = {"beans": [], "points": []}
    for row in rows:
        board[row["account__currency"]].append({
            "user_id": row["account__user_id"],
            "name": row["account__user__display_name"] or row["account__user__username"],
            "net": row["net"],
        })
    return board
