"""Seats nobody sits at (docs/rules.md, "Away"): a seat whose owner has no open socket plays at most one hand by
default actions, then sits out (no stake, no cards) until its owner sits back in, and leaves the table with its chips
after GAMES_AWAY_RELEASE_MINUTES; the host may sit a player out between hands. Presence counts every socket of the
owner, on any process."""

import pytest
from django.core.cache import cache

from games import services
from games.engine import Command, EngineError, apply, state_from_json
from games.models import HandEvent, HandSeat, Seat
from games.services import presence
from games.services.moves import ABSENT_GRACE_SECONDS
from tests.games.conftest import (
    BEANS,
    act,
    assert_holds_match_table,
    assert_ledger_clean,
    bet_all,
    expire,
    make_player,
    play_out,
    seat_of,
    state,
    table,
    ten_half_table,
)
from tests.games.sockets import Tab, close_all, db, seated_table
from wallets.models import Transaction
from wallets.selectors import balances_for
from wallets.services import release_memo

# Commits matter here: the broadcast and the next wake run on commit.
pytestmark = pytest.mark.django_db(transaction=True)


def connect(room, user, socket: str) -> str | None:
    return services.presence_set(room_id=room.pk, user=user, connected=True, socket=socket)


def disconnect(room, user, socket: str) -> str | None:
    return services.presence_set(room_id=room.pk, user=user, connected=False, socket=socket)


def seat_row(room, user) -> Seat:
    return Seat.objects.get(room=room, user=user, left_at__isnull=True)


def events(room, kind: str, seat: str) -> list[HandEvent]:
    return [e for e in HandEvent.objects.filter(room=room, type=kind).order_by("version", "seq") if e.data["seat"] == seat]


def hand_two_between_hands(cast, settings):
    """The first hand played out and the table between hands (the next hand waits for the host)."""
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    room = ten_half_table(cast)
    bet_all(room, cast)
    play_out(room)
    assert state(room)["phase"] == "between_hands"
    return room


def refused(room, user, action, **args) -> str:
    before = table(room)
    with pytest.raises(services.GameError) as e:
        act(room, user, action, **args)
    after = table(room)
    assert (after.version, after.state, after.meta) == (before.version, before.state, before.meta)
    return e.value.code


# --- presence: every socket of the owner ------------------------------------------------------------------


def test_a_seat_is_connected_while_any_socket_of_its_owner_is_open(cast):
    room = ten_half_table(cast)
    bob = seat_of(room, cast["bob"])
    assert connect(room, cast["bob"], "tab-1") == bob  # the first socket: the room is told
    assert connect(room, cast["bob"], "tab-2") is None  # a second one changes nothing
    assert disconnect(room, cast["bob"], "tab-1") is None
    assert seat_row(room, cast["bob"]).connected and bob not in table(room).meta["absent"]
    assert disconnect(room, cast["bob"], "tab-2") == bob  # the last one: the room is told
    assert not seat_row(room, cast["bob"]).connected and bob in table(room).meta["absent"]
    assert services.presence_set(room_id=room.pk, user=cast["alice"], connected=True, socket="x") == \
        seat_of(room, cast["alice"])


def test_a_spectators_socket_is_not_kept(cast):
    room = ten_half_table(cast)
    erin = make_player("erin")
    assert connect(room, erin, "tab-1") is None
    assert table(room).meta["sockets"] == {}


# --- a seat with nobody at it --------------------------------------------------------------------------------


def test_a_seat_whose_sockets_all_closed_plays_one_hand_by_defaults_then_sits_out_and_is_released(
        cast, clock, settings):
    settings.GAMES_AWAY_RELEASE_MINUTES = 2
    room = ten_half_table(cast)  # hand 1, betting
    bob = seat_of(room, cast["bob"])
    connect(room, cast["bob"], "tab-1")
    connect(room, cast["bob"], "tab-2")
    disconnect(room, cast["bob"], "tab-1")
    disconnect(room, cast["bob"], "tab-2")  # the tab closed: nobody at bob's seat

    # Hand 1, under way: bob's default stake, and he stands when his time runs out.
    bet_all(room, cast, names=("chen", "dara"))
    assert expire(room, clock) == "timeout"
    assert [e.data["amount"] for e in events(room, "bet_defaulted", bob)] == [10]
    play_out(room, idle=[bob], clock=clock)

    # Hand 2 deals him out: no stake, no cards, away for everyone.
    s = state(room)
    assert (s["hand_no"], s["phase"]) == (2, "betting")
    assert bob not in s["hand"]["bets"] and bob in s["hand"]["sitting_out"]
    assert next(x for x in s["seats"] if x["id"] == bob)["away"] is True and seat_row(room, cast["bob"]).away
    (marked,) = [e for e in events(room, "seat_updated", bob) if e.data.get("away") is True]
    assert marked.data["why"] == "disconnected"
    assert [e.data["why"] for e in events(room, "seat_sits_out", bob)] == ["away"]
    bet_all(room, cast, names=("chen", "dara"))
    assert state(room)["phase"] == "playing" and bob not in state(room)["hand"]["hands"]
    assert [h.hand.number for h in HandSeat.objects.filter(user=cast["bob"])] == [1]  # one hand by defaults

    # Two minutes later the seat leaves the table and its beans go back to the wallet.
    clock.advance(services.away_release_seconds() + 1)
    for _ in range(5):
        if services.table_wake(room_id=room.pk) == "released":
            break
    assert seat_of(room, cast["bob"]) is None
    (hand1,) = HandSeat.objects.filter(user=cast["bob"])
    assert balances_for(cast["bob"])["beans"] == {"available": BEANS + hand1.delta, "held": 0}
    assert_ledger_clean()
    assert_holds_match_table(room)
    seat = Seat.objects.get(room=room, user=cast["bob"])
    (release,) = Transaction.objects.filter(kind=Transaction.Kind.RELEASE, entries__account__user=cast["bob"]).distinct()
    assert release.memo == release_memo(seat.seat_ref, services.RELEASE_AWAY) == f"Left {seat.seat_ref} (away)"
    (left,) = events(room, "seat_left", bob)
    assert left.data["why"] == "away" and left.data["minutes"] == 2 and left.data["chips_out"] == 500 + hand1.delta
    assert left.hand is not None and left.hand.number == 2  # in the table's log, beside hand 2


def test_coming_back_in_time_sits_back_in_from_the_next_hand(cast, clock, settings):
    settings.GAMES_AWAY_RELEASE_MINUTES = 2
    room = ten_half_table(cast)
    bob = seat_of(room, cast["bob"])
    connect(room, cast["bob"], "tab-1")
    disconnect(room, cast["bob"], "tab-1")
    bet_all(room, cast, names=("chen", "dara"))
    expire(room, clock)
    play_out(room, idle=[bob], clock=clock)
    assert bob in state(room)["hand"]["sitting_out"]

    # The tab opens again: still away (the page offers "Sit back in"), until he says so.
    assert connect(room, cast["bob"], "tab-2") == bob
    assert seat_row(room, cast["bob"]).connected and seat_row(room, cast["bob"]).away
    act(room, cast["bob"], "im_back")
    assert not seat_row(room, cast["bob"]).away and bob not in table(room).meta["away"]
    assert bob not in state(room)["hand"]["bets"]  # this hand goes on without him
    bet_all(room, cast, names=("chen", "dara"))
    play_out(room)
    s = state(room)
    assert s["hand_no"] == 3 and bob in s["hand"]["bets"] and bob not in s["hand"]["sitting_out"]
    clock.advance(services.away_release_seconds() + 1)
    assert "released" not in [services.table_wake(room_id=room.pk) for _ in range(3)]
    assert seat_of(room, cast["bob"]) == bob  # he is back: nothing to release


def test_a_refresh_during_a_hand_is_no_absence(cast, clock):
    room = ten_half_table(cast)
    bob = seat_of(room, cast["bob"])
    connect(room, cast["bob"], "tab-1")
    disconnect(room, cast["bob"], "tab-1")
    connect(room, cast["bob"], "tab-2")  # the page loaded again; bob just lets the timers play this hand
    bet_all(room, cast, names=("chen", "dara"))
    expire(room, clock)
    play_out(room, idle=[bob], clock=clock)
    s = state(room)
    assert s["hand_no"] == 2 and bob in s["hand"]["bets"]
    assert not seat_row(room, cast["bob"]).away


def test_gone_before_a_hand_starts_sits_that_hand_out(cast, clock):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    bob = seat_of(room, cast["bob"])
    connect(room, cast["bob"], "tab-1")
    disconnect(room, cast["bob"], "tab-1")
    clock.advance(ABSENT_GRACE_SECONDS + 1)  # longer than a refresh
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=500)
    s = state(room)
    assert (s["hand_no"], s["phase"]) == (1, "betting")
    assert bob not in s["hand"]["bets"] and bob in s["hand"]["sitting_out"]  # not even one hand by defaults


def test_a_socket_of_a_process_that_died_counts_as_closed(cast, monkeypatch):
    room = ten_half_table(cast)
    bob, chen = seat_of(room, cast["bob"]), seat_of(room, cast["chen"])
    with monkeypatch.context() as m:
        m.setattr(presence, "PROCESS", "died")
        connect(room, cast["bob"], "tab-1")
        m.setattr(presence, "PROCESS", "alive")
        connect(room, cast["chen"], "tab-1")
    cache.delete("games:process:died")  # its beats stopped PROCESS_TTL ago
    cache.set("games:process:alive", 1, presence.PROCESS_TTL)
    try:
        bet_all(room, cast)
        play_out(room)
        s = state(room)
        assert s["hand_no"] == 2
        assert bob in s["hand"]["sitting_out"] and chen in s["hand"]["bets"]
        assert seat_row(room, cast["bob"]).away and not seat_row(room, cast["chen"]).away
    finally:
        cache.delete("games:process:alive")


def test_a_practice_room_stops_dealing_when_its_player_is_gone(cast, clock):
    room = services.practice_open(user=cast["bob"], preset="ten-half")
    bob = seat_of(room, cast["bob"])
    connect(room, cast["bob"], "tab-1")
    disconnect(room, cast["bob"], "tab-1")
    for _ in range(40):  # the bots play their hands out; bob's hand is played by defaults
        if state(room)["phase"] not in ("betting", "playing") or state(room)["hand_no"] > 1:
            break
        expire(room, clock)
    s = state(room)
    assert s["hand_no"] == 1 and s["phase"] not in ("betting", "playing")  # no hand of bots alone
    assert seat_row(room, cast["bob"]).away and table(room).meta["next_hand_at"] is None
    assert bob in table(room).meta["away"]


# --- the host sits a player out -------------------------------------------------------------------------------


def test_the_host_sits_a_player_out_between_hands(cast, settings):
    room = hand_two_between_hands(cast, settings)
    bob = seat_of(room, cast["bob"])
    act(room, cast["alice"], "sit_out", seat=bob)
    assert seat_row(room, cast["bob"]).away and bob in table(room).meta["away"]
    (marked,) = events(room, "seat_updated", bob)
    assert marked.data == {"seat": bob, "away": True, "why": "host", "type": "seat_updated"}
    act(room, cast["alice"], "start")
    s = state(room)
    assert s["hand_no"] == 2 and bob not in s["hand"]["bets"] and bob in s["hand"]["sitting_out"]
    act(room, cast["bob"], "im_back")  # "Sit back in"
    bet_all(room, cast, names=("chen", "dara"))
    play_out(room)
    act(room, cast["alice"], "start")
    assert bob in state(room)["hand"]["bets"]


def test_the_seed_a_page_sends_by_itself_does_not_sit_an_away_seat_back_in(cast, settings):
    room = hand_two_between_hands(cast, settings)
    bob = seat_of(room, cast["bob"])
    act(room, cast["alice"], "sit_out", seat=bob)
    act(room, cast["bob"], "seed", seed="ab" * 32)  # table.js: a seat with no bet to make sends its seed
    assert seat_row(room, cast["bob"]).away and bob in table(room).meta["away"]
    act(room, cast["alice"], "start")
    assert bob in state(room)["hand"]["sitting_out"]


def test_the_host_cannot_sit_a_player_out_mid_hand(cast):
    room = ten_half_table(cast)
    assert refused(room, cast["alice"], "sit_out", seat=seat_of(room, cast["bob"])) == "wrong_phase"


@pytest.mark.parametrize(("who", "target", "code"), [
    ("bob", "chen", "not_host"),
    ("bob", "bob", "not_host"),  # a player's own seat: still the host's command
    ("alice", "alice", "sit_out_self"),
    ("alice", "s999999", "bad_seat"),
    ("alice", 7, "bad_args"),
])
def test_a_bad_sit_out_is_a_clear_error_and_changes_nothing(cast, settings, who, target, code):
    room = hand_two_between_hands(cast, settings)
    seat = seat_of(room, cast[target]) if target in cast else target
    assert refused(room, cast[who], "sit_out", seat=seat) == code


def test_a_seat_sat_out_already_is_refused(cast, settings):
    room = hand_two_between_hands(cast, settings)
    bob = seat_of(room, cast["bob"])
    act(room, cast["alice"], "sit_out", seat=bob)
    assert refused(room, cast["alice"], "sit_out", seat=bob) == "already_away"


def test_the_banker_is_not_sat_out(cast, settings):
    # ten-half.md "The bank between hands": a banker who is away keeps the bank and plays by timeouts.
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "decline_bank")  # the host banks first; she passes, and bob opens it
    act(room, cast["bob"], "open_bank", amount=500)
    bet_all(room, cast, names=("alice", "chen"))
    play_out(room)
    s = state(room)
    assert s["phase"] == "between_hands" and s["banker"] == seat_of(room, cast["bob"])
    assert refused(room, cast["alice"], "sit_out", seat=s["banker"]) == "sit_out_banker"


def test_im_back_when_not_away_is_refused(cast):
    room = ten_half_table(cast)
    assert refused(room, cast["bob"], "im_back") == "not_away"


# --- the engine's part ----------------------------------------------------------------------------------------


def test_the_engine_takes_only_known_reasons(cast):
    room = ten_half_table(cast)
    s = state_from_json(state(room))
    bob = seat_of(room, cast["bob"])
    for action, args in (("set_seat", {"seat": bob, "away": True, "why": "bored"}),
                         ("set_seat", {"seat": bob, "away": False, "why": "host"}),
                         ("leave", {"why": "bored", "minutes": 3}),
                         ("leave", {"why": "away"})):
        actor = "system" if action == "set_seat" else bob
        with pytest.raises(EngineError):
            apply(s, Command(actor=actor, action=action, args=args))


# --- through the socket -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("fresh_layer")
async def test_a_second_tab_keeps_the_seat_connected_until_the_last_one_closes(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob = tabs["bob"].view["you"]
    second = Tab(cast["bob"], room.code)
    try:
        await second.open()
        await tabs["alice"].drain()
        await tabs["bob"].close()
        assert not [f for f in await tabs["alice"].drain() if f["type"] == "presence"]  # bob is still there
        await tabs["chen"].send({"type": "snapshot"})
        assert (await tabs["chen"].reply("snapshot"))["presence"][bob] is True
        await second.close()
        frame = await tabs["alice"].reply("presence")
        assert (frame["seat"], frame["connected"]) == (bob, False)
        meta = (await db(table)(room)).meta
        assert bob not in meta["sockets"] and bob in meta["absent"]
    finally:
        await close_all([*tabs.values(), second])
