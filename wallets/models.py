"""An append-only double-entry ledger for beans and points (django-hordak style).

Every movement is a Transaction of one currency with two or more Entry rows whose
amounts sum to zero. Accounts keep a cached `balance` equal to the sum of their entries.
Three kinds of account:
- `system`: where grants come from (welcome, daily bonus, refills, adjustments). Its
  balance is minus what it issued, so it is the only kind allowed below zero.
- `available`: one per user and currency, what the user can spend or take to a table.
- `hold`: a buy-in reserved for one table seat (saleor-style reservation): the seat's
  stack. Hands settle between holds; leaving releases what is left back to available.

The database enforces what it can, even against raw SQL: CHECK constraints (no negative
balance outside system accounts, a closed hold holds nothing, entries are never zero) on
every backend, and on PostgreSQL deferred constraint triggers that refuse an unbalanced
transaction and any UPDATE or DELETE of the ledger (migration 0002).
Writes go through wallets.services only.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Currency(models.TextChoices):
    BEANS = "beans", _("beans")
    POINTS = "points", _("points")


class Account(models.Model):
    class Kind(models.TextChoices):
        SYSTEM = "system", _("system")
        AVAILABLE = "available", _("available")
        HOLD = "hold", _("on a table")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    currency = models.CharField(_("currency"), max_length=6, choices=Currency.choices)
    # PROTECT: a ledger outlives nothing it refers to; deleting a user with history must fail.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="wallet_accounts"
    )
    name = models.CharField(_("system account name"), max_length=40, blank=True)
    seat_ref = models.CharField(_("seat"), max_length=100, blank=True)
    balance = models.BigIntegerField(_("balance"), default=0)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        verbose_name = _("account")
        verbose_name_plural = _("accounts")
        constraints = [
            models.CheckConstraint(
                name="wallets_account_no_negative_balance",
                condition=Q(kind="system") | Q(balance__gte=0),
            ),
            models.CheckConstraint(
                name="wallets_account_kind_valid", condition=Q(kind__in=["system", "available", "hold"])
            ),
            models.CheckConstraint(
                name="wallets_account_currency_valid", condition=Q(currency__in=["beans", "points"])
            ),
            models.CheckConstraint(
                name="wallets_account_owner_matches_kind",
                condition=(Q(kind="system", user__isnull=True) & ~Q(name=""))
                | (~Q(kind="system") & Q(user__isnull=False, name="")),
            ),
            models.CheckConstraint(
                name="wallets_account_seat_only_on_holds",
                condition=(Q(kind="hold") & ~Q(seat_ref=""))
                | (~Q(kind="hold") & Q(seat_ref="", closed_at__isnull=True)),
            ),
            # Releasing a hold moves its whole balance out before closing it.
            models.CheckConstraint(
                name="wallets_account_closed_hold_is_empty", condition=Q(closed_at__isnull=True) | Q(balance=0)
            ),
            models.UniqueConstraint(
                fields=["user", "currency"], condition=Q(kind="available"), name="wallets_one_available_per_currency"
            ),
            models.UniqueConstraint(
                fields=["name", "currency"], condition=Q(kind="system"), name="wallets_unique_system_account"
            ),
            # A seat has at most one open hold behind its stack.
            models.UniqueConstraint(
                fields=["seat_ref"],
                condition=Q(kind="hold", closed_at__isnull=True),
                name="wallets_one_open_hold_per_seat",
            ),
        ]
        indexes = [models.Index(fields=["user", "kind", "currency"], name="wallets_acc_user_kind")]

    def __str__(self) -> str:
        if self.kind == self.Kind.SYSTEM:
            return f"system:{self.name} ({self.currency})"
        where = self.seat_ref if self.kind == self.Kind.HOLD else "available"
        return f"{self.user_id}:{where} ({self.currency})"


class HoldManager(models.Manager):
    def get_queryset(self):
        return super().get_queryset().filter(kind=Account.Kind.HOLD)


class Hold(Account):
    """A seat's stack: an account of kind `hold`. `hold.pk` is the id hand_settle takes."""

    objects = HoldManager()

    class Meta:
        proxy = True
        verbose_name = _("hold")
        verbose_name_plural = _("holds")

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class Transaction(models.Model):
    class Kind(models.TextChoices):
        WELCOME = "welcome", _("welcome grant")
        DAILY_BONUS = "daily_bonus", _("daily bonus")
        POINTS_REFILL = "points_refill", _("points refill")
        ADJUSTMENT = "adjustment", _("adjustment")
        HOLD = "hold", _("buy-in")
        TOP_UP = "top_up", _("top-up")
        SETTLE = "settle", _("hand")
        RELEASE = "release", _("left the table")
        BOT_FLOAT = "bot_float", _("bot's chips")

    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    currency = models.CharField(_("currency"), max_length=6, choices=Currency.choices)
    # The unique index is what makes every service idempotent: a second insert with the
    # same key inserts nothing (ON CONFLICT DO NOTHING) and the service returns the first result.
    idempotency_key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    memo = models.CharField(_("memo"), max_length=500, blank=True)
    hand_ref = models.CharField(_("hand"), max_length=100, blank=True, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")
        constraints = [
            models.CheckConstraint(
                name="wallets_transaction_currency_valid", condition=Q(currency__in=["beans", "points"])
            ),
            # An adjustment records who made it and why.
            models.CheckConstraint(
                name="wallets_adjustment_has_author_and_reason",
                condition=~Q(kind="adjustment") | (Q(created_by__isnull=False) & ~Q(memo="")),
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.currency}"


class Entry(models.Model):
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField(_("amount"))

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [models.CheckConstraint(name="wallets_entry_amount_not_zero", condition=~Q(amount=0))]

    def __str__(self) -> str:
        return f"{self.amount:+d} on {self.account_id} (#{self.transaction_id})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ValueError("ledger entries are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("ledger entries are append-only")
