import pytest

from wallets import services
from wallets.audit import ledger_audit
from wallets.models import Currency, Entry, Hold, Transaction
from wallets.selectors import balances_for, hold_for_seat, ledger_for

from .conftest import CEILING, WELCOME, key


def sit(user, amount, seat, currency=Currency.BEANS):
    return services.hold_create(user=user, currency=currency, amount=amount, seat_ref=seat, idempotency_key=key("sit"))


def test_sitting_down_reserves_the_buy_in_from_available(alice):
    hold = sit(alice, 400, "room:1:seat:1")
    assert (hold.balance, hold.user, hold.currency, hold.seat_ref, hold.closed_at) == (
        400,
        alice,
        Currency.BEANS,
        "room:1:seat:1",
        None,
    )
    assert balances_for(alice)["beans"] == {"available": WELCOME - 400, "held": 400}
    assert hold_for_seat(seat_ref="room:1:seat:1") == hold


def test_a_hold_cannot_exceed_the_available_balance(alice):
    sit(alice, 600, "room:1:seat:1")
    with pytest.raises(services.InsufficientFunds) as error:
        sit(alice, 401, "room:2:seat:1")
    assert error.value.code == "insufficient_funds" and "400" in error.value.message
    assert balances_for(alice)["beans"] == {"available": 400, "held": 600}


@pytest.mark.parametrize("amount", [0, -5, 1.5, True])
def test_a_hold_must_be_a_positive_whole_amount(alice, amount):
    with pytest.raises(services.WalletError):
        sit(alice, amount, "room:1:seat:1")


def test_points_holds_work_like_bean_holds_and_never_touch_beans(alice):
    hold = sit(alice, 500, "room:9:seat:2", currency=Currency.POINTS)
    assert hold.currency == Currency.POINTS
    assert balances_for(alice) == {
        "beans": {"available": WELCOME, "held": 0},
        "points": {"available": CEILING - 500, "held": 500},
    }


def test_one_open_hold_per_seat(alice, bob):
    sit(alice, 100, "room:1:seat:1")
    with pytest.raises(services.SeatAlreadyHeld):
        sit(bob, 100, "room:1:seat:1")
    assert balances_for(bob)["beans"]["available"] == WELCOME


def test_the_same_key_makes_one_hold(alice):
    first = services.hold_create(user=alice, currency="beans", amount=300, seat_ref="s:1", idempotency_key="sit-1")
    again = services.hold_create(user=alice, currency="beans", amount=300, seat_ref="s:1", idempotency_key="sit-1")
    assert again == first
    assert balances_for(alice)["beans"] == {"available": WELCOME - 300, "held": 300}


def test_a_retry_after_spending_the_rest_still_returns_the_first_hold(alice):
    first = services.hold_create(user=alice, currency="beans", amount=600, seat_ref="s:1", idempotency_key="sit-1")
    sit(alice, 400, "s:2")  # available is now 0
    assert (
        services.hold_create(user=alice, currency="beans", amount=600, seat_ref="s:1", idempotency_key="sit-1") == first
    )


def test_a_key_cannot_be_reused_for_another_operation(alice):
    hold = services.hold_create(user=alice, currency="beans", amount=100, seat_ref="s:1", idempotency_key="k-1")
    with pytest.raises(services.IdempotencyKeyReused):
        services.hold_top_up(hold=hold, amount=5, idempotency_key="k-1")


def test_top_up_moves_available_to_the_stack(alice):
    hold = sit(alice, 100, "s:1")
    hold = services.hold_top_up(hold=hold, amount=250, idempotency_key="top-1")
    hold = services.hold_top_up(hold=hold, amount=250, idempotency_key="top-1")  # a retry
    assert hold.balance == 350
    assert balances_for(alice)["beans"] == {"available": WELCOME - 350, "held": 350}
    with pytest.raises(services.InsufficientFunds):
        services.hold_top_up(hold=hold, amount=WELCOME, idempotency_key=key())


def test_leaving_returns_what_is_left_and_closes_the_hold(alice, bob):
    a = sit(alice, 300, "s:1")
    b = sit(bob, 300, "s:2")
    services.hand_settle(currency="beans", movements={a.pk: -120, b.pk: 120}, idempotency_key="hand-1")
    a = services.hold_release(hold=a, idempotency_key="leave-a")
    assert a.closed_at is not None and a.balance == 0
    assert balances_for(alice)["beans"] == {"available": WELCOME - 120, "held": 0}
    # Leaving twice is harmless; a released hold cannot be used again.
    assert services.hold_release(hold=a, idempotency_key="leave-a-again").closed_at == a.closed_at
    with pytest.raises(services.HoldClosed):
        services.hold_top_up(hold=a, amount=10, idempotency_key=key())
    with pytest.raises(services.HoldClosed):
        services.hand_settle(currency="beans", movements={a.pk: 10, b.pk: -10}, idempotency_key=key())
    # The seat is free again for a new hold.
    sit(alice, 50, "s:1")
    assert ledger_audit()["ok"]


def test_leaving_with_an_empty_stack_closes_without_a_ledger_entry(alice, bob):
    a = sit(alice, 100, "s:1")
    b = sit(bob, 100, "s:2")
    services.hand_settle(currency="beans", movements={a.pk: -100, b.pk: 100}, idempotency_key=key())
    entries = Entry.objects.count()
    a = services.hold_release(hold=a, idempotency_key=key())
    assert a.closed_at is not None and Entry.objects.count() == entries


def test_settle_moves_chips_between_holds_as_one_transaction(alice, bob, chen, dara):
    bank, *challengers = [sit(p, 500, f"t:1:{i}") for i, p in enumerate([alice, bob, chen, dara])]
    txn = services.hand_settle(
        currency="beans",
        movements={bank.pk: -50 + 100 - 30, challengers[0].pk: 50, challengers[1].pk: -100, challengers[2].pk: 30},
        idempotency_key="table:1:hand:1",
        memo="Hand 1",
        hand_ref="table:1:hand:1",
    )
    assert txn.kind == Transaction.Kind.SETTLE and txn.entries.count() == 4
    assert [h.balance for h in Hold.objects.order_by("pk")] == [520, 550, 400, 530]
    again = services.hand_settle(
        currency="beans", movements={bank.pk: 20, challengers[0].pk: -20}, idempotency_key="table:1:hand:1"
    )
    assert again == txn  # the first result, not a second movement
    assert [h.balance for h in Hold.objects.order_by("pk")] == [520, 550, 400, 530]
    history = ledger_for(chen)
    assert history[0].transaction.hand_ref == "table:1:hand:1" and history[0].amount == -100


def test_settle_refuses_movements_that_do_not_sum_to_zero(alice, bob):
    a, b = sit(alice, 100, "s:1"), sit(bob, 100, "s:2")
    with pytest.raises(services.WalletError) as error:
        services.hand_settle(currency="beans", movements={a.pk: -10, b.pk: 11}, idempotency_key=key())
    assert error.value.code == "unbalanced"


def test_settle_refuses_a_stack_going_below_zero(alice, bob):
    a, b = sit(alice, 100, "s:1"), sit(bob, 100, "s:2")
    with pytest.raises(services.InsufficientFunds):
        services.hand_settle(currency="beans", movements={a.pk: -101, b.pk: 101}, idempotency_key=key())
    assert (Hold.objects.get(pk=a.pk).balance, Hold.objects.get(pk=b.pk).balance) == (100, 100)


def test_settle_refuses_a_hold_of_the_other_currency_or_an_unknown_one(alice, bob):
    a, b = sit(alice, 100, "s:1"), sit(bob, 100, "s:2", currency=Currency.POINTS)
    with pytest.raises(services.WalletError) as error:
        services.hand_settle(currency="beans", movements={a.pk: -10, b.pk: 10}, idempotency_key=key())
    assert error.value.code == "wrong_currency"
    with pytest.raises(services.WalletError) as error:
        services.hand_settle(currency="beans", movements={a.pk: -10, 999999: 10}, idempotency_key=key())
    assert error.value.code == "unknown_hold"


def test_a_hand_where_nothing_moves_writes_nothing(alice, bob):
    a, b = sit(alice, 100, "s:1"), sit(bob, 100, "s:2")
    assert services.hand_settle(currency="beans", movements={a.pk: 0, b.pk: 0}, idempotency_key=key()) is None


def test_a_4_seat_hand_settles_in_a_constant_number_of_queries(
    alice, bob, chen, dara, django_assert_max_num_queries, django_assert_num_queries
):
    holds = [sit(p, 500, f"t:1:{i}") for i, p in enumerate([alice, bob, chen, dara])]
    movements = {holds[0].pk: -60, holds[1].pk: 10, holds[2].pk: 20, holds[3].pk: 30}
    # Inside the test's transaction: savepoint, lock the holds, insert the transaction (ON CONFLICT
    # DO NOTHING, no savepoint of its own), insert the entries and update the balances (one statement
    # on PostgreSQL, two on SQLite), release.
    with django_assert_max_num_queries(6) as captured:
        services.hand_settle(currency="beans", movements=movements, idempotency_key="hand:4")
    four_seats = len(captured.captured_queries)
    # The count does not grow with the seats: two seats cost exactly the same.
    with django_assert_num_queries(four_seats):
        services.hand_settle(currency="beans", movements={holds[0].pk: 5, holds[1].pk: -5}, idempotency_key="hand:2")
    # As the games layer calls it, inside its command's transaction and without a savepoint: two fewer.
    with django_assert_num_queries(four_seats - 2):
        services.hand_settle(currency="beans", movements={holds[0].pk: 7, holds[1].pk: -7}, idempotency_key="hand:3",
                             savepoint=False)
    assert ledger_audit()["ok"]
