"""The same night again, the past nights, and a club's saved rule sets (games/nights.py, games/club_rules.py): pages
and forms; the writes go through those modules, and a refusal is a message on the page it came from."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from config.db_router import reads_from_replica
from games import club_rules, clubs, ledger, nights
from games.club_views import _club
from games.ledger_views import room_id
from games.models import HouseVariant, Room
from games.services import GameError

NIGHTS_PER_PAGE = 20


def ledger_url(room: Room) -> str:
    return reverse("games:room_ledger", kwargs={"code": room.code}) + f"?room={room.pk}"


@login_required
@require_POST
def room_again(request: HttpRequest, code: str) -> HttpResponse:
    """Play the closed room's night again (`room`: its id): to the new room's table, or back to the ledger with why
    not."""
    found = ledger.room_for(request.user, code, room_id(request))
    if found is None:
        raise Http404(_("There is no such room."))
    try:
        new = nights.night_again(room=found, by=request.user)
    except GameError as e:
        messages.error(request, e.message)
        return redirect(ledger_url(found))
    n = len([uid for uid in nights.previous_players(found) if uid != request.user.pk])
    messages.success(request, ngettext(
        "Room %(code)s plays the night again with the same rules: %(n)s player is invited.",
        "Room %(code)s plays the night again with the same rules: %(n)s players are invited.", n)
        % {"code": new.code, "n": n})
    return redirect(new)


def _page(request: HttpRequest, rooms):
    return Paginator(rooms, NIGHTS_PER_PAGE).get_page(request.GET.get("page"))


@login_required
@require_GET
@reads_from_replica
def past_nights(request: HttpRequest) -> HttpResponse:
    """The closed rooms the player sat in, newest first, each linking to its ledger."""
    return render(request, "games/nights.html", {"page": _page(request, nights.past_nights_of(request.user))})


@login_required
@require_GET
@reads_from_replica
def club_nights(request: HttpRequest, pk: int) -> HttpResponse:
    """The club's closed rooms, newest first: for its members only (404 for anyone else, as its ledgers)."""
    club = _club(pk)
    if clubs.membership(club, request.user) is None:
        raise Http404(_("There is no such club."))
    return render(request, "games/nights.html", {"club": club, "page": _page(request, nights.past_nights_of_club(club))})


@login_required
@require_POST
def club_rules_save(request: HttpRequest, pk: int) -> HttpResponse:
    """Save a club room's rules (`room`: its id) under `name`; back to the page it came from (the room's ledger)."""
    club = _club(pk)
    found = Room.objects.filter(pk=room_id(request) or 0).first()
    back = ledger_url(found) if found is not None and found.club_id == club.pk else club.get_absolute_url()
    try:
        if found is None:
            raise GameError("bad_room", _("Only the rules of this club's rooms are saved here."))
        saved = club_rules.rule_set_save(club=club, room=found, name=request.POST.get("name", ""), by=request.user)
    except GameError as e:
        messages.error(request, e.message)
        return redirect(back)
    messages.success(request, _("Saved for %(club)s as “%(name)s”: open a club room with it from the club's page.")
                     % {"club": club.name, "name": saved.name})
    return redirect(back)


@login_required
@require_POST
def club_rules_delete(request: HttpRequest, pk: int, set_id: int) -> HttpResponse:
    club = _club(pk)
    rule_set = get_object_or_404(HouseVariant, pk=set_id, club=club)
    try:
        club_rules.rule_set_delete(club=club, rule_set=rule_set, by=request.user)
    except GameError as e:
        messages.error(request, e.message)
    else:
        messages.success(request, _("Deleted."))
    return redirect(club.get_absolute_url() + "#club-rule-sets")
