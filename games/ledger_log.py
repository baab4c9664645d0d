"""A room's night as it happened (docs/ledger.md, "The log" and "Hand by hand"): the time-stamped log of buy-ins,
top-ups and departures, and the matrix of each finished hand's net per person. Reads only; the ledger's figures
(games/ledger.py) are their sums.

The log comes from the wallets ledger and the seats: a buy-in is the `hold` transaction of a seat's hold, a top-up its
`top_up`, a departure the seat's `left_at` with what its `release` took home (nothing when the stack was empty: an
empty hold is closed without a transaction). A departure is marked `away` when the room released the seat for being
away too long (the release's reason, wallets.services.release_reason, or the seat still marked away when it went).

The matrix comes from the hand records: every finished hand in order, and for each person what it moved on their
chips (HandSeat.delta). A hand nobody played (a voided hand: games/engine/void.py) has no HandSeat row: it is listed,
marked voided, with no figure. Each person's column adds up to what the hands moved for them, which is their net.
Two queries each.
"""

from django.db.models import Q

from games.models import Hand, HandSeat, Seat
from wallets.models import Account, Entry, Transaction
from wallets.services import release_reason

RELEASE_AWAY = "away"  # games/services/save.py RELEASE_AWAY: the reason a release of a seat away too long carries


def room_log(room) -> list[dict]:
    """Every buy-in, top-up and departure of `room`, oldest first: {"at", "user", "name", "kind" ("buy_in", "top_up",
    "left"), "amount", "away"}. `amount` is what came onto the table, or what went home (0 for an empty stack)."""
    kind = Transaction.Kind
    seats = list(Seat.objects.filter(room_id=room.pk).select_related("user").order_by("pk"))
    by_hold = {s.hold_id: s for s in seats if s.hold_id is not None}
    entries = (Entry.objects.filter(account__in=list(by_hold), account__kind=Account.Kind.HOLD,
                                    transaction__kind__in=(kind.HOLD, kind.TOP_UP, kind.RELEASE))
               .values("account_id", "amount", "transaction__kind", "transaction__memo", "transaction__created_at",
                       "transaction_id"))
    released: dict[int, dict] = {}
    out = []
    for e in entries:
        seat = by_hold[e["account_id"]]
        if e["transaction__kind"] == kind.RELEASE:
            released[seat.pk] = e
            continue
        out.append(_line(seat, e["transaction__created_at"], "buy_in" if e["transaction__kind"] == kind.HOLD
                         else "top_up", e["amount"], False, e["transaction_id"]))
    for seat in seats:
        if seat.left_at is None:
            continue
        e = released.get(seat.pk)
        away = seat.away or (e is not None and release_reason(e["transaction__memo"]) == RELEASE_AWAY)
        out.append(_line(seat, seat.left_at, "left", -e["amount"] if e else 0, away, e["transaction_id"] if e else 0))
    out.sort(key=lambda x: (x["at"], x.pop("_order")))
    return out


def _line(seat, at, kind: str, amount: int, away: bool, order: int) -> dict:
    user = seat.user
    return {"at": at, "user": user.pk, "name": user.public_name, "kind": kind, "amount": amount,
            "away": away, "_order": (order or 1 << 62, seat.pk)}


def room_matrix(room) -> list[dict]:
    """The finished hands of `room` in order: {"hand": number, "voided": bool, "nets": {user id: delta}} (a person who
    was not in a hand has no entry in its `nets`)."""
    numbers = list(Hand.objects.filter(room_id=room.pk, ended_at__isnull=False).order_by("number")
                   .values_list("number", flat=True))
    nets: dict[int, dict[int, int]] = {n: {} for n in numbers}
    for number, user_id, delta in (HandSeat.objects.filter(Q(hand__room_id=room.pk) & Q(hand__ended_at__isnull=False))
                                   .values_list("hand__number", "user_id", "delta")):
        nets.setdefault(number, {})[user_id] = delta
    return [{"hand": n, "voided": not nets[n], "nets": nets[n]} for n in numbers]
