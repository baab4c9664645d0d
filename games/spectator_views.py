"""The room page for a user who may not watch (docs/rules.md, "Spectators"): in a room without spectators, anyone
without a seat but the host sees the room's name and a form to take a seat, which sits them down and opens the table
(`room_sit`); a spectator the host removed is told so, and may still be seated when a seat is free. The table page
and its socket (games/views.py, games/consumers.py) ask `services.watch_check` first.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import services
from games.models import Room, is_room_code


def watch_refused(request: HttpRequest, room: Room, refusal: services.GameError) -> HttpResponse:
    """The page instead of the table: why, and a seat to take."""
    buy_in_default = min(room.buy_in_max, max(room.buy_in_min, room.rules["base_stake"] * 50))
    return render(request, "games/no_spectators.html", {
        "room": room, "refusal": refusal, "buy_in_default": buy_in_default})  # 200: a page to act on, no error


@login_required
@require_POST
def room_sit(request: HttpRequest, code: str) -> HttpResponse:
    """Take a main seat at the first free position with the posted buy-in, then the table."""
    if not is_room_code(code):
        raise Http404
    room = get_object_or_404(Room, code=code, status=Room.Status.OPEN)
    value = request.POST.get("buy_in", "")
    if not (value.isascii() and value.isdigit()) or len(value) > 10:
        messages.error(request, _("A buy-in is a whole number."))
        return redirect(room)
    try:
        services.room_check_access(room=room, user=request.user)
        services.seat_take(room_id=room.pk, user=request.user, buy_in=int(value))
    except services.GameError as e:
        messages.error(request, e.message)
    return redirect(room)

