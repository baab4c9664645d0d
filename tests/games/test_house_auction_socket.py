"""The bank auction (house-rules.md, docs/rules.md "The bank auction") at a live table: four people bid over their
sockets after each saw only their own first card (in the live updates and in a reconnect's snapshot), a refused bid
changes nothing, the highest bid opens the bank and its multiplier shows in every view; the ledger stays clean."""

import pytest

from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean, state
from tests.games.sockets import Tab, catch_up, close_all, db, seated_table

pytestmark = [pytest.mark.django_db(transaction=True)]


def first_cards(view) -> dict:
    return {seat: phs[0]["cards"] for seat, phs in view["hand"]["hands"].items()}


@pytest.mark.usefixtures("fresh_layer")
async def test_four_people_bid_for_the_bank_each_seeing_only_their_own_first_card(cast, no_resync):
    room, tabs = await seated_table(cast, "ten-half-auction")
    players = list(tabs.values())
    late = None
    try:
        me = {name: tab.view["you"] for name, tab in tabs.items()}
        for name, tab in tabs.items():
            v = tab.view
            assert v["phase"] == "auction" and v["banker"] is None and "bid" in v["legal_actions"]
            assert v["house"]["auction"]["state"] == "bidding" and v["house"]["auction"]["max"] == 4
            cards = first_cards(v)
            assert "card" in cards[me[name]][0]
            assert all(c == [{"hidden": True}] for seat, c in cards.items() if seat != me[name])
            for e in tab.events("card_dealt"):
                assert ("card" in e) == (e["seat"] == me[name]), (name, e)
        # A reconnect's snapshot keeps the others' first cards hidden too.
        late = Tab(cast["bob"], room.code)
        await late.open()
        assert all(c == [{"hidden": True}] for seat, c in first_cards(late.view).items() if seat != me["bob"])
        assert "card" in first_cards(late.view)[me["bob"]][0]

        before = await db(state)(room)
        frame = await tabs["alice"].act("bid", mult=5)
        assert frame["type"] == "error" and frame["code"] == "bid_too_high"
        assert await db(state)(room) == before
        for name, mult in (("alice", 1), ("bob", 3), ("chen", 0)):
            assert acked(await tabs[name].act("bid", mult=mult))
        await catch_up(players, room)
        assert tabs["dara"].view["house"]["auction"]["bids"] == {me["alice"]: 1, me["bob"]: 3, me["chen"]: 0}
        frame = await tabs["chen"].act("bid", mult=2)
        assert frame["type"] == "error" and frame["code"] == "already_bid"
        assert acked(await tabs["dara"].act("bid", mult=2))
        await catch_up(players, room)
        for tab in players:
            v = tab.view
            assert v["phase"] == "betting" and v["banker"] == me["bob"]
            assert v["house"]["auction"]["mult"] == 3
            won = tab.events("auction_won")[0]
            assert won["seat"] == me["bob"] and won["mult"] == 3 and won["by"] == "bid"
        await db(assert_ledger_clean)()
        await db(assert_holds_match_table)(room)
    finally:
        await close_all(players + ([late] if late else []))


def test_a_practice_table_with_the_auction_starts_with_it_the_bots_have_bid_and_the_newcomer_bids(cast):
    from games import services
    from tests.games.conftest import act, seat_of

    room = services.practice_open(user=cast["alice"], preset="ten-half-auction")
    s, me = state(room), seat_of(room, cast["alice"])
    assert s["phase"] == "auction" and s["banker"] is None and s["deadline_for"] == [me]
    bids = s["hand"]["auction"]["bids"]
    assert set(bids) == {x["id"] for x in s["seats"]} - {me}  # every bot has bid, each after its own first card
    act(room, cast["alice"], "bid", mult=4)
    s = state(room)
    assert s["phase"] in ("betting", "playing") and s["banker"] is not None
    if max(bids.values()) < 4:
        assert s["banker"] == me and s["bank_mult"] == 4  # the newcomer's seat is no_bank, but a bid is its own
    assert_ledger_clean()
    assert_holds_match_table(room)
