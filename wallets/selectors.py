"""Wallet reads. Nothing here writes or locks."""

from django.db.models import QuerySet, Sum

from .models import Account, Currency, Entry, Hold


def balances_for(user) -> dict[str, dict[str, int]]:
    """{"beans": {"available": .., "held": ..}, "points": {...}}; one query."""
    result = {currency: {"available": 0, "held": 0} for currency in Currency.values}
    rows = (
        Account.objects.filter(user=user, kind__in=[Account.Kind.AVAILABLE, Account.Kind.HOLD])
        .values("currency", "kind")
        .annotate(total=Sum("balance"))
    )
    for row in rows:
        slot = "available" if row["kind"] == Account.Kind.AVAILABLE else "held"
        result[row["currency"]][slot] += row["total"] or 0
    return result


def open_holds_for(user) -> QuerySet[Hold]:
    """The user's stacks on tables right now."""
    return Hold.objects.filter(user=user, closed_at__isnull=True).order_by("pk")


def hold_for_seat(*, seat_ref: str) -> Hold | None:
    """The open hold behind a seat's stack, if any."""
    return Hold.objects.filter(seat_ref=seat_ref, closed_at__isnull=True).first()


def ledger_for(user, *, currency: str | None = None, limit: int = 100) -> list[Entry]:
    """The user's most recent entries (available and on tables), newest first, with the
    transaction each came from (kind, memo, hand_ref) and the account it moved."""
    entries = Entry.objects.filter(account__user=user).select_related("transaction", "account")
    if currency:
        entries = entries.filter(account__currency=currency)
    return list(entries.order_by("-pk")[:limit])
