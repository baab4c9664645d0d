"""The write of a locked run (`_save`): the next hand's server seed committed between hands, the ledger kept equal
to the engine, the hand record, the row with version + 1 and its events; on commit, the room's broadcast and the
table's next wake (`_arm`).
Above due.py: it builds on run.py and store.py, and nothing in the package below it writes.
"""

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from games import broadcast
from games.engine import state_to_json
from games.engine.machine import IN_HAND
from games.models import Hand, HandSeat, Room, Seat
from games.services.due import _next_hand_at, _wake_at
from games.services.run import _dt, _owned, _Run
from games.services.store import _store
from games.tv import TV, tv_frame, tv_lag, tv_shown
from wallets import services as wallets
from wallets.models import Account

AWAY_AFTER_HANDS = 3  # hands in a row played entirely by timeouts
# The reason a release of a seat away too long gives the ledger (wallets.services.release_memo): "Left <seat> (away)".
RELEASE_AWAY = "away"

# A table's next wake, sent on commit with room_id, version and wake_at (`_arm`). games/tasks.py receives it and
# asks Celery for the task (connected in games/apps.py): the services do not import the tasks that call them.
wake_armed = Signal()
# Every saved version, on commit after its broadcast and wake: room_id, version, state (the engine's; read it, never
# change it), events, seats (Table.meta's) and deadline_before (the engine's deadline before the command). The
# notifications receive it (games/notify.py), and only queue from here: a command's queries stay the same.
table_saved = Signal()


def _save(run: _Run) -> int:
    """Write what the command did: ledger, hand record, state, version; broadcast on commit."""
    table, room, meta = run.table, run.room, run.meta
    version = table.version + 1
    deadline_before = table.state.get("deadline")  # for table_saved: the row's state is still the one before
    _bookkeeping(run, [e for _actor, e in run.events])
    _commit_next_seed(run)
    # After the bookkeeping (it may have applied set_seat). Not a copy: nothing changes run.state or `after` from
    # here on; `after` is written to the row and run.state goes to the broadcast.
    after = state_to_json(run.state, copy=False)
    events = [e for _actor, e in run.events]
    _move_chips(run, after, events, version)

    # Events belong to the hand under way; those between hands (seats, the bank) to none.
    latest = table.hand_id
    hand_id = latest if run.phase_before in IN_HAND else None
    rows: list[tuple[int | None, str, dict]] = []  # (hand id, actor, event), in order
    for actor, event in run.events:
        if event["type"] == "hand_started":
            hand = Hand.objects.create(room=room, number=event["hand_no"], rules=after["rules"],
                                       commitment=event["commitment"])
            hand_id = latest = hand.pk
        rows.append((hand_id, actor[:20], event))
        if event["type"] == "hand_over":
            _record_hand_end(run, hand_id, after)
            hand_id = None

    if any(e["type"] == "hand_over" for e in events):
        meta["hand_over_at"] = run.now
    if events and table.meta.get("start_refused"):
        # Something happened since the engine refused the next hand (a top-up, a seat, the bank): it is tried
        # again. A refusal made by this very run stays (the bots an AI room replaced just before it are not that).
        meta.pop("start_refused", None)
    meta["next_hand_at"] = _next_hand_at(run)
    # TV mode (games/tv.py): the cards of this version's spectators are the row's before this command.
    meta["tv_lag"] = tv_lag(table.state) if room.spectators == TV else None
    table.state = after
    table.version = version
    table.meta = meta
    table.hand_id = latest
    table.deadline = _dt(run.state.deadline)
    table.wake_at = _dt(_wake_at(run))

    users = dict(meta["users"])
    is_open, started, stalled = room.is_open, meta["started"], meta.get("start_refused")
    state = run.state  # the last step of the command: nothing changes it after this
    watch = {"mode": room.spectators, "host": room.host_id, "removed": meta.get("watch_removed") or [],
             "tv": tv_frame(version, tv_shown(meta, state)) if room.spectators == TV else None}
    # On commit, in this order: this version's update goes out before a wake (run at once in eager mode) makes
    # the next one.
    transaction.on_commit(
        lambda: broadcast.table_update(room.pk, version, state, events, users, is_open, started, stalled, watch))
    _arm(run, version)
    seats = meta["seats"]
    transaction.on_commit(lambda: table_saved.send(None, room_id=room.pk, version=version, state=state, events=events,
                                                   seats=seats, deadline_before=deadline_before))
    _store(table, rows)
    return version


def _commit_next_seed(run: _Run) -> None:
    """A table with seats, between hands, always has the next hand's server seed committed: its SHA-256 is on the
    table before any player's seed for that hand can be taken (docs/fairness.md, "Who commits what, when")."""
    s = run.state
    if s.seats and s.next_seed is None and s.phase not in IN_HAND:
        run.apply("system", "commit_seed", {"seed_hex": secrets.token_hex(32)})


def _arm(run: _Run, version: int) -> None:
    """Make sure a wake task will come at `table.wake_at` (sent on commit; the caller saves the row).

    One task pending per table: most commands move the deadline later (the next turn's timer), and a task
    per command meant a worker holding thousands of stale ETA tasks, a fifth of a core at 60 commands/s
    (docs/performance.md). A new task goes out only when the wake comes before the pending one, or when the
    pending one's time has passed (it is running, or it was lost with a worker). The pending task, when it
    finds nothing due yet, re-arms for the table's real wake time (clock.py, `table_wake`, `pending=True`).
    A wake further off than GAMES_WAKE_HORIZON_SECONDS (a turn's timer, which the player mostly beats) gets no task
    here: the beat sweeper sends it once it comes within the horizon (clock.py, `sweep`), so a worker does not hold
    a task for every turn in play, and a move made before the timer's last GAMES_WAKE_HORIZON_SECONDS costs none.
    Eager mode (tests) runs each wake at once, so nothing is ever pending there."""
    table, wake = run.table, run.table.wake_at
    if wake is None:
        return
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    if not eager:
        sent, now = table.wake_sent_at, _dt(run.now)
        if sent is not None and now < sent <= wake:
            return  # the pending task comes first and re-arms
        if wake > now + timedelta(seconds=settings.GAMES_WAKE_HORIZON_SECONDS):
            return  # far off, most likely beaten by a command: the sweeper arms it within the horizon (clock.py)
        table.wake_sent_at = wake
    room_id = table.pk
    transaction.on_commit(lambda: wake_armed.send(None, room_id=room_id, version=version, wake_at=wake))


def _move_chips(run: _Run, after: dict, events: list[dict], version: int) -> None:
    """Keep every hold equal to what its seat owns in the engine (one ledger transaction per command)."""
    before = run.owned_before
    now_owned = _owned(after)
    left = {e["seat"]: e for e in events if e["type"] == "seat_left"}
    movements: dict[int, int] = {}
    for seat_id in set(before) | set(now_owned) | set(left):
        expected = now_owned.get(seat_id, left[seat_id]["chips_out"] if seat_id in left else 0)
        actual = before.get(seat_id, 0) + run.chips_in.get(seat_id, 0)
        if expected != actual:
            hold_id = run.meta["seats"][seat_id]["hold"]
            movements[hold_id] = movements.get(hold_id, 0) + expected - actual
    if sum(movements.values()) != 0:
        # The engine conserves chips; a mismatch is a bug, and rolling back loses nothing.
        raise RuntimeError(f"chips not conserved at table {run.room.pk} v{version}: {movements}")
    if movements:
        hand_no = after.get("hand_no")
        wallets.hand_settle(currency=run.room.currency, movements=movements,
                            idempotency_key=f"table{run.room.pk}:v{version}",
                            memo=f"Room {run.room.code} hand {hand_no}", hand_ref=f"{run.room.pk}:{hand_no}",
                            savepoint=False)  # a refusal rolls the whole command back (`action_submit`)
    gone = []
    for seat_id, event in left.items():
        info = run.meta["seats"].pop(seat_id)
        run.left_seats[seat_id] = info
        run.meta["users"].pop(str(info["user"]), None)
        for bookkeeping in ("away", "streak", "sockets", "absent", "seeders"):
            run.meta.get(bookkeeping, {}).pop(seat_id, None)
        hold = Account(pk=info["hold"], user_id=info["user"], currency=run.room.currency, kind=Account.Kind.HOLD)
        wallets.hold_release(hold=hold, idempotency_key=f"release:room{run.room.pk}:{seat_id}",
                             reason=RELEASE_AWAY if event.get("why") == "away" else "")
        gone.append(int(seat_id[1:]))
    if gone:
        Seat.objects.filter(pk__in=gone).update(left_at=timezone.now(), connected=False)


def _record_hand_end(run: _Run, hand_id: int | None, after: dict) -> None:
    if hand_id is None:
        return
    last = after.get("last_hand") or {}
    Hand.objects.filter(pk=hand_id).update(seed=last.get("seed", ""), ended_at=timezone.now(), summary=last,
                                           prev_chain=last.get("prev", ""), chain=last.get("chain", ""))
    seats = {**run.left_seats, **run.meta["seats"]}  # a seat may have left with the hand's end
    deltas = last.get("deltas", {})
    banker = last.get("banker")
    side = {r["bettor"] for r in last.get("results", []) if r["kind"] == "side"}
    rows = []
    for seat_id, delta in deltas.items():
        info = seats.get(seat_id)
        if info is None:
            continue
        role = "banker" if seat_id == banker else "side" if seat_id in side else "challenger"
        rows.append(HandSeat(hand_id=hand_id, user_id=info["user"], seat_id=seat_id, role=role, delta=delta))
    HandSeat.objects.bulk_create(rows, ignore_conflicts=True)


def _bookkeeping(run: _Run, events: list[dict]) -> None:
    """Timeout streaks and away marks (AWAY_AFTER_HANDS hands in a row played by timeouts -> away), and the seats whose
    page sends seeds (meta["seeders"]: a seed came from the seat itself; bots never send one)."""
    meta, state = run.meta, run.state
    types = {e["type"] for e in events}
    if run.room.kind == Room.Kind.AI and "seat_left" in types and not state.seats:
        # The last human left a practice room and the bots went with them: nothing is left to play.
        Room.objects.filter(pk=run.room.pk).update(status=Room.Status.CLOSED, closed_at=timezone.now())
        run.room.status = Room.Status.CLOSED
        meta["started"] = False
    for actor, event in run.events:
        if event["type"] == "seed_received" and event["seat"] == actor and actor in meta["seats"] \
                and not meta["seats"][actor]["bot"]:
            # This seat's page sends seeds: from now on its deals wait for them (moves.py, `_seed_wait`).
            meta.setdefault("seeders", {})[actor] = True
    if "hand_started" in types:
        meta["acted"], meta["timed"] = [], []
    if "hand_over" not in types:
        return
    last = state.last_hand or {}
    in_hand = set(last.get("deltas", {})) | set(last.get("order", []))
    for seat_id in in_hand:
        info = meta["seats"].get(seat_id)
        if info is None or info["bot"]:
            continue
        if seat_id in meta["timed"] and seat_id not in meta["acted"]:
            meta["streak"][seat_id] = meta["streak"].get(seat_id, 0) + 1
        else:
            meta["streak"][seat_id] = 0
        if meta["streak"][seat_id] >= AWAY_AFTER_HANDS and seat_id not in meta["away"] \
                and state.seat(seat_id) is not None:
            _away_mark(run, seat_id, "timeouts")


def _away_mark(run: _Run, seat_id: str, why: str) -> None:
    """The seat is away from now on (`why`: machine.AWAY_WHY): it sits out from the next hand, and leaves the table
    after GAMES_AWAY_RELEASE_MINUTES unless its owner comes back first (moves.py, `_back_from_away`)."""
    run.meta["away"][seat_id] = run.now
    run.apply("system", "set_seat", {"seat": seat_id, "away": True, "why": why})
    Seat.objects.filter(pk=int(seat_id[1:])).update(away=True)
