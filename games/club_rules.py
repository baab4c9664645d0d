"""A club's named house-rule sets: the rules of one of its rooms saved under a name (a HouseVariant of the club), then
offered in the club's "open a club room" form and beside each set (games/clubs.py `club_room_create` with the set).

Who may save one: whoever may open rooms in the club (its admins; its members when the club allows it). Who may
delete one: its admins, and whoever saved it. The rules saved are the room's as it ended or stands (the preset and the
overrides of its last change), checked by the engine again.
"""

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.text import storable_text
from games import clubs
from games.engine import RulesError, rules_from
from games.models import Club, HouseVariant, Room
from games.services import GameError
from games.services.errors import rules_refused

SETS_PER_CLUB = 30


def may_open_rooms(club: Club, user) -> bool:
    m = clubs.membership(club, user)
    return m is not None and (m.is_admin or club.members_create_rooms)


def rule_sets_of(club: Club):
    return HouseVariant.objects.filter(club=club, active=True).select_related("created_by").order_by("name")


def rule_set_save(*, club: Club, room: Room, name: str, by) -> HouseVariant:
    """Save `room`'s rules as the club's set `name`. Raises GameError, changing nothing: `club_dissolved`,
    `not_allowed`, `bad_room` (not a room of this club), `bad_name` (1 to 60 characters), `name_taken`, `too_many`
    (SETS_PER_CLUB), or the engine's refusal of the rules."""
    if not club.is_active:
        raise GameError("club_dissolved", _("This club has been dissolved."))
    if not may_open_rooms(club, by):
        raise GameError("not_allowed", _("Only the members who may open rooms in this club save its rules."))
    if room.club_id != club.pk:
        raise GameError("bad_room", _("Only the rules of this club's rooms are saved here."))
    name = (name or "").strip() if isinstance(name, str) else ""
    if not name or len(name) > 60 or not storable_text(name):
        raise GameError("bad_name", _("A name has 1 to 60 characters."))
    try:
        rules_from(room.preset, room.overrides or {})
    except RulesError as e:
        raise rules_refused(e, on_field=False) from None
    if HouseVariant.objects.filter(club=club, name=name).exists():
        raise GameError("name_taken", _("The club has a set of rules with this name already."))
    if HouseVariant.objects.filter(club=club).count() >= SETS_PER_CLUB:
        raise GameError("too_many", _("A club keeps at most %(n)s sets of rules: delete one first.")
                        % {"n": SETS_PER_CLUB})
    try:
        with transaction.atomic():
            return HouseVariant.objects.create(club=club, name=name, preset=room.preset,
                                               overrides=dict(room.overrides or {}), created_by=by)
    except IntegrityError:  # the same name saved at the same moment
        raise GameError("name_taken", _("The club has a set of rules with this name already.")) from None


def rule_set_delete(*, club: Club, rule_set: HouseVariant, by) -> None:
    """Delete one of the club's sets (rooms opened with it keep their rules). Raises GameError `not_allowed`."""
    m = clubs.membership(club, by)
    if rule_set.club_id != club.pk or m is None or not (m.is_admin or rule_set.created_by_id == by.pk):
        raise GameError("not_allowed", _("Only the club's admins and whoever saved it delete a set of rules."))
    rule_set.delete()
