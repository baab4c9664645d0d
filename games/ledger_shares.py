"""Share links of a closed room's settle-up (docs/ledger.md): made by a person who sat in the room, revoked by their
maker or by the room's host. What a link shows is games.ledger's; who may read the room's own ledger pages is
games.ledger.rooms_visible_to.
"""

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.text import storable_text
from games import ledger
from games.models import LedgerShare, Room
from games.services import GameError


def ledger_share_create(*, room: Room, by) -> LedgerShare:
    """A new link to `room`'s settle-up. Raises GameError (and makes nothing) for anyone who never sat there, while
    the room is open (the nets are not final), and past SHARES_PER_ROOM open links of the same maker."""
    if not ledger.sat_in(room, by):
        raise GameError("not_a_player", _("Only a player who sat in this room can share its settle-up."))
    if room.is_open:
        raise GameError("room_open", _("The settle-up can be shared once the room is closed."))
    # A soft limit: two requests at the same moment may both pass it, which costs one link too many.
    if LedgerShare.objects.filter(room=room, created_by_id=by.pk, revoked_at__isnull=True).count() \
            >= ledger.SHARES_PER_ROOM:
        raise GameError("too_many_shares", _("You have %(n)s share links of this room already: revoke one first.")
                        % {"n": ledger.SHARES_PER_ROOM})
    return LedgerShare.objects.create(room=room, created_by=by)


def ledger_share_revoke(*, room: Room, token: str, by) -> None:
    """Revoke an open share link of `room`: its maker may, and so may the room's host. Raises GameError (and changes
    nothing) for anyone else, a link of another room, or one already revoked."""
    links = LedgerShare.objects.filter(room=room, token=token, revoked_at__isnull=True)
    if room.host_id != by.pk:
        links = links.filter(created_by_id=by.pk)
    if not storable_text(token) or not links.update(revoked_at=timezone.now()):
        raise GameError("no_share", _("This share link is not one you can revoke, or it is already revoked."))
