from datetime import date

import pytest
from django.contrib.auth.models import Group, Permission

from wallets import services
from wallets.audit import ledger_audit
from wallets.models import Currency, Transaction
from wallets.selectors import balances_for

from .conftest import BONUS, CEILING, WELCOME, key, make_player


def test_a_new_player_gets_welcome_beans_and_practice_points(alice):
    assert balances_for(alice) == {
        "beans": {"available": WELCOME, "held": 0},
        "points": {"available": CEILING, "held": 0},
    }
    assert ledger_audit()["ok"]


def test_welcome_grant_is_idempotent_per_user(alice):
    first = Transaction.objects.filter(kind=Transaction.Kind.WELCOME).order_by("pk")
    before = list(first.values_list("pk", flat=True))
    again = services.welcome_grant(user=alice)
    assert [t.pk for t in again] == before
    assert balances_for(alice)["beans"]["available"] == WELCOME


def test_daily_bonus_once_per_utc_day(alice):
    services.daily_bonus_claim(user=alice, today=date(2025, 3, 1))
    with pytest.raises(services.BonusAlreadyClaimed):
        services.daily_bonus_claim(user=alice, today=date(2025, 3, 1))
    services.daily_bonus_claim(user=alice, today=date(2025, 3, 2))
    assert balances_for(alice)["beans"]["available"] == WELCOME + 2 * BONUS


def test_daily_bonus_defaults_to_today(alice, bob):
    services.daily_bonus_claim(user=alice)
    services.daily_bonus_claim(user=bob)  # another player's bonus is their own
    with pytest.raises(services.BonusAlreadyClaimed):
        services.daily_bonus_claim(user=alice)


def test_points_refill_tops_available_points_up_to_the_ceiling(alice):
    services.hold_create(user=alice, currency=Currency.POINTS, amount=300, seat_ref="seat:1", idempotency_key=key())
    txn = services.points_refill(user=alice)
    assert txn.entries.get(account__user=alice).amount == 300
    assert balances_for(alice)["points"] == {"available": CEILING, "held": 300}


def test_points_refill_at_the_ceiling_is_refused(alice):
    with pytest.raises(services.PointsAtCeiling):
        services.points_refill(user=alice)


def test_points_refill_with_the_same_key_refills_once(alice):
    services.hold_create(user=alice, currency=Currency.POINTS, amount=200, seat_ref="seat:1", idempotency_key=key())
    first = services.points_refill(user=alice, idempotency_key="refill-1")
    assert services.points_refill(user=alice, idempotency_key="refill-1") == first


def test_adjustment_records_who_and_why(alice, admin_user):
    txn = services.adjustment_create(
        user=alice, currency=Currency.BEANS, amount=-250, reason="chargeback test", by=admin_user
    )
    assert (txn.created_by, txn.memo, txn.kind) == (admin_user, "chargeback test", Transaction.Kind.ADJUSTMENT)
    assert balances_for(alice)["beans"]["available"] == WELCOME - 250


def test_adjustment_needs_a_reason(alice, admin_user):
    with pytest.raises(services.WalletError) as error:
        services.adjustment_create(user=alice, currency=Currency.BEANS, amount=5, reason="  ", by=admin_user)
    assert error.value.code == "reason_required"


def test_adjustment_cannot_leave_a_debt(alice, admin_user):
    with pytest.raises(services.InsufficientFunds):
        services.adjustment_create(user=alice, currency=Currency.BEANS, amount=-WELCOME - 1, reason="x", by=admin_user)


def test_a_moderator_cannot_adjust_even_with_every_wallet_permission(alice, bob):
    moderators, _created = Group.objects.get_or_create(name="Moderators")
    moderators.permissions.set(Permission.objects.filter(content_type__app_label="wallets"))
    bob.groups.add(moderators)
    bob.is_staff = True
    bob.save()
    with pytest.raises(services.NotAllowed):
        services.adjustment_create(user=alice, currency=Currency.BEANS, amount=5, reason="gift", by=bob)


def test_grants_come_from_system_accounts_so_the_audit_balances(alice, bob, admin_user):
    services.daily_bonus_claim(user=alice, today=date(2025, 1, 1))
    services.adjustment_create(user=bob, currency=Currency.POINTS, amount=7, reason="bug #12", by=admin_user)
    report = ledger_audit()
    assert report["ok"], report
    users = 3  # alice, bob and the admin each got a welcome
    assert report["totals"]["beans"]["issued"] == users * WELCOME + BONUS
    assert report["totals"]["points"]["issued"] == users * CEILING + 7


def test_a_player_created_before_wallets_existed_gets_accounts_on_first_use(db, settings):
    settings.WELCOME_BEANS = 0
    settings.PRACTICE_POINTS_CEILING = 0
    lin = make_player("lin")
    assert balances_for(lin)["beans"] == {"available": 0, "held": 0}
    settings.DAILY_BONUS_BEANS = 100
    services.daily_bonus_claim(user=lin)
    assert balances_for(lin)["beans"]["available"] == 100
