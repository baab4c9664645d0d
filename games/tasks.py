"""Celery tasks: the table's clock (timeouts, bots, the next hand), the sweeper, and the rules' statistics.

Every task is idempotent. A table has one pending wake task at a time (games/services/save.py, `_arm`): it
carries no version, and acts only once the table's stored wake time has come, so a copy delivered twice or
late finds nothing due and re-arms instead. A task carrying a version (the sweeper's, an operator's) does
nothing once the table has moved on (compare-and-set, DESIGN.md house style 5). A task that never
arrives (a worker killed while holding it, a broker hiccup) is covered by `sweep`, which Celery
beat runs every few seconds over the tables whose `wake_at` has passed.

The services ask for a wake through the `wake_armed` signal, received here (`schedule_wake`): they do not
import this module, which calls them; games/apps.py imports it in every process so that the receiver is there.
"""

import logging
import threading
from collections import deque
from datetime import datetime

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.dispatch import receiver

from games import distribution, notify, services  # noqa: F401 (notify: its tasks and receiver, in every process)
from games.services.save import wake_armed
from games.stats import compute

logger = logging.getLogger(__name__)


@shared_task(name="games.table_wake", ignore_result=True)
def table_wake(room_id: int, version: int | None = None, pending: bool = False) -> str:
    return services.table_wake(room_id=room_id, version=version, pending=pending)


@shared_task(name="games.sweep", ignore_result=True)
def sweep() -> list:
    done = services.sweep()
    if done:
        logger.info("sweeper applied %s", done)
    return done


@shared_task(name="games.rules_stats", ignore_result=True)
def rules_stats(key: str, preset: str, overrides: dict) -> None:
    try:
        compute(key, preset, overrides)
    except Exception:
        cache.delete(key)  # let the next request try again
        raise


@shared_task(name="games.distribution_refresh", ignore_result=True)
def distribution_refresh() -> None:
    distribution.distribution_refresh()


_local = threading.local()
INLINE_WAKES_MAX = 2000  # eager mode: a bot hand is a few dozen wakes; a chain this long never ends


@receiver(wake_armed)
def _wake_armed(sender, *, room_id: int, version: int, wake_at: datetime, **kwargs) -> None:
    schedule_wake(room_id, version, wake_at)  # looked up when called: tests and benchmarks replace it


def schedule_wake(room_id: int, version: int, wake_at: datetime) -> None:
    """Ask a worker to wake the table at `wake_at` (called on commit). The task is the table's one pending
    wake (games/services/save.py, `_arm`): it carries no version, since the commands before its time move the
    table on."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        _run_inline(room_id, version)
        return
    try:
        table_wake.apply_async((room_id,), {"pending": True}, eta=wake_at)
    except Exception:  # the broker is down: the sweeper applies it once beat can reach the database
        logger.exception("could not schedule the wake of room %s v%s", room_id, version)


def _run_inline(room_id: int, version: int) -> None:
    """Eager mode (tests, debugging): run wakes one after another instead of nesting them, so a
    chain of bot moves is a loop, not a recursion. What is not due yet (a deadline) does nothing."""
    queue = getattr(_local, "queue", None)
    if queue is not None:
        queue.append((room_id, version))
        return
    _local.queue = queue = deque([(room_id, version)])
    try:
        wakes = 0
        while queue:
            if wakes == INLINE_WAKES_MAX:
                # A table due again each time it is woken is a bug (with workers, a task a second for ever):
                # fail loudly rather than loop (a refused hand start once did: `start_refused` in Table.meta).
                raise RuntimeError(f"{wakes} wakes in a row, the next at room {queue[0][0]}: a wake loop")
            services.table_wake(room_id=queue[0][0], version=queue[0][1])
            queue.popleft()
            wakes += 1
    finally:
        _local.queue = None
