"""The SQL of a command, and the only SQL of games/services: the lock of the table row (with its room), the
state's UPDATE and the events' INSERT, as plain statements (prepared once per connection on PostgreSQL).

Just above errors.py in the layers: it imports nothing else of the package. The ORM compiled these statements
afresh for every command, a large part of a command's CPU (docs/performance.md). The SELECT and its converters
are built once per process; the UPDATE (`_store`) and the INSERT (`_events_insert`) are joined from their field
lists. Same columns, same conversions (each field's own), same lock as the ORM's.
"""

import re
import weakref

from django.db import connection
from django.utils import timezone

from games.fields import jsonb
from games.models import HandEvent, Room, Table

_ROW_SQL: dict[str, tuple] = {}  # database vendor -> (SQL, converters per column, Table's and Room's attnames)


# The room's rule set and overrides (about 1 KB of JSON) are left out of the lock: no command reads them (the
# table's state holds the rules in force); `room.rules` still loads them on demand (Django's deferred fields).
_ROOM_DEFERRED = ("rules", "overrides")


def _row_fields(model) -> list:
    return [f for f in model._meta.concrete_fields if not (model is Room and f.name in _ROOM_DEFERRED)]


def _row_sql() -> tuple:
    found = _ROW_SQL.get(connection.vendor)
    if found is not None:
        return found
    quote = connection.ops.quote_name
    columns, converters = [], []
    for model, alias in ((Table, "t"), (Room, "r")):
        for f in _row_fields(model):
            col = f.get_col(alias)
            columns.append(f"{alias}.{quote(f.column)}")
            converters.append([(convert, col) for convert in
                               connection.ops.get_db_converters(col) + col.get_db_converters(connection)])
    lock = ""
    if connection.features.has_select_for_update:  # SQLite has none: its transactions take the write lock
        lock = " FOR UPDATE OF t" if connection.features.has_select_for_update_of else " FOR UPDATE"
    sql = (f"SELECT {', '.join(columns)} FROM {quote(Table._meta.db_table)} t "
           f"JOIN {quote(Room._meta.db_table)} r ON r.{quote(Room._meta.pk.column)} = t.{quote(Table._meta.pk.column)} "
           f"WHERE t.{quote(Table._meta.pk.column)} = %s{lock}")
    names = tuple([f.attname for f in _row_fields(model)] for model in (Table, Room))
    _ROW_SQL[connection.vendor] = found = (sql, converters, names)
    return found


# On PostgreSQL the lock and the store are prepared once per database connection and run as `EXECUTE name(...)`:
# the server parses and plans them once, not for every command (docs/performance.md). The values are still quoted
# into the text by Django's client-side cursor: psycopg's server-side binding cost more Python than it saved.
# A prepared statement belongs to its session and outlives a rolled-back transaction. psycopg discards all of a
# session's prepared statements (DEALLOCATE ALL) only when it prepared some itself, which it never does with the
# client-side cursor that Django uses unless `server_side_binding` is set: config/settings.py does not set it.
_prepared: "weakref.WeakKeyDictionary[object, set[str]]" = weakref.WeakKeyDictionary()  # psycopg conn -> names
_PLACEHOLDER = re.compile(r"%s")


def _execute(cursor, name: str, sql: str, params: list) -> None:
    """`cursor.execute(sql, params)`; on PostgreSQL through the statement `name`, prepared on first use on this
    connection. `sql` is a constant text for `name` (the same placeholders every time)."""
    if connection.vendor != "postgresql":
        cursor.execute(sql, params)
        return
    raw = connection.connection
    names = _prepared.get(raw)
    if names is None:
        names = _prepared[raw] = set()
    if name not in names:
        count = iter(range(1, len(params) + 1))
        cursor.execute(f"PREPARE {name} AS " + _PLACEHOLDER.sub(lambda _m: f"${next(count)}", sql))
        names.add(name)
    cursor.execute(f"EXECUTE {name}({', '.join(['%s'] * len(params))})", params)


def _lock_table_row(room_id: int) -> Table | None:
    sql, converters, (table_names, room_names) = _row_sql()
    with connection.cursor() as cursor:
        _execute(cursor, "hp_lock_table", sql, [room_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for value, column_converters in zip(row, converters, strict=True):
        for convert, col in column_converters:
            value = convert(value, col, connection)
        values.append(value)
    table = Table.from_db(connection.alias, table_names, values[:len(table_names)])
    room = Room.from_db(connection.alias, room_names, values[len(table_names):])
    # The forward cache only: `table.room = room` would also cache the table on the room, a reference cycle that
    # left every command's Table, Room and parsed state (about a hundred containers) to the garbage collector
    # instead of freeing them at once (docs/performance.md, "Garbage collection in the web process").
    Table.room.field.set_cached_value(table, room)
    return table


_SAVED = ("state", "version", "meta", "hand", "deadline", "wake_at", "wake_sent_at", "updated_at")


def _store(table: Table, events: list[tuple[int | None, str, dict]]) -> None:
    """Write the table row's changing columns and the command's `events` ((hand id, actor, event), from `_save`):
    on PostgreSQL in one statement (the INSERT as a WITH clause of the UPDATE: one round trip and one statement
    fewer for every command), elsewhere in two. `table.save(update_fields=...)` without the ORM's compiling."""
    fields, sql = _store_sql()
    table.updated_at = timezone.now()
    params = [f.get_db_prep_save(getattr(table, f.attname), connection) for f in fields]
    params.append(table.pk)
    with connection.cursor() as cursor:
        if events:
            insert, insert_params = _events_insert(table.pk, table.version, events)
            if connection.vendor == "postgresql":
                _execute(cursor, "hp_store_events", f"WITH events AS ({insert}) {sql}", [*insert_params, *params])
                return
            cursor.execute(insert, insert_params)
        _execute(cursor, "hp_store", sql, params)


_STORE_SQL: dict[str, tuple] = {}  # database vendor -> (the fields `_store` writes, its UPDATE)


def _store_sql() -> tuple:
    found = _STORE_SQL.get(connection.vendor)
    if found is None:
        fields, quote = [Table._meta.get_field(name) for name in _SAVED], connection.ops.quote_name
        sql = (f"UPDATE {quote(Table._meta.db_table)} SET {', '.join(f'{quote(f.column)} = %s' for f in fields)} "
               f"WHERE {quote(Table._meta.pk.column)} = %s")
        _STORE_SQL[connection.vendor] = found = (fields, sql)
    return found


_EVENT_COLUMNS = ("room", "hand", "version", "seq", "type", "data", "actor", "created_at")


_EVENTS_SQL: list[str] = []  # PostgreSQL's INSERT of a command's events, made once per process


def _events_head() -> str:
    meta, quote = HandEvent._meta, connection.ops.quote_name
    return (f"INSERT INTO {quote(meta.db_table)} "
            f"({', '.join(quote(meta.get_field(name).column) for name in _EVENT_COLUMNS)})")


def _events_sql() -> str:
    if not _EVENTS_SQL:
        # The casts give a prepared statement (`_execute`) its parameters' types: in a SELECT list nothing else does.
        room, version, created = (HandEvent._meta.get_field(name).db_type(connection)
                                  for name in ("room", "version", "created_at"))
        _EVENTS_SQL.append(
            f"{_events_head()} SELECT %s::{room}, (e.row->>0)::bigint, %s::{version}, e.seq - 1, "
            f"e.row->2->>'type', e.row->2, e.row->>1, %s::{created} "
            f"FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS e(row, seq)")
    return _EVENTS_SQL[0]


def _events_insert(room_id: int, version: int, rows: list[tuple[int | None, str, dict]]) -> tuple[str, list]:
    """The INSERT of a command's events, `rows` of (hand id, actor, event) numbered from 0, with its parameters.

    On PostgreSQL the rows travel as one JSON array that the statement unpacks, so the statement's text and its
    four parameters are the same for every command. As VALUES with eight parameters a row, psycopg quoted each
    parameter on its own and re-parsed the text of every statement of more than 50 parameters (commands of 7 or
    more events): together about a tenth of a web process at 500 tables (docs/performance.md). Django's
    bulk_create was worse: it sends the rows as typed arrays, whose adaptation was an eighth of a web process.
    Elsewhere (SQLite) one plain INSERT ... VALUES."""
    meta = HandEvent._meta
    now = meta.get_field("created_at").get_db_prep_save(timezone.now(), connection)
    if connection.vendor == "postgresql":
        return _events_sql(), [room_id, version, now, jsonb([list(row) for row in rows])]
    data = meta.get_field("data")
    params = []
    for seq, (hand_id, actor, event) in enumerate(rows):
        params += [room_id, hand_id, version, seq, event["type"], data.get_db_prep_save(event, connection), actor, now]
    row = "(" + ", ".join(["%s"] * len(_EVENT_COLUMNS)) + ")"
    return f"{_events_head()} VALUES {', '.join([row] * len(rows))}", params


