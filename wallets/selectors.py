"""Wallet reads. Nothing here writes or locks."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db.models import QuerySet, Sum
from django.utils.module_loading import import_string

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


@dataclass
class Movement:
    """One line of a player's history: one ledger transaction seen from that player's side.

    `available` and `on_tables` are what it changed in each of the player's balances (a buy-in takes from
    one and adds to the other: one movement, two entries). `place` is what settings.WALLETS_PLACES calls
    its hand or seat reference, e.g. {"room": "2106", "hand": 3, "url": "/hands/.../"}; {} when nothing does."""

    id: int
    when: datetime
    kind: str
    currency: str
    memo: str
    hand_ref: str
    seat_ref: str = ""
    available: int = 0
    on_tables: int = 0
    place: dict = field(default_factory=dict)


def places_for(*, seat_refs: set[str], hand_refs: set[str]) -> dict[str, dict]:
    """What the app behind the seats calls each reference (settings.WALLETS_PLACES, a dotted path); the
    ledger keeps its references opaque and knows nothing of rooms or hands."""
    path = getattr(settings, "WALLETS_PLACES", None)
    if not path or not (seat_refs or hand_refs):
        return {}
    namer: Callable[..., dict[str, dict]] = import_string(path)
    return namer(seat_refs=seat_refs, hand_refs=hand_refs)


def history_for(user, *, limit: int = 100) -> list[Movement]:
    """The user's most recent `limit` movements, newest first: one per transaction that touched their
    accounts, with what it did to their available balance and to their stacks on tables."""
    txn_ids = list(
        Entry.objects.filter(account__user=user)
        .order_by("-transaction_id")
        .values_list("transaction_id", flat=True)
        .distinct()[:limit]
    )
    entries = (
        Entry.objects.filter(transaction_id__in=txn_ids, account__user=user)
        .select_related("transaction", "account")
        .order_by("-transaction_id", "pk")
    )
    movements: dict[int, Movement] = {}
    for entry in entries:
        txn = entry.transaction
        movement = movements.get(txn.pk)
        if movement is None:
            movement = movements[txn.pk] = Movement(
                id=txn.pk, when=txn.created_at, kind=txn.kind, currency=txn.currency, memo=txn.memo,
                hand_ref=txn.hand_ref,
            )
        if entry.account.kind == Account.Kind.HOLD:
            movement.on_tables += entry.amount
            movement.seat_ref = entry.account.seat_ref
        else:
            movement.available += entry.amount
    history = list(movements.values())
    places = places_for(
        seat_refs={m.seat_ref for m in history if m.seat_ref}, hand_refs={m.hand_ref for m in history if m.hand_ref}
    )
    for movement in history:
        movement.place = places.get(movement.hand_ref) or places.get(movement.seat_ref) or {}
    return history
