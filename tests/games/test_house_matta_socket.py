"""The matta over the socket (house-rules.md, "The matta"; docs/rules.md): its value tells what the other cards of its
hand are worth, so it travels only where the hand's total does (to the owner; to everyone once the hand is face up),
and the hand record and its replay carry it."""

import pytest

from games import hand_records
from games.models import Hand
from tests.games.conftest import acked
from tests.games.sockets import Tab, catch_up, close_all, create_room, db, sit_and_start

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


def hand_of(view, seat):
    return view["hand"]["hands"][seat][0]


async def test_the_mattas_value_reaches_only_the_owner_until_the_hand_is_face_up(cast, no_resync, monkeypatch):
    """The challenger's 5 of cups is face down, the matta comes face up: the bank and a spectator see the king of coins,
    never the 2 it is worth (it would tell them the hidden card is a 5)."""

    def stacked_hand(run):  # the deck's top cards, in dealing order: challenger, bank, then the draws
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": "cd" * 32, "deck": ["5C", "4B", "KO"]})

    monkeypatch.setattr("games.services.moves._start_hand", stacked_hand)
    room = await db(create_room)(cast["alice"], "seven-half-matta")
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen")}
    try:
        await sit_and_start(tabs, room, ("alice", "bob"), 500)
        challenger = next(t for t in (tabs["alice"], tabs["bob"]) if t.view["role"] == "main")
        banker = next(t for t in (tabs["alice"], tabs["bob"]) if t.view["role"] == "banker")
        seat = challenger.view["you"]
        for action in ("bet", "hit"):
            assert acked(await challenger.act(action, **({"amount": 10} if action == "bet" else {})))
        await catch_up(tabs.values(), room)
        mine = hand_of(challenger.view, seat)
        assert mine["cards"] == [{"card": "5C", "up": False}, {"card": "KO", "up": True}]
        assert (mine["matta"], mine["total"]) == (2, 7)
        for viewer in (banker, tabs["chen"]):
            theirs = hand_of(viewer.view, seat)
            assert theirs["cards"] == [{"hidden": True}, {"card": "KO", "up": True}]
            assert "matta" not in theirs and "total" not in theirs
            for _text, frame in viewer.frames:  # no frame so far: not the view, not an event
                hand = (frame.get("view") or {}).get("hand") or {}
                assert all("matta" not in ph for ph in hand.get("hands", {}).get(seat, []))
                assert not [e for e in frame.get("events") or [] if e.get("type") == "matta_valued"]
        assert acked(await challenger.act("stand"))
        assert acked(await banker.act("stand"))
        await catch_up(tabs.values(), room)
        for viewer in tabs.values():  # face up now: everyone sees the value, and the feed's event
            assert viewer.view["hand"]["over"]
            assert hand_of(viewer.view, seat)["matta"] == 2
            assert viewer.view["last_hand"]["hands"][seat][0]["matta"] == 2
            assert [(e["seat"], e["value"]) for e in viewer.events("matta_valued")] == [(seat, 2)]
    finally:
        await close_all(tabs.values())

    hand = await db(lambda: Hand.objects.filter(room=room, ended_at__isnull=False).get())()
    assert hand.summary["hands"][seat][0]["matta"] == 2  # the record carries it
    totals = hand_records.hand_totals(hand.rules, await db(_events)(hand))
    assert totals["5C KO"] == {"total": 7, "class": "ordinary", "bust": False, "matta": 2}  # the replay's count


def _events(hand):
    return [e["data"] for e in hand.events.order_by("version", "seq").values("data")]
