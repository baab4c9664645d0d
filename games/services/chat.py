"""A room's chat (`chat_post`). The top layer: above commands.py.
"""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.text import storable_text
from games import broadcast
from games.models import ChatMessage, ClubMember, Room
from games.services.errors import GameError

CHAT_MAX = 500


def chat_post(*, room_id: int, user, text) -> ChatMessage:
    """Post to the room's chat. Muted and banned users are refused: read from the database on every
    message, so a mute reaches sockets that were open before it."""
    fresh = get_user_model().objects.only("muted_until", "banned_until").get(pk=user.pk)
    if fresh.is_banned:
        raise GameError("banned", _("Your account is banned."))
    if fresh.is_muted:
        raise GameError("muted", _("You are muted and cannot chat."))
    if not isinstance(text, str) or not text.strip():
        raise GameError("bad_chat", _("Write something first."))
    if not storable_text(text):
        raise GameError("bad_chat", _("This message holds characters that cannot be sent."))
    text = text.strip()
    if len(text) > CHAT_MAX:
        raise GameError("bad_chat", _("A message is at most %(n)s characters.") % {"n": CHAT_MAX})
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is None:
        raise GameError("room_closed", _("This room is closed."))
    if room.club_id is not None:
        member = ClubMember.objects.filter(club_id=room.club_id, user_id=user.pk).first()
        if member is None:
            raise GameError("club_members_only", _("This room is for the members of its club."))
        if member.muted_until is not None and member.muted_until > timezone.now():
            raise GameError("muted", _("A club admin muted you in this club's chat."))
    message = ChatMessage.objects.create(room=room, user=user, text=text)
    transaction.on_commit(lambda: broadcast.chat(room_id, message))
    return message

