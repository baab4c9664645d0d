"""One pending wake task per table (games/services/save.py, `_arm`): commands that move the deadline later send no
task; the pending task re-arms when it comes early, applies what is due once when it comes on time, and a
wake that must come sooner, or a pending task that never ran, gets a new task. A wake beyond the horizon
(GAMES_WAKE_HORIZON_SECONDS) gets its task only from the sweeper, once it comes within it (clock.py, `arm_near`).

Celery is not eager here: the task a command would send is recorded (with its ETA) instead of queued, and
the test delivers it by calling the service as the worker would."""

from datetime import timedelta

import pytest

from games import selectors, services, tasks
from games.models import Table
from games.services import clock as wake_clock
from games.services.run import _dt
from tests.games.conftest import act, assert_holds_match_table, assert_ledger_clean, expire, state, table

pytestmark = pytest.mark.django_db(transaction=True)  # the tasks go out on commit


@pytest.fixture
def sent(settings, monkeypatch):
    """The wake tasks sent to the broker: (args, kwargs, eta). The horizon takes in these tests' 600 s timers: the
    rules of the one pending task are the same for every wake within it (the horizon's own tests narrow it)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.GAMES_WAKE_HORIZON_SECONDS = 3600
    out = []
    monkeypatch.setattr(tasks.table_wake, "apply_async",
                        lambda args, kwargs=None, eta=None: out.append((args, kwargs, eta)))
    return out


def deliver(room, clock, when) -> str:
    """The worker runs the pending task at its ETA."""
    clock.advance(max(0.0, when.timestamp() - clock()))
    return services.table_wake(room_id=room.pk, pending=True)


def playing_table(cast, clock, sent, **overrides):
    """Four players, alice banks, everyone has bet: the first challenger's turn, with `act_seconds` to act."""
    room = services.room_create(host=cast["alice"], preset="ten-half",
                                overrides={"bet_seconds": 600, "act_seconds": 600, **overrides})
    for name in ("alice", "bob", "chen", "dara"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=500)
    assert deliver(room, clock, table(room).wake_at) == "hand"  # the next hand, due at once
    users = {seat: cast[name] for name in cast if (seat := table(room).meta["users"].get(str(cast[name].pk)))}
    for seat_id, bet in state(room)["hand"]["bets"].items():
        if not bet["confirmed"]:
            act(room, users[seat_id], "bet", amount=10)
    assert state(room)["phase"] == "playing"
    return room, users


def test_commands_that_move_the_deadline_later_send_no_new_task(cast, clock, sent):
    room, users = playing_table(cast, clock, sent)
    first = table(room)
    assert first.wake_sent_at is not None and sent[-1][2] == first.wake_sent_at
    count = len(sent)
    stands = 0
    while state(room)["phase"] == "playing" and stands < 2:
        clock.advance(5)  # each turn's timer starts later than the last
        act(room, users[state(room)["hand"]["turn"][0]], "stand")
        stands += 1
        assert table(room).wake_at > first.wake_sent_at  # the deadline moved later...
    assert stands == 2
    assert len(sent) == count  # ...and no task went out for it
    assert table(room).wake_sent_at == first.wake_sent_at
    assert sent[-1][0] == (room.pk,) and sent[-1][1] == {"pending": True}  # no version: commands move it on


def test_the_pending_task_that_comes_before_a_moved_deadline_re_arms_for_it(cast, clock, sent):
    room, users = playing_table(cast, clock, sent)
    pending = table(room).wake_sent_at
    clock.advance(5)
    act(room, users[state(room)["hand"]["turn"][0]], "stand")
    before = table(room)
    count = len(sent)

    assert deliver(room, clock, pending) == "early"
    after = table(room)
    assert after.version == before.version and after.state == before.state  # nothing applied
    assert len(sent) == count + 1 and sent[-1][2] == after.wake_at == before.wake_at
    assert after.wake_sent_at == after.wake_at


def test_the_pending_task_on_time_applies_the_timeout_once_and_a_copy_does_nothing(cast, clock, sent):
    room, users = playing_table(cast, clock, sent)
    t = table(room)
    turn = state(room)["hand"]["turn"][0]

    assert deliver(room, clock, t.wake_at) == "timeout"
    assert table(room).version == t.version + 1
    assert state(room)["hand"]["turn"][0] != turn  # the timed-out challenger stood
    assert services.table_wake(room_id=room.pk, pending=True) == "early"  # a copy of the same task
    assert table(room).version == t.version + 1
    assert table(room).wake_sent_at == sent[-1][2] == table(room).wake_at  # the next turn's timer is armed
    assert_ledger_clean()
    assert_holds_match_table(room)


def test_a_wake_sooner_than_the_pending_one_gets_its_own_task(cast, clock, sent, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 5
    room, users = playing_table(cast, clock, sent)
    pending = table(room).wake_sent_at
    count = len(sent)
    while state(room)["phase"] == "playing":
        act(room, users[state(room)["hand"]["turn"][0]], "stand")
    t = table(room)
    assert t.wake_at < pending  # the next hand, in 5 s, before the 600 s turn timer
    assert len(sent) == count + 1 and sent[-1][2] == t.wake_at == t.wake_sent_at
    assert deliver(room, clock, t.wake_at) == "hand"
    assert state(room)["phase"] == "betting"


def test_a_pending_task_that_never_ran_is_replaced_by_the_next_command(cast, clock, sent):
    """A worker killed while holding the task: once its time has passed, the next command sends another
    (the sweeper covers a table where nobody acts)."""
    room, users = playing_table(cast, clock, sent)
    lost = table(room).wake_sent_at
    clock.advance(lost.timestamp() - clock() - 1)  # a second before the timeout; the task is lost meanwhile
    act(room, users[state(room)["hand"]["turn"][0]], "stand")
    clock.advance(2)
    count = len(sent)
    act(room, users[state(room)["hand"]["turn"][0]], "stand")
    t = table(room)
    assert t.wake_sent_at == t.wake_at > lost + timedelta(seconds=1)
    assert len(sent) == count + 1 and sent[-1][2] == t.wake_at


def test_a_versioned_task_still_does_nothing_once_the_table_moved_on(cast, clock, sent):
    room, users = playing_table(cast, clock, sent)
    version = table(room).version
    act(room, users[state(room)["hand"]["turn"][0]], "stand")
    clock.advance(601)
    assert services.table_wake(room_id=room.pk, version=version) == "stale"
    assert table(room).version == version + 1


def test_a_hand_the_engine_refuses_to_start_waits_for_the_table_to_change(cast, clock, sent):
    """A challenger whose stack cannot cover the smallest stake (Chinese Blackjack caps a stake at a third of
    the stack): the services count two players, the engine refuses the hand (not_enough_players). The table
    must not be woken again and again for that (in eager mode, with no pause between hands, it was a loop for
    ever: the soak's hang); a top-up tries again, and deals."""
    room = services.room_create(host=cast["alice"], preset="ban-luck", buy_in_min=1,
                                overrides={"bet_seconds": 600, "act_seconds": 600})
    for name in ("alice", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["alice"], "start")  # the host banks (Chinese Blackjack's default)
    assert state(room)["phase"] not in ("waiting", "between_hands")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=2)  # for the next hand: a stake of 2 // 3 = 0
    act(room, cast["chen"], "leave")  # after this hand
    while state(room)["phase"] not in ("waiting", "between_hands"):
        expire(room, clock)
    assert state(room)["banker"] is not None and len(state(room)["seats"]) == 2
    assert deliver(room, clock, table(room).wake_at) == "no_hand"
    refused = table(room)
    assert refused.meta["next_hand_at"] is None and refused.wake_at is None  # no wake is armed any more
    assert refused.meta["start_refused"] == "not_enough_players"
    assert selectors.snapshot(room, cast["bob"])["stalled"] == "not_enough_players"  # the table says why
    count = len(sent)
    clock.advance(3600)
    assert services.table_wake(room_id=room.pk, pending=True) == "early"  # a late copy finds nothing due
    assert table(room).version == refused.version and len(sent) == count

    act(room, cast["bob"], "top_up", amount=100)
    after = table(room)
    assert "start_refused" not in after.meta and after.wake_at is not None
    assert selectors.snapshot(room, cast["bob"])["stalled"] is None
    assert len(sent) == count + 1 and sent[-1][2] == after.wake_at
    assert deliver(room, clock, after.wake_at) == "hand"
    assert state(room)["phase"] == "betting"
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.fixture
def horizon(settings):
    settings.GAMES_WAKE_HORIZON_SECONDS = 10
    return 10


def test_a_wake_beyond_the_horizon_gets_no_task_until_the_sweeper_finds_it_near(cast, clock, sent, horizon):
    room, users = playing_table(cast, clock, sent)
    far = table(room)
    assert far.wake_at > _dt(clock()) + timedelta(seconds=500)  # the 600 s turn timer: no task for it
    assert far.wake_sent_at is None and sent[-1][2] < far.wake_at
    count = len(sent)

    assert wake_clock.arm_near(_dt(clock())) == []  # not near yet
    clock.advance(far.wake_at.timestamp() - clock() - horizon - 1)
    assert wake_clock.arm_near(_dt(clock())) == []  # a second outside the horizon
    clock.advance(2)
    assert wake_clock.arm_near(_dt(clock())) == [room.pk]
    assert len(sent) == count + 1 and sent[-1] == ((room.pk,), {"pending": True}, far.wake_at)
    assert table(room).wake_sent_at == far.wake_at
    assert wake_clock.arm_near(_dt(clock())) == [] and len(sent) == count + 1  # on its way: never sent twice

    assert deliver(room, clock, far.wake_at) == "timeout"
    assert table(room).version == far.version + 1
    assert_ledger_clean()


def test_commands_that_beat_a_far_timer_send_no_task_for_it(cast, clock, sent, horizon, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 5
    room, users = playing_table(cast, clock, sent)
    count = len(sent)
    while state(room)["phase"] == "playing":
        clock.advance(3)
        act(room, users[state(room)["hand"]["turn"][0]], "stand")
    assert len(sent) == count + 1  # a whole hand of 600 s turns: one task, for the next hand in 5 s
    t = table(room)
    assert sent[-1][2] == t.wake_at == t.wake_sent_at <= _dt(clock()) + timedelta(seconds=5)


def test_a_command_that_brings_the_wake_within_the_horizon_arms_it(cast, clock, sent, horizon):
    room, users = playing_table(cast, clock, sent, act_seconds=8)
    t = table(room)
    assert t.wake_sent_at == t.wake_at == _dt(t.state["deadline"])  # 8 s: within the horizon, armed at once
    assert sent[-1][2] == t.wake_at


@pytest.mark.parametrize("sent_at, armed", [
    (None, True),  # never sent (beyond the horizon when it was set)
    (-30, True),  # a task for an earlier wake, taken or lost
    (+60, True),  # a task due after the wake: too late for it
    (0, False),  # the wake's own task, on its way
])
def test_the_sweeper_arms_a_near_wake_only_when_no_task_is_on_its_way(cast, clock, sent, horizon, sent_at, armed):
    room, users = playing_table(cast, clock, sent)
    wake = _dt(clock()) + timedelta(seconds=5)
    Table.objects.filter(pk=room.pk).update(
        wake_at=wake, wake_sent_at=None if sent_at is None else wake + timedelta(seconds=sent_at))
    count = len(sent)
    assert wake_clock.arm_near(_dt(clock())) == ([room.pk] if armed else [])
    assert len(sent) == count + armed
    assert table(room).wake_sent_at == (wake if armed else wake + timedelta(seconds=sent_at))


def test_the_sweeper_arms_no_closed_room_and_no_wake_already_past(cast, clock, sent, horizon):
    room, users = playing_table(cast, clock, sent)
    Table.objects.filter(pk=room.pk).update(wake_at=_dt(clock()) - timedelta(seconds=1), wake_sent_at=None)
    assert wake_clock.arm_near(_dt(clock())) == []  # past: the sweeper's overdue pass wakes it instead
    Table.objects.filter(pk=room.pk).update(wake_at=_dt(clock()) + timedelta(seconds=5))
    services.room_close(room_id=room.pk, by=cast["alice"])
    count = len(sent)
    assert wake_clock.arm_near(_dt(clock())) == [] and len(sent) == count


def test_the_sweepers_beat_arms_a_near_wake(cast, clock, sent, horizon):
    """`sweep`, as beat runs it, reads the real time: a wake 5 s from now with no task gets one."""
    room, users = playing_table(cast, clock, sent)
    wake = _dt(clock()) + timedelta(seconds=5)
    Table.objects.filter(pk=room.pk).update(wake_at=wake, wake_sent_at=None)
    assert services.sweep() == []  # nothing overdue
    assert sent[-1] == ((room.pk,), {"pending": True}, wake) and table(room).wake_sent_at == wake


def test_an_eager_wake_loop_fails_loudly_instead_of_hanging(monkeypatch):
    """Eager mode (tests, debugging) runs wakes one after another: a table due again every time it is woken
    is a bug, and it must end the chain with an error, not spin for ever."""
    woken = []

    def due_again(*, room_id, version):
        woken.append(version)
        tasks._run_inline(room_id, version + 1)  # what a save that arms a wake due now does

    monkeypatch.setattr(services, "table_wake", due_again)
    with pytest.raises(RuntimeError, match="wake loop"):
        tasks._run_inline(7, 1)
    assert len(woken) == tasks.INLINE_WAKES_MAX and woken[:3] == [1, 2, 3]
    monkeypatch.setattr(services, "table_wake", lambda *, room_id, version: woken.append(-version))
    tasks._run_inline(9, 5)  # the chain state was reset: a plain wake runs once
    assert woken[-1] == -5

    def chain(*, room_id, version):  # a long chain that ends by itself, just at the bound
        woken.append(version)
        if version < tasks.INLINE_WAKES_MAX:
            tasks._run_inline(room_id, version + 1)

    monkeypatch.setattr(services, "table_wake", chain)
    woken.clear()
    tasks._run_inline(10, 1)
    assert woken == list(range(1, tasks.INLINE_WAKES_MAX + 1))
