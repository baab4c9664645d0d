"""The same night again, and the past nights (docs/ledger.md, "The same night again").

A night is a room from its opening to its close. From a closed room's settle-up (its ledger page) the host, or in a
club any member allowed to open club rooms there, opens a new room with the same rules (the preset and the overrides
the room ended with, its chips, players, bot level and buy-in limits). The players who sat in the closed room are
invited by a notification (games/notify.py, `push_night_again`; the kind `night_again`) carrying the new room's invite
link, and the two ledgers link to each other (NightLink).

Decisions: a night is played again once (a second "again" is refused with `already_again`, and its ledger links the
room that continues it, where the players are); a practice room with bots is not played again (the lobby's practice
button does that in one click); in a club, only the players who are still members are invited (nobody else may enter).

The past nights are the closed rooms a player sat in, or a club's closed rooms, newest first, each with its ledger.
"""

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext as _

from games import club_rules, clubs, notify, services
from games.models import Club, ClubMember, NightLink, Room, Seat
from games.services import GameError


def continued_in(room: Room) -> Room | None:
    """The room that played `room`'s night again, if one did."""
    link = NightLink.objects.filter(previous=room).select_related("room").first()
    return link.room if link else None


def continued_from(room: Room) -> Room | None:
    """The closed room whose night `room` plays again, if it does."""
    link = NightLink.objects.filter(room=room).select_related("previous").first()
    return link.previous if link else None


def _allowed(room: Room, user) -> bool:
    if room.club_id is None:
        return user.pk == room.host_id
    m = clubs.membership(room.club, user)
    return m is not None and (m.is_admin or room.club.members_create_rooms)


def _check(room: Room, by) -> None:
    if room.kind == Room.Kind.AI:
        raise GameError("practice_room", _("A practice room is not played again: practise from the lobby."))
    if room.is_open:
        raise GameError("room_open", _("The night is not over: close the room first."))
    if NightLink.objects.filter(previous=room).exists():
        raise GameError("already_again", _("This night has been played again already."))
    if room.club_id is not None and not room.club.is_active:
        raise GameError("club_dissolved", _("This club has been dissolved."))
    if not _allowed(room, by):
        raise GameError("not_allowed", _("Only the host, or in a club a member who may open rooms, plays a night "
                                         "again."))


def may_play_again(room: Room, user) -> bool:
    """Whether `user` may play `room`'s night again now (the ledger page shows the button then)."""
    try:
        _check(room, user)
    except GameError:
        return False
    return True


def previous_players(room: Room) -> list[int]:
    """The people (not bots) who sat in `room`, in a club only those still its members: who is invited."""
    seats = Seat.objects.filter(room=room, user__is_bot=False)
    if room.club_id is not None:
        seats = seats.filter(Exists(ClubMember.objects.filter(club_id=room.club_id, user=OuterRef("user"))))
    return sorted(set(seats.values_list("user_id", flat=True)))


def night_again(*, room: Room, by) -> Room:
    """Open `room`'s night again (module docstring): a new room with its rules, hosted by `by`, linked to it, and its
    players but `by` invited once it is committed. Raises GameError and changes nothing when refused: `practice_room`,
    `room_open`, `already_again`, `club_dissolved`, `not_allowed`, or any refusal of `room_create` (a banned host)
    or `club_room_create` (the game taken out of clubs)."""
    _check(room, by)
    options = {"preset": room.preset, "overrides": room.overrides, "currency": room.currency, "kind": room.kind,
               "buy_in_min": room.buy_in_min, "buy_in_max": room.buy_in_max, "bot_level": room.bot_level}
    try:
        with transaction.atomic():
            # The closed room's row, locked: two clicks at once open one room, the second is refused.
            Room.objects.select_for_update().filter(pk=room.pk).first()
            if NightLink.objects.filter(previous=room).exists():
                raise GameError("already_again", _("This night has been played again already."))
            if room.club_id is not None:
                new = clubs.club_room_create(club=room.club, by=by, **options)
            else:
                new = services.room_create(host=by, **options)
            NightLink.objects.create(previous=room, room=new, by=by)
    except IntegrityError:  # the link's unique constraint, where the lock is not one (SQLite)
        raise GameError("already_again", _("This night has been played again already.")) from None
    notify.night_again_invite(new, [uid for uid in previous_players(room) if uid != by.pk])
    return new


# --- the past nights ---------------------------------------------------------------------------------------------


def past_nights_of(user) -> QuerySet[Room]:
    """The closed rooms `user` sat in, newest first (their ledgers are theirs to read: games/ledger.py)."""
    return (Room.objects.filter(status=Room.Status.CLOSED)
            .filter(Exists(Seat.objects.filter(room=OuterRef("pk"), user_id=user.pk)))
            .select_related("club", "continued_in__room").order_by("-closed_at", "-pk"))


def past_nights_of_club(club: Club) -> QuerySet[Room]:
    """The club's closed rooms, newest first (every member reads their ledgers)."""
    return (Room.objects.filter(status=Room.Status.CLOSED, club=club)
            .select_related("host", "continued_in__room").order_by("-closed_at", "-pk"))


def ledger_links(room: Room, user) -> dict:
    """What the ledger page of `room` shows of its nights: the room it continues, the room that continues it, whether
    `user` may play it again now, and whether they may save its rules for its club (games/club_rules.py)."""
    return {"continued_from": continued_from(room), "continued_in": continued_in(room),
            "may_play_again": may_play_again(room, user),
            "may_save_rules": room.club_id is not None and room.club.is_active
            and club_rules.may_open_rooms(room.club, user)}
