"""`JSONField` through orjson, for the columns every table command reads and writes.

Each command loads and saves the table's state and meta (several KB of JSON) and inserts its hand
events; with the standard library's `json` that encoding and decoding was a large share of a web
process's time (docs/performance.md, "orjson on the hot path"). orjson gives the same values back: text
keys, lists for tuples, integers of up to 64 bits (amounts are capped far below, games/services/commands.py).
Lookups, the admin and migrations behave as with Django's own JSONField.
"""

import json

import orjson
from django.db import models
from psycopg.types.json import Jsonb


def dumps(value) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def json_copy(value):
    """The engine's deep copy through orjson (games/engine/codec.py, installed by games/apps.py). What orjson
    refuses (a lone surrogate, an integer beyond 64 bits) goes through `json`, as the engine's default does."""
    try:
        return orjson.loads(dumps(value))
    except orjson.JSONEncodeError:
        return json.loads(json.dumps(value))


def json_key(value) -> bytes:
    """The engine's rules cache key through orjson: keys sorted; a TypeError for what is not plain JSON."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def jsonb(value) -> Jsonb:
    """`value` as a PostgreSQL jsonb parameter, encoded by orjson."""
    return Jsonb(value, dumps=dumps)


def text(value) -> str:
    """`value` as compact JSON text, for a socket. orjson refuses what is not UTF-8 (a lone surrogate, which a
    hostile frame's "\\ud800" decodes to and an error frame may quote back) and integers beyond 64 bits: those
    few go through the standard library, which writes them as escapes, as it always did."""
    try:
        return dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"))


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
        if not prepared:
            value = self.get_prep_value(value)
        return jsonb(value)
