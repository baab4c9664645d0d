import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from wallets import services
from wallets.models import Account, Currency, Entry, Transaction

from .conftest import key

LIVE_SEATS: set[str] = set()


def live_seats() -> set[str]:
    return set(LIVE_SEATS)


def audit() -> tuple[int, dict]:
    out = StringIO()
    try:
        call_command("wallet_audit", stdout=out)
        status = 0
    except SystemExit as exit_:
        status = exit_.code
    return status, json.loads(out.getvalue())


@pytest.mark.django_db
def test_a_sound_ledger_passes_and_reports_the_seat_check_as_skipped_without_the_setting(alice, bob):
    services.hold_create(user=alice, currency="beans", amount=10, seat_ref="s:1", idempotency_key=key())
    status, report = audit()
    assert status == 0 and report["ok"] is True
    assert report["checks"]["no_hold_without_a_seat"]["status"] == "skipped"
    assert {c["status"] for name, c in report["checks"].items() if name != "no_hold_without_a_seat"} == {"passed"}


@pytest.mark.django_db
def test_a_hold_whose_seat_no_longer_exists_is_a_violation(alice, bob, settings):
    settings.WALLETS_LIVE_SEAT_REFS = "tests.wallets.test_audit.live_seats"
    LIVE_SEATS.clear()
    LIVE_SEATS.add("s:1")
    services.hold_create(user=alice, currency="beans", amount=10, seat_ref="s:1", idempotency_key=key())
    orphan = services.hold_create(user=bob, currency="points", amount=20, seat_ref="s:gone", idempotency_key=key())
    status, report = audit()
    assert status == 1 and report["ok"] is False
    check = report["checks"]["no_hold_without_a_seat"]
    assert check["status"] == "failed"
    assert check["violations"] == [
        {"hold": orphan.pk, "user": bob.pk, "seat_ref": "s:gone", "balance": 20, "currency": "points"}
    ]
    # Released, it is no longer a violation.
    services.hold_release(hold=orphan, idempotency_key=key())
    assert audit()[0] == 0


@pytest.mark.django_db
def test_a_cached_balance_that_drifts_from_its_entries_fails_the_audit(alice):
    account = Account.objects.get(user=alice, kind="available", currency=Currency.BEANS)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE wallets_account SET balance = balance + 5 WHERE id = %s", [account.pk])
    status, report = audit()
    assert status == 1
    assert report["checks"]["cached_balances_match_entries"]["violations"] == [
        {"account": account.pk, "cached": account.balance + 5, "ledger": account.balance}
    ]
    assert report["checks"]["players_hold_what_was_issued"]["status"] == "failed"


@pytest.mark.django_db
def test_an_unbalanced_transaction_fails_the_audit(alice):
    # Where no trigger guards the table (SQLite), the audit still catches it.
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL refuses this transaction at commit: see test_constraints.py")
    account = Account.objects.get(user=alice, kind="available", currency=Currency.BEANS)
    txn = Transaction.objects.create(kind="settle", currency="beans", idempotency_key="bad")
    Entry.objects.create(transaction=txn, account=account, amount=7)
    status, report = audit()
    assert status == 1
    assert report["checks"]["transactions_sum_to_zero"]["violations"] == [
        {"transaction": txn.pk, "kind": "settle", "sum": 7, "entries": 1, "foreign_currency": 0}
    ]
