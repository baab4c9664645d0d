"""`JSONField` through orjson, for the columns every table command reads and writes.

Each command loads and saves the table's state and meta (several KB of JSON) and inserts its hand
events; with the standard library's `json` that encoding and decoding was a large share of a web
process's time (docs/performance.md, "Where the time goes"). orjson gives the same values back: text
keys, lists for tuples, integers of up to 64 bits (amounts are capped far below, games/services.py).
Lookups, the admin and migrations behave as with Django's own JSONField.
"""

import orjson
from django.db import models


def dumps(value) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


class FastJSONField(models.JSONField):
    def from_db_value(self, value, expression, connection):
        if isinstance(value, str | bytes) and self.decoder is None:
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                pass  # Django's own answer, below, for whatever it is
        return super().from_db_value(value, expression, connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        if connection.vendor != "postgresql" or self.encoder is not None or isinstance(value, models.Expression):
            return super().get_db_prep_value(value, connection, prepared)
        from psycopg.types.json import Jsonb

        if not prepared:
            value = self.get_prep_value(value)
        return Jsonb(value, dumps=dumps)
