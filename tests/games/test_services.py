"""The live table's services: rooms, seats, the bank, timeouts, away seats, host controls, bots,
and that every bean stays accounted for (the ledger mirrors the engine after every command)."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.models import Hand, HandEvent, HandSeat, Room, Seat
from tests.games.conftest import (
    BEANS,
    act,
    assert_holds_match_table,
    assert_ledger_clean,
    bet_all,
    expire,
    play_out,
    seat_of,
    state,
    table,
    ten_half_table,
    user_of,
)
from wallets.models import Account
from wallets.selectors import balances_for

User = get_user_model()

# Commits matter here: the broadcast and the next wake run on commit.
pytestmark = pytest.mark.django_db(transaction=True)


# --- rooms -----------------------------------------------------------------------------------------------


def test_a_buy_in_limit_beyond_the_columns_range_is_refused_not_a_database_error(cast):
    with pytest.raises(services.GameError) as e:
        services.room_create(host=cast["alice"], preset="ten-half", buy_in_min=100, buy_in_max=2**31)
    assert (e.value.code, e.value.field) == ("bad_buy_in", "buy_in_max")
    assert not Room.objects.exists()


def test_a_room_gets_a_four_digit_code_unique_among_open_rooms(cast):
    rooms = [services.room_create(host=cast["alice"], preset="ten-half") for _ in range(30)]
    codes = [r.code for r in rooms]
    assert all(len(c) == 4 and c.isdigit() for c in codes)
    assert len(set(codes)) == len(codes)
    assert len({r.invite_token for r in rooms}) == len(rooms) and all(len(r.invite_token) >= 20 for r in rooms)


def test_incoherent_rules_are_refused_with_the_engines_message(cast):
    with pytest.raises(services.GameError) as e:
        services.room_create(host=cast["alice"], preset="ten-half", overrides={"max_cards": 1})
    assert e.value.code == "invalid_rules" and "max_cards" in e.value.message
    assert not Room.objects.exists()


def test_an_ai_room_plays_for_points_even_when_asked_for_beans(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half", kind="ai", currency="beans")
    assert room.currency == "points"


# --- seats and beans -------------------------------------------------------------------------------------


def test_sitting_down_reserves_the_buy_in_and_leaving_between_hands_gives_it_back(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=700)
    assert balances_for(cast["bob"])["beans"] == {"available": BEANS - 700, "held": 700}
    services.seat_leave(room_id=room.pk, user=cast["bob"])
    assert balances_for(cast["bob"])["beans"] == {"available": BEANS, "held": 0}
    assert Seat.objects.get(user=cast["bob"]).left_at is not None
    assert_ledger_clean()


def test_a_buy_in_above_the_balance_is_refused_and_changes_nothing(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half", buy_in_max=100_000)
    version = table(room).version
    with pytest.raises(services.GameError) as e:
        services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=BEANS + 1)
    assert e.value.code == "insufficient_funds"
    assert table(room).version == version and not Seat.objects.exists()
    assert balances_for(cast["bob"])["beans"]["available"] == BEANS


@pytest.mark.parametrize("buy_in", [0, -5, 99, 1001, "500", 2.5, True])
def test_a_buy_in_outside_the_rooms_limits_is_refused(cast, buy_in):
    room = services.room_create(host=cast["alice"], preset="ten-half", buy_in_min=100, buy_in_max=1000)
    with pytest.raises(services.GameError):
        services.action_submit(room_id=room.pk, user=cast["bob"], action="sit", args={"buy_in": buy_in})
    assert not Seat.objects.exists()


def test_one_seat_per_player_and_no_seat_past_the_last(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    with pytest.raises(services.GameError) as e:
        services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500, role="side")
    assert e.value.code == "already_seated"
    with pytest.raises(services.GameError) as e:
        services.seat_take(room_id=room.pk, user=cast["chen"], buy_in=500, position=4)
    assert e.value.code == "bad_position"


def test_holds_follow_every_hand_and_the_ledger_stays_clean(cast):
    room = ten_half_table(cast)
    for _hand in range(5):
        s = state(room)
        assert s["phase"] == "betting", (s["phase"], s["pending"], s["bank"], [x["stack"] for x in s["seats"]])
        bet_all(room, cast)
        play_out(room, action="hit")
        assert_holds_match_table(room)
        assert_ledger_clean()
    total = sum(Account.objects.get(pk=i["hold"]).balance for i in table(room).meta["seats"].values())
    assert total == 4 * 500
    assert Hand.objects.filter(room=room, ended_at__isnull=False).count() == 5


def test_a_player_who_leaves_mid_hand_plays_it_out_and_is_released_after_settlement(cast):
    room = ten_half_table(cast)
    bet_all(room, cast)
    services.seat_leave(room_id=room.pk, user=cast["bob"])
    assert seat_of(room, cast["bob"]) is not None  # still in the hand
    assert balances_for(cast["bob"])["beans"]["held"] > 0
    play_out(room)
    assert seat_of(room, cast["bob"]) is None
    bob_delta = HandSeat.objects.get(user=cast["bob"]).delta
    assert balances_for(cast["bob"])["beans"] == {"available": BEANS + bob_delta, "held": 0}
    assert_ledger_clean()


def test_top_up_between_hands_and_not_during_one(cast):
    room = ten_half_table(cast)
    with pytest.raises(services.GameError) as e:
        act(room, cast["bob"], "top_up", amount=100)  # betting: bob is in the hand
    assert e.value.code == "in_hand"
    bet_all(room, cast)
    play_out(room)
    # The next hand started at once (eager); bob leaves it by sitting out? No: top up is refused again.
    assert state(room)["phase"] == "betting"
    assert_holds_match_table(room)


def test_a_side_bettor_tops_up_between_hands_only(cast, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # the hand over, the table waits between hands
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    services.seat_take(room_id=room.pk, user=cast["dara"], buy_in=500, role="side")
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=500)
    dara, version = seat_of(room, cast["dara"]), table(room).version
    assert state(room)["hand"]["side"][dara]["confirmed"] is False  # betting: dara has not chosen a side bet
    assert "top_up" not in selectors.snapshot(room, cast["dara"])["view"]["legal_actions"]
    with pytest.raises(services.GameError) as e:
        act(room, cast["dara"], "top_up", amount=100)
    assert e.value.code == "in_hand"  # what a challenger in the hand is told
    assert table(room).version == version and balances_for(cast["dara"])["beans"]["held"] == 500
    bet_all(room, cast, names=("bob", "chen"))
    act(room, cast["dara"], "side_bet", backs=seat_of(room, cast["bob"]), amount=20)
    play_out(room)
    assert state(room)["phase"] == "between_hands"
    assert "top_up" in selectors.snapshot(room, cast["dara"])["view"]["legal_actions"]
    act(room, cast["dara"], "top_up", amount=100)
    assert_holds_match_table(room)
    assert_ledger_clean()


def test_zhejiang_escape_penalty_moves_the_stake_in_the_ledger(cast):
    room = services.room_create(host=cast["alice"], preset="zhejiang-ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=1000)
    act(room, cast["alice"], "start")
    s = state(room)
    assert s["phase"] == "playing"  # fixed stakes: betting closes at once
    stake = s["hand"]["bets"][seat_of(room, cast["chen"])]["amount"]
    services.seat_leave(room_id=room.pk, user=cast["chen"])
    assert_holds_match_table(room)
    play_out(room)
    assert balances_for(cast["chen"])["beans"] == {"available": BEANS - stake, "held": 0}
    assert_ledger_clean()


# --- commands --------------------------------------------------------------------------------------------


def test_the_same_action_id_twice_is_applied_once(cast):
    room = ten_half_table(cast)
    first = services.action_submit(room_id=room.pk, user=cast["bob"], action="chip", args={"amount": 10},
                                   action_id="a-1")
    second = services.action_submit(room_id=room.pk, user=cast["bob"], action="chip", args={"amount": 10},
                                    action_id="a-1")
    assert second.duplicate and second.version == first.version == table(room).version
    assert state(room)["hand"]["bets"][seat_of(room, cast["bob"])]["amount"] == 10


def test_each_user_keeps_their_recent_action_ids_however_busy_the_others_are(cast):
    """A busy player pushes out only their own oldest ids, never another player's (meta stays small)."""
    room = ten_half_table(cast)
    services.action_submit(room_id=room.pk, user=cast["chen"], action="chip", args={"amount": 10},
                           action_id="chen-early")
    bob = cast["bob"]
    for i in range(services.ACTIONS_PER_USER + 3):
        action = "chip" if i % 2 == 0 else "reset"
        args = {"amount": 10} if action == "chip" else {}
        services.action_submit(room_id=room.pk, user=bob, action=action, args=args, action_id=f"bob-{i}")
    remembered = table(room).meta["actions"]
    assert [aid for uid, aid, _v in remembered if uid == bob.pk] == \
        [f"bob-{i}" for i in range(3, services.ACTIONS_PER_USER + 3)]
    again = services.action_submit(room_id=room.pk, user=cast["chen"], action="chip", args={"amount": 10},
                                   action_id="chen-early")
    assert again.duplicate
    assert state(room)["hand"]["bets"][seat_of(room, cast["chen"])]["amount"] == 10


@pytest.mark.parametrize("action, args, code", [
    ("chip", {"amount": [10]}, "bad_amount"),
    ("chip", {"amount": 7}, "bad_amount"),
    ("back", {"seat": {"x": 1}}, "bad_args"),
    ("hit", {"unknown": 1}, "bad_args"),
    ("teleport", {}, "unknown_action"),
    ("bet", {"amount": 10**15}, "bad_amount"),
    ("bet", {"amount": -10}, "bad_amount"),
    ("hit", {}, "wrong_phase"),
    ("start", {}, "not_host"),
])
def test_a_bad_command_is_a_clear_error_and_changes_nothing(cast, action, args, code):
    room = ten_half_table(cast)
    before = table(room)
    with pytest.raises(services.GameError) as e:
        services.action_submit(room_id=room.pk, user=cast["bob"], action=action, args=args)
    assert e.value.code == code
    after = table(room)
    assert (after.version, after.state) == (before.version, before.state)


def test_a_hit_or_a_stand_is_a_handful_of_queries(cast, django_assert_num_queries):
    room = ten_half_table(cast)
    bet_all(room, cast)
    # A handful, whatever the card: begin, lock the table row, insert the events and update the row (one statement
    # on PostgreSQL, two on SQLite), commit; then the wake the command schedules, run inline: begin, lock, commit.
    queries = 7 if connection.vendor == "postgresql" else 8
    s = state(room)
    user = user_of(room, s["hand"]["turn"][0])
    with django_assert_num_queries(queries):
        act(room, user, "hit")
    s = state(room)
    user = user_of(room, s["hand"]["turn"][0])
    with django_assert_num_queries(queries):
        act(room, user, "stand")


def test_every_command_is_recorded_in_order_with_its_version(cast):
    room = ten_half_table(cast)
    bet_all(room, cast)
    play_out(room)
    hand = Hand.objects.get(room=room, number=1)
    events = list(HandEvent.objects.filter(hand=hand).values_list("version", "seq", "type"))
    assert events == sorted(events)
    types = [t for _v, _s, t in events]
    assert types[0] == "hand_started" and "dice_rolled" in types and "hand_over" in types
    assert hand.seed and hand.summary["seed"] == hand.seed
    from games.engine import verify

    assert verify(hand.commitment, hand.seed, hand.summary["dealt"], deck="french-52")


# --- the clock: timeouts and away seats ---------------------------------------------------------------------


def test_a_player_who_does_nothing_gets_the_default_stake_then_stands(cast, clock):
    room = ten_half_table(cast)
    bet_all(room, cast, names=("chen", "dara"))
    assert expire(room, clock) == "timeout"
    s = state(room)
    bob = seat_of(room, cast["bob"])
    assert s["hand"]["bets"][bob] == {"amount": 10, "confirmed": True}  # the base stake
    while s["hand"]["turn"][0] != bob:
        act(room, user_of(room, s["hand"]["turn"][0]), "stand")
        s = state(room)
    assert expire(room, clock) == "timeout"
    bob_moves = [(e.actor, e.data["action"]) for e in HandEvent.objects.filter(room=room, type="action")
                 if e.data["seat"] == bob]
    assert bob_moves == [("system", "stand")]


def test_a_timeout_for_an_old_version_does_nothing(cast, clock):
    room = ten_half_table(cast)
    version = table(room).version
    clock.advance(100)
    assert services.table_wake(room_id=room.pk, version=version) == "timeout"
    assert services.table_wake(room_id=room.pk, version=version) == "stale"
    assert table(room).version == version + 1


def test_a_deadline_not_yet_reached_is_not_applied(cast, clock):
    room = ten_half_table(cast)
    version = table(room).version
    assert services.table_wake(room_id=room.pk, version=version) == "nothing"
    assert table(room).version == version


def test_three_hands_by_timeouts_make_a_seat_away_until_its_owner_acts(cast, clock):
    room = ten_half_table(cast)
    bob = seat_of(room, cast["bob"])
    for _hand in range(3):
        bet_all(room, cast, names=("chen", "dara"))
        expire(room, clock)  # bob's default stake
        play_out(room, idle=[bob], clock=clock)
    s = state(room)
    assert s["phase"] == "betting" and bob not in s["hand"]["bets"] and bob in s["hand"]["sitting_out"]
    assert Seat.objects.get(user=cast["bob"], left_at__isnull=True).away
    # Back: from the next hand on, bob plays again.
    act(room, cast["bob"], "im_back")
    assert not Seat.objects.get(user=cast["bob"], left_at__isnull=True).away
    bet_all(room, cast, names=("chen", "dara"))
    play_out(room)
    assert bob in state(room)["hand"]["bets"]


def test_a_seat_away_for_ten_minutes_is_released(cast, clock):
    room = ten_half_table(cast)
    bob = seat_of(room, cast["bob"])
    for _hand in range(3):
        bet_all(room, cast, names=("chen", "dara"))
        expire(room, clock)
        play_out(room, idle=[bob], clock=clock)
    assert bob in table(room).meta["away"]
    bet_all(room, cast, names=("chen", "dara"))
    play_out(room)
    clock.advance(services.away_release_seconds() + 1)
    for _ in range(5):
        if services.table_wake(room_id=room.pk) == "released":
            break
    assert seat_of(room, cast["bob"]) is None
    assert balances_for(cast["bob"])["beans"]["held"] == 0
    assert_ledger_clean()


# --- host controls ----------------------------------------------------------------------------------------


def test_the_host_role_passes_to_the_longest_seated_human(cast):
    room = ten_half_table(cast)
    bet_all(room, cast)
    play_out(room)
    services.seat_leave(room_id=room.pk, user=cast["alice"])  # between hands? no: the next hand is betting
    room.refresh_from_db()
    assert room.host == cast["bob"]
    seats = {x["id"]: x for x in state(room)["seats"]}
    assert seats[seat_of(room, cast["bob"])]["host"]


def test_a_kicked_player_leaves_and_cannot_sit_again(cast):
    room = ten_half_table(cast)
    dara = seat_of(room, cast["dara"])
    act(room, cast["alice"], "kick", seat=dara)
    bet_all(room, cast, names=("bob", "chen"))
    play_out(room)
    assert seat_of(room, cast["dara"]) is None
    with pytest.raises(services.GameError) as e:
        services.seat_take(room_id=room.pk, user=cast["dara"], buy_in=500)
    assert e.value.code == "kicked"
    with pytest.raises(services.GameError) as e:
        act(room, cast["bob"], "kick", seat=seat_of(room, cast["chen"]))
    assert e.value.code == "not_host"


def test_closing_a_room_mid_hand_settles_it_and_releases_every_stack(cast):
    room = ten_half_table(cast)
    bet_all(room, cast)
    act(room, user_of(room, state(room)["hand"]["turn"][0]), "hit")
    services.room_close(room_id=room.pk, by=cast["alice"])
    room.refresh_from_db()
    assert room.status == "closed" and room.closed_at is not None
    assert Hand.objects.get(room=room, number=1).ended_at is not None
    assert not Account.objects.filter(kind="hold", closed_at__isnull=True).exists()
    total = sum(balances_for(cast[n])["beans"]["available"] for n in cast)
    assert total == 4 * BEANS
    assert_ledger_clean()
    with pytest.raises(services.GameError) as e:
        act(room, cast["bob"], "hit")
    assert e.value.code == "room_closed"


# --- practice rooms ------------------------------------------------------------------------------------------


def test_a_practice_room_fills_with_bots_and_plays_for_points(cast, clock):
    room = services.room_create(host=cast["bob"], preset="ten-half", kind="ai", overrides={"host_banks": False})
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    s = state(room)
    assert len(s["seats"]) == 4 and sum(1 for x in s["seats"] if x["bot"]) == 3
    # Bots opened the bank and bet at once; bob is the one the table waits for.
    assert s["phase"] == "betting", s["phase"]
    assert s["deadline_for"] == [seat_of(room, cast["bob"])]
    act(room, cast["bob"], "bet", amount=10)
    for _ in range(10):
        s = state(room)
        if s["phase"] != "playing":
            break
        act(room, cast["bob"], "stand")
    assert Hand.objects.filter(room=room, ended_at__isnull=False).count() >= 1
    assert balances_for(cast["bob"])["beans"] == {"available": BEANS, "held": 0}
    assert_holds_match_table(room)
    assert_ledger_clean()
    # The last human leaves: the hand is played out by defaults, the bots leave with it, the room closes.
    services.seat_leave(room_id=room.pk, user=cast["bob"])
    for _ in range(40):
        if not state(room)["seats"]:
            break
        clock.advance(60)
        services.table_wake(room_id=room.pk)
    room.refresh_from_db()
    assert state(room)["seats"] == [] and room.status == "closed"
    assert balances_for(cast["bob"])["points"]["held"] == 0
    assert not Account.objects.filter(kind="hold", closed_at__isnull=True).exists()
    assert_ledger_clean()


@pytest.mark.services
def test_on_postgresql_a_tables_state_is_compressed_in_its_row(cast):
    """Migration 0010 (undoing 0009): games_table has PostgreSQL's default toast_tuple_target, so a state of a few
    KB is compressed in its row, several rows to a page, rather than kept whole at one row per page."""
    room = ten_half_table(cast)
    bet_all(room, cast)
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_table'")
        assert not any("toast_tuple_target" in option for option in cursor.fetchone()[0] or [])
        cursor.execute("SELECT pg_column_size(state), octet_length(state::text) FROM games_table WHERE room_id = %s",
                       [room.pk])
        stored, text = cursor.fetchone()
    assert text > 2100  # past the default threshold...
    assert stored < text * 0.6  # ...so compressed


@pytest.mark.services
def test_on_postgresql_a_tables_state_and_meta_are_compressed_with_lz4(cast):
    """Migration 0011: every command rewrites both columns, and LZ4 costs PostgreSQL a fraction of pglz's CPU."""
    room = ten_half_table(cast)
    bet_all(room, cast)
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        if not cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL was built without LZ4: migration 0011 leaves pglz")
        cursor.execute("SELECT pg_column_compression(state) FROM games_table WHERE room_id = %s", [room.pk])
        assert cursor.fetchone()[0] == "lz4"
        cursor.execute("SELECT attname, attcompression FROM pg_attribute WHERE attrelid = 'games_table'::regclass "
                       "AND attname IN ('state', 'meta')")
        assert dict(cursor.fetchall()) == {"state": "l", "meta": "l"}


def test_hand_events_have_no_index_their_composite_ones_cover():
    """Migration 0012: each command's event rows update two indexes fewer; lookups by room or by hand still have
    an index that leads with the column."""
    with connection.cursor() as cursor:
        indexes = [c["columns"] for c in connection.introspection.get_constraints(cursor, "games_handevent").values()
                   if c["index"] or c["unique"]]
    assert ["room_id"] not in indexes and ["hand_id"] not in indexes
    assert ["room_id", "version", "seq"] in indexes and ["hand_id", "version", "seq"] in indexes


@pytest.mark.services
def test_on_postgresql_a_commands_lock_and_store_are_prepared_once_per_connection(cast):
    """games/services/store.py, `_execute`: the statements every command runs are parsed and planned once per connection; a refused
    command's rollback leaves them in place for the next command."""
    room = ten_half_table(cast)
    with pytest.raises(services.GameError):
        act(room, cast["bob"], "hit")  # betting, not playing: refused, rolled back after its lock
    with CaptureQueriesContext(connection) as ran:
        bet_all(room, cast)
    sent = [q["sql"].split("(")[0].split(" AS ")[0] for q in ran.captured_queries]
    # Three bets, and the wakes they run inline (eager Celery): each locks and stores through the prepared statements.
    assert sent.count("EXECUTE hp_lock_table") >= 3 and sent.count("EXECUTE hp_store_events") >= 3, sent
    assert not [q for q in sent if q.startswith(("PREPARE", "SELECT t."))], sent  # prepared before, not again
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements WHERE name = ANY(%s)",
                       [["hp_lock_table", "hp_store_events"]])
        prepared = dict(cursor.fetchall())
    assert prepared["hp_lock_table"].startswith("PREPARE hp_lock_table AS SELECT")
    assert "FOR UPDATE OF t" in prepared["hp_lock_table"]
    assert prepared["hp_store_events"].startswith("PREPARE hp_store_events AS WITH events AS (INSERT")
    bets = state(room)["hand"]["bets"]
    assert sorted(b["amount"] for b in bets.values()) == [20, 20, 20]
