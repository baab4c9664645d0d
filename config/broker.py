"""The embedded default's Celery broker: kombu's SQLAlchemy transport on a SQLite file (config/settings.py).

Every write and every read of a message is a database transaction, so no process can read a message half
written, as a reader of kombu's filesystem transport can (a worker once stopped on beat's first message that
way). Two changes to kombu's channel keep one bad row from ever stopping the worker or slowing it down."""

import logging
from queue import Empty

from kombu.transport import sqlalchemy

logger = logging.getLogger(__name__)


class Channel(sqlalchemy.Channel):
    """A message that cannot be read is logged and dropped: kombu decodes each row as it takes it and the worker
    builds a message from it at once, and an error in either stops the worker ("Unrecoverable error"). The row is
    already marked taken (kombu commits its read either way), so dropping it is deleting it.
    Taken rows are deleted: kombu keeps them, marked invisible, and never reads them again (a message handed back
    is written anew), so the file and every poll would grow for as long as the site runs."""

    def _get(self, queue):
        try:
            payload = super()._get(queue)
            self.Message(payload, channel=self)  # what the consumer builds next: a malformed one fails here
        except (ValueError, LookupError, TypeError, AttributeError):
            logger.exception("dropped a message of queue %r that cannot be read", queue)
            payload = None
        self.session.query(self.message_cls).filter(self.message_cls.visible.is_(False)).delete()
        self.session.commit()
        if payload is None:
            raise Empty()
        return payload


class Transport(sqlalchemy.Transport):
    Channel = Channel
