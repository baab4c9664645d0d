"""Connecting to the table socket: who may connect (a session, the site's Origin, no ban, an open room), the
snapshot on connecting, ping, presence, and a refresh that keeps the seat."""

import datetime

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from games import services
from games.consumers import CLOSE_FORBIDDEN, CLOSE_NO_ROOM, CLOSE_UNAUTHENTICATED
from games.models import RoomVisit, Seat
from tests.games.conftest import acked
from tests.games.sockets import (
    WAIT,
    Closed,
    Tab,
    catch_up,
    close_all,
    create_room,
    db,
    seated_table,
    session_cookie,
    table_version,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


# --- who may connect ----------------------------------------------------------------------------------


async def test_an_anonymous_visitor_is_closed_with_4401(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(None, room.code)
    with pytest.raises(Closed) as closed:
        await tab.open()
    assert closed.value.code == CLOSE_UNAUTHENTICATED and tab.frames == []


async def test_a_room_code_nobody_uses_is_closed_with_4404(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    unused = f"{(int(room.code) + 1) % 10_000:04d}"
    with pytest.raises(Closed) as closed:
        await Tab(cast["bob"], unused).open()
    assert closed.value.code == CLOSE_NO_ROOM


async def test_a_banned_user_gets_an_error_then_4403(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    bob = cast["bob"]
    bob.banned_until = timezone.now() + datetime.timedelta(days=1)
    await db(bob.save)()
    tab = Tab(bob, room.code)
    error = await tab.open()
    assert error["type"] == "error" and error["code"] == "banned"
    with pytest.raises(Closed) as closed:
        await tab.next()
    assert closed.value.code == CLOSE_FORBIDDEN
    assert not [f for _t, f in tab.frames if f["type"] == "snapshot"]


async def test_a_socket_from_another_site_is_refused_at_the_handshake(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    cookie = await db(session_cookie)(cast["bob"])
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/",
                                 headers=[(b"origin", b"https://evil.example"), (b"cookie", cookie)])
    connected, _code = await comm.connect(timeout=WAIT)
    assert connected is False


async def test_connecting_sends_a_snapshot_with_the_room_me_view_presence_and_chat(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    await db(services.chat_post)(room_id=room.pk, user=cast["alice"], text="welcome")
    tab = Tab(cast["bob"], room.code)
    try:
        snap = await tab.open()
        assert snap["type"] == "snapshot" and snap["version"] == 0
        assert snap["room"]["code"] == room.code and snap["room"]["started"] is False
        assert snap["me"] == {"user": cast["bob"].pk, "name": "Bob", "seat": None}
        assert snap["view"]["role"] == "spectator" and snap["view"]["legal_actions"] == []
        assert [m["text"] for m in snap["chat"]] == ["welcome"] and snap["presence"] == {}
        # The room hears of one more spectator (docs/protocol.md, "Spectators and TV mode"), this socket too.
        assert await tab.next(keep=("spectators",)) == {"type": "spectators", "count": 1, "users": [{"id": cast["bob"].pk, "name": "Bob"}],
                                    "version": 0}
        assert await tab.quiet()  # and nothing else until something happens
    finally:
        await tab.close()


# --- staying connected --------------------------------------------------------------------------------


async def test_ping_gets_a_pong_with_the_version(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        await tabs["bob"].send({"type": "ping"})
        assert await tabs["bob"].reply("pong") == {"type": "pong", "version": await db(table_version)(room)}
    finally:
        await close_all(tabs.values())


async def test_presence_follows_the_seated_players_connections(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        # Seated after connecting: connected, for everyone who draws the table from a snapshot.
        await tabs["chen"].send({"type": "snapshot"})
        snap = await tabs["chen"].reply("snapshot")
        assert set(snap["presence"].values()) == {True} and len(snap["presence"]) == 4
        seats = {tab.view["you"] for tab in tabs.values()}
        while len({f["seat"] for f in tabs["alice"].of("presence")}) < 4:  # each one's seat came online
            assert (await tabs["alice"].reply("presence"))["connected"] is True
        assert {f["seat"] for f in tabs["alice"].of("presence")} == seats
        bob_seat = tabs["bob"].view["you"]
        await tabs["bob"].close()
        frame = await tabs["alice"].reply("presence")
        assert frame == {"type": "presence", "seat": bob_seat, "connected": False, "version": tabs["alice"].version}
        tabs["bob"] = Tab(cast["bob"], room.code)
        snap = await tabs["bob"].open()
        assert snap["presence"][bob_seat] is True
        frame = await tabs["alice"].reply("presence")
        assert (frame["seat"], frame["connected"]) == (bob_seat, True)
    finally:
        await close_all(tabs.values())


async def test_a_spectator_who_only_opens_the_socket_is_recorded_as_a_visitor(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    assert not await db(RoomVisit.objects.filter(room=room, user=cast["bob"]).exists)()
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        # Who watched may read the room's later hand records (docs/rules.md, "Who may read a hand record").
        assert await db(RoomVisit.objects.filter(room=room, user=cast["bob"]).exists)()
    finally:
        await tab.close()


async def test_a_refresh_keeps_the_seat_and_the_snapshot_shows_my_face_down_card(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    try:
        for name in ("bob", "chen", "dara"):
            assert acked(await tabs[name].act("bet", amount=10))
        await catch_up(tabs.values(), room)
        seat = tabs["bob"].view["you"]
        card = tabs["bob"].view["hand"]["hands"][seat][0]["cards"][0]
        assert card["up"] is False  # Ten and a Half: the first card is face down
        assert tabs["chen"].view["hand"]["hands"][seat][0]["cards"] == [{"hidden": True}]

        await tabs["bob"].close()
        tabs["bob"] = Tab(cast["bob"], room.code)
        snap = await tabs["bob"].open()
        assert snap["me"]["seat"] == seat and snap["view"]["you"] == seat and snap["view"]["role"] == "main"
        assert snap["view"]["hand"]["hands"][seat][0]["cards"][0] == card
        assert snap["version"] == await db(table_version)(room)
        seats = await db(lambda: list(Seat.objects.filter(room=room, user=cast["bob"]).values_list("pk", "left_at")))()
        assert len(seats) == 1 and seats[0][1] is None  # the same seat, never left
    finally:
        await close_all(tabs.values())
