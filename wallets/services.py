"""Wallet writes: grants, buy-in holds, hand settlement, release. The only code that
writes the ledger.

Every service is atomic and follows the same order, which is what keeps it free of
deadlocks and double spends across any number of processes:
1. lock the accounts it moves with SELECT ... FOR UPDATE, in primary-key order (two
   settlements between the same seats in opposite directions lock in the same order);
2. claim the idempotency key by inserting the Transaction row with ON CONFLICT DO NOTHING:
   the UNIQUE index lets only the first insert through, and the service returns the first
   result (a retry waits on step 1 until the first call commits, so it always finds it);
3. check (funds, open hold, balanced movements), raising WalletError, which rolls back
   the whole call, key included;
4. write: bulk-insert the entries and update every cached balance in one UPDATE.
Callers that hold other locks (the games layer locks its Table row first) call these
inside their own transaction; each service's savepoint keeps that transaction usable after a
refusal (hand_settle(savepoint=False) leaves it to be rolled back instead).
"""

import re
import uuid
from collections.abc import Mapping
from datetime import date

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import Account, Currency, Entry, Hold, Transaction

SYSTEM_WELCOME = "welcome"
SYSTEM_DAILY_BONUS = "daily-bonus"
SYSTEM_POINTS_REFILL = "points-refill"
SYSTEM_ADJUSTMENTS = "adjustments"
SYSTEM_BOTS = "bots"


class WalletError(Exception):
    """A refused wallet operation. `code` is stable for clients; `message` is for people."""

    code = "wallet_error"

    def __init__(self, message: str = "", *, code: str | None = None):
        if code:
            self.code = code
        self.message = str(message) or self.code
        super().__init__(self.message)


class InsufficientFunds(WalletError):
    code = "insufficient_funds"


class HoldClosed(WalletError):
    code = "hold_closed"


class SeatAlreadyHeld(WalletError):
    code = "seat_already_held"


class BonusAlreadyClaimed(WalletError):
    code = "daily_bonus_already_claimed"


class PointsAtCeiling(WalletError):
    code = "points_at_ceiling"


class NotAllowed(WalletError):
    code = "not_allowed"


class IdempotencyKeyReused(WalletError):
    code = "idempotency_key_reused"


# --- helpers -----------------------------------------------------------------------


def _check_currency(currency: str) -> str:
    if currency not in Currency.values:
        raise WalletError(_("Unknown currency."), code="unknown_currency")
    return currency


def _check_positive(amount: int) -> int:
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise WalletError(_("The amount must be a whole number above zero."), code="invalid_amount")
    return amount


def _available_account_id(*, user_id: int, currency: str) -> int:
    """The user's available account, created on first use (the unique constraint makes
    a concurrent creation safe: the loser reads the winner's row)."""
    account_id = (
        Account.objects.filter(kind=Account.Kind.AVAILABLE, user_id=user_id, currency=currency)
        .values_list("pk", flat=True)
        .first()
    )
    if account_id is not None:
        return account_id
    try:
        with transaction.atomic():
            return Account.objects.create(kind=Account.Kind.AVAILABLE, user_id=user_id, currency=currency).pk
    except IntegrityError:
        return Account.objects.get(kind=Account.Kind.AVAILABLE, user_id=user_id, currency=currency).pk


def _system_account_id(*, name: str, currency: str) -> int:
    account_id = (
        Account.objects.filter(kind=Account.Kind.SYSTEM, name=name, currency=currency)
        .values_list("pk", flat=True)
        .first()
    )
    if account_id is not None:
        return account_id
    try:
        with transaction.atomic():
            return Account.objects.create(kind=Account.Kind.SYSTEM, name=name, currency=currency).pk
    except IntegrityError:
        return Account.objects.get(kind=Account.Kind.SYSTEM, name=name, currency=currency).pk


def _lock(query: Q) -> list[Account]:
    """Lock the matching accounts in primary-key order. Needs an open transaction."""
    return list(Account.objects.select_for_update().filter(query).order_by("pk"))


def _claim(
    *,
    key: str,
    kind: str,
    currency: str,
    memo: str = "",
    hand_ref: str = "",
    created_by=None,
) -> tuple[Transaction, bool]:
    """Insert the transaction row that owns `key`; (row, True) when this call owns it,
    (first row, False) when the key was used before. Needs the accounts locked first.

    One INSERT ... ON CONFLICT DO NOTHING: the unique index on the key refuses a second row without an
    error, so no savepoint is needed around it (a savepoint, the ORM's insert and its release were three
    statements of the eight of a hand's settlement, which runs on about half of all table commands).
    A claim racing another of the same key waits for it on the index, as before, then finds its row."""
    if not key:
        raise WalletError(_("An idempotency key is required."), code="idempotency_key_required")
    txn = Transaction(idempotency_key=key, kind=kind, currency=currency, memo=memo[:500], hand_ref=hand_ref,
                      created_by=created_by, created_at=timezone.now())
    meta, quote = Transaction._meta, connection.ops.quote_name
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    params = [f.get_db_prep_save(getattr(txn, f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
            f"VALUES ({', '.join(['%s'] * len(fields))}) "
            f"ON CONFLICT ({quote(meta.get_field('idempotency_key').column)}) DO NOTHING "
            f"RETURNING {quote(meta.pk.column)}", params)
        row = cursor.fetchone()
    if row is not None:
        txn.pk = row[0]
        txn._state.adding = False
        return txn, True
    first = Transaction.objects.get(idempotency_key=key)
    if first.kind != kind or first.currency != currency:
        raise IdempotencyKeyReused(_("This idempotency key was used for another operation."))
    return first, False


def _move(txn: Transaction, deltas: Mapping[Account, int]) -> None:
    """Write the entries of `txn` and the cached balances: one statement on PostgreSQL (two elsewhere)
    whatever the number of accounts. The accounts must be locked by the caller.

    Both statements are written out: Django 5.2's bulk_create sends the entries to PostgreSQL as typed arrays,
    and the balances' CASE was compiled afresh each time; with the lock, that was most of a hand's settlement,
    about 5 % of a web process at 500 tables (docs/performance.md). The database checks both as before
    (the entry's non-zero amount, the balance's sign, the foreign keys)."""
    deltas = {account: amount for account, amount in deltas.items() if amount}
    if sum(deltas.values()) != 0 or len(deltas) < 2:
        raise WalletError(_("A ledger transaction must balance."), code="unbalanced")
    quote = connection.ops.quote_name
    entry, account_meta = Entry._meta, Account._meta
    entry_columns = ", ".join(quote(entry.get_field(name).column) for name in ("transaction", "account", "amount"))
    entry_params = []
    for account, amount in deltas.items():
        entry_params += [txn.pk, account.pk, amount]
    pk, balance = quote(account_meta.pk.column), quote(account_meta.get_field("balance").column)
    cases = " ".join(f"WHEN {pk} = %s THEN %s" for _account in deltas)
    case_params = [value for account, amount in deltas.items() for value in (account.pk, amount)]
    ids = [account.pk for account in deltas]
    insert = f"INSERT INTO {quote(entry.db_table)} ({entry_columns}) VALUES " + ", ".join(["(%s, %s, %s)"] * len(deltas))
    update = (f"UPDATE {quote(account_meta.db_table)} SET {balance} = {balance} + CASE {cases} ELSE 0 END "
              f"WHERE {pk} IN ({', '.join(['%s'] * len(ids))})")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # one statement: the INSERT as a WITH clause of the UPDATE
            cursor.execute(f"WITH entries AS ({insert}) {update}", [*entry_params, *case_params, *ids])
        else:
            cursor.execute(insert, entry_params)
            cursor.execute(update, [*case_params, *ids])
    for account, amount in deltas.items():
        account.balance += amount


def _by_kind(accounts: list[Account], kind: str) -> Account:
    return next(account for account in accounts if account.kind == kind)


def _lock_user_and_system(*, user_id: int, currency: str, system: str) -> tuple[Account, Account]:
    available_id = _available_account_id(user_id=user_id, currency=currency)
    system_id = _system_account_id(name=system, currency=currency)
    locked = _lock(Q(pk__in=[available_id, system_id]))
    return _by_kind(locked, Account.Kind.AVAILABLE), _by_kind(locked, Account.Kind.SYSTEM)


def _lock_hold_and_available(hold: Account) -> tuple[Hold, Account]:
    """Lock a hold and its owner's available account of the same currency, in pk order."""
    locked = _lock(
        Q(pk=hold.pk, kind=Account.Kind.HOLD)
        | Q(kind=Account.Kind.AVAILABLE, user_id=hold.user_id, currency=hold.currency)
    )
    if len(locked) != 2:
        raise WalletError(_("No such hold."), code="unknown_hold")
    locked_hold = _by_kind(locked, Account.Kind.HOLD)
    locked_hold.__class__ = Hold  # same table and fields (a proxy): one locking query for both rows
    return locked_hold, _by_kind(locked, Account.Kind.AVAILABLE)


# --- grants --------------------------------------------------------------------------


def _grant(
    *, user, currency: str, amount: int, system: str, kind: str, key: str, memo: str = "", created_by=None
) -> Transaction:
    """Move `amount` (signed) from a system account to the user's available balance."""
    with transaction.atomic():
        available, source = _lock_user_and_system(user_id=user.pk, currency=currency, system=system)
        txn, created = _claim(key=key, kind=kind, currency=currency, memo=memo, created_by=created_by)
        if not created:
            return txn
        if available.balance + amount < 0:
            raise InsufficientFunds(_("The balance cannot go below zero."))
        _move(txn, {source: -amount, available: amount})
        return txn


def welcome_grant(*, user) -> list[Transaction]:
    """Give a new account its welcome beans and its practice points. Idempotent per user:
    the keys are derived from the user, so calling it again grants nothing.
    Locks: the user's available accounts and the welcome system accounts."""
    grants = [(Currency.BEANS, settings.WELCOME_BEANS), (Currency.POINTS, settings.PRACTICE_POINTS_CEILING)]
    return [
        _grant(
            user=user,
            currency=currency,
            amount=amount,
            system=SYSTEM_WELCOME,
            kind=Transaction.Kind.WELCOME,
            key=f"welcome:{currency}:{user.pk}",
            memo="Welcome to HalfPoint",
        )
        for currency, amount in grants
        if amount > 0
    ]


def daily_bonus_claim(*, user, today: date | None = None) -> Transaction:
    """Grant DAILY_BONUS_BEANS once per UTC day. The key `daily-bonus:<user>:<day>` is the
    unique constraint that allows one claim per day; a second claim that day raises
    BonusAlreadyClaimed (whether it is a retry or not, nothing more is granted).
    Locks: the user's available beans and the daily-bonus system account."""
    today = today or timezone.now().date()  # timezone.now() is UTC: USE_TZ
    key = f"daily-bonus:{user.pk}:{today.isoformat()}"
    with transaction.atomic():
        available, source = _lock_user_and_system(user_id=user.pk, currency=Currency.BEANS, system=SYSTEM_DAILY_BONUS)
        txn, created = _claim(
            key=key, kind=Transaction.Kind.DAILY_BONUS, currency=Currency.BEANS, memo=f"Daily bonus {today.isoformat()}"
        )
        if not created:
            raise BonusAlreadyClaimed(_("You have already claimed today's bonus. Come back tomorrow."))
        _move(txn, {source: -settings.DAILY_BONUS_BEANS, available: settings.DAILY_BONUS_BEANS})
        return txn


def points_refill(*, user, idempotency_key: str | None = None) -> Transaction:
    """Top the user's available points up to PRACTICE_POINTS_CEILING (points on tables are
    not counted: the ceiling is on what the player can still sit down with).
    Raises PointsAtCeiling when there is nothing to add.
    Locks: the user's available points and the refill system account."""
    ceiling = settings.PRACTICE_POINTS_CEILING
    with transaction.atomic():
        available, source = _lock_user_and_system(
            user_id=user.pk, currency=Currency.POINTS, system=SYSTEM_POINTS_REFILL
        )
        txn, created = _claim(
            key=idempotency_key or f"points-refill:{uuid.uuid4()}",
            kind=Transaction.Kind.POINTS_REFILL,
            currency=Currency.POINTS,
            memo=f"Refill to {ceiling}",
        )
        if not created:
            return txn
        missing = ceiling - available.balance
        if missing <= 0:
            raise PointsAtCeiling(_("Your points are already at the ceiling of %(ceiling)s.") % {"ceiling": ceiling})
        _move(txn, {source: -missing, available: missing})
        return txn


def adjustment_create(
    *, user, currency: str, amount: int, reason: str, by, idempotency_key: str | None = None
) -> Transaction:
    """A moderator's correction of a user's available balance (signed `amount`), recorded
    with who made it (`created_by`) and why (`memo`). Only superusers may adjust.
    Locks: the user's available account and the adjustments system account."""
    _check_currency(currency)
    if not getattr(by, "is_superuser", False):
        raise NotAllowed(_("Only a superuser can adjust a wallet."))
    reason = (reason or "").strip()
    if not reason:
        raise WalletError(_("An adjustment needs a reason."), code="reason_required")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount == 0:
        raise WalletError(_("The amount must be a whole number other than zero."), code="invalid_amount")
    return _grant(
        user=user,
        currency=currency,
        amount=amount,
        system=SYSTEM_ADJUSTMENTS,
        kind=Transaction.Kind.ADJUSTMENT,
        key=idempotency_key or f"adjustment:{uuid.uuid4()}",
        memo=reason,
        created_by=by,
    )


def bot_float_grant(*, user, currency: str, amount: int, idempotency_key: str) -> Transaction | None:
    """Make sure a bot account has `amount` available to buy in with, granting what is missing
    from the bots' system account (bots sit in AI practice rooms; a bot's winnings stay on its
    account and are used first). Returns None when nothing was missing. Only bot accounts.
    Locks: the bot's available account and the bots system account."""
    _check_currency(currency)
    _check_positive(amount)
    if not getattr(user, "is_bot", False):
        raise NotAllowed(_("Only a bot account is funded by the house."))
    with transaction.atomic():
        available, _source = _lock_user_and_system(user_id=user.pk, currency=currency, system=SYSTEM_BOTS)
        missing = amount - available.balance
        if missing <= 0:
            return None
        return _grant(user=user, currency=currency, amount=missing, system=SYSTEM_BOTS,
                      kind=Transaction.Kind.BOT_FLOAT, key=idempotency_key, memo="Chips for a bot")


# --- holds ---------------------------------------------------------------------------


def hold_create(*, user, currency: str, amount: int, seat_ref: str, idempotency_key: str) -> Hold:
    """Reserve a buy-in of `amount` from the user's available balance for the seat
    `seat_ref` (one open hold per seat). Raises InsufficientFunds when amount > available.
    Locks: the user's available account of that currency."""
    _check_currency(currency)
    _check_positive(amount)
    if not seat_ref:
        raise WalletError(_("A hold needs a seat."), code="seat_required")
    with transaction.atomic():
        available_id = _available_account_id(user_id=user.pk, currency=currency)
        (available,) = _lock(Q(pk=available_id))
        txn, created = _claim(
            key=idempotency_key, kind=Transaction.Kind.HOLD, currency=currency, memo=f"Buy-in at {seat_ref}"
        )
        if not created:
            return Hold.objects.get(entries__transaction=txn)
        if amount > available.balance:
            raise InsufficientFunds(
                _("You have %(available)s %(currency)s available; the buy-in is %(amount)s.")
                % {"available": available.balance, "currency": Currency(currency).label, "amount": amount}
            )
        try:
            with transaction.atomic():
                hold = Hold.objects.create(kind=Account.Kind.HOLD, user=user, currency=currency, seat_ref=seat_ref)
        except IntegrityError:
            raise SeatAlreadyHeld(_("This seat already has chips on it.")) from None
        _move(txn, {available: -amount, hold: amount})
        return hold


def hold_top_up(*, hold: Account, amount: int, idempotency_key: str) -> Hold:
    """Add `amount` from the owner's available balance to an open hold (a banker refilling
    the bank, a player adding chips between hands). Raises InsufficientFunds, HoldClosed.
    Locks: the hold and its owner's available account, in pk order."""
    _check_positive(amount)
    with transaction.atomic():
        locked_hold, available = _lock_hold_and_available(hold)
        txn, created = _claim(
            key=idempotency_key,
            kind=Transaction.Kind.TOP_UP,
            currency=locked_hold.currency,
            memo=f"Top-up at {locked_hold.seat_ref}",
        )
        if not created:
            return locked_hold
        if locked_hold.closed_at is not None:
            raise HoldClosed(_("This seat has been released."))
        if amount > available.balance:
            raise InsufficientFunds(
                _("You have %(available)s %(currency)s available; the top-up is %(amount)s.")
                % {"available": available.balance, "currency": Currency(locked_hold.currency).label, "amount": amount}
            )
        _move(txn, {available: -amount, locked_hold: amount})
        return locked_hold


def release_memo(seat_ref: str, reason: str = "") -> str:
    """The memo of a release: "Left <seat_ref>", and " (<reason>)" when the seat's app gave one (an opaque
    code, e.g. the games' "away": the seat was released for being away too long)."""
    return f"Left {seat_ref} ({reason})" if reason else f"Left {seat_ref}"


def release_reason(memo: str) -> str:
    """The reason code `release_memo` put in a release's memo, or ""."""
    match = _RELEASE_REASON.fullmatch(memo or "")
    return match[1] if match else ""


_RELEASE_REASON = re.compile(r"Left \S+ \(([a-z_]+)\)")


def hold_release(*, hold: Account, idempotency_key: str, reason: str = "") -> Hold:
    """Return what is left of the hold to the owner's available balance and close it.
    Releasing a closed hold does nothing and returns it (leaving twice is harmless);
    a closed hold cannot be topped up or settled again. An empty hold is closed without
    a ledger transaction (an entry is never zero). `reason`: why the seat's app let it go, kept in
    the memo (`release_memo`).
    Locks: the hold and its owner's available account, in pk order."""
    with transaction.atomic():
        locked_hold, available = _lock_hold_and_available(hold)
        if locked_hold.closed_at is not None:
            return locked_hold
        if locked_hold.balance:
            txn, created = _claim(
                key=idempotency_key,
                kind=Transaction.Kind.RELEASE,
                currency=locked_hold.currency,
                memo=release_memo(locked_hold.seat_ref, reason),
            )
            if not created:
                # Our release would have closed the hold; an open hold means another operation owns the key.
                raise IdempotencyKeyReused(_("This idempotency key was used for another operation."))
            _move(txn, {locked_hold: -locked_hold.balance, available: locked_hold.balance})
        locked_hold.closed_at = timezone.now()
        Account.objects.filter(pk=locked_hold.pk).update(closed_at=locked_hold.closed_at)
        return locked_hold


def hand_settle(
    *, currency: str, movements: Mapping[int, int], idempotency_key: str, memo: str = "", hand_ref: str = "",
    savepoint: bool = True,
) -> Transaction | None:
    """Apply one settled hand's chip movements between holds as one ledger transaction.
    `movements` maps hold id -> signed delta and must sum to zero; seats with a zero delta
    may be left out or given 0. Returns None when nothing moves (no transaction is written).
    Raises WalletError (unbalanced, unknown_hold), HoldClosed, InsufficientFunds (a stack
    would go below zero: rules/README.md "No debt").
    Queries: a constant few, whatever the number of seats: savepoint, lock, claim, entries and balances (one
    statement on PostgreSQL, two elsewhere), release; without the savepoint and its release with `savepoint=False`.
    Locks: every hold in `movements`, in pk order (the caller's Table lock comes first).
    `savepoint=False`, inside the caller's transaction: no savepoint of its own, so a refusal leaves that whole
    transaction to be rolled back (Django refuses any further query in it). games.services settles this way on
    about half of all table commands, and rolls the command back on any error anyway."""
    _check_currency(currency)
    deltas: dict[int, int] = {}
    for hold_id, delta in movements.items():
        if not isinstance(delta, int) or isinstance(delta, bool):
            raise WalletError(_("Chip movements are whole numbers."), code="invalid_amount")
        if delta:
            deltas[int(hold_id)] = delta
    if sum(deltas.values()) != 0:
        raise WalletError(_("A hand's chip movements must sum to zero."), code="unbalanced")
    if not deltas:
        return None
    with transaction.atomic(savepoint=savepoint):
        holds = _lock(Q(kind=Account.Kind.HOLD, pk__in=list(deltas)))
        txn, created = _claim(
            key=idempotency_key, kind=Transaction.Kind.SETTLE, currency=currency, memo=memo, hand_ref=hand_ref
        )
        if not created:
            return txn
        if len(holds) != len(deltas):
            raise WalletError(_("No such hold."), code="unknown_hold")
        for hold in holds:
            if hold.currency != currency:
                raise WalletError(_("A hold of another currency cannot settle here."), code="wrong_currency")
            if hold.closed_at is not None:
                raise HoldClosed(_("A seat in this hand has been released."))
            if hold.balance + deltas[hold.pk] < 0:
                raise InsufficientFunds(_("A stack cannot go below zero."), code="stack_would_go_negative")
        _move(txn, {hold: deltas[hold.pk] for hold in holds})
        return txn
