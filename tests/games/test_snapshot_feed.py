"""The snapshot's `hand_events` (docs/protocol.md, "snapshot"): the current hand's events as this viewer's live
updates showed them, so that a refreshed browser rebuilds the same table log and learns no hidden card from it."""

import json

import pytest

from games import selectors, services
from tests.games.conftest import act, bet_all, expire, make_player, seat_of, state, table, ten_half_table, user_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _slow_next_hand(settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # a finished hand stays the latest one until the test starts another


def face_down_cards(room) -> dict[str, set[str]]:
    """Every seat's face-down cards now (seat id -> card codes), from the stored state."""
    hands = state(room)["hand"]["hands"]
    return {seat: {c[0] for ph in phs for c in ph["cards"] if c[1] != "up"} for seat, phs in hands.items()}


def dealt(events: list[dict], seat: str) -> list[dict]:
    return [e for e in events if e["type"] == "card_dealt" and e["seat"] == seat]


def test_a_challengers_snapshot_has_their_own_face_down_card_and_nobody_elses(cast):
    room = ten_half_table(cast)
    bet_all(room, cast)
    bob = seat_of(room, cast["bob"])
    down = face_down_cards(room)
    assert all(down.values()) and len(down) == 4  # ten-half: every card is dealt face down

    events = selectors.snapshot(room, cast["bob"])["hand_events"]
    assert events[0]["type"] == "hand_started"
    (own,) = dealt(events, bob)
    assert own["card"] in down[bob] and own["face"] == "down"
    others = {c for seat, cards in down.items() if seat != bob for c in cards}
    for seat in down.keys() - {bob}:
        (theirs,) = dealt(events, seat)
        assert "card" not in theirs and theirs["face"] == "down"
    text = json.dumps(events)
    assert not [c for c in others if f'"{c}"' in text]


def test_a_spectator_sees_no_face_down_card_at_all(cast):
    room = ten_half_table(cast, buy_in=500)
    bet_all(room, cast)
    eve = make_player("eve")  # not seated: a spectator
    events = selectors.snapshot(room, eve)["hand_events"]
    text = json.dumps(events)
    assert len([e for e in events if e["type"] == "card_dealt"]) == 4
    assert not [c for cards in face_down_cards(room).values() for c in cards if f'"{c}"' in text]


def test_the_snapshot_events_are_the_live_updates_events_of_the_hand(cast):
    room = ten_half_table(cast)
    before = table(room).version - 1  # the version before the one that started the hand (alice opened the bank)
    bet_all(room, cast)
    turn = state(room)["hand"]["turn"][0]
    act(room, user_of(room, turn), "hit")
    for name in ("bob", "chen"):
        frames = selectors.updates_since(room.pk, cast[name], before).frames
        live = [e for _version, text in frames for e in json.loads(text)["events"] if not _between_hands(e)]
        assert selectors.snapshot(room, cast[name])["hand_events"] == live


def _between_hands(event: dict) -> bool:
    return event["type"] in ("seed_committed", "seed_received", "bank_opened", "bank_offered")


def test_after_the_hand_the_snapshot_keeps_its_events_with_every_card_revealed_then_the_next_starts_afresh(cast):
    room = ten_half_table(cast)
    bet_all(room, cast)
    for _ in range(8):
        s = state(room)
        if s["phase"] != "playing":
            break
        act(room, user_of(room, s["hand"]["turn"][0]), "stand")
    assert state(room)["hand"]["over"]
    events = selectors.snapshot(room, cast["bob"])["hand_events"]
    types = [e["type"] for e in events]
    assert types[0] == "hand_started" and types[-1] == "hand_over"
    assert types.count("bet_settled") == 3 and "hand_revealed" in types
    assert all(c for hands in next(e for e in events if e["type"] == "hand_revealed")["hands"].values()
               for h in hands for c in h["cards"])

    act(room, cast["alice"], "start")  # the host deals the next hand now
    events = selectors.snapshot(room, cast["bob"])["hand_events"]
    assert events[0]["type"] == "hand_started" and events[0]["hand_no"] == 2
    assert "hand_over" not in [e["type"] for e in events]


def test_no_hand_yet_no_events(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["alice"], buy_in=500)
    assert selectors.snapshot(room, cast["alice"])["hand_events"] == []


def test_what_the_timers_did_is_marked_so_the_feed_can_say_time_ran_out(cast, clock):
    room = ten_half_table(cast)
    bet_all(room, cast, names=("bob", "chen"))
    dara = seat_of(room, cast["dara"])
    assert expire(room, clock) == "timeout"  # dara never bets
    for _ in range(8):
        s = state(room)
        if s["phase"] != "playing":
            break
        turn = s["hand"]["turn"][0]
        if turn == dara:
            assert expire(room, clock) == "timeout"  # nor acts
        else:
            act(room, user_of(room, turn), "stand")
    events = selectors.snapshot(room, cast["dara"])["hand_events"]
    assert [e["amount"] for e in events if e["type"] == "bet_defaulted" and e["seat"] == dara] == [10]
    actions = [e for e in events if e["type"] == "action"]
    assert [e.get("timeout", False) for e in actions] == [e["seat"] == dara for e in actions]
    assert {"seat": dara, "hand": 0, "action": "stand", "timeout": True, "type": "action"} in actions
