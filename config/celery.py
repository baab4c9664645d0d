"""The Celery app: timeouts, bot turns and the deadline sweeper run here."""

import logging
import os

from celery import Celery
from celery.worker.consumer import Consumer as WorkerConsumer

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("halfpoint")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.worker_consumer = "config.celery:Consumer"
app.autodiscover_tasks()


class Consumer(WorkerConsumer):
    """The worker's broker consumer, made to survive a Redis restart while it holds ETA tasks (every table
    timer is one, acked only when it runs).

    On a lost connection Celery 5.7 first drops the connection's transport (`collect`), then closes it; the
    close hands the unacknowledged messages back through the dropped transport and raises AttributeError,
    which is not a connection error, so the worker exits ("Unrecoverable error") instead of reconnecting
    (tests/games/test_faults.py). Going on loses nothing the sweeper does not repair: those messages wait in
    Redis's unacked set until the visibility timeout (stale by then), or are gone with a Redis that restarted
    empty, and `games.sweep` applies every deadline they carried."""

    def on_connection_error_after_connected(self, exc):
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            logging.getLogger(__name__).warning("the lost broker connection did not close cleanly; reconnecting",
                                                exc_info=True)
