"""Room actions over the socket (docs/protocol.md, "Room actions"): sit with a role, a buy-in and a position;
leave, top up and I'm back; the host's start, kick and close, and a new host when the host leaves."""

import pytest

from games.consumers import CLOSE_NO_ROOM, CLOSE_ROOM_CLOSED
from games.models import Room
from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean
from tests.games.sockets import (
    Closed,
    Tab,
    catch_up,
    close_all,
    create_room,
    db,
    me,
    seated_table,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


async def test_sit_with_a_role_a_buy_in_and_a_position(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    bob, chen, dara = (Tab(cast[name], room.code) for name in ("bob", "chen", "dara"))
    try:
        for tab in (bob, chen, dara):
            await tab.open()
        assert acked(await bob.act("sit", buy_in=700, position=3))
        assert acked(await dara.act("sit", buy_in=200, role="side"))
        await catch_up([bob, chen, dara], room)
        assert (me(bob.view)["position"], me(bob.view)["stack"], bob.view["role"]) == (3, 700, "main")
        assert (me(dara.view)["role"], me(dara.view)["stack"], dara.view["role"]) == ("side", 200, "side")
        assert (await bob.act("sit", buy_in=700))["code"] == "already_seated"
        for args, code in [({"buy_in": 50}, "bad_buy_in"), ({"buy_in": 500, "role": "banker"}, "bad_role"),
                           ({"buy_in": 500, "position": 3}, "seat_taken"),
                           ({"buy_in": 500, "position": 9}, "bad_position"), ({"role": "main"}, "bad_buy_in")]:
            assert (await chen.act("sit", **args))["code"] == code, args
        assert chen.view["you"] is None and len(chen.view["seats"]) == 2
        # Bean holds back the stacks, nothing more.
        await db(assert_holds_match_table)(room)
        await db(assert_ledger_clean)()
    finally:
        await close_all([bob, chen, dara])


async def test_leave_top_up_and_im_back(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        assert (await tab.act("leave"))["code"] == "not_seated"
        await tab.act("sit", buy_in=300)
        assert acked(await tab.act("top_up", amount=200))
        await catch_up([tab], room)
        assert me(tab.view)["stack"] == 500
        assert (await tab.act("top_up", amount=600))["code"] == "bad_amount"  # above the largest buy-in
        assert (await tab.act("im_back"))["code"] == "not_away"
        assert acked(await tab.act("leave"))
        await catch_up([tab], room)
        assert tab.view["you"] is None and tab.view["role"] == "spectator" and tab.view["seats"] == []
        await db(assert_ledger_clean)()
    finally:
        await tab.close()


async def test_host_controls_start_kick_and_close(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        assert (await tabs["alice"].act("start"))["code"] == "wrong_phase"  # the bank is being offered
        dara_seat = tabs["dara"].view["you"]
        assert (await tabs["bob"].act("kick", seat=dara_seat))["code"] == "not_host"
        assert (await tabs["alice"].act("kick", seat="s999999"))["code"] == "not_seated"
        assert (await tabs["alice"].act("kick", seat=tabs["alice"].view["you"]))["code"] == "kick_self"
        assert acked(await tabs["alice"].act("kick", seat=dara_seat))
        await catch_up(tabs.values(), room)
        assert tabs["dara"].view["you"] is None and dara_seat not in {s["id"] for s in tabs["bob"].view["seats"]}
        assert (await tabs["dara"].act("sit", buy_in=500))["code"] == "kicked"

        assert (await tabs["bob"].act("close"))["code"] == "not_host"
        await tabs["alice"].send({"type": "action", "action": "close", "action_id": "bye"})
        for tab in tabs.values():
            with pytest.raises(Closed) as closed:
                while True:
                    await tab.next()
            assert closed.value.code == CLOSE_ROOM_CLOSED
            assert [f["type"] for f in tab.of("closed")] == ["closed"]
            assert tab.frames[-1][1]["type"] == "closed" and tab.frames[-2][1]["type"] in ("update", "ack")
        assert await db(lambda: Room.objects.get(pk=room.pk).status)() == Room.Status.CLOSED
        await db(assert_ledger_clean)()
        with pytest.raises(Closed) as closed:
            await Tab(cast["bob"], room.code).open()
        assert closed.value.code == CLOSE_NO_ROOM  # a closed room is no room to connect to
    finally:
        await close_all(tabs.values())


async def test_when_the_host_leaves_the_next_snapshot_names_the_new_host(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        assert acked(await tabs["alice"].act("leave"))
        await catch_up(tabs.values(), room)
        await tabs["chen"].send({"type": "snapshot"})
        snap = await tabs["chen"].reply("snapshot")
        hosts = [s["id"] for s in snap["view"]["seats"] if s["host"]]
        assert hosts == [tabs["bob"].view["you"]]  # bob sat first after alice
        assert snap["room"]["host"] == {"id": cast["bob"].pk, "name": "Bob"}
        assert acked(await tabs["bob"].act("kick", seat=tabs["dara"].view["you"]))
    finally:
        await close_all(tabs.values())
