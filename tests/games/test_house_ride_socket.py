"""Let it ride (推注, `push_cap`; house-rules.md "Let it ride") at a live table, over the sockets: bob wins the first
hand, then stakes above the room's largest stake within his ride and is accepted; a stake above the ride, or above the
largest stake without one, is refused with its code and changes nothing; every tab sees the ride and the ride taken."""

import pytest

from games.models import Table
from tests.games.conftest import acked
from tests.games.sockets import catch_up, close_all, db, seated_table, table_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

RULES = {"push_cap": 5, "max_bet": 20}  # base stake 10: 20 at most without a ride, 50 with one
# A roll of 2 makes bob (the bank's left) first: bob 9, chen 5, dara 5, alice's bank 8. Then picture cards only.
DECKS = [["9S", "5H", "5D", "8C"], ["KS", "KH", "KD", "KC"]]


@pytest.fixture
def stacked(monkeypatch):
    def start(run):
        run.meta["next_hand_at"] = None
        n = run.state.hand_no + 1
        run.apply("system", "start_hand", {"seed_hex": f"{n:02d}" * 32, "deck": DECKS[min(n, 2) - 1], "dice": [1, 1]})

    monkeypatch.setattr("games.services.moves._start_hand", start)


def state_of(room) -> dict:
    return Table.objects.get(pk=room.pk).state


async def test_a_ride_above_the_largest_stake_is_taken_and_one_above_the_ride_is_refused(cast, no_resync, stacked):
    room, tabs = await seated_table(cast, overrides=RULES, bank=500)
    tabs_ = list(tabs.values())
    bob, chen = tabs["bob"], tabs["chen"]
    try:
        for name in ("bob", "chen", "dara"):
            assert acked(await tabs[name].act("bet", amount=20))
        for name in ("bob", "chen", "dara", "alice"):
            await catch_up(tabs_, room)
            assert acked(await tabs[name].act("stand")), name
        await catch_up(tabs_, room)
        won = next(e for e in bob.events("bet_settled") if e["bettor"] == bob.view["you"])
        assert (won["outcome"], won["paid"]) == ("win", 20)

        # The next hand (GAMES_NEXT_HAND_SECONDS is 0 in these tests): bob's ride, 20 + 20, public.
        await catch_up(tabs_, room)
        for _ in range(20):
            if bob.view["phase"] == "betting" and bob.view["hand_no"] == 2:
                break
            await bob.next()
        me = bob.view["you"]
        for tab in tabs_:
            assert tab.view["house"]["ride"] == {me: 40}
            assert [(e["seat"], e["cap"], e["stake"], e["win"]) for e in tab.events("ride_offered")] == [(me, 40, 20, 20)]

        # Above the ride, and above the largest stake without one: refused with their codes, nothing changes.
        before, state_before = await db(table_version)(room), await db(state_of)(room)
        frame = await bob.act("bet", amount=50, action_id="over-ride")
        assert (frame["type"], frame["code"], frame["action_id"], frame["version"]) == \
            ("error", "above_ride_cap", "over-ride", before)
        frame = await chen.act("bet", amount=30, action_id="over-max")
        assert (frame["type"], frame["code"], frame["version"]) == ("error", "bad_amount", before)
        assert await db(table_version)(room) == before and await db(state_of)(room) == state_before

        # Within the ride, above the room's 20: taken, and told to every tab.
        assert acked(await bob.act("bet", amount=40))
        await catch_up(tabs_, room)
        for tab in tabs_:
            assert tab.view["hand"]["bets"][me] == {"amount": 40, "confirmed": True}
            assert [(e["seat"], e["amount"]) for e in tab.events("ride_taken")] == [(me, 40)]
    finally:
        await close_all(tabs_)
