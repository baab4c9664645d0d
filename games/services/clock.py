"""What the clock does (games/tasks.py runs it): `table_wake` applies the one thing due at a table, once,
and `sweep` wakes every table whose wake time has passed and arms those coming within the horizon. Above moves.py
and save.py.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from games.engine import EngineError
from games.models import Room, Table
from games.services.due import _wake_at
from games.services.errors import GameError
from games.services.moves import _due
from games.services.run import _dt, _locked, _Run
from games.services.save import _arm, _save, wake_armed

logger = logging.getLogger(__name__)

PENDING_SLACK = 1.0  # seconds: a pending wake task this close to its time is the one running (`table_wake`)


def table_wake(*, room_id: int, version: int | None = None, pending: bool = False) -> str:
    """Do the one thing that is due at a table: a bot's move, the default action of an expired
    deadline, the next hand, releasing a seat away for too long. Compare-and-set: a call carrying
    a version does nothing once the table has moved on, so a task delivered twice applies once.
    `pending`: the table's one pending wake task (`_arm`), sent without a version because commands
    move the table on under it; it acts only once the table's wake time has come (so a copy, or a
    task whose deadline a command moved later, does nothing) and otherwise re-arms for that time.
    Returns what it did (for logs and tests)."""
    with transaction.atomic():
        try:
            run = _locked(room_id)
        except GameError:
            return "no_room"
        if version is not None and run.table.version != version:
            return "stale"
        if not run.room.is_open:
            return "closed"
        table = run.table
        stored = (table.wake_at, table.wake_sent_at)
        if pending:
            now = _dt(run.now)
            if table.wake_sent_at is not None and table.wake_sent_at <= now + timedelta(seconds=PENDING_SLACK):
                table.wake_sent_at = None  # this is the pending task (or it is due this instant): it is taken
            if table.wake_at is None or now < table.wake_at:
                _rearm(run, stored)
                return "early"
        try:
            did = _due(run)
        except EngineError as e:
            # A default action the engine refuses is an engine bug: say so loudly; nothing is saved,
            # and the sweeper will try again (an operator can close the room meanwhile).
            logger.error("room %s v%s: the due action was refused: %s %s", room_id, run.table.version, e.code,
                         e.message)
            return "refused"
        if did == "nothing":
            _rearm(run, stored)
            return did
        _save(run)
        return did


def _rearm(run: _Run, stored: tuple) -> None:
    """Nothing was due: make sure the stored wake time is the real next one and that a task will come
    for it, so a stale time in the past (a task that came early, a bot the engine refused) or a pending
    task that came before a moved deadline does not leave the table to the sweeper."""
    table = run.table
    table.wake_at = _dt(_wake_at(run))
    # Eager mode runs a wake at once: re-arming the same time again would run it again, for ever.
    if not settings.CELERY_TASK_ALWAYS_EAGER or table.wake_at != stored[0]:
        _arm(run, table.version)
    if (table.wake_at, table.wake_sent_at) != stored:
        Table.objects.filter(pk=run.room.pk).update(wake_at=table.wake_at, wake_sent_at=table.wake_sent_at)


def sweep(*, grace_seconds: float = 2.0) -> list[tuple[int, str]]:
    """Apply everything overdue (a lost or late task, a worker that died holding one), then arm the wakes that
    came within the horizon with no task on its way (`arm_near`). Run by beat."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=grace_seconds)
    due = list(Table.objects.filter(wake_at__lt=cutoff, room__status=Room.Status.OPEN)
               .order_by("wake_at").values_list("pk", "version")[:500])
    done = [(room_id, table_wake(room_id=room_id, version=version)) for room_id, version in due]
    arm_near(timezone.now())
    return done


def arm_near(now) -> list[int]:
    """Send the task of every open table whose wake comes between `now` and `now` + GAMES_WAKE_HORIZON_SECONDS with
    none on its way: `_arm` sends none for a wake further off. A task is on its way when `wake_sent_at` is between
    now and the wake; one in the past was taken or lost. Each table is claimed by a compare-and-set on its row, so
    a command committing meanwhile (its own `_arm`) or a second sweeper never sends a second task. Returns the
    rooms armed."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return []  # eager mode runs every wake at once: nothing waits
    horizon = now + timedelta(seconds=settings.GAMES_WAKE_HORIZON_SECONDS)
    unsent = Q(wake_sent_at__isnull=True) | Q(wake_sent_at__lt=now - timedelta(seconds=PENDING_SLACK)) \
        | Q(wake_sent_at__gt=F("wake_at"))
    near = Table.objects.filter(unsent, wake_at__gte=now, wake_at__lte=horizon, room__status=Room.Status.OPEN)
    armed = []
    for room_id, version, wake_at in near.order_by("wake_at").values_list("pk", "version", "wake_at")[:500]:
        if Table.objects.filter(unsent, pk=room_id, wake_at=wake_at).update(wake_sent_at=wake_at):
            wake_armed.send(None, room_id=room_id, version=version, wake_at=wake_at)
            armed.append(room_id)
    return armed

