"""Every write to a room and its table (DESIGN.md, "The spine").

One command, from a player, a timeout, a bot or the host, goes the same way (`_locked` then `_save`):
1. lock the Table row (select_for_update): one writer per table across every daphne and Celery
   process; wallets are locked after it, in primary-key order (wallets/services.py);
2. check, then `engine.apply` (pure: a refused command raises EngineError and changes nothing);
3. move chips in the ledger so that every hold equals what its seat owns in the engine
   (stack, plus the bank for the banker, plus a seeded jackpot), one transaction per command;
4. save the state with version + 1, the events, the hand record;
5. on commit: one group message to the room (each consumer turns it into its viewer's view)
   and one Celery task at the next moment something is due (games/tasks.py).

Bookkeeping that is not rules lives in `Table.meta`, written under the same lock:
- users: {user id: seat id}; seats: {seat id: {user, hold, bot, role}}
- actions: recent [user id, action id, version] (a client action id is applied once)
- started: hands follow one another once the host started (always in AI rooms)
- next_hand_at: when the next hand starts (epoch seconds), set when a hand or bank decision ends
- acted / timed: seats that acted themselves / were timed out in the current hand
- streak: hands in a row a seat played entirely by timeouts; away: {seat id: since}
- kicked: user ids the host removed (they cannot sit again in this room)
"""

import logging
import re
import secrets
import time
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine import (
    Command,
    EngineError,
    RulesError,
    apply,
    bot_decide,
    rules_from,
    state_from_json,
    state_to_json,
    view,
)
from games.engine.machine import IN_HAND
from games.fields import jsonb
from games.models import ChatMessage, ClubMember, Hand, HandEvent, HandSeat, Room, Seat, Table
from wallets import services as wallets
from wallets.models import Account, Currency

logger = logging.getLogger(__name__)

# Action ids remembered per room (a retried action is applied once): each user's last ACTIONS_PER_USER,
# at most RECENT_ACTIONS in all. The list is part of the meta every command reads and writes: 200 entries of
# every user were 10 KB of JSON a command at a busy table, where a client has one action in flight at a time.
RECENT_ACTIONS = 200
ACTIONS_PER_USER = 8
AWAY_AFTER_HANDS = 3  # hands in a row played entirely by timeouts
AWAY_RELEASE_SECONDS = 600
PENDING_SLACK = 1.0  # seconds: a pending wake task this close to its time is the one running (`table_wake`)
CHAT_MAX = 500
BOT_NAMES = ("Ada", "Bao", "Cai", "Dee", "Eli", "Fei", "Gus", "Hui")

# What a player may send as arguments: name -> type. Anything else is refused before the engine
# sees it, so a hostile frame (a list where a seat id goes, a float amount) is a clear error.
ARG_TYPES = {"amount": int, "seat": str, "backs": str, "position": int, "role": str, "buy_in": int}
# Engine commands a player sends for their own seat.
PLAYER_ACTIONS = {
    "chip", "reset", "confirm", "bet", "back", "side_bet", "no_bet", "hit", "stand", "double", "split",
    "mort_accept", "mort_decline", "open_bank", "refill", "pass_bank", "retire", "take_bank", "decline_bank",
    "seed_jackpot",
}
# Commands of the room (seats and host controls), handled here around the engine.
ROOM_ACTIONS = {"sit", "leave", "top_up", "im_back", "start", "kick", "close"}


class GameError(Exception):
    """A refused command: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = str(message)
        self.field = field  # the rule setting at fault, for a form to show the message on its field


@dataclass
class Result:
    version: int
    duplicate: bool = False


def _now() -> float:
    return time.time()


def _dt(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


# --- rooms -------------------------------------------------------------------------------------------


def _new_code() -> str:
    return f"{secrets.randbelow(10_000):04d}"


def room_create(
    *,
    host,
    preset: str,
    overrides: dict | None = None,
    currency: str = Currency.BEANS,
    kind: str = Room.Kind.HUMANS,
    buy_in_min: int | None = None,
    buy_in_max: int | None = None,
    bot_level: str = "basic",
    club=None,
) -> Room:
    """Open a room from a preset plus overrides (validated by the engine as a whole). AI rooms are
    practice rooms and always use points: bots' chips come from the house, and beans are only ever
    won from other players (rules/README.md, "Beans and points"; docs/rules.md)."""
    if getattr(host, "is_banned", False):
        raise GameError("banned", _("Your account is banned."))
    try:
        rules = rules_from(preset, overrides or {})
    except RulesError as e:
        raise GameError(e.code, e.message, field=e.knob) from None
    if kind not in Room.Kind.values:
        raise GameError("bad_kind", _("A room is for friends or for practice with bots."))
    if kind == Room.Kind.AI:
        currency = Currency.POINTS
    if currency not in Currency.values:
        raise GameError("bad_currency", _("A room plays for beans or points."))
    if bot_level not in ("basic", "expert"):
        raise GameError("bad_bot", _("Bots are basic or expert."))
    base = rules.base_stake
    buy_in_min = base * 10 if buy_in_min is None else buy_in_min
    buy_in_max = base * 100 if buy_in_max is None else buy_in_max
    for value in (buy_in_min, buy_in_max):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise GameError("bad_buy_in", _("Buy-in limits are whole numbers above zero."))
    if buy_in_min > buy_in_max:
        raise GameError("bad_buy_in", _("The smallest buy-in cannot be above the largest."))
    if buy_in_min < rules.stake_min:
        raise GameError("bad_buy_in", _("The smallest buy-in must cover at least one stake."))
    state = state_to_json(_new_table(rules))
    for _attempt in range(50):
        try:
            with transaction.atomic():
                room = Room.objects.create(
                    code=_new_code(), host=host, preset=preset, overrides=overrides or {}, rules=rules.to_json(),
                    currency=currency, kind=kind, bot_level=bot_level, buy_in_min=buy_in_min, buy_in_max=buy_in_max,
                    club=club,
                )
                Table.objects.create(room=room, state=state, meta={"started": kind == Room.Kind.AI})
                return room
        except IntegrityError:
            continue  # the code is taken by another open room: draw again
    raise GameError("no_code", _("Every room code is taken; try again in a moment."))


def _new_table(rules):
    from games.engine import new_table

    return new_table(rules)


def room_check_access(*, room: Room, user) -> None:
    """Who may enter a room (see the table): any logged-in player who is not banned; nobody once
    it is closed. Raises GameError."""
    if not getattr(user, "is_authenticated", False):
        raise GameError("login_required", _("Log in to join a room."))
    if getattr(user, "is_banned", False) or not user.is_active:
        raise GameError("banned", _("Your account is banned."))
    if not room.is_open:
        raise GameError("room_closed", _("This room is closed."))
    if room.club_id is not None and not _is_club_member(room.club_id, user.pk):
        raise GameError("club_members_only", _("This room is for the members of its club."))


def _is_club_member(club_id: int, user_id: int) -> bool:
    return ClubMember.objects.filter(club_id=club_id, user_id=user_id).exists()


def _is_club_admin(club_id: int, user_id: int) -> bool:
    return ClubMember.objects.filter(club_id=club_id, user_id=user_id, role__in=["owner", "admin"]).exists()


# --- the locked path ---------------------------------------------------------------------------------


class _Run:
    """One locked command: the table, its state and meta, and the events gathered so far."""

    def __init__(self, table: Table, room: Room):
        self.table = table
        self.room = room
        # What `_save` compares the command's result with: the phase and what each seat owned before it.
        self.phase_before = table.state["phase"]
        self.owned_before = _owned(table.state)
        # The row's state was parsed for this command alone: the engine's state takes it over (no copy). The
        # engine's `apply` works on a copy of it, so a refused command changes nothing; `_save` writes the result.
        self.state = state_from_json(table.state, copy=False)
        self.meta = _meta_defaults(table.meta)
        self.events: list[tuple[str, dict]] = []  # (actor, event)
        self.now = _now()
        self.chips_in: dict[str, int] = {}  # seat id -> chips this command put into its hold first
        self.left_seats: dict[str, dict] = {}  # seats removed by this command (their meta, for the record)

    def apply(self, actor: str, action: str, args: dict | None = None) -> list[dict]:
        self.state, events = apply(self.state, Command(actor=actor, action=action, args=args or {}, now=self.now))
        self.events += [(actor, e) for e in events]
        return events

    def seat_of(self, user) -> str | None:
        return self.meta["users"].get(str(user.pk))


def _meta_defaults(meta: dict) -> dict:
    meta = dict(meta or {})
    for key, default in (("users", {}), ("seats", {}), ("actions", []), ("started", False), ("next_hand_at", None),
                         ("acted", []), ("timed", []), ("streak", {}), ("away", {}), ("kicked", []),
                         ("hand_over_at", 0.0)):
        meta.setdefault(key, default)
    return meta


def _locked(room_id: int) -> _Run:
    """Lock the room's table (needs an open transaction). Raises GameError for an unknown room."""
    table = _lock_table_row(room_id)
    if table is None:
        raise GameError("no_room", _("There is no such room."))
    return _Run(table, table.room)


# The statements every command runs, as plain SQL: the ORM compiled the lock's SELECT (with its room) and the
# state's UPDATE afresh for every command, 1.3 ms of CPU of the 4 a command cost in a web process
# (docs/performance.md). The SELECT and its converters are built once per process; the UPDATE (`_store`) and
# the events' INSERT (`_events_insert`) are joined from their field lists. Same columns, same conversions (each
# field's own), same lock.
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


# On PostgreSQL the two statements of every command, the lock and the store, are prepared once per database
# connection and then run as `EXECUTE name(...)`: the server parses, analyses and plans them once, not for every
# command: 0.1 to 0.2 ms of the PostgreSQL backend's 1.1 ms of CPU a command (benchmarks/command_cost.py, and the
# server's own log_parser_stats and log_planner_stats; docs/performance.md, Stop 21). The values
# are still quoted into the text by Django's client-side cursor, as for every other statement: psycopg's
# server-side binding and its own prepared statements cost more Python than they saved the server (Stop 16).
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
    table.room = room
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


def _owned(state: dict) -> dict[str, int]:
    """What each seat owns at the table: its stack, the bank for the banker, a jackpot it seeded."""
    out = {x["id"]: x["stack"] for x in state["seats"]}
    if state.get("banker") in out:
        out[state["banker"]] += state["bank"]
    if state.get("jackpot") and state.get("jackpot_owner") in out:
        out[state["jackpot_owner"]] += state["jackpot"]
    return out


def _save(run: _Run) -> int:
    """Write what the command did: ledger, hand record, state, version; broadcast on commit."""
    table, room, meta = run.table, run.room, run.meta
    version = table.version + 1
    _bookkeeping(run, [e for _actor, e in run.events])
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
    table.state = after
    table.version = version
    table.meta = meta
    table.hand_id = latest
    table.deadline = _dt(run.state.deadline)
    table.wake_at = _dt(_wake_at(run))

    from games import broadcast

    users = dict(meta["users"])
    is_open, started, stalled = room.is_open, meta["started"], meta.get("start_refused")
    state = run.state  # the last step of the command: nothing changes it after this
    # On commit, in this order: this version's update goes out before a wake (run at once in eager mode) makes
    # the next one.
    transaction.on_commit(
        lambda: broadcast.table_update(room.pk, version, state, events, users, is_open, started, stalled))
    _arm(run, version)
    _store(table, rows)
    return version


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


def _arm(run: _Run, version: int) -> None:
    """Make sure a wake task will come at `table.wake_at` (sent on commit; the caller saves the row).

    One task pending per table: most commands move the deadline later (the next turn's timer), and a task
    per command meant a worker holding thousands of stale ETA tasks, a fifth of a core at 60 commands/s
    (docs/performance.md). A new task goes out only when the wake comes before the pending one, or when the
    pending one's time has passed (it is running, or it was lost with a worker). The pending task, when it
    finds nothing due yet, re-arms for the table's real wake time (`table_wake`, `pending=True`).
    Eager mode (tests) runs each wake at once, so nothing is ever pending there."""
    from games import tasks

    table, wake = run.table, run.table.wake_at
    if wake is None:
        return
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    if not eager:
        sent = table.wake_sent_at
        if sent is not None and _dt(run.now) < sent <= wake:
            return  # the pending task comes first and re-arms
        table.wake_sent_at = wake
    room_id = table.pk
    transaction.on_commit(lambda: tasks.schedule_wake(room_id, version, wake))


def _move_chips(run: _Run, after: dict, events: list[dict], version: int) -> None:
    """Keep every hold equal to what its seat owns in the engine (one ledger transaction per command)."""
    before = run.owned_before
    now_owned = _owned(after)
    left = {e["seat"]: e["chips_out"] for e in events if e["type"] == "seat_left"}
    movements: dict[int, int] = {}
    for seat_id in set(before) | set(now_owned) | set(left):
        expected = now_owned.get(seat_id, left.get(seat_id, 0))
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
    for seat_id in left:
        info = run.meta["seats"].pop(seat_id)
        run.left_seats[seat_id] = info
        run.meta["users"].pop(str(info["user"]), None)
        run.meta["away"].pop(seat_id, None)
        run.meta["streak"].pop(seat_id, None)
        hold = Account(pk=info["hold"], user_id=info["user"], currency=run.room.currency, kind=Account.Kind.HOLD)
        wallets.hold_release(hold=hold, idempotency_key=f"release:room{run.room.pk}:{seat_id}")
        gone.append(int(seat_id[1:]))
    if gone:
        Seat.objects.filter(pk__in=gone).update(left_at=timezone.now(), connected=False)


def _record_hand_end(run: _Run, hand_id: int | None, after: dict) -> None:
    if hand_id is None:
        return
    last = after.get("last_hand") or {}
    Hand.objects.filter(pk=hand_id).update(seed=last.get("seed", ""), ended_at=timezone.now(), summary=last)
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
    """Timeout streaks and away marks (issue: 3 hands in a row by timeouts -> away)."""
    meta, state = run.meta, run.state
    types = {e["type"] for e in events}
    if run.room.kind == Room.Kind.AI and "seat_left" in types and not state.seats:
        # The last human left a practice room and the bots went with them: nothing is left to play.
        Room.objects.filter(pk=run.room.pk).update(status=Room.Status.CLOSED, closed_at=timezone.now())
        run.room.status = Room.Status.CLOSED
        meta["started"] = False
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
            meta["away"][seat_id] = run.now
            run.apply("system", "set_seat", {"seat": seat_id, "away": True})
            Seat.objects.filter(pk=int(seat_id[1:])).update(away=True)


def _bots_due(run_state, meta: dict) -> tuple[str, str, dict] | None:
    """The first bot that has something to do now: (seat id, action, args)."""
    for seat_id, info in meta["seats"].items():
        if not info["bot"]:
            continue
        if run_state.seat(seat_id) is None:
            continue
        v = view(run_state, seat_id)
        if not v["legal_actions"]:
            continue
        decision = bot_decide(v, info["bot"], run_state.rules)
        if decision is not None:
            return seat_id, decision[0], decision[1]
    return None


def _can_start(run: _Run) -> bool:
    s = run.state
    humans = [x for x in s.main_seats() if not run.meta["seats"].get(x["id"], {}).get("bot")
              and not x.get("away") and not x["leaving"]]
    # A banker who put the whole stack in the bank has a stack of 0 and still plays (whole-stack banks).
    mains = [x for x in s.main_seats() if not x["leaving"] and not x.get("away")
             and (x["stack"] > 0 or x["id"] == s.banker and s.bank > 0)]
    return bool(humans) and len(mains) >= 2


def _next_hand_at(run: _Run) -> float | None:
    s, meta = run.state, run.meta
    if not meta["started"] or s.phase not in ("waiting", "between_hands") or s.pending is not None:
        return None
    if not _can_start(run) or meta.get("start_refused"):
        return None
    if meta["next_hand_at"] is not None:
        return meta["next_hand_at"]
    # Players get GAMES_NEXT_HAND_SECONDS to read a hand's results, even when a bank decision came first.
    return max(run.now + settings.GAMES_BOT_SECONDS, meta["hand_over_at"] + settings.GAMES_NEXT_HAND_SECONDS)


def _wake_at(run: _Run) -> float | None:
    times = []
    if _bots_due(run.state, run.meta) is not None:
        times.append(run.now + settings.GAMES_BOT_SECONDS)
    if run.state.deadline is not None:
        times.append(run.state.deadline)
    if run.meta["next_hand_at"] is not None:
        times.append(run.meta["next_hand_at"])
    for seat_id, since in run.meta["away"].items():
        # Only what _due would release: a seat already leaving after the hand keeps its past release time,
        # which would pull every later wake to "now, nothing due" and leave the hand's deadlines to the sweeper.
        seat = run.state.seat(seat_id)
        if seat is not None and not seat["leaving"]:
            times.append(since + AWAY_RELEASE_SECONDS)
    return min(times) if times else None


# --- commands ----------------------------------------------------------------------------------------


def storable_text(text: str) -> bool:
    """Whether a database column can keep this text: PostgreSQL refuses NUL in text and in jsonb, and
    a lone surrogate (what a JSON "\\ud800" escape decodes to) is not UTF-8. Refused here, such text
    would otherwise fail at the INSERT as a server error."""
    if "\x00" in text:
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _clean_args(args) -> dict:
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise GameError("bad_args", _("The arguments of a command are an object."))
    out = {}
    for name, value in args.items():
        kind = ARG_TYPES.get(name)
        if kind is None:
            raise GameError("bad_args", _("Unknown argument %(name)s.") % {"name": str(name)[:40]})
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**12):
            raise GameError("bad_amount", _("%(name)s must be a whole number.") % {"name": name})
        if kind is str and (not isinstance(value, str) or len(value) > 40):
            raise GameError("bad_args", _("%(name)s must be a short text.") % {"name": name})
        out[name] = value
    return out


def action_submit(*, room_id: int, user, action: str, args: dict | None = None, action_id: str = "") -> Result:
    """Apply one command from `user` to the room's table. The same (user, action_id) twice is
    applied once: the second call returns the first one's version with duplicate=True.
    Raises GameError with the engine's code and message when the command is refused.
    Locks: the table row, then the wallets the command moves (wallets/services.py)."""
    if not isinstance(action, str) or not (action in PLAYER_ACTIONS or action in ROOM_ACTIONS):
        raise GameError("unknown_action", _("There is no action called %(action)s.") % {"action": str(action)[:40]})
    if not isinstance(action_id, str) or len(action_id) > 64 or not storable_text(action_id):
        raise GameError("bad_action_id", _("An action id is a text of at most 64 characters."))
    args = _clean_args(args)
    try:
        with transaction.atomic():
            run = _locked(room_id)
            if not run.room.is_open:
                raise GameError("room_closed", _("This room is closed."))
            if action_id:
                for uid, aid, version in run.meta["actions"]:
                    if uid == user.pk and aid == action_id:
                        return Result(version=version, duplicate=True)
            if action in ROOM_ACTIONS:
                _room_action(run, user, action, args)
            else:
                seat_id = run.seat_of(user)
                if seat_id is None:
                    raise GameError("not_seated", _("Take a seat first."))
                _back_from_away(run, seat_id)
                run.apply(seat_id, action, args)
                if seat_id not in run.meta["acted"]:
                    run.meta["acted"].append(seat_id)
            if action_id:
                run.meta["actions"] = _remember(run.meta["actions"], user.pk, action_id, run.table.version + 1)
            return Result(version=_save(run))
    except EngineError as e:
        raise GameError(e.code, e.message) from None
    except wallets.WalletError as e:
        raise GameError(e.code, e.message) from None


def _remember(actions: list, user_id: int, action_id: str, version: int) -> list:
    """The recent action ids with this one added: the user's oldest goes beyond ACTIONS_PER_USER."""
    mine = [i for i, (uid, _aid, _v) in enumerate(actions) if uid == user_id]
    drop = set(mine[:len(mine) - (ACTIONS_PER_USER - 1)]) if len(mine) >= ACTIONS_PER_USER else set()
    kept = [a for i, a in enumerate(actions) if i not in drop]
    return [*kept[-(RECENT_ACTIONS - 1):], [user_id, action_id, version]]


def _back_from_away(run: _Run, seat_id: str) -> None:
    if seat_id in run.meta["away"]:
        del run.meta["away"][seat_id]
        run.meta["streak"][seat_id] = 0
        run.apply("system", "set_seat", {"seat": seat_id, "away": False})
        Seat.objects.filter(pk=int(seat_id[1:])).update(away=False)


def _room_action(run: _Run, user, action: str, args: dict) -> None:
    if action == "sit":
        _sit(run, user, role=args.get("role", "main"), buy_in=args.get("buy_in"), position=args.get("position"))
        return
    seat_id = run.seat_of(user)
    if action in ("leave", "top_up", "im_back"):
        if seat_id is None:
            raise GameError("not_seated", _("You are not seated at this table."))
        if action == "leave":
            _leave(run, seat_id)
        elif action == "top_up":
            _top_up(run, seat_id, args.get("amount"))
        else:
            if seat_id not in run.meta["away"]:
                raise GameError("not_away", _("You are not away."))
            _back_from_away(run, seat_id)
        return
    if user.pk != run.room.host_id:
        raise GameError("not_host", _("Only the host can do that."))
    if action == "start":
        _start(run)
    elif action == "kick":
        target = args.get("seat")
        info = run.meta["seats"].get(target) if isinstance(target, str) else None
        if info is None:
            raise GameError("not_seated", _("Nobody sits there."))
        if info["user"] == user.pk:
            raise GameError("kick_self", _("Leave instead of kicking yourself."))
        if run.room.kind == Room.Kind.AI and info["bot"]:
            raise GameError("kick_bot", _("Bots keep their seats in a practice room."))
        run.meta["kicked"].append(info["user"])
        seat = run.state.seat(target)
        if not seat["leaving"]:
            _leave(run, target)
    elif action == "close":
        _close(run)


def _sit(run: _Run, user, *, role: str, buy_in, position=None, bot: str = "") -> str:
    room, state, meta = run.room, run.state, run.meta
    if run.seat_of(user) is not None:
        raise GameError("already_seated", _("You are already seated at this table."))
    if user.pk in meta["kicked"]:
        raise GameError("kicked", _("The host removed you from this room."))
    if getattr(user, "is_banned", False):
        raise GameError("banned", _("Your account is banned."))
    if room.club_id is not None and not bot and not _is_club_member(room.club_id, user.pk):
        raise GameError("club_members_only", _("This room is for the members of its club."))
    if role not in Seat.Role.values:
        raise GameError("bad_role", _("A seat is a main seat or a side-bettor seat."))
    if room.kind == Room.Kind.AI and role == Seat.Role.SIDE:
        raise GameError("side_bets_disabled", _("Practice rooms have no side bettors."))
    if isinstance(buy_in, bool) or not isinstance(buy_in, int) or not room.buy_in_min <= buy_in <= room.buy_in_max:
        raise GameError("bad_buy_in", _("The buy-in is between %(low)s and %(high)s.")
                        % {"low": room.buy_in_min, "high": room.buy_in_max})
    r = state.rules
    limit = r.max_main_seats if role == "main" else r.max_side_bettors
    taken = {x["position"] for x in state.seats if x["role"] == role}
    if position is None:
        free = [p for p in range(limit) if p not in taken]
        if not free:
            raise GameError("table_full", _("Every seat is taken."))
        position = free[0]
    elif not 0 <= position < limit:
        raise GameError("bad_position", _("There is no such seat."))
    seat = Seat.objects.create(room=room, user=user, role=role, position=position, bot=bot, buy_in=buy_in)
    seat_id = seat.engine_id
    if bot:
        wallets.bot_float_grant(user=user, currency=room.currency, amount=buy_in,
                                idempotency_key=f"bot-float:{seat.seat_ref}")
    hold = wallets.hold_create(user=user, currency=room.currency, amount=buy_in, seat_ref=seat.seat_ref,
                               idempotency_key=f"sit:{seat.seat_ref}")
    Seat.objects.filter(pk=seat.pk).update(hold=hold)
    meta["users"][str(user.pk)] = seat_id
    meta["seats"][seat_id] = {"user": user.pk, "hold": hold.pk, "bot": bot or None, "role": role}
    run.chips_in[seat_id] = buy_in
    run.apply(seat_id, "sit", {"name": user.public_name, "stack": buy_in, "role": role, "position": position,
                               "bot": bot or None, "host": user.pk == room.host_id})
    if room.kind == Room.Kind.AI and not bot:
        _fill_with_bots(run)
    return seat_id


def _fill_with_bots(run: _Run) -> None:
    """AI rooms: bots take every empty main seat (rules: "the empty main seats are filled by bots")."""
    room, state = run.room, run.state
    seated_users = {info["user"] for info in run.meta["seats"].values()}
    free = state.rules.max_main_seats - len(state.main_seats())
    if free <= 0:
        return
    User = get_user_model()
    for name in BOT_NAMES:
        if free <= 0:
            break
        bot_user, _created = User.objects.get_or_create(
            username=f"bot-{name.lower()}",
            defaults={"is_bot": True, "is_active": False, "display_name": f"{name} (bot)", "password": "!"},
        )
        if bot_user.pk in seated_users or not bot_user.is_bot:
            continue
        _sit(run, bot_user, role="main", buy_in=room.buy_in_max, bot=room.bot_level)
        free -= 1


def _leave(run: _Run, seat_id: str) -> None:
    """Leave now, or after the current hand (defaults meanwhile; Zhejiang: the escape penalty)."""
    info = run.meta["seats"][seat_id]
    run.apply(seat_id, "leave")
    room = run.room
    if info["user"] == room.host_id and not info["bot"]:
        _pass_host(run, seat_id)
    if room.kind == Room.Kind.AI and not info["bot"]:
        humans = [s for s, i in run.meta["seats"].items() if not i["bot"] and s != seat_id
                  and run.state.seat(s) is not None and not run.state.seat(s)["leaving"]]
        if not humans:
            # The last human left a practice room: the bots go too, after the hand (docs/rules.md).
            for s, i in list(run.meta["seats"].items()):
                if i["bot"] and run.state.seat(s) is not None and not run.state.seat(s)["leaving"]:
                    run.apply(s, "leave")


def _pass_host(run: _Run, leaving: str) -> None:
    """The host role passes to the longest-seated human still at the table."""
    candidates = [
        (s["seq"], s["id"]) for s in run.state.seats
        if s["id"] != leaving and not s["leaving"] and not run.meta["seats"][s["id"]]["bot"]
    ]
    if not candidates:
        return
    _seq, new = min(candidates)
    new_user = run.meta["seats"][new]["user"]
    Room.objects.filter(pk=run.room.pk).update(host_id=new_user)
    run.room.host_id = new_user
    if run.state.seat(leaving) is not None:
        run.apply("system", "set_seat", {"seat": leaving, "host": False})
    run.apply("system", "set_seat", {"seat": new, "host": True})


def _top_up(run: _Run, seat_id: str, amount) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise GameError("bad_amount", _("A top-up is a whole number above zero."))
    info = run.meta["seats"][seat_id]
    owned = run.owned_before.get(seat_id, 0)
    if owned + amount > run.room.buy_in_max:
        raise GameError("bad_amount", _("Your chips at this table can be at most %(high)s.")
                        % {"high": run.room.buy_in_max})
    run.apply(seat_id, "top_up", {"amount": amount})  # refused in a hand: before any chip moves
    hold = Account(pk=info["hold"], user_id=info["user"], currency=run.room.currency, kind=Account.Kind.HOLD)
    wallets.hold_top_up(hold=hold, amount=amount, idempotency_key=f"topup:room{run.room.pk}:v{run.table.version + 1}")
    run.chips_in[seat_id] = run.chips_in.get(seat_id, 0) + amount


def _start(run: _Run) -> None:
    """The host starts play; from then on hands follow one another by themselves."""
    run.meta["started"] = True
    if run.state.phase in IN_HAND or run.state.pending is not None:
        raise GameError("wrong_phase", _("A hand is already under way."))
    _start_hand(run)


def _start_hand(run: _Run) -> None:
    run.meta["next_hand_at"] = None
    if run.room.kind == Room.Kind.AI:
        _refresh_bots(run)
    run.apply("system", "start_hand", {"seed_hex": secrets.token_hex(32)})


def _refresh_bots(run: _Run) -> None:
    """A bot that can no longer cover a stake gives its seat to a fresh bot."""
    floor = max(run.state.rules.stake_min * 3, 1)
    broke = [s for s, i in run.meta["seats"].items() if i["bot"] and run.state.seat(s) is not None
             and run.state.seat(s)["stack"] < floor and run.state.banker != s]
    for seat_id in broke:
        run.apply(seat_id, "leave")
    if broke:
        _fill_with_bots(run)


def _close(run: _Run) -> None:
    """Close the room: the current hand is settled by default actions, every stack goes home."""
    for _step in range(1000):
        if run.state.phase in IN_HAND or run.state.phase == "bank_decision":
            run.apply("system", "timeout")
        else:
            break
    for seat in list(run.state.seats):
        if run.state.seat(seat["id"]) is not None:
            run.apply(seat["id"], "leave")
    if run.state.seats:
        raise RuntimeError(f"room {run.room.pk} could not be emptied")
    run.meta["started"] = False
    Room.objects.filter(pk=run.room.pk).update(status=Room.Status.CLOSED, closed_at=timezone.now())
    run.room.status = Room.Status.CLOSED


def room_close(*, room_id: int, by) -> None:
    """Close a room (the host, or a moderator): settles and releases everything."""
    with transaction.atomic():
        run = _locked(room_id)
        if not run.room.is_open:
            return
        if by.pk != run.room.host_id and not by.has_perm("games.moderate_room") and not (
                run.room.club_id is not None and _is_club_admin(run.room.club_id, by.pk)):
            raise GameError("not_host", _("Only the host can close the room."))
        _close(run)
        _save(run)


def seat_remove(*, room_id: int, user_id: int, kicked: bool = True) -> bool:
    """Take a user's seat away (a ban, a moderator's kick): they leave now, or after the current hand
    by default actions. A kicked user cannot sit in this room again. False when not seated."""
    with transaction.atomic():
        run = _locked(room_id)
        seat_id = run.meta["users"].get(str(user_id))
        if kicked and user_id not in run.meta["kicked"]:
            run.meta["kicked"].append(user_id)
        if seat_id is None or not run.room.is_open:
            return False
        if not run.state.seat(seat_id)["leaving"]:
            _leave(run, seat_id)
        _save(run)
        return True


def room_rules_update(*, room_id: int, overrides: dict, by=None):
    """Change a room's rules (the host, or a moderator through the admin): validated by the engine as a
    whole, recorded as a `rules_changed` event, and applied from the next hand, never the current one."""
    try:
        rules = rules_from(Room.objects.values_list("preset", flat=True).get(pk=room_id), overrides)
    except RulesError as e:
        raise GameError(e.code, e.message) from None
    except Room.DoesNotExist:
        raise GameError("no_room", _("There is no such room.")) from None
    with transaction.atomic():
        run = _locked(room_id)
        if not run.room.is_open:
            raise GameError("room_closed", _("This room is closed."))
        run.apply("system", "set_rules", {"rules": rules.to_json()})
        Room.objects.filter(pk=room_id).update(overrides=overrides, rules=rules.to_json())
        _save(run)
    return rules


def seat_take(*, room_id: int, user, role: str = "main", buy_in: int, position: int | None = None) -> Result:
    """Sit down with a buy-in: a wallet hold in bean rooms, points in point rooms."""
    args = {"role": role, "buy_in": buy_in}
    if position is not None:
        args["position"] = position
    return action_submit(room_id=room_id, user=user, action="sit", args=args)


def seat_leave(*, room_id: int, user) -> Result:
    return action_submit(room_id=room_id, user=user, action="leave")


# --- what the clock and the bots do (games/tasks.py calls this) -----------------------------------------


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


def _due(run: _Run) -> str:
    s, meta, now = run.state, run.meta, run.now
    bot = _bots_due(s, meta)
    if bot is not None:
        seat_id, action, args = bot
        try:
            run.apply(seat_id, action, args)
            return f"bot:{action}"
        except EngineError as e:
            # A bot decides from its own view, so this is a bug; the deadline still moves the table on.
            logger.error("bot %s at room %s refused: %s %s -> %s", seat_id, run.room.pk, action, args, e.code)
    if s.deadline is not None and now >= s.deadline:
        for seat_id in s.deadline_for:
            info = meta["seats"].get(seat_id)
            if info and not info["bot"] and seat_id not in meta["timed"]:
                meta["timed"].append(seat_id)
        run.apply("system", "timeout")
        return "timeout"
    if meta["next_hand_at"] is not None and now >= meta["next_hand_at"]:
        if s.phase in ("waiting", "between_hands") and s.pending is None and _can_start(run):
            try:
                _start_hand(run)
            except EngineError as e:
                # The engine's own reason (no challenger who can cover a stake, an empty bank): no new time
                # until something happens at the table (`_next_hand_at`), or the wake would come back for ever.
                meta["next_hand_at"] = None
                meta["start_refused"] = e.code
                return "no_hand"
            return "hand"
        meta["next_hand_at"] = None
        return "no_hand"
    for seat_id, since in list(meta["away"].items()):
        if now >= since + AWAY_RELEASE_SECONDS and s.seat(seat_id) is not None and not s.seat(seat_id)["leaving"]:
            _leave(run, seat_id)
            return "released"
    return "nothing"


def sweep(*, grace_seconds: float = 2.0) -> list[tuple[int, str]]:
    """Apply everything overdue (a lost or late task, a worker that died holding one). Run by beat."""
    cutoff = timezone.now() - timezone.timedelta(seconds=grace_seconds)
    due = list(Table.objects.filter(wake_at__lt=cutoff, room__status=Room.Status.OPEN)
               .order_by("wake_at").values_list("pk", "version")[:500])
    return [(room_id, table_wake(room_id=room_id, version=version)) for room_id, version in due]


# --- chat and presence ----------------------------------------------------------------------------------


def chat_post(*, room_id: int, user, text) -> ChatMessage:
    """Post to the room's chat. Muted and banned users are refused: read from the database on every
    message, so a mute reaches sockets that were open before it."""
    fresh = get_user_model().objects.only("muted_until", "banned_until").get(pk=user.pk)
    if fresh.is_banned:
        raise GameError("banned", _("Your account is banned."))
    if fresh.is_muted:
        raise GameError("muted", _("You are muted and cannot chat."))
    if not isinstance(text, str) or not text.strip():
        raise GameError("bad_chat", _("Write something first."))
    if not storable_text(text):
        raise GameError("bad_chat", _("This message holds characters that cannot be sent."))
    text = text.strip()
    if len(text) > CHAT_MAX:
        raise GameError("bad_chat", _("A message is at most %(n)s characters.") % {"n": CHAT_MAX})
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is None:
        raise GameError("room_closed", _("This room is closed."))
    if room.club_id is not None:
        member = ClubMember.objects.filter(club_id=room.club_id, user_id=user.pk).first()
        if member is None:
            raise GameError("club_members_only", _("This room is for the members of its club."))
        if member.muted_until is not None and member.muted_until > timezone.now():
            raise GameError("muted", _("A club admin muted you in this club's chat."))
    message = ChatMessage.objects.create(room=room, user=user, text=text)
    from games import broadcast

    transaction.on_commit(lambda: broadcast.chat(room_id, message))
    return message


def presence_set(*, room_id: int, user, connected: bool) -> str | None:
    """Mark the user's seat connected or not; returns the seat id, if any. A refresh keeps the seat."""
    seat = Seat.objects.filter(room_id=room_id, user=user, left_at__isnull=True).only("pk").first()
    if seat is None:
        return None
    Seat.objects.filter(pk=seat.pk).update(connected=connected)
    return seat.engine_id
