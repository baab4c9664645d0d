"""A room's ledger (games/ledger.py, docs/ledger.md): the JSON the table menu's Ledger tab draws (static/js/ledger.js),
the page, the CSV, the settle-up card (PNG), and the settle-up's share links.

A room's ledger is for the readers of its hand records (ledger.rooms_visible_to); anyone else gets 404, as for a room
that does not exist. The room is named by its code, which a closed room may have passed on to a newer one: `?room=`
(its id) says which, else it is the newest of that code the user may read. A share link shows a closed room's
settle-up to whoever has it, logged in or not, until its maker or the room's host revokes it.
"""

import csv
import io

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from config.db_router import reads_from_replica
from games import ledger, ledger_log, ledger_shares, nights, share, vote_log
from games.ledger_card import HEIGHT, WIDTH, card_text, settle_card
from games.models import PRESET_CHOICES, Room
from games.services import GameError
from wallets.models import Currency

CSV_HEADER = ["player", "bought_in", "topped_up", "taken_away", "on_table", "net", "hands", "hands_banked",
              "banker_result"]


def room_id(request: HttpRequest) -> int | None:
    """The room that `?room=` (or the posted `room`) names by its id, when it is a number: a room's code may have
    gone to a newer room once it closed (the chain's and hands' pages read it too)."""
    value = request.GET.get("room") or request.POST.get("room") or ""
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else None


def _room(request: HttpRequest, code: str) -> Room:
    found = ledger.room_for(request.user, code, room_id(request))
    if found is None:
        raise Http404(_("There is no such room."))
    return found


def _urls(room: Room) -> dict[str, str]:
    query = f"?room={room.pk}"
    return {name: reverse(f"games:{view}", kwargs={"code": room.code}) + query for name, view in (
        ("page", "room_ledger"), ("json", "room_ledger_json"), ("csv", "room_ledger_csv"), ("png", "room_settle_png"),
        ("chain", "room_chain"), ("hands", "room_hands"))}


def _person(p: ledger.Person) -> dict:
    return {"user": p.user_id, "name": p.name, "bot": p.bot, "seated": p.seated, "bought_in": p.bought_in,
            "topped_up": p.topped_up, "taken_away": p.taken_away, "on_table": p.on_table, "net": p.net,
            "hands": p.hands, "banked": p.banked, "banker": p.banker}


@login_required
@require_GET
def room_ledger_json(request: HttpRequest, code: str) -> JsonResponse:
    """The room's ledger for the table menu: figures and names only, the words are the browser's. Read from the
    primary: the menu asks again as each hand ends, and must see that hand."""
    found = _room(request, code)
    book = ledger.room_ledger(found)
    return JsonResponse({
        "room": {"id": found.pk, "code": found.code, "status": found.status, "currency": found.currency,
                 "preset": found.preset},
        "people": [_person(p) for p in book.people], "totals": book.totals, "balanced": book.balanced,
        "settle": None if found.is_open else [
            {"from": t.payer.user_id, "to": t.payee.user_id, "amount": t.amount} for t in book.settle_up()],
        "urls": _urls(found), "card": card_text(book).alt, **_night(found),
    })


def _night(room: Room) -> dict:
    """The log and the hand-by-hand matrix (games/ledger_log.py), as JSON: times in ISO 8601, user ids as text keys."""
    log = [{**x, "at": x["at"].isoformat()} for x in ledger_log.room_log(room)]
    matrix = [{**row, "nets": {str(k): v for k, v in row["nets"].items()}} for row in ledger_log.room_matrix(room)]
    return {"log": log, "matrix": matrix}


def _settle_context(book: ledger.Ledger) -> dict:
    room = book.room
    return {"room": room, "book": book, "by_net": book.by_net, "transfers": book.settle_up(), "card": card_text(book).alt,
            "currency_name": Currency(room.currency).label, "preset_name": dict(PRESET_CHOICES)[room.preset],
            "day": room.closed_at or room.created_at}


@login_required
@require_GET
@reads_from_replica
def room_ledger(request: HttpRequest, code: str) -> HttpResponse:
    """The room's ledger page; once the room is closed, its settle-up and the share links of it."""
    found = _room(request, code)
    book = ledger.room_ledger(found)
    shares = [{"token": s.token, "by": s.created_by, "url": request.build_absolute_uri(s.get_absolute_url())}
              for s in ledger.shares_of(found, request.user)]
    return render(request, "games/ledger.html", {
        **_settle_context(book), "urls": _urls(found), "shares": shares, "log": ledger_log.room_log(found),
        "matrix": _matrix_rows(book, ledger_log.room_matrix(found)),
        "can_share": not found.is_open and ledger.sat_in(found, request.user),
        "table_url": found.get_absolute_url() if found.is_open else None, **nights.ledger_links(found, request.user),
        "votes": vote_log.room_votes(found),
    })


def _matrix_rows(book: ledger.Ledger, matrix: list[dict]) -> dict:
    """The matrix as the page draws it: each hand's cells in the order of the ledger's people (None: not in the hand),
    and each person's sum over the hands."""
    rows = [{"hand": row["hand"], "voided": row["voided"], "cells": [row["nets"].get(p.user_id) for p in book.people]}
            for row in matrix]
    sums = [sum(row["nets"].get(p.user_id, 0) for row in matrix) for p in book.people]
    return {"rows": rows, "sums": sums}


def _csv_cell(text: str) -> str:
    # A name is a player's own text: one that a spreadsheet would take for a formula is kept as text.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@login_required
@require_GET
@reads_from_replica
def room_ledger_csv(request: HttpRequest, code: str) -> HttpResponse:
    """The ledger as CSV: a header row, then one row per person, plain integers."""
    found = _room(request, code)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for p in ledger.room_ledger(found).people:
        writer.writerow([_csv_cell(p.name), p.bought_in, p.topped_up, p.taken_away, p.on_table, p.net, p.hands,
                         p.banked, p.banker])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="halfpoint-{found.code}-ledger.csv"'
    return response


def _png(book: ledger.Ledger) -> HttpResponse:
    response = HttpResponse(settle_card(book), content_type="image/png")
    response["Content-Length"] = str(len(response.content))
    return response


@login_required
@require_GET
@reads_from_replica
def room_settle_png(request: HttpRequest, code: str) -> HttpResponse:
    """The settle-up card of the room (its nets so far while it is open), WIDTH x HEIGHT, in the user's language."""
    return _png(ledger.room_ledger(_room(request, code)))


@login_required
@require_POST
def room_ledger_share(request: HttpRequest, code: str) -> HttpResponse:
    """Make a share link of the room's settle-up (the ledger page's button), then back to the page that lists it."""
    found = _room(request, code)
    try:
        ledger_shares.ledger_share_create(room=found, by=request.user)
    except GameError as e:
        messages.error(request, e.message)
    else:
        messages.success(request, _("Share link made: whoever has it sees this settle-up until you or the host "
                                    "revoke it."))
    return redirect(_urls(found)["page"])


@login_required
@require_POST
def room_ledger_share_revoke(request: HttpRequest, code: str) -> HttpResponse:
    """Revoke a share link of the room's settle-up (the posted `token`): its maker's, or any for the host."""
    found = _room(request, code)
    try:
        ledger_shares.ledger_share_revoke(room=found, token=request.POST.get("token", ""), by=request.user)
    except GameError as e:
        messages.error(request, e.message)
    else:
        messages.success(request, _("Share link revoked: it leads nowhere now."))
    return redirect(_urls(found)["page"])


def _shared(token: str):
    share = ledger.shared(token)
    if share is None:
        raise Http404(_("This share link is revoked or was never made."))
    return share


@require_GET
@reads_from_replica
def ledger_shared(request: HttpRequest, token: str) -> HttpResponse:
    """A closed room's settle-up through a share link, for anyone: with og:image, chats show its card."""
    link = _shared(token)
    # In the sharer's language for a chat's crawler (games/share.py), and so is the card the preview shows.
    language = share.link_language(request)
    png = reverse("games:ledger_shared_png", kwargs={"token": token})
    card = share.in_language(png, language) if language else png
    return render(request, "games/ledger_shared.html", {
        **_settle_context(ledger.room_ledger(link.room)), "shared_by": link.created_by,
        "png_url": card, "png_absolute": request.build_absolute_uri(card), "png_width": WIDTH, "png_height": HEIGHT,
        "page_absolute": request.build_absolute_uri(),
    })


@require_GET
@reads_from_replica
def ledger_shared_png(request: HttpRequest, token: str) -> HttpResponse:
    """The card of a settle-up shared by link, for anyone who has the link (a chat fetching its preview), in the
    link's language for a visitor without one of their own (games/share.py)."""
    share.link_language(request)
    return _png(ledger.room_ledger(_shared(token).room))
