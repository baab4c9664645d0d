"""The night's record when a room closes (docs/ledger.md, docs/fairness.md "A voided hand"): a close during betting,
before anyone staked, voids the hand through the engine (no bean moves, no hand counted, its record verifies and
stays in the chain), while a close after a stake plays the hand by default actions as before; the ledger's log of
buy-ins, top-ups and departures (away releases marked) and its hand-by-hand matrix equal the wallet ledger and the
hand records."""

import pytest
from django.db import transaction
from django.test import Client

from games import hand_records, ledger, ledger_log, services
from games.models import Hand, HandSeat
from games.selectors import hand_export, room_chain_problems
from games.services import moves
from games.services.run import _locked
from games.services.save import _save
from tests.games.conftest import act, play_out, seat_of, state
from tools import halfpoint_verify
from wallets.models import Transaction
from wallets.selectors import balances_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _hands_by_hand(_table_settings, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # the host deals each hand: top-ups and leaving come between them


def wealth(cast) -> dict[str, int]:
    """Each person's beans, on tables or not: a close moves none of them when no hand settles."""
    return {name: sum(balances_for(u)["beans"].values()) for name, u in cast.items()}


def night(cast):
    """alice hosts and banks; bob and chen challenge, dara side-bets on bob; two hands with stakes, bob tops up after
    the first, chen leaves after the second and comes back."""
    alice, bob, chen, dara = (cast[n] for n in ("alice", "bob", "chen", "dara"))
    room = services.room_create(host=alice, preset="ten-half", overrides={})
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    services.seat_take(room_id=room.pk, user=dara, buy_in=300, role="side")
    for n in (1, 2):
        act(room, alice, "start")
        if state(room)["pending"]:
            act(room, alice, "open_bank", amount=400)
        act(room, bob, "bet", amount=20)
        act(room, chen, "bet", amount=30)
        act(room, dara, "side_bet", backs=seat_of(room, bob), amount=10)
        play_out(room)
        if n == 1:
            act(room, bob, "top_up", amount=100)
    services.seat_leave(room_id=room.pk, user=chen)
    services.seat_take(room_id=room.pk, user=chen, buy_in=200)
    return room


def test_a_close_during_betting_before_any_stake_voids_the_hand_and_moves_no_bean(cast):
    room = night(cast)
    hand_records.room_visit_record(room=room, user=cast["bob"])  # his table page did this
    act(room, cast["alice"], "start")  # hand 3: bob puts chips forward, nobody confirms
    act(room, cast["bob"], "chip", amount=10)
    assert state(room)["phase"] == "betting" and state(room)["hand_no"] == 3
    before, entries = wealth(cast), Transaction.objects.filter(kind=Transaction.Kind.SETTLE).count()
    book = ledger.room_ledger(room)

    services.room_close(room_id=room.pk, by=cast["alice"])

    assert wealth(cast) == before  # nobody charged a default stake
    assert Transaction.objects.filter(kind=Transaction.Kind.SETTLE).count() == entries
    after = ledger.room_ledger(room)
    assert [(p.name, p.net, p.hands) for p in after.people] == [(p.name, p.net, p.hands) for p in book.people]
    voided = Hand.objects.get(room=room, number=3)
    assert voided.is_over and voided.summary["voided"] is True and voided.summary["deltas"] == {}
    assert not HandSeat.objects.filter(hand=voided).exists()  # not counted in anyone's hands
    events = [e.type for e in voided.events.all()]
    assert "hand_voided" in events and "bet_defaulted" not in events and "card_dealt" not in events
    # Its record verifies and it is a link of the chain like any other hand.
    assert room_chain_problems(room) == []
    assert voided.prev_chain == Hand.objects.get(room=room, number=2).chain
    record = hand_export(voided)
    assert record["voided"] is True and record["dealt"] == []
    checks = halfpoint_verify.check_record(record, hand_export(Hand.objects.get(room=room, number=2)))
    assert {check for check, _ok, _why in checks} >= {"commitment", "deck", "void", "chain", "link"}
    assert all(ok for _check, ok, _why in checks), checks
    # Its page and the room's list of hands show it to the room's readers: bob, who came to the table (a voided hand
    # has nobody who played it, so its readers are those who came to the room before it ended, its host, ...).
    client = Client()
    client.force_login(cast["bob"])
    page = client.get(voided.get_absolute_url())
    assert page.status_code == 200
    assert "The room closed before anyone staked: the hand is voided, and no chip moved." in page.content.decode()
    assert client.get(f"/r/{room.code}/hands/?room={room.pk}").status_code == 200
    assert client.get(voided.get_absolute_url() + "record.json").json()["voided"] is True


def test_a_close_after_a_stake_plays_the_hand_by_default_actions(cast):
    room = night(cast)
    act(room, cast["alice"], "start")
    act(room, cast["bob"], "bet", amount=20)  # bob staked: the hand is played out, chen by the default stake
    services.room_close(room_id=room.pk, by=cast["alice"])
    hand = Hand.objects.get(room=room, number=3)
    assert hand.is_over and not hand.summary.get("voided") and hand.summary["results"]
    assert HandSeat.objects.filter(hand=hand).count() >= 3
    assert "bet_defaulted" in [e.type for e in hand.events.all()]
    assert ledger.room_ledger(room).balanced


def test_the_log_and_the_matrix_equal_the_wallet_ledger_and_the_hand_records(cast):
    room = night(cast)
    # dara is released for being away too long (the clock's release: games/services/moves.py, `_due`).
    with transaction.atomic():
        run = _locked(room.pk)
        moves._leave(run, seat_of(room, cast["dara"]), away_minutes=20)
        _save(run)
    act(room, cast["alice"], "start")
    services.room_close(room_id=room.pk, by=cast["alice"])  # hand 3 voided

    book = ledger.room_ledger(room)
    log = ledger_log.room_log(room)
    assert [x["at"] for x in log] == sorted(x["at"] for x in log)
    for p in book.people:
        mine = [x for x in log if x["user"] == p.user_id]
        assert sum(x["amount"] for x in mine if x["kind"] == "buy_in") == p.bought_in
        assert sum(x["amount"] for x in mine if x["kind"] == "top_up") == p.topped_up
        assert sum(x["amount"] for x in mine if x["kind"] == "left") == p.taken_away
    kinds = [(x["name"], x["kind"], x["away"]) for x in log]
    assert kinds.count(("Chen", "buy_in", False)) == 2 and ("Bob", "top_up", False) in kinds
    assert ("Dara", "left", True) in kinds  # the away release is marked
    assert [x for x in kinds if x[1] == "left" and x[2]] == [("Dara", "left", True)]
    assert sum(x[1] == "left" for x in kinds) == 5  # chen twice, then everyone at the close

    matrix = ledger_log.room_matrix(room)
    hands = Hand.objects.filter(room=room, ended_at__isnull=False).order_by("number")
    assert [row["hand"] for row in matrix] == [h.number for h in hands] == [1, 2, 3]
    for row, hand in zip(matrix, hands, strict=True):
        assert row["voided"] == bool(hand.summary.get("voided"))
        assert row["nets"] == {p.user_id: p.delta for p in HandSeat.objects.filter(hand=hand)}
        seat_user = {p.seat_id: p.user_id for p in HandSeat.objects.filter(hand=hand)}
        assert row["nets"] == {seat_user[k]: v for k, v in hand.summary["deltas"].items()}
        assert sum(row["nets"].values()) == 0  # each hand moves chips between the room's people only
    for p in book.people:
        assert sum(row["nets"].get(p.user_id, 0) for row in matrix) == p.net

    # The JSON the table's Ledger tab draws, and the page, carry them.
    client = Client()
    client.force_login(cast["bob"])
    data = client.get(f"/r/{room.code}/ledger.json?room={room.pk}").json()
    assert [x["kind"] for x in data["log"]] == [x["kind"] for x in log]
    assert data["matrix"][2] == {"hand": 3, "voided": True, "nets": {}}
    assert data["matrix"][0]["nets"] == {str(k): v for k, v in matrix[0]["nets"].items()}
    page = client.get(f"/r/{room.code}/ledger/?room={room.pk}").content.decode()
    assert page.count('data-kind="buy_in"') == 5 and 'data-away' in page and 'data-voided' in page
