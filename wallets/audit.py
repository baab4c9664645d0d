"""Every ledger invariant, checked against the database as it is. Read-only.

`ledger_audit()` is what `manage.py wallet_audit` prints; tests (and the games tests,
after every hand) call it directly. Each check reports "passed", "failed" with its
violations, or "skipped" when it cannot run (never counted as passing).
"""

from collections.abc import Callable

from django.conf import settings
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce
from django.utils.module_loading import import_string

from .models import Account, Currency, Entry, Hold, Transaction

VIOLATIONS_SHOWN = 100  # per check; the count is always exact


def _transactions_balance() -> list[dict]:
    foreign = Count("entries", filter=~Q(entries__account__currency=F("currency")))
    rows = (
        Transaction.objects.annotate(total=Coalesce(Sum("entries__amount"), 0), n=Count("entries"), foreign=foreign)
        .filter(~Q(total=0) | Q(n__lt=2) | Q(foreign__gt=0))
        .values("pk", "kind", "total", "n", "foreign")
    )
    return [
        {
            "transaction": r["pk"],
            "kind": r["kind"],
            "sum": r["total"],
            "entries": r["n"],
            "foreign_currency": r["foreign"],
        }
        for r in rows
    ]


def _cached_balances() -> list[dict]:
    rows = (
        Account.objects.annotate(ledger=Coalesce(Sum("entries__amount"), 0))
        .exclude(balance=F("ledger"))
        .values("pk", "balance", "ledger")
    )
    return [{"account": r["pk"], "cached": r["balance"], "ledger": r["ledger"]} for r in rows]


def _no_negative_balance() -> list[dict]:
    rows = Account.objects.exclude(kind=Account.Kind.SYSTEM).filter(balance__lt=0).values("pk", "kind", "balance")
    return [{"account": r["pk"], "kind": r["kind"], "balance": r["balance"]} for r in rows]


def _closed_holds_empty() -> list[dict]:
    rows = Hold.objects.filter(closed_at__isnull=False).exclude(balance=0).values("pk", "balance")
    return [{"hold": r["pk"], "balance": r["balance"]} for r in rows]


def _issued_equals_held() -> list[dict]:
    """Per currency, what players have (available + on tables) equals what the system
    accounts issued (minus their balances): play only moves chips between players."""
    violations = []
    for currency in Currency.values:
        totals = Account.objects.filter(currency=currency).aggregate(
            players=Coalesce(Sum("balance", filter=~Q(kind=Account.Kind.SYSTEM)), 0),
            system=Coalesce(Sum("balance", filter=Q(kind=Account.Kind.SYSTEM)), 0),
        )
        if totals["players"] != -totals["system"]:
            violations.append({"currency": currency, "players": totals["players"], "issued": -totals["system"]})
    return violations


def _live_seat_refs_function() -> Callable[[], set[str]] | None:
    path = getattr(settings, "WALLETS_LIVE_SEAT_REFS", None)
    return import_string(path) if path else None


def _orphan_holds(live_seat_refs: set[str]) -> list[dict]:
    rows = (
        Hold.objects.filter(closed_at__isnull=True, balance__gt=0)
        .exclude(seat_ref__in=live_seat_refs)
        .values("pk", "user_id", "seat_ref", "balance", "currency")
    )
    return [
        {
            "hold": r["pk"],
            "user": r["user_id"],
            "seat_ref": r["seat_ref"],
            "balance": r["balance"],
            "currency": r["currency"],
        }
        for r in rows
    ]


def ledger_audit() -> dict:
    """{"ok": bool, "checks": {name: {"status", "count", "violations"}}, "totals": ...}."""
    checks: dict[str, dict] = {}

    def record(name: str, violations: list[dict] | None, reason: str = "") -> None:
        if violations is None:
            checks[name] = {"status": "skipped", "reason": reason}
        else:
            checks[name] = {
                "status": "failed" if violations else "passed",
                "count": len(violations),
                "violations": violations[:VIOLATIONS_SHOWN],
            }

    record("transactions_sum_to_zero", _transactions_balance())
    record("cached_balances_match_entries", _cached_balances())
    record("no_negative_balance", _no_negative_balance())
    record("closed_holds_are_empty", _closed_holds_empty())
    record("players_hold_what_was_issued", _issued_equals_held())
    live = _live_seat_refs_function()
    if live is None:
        record("no_hold_without_a_seat", None, "WALLETS_LIVE_SEAT_REFS is not set")
    else:
        record("no_hold_without_a_seat", _orphan_holds(set(live())))

    totals = {
        currency: Account.objects.filter(currency=currency).aggregate(
            available=Coalesce(Sum("balance", filter=Q(kind=Account.Kind.AVAILABLE)), 0),
            held=Coalesce(Sum("balance", filter=Q(kind=Account.Kind.HOLD)), 0),
            issued=Coalesce(Sum("balance", filter=Q(kind=Account.Kind.SYSTEM)), 0) * -1,
        )
        for currency in Currency.values
    }
    return {
        "ok": all(check["status"] != "failed" for check in checks.values()),
        "checks": checks,
        "totals": totals,
        "entries": Entry.objects.count(),
        "transactions": Transaction.objects.count(),
    }
