from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import localize
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import selectors, services
from .models import Currency, Transaction


def describe(movement: selectors.Movement) -> str:
    """A movement in the words a player thinks of it ("Buy-in, room 2106", "Hand 3 in room 2106")."""
    kind, room, hand = movement.kind, movement.place.get("room"), movement.place.get("hand")
    at_room = {"room": room}
    if kind == Transaction.Kind.SETTLE:
        if room and hand:
            return _("Hand %(hand)s in room %(room)s") % {"hand": hand, "room": room}
        return _("A hand in room %(room)s") % at_room if room else _("A hand")
    if kind == Transaction.Kind.HOLD:
        return _("Buy-in, room %(room)s") % at_room if room else _("Buy-in")
    if kind == Transaction.Kind.TOP_UP:
        return _("Top-up, room %(room)s") % at_room if room else _("Top-up")
    if kind == Transaction.Kind.RELEASE:
        if services.release_reason(movement.memo) == "away":
            return _("Left after being away, room %(room)s") % at_room if room else _("Left after being away")
        return _("Left the table, room %(room)s") % at_room if room else _("Left the table")
    if kind == Transaction.Kind.ADJUSTMENT:
        # The reason is the moderator's own words (required by the ledger).
        return _("Adjustment: %(reason)s") % {"reason": movement.memo}
    words = {
        Transaction.Kind.WELCOME: _("Welcome gift"),
        Transaction.Kind.DAILY_BONUS: _("Daily bonus"),
        Transaction.Kind.POINTS_REFILL: _("Practice points refill"),
        Transaction.Kind.BOT_FLOAT: _("Chips for a bot"),
    }
    return str(words.get(kind, Transaction.Kind(kind).label))


@login_required
def wallet(request: HttpRequest) -> HttpResponse:
    history = selectors.history_for(request.user, limit=100)
    for movement in history:
        movement.words = describe(movement)
        movement.unit = Currency(movement.currency).label
    holds = list(selectors.open_holds_for(request.user))
    places = selectors.places_for(seat_refs={hold.seat_ref for hold in holds}, hand_refs=set())
    for hold in holds:
        hold.room = places.get(hold.seat_ref, {}).get("room")
    return render(
        request,
        "wallets/wallet.html",
        {"balances": selectors.balances_for(request.user), "holds": holds, "history": history},
    )


@login_required
@require_POST
def daily_bonus(request: HttpRequest) -> HttpResponse:
    try:
        txn = services.daily_bonus_claim(user=request.user)
    except services.WalletError as error:
        messages.info(request, error.message)
    else:
        amount = txn.entries.get(account__user=request.user).amount
        messages.success(request, _("Daily bonus: +%(amount)s beans.") % {"amount": localize(amount)})
    return redirect("wallets:wallet")


@login_required
@require_POST
def points_refill(request: HttpRequest) -> HttpResponse:
    try:
        txn = services.points_refill(user=request.user)
    except services.WalletError as error:
        messages.info(request, error.message)
    else:
        amount = txn.entries.get(account__user=request.user).amount
        messages.success(request, _("Practice points refilled: +%(amount)s.") % {"amount": localize(amount)})
    return redirect("wallets:wallet")
