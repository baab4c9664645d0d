"""Pages: parse the request, call a service or a selector, render. The live table itself is driven
by the socket (games/consumers.py); these pages carry no card that the viewer may not see."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from games import selectors, services
from games.models import Hand, Room


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", {})


@login_required
def room(request: HttpRequest, code: str) -> HttpResponse:
    """The table page of an open room, by its 4-digit code. An anonymous visitor is sent to log in
    and back here (login_required keeps the path in ?next=)."""
    found = selectors.open_room_by_code(code) if code.isdigit() and len(code) == 4 else None
    if found is None:
        raise Http404("No open room has this code.")
    try:
        services.room_check_access(room=found, user=request.user)
    except services.GameError as e:
        messages.error(request, e.message)
        return redirect("games:lobby")
    return render(request, "games/room.html", {"room": found, "info": selectors.room_info(found)})


@login_required
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: the room's page (after logging in, for a visitor without a session)."""
    found = Room.objects.filter(invite_token=token, status=Room.Status.OPEN).first()
    if found is None:
        raise Http404("This invitation is no longer valid.")
    return redirect(found)


@login_required
def records(request: HttpRequest) -> HttpResponse:
    rows = selectors.hands_for(request.user, room_code=request.GET.get("room") or None,
                               game=request.GET.get("game") or None)[:200]
    return render(request, "games/records.html", {"rows": rows})


@login_required
def hand(request: HttpRequest, pk: int) -> HttpResponse:
    """A finished hand's full record. A hand still being played has no record yet (its events hold
    face-down cards)."""
    found = get_object_or_404(Hand.objects.select_related("room"), pk=pk)
    record = selectors.hand_record(found)
    if record is None:
        raise Http404("This hand is still being played.")
    return render(request, "games/hand.html", record)
