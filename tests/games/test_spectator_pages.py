"""Spectators by consent over HTTP (docs/rules.md, "Spectators"; docs/api.md): the room's setting on the create form
and the API, the room page of a room without spectators (a seat to take, not the table), the sit-down form behind it
and the API's seat; every bad input refused with nothing changed."""

import pytest
from django.test import Client

from games import services
from games.models import Room, RoomVisit, Seat, Table
from tests.api.conftest import call, token_of

pytestmark = pytest.mark.django_db(transaction=True)


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def as_is(room) -> tuple:
    t = Table.objects.get(pk=room.pk)
    return t.version, t.state, t.meta, Room.objects.get(pk=room.pk).spectators


def test_the_create_form_sets_who_may_watch(cast):
    alice = browser(cast["alice"])
    form = {"preset": "ten-half", "kind": "humans", "currency": "beans"}
    response = alice.post("/lobby/create/", {**form, "spectators": "tv"})
    assert response.status_code == 302
    assert Room.objects.get(host=cast["alice"]).spectators == "tv"
    assert "TV mode" in alice.get("/lobby/").content.decode()  # the form offers the setting
    for bad in ("everyone", "TV", "1"):
        response = alice.post("/lobby/create/", {**form, "spectators": bad})
        assert response.status_code == 400, bad
    assert Room.objects.filter(host=cast["alice"]).count() == 1
    alice.post("/lobby/create/", form)  # left out: the default, public
    assert Room.objects.filter(host=cast["alice"]).order_by("-pk").first().spectators == "public"


def test_a_room_without_spectators_shows_a_seat_to_take_not_the_table(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half", spectators="none")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    page = browser(cast["chen"]).get(f"/r/{room.code}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="sit-to-watch"' in html and "take a seat to watch" in html and 'id="felt"' not in html
    for seated_or_host in ("alice", "bob"):
        page = browser(cast[seated_or_host]).get(f"/r/{room.code}/")
        assert page.status_code == 200 and 'id="felt"' in page.content.decode(), seated_or_host

    chen = browser(cast["chen"])
    before = as_is(room)
    for bad in ("", "abc", "-5", "1e3", "99999999999", "5"):  # 5: below the smallest buy-in
        response = chen.post(f"/r/{room.code}/sit/", {"buy_in": bad})
        assert response.status_code == 302 and as_is(room) == before, bad
    assert chen.get(f"/r/{room.code}/sit/").status_code == 405
    response = chen.post(f"/r/{room.code}/sit/", {"buy_in": "500"})
    assert response.status_code == 302 and response["Location"] == f"/r/{room.code}/"
    assert Seat.objects.filter(room=room, user=cast["chen"], left_at__isnull=True).exists()
    assert chen.get(f"/r/{room.code}/").status_code == 200


def test_a_removed_spectator_is_told_so(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    table = Table.objects.get(pk=room.pk)
    table.meta = {**table.meta, "watch_removed": [cast["dara"].pk]}
    table.save(update_fields=["meta"])
    page = browser(cast["dara"]).get(f"/r/{room.code}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "The host asked you not to watch this room." in html and 'id="sit-to-watch"' not in html
    assert browser(cast["chen"]).get(f"/r/{room.code}/").status_code == 200


def test_the_api_creates_rooms_with_the_setting_and_seats_without_the_socket(client, cast):
    token = token_of(cast["alice"])
    status, answer = call(client, "POST", "/api/rooms/", token=token, body={"preset": "ten-half", "spectators": "none"})
    assert status == 201 and answer["spectators"] == "none"
    code = answer["code"]
    for bad in ("all", 3, None, ""):
        status, answer = call(client, "POST", "/api/rooms/", token=token, body={"preset": "ten-half", "spectators": bad})
        assert status == 400 and answer["error"]["code"] in ("bad_spectators", "bad_field"), bad
    assert Room.objects.filter(host=cast["alice"]).count() == 1

    room = Room.objects.get(code=code, status="open")
    bob = token_of(cast["bob"])
    status, answer = call(client, "GET", f"/api/rooms/{code}/", token=bob)  # what bob needs to sit, no visit
    assert status == 200 and answer["me"]["seat"] is None and answer["spectators"] == "none"
    assert not RoomVisit.objects.filter(room=room, user=cast["bob"]).exists()
    before = as_is(room)
    for body, error in (({"buy_in": "500"}, "bad_amount"), ({"buy_in": 5}, "bad_buy_in"),
                        ({"buy_in": 500, "role": "dealer"}, "bad_role"), ({"buy_in": 500, "position": 99}, "bad_position")):
        status, answer = call(client, "POST", f"/api/rooms/{code}/seat/", token=bob, body=body)
        assert status == 400 and answer["error"]["code"] == error, (body, answer)
        assert as_is(room) == before, body
    status, answer = call(client, "POST", f"/api/rooms/{code}/seat/", token=bob, body={"buy_in": 500})
    assert status == 201 and answer["me"]["seat"] is not None
    status, answer = call(client, "POST", f"/api/rooms/{code}/seat/", token=bob, body={"buy_in": 500})
    assert status == 400 and answer["error"]["code"] == "already_seated"


def test_a_moderator_sets_who_may_watch_in_the_admin(cast, admin_client, monkeypatch):
    sent = []
    monkeypatch.setattr("games.broadcast.room_frame", lambda room_id, frame: sent.append((room_id, frame)))
    room = services.room_create(host=cast["alice"], preset="ten-half")
    url = f"/admin/games/room/{room.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and 'name="spectators"' in page.content.decode()
    form = {"club": "", "seats-TOTAL_FORMS": "0", "seats-INITIAL_FORMS": "0", "seats-MIN_NUM_FORMS": "0",
            "seats-MAX_NUM_FORMS": "1000"}
    assert admin_client.post(url, {**form, "spectators": "everyone"}).status_code == 200  # the form's error
    assert Room.objects.get(pk=room.pk).spectators == "public"
    response = admin_client.post(url, {**form, "spectators": "none"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Room.objects.get(pk=room.pk).spectators == "none"
    # Through the service: the room's sockets hear of it (and those without a seat close).
    assert sent == [(room.pk, {"type": "spectators_mode", "mode": "none", "host": cast["alice"].pk})]
