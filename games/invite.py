"""A room's invite (its invite link /join/<token>/ or its page /r/<code>/) opened without a session: who invites
to what (the host's name, the game, the room code, the stakes and chips), and the ways in, sign-up and log-in.
The page tells what the invite itself tells, nothing more: no seat, no player, no card.

The room then waits in the session, so that every way through allauth comes back to it, whatever link was
followed (the header's buttons, the text links, allauth's own pages, the e-mail confirmation in the same browser):
accounts/adapter.py returns `pending_url` where allauth has no explicit `next`, and forgets the room at log-in."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games import selectors, share
from games.models import Room

SESSION_KEY = "invite_room"


def offer(request: HttpRequest, *, room: Room | None = None, code: str | None = None) -> HttpResponse:
    """The invite page of `room` (or of the open room with `code`) for a visitor without a session, and the room
    kept for after sign-up or log-in. A code no open room has goes to the log-in page and back, as before: a room
    that closed since may still have a ledger its players may read (games/views.py, `room`)."""
    if room is None and code is not None:
        room = selectors.open_room_by_code(code)
    if room is None:
        return redirect_to_login(request.get_full_path())
    share.link_language(request)  # a link shared into a chat is read in the sharer's language (games/share.py)
    request.session[SESSION_KEY] = room.pk
    rules = room.rules
    return render(request, "games/invite.html", {
        "room": room, "auth_next": room.get_absolute_url(),
        "base_stake": rules["base_stake"], "max_bet": rules.get("max_bet"),
        "stake_min": rules["base_stake"] if rules.get("min_bet") is None else rules["min_bet"],
        "fixed_stake": rules.get("fixed_stake", False), "welcome_beans": settings.WELCOME_BEANS,
    })


def pending_room(request: HttpRequest) -> Room | None:
    """The open room whose invite this session opened last, if any."""
    pk = request.session.get(SESSION_KEY)
    if isinstance(pk, bool) or not isinstance(pk, int):
        return None
    return Room.objects.filter(pk=pk, status=Room.Status.OPEN).select_related("host").first()


def pending_url(request: HttpRequest) -> str | None:
    room = pending_room(request)
    return room.get_absolute_url() if room is not None else None


def forget(request: HttpRequest) -> None:
    request.session.pop(SESSION_KEY, None)


def context(request: HttpRequest) -> dict:
    """Template context for the visitor without a session: `auth_next`, the page to come back to after log-in or
    sign-up that the header's buttons carry (the request's own `next`, when it is a page of this site), and
    `pending_invite`, the room an invite of this session waits on (asked only by the pages that show it)."""
    user = getattr(request, "user", None)
    if user is None or user.is_authenticated:
        return {}
    from allauth.account.utils import get_next_redirect_url

    return {"auth_next": get_next_redirect_url(request) or "", "pending_invite": lambda: pending_room(request)}
