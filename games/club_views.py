"""Club pages: the list and creation, joining by link or code, the club page (members, rooms, recent
hands, leaderboard), and the admins' and owner's forms. Writes go through games.clubs."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from config.db_router import reads_from_replica
from games import clubs
from games.game_order import games_in_order
from games.models import Club, ClubJoinRequest, HandSeat, HouseVariant, Room
from games.services import GameError
from wallets.models import Currency


class ClubForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=60)
    description = forms.CharField(label=gettext_lazy("Description"), max_length=500, required=False,
                                  widget=forms.Textarea(attrs={"rows": 2}))
    open_joining = forms.BooleanField(label=gettext_lazy("Anyone with the link or code joins at once"),
                                      required=False)
    members_create_rooms = forms.BooleanField(label=gettext_lazy("Members may open club rooms"), required=False)


class CodeForm(forms.Form):
    code = forms.CharField(label=gettext_lazy("Club code"), max_length=8)


class ClubRoomForm(forms.Form):
    game = forms.ChoiceField(label=gettext_lazy("Game"))
    currency = forms.ChoiceField(label=gettext_lazy("Chips"), choices=Currency.choices, initial=Currency.BEANS)

    def __init__(self, club: Club, *args, **kwargs):
        super().__init__(*args, **kwargs)
        games = [(f"preset:{slug}", name) for slug, name in games_in_order() if clubs.game_available_in_clubs(slug)]
        variants = HouseVariant.objects.filter(Q(club=club) | Q(club__isnull=True), active=True)
        games += [(f"variant:{v.pk}", f"{v.name} ({v.get_preset_display()})") for v in variants]
        self.fields["game"].choices = games


def _club(pk: int) -> Club:
    club = get_object_or_404(Club, pk=pk)
    if not club.is_active:
        raise Http404("This club has been dissolved.")
    return club


def _done(request, club, message=None):
    if message:
        messages.success(request, message)
    return redirect(club)


def _refused(request, club, error: GameError):
    messages.error(request, error.message)
    return redirect(club) if club.is_active else redirect("clubs:list")


@login_required
def club_list(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = clubs.club_create(owner=request.user, **form.cleaned_data)
        except GameError as e:
            form.add_error("name", e.message)
        else:
            return redirect(club)
    mine = Club.objects.filter(members__user=request.user, dissolved_at__isnull=True).order_by("name")
    return render(request, "clubs/list.html", {"form": form, "code_form": CodeForm(), "clubs": mine})


@login_required
@reads_from_replica
def club_page(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(pk)
    me = clubs.membership(club, request.user)
    context = {"club": club, "me": me}
    if me is not None:  # the rest of the club is for its members only
        period = request.GET.get("period", "week")
        period = period if period in clubs.PERIODS else "week"
        context.update({
            "members": club.members.select_related("user").order_by("joined_at"),
            "rooms": Room.objects.filter(club=club, status=Room.Status.OPEN).order_by("-pk"),
            "recent": HandSeat.objects.filter(hand__room__club=club, hand__ended_at__isnull=False)
            .select_related("hand", "hand__room", "user").order_by("-hand_id")[:20],
            "period": period, "periods": list(clubs.PERIODS),
            "board": clubs.leaderboard(club, period),
            "requests": club.join_requests.filter(status=ClubJoinRequest.Status.PENDING).select_related("user")
            if me.is_admin else [],
            "room_form": ClubRoomForm(club) if me.is_admin or club.members_create_rooms else None,
            "settings_form": ClubForm(initial={"name": club.name, "description": club.description,
                                               "open_joining": club.open_joining,
                                               "members_create_rooms": club.members_create_rooms})
            if me.is_admin else None,
        })
    else:
        context["pending"] = club.join_requests.filter(user=request.user, status=ClubJoinRequest.Status.PENDING).exists()
    return render(request, "clubs/club.html", context)


def _join(request, club):
    try:
        result = clubs.club_join(club=club, user=request.user)
    except GameError as e:
        return _refused(request, club, e)
    if isinstance(result, ClubJoinRequest):
        return _done(request, club, _("Your request to join was sent to the club's admins."))
    return _done(request, club, _("Welcome to %(club)s.") % {"club": club.name})


@login_required
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """The club's invite link (after logging in, for a visitor without a session)."""
    club = get_object_or_404(Club, invite_token=token, dissolved_at__isnull=True)
    return _join(request, club)


@login_required
@require_POST
def join_code(request: HttpRequest) -> HttpResponse:
    form = CodeForm(request.POST)
    club = None
    if form.is_valid():
        club = Club.objects.filter(join_code=form.cleaned_data["code"].strip().upper(), dissolved_at__isnull=True).first()
    if club is None:
        messages.error(request, _("No club has this code."))
        return redirect("clubs:list")
    return _join(request, club)


@login_required
@require_POST
def join(request: HttpRequest, pk: int) -> HttpResponse:
    return _join(request, _club(pk))


@login_required
@require_POST
def leave(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(pk)
    try:
        clubs.member_leave(club=club, user=request.user)
    except GameError as e:
        return _refused(request, club, e)
    messages.success(request, _("You left %(club)s.") % {"club": club.name})
    return redirect("clubs:list")


@login_required
@require_POST
def decide(request: HttpRequest, pk: int, request_id: int) -> HttpResponse:
    club = _club(pk)
    asked = get_object_or_404(ClubJoinRequest, pk=request_id, club=club)
    try:
        clubs.request_decide(request=asked, by=request.user, approve=request.POST.get("approve") == "1")
    except GameError as e:
        return _refused(request, club, e)
    return _done(request, club)


@login_required
@require_POST
def member(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    """The owner's and admins' member controls: make admin, make member, transfer, remove."""
    club = _club(pk)
    target = get_object_or_404(get_user_model(), pk=user_id)
    what = request.POST.get("do")
    try:
        if what in ("admin", "member"):
            clubs.member_set_role(club=club, user=target, role=what, by=request.user)
        elif what == "owner":
            clubs.ownership_transfer(club=club, to_user=target, by=request.user)
        elif what == "remove":
            clubs.member_remove(club=club, user=target, by=request.user,
                                reason=request.POST.get("reason") or _("removed by a club admin"))
        elif what == "mute":
            clubs.club_mute(club=club, user=target, by=request.user, reason=request.POST.get("reason", ""))
        else:
            raise GameError("bad_request", _("Unknown member action."))
    except GameError as e:
        return _refused(request, club, e)
    return _done(request, club)


@login_required
@require_POST
def settings_view(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(pk)
    form = ClubForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Check the club's settings."))
        return redirect(club)
    try:
        clubs.club_settings_update(club=club, by=request.user, open_joining=form.cleaned_data["open_joining"],
                                   members_create_rooms=form.cleaned_data["members_create_rooms"],
                                   description=form.cleaned_data["description"])
    except GameError as e:
        return _refused(request, club, e)
    return _done(request, club, _("Saved."))


@login_required
@require_POST
def dissolve(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(pk)
    try:
        clubs.club_dissolve(club=club, by=request.user)
    except GameError as e:
        return _refused(request, club, e)
    messages.success(request, _("%(club)s is dissolved; its rooms are closed.") % {"club": club.name})
    return redirect("clubs:list")


@login_required
@require_POST
def room_create(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(pk)
    form = ClubRoomForm(club, request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a game."))
        return redirect(club)
    kind, _sep, value = form.cleaned_data["game"].partition(":")
    try:
        if kind == "variant":
            room = clubs.club_room_create(club=club, by=request.user, currency=form.cleaned_data["currency"],
                                          variant=get_object_or_404(HouseVariant, pk=int(value)))
        else:
            room = clubs.club_room_create(club=club, by=request.user, preset=value,
                                          currency=form.cleaned_data["currency"])
    except GameError as e:
        return _refused(request, club, e)
    return redirect(room)
