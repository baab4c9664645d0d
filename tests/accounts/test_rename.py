"""A renamed player shows under the new name at every table they sit at, live: each table gets a new version
with a `seat_updated` event (accounts/views.py `profile`, games/services/names.py, engine `set_seat`)."""

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from games import services
from games.models import HandEvent, Table
from tests.games.conftest import _table_settings, cast, no_resync, ten_half_table  # noqa: F401 (fixtures)
from tests.games.sockets import Tab, catch_up, close_all, db

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]


def rename(user, name: str):
    client = Client()
    client.force_login(user)
    response = client.post(reverse("profile"), {"display_name": name, "avatar_colour": user.avatar_colour})
    assert response.status_code == 302
    return response


def seat_name(room, user) -> str:
    table = Table.objects.get(pk=room.pk)
    seat_id = table.meta["users"][str(user.pk)]
    return next(x["name"] for x in table.state["seats"] if x["id"] == seat_id)


def version(room) -> int:
    return Table.objects.values_list("version", flat=True).get(pk=room.pk)


def test_a_rename_reaches_every_table_the_player_sits_at_and_none_they_left(cast):  # noqa: F811
    bob = cast["bob"]
    playing = ten_half_table(cast)  # a hand in its betting phase
    waiting = services.room_create(host=cast["chen"], preset="seven-half")
    services.seat_take(room_id=waiting.pk, user=bob, buy_in=300)
    left = services.room_create(host=cast["dara"], preset="ten-half")
    services.seat_take(room_id=left.pk, user=bob, buy_in=300)
    services.seat_leave(room_id=left.pk, user=bob)
    before = {room.pk: version(room) for room in (playing, waiting, left)}

    rename(bob, "Bob the Bold")

    for room in (playing, waiting):
        assert seat_name(room, bob) == "Bob the Bold"
        assert version(room) == before[room.pk] + 1
        event = HandEvent.objects.filter(room=room).latest("version", "seq")
        assert (event.version, event.type, event.data["name"]) == (version(room), "seat_updated", "Bob the Bold")
    assert version(left) == before[left.pk]
    # The hand under way goes on: the betting phase and bob's seat are as they were.
    assert Table.objects.get(pk=playing.pk).state["phase"] == "betting"


def test_saving_the_profile_without_a_new_name_changes_no_table(cast):  # noqa: F811
    bob = cast["bob"]
    room = ten_half_table(cast)
    v = version(room)
    rename(bob, bob.display_name)  # only the colour form is sent again
    assert version(room) == v and seat_name(room, bob) == "Bob"
    # An empty display name falls back to the username: that is the name the table shows then.
    rename(bob, "")
    assert seat_name(room, bob) == "bob" and version(room) == v + 1


def test_the_engine_refuses_a_name_that_is_not_a_short_text(cast):  # noqa: F811
    from django.db import transaction

    from games.services.run import _locked

    room = ten_half_table(cast)
    seat_id = Table.objects.get(pk=room.pk).meta["users"][str(cast["bob"].pk)]
    for bad in ("", "x" * 151, 7):
        with transaction.atomic(), pytest.raises(Exception) as e:
            _locked(room.pk).apply("system", "set_seat", {"seat": seat_id, "name": bad})
        assert getattr(e.value, "code", None) == "bad_command"


async def test_every_viewer_of_every_table_sees_the_new_name_live(cast, no_resync):  # noqa: F811 (fixtures)
    bob = cast["bob"]
    one = await db(ten_half_table)(cast)
    two = await db(services.room_create)(host=cast["chen"], preset="seven-half")
    await db(services.seat_take)(room_id=two.pk, user=bob, buy_in=300)
    watchers = [Tab(cast["dara"], one.code), Tab(cast["chen"], two.code), Tab(bob, one.code)]
    try:
        for tab in watchers:
            await tab.open()
        await sync_to_async(rename)(bob, "Bobby")
        for tab, room in zip(watchers, (one, two, one), strict=True):
            await catch_up([tab], room)
            names = {x["name"] for x in tab.view["seats"]}
            assert "Bobby" in names and "Bob" not in names, (tab.user.username, names)
            assert any(e.get("name") == "Bobby" for e in tab.events("seat_updated"))
    finally:
        await close_all(watchers)
