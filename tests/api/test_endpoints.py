"""The API's endpoints (docs/api.md): 401 without a token or a session, 404 for what the user may not see, JSON
errors with stable codes for bad input and nothing changed, rooms made by the lobby's service, join by code, the
user's records and a hand record only for whom may read it (games.selectors.hands_visible_to)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.models import Hand, Room, Seat
from tests.api.conftest import call, token_of
from tests.games.conftest import act, bet_all, make_player, play_out, ten_half_table

pytestmark = pytest.mark.django_db(transaction=True)

ENDPOINTS = [("GET", "/api/me/"), ("DELETE", "/api/tokens/current/"), ("GET", "/api/games/"),
             ("GET", "/api/rooms/"), ("POST", "/api/rooms/"), ("GET", "/api/rooms/1234/"),
             ("GET", "/api/rooms/1234/hands/"), ("GET", "/api/records/"), ("GET", "/api/hands/abc/")]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_every_endpoint_but_sign_in_answers_401_without_a_token_or_a_session(client, cast, method, path):
    status, answer = call(client, method, path)
    assert (status, answer["error"]["code"]) == (401, "login_required")
    for header in ("Bearer hpt_unknown", "Bearer ", "Basic Ym9iOnB3", "hpt_nothing"):
        response = client.generic(method, path, headers={"Authorization": header})
        assert (response.status_code, response.json()["error"]["code"]) == (401, "bad_token"), header
        assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_path_or_method_the_api_does_not_have_is_a_json_error(client, cast):
    token = token_of(cast["bob"])
    for path in ("/api/", "/api/nope/", "/api/rooms", "/api/rooms/1234/seats/"):
        status, answer = call(client, "POST", path, token=token)
        assert (status, answer["error"]["code"]) == (404, "not_found"), path
    status, answer = call(client, "PUT", "/api/rooms/", token=token)
    assert (status, answer["error"]["code"]) == (405, "method_not_allowed")


BAD_BODIES = [b"{", b"[1]", b'"rooms"', b"NaN", b'{"preset": "ten-half", "buy_in_min": NaN}',
              b'{"preset": "ten-half", "rules": {"base_stake": Infinity}}', b"\xff\xfe{", b"[" * 16_000]


@pytest.mark.parametrize("raw", BAD_BODIES, ids=range(len(BAD_BODIES)))
def test_a_body_that_is_not_one_json_object_is_bad_json_and_changes_nothing(client, cast, raw):
    token = token_of(cast["bob"])
    for path in ("/api/rooms/", "/api/tokens/"):
        status, answer = call(client, "POST", path, token=token, raw=raw)
        assert (status, answer["error"]["code"]) == (400, "bad_json"), path
    assert not Room.objects.exists()


def test_a_body_over_16_kib_is_refused_unread(client, cast):
    status, answer = call(client, "POST", "/api/rooms/", token=token_of(cast["bob"]),
                          body={"preset": "ten-half", "pad": "x" * 17_000})
    assert (status, answer["error"]["code"]) == (413, "too_big")
    assert not Room.objects.exists()


@pytest.mark.parametrize(("body", "code", "field"), [
    ({}, "bad_field", "preset"),
    ({"preset": ["ten-half"]}, "bad_field", "preset"),
    ({"preset": "poker"}, "bad_field", "preset"),
    ({"preset": "ten-half", "rules": [1]}, "bad_field", "rules"),
    ({"preset": "ten-half", "rules": {"base_stake": "ten"}}, "invalid_rules", "base_stake"),
    ({"preset": "ten-half", "rules": {"no_such_knob": 1}}, "invalid_rules", "no_such_knob"),
    ({"preset": "ten-half", "rules": {"game": "ban-luck"}}, "invalid_rules", "game"),
    ({"preset": "ten-half", "currency": 5}, "bad_field", "currency"),
    ({"preset": "ten-half", "currency": "dollars"}, "bad_currency", None),
    ({"preset": "ten-half", "kind": "robots"}, "bad_kind", None),
    ({"preset": "ten-half", "buy_in_min": "100"}, "bad_buy_in", None),
    ({"preset": "ten-half", "buy_in_min": 500, "buy_in_max": 400}, "bad_buy_in", None),
    ({"preset": "ten-half", "buy_in_min": 10**30, "buy_in_max": 10**31}, "bad_buy_in", "buy_in_min"),
    ({"preset": "ten-half", "buy_in_max": 2**31}, "bad_buy_in", "buy_in_max"),
    ({"preset": "zhejiang-ten-half", "rules": {"mode": []}}, "invalid_rules", "mode"),
    ({"preset": "ten-half", "variant": 99}, "bad_field", "variant"),
])
def test_a_room_the_lobby_would_refuse_is_refused_with_the_same_code(client, cast, body, code, field):
    status, answer = call(client, "POST", "/api/rooms/", token=token_of(cast["bob"]), body=body)
    assert status == 400 and answer["error"]["code"] == code and answer["error"].get("field") == field, answer
    assert not Room.objects.exists()


@pytest.mark.parametrize(("language", "message"), [
    ("en", "base_stake: must be at least 1"),  # docs/api.md's example
    ("zh-hans", "base_stake: 不能小于 1"), ("it", "base_stake: deve essere almeno 1"),
])
def test_the_engines_refusal_of_the_rules_is_in_the_readers_language_as_every_message(cast, language, message):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    status, answer = call(client, "POST", "/api/rooms/", token=token_of(cast["bob"]),
                          body={"preset": "ten-half", "rules": {"base_stake": 0}})
    assert status == 400 and answer["error"] == {"code": "invalid_rules", "message": message, "field": "base_stake"}


def test_a_room_is_made_by_the_lobbys_service_and_listed(client, cast):
    token = token_of(cast["alice"])
    status, room = call(client, "POST", "/api/rooms/", token=token, body={
        "preset": "seven-half", "rules": {"base_stake": 20, "house_rules": True}, "currency": "points",
        "buy_in_min": 200, "buy_in_max": 3000})
    assert status == 201
    made = Room.objects.get()
    assert (made.host, made.preset, made.overrides, made.currency, made.buy_in_min, made.buy_in_max) == (
        cast["alice"], "seven-half", {"base_stake": 20, "house_rules": True}, "points", 200, 3000)
    assert room["code"] == made.code and room["rules"] == made.rules and room["rules"]["house_rules"] is True
    assert room["socket_url"] == f"ws://testserver/ws/rooms/{made.code}/"
    assert room["me"] == {"user": cast["alice"].pk, "seat": None} and room["seats"] == []
    status, listed = call(client, "GET", "/api/rooms/", token=token)
    assert [r["code"] for r in listed["rooms"]] == [made.code] and listed["rooms"][0]["is_host"] is True
    assert call(client, "GET", "/api/rooms/", token=token_of(cast["bob"]))[1] == {"rooms": []}


def test_a_session_request_passes_the_csrf_check_and_a_token_request_needs_none(cast):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(cast["alice"])
    status, answer = call(browser, "POST", "/api/rooms/", body={"preset": "ten-half"})
    assert (status, answer["error"]["code"]) == (403, "csrf_failed")
    assert not Room.objects.exists()
    browser.get("/profile/")  # sets the CSRF cookie, as any page does
    response = browser.post("/api/rooms/", {"preset": "ten-half"}, content_type="application/json",
                            headers={"X-CSRFToken": browser.cookies["csrftoken"].value})
    assert response.status_code == 201
    assert call(Client(enforce_csrf_checks=True), "POST", "/api/rooms/", token=token_of(cast["bob"]),
                body={"preset": "ten-half"})[0] == 201


def test_joining_by_code_gives_the_rooms_configuration_and_the_users_seat(client, cast):
    room = ten_half_table(cast)
    status, config = call(client, "GET", f"/api/rooms/{room.code}/", token=token_of(cast["bob"]))
    assert status == 200
    seats = {s["name"]: s for s in config["seats"]}
    bob_seat = Seat.objects.get(room=room, user=cast["bob"])
    assert seats["Bob"] == {"id": bob_seat.engine_id, "user": cast["bob"].pk, "name": "Bob", "role": "main",
                            "position": bob_seat.position, "bot": None, "connected": False, "away": False}
    assert config["me"] == {"user": cast["bob"].pk, "seat": bob_seat.engine_id}
    assert (config["code"], config["preset"], config["started"], config["host"]["id"]) == (
        room.code, "ten-half", True, cast["alice"].pk)
    assert config["vote_anytime"] is False  # votes to end the room wait for the host to be away
    services.vote_anytime(room_id=room.pk, user=cast["alice"], allow=True)
    assert call(client, "GET", f"/api/rooms/{room.code}/", token=token_of(cast["bob"]))[1]["vote_anytime"] is True


def test_a_room_that_is_not_open_or_not_the_users_to_enter_is_refused(client, cast):
    token = token_of(cast["bob"])
    for code in ("0000", "abcd", "12345"):
        status, answer = call(client, "GET", f"/api/rooms/{code}/", token=token)
        assert (status, answer["error"]["code"]) == (404, "no_room"), code
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.room_close(room_id=room.pk, by=cast["alice"])
    assert call(client, "GET", f"/api/rooms/{room.code}/", token=token)[0] == 404
    from games import clubs

    club = clubs.club_create(owner=cast["alice"], name="Night owls")
    club_room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    for path in (f"/api/rooms/{club_room.code}/", f"/api/rooms/{club_room.code}/hands/"):
        status, answer = call(client, "GET", path, token=token)
        assert (status, answer["error"]["code"]) == (403, "club_members_only"), path


def finished_hand(cast) -> Hand:
    """alice banks; bob, chen and dara stake 20 and stand: hand 1 is over."""
    room = ten_half_table(cast)
    bet_all(room, cast)
    play_out(room)
    return Hand.objects.get(room=room, number=1)


def test_the_users_records_and_the_hand_record(client, cast):
    hand = finished_hand(cast)
    token = token_of(cast["bob"])
    status, records = call(client, "GET", "/api/records/", token=token)
    assert status == 200 and records["count"] == 1
    (row,) = records["records"]
    assert (row["key"], row["room"], row["number"], row["role"], row["currency"]) == (
        hand.key, hand.room.code, 1, "challenger", "beans")
    assert row["net"] == hand.players.get(user=cast["bob"]).delta and row["url"] == f"/api/hands/{hand.key}/"
    assert records["totals"] == [{"currency": "beans", "net": row["net"]}]
    status, record = call(client, "GET", row["url"], token=token)
    assert status == 200 and (record["seed"], record["commitment"]) == (hand.seed, hand.commitment)
    assert {p["user"]: p["net"] for p in record["players"]} == dict(hand.players.values_list("user", "delta"))
    assert [e["type"] for e in record["events"]][-1] == "hand_over"
    status, listed = call(client, "GET", f"/api/rooms/{hand.room.code}/hands/", token=token)
    assert [h["key"] for h in listed["hands"]] == [hand.key]


def test_records_filter_and_page_and_refuse_a_bad_parameter(client, cast):
    finished_hand(cast)
    token = token_of(cast["bob"])
    assert call(client, "GET", "/api/records/?preset=ban-luck", token=token)[1]["count"] == 0
    assert call(client, "GET", "/api/records/?limit=1&offset=1", token=token)[1]["records"] == []
    for query in ("limit=0", "limit=201", "offset=-1", "limit=²", "preset=poker", "room=12%0034", "room=abcd"):
        status, answer = call(client, "GET", f"/api/records/?{query}", token=token)
        assert (status, answer["error"]["code"]) == (400, "bad_field"), query


def test_a_hand_record_is_404_for_whoever_may_not_read_it(client, cast):
    hand = finished_hand(cast)
    erin = make_player("erin")
    for path in (f"/api/hands/{hand.key}/", f"/api/hands/{hand.pk}/", "/api/hands/nothing-like-a-key/"):
        status, answer = call(client, "GET", path, token=token_of(erin))
        assert (status, answer["error"]["code"]) == (404, "no_hand"), path
    assert call(client, "GET", "/api/hands/%00/", token=token_of(erin))[0] == 404
    assert call(client, "GET", f"/api/rooms/{hand.room.code}/hands/", token=token_of(erin))[1] == {"hands": []}


def test_joining_by_code_makes_a_watcher_who_reads_the_rooms_next_hands(client, cast):
    room = ten_half_table(cast)
    erin = make_player("erin")
    token = token_of(erin)
    assert call(client, "GET", f"/api/rooms/{room.code}/", token=token)[0] == 200  # before the hand ends
    bet_all(room, cast)
    play_out(room)
    hand = Hand.objects.get(room=room, number=1)
    assert call(client, "GET", f"/api/hands/{hand.key}/", token=token)[0] == 200


def test_a_banned_user_is_refused_everywhere_with_403(client, cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    token = token_of(cast["bob"])
    type(cast["bob"]).objects.filter(pk=cast["bob"].pk).update(banned_until=timezone.now() + timedelta(days=1))
    for method, path in (("GET", f"/api/rooms/{room.code}/"), ("POST", "/api/rooms/"), ("GET", "/api/records/")):
        status, answer = call(client, method, path, token=token, body={"preset": "ten-half"})
        assert (status, answer["error"]["code"]) == (403, "banned"), path
    act(room, cast["alice"], "sit", buy_in=500)  # the room itself goes on
