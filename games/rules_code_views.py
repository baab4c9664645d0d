"""The pages of a rules code (games/rules_codes.py, docs/api.md "Rules codes"): the rules it carries worded in the
reader's language with "Create a room with these rules", its QR code, and the room it makes.

The page and the QR code are public, as a game's rules page is: a friend may read shared rules before having an
account. Making the room needs one, and the reader chooses what the code does not carry: players, chips, buy-in.
A code the decoder refuses answers 400 with the refusal in words and makes nothing.
"""

import io

import segno
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from games import pages, rules_codes, services
from games.forms import RoomForm

QR_BORDER = 2  # modules of quiet zone: the page's white card around it makes up the rest


class CodeRoomForm(RoomForm):
    """The lobby's room form without the game and the house variant (the code decides the rules) and the bots' level."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["preset"], self.fields["variant"], self.fields["bot_level"]  # the bots play at "basic"


def code_url(code: str) -> str:
    return reverse("games:rules_code", kwargs={"code": code})


def _page(request: HttpRequest, code: str, *, form=None, status: int = 200) -> HttpResponse:
    try:
        found = rules_codes.decode(code)
    except services.GameError as e:
        return render(request, "games/rules_code.html", {"refusal": e}, status=400)
    link = request.build_absolute_uri(code_url(code))
    return render(request, "games/rules_code.html", {
        **pages.rules_context(found.preset, found.rules), "shared_rules": True, "code_rules": found.rules, "code": code, "link": link,
        "qr_url": reverse("games:rules_code_qr", kwargs={"code": code}),
        "create_url": reverse("games:rules_code_create", kwargs={"code": code}),
        "form": form or CodeRoomForm(), "base_stake": found.rules["base_stake"],
    }, status=status)


@require_GET
def rules_code(request: HttpRequest, code: str) -> HttpResponse:
    """`/rules/code/<code>/`: the rules a code carries, its QR code and link, and the form that makes a room of them."""
    return _page(request, code)


@require_GET
def rules_code_qr(request: HttpRequest, code: str) -> HttpResponse:
    """The QR code of the code's page (its whole URL), as SVG. A refused code has none: 404."""
    try:
        rules_codes.decode(code)
    except services.GameError:
        raise Http404 from None
    svg = io.BytesIO()
    segno.make(request.build_absolute_uri(code_url(code)), error="m").save(svg, kind="svg", border=QR_BORDER, omitsize=True)
    response = HttpResponse(svg.getvalue(), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"  # a code's rules never change
    return response


@login_required
@require_POST
def rules_code_create(request: HttpRequest, code: str) -> HttpResponse:
    """Make a room of the code's rules (the lobby's service: games.services.room_create), then its table."""
    try:
        found = rules_codes.decode(code)
    except services.GameError:
        return _page(request, code)  # the refusal, with its 400
    form = CodeRoomForm(request.POST)
    if not form.is_valid():
        return _page(request, code, form=form, status=400)
    data = form.cleaned_data
    try:
        room = services.room_create(host=request.user, preset=found.preset, overrides=found.overrides,
                                    currency=data["currency"], kind=data["kind"], buy_in_min=data["buy_in_min"],
                                    buy_in_max=data["buy_in_max"], bot_level="basic")
    except services.GameError as e:
        form.add_error("buy_in_min" if e.code == "bad_buy_in" else None, e.message)
        return _page(request, code, form=form, status=400)
    return redirect(room)
