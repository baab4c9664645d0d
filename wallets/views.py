from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import selectors, services
from .models import Account


@login_required
def wallet(request: HttpRequest) -> HttpResponse:
    entries = selectors.ledger_for(request.user, limit=100)
    for entry in entries:
        entry.on_table = entry.account.kind == Account.Kind.HOLD
    return render(
        request,
        "wallets/wallet.html",
        {
            "balances": selectors.balances_for(request.user),
            "holds": selectors.open_holds_for(request.user),
            "entries": entries,
        },
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
        messages.success(request, _("Daily bonus: +%(amount)s beans.") % {"amount": amount})
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
        messages.success(request, _("Practice points refilled: +%(amount)s.") % {"amount": amount})
    return redirect("wallets:wallet")
