"""Fuzzing: Hypothesis sends malformed and hostile input to the live table, well over 10,000 messages.

- services.action_submit, the one door every socket action goes through, gets the bulk: wrong types, huge
  and negative numbers, unknown and engine-only commands, other players' seat ids, action ids of every
  type, text the database cannot store, from the host, the banker, challengers, a side bettor, a spectator
  and a kicked player, at tables of all four games in several phases. It raises GameError or applies a
  legal command; a refusal changes nothing (table, seats, ledger), an accepted command keeps every hold
  equal to its seat. Each example runs in a transaction rolled back afterwards, so every one meets the
  same table.
- The socket (/ws/rooms/<code>/) gets frames: non-JSON text, binary, JSON that is no object, deep nesting,
  unknown types, missing fields, hostile actions, chat and reports, floods, oversized frames. It answers
  each with one frame (an error, or the pong/snapshot/chat it asked for) or closes with 4409 for size; it
  never logs an unexpected error and never acknowledges a refused command; a `ping` still works
  afterwards; the table and the ledger are unchanged.

The examples are counted, printed at the end of the module, and asserted to reach 10,000 when the whole
module ran.
"""

import asyncio
import json
import logging
import time
from collections import Counter

import pytest
from channels.db import database_sync_to_async
from django.db import transaction
from django.db.models import Max
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import consumers, services
from games.consumers import CLOSE_TOO_BIG, MAX_FRAME
from games.engine import state_from_json, view
from games.models import ChatMessage, HandEvent, Seat, Table
from tests.games.conftest import assert_holds_match_table, expire, make_player, seat_of, state
from tests.games.sockets import PASSED_OVER, Closed, Tab, hang_up, sensible_move, session_cookie
from wallets.models import Account, Entry
from wallets.models import Transaction as LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async

SERVICE_EXAMPLES = 1100  # per table scenario (8 scenarios)
SOCKET_EXAMPLES = 250  # connections, each sending a batch of 5 to 30 frames
TARGET = 10_000
COUNTS: Counter = Counter()  # messages tried, by test
RAN: set = set()

# --- what the hostile client sends ------------------------------------------------------------------------

ACTIONS = sorted(services.PLAYER_ACTIONS | services.ROOM_ACTIONS)
ENGINE_ONLY = ["start_hand", "timeout", "set_seat", "set_rules", "top_up ", "HIT", "sit_out", "deal", "settle",
               "win", "__init__", "__class__", "apply", "system", ""]
NASTY_TEXT = ["", " ", "\x00", "a\x00b", "\ud800", "x\udfff", "\u202e\u202d", "\ufeff", "💥" * 20, "s1", "s-1",
              "s0", "s999999999999", "S1", "system", "banker", "<script>alert(1)</script>", "' OR 1=1 --",
              "null", "NaN", "Infinity", "🂡", "x" * 41, "x" * 64, "x" * 65, "x" * 500, "x" * 501, "\n\t\r"]
HUGE = [0, -1, -10, 1, 7, 10**12, 10**12 + 1, -(10**12), -(10**12) - 1, 2**31, 2**31 - 1, -(2**31), 2**63,
        2**63 - 1, -(2**63), 2**64, 10**30, -(10**30)]

text = st.one_of(st.text(max_size=60), st.sampled_from(NASTY_TEXT))
ints = st.one_of(st.integers(-1000, 1000), st.integers(), st.sampled_from(HUGE))
floats = st.floats(allow_nan=True, allow_infinity=True)
scalars = st.one_of(st.none(), st.booleans(), ints, floats, text)
json_values = st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)),
    max_leaves=8)
# Action ids of every JSON type; the strings include the longest allowed, one too long, NUL and surrogates.
action_ids = st.one_of(st.just(""), st.text(max_size=70), st.sampled_from(NASTY_TEXT + ["seen-1"]), json_values)
arg_names = st.one_of(st.sampled_from(sorted(services.ARG_TYPES)), text)


def seat_refs(seat_ids: list[str]):
    """Seat ids: everyone's at the table (other players' included), ones that left, and made-up ones."""
    return st.one_of(st.sampled_from(seat_ids), st.sampled_from(["s0", "s-1", "s99999999", "S1", "1", ""]), text)


def amounts():
    return st.one_of(ints, floats, st.booleans(), st.none(), text, st.lists(ints, max_size=2),
                     st.dictionaries(text, ints, max_size=2))


def args_for(seat_ids: list[str]):
    seat = st.one_of(seat_refs(seat_ids), json_values)
    typed = st.fixed_dictionaries({}, optional={
        "amount": amounts(), "buy_in": amounts(), "position": amounts(), "seat": seat, "backs": seat,
        "role": st.one_of(st.sampled_from(["main", "side", "banker", "bot", "MAIN", "spectator"]), json_values),
    })
    return st.one_of(st.none(), typed, typed, typed, st.dictionaries(arg_names, json_values, max_size=4), json_values)


def commands(seat_ids: list[str]):
    """(action, args, action_id) as action_submit receives them from the socket, and worse."""
    action = st.one_of(st.sampled_from(ACTIONS), st.sampled_from(ACTIONS), st.sampled_from(ACTIONS),
                       st.sampled_from(ENGINE_ONLY), text, json_values)
    return st.tuples(action, args_for(seat_ids), action_ids)


# --- tables in several phases -------------------------------------------------------------------------------

SCENARIOS = {
    # name: (preset, overrides, phase to reach, side bettor)
    "ten-half betting": ("ten-half", {}, "betting", True),
    "ten-half playing": ("ten-half", {}, "playing", True),
    "seven-half house rules playing": ("seven-half", {"house_rules": True, "jackpot_enabled": True}, "playing", False),
    "zhejiang playing": ("zhejiang-ten-half", {}, "playing", False),
    "ban-luck betting": ("ban-luck", {}, "betting", False),
    # The presets with house rules (house-rules.md): the bank bid for, the matta, the banker's opens and free hands.
    "ten-half-auction auction": ("ten-half-auction", {}, "auction", False),
    "seven-half-matta playing": ("seven-half-matta", {}, "playing", False),
    "ban-luck-opens playing": ("ban-luck-opens", {}, "playing", False),
}


def play_until(room, people, phases):
    """Sensible moves (tests/games/sockets.py) until the table is in one of `phases`."""
    for _ in range(100):
        t = Table.objects.get(pk=room.pk)
        if t.state["phase"] in phases:
            return
        s = state_from_json(t.state)
        for seat, info in sorted(t.meta["seats"].items()):
            v = view(s, seat)
            move = sensible_move(v) or (("no_bet", {}) if "no_bet" in v["legal_actions"] else None)
            if move is not None:
                services.action_submit(room_id=room.pk, user=people[info["user"]], action=move[0], args=move[1])
                break
        else:
            raise AssertionError(f"stuck before {phases}: {t.state['phase']}")
    raise AssertionError(f"never reached {phases}")


def fuzz_table(cast, scenario):
    """alice hosts; mallory sat and was kicked; the cast seated (bob with the action id "seen-1"), erin a side
    bettor where there are side bets, fred watching; the table in the scenario's phase."""
    preset, overrides, phase, side = SCENARIOS[scenario]
    people = {**cast, **{name: make_player(name) for name in ("erin", "mallory", "fred")}}
    by_pk = {u.pk: u for u in people.values()}
    room = services.room_create(host=cast["alice"], preset=preset, overrides=overrides)
    services.seat_take(room_id=room.pk, user=people["mallory"], buy_in=room.buy_in_min)
    gone = seat_of(room, people["mallory"])
    services.action_submit(room_id=room.pk, user=people["alice"], action="kick", args={"seat": gone})
    for name in ("alice", "bob", "chen", "dara"):
        services.action_submit(room_id=room.pk, user=people[name], action="sit", args={"buy_in": room.buy_in_max},
                               action_id="seen-1" if name == "bob" else "")
    if side:
        services.seat_take(room_id=room.pk, user=people["erin"], buy_in=room.buy_in_max, role="side")
    services.action_submit(room_id=room.pk, user=people["alice"], action="start")
    play_until(room, by_pk, {phase})
    t = Table.objects.get(pk=room.pk)
    return room, people, [*t.meta["seats"], gone]


class Scene:
    """What the examples of one test share, with a short repr for Hypothesis's report of a failing example."""

    def __init__(self, name: str, **parts):
        self.name = name
        self.__dict__.update(parts)

    def __repr__(self) -> str:
        return f"<{self.name}>"


def fingerprint(room_id: int):
    """Everything a refused command must leave as it was: the table, its room and seats, the whole ledger."""
    return (
        Table.objects.filter(pk=room_id).values_list(
            "version", "state", "meta", "deadline", "wake_at", "hand_id", "room__status", "room__host_id").get(),
        list(Seat.objects.filter(room_id=room_id).order_by("pk").values_list("pk", "left_at", "away", "hold_id")),
        list(Account.objects.order_by("pk").values_list("pk", "balance", "closed_at")),
        Entry.objects.aggregate(n=Max("pk"))["n"], LedgerTransaction.objects.aggregate(n=Max("pk"))["n"],
        HandEvent.objects.aggregate(n=Max("pk"))["n"],
    )


@pytest.fixture(params=list(SCENARIOS))
def fuzzed(request, cast):
    room, people, seat_ids = fuzz_table(cast, request.param)
    users = st.sampled_from(sorted(people.values(), key=lambda u: u.pk))
    # Every example starts from this fingerprint: each one is rolled back.
    return Scene(request.param, room=room, strategy=st.tuples(users, commands(seat_ids)), before=fingerprint(room.pk))


@given(data=st.data())
@settings(max_examples=SERVICE_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
def test_action_submit_refuses_hostile_commands_with_a_game_error_and_changes_nothing(fuzzed, data):
    room, before = fuzzed.room, fuzzed.before
    user, (action, args, action_id) = data.draw(fuzzed.strategy, label="user, command")
    COUNTS["action_submit"] += 1
    RAN.add("action_submit")
    with transaction.atomic():
        try:
            result = services.action_submit(room_id=room.pk, user=user, action=action, args=args,
                                            action_id=action_id)
        except services.GameError as e:
            assert isinstance(e.code, str) and e.code and isinstance(e.message, str) and e.message
            assert fingerprint(room.pk) == before, e.code
            COUNTS["refused"] += 1
        else:
            after = Table.objects.get(pk=room.pk)
            if result.duplicate:
                assert action_id == "seen-1" and fingerprint(room.pk) == before
            else:
                assert after.version == result.version == before[0][0] + 1
                assert_holds_match_table(room)
            COUNTS["applied"] += 1
        transaction.set_rollback(True)  # the next example meets the same table


# --- regressions: bugs the fuzzing and the soak found ---------------------------------------------------


@pytest.mark.parametrize("field, value", [
    ("action_id", "a\x00b"), ("action_id", "a\ud800b"), ("chat", "hello\x00"), ("chat", "hi \udfff"),
    ("report", "spam\x00"), ("report", "\ud83d"),
])
def test_text_the_database_cannot_store_is_refused_not_a_server_error(cast, field, value):
    """PostgreSQL refuses NUL in text and jsonb, and a lone surrogate (from a JSON "\\ud800" escape) is not
    UTF-8: each was a DataError or UnicodeEncodeError, logged as an unexpected error by the socket."""
    from games import moderation

    room = services.room_create(host=cast["alice"], preset="ten-half")
    with pytest.raises(services.GameError) as e:
        if field == "action_id":
            services.action_submit(room_id=room.pk, user=cast["bob"], action="sit", args={"buy_in": 500},
                                   action_id=value)
        elif field == "chat":
            services.chat_post(room_id=room.pk, user=cast["bob"], text=value)
        else:
            moderation.report_create(reporter=cast["bob"], room_id=room.pk, reason=value,
                                     target_user_id=cast["chen"].pk)
    assert e.value.code in ("bad_action_id", "bad_chat", "bad_reason")
    assert not Seat.objects.exists() and not ChatMessage.objects.exists()


async def test_deeply_nested_json_is_a_bad_json_error_not_a_dead_socket(cast, caplog, fresh_layer):
    """Nesting 8,000 deep fits in 16 KiB and raised RecursionError out of json.loads, past the consumer's
    handler: the connection died with an exception."""
    room = await db(services.room_create)(host=cast["alice"], preset="ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        for frame in ("[" * 8000 + "]" * 8000, '{"a":' * 2500 + "1" + "}" * 2500):
            await tab.send(frame)
            assert (await tab.reply("error"))["code"] == "bad_json"
        await tab.send({"type": "ping"})
        assert (await tab.reply("pong"))["type"] == "pong"
    finally:
        await hang_up(tab)
    assert not problems(caplog.records)


def test_two_players_keep_playing_when_the_banker_put_the_whole_stack_in_the_bank(cast, clock):
    """Found by the soak: Seven and a Half (and every whole-stack game) with a banker and one challenger dealt
    one hand, then never another: the banker's stack is 0 (it is all in the bank), so "two players who can
    play" counted one."""
    room = services.room_create(host=cast["alice"], preset="seven-half")
    for name in ("alice", "bob"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    services.action_submit(room_id=room.pk, user=cast["alice"], action="start")
    s = state(room)
    assert s["bank"] == 500 and s["seats"][[x["id"] for x in s["seats"]].index(s["banker"])]["stack"] == 0
    while state(room)["hand_no"] == 1 and state(room)["phase"] != "between_hands":
        expire(room, clock)  # the default stake, then stands
    s = state(room)
    assert (s["hand_no"], s["phase"]) == (2, "betting"), (s["phase"], s["bank"], s["pending"])


# --- the socket ---------------------------------------------------------------------------------------------


def deep(n: int, kind: str) -> str:
    return "[" * n + "]" * n if kind == "list" else '{"a":' * n + "0" + "}" * n


def frames_for(seat_ids: list[str], live: list[str]):
    """Frames a hostile client sends. Everything is refused for the sender, by construction: `live` are the
    actions the sender could make with sensible arguments, and those only come with poisoned arguments or a
    bad action id. Returns (kind, payload): kind "text" or "bytes"."""
    refused = [a for a in ACTIONS if a not in live]
    poisoned_args = st.one_of(
        st.dictionaries(text.filter(lambda k: k not in services.ARG_TYPES), json_values, min_size=1, max_size=2),
        st.fixed_dictionaries({"amount": st.one_of(
            floats, text, st.booleans(), st.none(), st.lists(ints, max_size=2), st.integers(min_value=10**12 + 1),
            st.integers(max_value=-(10**12) - 1))}),
        st.fixed_dictionaries({"seat": st.one_of(ints, st.lists(text, max_size=2), st.text(min_size=41, max_size=60))}),
        st.one_of(st.lists(json_values, max_size=3), ints, st.text(min_size=1, max_size=20), st.booleans(), floats),
    )
    bad_ids = st.one_of(ints, floats, st.booleans(), st.lists(ints, max_size=2),
                        st.dictionaries(text, ints, max_size=2), st.text(min_size=65, max_size=80),
                        st.sampled_from(["\x00", "id\x00", "\ud800", "x" * 65]))
    extra = st.dictionaries(st.sampled_from(["seat", "actor", "user", "version", "as", "room", "id"]),
                            st.one_of(seat_refs(seat_ids), json_values), max_size=2)

    def action_frame(action, args, action_id, more):
        frame = {**more, "type": "action"}
        if action is not ...:
            frame["action"] = action
        if args is not ...:
            frame["args"] = args
        if action_id is not ...:
            frame["action_id"] = action_id
        return frame

    missing = st.just(...)
    kinds = [
        st.builds(action_frame, st.sampled_from(refused), st.one_of(args_for(seat_ids), missing),
                  st.one_of(action_ids, missing), extra),
        st.builds(action_frame, st.one_of(st.sampled_from(ENGINE_ONLY), text.filter(lambda a: a not in ACTIONS),
                                          json_values.filter(lambda a: not isinstance(a, str)), missing),
                  st.one_of(args_for(seat_ids), missing), st.one_of(action_ids, missing), extra),
    ]
    if live:
        kinds += [
            st.builds(action_frame, st.sampled_from(live), poisoned_args, st.one_of(action_ids, missing), extra),
            st.builds(action_frame, st.sampled_from(live), st.one_of(args_for(seat_ids), missing), bad_ids, extra),
        ]
    actions = st.one_of(*kinds)
    others = st.one_of(
        st.builds(lambda t, more: {**more, "type": t}, st.one_of(
            st.sampled_from(["ping", "snapshot", "dance", "", "ACTION", "action ", "Ping", "table.update",
                             "chat.message", "user.banned", "websocket.disconnect"]), json_values),
                  st.dictionaries(text, json_values, max_size=3)),
        st.dictionaries(text.filter(lambda k: k != "type"), json_values, max_size=4),  # no type at all
        st.builds(lambda t: {"type": "chat", "text": t}, st.one_of(text, json_values)),
        st.builds(lambda r, u, m: {"type": "report", "reason": r, "user": u, "message": m},
                  st.one_of(text, json_values), st.one_of(ints, json_values), st.one_of(ints, json_values)),
    )
    as_json = st.builds(lambda f: ("text", json.dumps(f)), st.one_of(actions, actions, others))
    raw = st.one_of(
        st.builds(lambda t: ("text", t), st.text(min_size=1, max_size=200)),  # mostly not JSON
        st.builds(lambda v: ("text", json.dumps(v)), json_values.filter(lambda v: not isinstance(v, dict))),
        st.builds(lambda f: ("text", f[: len(f) // 2]), as_json.map(lambda x: x[1])),  # cut short
        st.builds(lambda n, k: ("text", deep(n, k)), st.integers(1, 5000), st.sampled_from(["list", "dict"])),
        st.builds(lambda b: ("bytes", b), st.binary(min_size=1, max_size=200)),  # (an empty frame cannot be sent)
        st.builds(lambda f: ("bytes", f.encode()), as_json.map(lambda x: x[1])),  # JSON, but binary
        st.builds(lambda f: ("text", f.replace('"', "'")), as_json.map(lambda x: x[1])),
    )
    return st.one_of(as_json, as_json, raw)


REPLIES = {"error", "pong", "snapshot", "chat", "reported"}


def problems(records) -> list:
    """What the server logged about itself: the consumer's "unexpected error", any warning of ours."""
    return [r for r in records if r.levelno >= logging.WARNING and r.name.startswith(("games", "wallets", "django"))]


async def send_batch(tab: Tab, batch: list[tuple[str, object]]) -> list[dict]:
    """Send the frames and a final ping; return the sender's replies (one per frame, presence left out)."""
    for kind, payload in batch:
        if kind == "bytes":
            await tab.comm.send_to(bytes_data=payload)
        else:
            await tab.send(payload)
    await tab.send({"type": "ping"})
    replies = []
    while len(replies) < len(batch) + 1:
        frame = await tab.next()
        if frame["type"] != "presence":
            replies.append(frame)
    return replies


@pytest.fixture
def socket_table(cast, monkeypatch, settings):
    """Ten and a Half in its first betting; the frames are checked one by one, not rate limited."""
    settings.GAMES_RESYNC_SECONDS = 3600
    monkeypatch.setattr(consumers, "RATE_LIMIT", 10**6)
    room, people, seat_ids = fuzz_table(cast, "ten-half betting")
    senders = {name: (people[name], session_cookie(people[name]), st.lists(frames_for(seat_ids, live), min_size=5,
                                                                           max_size=30))
               for name, live in LIVE.items()}
    return Scene("ten-half betting", room=room, senders=senders)


def table_and_ledger(room_id: int):
    """The table and the ledger, without the presence of the sockets themselves: a socket that opens and closes
    is recorded in the table's meta (`sockets`, `absent`: games/services/presence.py), whatever it sent."""
    t = Table.objects.get(pk=room_id)
    meta = {k: v for k, v in t.meta.items() if k not in ("sockets", "absent")}
    return (t.version, t.state, meta, list(Account.objects.order_by("pk").values_list("pk", "balance")),
            Entry.objects.count())


# What the sender could do with sensible arguments in the first betting (everything else is refused):
# bob is a challenger who has not bet; mallory was kicked and sits nowhere; alice hosts and banks.
LIVE = {"bob": ["chip", "reset", "confirm", "bet", "leave"], "mallory": [],
        "alice": ["leave", "retire", "kick", "close", "start", "top_up", "open_bank", "refill", "seed_jackpot"]}


@given(data=st.data())
@settings(max_examples=SOCKET_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
async def test_the_socket_answers_hostile_frames_with_errors_and_the_table_does_not_move(
        socket_table, caplog, fresh_layer, data):
    room = socket_table.room
    name = data.draw(st.sampled_from(["bob", "bob", "mallory", "alice"]), label="sender")
    user, cookie, frames = socket_table.senders[name]
    batch = data.draw(frames, label="frames")
    before = await db(table_and_ledger)(room.pk)
    logged = len(caplog.records)
    tab = Tab(user, room.code, cookie=cookie)
    try:
        await tab.open()
        big = [i for i, (_k, p) in enumerate(batch) if len(p.encode() if isinstance(p, str) else p) > MAX_FRAME]
        if big:  # a nested frame can come out over the limit: the socket closes there
            batch = batch[: big[0] + 1]
            with pytest.raises(Closed) as closed:
                await send_batch(tab, batch)
            assert closed.value.code == CLOSE_TOO_BIG
            replies = [f for _t, f in tab.frames[1:] if f["type"] not in ("presence", *PASSED_OVER)]
        else:
            replies = await send_batch(tab, batch)
            assert replies[-1]["type"] == "pong" or "pong" in [r["type"] for r in replies]
    finally:
        await hang_up(tab)
    COUNTS["socket"] += len(batch)
    RAN.add("socket")
    assert not problems(caplog.records[logged:]), problems(caplog.records[logged:])
    for frame in replies:
        if frame["type"] == "ack":  # bob's "seen-1" was applied once, before: a repeat applies nothing
            assert frame["duplicate"] is True and frame["action_id"] == "seen-1" and name == "bob", frame
            continue
        assert frame["type"] in REPLIES, frame  # never an update (nor its ack): every command in the batch is refused
        assert frame.get("code") != "server_error", frame
    assert sum(r["type"] == "error" for r in replies) >= sum(1 for k, _p in batch if k == "bytes")
    assert await db(table_and_ledger)(room.pk) == before
    COUNTS["socket_errors"] += sum(r["type"] == "error" for r in replies)


@pytest.fixture
def small_table(cast, settings):
    """bob seated at alice's Ten and a Half, not started."""
    settings.GAMES_RESYNC_SECONDS = 3600
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    return room


@given(data=st.data())
@settings(max_examples=5, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
async def test_a_flood_is_rate_limited_and_changes_nothing(cast, small_table, caplog, fresh_layer, data):
    """The real limit: 20 messages in a second are read, the rest of a flood gets rate_limited errors."""
    room = small_table
    flood = data.draw(st.lists(st.sampled_from([
        {"type": "ping"}, {"type": "action", "action": "hit", "action_id": "h"}, {"type": "snapshot"},
        {"type": "action", "action": "top_up", "args": {"amount": -5}}, {"type": "nonsense"},
        {"type": "action", "action": "sit", "args": {"buy_in": 500}}]), min_size=30, max_size=120), label="flood")
    before = await db(table_and_ledger)(room.pk)
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        await asyncio.sleep(1.05)  # a fresh window
        started = time.monotonic()
        replies = await send_batch(tab, [("text", json.dumps(f)) for f in flood])
        seconds = time.monotonic() - started
        limited = [r for r in replies if r.get("code") == "rate_limited"]
        assert limited and len(replies) - len(limited) <= 20 * (int(seconds) + 1), (len(replies), len(limited))
        assert all(r["type"] in REPLIES and r.get("code") != "server_error" for r in replies)
        await asyncio.sleep(1.05)
        await tab.send({"type": "ping"})
        assert (await tab.reply("pong", "error"))["type"] == "pong"  # usable again once the second is over
    finally:
        await hang_up(tab)
    assert await db(table_and_ledger)(room.pk) == before
    assert not problems(caplog.records)
    COUNTS["socket"] += len(flood)
    RAN.add("flood")


@given(size=st.integers(MAX_FRAME + 1, 4 * MAX_FRAME), kind=st.sampled_from(["json", "text", "bytes", "unicode"]))
@settings(max_examples=20, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
async def test_a_frame_over_16_kib_closes_the_socket_and_changes_nothing(
        cast, small_table, caplog, fresh_layer, size, kind):
    room = small_table
    before = await db(table_and_ledger)(room.pk)
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        if kind == "json":
            payload = json.dumps({"type": "action", "action": "bet", "args": {"amount": 10}, "pad": "x" * size})
        elif kind == "unicode":  # 16 KiB of bytes is fewer characters
            payload = "本" * (size // 3 + 1)
        elif kind == "bytes":
            payload = b"{" * size
        else:
            payload = "x" * size
        if isinstance(payload, bytes):
            await tab.comm.send_to(bytes_data=payload)
        else:
            await tab.send(payload)
        with pytest.raises(Closed) as closed:
            await tab.reply("pong")
        assert closed.value.code == CLOSE_TOO_BIG
    finally:
        await hang_up(tab)
    assert await db(table_and_ledger)(room.pk) == before
    again = Tab(cast["bob"], room.code)
    try:
        await again.open()  # a new connection is fine
        await again.send({"type": "ping"})
        assert (await again.reply("pong"))["type"] == "pong"
    finally:
        await hang_up(again)
    assert not problems(caplog.records)
    COUNTS["socket"] += 1
    RAN.add("oversized")


@pytest.fixture(scope="module", autouse=True)
def _count_examples(request):
    yield
    total = COUNTS["action_submit"] + COUNTS["socket"]
    line = (f"fuzz: {total} hostile messages ({COUNTS['action_submit']} to action_submit: {COUNTS['refused']} "
            f"refused, {COUNTS['applied']} legal and applied; {COUNTS['socket']} socket frames, "
            f"{COUNTS['socket_errors']} answered with errors)")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n{line}")
    if RAN >= {"action_submit", "socket", "flood", "oversized"}:
        assert total >= TARGET, line

