"""A Hypothesis state machine of a table's life: sit down, settle, top up, leave, grant,
and retries with old keys. After every step the ledger audit passes and every balance is
what a plain model of the rules says it should be."""

from datetime import date, timedelta

import pytest
from django.db import transaction
from django.test import override_settings
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from wallets import services
from wallets.audit import ledger_audit
from wallets.models import Currency, Hold
from wallets.selectors import balances_for

from .conftest import make_player

WELCOME, CEILING, BONUS = 300, 200, 50
CURRENCIES = st.sampled_from([Currency.BEANS, Currency.POINTS])


class Rollback(Exception):
    pass


class WalletMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self._settings = override_settings(
            WELCOME_BEANS=WELCOME, PRACTICE_POINTS_CEILING=CEILING, DAILY_BONUS_BEANS=BONUS
        )
        self._settings.enable()
        # Each run lives in a savepoint rolled back at teardown, inside the test's transaction.
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.players = [make_player(name) for name in ("alice", "bob", "chen")]
        self.available = {
            (p.pk, c): (WELCOME if c == Currency.BEANS else CEILING) for p in self.players for c in Currency.values
        }
        self.stacks: dict[int, int] = {}  # open hold id -> expected stack
        self.holds: dict[int, Hold] = {}
        self.done: list[tuple[str, object]] = []  # (kind, call) of successful keyed calls, for replays
        self.n = 0
        self.day = date(2025, 1, 1)

    def teardown(self):
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)
        self._settings.disable()

    def key(self) -> str:
        self.n += 1
        return f"sm:{self.n}"

    def open_holds(self, currency=None) -> list[Hold]:
        return [h for pk, h in self.holds.items() if pk in self.stacks and (currency is None or h.currency == currency)]

    @rule(player=st.integers(0, 2), currency=CURRENCIES, amount=st.integers(1, 350))
    def sit_down(self, player, currency, amount):
        user = self.players[player]
        seat = f"seat:{self.n}"
        try:
            hold = services.hold_create(
                user=user, currency=currency, amount=amount, seat_ref=seat, idempotency_key=self.key()
            )
        except services.InsufficientFunds:
            assert amount > self.available[(user.pk, currency)]
            return
        assert amount <= self.available[(user.pk, currency)]
        self.available[(user.pk, currency)] -= amount
        self.stacks[hold.pk] = amount
        self.holds[hold.pk] = hold

    @precondition(lambda self: len(self.open_holds()) >= 2)
    @rule(data=st.data())
    def settle(self, data):
        currency = data.draw(CURRENCIES)
        seats = self.open_holds(currency)
        if len(seats) < 2:
            return
        chosen = data.draw(st.lists(st.sampled_from(seats), min_size=2, max_size=4, unique_by=lambda h: h.pk))
        movements = {}
        for hold in chosen[:-1]:
            movements[hold.pk] = data.draw(st.integers(-self.stacks[hold.pk], 100))
        last = chosen[-1]
        movements[last.pk] = -sum(movements.values())
        ok = all(self.stacks[pk] + delta >= 0 for pk, delta in movements.items())
        key = self.key()
        try:
            services.hand_settle(currency=currency, movements=movements, idempotency_key=key, hand_ref=key)
        except services.InsufficientFunds:
            assert not ok
            return
        assert ok
        for pk, delta in movements.items():
            self.stacks[pk] += delta
        self.done.append(
            ("settle", lambda: services.hand_settle(currency=currency, movements=movements, idempotency_key=key))
        )

    @precondition(lambda self: self.stacks)
    @rule(data=st.data(), amount=st.integers(1, 200))
    def top_up(self, data, amount):
        hold = data.draw(st.sampled_from(self.open_holds()))
        slot = (hold.user_id, hold.currency)
        key = self.key()
        try:
            services.hold_top_up(hold=hold, amount=amount, idempotency_key=key)
        except services.InsufficientFunds:
            assert amount > self.available[slot]
            return
        self.available[slot] -= amount
        self.stacks[hold.pk] += amount
        self.done.append(("top_up", lambda: services.hold_top_up(hold=hold, amount=amount, idempotency_key=key)))

    @precondition(lambda self: self.stacks)
    @rule(data=st.data())
    def leave(self, data):
        hold = data.draw(st.sampled_from(self.open_holds()))
        released = services.hold_release(hold=hold, idempotency_key=self.key())
        assert released.closed_at is not None and released.balance == 0
        self.available[(hold.user_id, hold.currency)] += self.stacks.pop(hold.pk)
        with pytest.raises(services.HoldClosed):
            services.hold_top_up(hold=hold, amount=1, idempotency_key=self.key())

    @rule(player=st.integers(0, 2), next_day=st.booleans())
    def daily_bonus(self, player, next_day):
        user = self.players[player]
        if next_day:
            self.day += timedelta(days=1)
        try:
            services.daily_bonus_claim(user=user, today=self.day)
        except services.BonusAlreadyClaimed:
            return
        self.available[(user.pk, Currency.BEANS)] += BONUS

    @rule(player=st.integers(0, 2))
    def refill(self, player):
        user = self.players[player]
        slot = (user.pk, Currency.POINTS)
        try:
            services.points_refill(user=user)
        except services.PointsAtCeiling:
            assert self.available[slot] >= CEILING
            return
        self.available[slot] = CEILING

    @precondition(lambda self: self.done)
    @rule(data=st.data())
    def replay(self, data):
        """A retry of an earlier successful call with its key changes nothing."""
        kind, call = data.draw(st.sampled_from(self.done))
        try:
            call()
        except services.HoldClosed:
            pytest.fail("a retry must return the first result, even for a hold closed since")

    @invariant()
    def ledger_is_sound(self):
        report = ledger_audit()
        assert report["ok"], report

    @invariant()
    def balances_match_the_model(self):
        for user in self.players:
            balances = balances_for(user)
            for currency in Currency.values:
                held = sum(self.stacks[h.pk] for h in self.open_holds(currency) if h.user_id == user.pk)
                assert balances[currency] == {"available": self.available[(user.pk, currency)], "held": held}
        for pk, stack in self.stacks.items():
            assert Hold.objects.get(pk=pk).balance == stack


@pytest.mark.django_db
def test_wallet_state_machine_keeps_every_invariant():
    run_state_machine_as_test(
        WalletMachine,
        settings=settings(
            max_examples=30, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        ),
    )
