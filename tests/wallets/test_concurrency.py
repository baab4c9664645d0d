"""Real concurrency on PostgreSQL: threads, each with its own connection, released at
once by a barrier. SQLite serialises writers, so these run only on the services pass."""

import threading
from collections.abc import Callable
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from wallets import services
from wallets.models import Currency, Hold, Transaction
from wallets.selectors import balances_for

from .conftest import WELCOME

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def run_together(calls: list[Callable[[], object]]) -> list[object]:
    """Run each call in its own thread, all started by one barrier; return each result
    or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def worker(i: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except BaseException as error:  # noqa: BLE001 - reported to the test
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread is stuck"
    return results


def audit_passes() -> bool:
    out = StringIO()
    call_command("wallet_audit", stdout=out)  # raises SystemExit(1) on a violation
    return '"ok": true' in out.getvalue()


def test_concurrent_holds_only_the_affordable_ones_succeed(alice):
    n, buy_in = 10, 150
    k = WELCOME // buy_in  # 6
    results = run_together(
        [
            (
                lambda i=i: services.hold_create(
                    user=alice,
                    currency=Currency.BEANS,
                    amount=buy_in,
                    seat_ref=f"room:{i}:seat:1",
                    idempotency_key=f"sit:{i}",
                )
            )
            for i in range(n)
        ]
    )
    held = [r for r in results if isinstance(r, Hold)]
    refused = [r for r in results if isinstance(r, services.InsufficientFunds)]
    assert (len(held), len(refused)) == (k, n - k), results
    assert balances_for(alice)["beans"] == {"available": WELCOME - k * buy_in, "held": k * buy_in}
    assert audit_passes()


def test_the_same_key_ten_times_at_once_makes_one_transaction(alice):
    results = run_together(
        [
            (
                lambda: services.hold_create(
                    user=alice,
                    currency=Currency.BEANS,
                    amount=300,
                    seat_ref="room:1:seat:1",
                    idempotency_key="sit:once",
                )
            )
            for _ in range(10)
        ]
    )
    assert all(isinstance(r, Hold) for r in results), results
    assert len({r.pk for r in results}) == 1
    assert Transaction.objects.filter(idempotency_key="sit:once").count() == 1
    assert balances_for(alice)["beans"] == {"available": WELCOME - 300, "held": 300}
    assert audit_passes()


def test_the_same_settlement_ten_times_at_once_moves_chips_once(alice, bob):
    a = services.hold_create(user=alice, currency="beans", amount=500, seat_ref="t:1", idempotency_key="a")
    b = services.hold_create(user=bob, currency="beans", amount=500, seat_ref="t:2", idempotency_key="b")
    results = run_together(
        [
            (lambda: services.hand_settle(currency="beans", movements={a.pk: -70, b.pk: 70}, idempotency_key="hand:1"))
            for _ in range(10)
        ]
    )
    assert len({r.pk for r in results if isinstance(r, Transaction)}) == 1, results
    assert (Hold.objects.get(pk=a.pk).balance, Hold.objects.get(pk=b.pk).balance) == (430, 570)


def test_ten_daily_bonus_claims_at_once_grant_one_bonus(alice):
    results = run_together([(lambda: services.daily_bonus_claim(user=alice)) for _ in range(10)])
    assert sum(isinstance(r, Transaction) for r in results) == 1, results
    assert sum(isinstance(r, services.BonusAlreadyClaimed) for r in results) == 9
    assert audit_passes()


def test_opposite_transfers_between_two_players_at_once_do_not_deadlock(alice, bob):
    a = services.hold_create(user=alice, currency="beans", amount=500, seat_ref="t:1", idempotency_key="a")
    b = services.hold_create(user=bob, currency="beans", amount=500, seat_ref="t:2", idempotency_key="b")
    rounds = 40

    def pay(src: Hold, dst: Hold, tag: str) -> int:
        for i in range(rounds):
            services.hand_settle(currency="beans", movements={src.pk: -3, dst.pk: 3}, idempotency_key=f"{tag}:{i}")
            services.hold_top_up(hold=dst, amount=1, idempotency_key=f"{tag}:top:{i}")
        return rounds

    results = run_together([lambda: pay(a, b, "ab"), lambda: pay(b, a, "ba")])
    assert results == [rounds, rounds]  # no deadlock error, no retry needed
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.balance, b.balance) == (500 + rounds, 500 + rounds)
    assert audit_passes()


def test_a_busy_table_keeps_every_invariant(alice, bob, chen, dara):
    """Settlements, top-ups, leaving and grants for the same players all at once."""
    players = [alice, bob, chen, dara]
    holds = [
        services.hold_create(user=p, currency="beans", amount=200, seat_ref=f"t:{i}", idempotency_key=f"h{i}")
        for i, p in enumerate(players)
    ]
    calls = []
    for i in range(8):
        src, dst = holds[i % 4], holds[(i + 1) % 4]
        calls.append(
            lambda src=src, dst=dst, i=i: services.hand_settle(
                currency="beans", movements={src.pk: -10, dst.pk: 10}, idempotency_key=f"hand:{i}"
            )
        )
        calls.append(lambda h=holds[i % 4], i=i: services.hold_top_up(hold=h, amount=5, idempotency_key=f"top:{i}"))
    calls.append(lambda: services.hold_release(hold=holds[0], idempotency_key="leave"))
    calls += [lambda p=p: services.daily_bonus_claim(user=p) for p in players]
    results = run_together(calls)
    unexpected = [r for r in results if isinstance(r, BaseException) and not isinstance(r, services.WalletError)]
    assert not unexpected, unexpected
    assert audit_passes()
