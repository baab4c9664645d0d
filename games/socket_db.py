"""The sockets' database calls: a pool of threads of their own, and the broadcasts of what each call committed.

Every database call of a socket runs on this pool, not on asgiref's default single thread per process, where one
table's command would wait for the round trips of every other (docs/performance.md). Each thread has its own
connection (DB_POOL shares them); the row locks of games.services keep two commands of one table in order, as
across processes.
"""

import asyncio
import gc
from concurrent.futures import ThreadPoolExecutor

from channels.db import database_sync_to_async
from django.conf import settings

from games.broadcast import Outbox, collecting, flush

_db_threads = (ThreadPoolExecutor(max_workers=settings.GAMES_DB_THREADS, thread_name_prefix="table-db")
               if settings.GAMES_DB_THREADS else None)


def db_threads_stop() -> None:
    """End the pool's threads (their connections go with them) and start a fresh pool: the test session
    calls it before it drops the test database, which a thread's idle connection would hold open."""
    global _db_threads
    if _db_threads is not None:
        _db_threads.shutdown(wait=True)
        _db_threads = ThreadPoolExecutor(max_workers=settings.GAMES_DB_THREADS, thread_name_prefix="table-db")
        gc.collect()  # a finished thread's connection closes when it is collected


_flushing: set[asyncio.Task] = set()  # the sends of cancelled calls, kept until done (asyncio holds tasks weakly)


def db(func):
    """`func` on a database thread, awaited; what it broadcasts goes out before the socket goes on: through Redis
    published by that thread as it commits, on the in-memory layer from this loop when it returns (games/broadcast.py,
    `Outbox`)."""
    if _db_threads is None:  # GAMES_DB_THREADS=0: asgiref's one thread
        run = database_sync_to_async(collecting(func))
    else:
        run = database_sync_to_async(collecting(func), thread_sensitive=False, executor=_db_threads)

    async def call(*args, **kwargs):
        outbox, cancelled = Outbox(), False
        try:
            return await run(outbox, *args, **kwargs)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            # A call can commit and then raise: what it committed goes out either way.
            # A cancelled call goes on in its thread: what it committed so far goes out now, the rest from there.
            messages = outbox.detach()
            if cancelled:
                task = asyncio.get_running_loop().create_task(flush(messages))
                _flushing.add(task)
                task.add_done_callback(_flushing.discard)
            else:
                await flush(messages)

    return call
