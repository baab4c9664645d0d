"""The database refuses what the services would never do, even from raw SQL."""

import pytest
from django.db import IntegrityError, connection, transaction

from wallets import services
from wallets.models import Account, Currency, Entry, Hold, Transaction

from .conftest import WELCOME, key


def available(user, currency=Currency.BEANS) -> Account:
    return Account.objects.get(kind=Account.Kind.AVAILABLE, user=user, currency=currency)


@pytest.mark.django_db
def test_raw_sql_cannot_make_a_player_balance_negative(alice):
    # A CHECK constraint: holds on SQLite and PostgreSQL alike.
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE wallets_account SET balance = -1 WHERE id = %s", [available(alice).pk])
    assert available(alice).balance == WELCOME


@pytest.mark.django_db
def test_raw_sql_cannot_leave_chips_in_a_closed_hold(alice):
    hold = services.hold_create(user=alice, currency="beans", amount=10, seat_ref="s:1", idempotency_key=key())
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE wallets_account SET closed_at = CURRENT_TIMESTAMP WHERE id = %s", [hold.pk])


@pytest.mark.django_db
def test_a_zero_entry_is_refused(alice):
    txn = Transaction.objects.filter(kind=Transaction.Kind.WELCOME, currency="beans").first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Entry.objects.create(transaction=txn, account=available(alice), amount=0)


@pytest.mark.django_db
def test_entries_are_append_only_in_the_orm(alice):
    entry = Entry.objects.filter(account__user=alice).first()
    with pytest.raises(ValueError):
        entry.save()
    with pytest.raises(ValueError):
        entry.delete()


@pytest.mark.django_db
def test_a_player_with_a_ledger_cannot_be_deleted(alice):
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        alice.delete()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_raw_sql_unbalanced_transaction_is_refused_at_commit(alice):
    account_id = available(alice).pk
    with pytest.raises(IntegrityError, match="unbalanced"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO wallets_transaction (kind, currency, idempotency_key, memo, hand_ref, created_at)"
                " VALUES ('settle', 'beans', 'raw-1', '', '', now()) RETURNING id"
            )
            (txn_id,) = cursor.fetchone()
            cursor.execute(
                "INSERT INTO wallets_entry (transaction_id, account_id, amount) VALUES (%s, %s, 500)",
                [txn_id, account_id],
            )
            cursor.execute("UPDATE wallets_account SET balance = balance + 500 WHERE id = %s", [account_id])
    assert not Transaction.objects.filter(idempotency_key="raw-1").exists()
    assert available(alice).balance == WELCOME


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_raw_sql_transaction_without_entries_or_across_currencies_is_refused(alice):
    beans, points = available(alice).pk, available(alice, Currency.POINTS).pk
    with pytest.raises(IntegrityError, match="unbalanced"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO wallets_transaction (kind, currency, idempotency_key, memo, hand_ref, created_at)"
                " VALUES ('settle', 'beans', 'raw-2', '', '', now())"
            )
    with pytest.raises(IntegrityError, match="unbalanced"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO wallets_transaction (kind, currency, idempotency_key, memo, hand_ref, created_at)"
                " VALUES ('settle', 'beans', 'raw-3', '', '', now()) RETURNING id"
            )
            (txn_id,) = cursor.fetchone()
            cursor.execute(
                "INSERT INTO wallets_entry (transaction_id, account_id, amount) VALUES (%s, %s, -5), (%s, %s, 5)",
                [txn_id, beans, txn_id, points],
            )


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_raw_sql_balanced_transaction_is_accepted(alice, bob):
    a, b = available(alice).pk, available(bob).pk
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO wallets_transaction (kind, currency, idempotency_key, memo, hand_ref, created_at)"
            " VALUES ('settle', 'beans', 'raw-4', '', '', now()) RETURNING id"
        )
        (txn_id,) = cursor.fetchone()
        cursor.execute(
            "INSERT INTO wallets_entry (transaction_id, account_id, amount) VALUES (%s, %s, -5), (%s, %s, 5)",
            [txn_id, a, txn_id, b],
        )
    assert Transaction.objects.filter(idempotency_key="raw-4").exists()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_raw_sql_cannot_rewrite_or_delete_the_ledger(alice):
    entry = Entry.objects.filter(account__user=alice).first()
    for sql in (
        "UPDATE wallets_entry SET amount = amount + 1 WHERE id = %s",
        "DELETE FROM wallets_entry WHERE id = %s",
        "DELETE FROM wallets_transaction WHERE id = %s",
    ):
        target = entry.transaction_id if "transaction" in sql else entry.pk
        with pytest.raises(IntegrityError, match="append-only"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql, [target])
    assert Hold.objects.count() == 0
