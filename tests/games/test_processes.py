"""Live tables across real processes: daphne servers, a Celery worker and beat, real WebSocket clients.

Nothing is mocked. Each child process gets its environment explicitly (tests/servers.py `child_env`):
the in-process settings of tests/games/conftest.py (Celery eager, no bot pause) do not reach it.
Every wait is bounded and every child process is stopped in a `finally`.
"""

import time
import uuid
from datetime import timedelta

import pytest

from games import services
from games.models import Table
from tests.games.conftest import assert_holds_match_table, assert_ledger_clean, make_player
from tests.games.processes import (
    BANK,
    BUY_IN,
    STAKE,
    WEB_ENV,
    Player,
    assert_hand_over_and_settled,
    assert_private_cards,
    celery_processes,
    events_of,
    everyone_at,
    one_more_web_process,
    play_out,
    sit_and_deal,
    table_of,
)
from tests.servers import daphne, free_port

pytestmark = pytest.mark.django_db(transaction=True)

LONG_TIMERS = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}


@pytest.fixture(autouse=True)
def _table_settings(settings):
    one_more_web_process(settings)


# --- two daphne processes on PostgreSQL + Redis ------------------------------------------------------


@pytest.mark.services
def test_four_players_on_two_daphne_processes_play_a_hand_and_see_every_move():
    cast = {name: make_player(name) for name in ("alice", "bob", "chen", "dara")}
    room = services.room_create(host=cast["alice"], preset="ten-half", overrides=LONG_TIMERS)
    players = [Player(u) for u in cast.values()]
    alice, bob, chen, dara = players
    # The watcher's resync would hide a lost group message: only the Redis fan-out may deliver here.
    env = {**WEB_ENV, "GAMES_RESYNC_SECONDS": "600"}
    with daphne(**env) as web_a, daphne(**env) as web_b:
        assert web_a != web_b
        try:
            for p, base in ((alice, web_a), (bob, web_a), (chen, web_b), (dara, web_b)):
                p.connect(base, room.code)
            start = table_of(room).version
            assert {p.snapshot["version"] for p in players} == {start}

            sit_and_deal(players, room)
            for p in players:
                assert_private_cards(p)
            play_out(players, room)
            final = everyone_at(players, room)
        finally:
            for p in players:
                p.close()

    # Every version reached every player as an update, on both processes, with the same events
    # (each redacted for its viewer: nobody saw another player's face-down card go by).
    for p in players:
        assert sorted(p.updates) == list(range(start + 1, final + 1)), (p.user, sorted(p.updates))
    for version in range(start + 1, final + 1):
        kinds = {tuple(e["type"] for e in p.updates[version]["events"]) for p in players}
        assert len(kinds) == 1, (version, kinds)
        for p in players:
            for e in p.updates[version]["events"]:
                if e["type"] == "card_dealt" and e["face"] == "down":
                    assert ("card" in e) == (e["seat"] == p.seat), (p.user, e)

    def seen(p: Player, type_: str, seat: str) -> bool:
        return any(e["type"] == type_ and e.get("seat") == seat for f in p.updates.values() for e in f["events"])

    # Across processes: chen and dara (web B) saw bob's bet, alice and bob (web A) saw dara's.
    assert seen(chen, "bet_confirmed", bob.seat) and seen(dara, "bet_confirmed", bob.seat)
    assert seen(alice, "bet_confirmed", dara.seat) and seen(bob, "bet_confirmed", dara.seat)
    for p in players:
        assert seen(p, "bank_opened", alice.seat)
        for q in players:
            assert seen(p, "action", q.seat), (p.user, q.user)  # every seat's turn, seen by everyone
    assert_hand_over_and_settled(players, room)


# --- a daphne restart in the middle of a hand (SQLite + in-memory, or PostgreSQL + Redis) ----------


@pytest.mark.faults
def test_players_reconnect_after_a_daphne_restart_and_finish_the_hand():
    cast = {name: make_player(name) for name in ("alice", "bob", "chen")}
    room = services.room_create(host=cast["alice"], preset="ten-half", overrides=LONG_TIMERS)
    players = [Player(u) for u in cast.values()]
    port = free_port()
    try:
        with daphne(port=port, **WEB_ENV) as base:
            for p in players:
                p.connect(base, room.code)
            sit_and_deal(players, room)
            first = players[0].view["hand"]["turn"]["seat"]
            by_seat = {p.seat: p for p in players}
            by_seat[first].act("stand")  # the hand is under way: one turn played, the others not yet
            middle = everyone_at(players, room)
            seats = [p.seat for p in players]
            cards = {p.seat: p.own_cards() for p in players}
            for p in players:
                assert_private_cards(p)
        # daphne is gone (SIGTERM); the sockets close and the table waits in the database.
        for p in players:
            p.wait_closed()
        assert table_of(room).version == middle
        assert table_of(room).state["phase"] == "playing"

        with daphne(port=port, **WEB_ENV) as again:
            assert again == base
            for p, seat in zip(players, seats, strict=True):
                snapshot = p.connect(again, room.code)
                assert snapshot["version"] == middle
                assert snapshot["me"]["seat"] == seat
                assert p.own_cards() == cards[seat]  # the face-down card, to its owner only
                assert_private_cards(p)
            turn = players[0].view["hand"]["turn"]["seat"]
            assert turn != first
            assert "stand" in by_seat[turn].view["legal_actions"]
            play_out(players, room)
            final = everyone_at(players, room)
            for p in players:
                assert sorted(p.updates) == list(range(middle + 1, final + 1))
    finally:
        for p in players:
            p.close()
    assert_hand_over_and_settled(players, room)
    assert len(events_of(room, "hand_over")) == 1




def open_table(*, bet_seconds: int, act_seconds: int, challengers: tuple[str, ...] = ("bob",)):
    """alice banks, the challengers challenge; the host starts and opens the bank from this process (the
    test is one more web process), so the first hand is started by the worker. Returns the room, the
    users and their seat ids by name."""
    users = {name: make_player(name) for name in ("alice", *challengers)}
    room = services.room_create(host=users["alice"], preset="ten-half",
                                overrides={"bet_seconds": bet_seconds, "act_seconds": act_seconds, "bank_seconds": 600})
    for user in users.values():
        services.seat_take(room_id=room.pk, user=user, buy_in=BUY_IN)
    services.action_submit(room_id=room.pk, user=users["alice"], action="start")
    services.action_submit(room_id=room.pk, user=users["alice"], action="open_bank", args={"amount": BANK})
    meta = table_of(room).meta
    return room, users, {name: meta["users"][str(u.pk)] for name, u in users.items()}


def in_phase(room, phase: str) -> Table | None:
    t = table_of(room)
    return t if t.state["phase"] == phase else None


@pytest.mark.services
def test_a_silent_player_gets_the_default_stake_then_stands(fresh_broker):
    # Bob watches through a daphne process: what the worker does reaches his socket through Redis alone.
    web_env = {**WEB_ENV, "CELERY_TASK_ALWAYS_EAGER": "0", "GAMES_RESYNC_SECONDS": "600"}
    with celery_processes() as (worker, _beat), daphne(**web_env) as web:
        w = worker("w1")
        room, users, seats = open_table(bet_seconds=3, act_seconds=4)  # alice (this test) acts well within 4 s
        alice, alice_seat, bob_seat = users["alice"], seats["alice"], seats["bob"]
        watcher = Player(users["bob"])
        start = watcher.connect(web, room.code)["version"]
        betting = w.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        assert betting.state["deadline_for"] == [bob_seat]
        bet_deadline = betting.state["deadline"]

        playing = w.wait_for("the betting deadline", lambda: in_phase(room, "playing"), timeout=15)
        (defaulted,) = events_of(room, "bet_defaulted")
        assert defaulted.data == {"type": "bet_defaulted", "seat": bob_seat, "amount": 10}  # the base stake
        assert defaulted.actor == "system"
        # Applied by the worker's own timer (no beat runs here) at the deadline, not before it.
        assert bet_deadline <= defaulted.created_at.timestamp() < bet_deadline + 5
        assert playing.state["hand"]["bets"][bob_seat] == {"amount": 10, "confirmed": True}

        def step():
            t = table_of(room)
            if t.state["phase"] != "playing":
                return t
            if t.state["hand"]["turn"][0] == alice_seat:
                services.action_submit(room_id=room.pk, user=alice, action="stand")
            return None

        over = w.wait_for("the acting deadline and the end of the hand", step, timeout=20)
        assert over.state["phase"] == "between_hands"
        bob_moves = [e.data["action"] for e in events_of(room, "action", seat=bob_seat)]
        assert bob_moves == ["stand"]  # the timeout's default, once
        (stood,) = events_of(room, "action", seat=bob_seat)
        assert stood.actor == "system"
        assert over.meta["timed"] == [bob_seat] and over.meta["acted"] == [alice_seat]
        assert over.meta["streak"] == {alice_seat: 0, bob_seat: 1}  # a hand played entirely by timeouts
        # The task commits the hand's end, then returns, then Celery logs its result: on a busy machine the log
        # line comes a moment after the row (CI saw 'timeout' once and the last task not yet logged).
        w.wait_for("the worker to log the acting timeout's result",
                   lambda: list(w.results().values()).count("timeout") >= 2, timeout=10)
        assert list(w.results().values()).count("timeout") == 2

        watcher.catch_up(over.version)
        watcher.close()
        assert sorted(watcher.updates) == list(range(start + 1, over.version + 1))
        seen = [(e["type"], e.get("action")) for f in watcher.updates.values() for e in f["events"]
                if e.get("seat") == bob_seat and e["type"] in ("bet_defaulted", "action")]
        assert seen == [("bet_defaulted", None), ("action", "stand")]
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.mark.services
def test_a_timeout_delivered_twice_applies_once(fresh_broker):
    from games import tasks

    with celery_processes() as (worker, _beat):
        w = worker("w1")
        room, _users, seats = open_table(bet_seconds=4, act_seconds=600)
        bob_seat = seats["bob"]
        betting = w.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        version = betting.version
        # The worker already holds its own task for this deadline; two more copies of it arrive, due at once,
        # and run side by side (4 threads): the row lock and the version check let exactly one through.
        eta = betting.deadline + timedelta(milliseconds=300)
        copies = [f"copy-{uuid.uuid4()}" for _ in range(2)]
        for task_id in copies:
            tasks.table_wake.apply_async((room.pk, version), eta=eta, task_id=task_id)
        w.wait_for("both copies to run", lambda: set(copies) <= set(w.results()), timeout=20)
        w.wait_for("the worker's own timeout task", lambda: len(w.results()) >= len(copies) + 2, timeout=10)

        t = table_of(room)
        assert t.version == version + 1  # one step: nothing else is due before act_seconds
        assert t.state["phase"] == "playing"
        assert [e.version for e in events_of(room, "bet_defaulted", seat=bob_seat)] == [version + 1]
        assert len(events_of(room, "betting_closed")) == 1
        # Exactly one of the three deliveries applied the timeout; each copy either did or found the table moved on.
        results = w.results()
        assert list(results.values()).count("timeout") == 1, results
        assert {results[c] for c in copies} <= {"timeout", "stale"}, results
        # And once more by hand, long after: still nothing.
        assert services.table_wake(room_id=room.pk, version=version) == "stale"
        assert table_of(room).version == version + 1
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.mark.services
@pytest.mark.faults
def test_a_timeout_held_by_a_killed_worker_is_applied_once_by_the_sweeper(fresh_broker):
    from games import tasks

    with celery_processes() as (worker, beat):
        w1 = worker("w1")
        room, _users, seats = open_table(bet_seconds=6, act_seconds=600)
        bob_seat = seats["bob"]
        betting = w1.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        version, deadline = betting.version, betting.state["deadline"]
        # w1 started the hand and scheduled the betting timeout, which it now holds in memory until its ETA. The
        # bank offer's timer, 600 s off, got no task: it was beyond the horizon (GAMES_WAKE_HORIZON_SECONDS).
        w1.wait_for("w1 to hold the timeout task", lambda: len(w1.holding()) == 1, timeout=10)
        assert time.time() < deadline - 3, "too slow: the ETA is about to be reached"
        w1.kill()

        # A live worker is not enough: the task died with w1 (Redis keeps it unacked for an hour).
        w2 = worker("w2")
        time.sleep(max(deadline + 2 - time.time(), 0))
        assert table_of(room).version == version
        assert "timeout" not in w2.results().values()

        beat()
        playing = w2.wait_for("the sweeper to apply the timeout", lambda: in_phase(room, "playing"), timeout=30)
        assert playing.version == version + 1
        assert [e.version for e in events_of(room, "bet_defaulted", seat=bob_seat)] == [version + 1]
        w2.wait_for("the sweep's report", lambda: f"({room.pk}, 'timeout')" in " ".join(w2.results("sweep").values()),
                    timeout=5)

        # The old task, delivered late (a redelivery), does nothing.
        late = f"late-{uuid.uuid4()}"
        tasks.table_wake.apply_async((room.pk, version), task_id=late)
        w2.wait_for("the late task to run", lambda: late in w2.results(), timeout=15)
        assert w2.results()[late] == "stale"
        assert services.table_wake(room_id=room.pk, version=version) == "stale"
        t = table_of(room)
        assert t.version == version + 1
        assert len(events_of(room, "bet_defaulted")) == 1 and len(events_of(room, "betting_closed")) == 1
    assert_ledger_clean()
    assert_holds_match_table(room)


@pytest.mark.services
def test_releasing_an_away_banker_mid_hand_keeps_the_clock_running(fresh_broker):
    """A seat away for too long is released; in a hand it leaves after the hand, so its release time stays
    behind us until then. The hand's next deadline must still get its timer: no beat runs here to cover."""
    with celery_processes() as (worker, _beat):
        w = worker("w1")
        room, users, seats = open_table(bet_seconds=5, act_seconds=600, challengers=("bob", "chen"))
        betting = w.wait_for("the worker to start the hand", lambda: in_phase(room, "betting"), timeout=15)
        # The banker timed out hand after hand and was marked away long ago (what _bookkeeping records).
        meta = {**betting.meta, "away": {seats["alice"]: time.time() - services.away_release_seconds() - 1}}
        Table.objects.filter(pk=room.pk, version=betting.version).update(meta=meta)
        services.action_submit(room_id=room.pk, user=users["bob"], action="bet", args={"amount": STAKE})

        w.wait_for("the release", lambda: events_of(room, "seat_leaving", seat=seats["alice"]), timeout=10)
        t = table_of(room)
        assert t.state["phase"] == "betting" and t.wake_at == t.deadline
        w.wait_for("chen's default stake, on time", lambda: in_phase(room, "playing"), timeout=10)
        (defaulted,) = events_of(room, "bet_defaulted")
        assert defaulted.data["seat"] == seats["chen"]
        assert defaulted.created_at.timestamp() < betting.state["deadline"] + 5

        def step():
            t = table_of(room)
            if t.state["phase"] != "playing":
                return t
            for name in ("bob", "chen"):
                if t.state["hand"]["turn"][0] == seats[name]:
                    services.action_submit(room_id=room.pk, user=users[name], action="stand")
            return None

        over = w.wait_for("the end of the hand", step, timeout=15)
        assert seats["alice"] not in over.meta["seats"] and over.state["banker"] is None
    assert_ledger_clean()
    assert_holds_match_table(room)
