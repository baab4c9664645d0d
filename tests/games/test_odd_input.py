"""Input that looks almost right: digits that are not ASCII, JSON text that is not text (a lone surrogate), `true`
where an id goes, rule values past their ceiling. Each gets a clear refusal and changes nothing; none is a server
error (tests/games/test_fuzz.py sends the socket's random garbage)."""

import base64
import hashlib
import json
import zlib

import pytest

from accounts.models import ApiToken
from games import moderation, services
from games.engine.rules import AMOUNT_MAX
from games.models import Report, Room, Seat
from tests.games.conftest import browser

pytestmark = pytest.mark.django_db

SUPERSCRIPT_TWO = "\u00b2"  # "²": str.isdigit() says yes, int() says no


@pytest.fixture
def closed_room(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    services.room_close(room_id=room.pk, by=cast["alice"])
    return Room.objects.get(pk=room.pk)


@pytest.mark.parametrize("path", [
    "/r/{code}/ledger/?room=²", "/r/{code}/ledger.json?room=²", "/r/{code}/ledger.csv?room=²",
    "/r/{code}/settle.png?room=²", "/r/{code}/hands/?room=²", "/r/{code}/chain/?room=²",
    "/r/{code}/chain.json?room=²", "/r/{code}/hands/?upto=²", "/r/{code}/chain/?upto=²",
    "/r/{code}/chain.json?upto=²", "/r/²²²²/ledger/", "/r/²²²²/hands/",
])
def test_digits_that_are_not_ascii_in_a_url_are_no_server_error(cast, closed_room, server_errors, path):
    answer = browser(cast["bob"]).get(path.format(code=closed_room.code))
    assert answer.status_code in (200, 302, 404)
    assert server_errors == []


def test_a_buy_in_of_digits_that_are_not_ascii_is_refused_and_seats_nobody(cast, server_errors):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    answer = browser(cast["chen"]).post(f"/r/{room.code}/sit/", {"buy_in": SUPERSCRIPT_TWO * 3})
    assert answer.status_code == 302 and server_errors == []
    assert not Seat.objects.filter(room=room).exists()


def test_a_room_of_digits_that_are_not_ascii_on_play_again_is_no_server_error(cast, closed_room, server_errors):
    answer = browser(cast["alice"]).post(f"/r/{closed_room.code}/again/", {"room": SUPERSCRIPT_TWO})
    assert answer.status_code < 500 and server_errors == []


def rules_code_of(text: bytes) -> str:
    """A code as games/rules_codes.py packs one, with its check right, around any text: what a forger can make."""
    from games.rules_codes import _DICTIONARY_V1, CHECK_BYTES

    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, _DICTIONARY_V1)
    packed = hashlib.sha256(text).digest()[:CHECK_BYTES] + packer.compress(text) + packer.flush()
    return "h1." + base64.urlsafe_b64encode(packed).rstrip(b"=").decode()


LONE_SURROGATES = [
    b'["ten-half",{"mode":"\\ud800"}]',  # a value
    b'["ten-half",{"\\ud800":1}]',  # a setting's name
    b'["\\ud800",{}]',  # the preset
    b'["ten-half",{"payouts":{"\\ud800":1}}]',  # a hand class
]


def test_the_forged_codes_are_packed_right():
    """The same text without the surrogate is a code the site reads: the refusals below are for the surrogate."""
    from games.rules_codes import decode

    assert decode(rules_code_of(b'["ten-half",{"base_stake":20}]')).rules["base_stake"] == 20


@pytest.mark.parametrize("text", LONE_SURROGATES)
def test_a_rules_code_holding_a_lone_surrogate_is_refused_on_its_page_its_api_and_its_create(cast, server_errors,
                                                                                          text):
    code = rules_code_of(text)
    assert browser().get(f"/rules/code/{code}/").status_code == 400
    assert browser(cast["bob"]).get(f"/api/rules/codes/{code}/").status_code == 400
    created = browser(cast["bob"]).post(f"/rules/code/{code}/create/", {"kind": "humans", "currency": "beans"})
    assert created.status_code == 400
    assert server_errors == [] and not Room.objects.exists()


@pytest.mark.parametrize("body", [
    {"login": "bob", "password": "pw-long-enough-1", "name": "\ud800"},
    {"login": "\ud800", "password": "pw-long-enough-1"},
    {"login": "bob@example.com\ud800", "password": "pw-long-enough-1"},
    {"login": "bob", "password": "\ud800"},
], ids=["name", "login", "email", "password"])
def test_a_sign_in_holding_a_lone_surrogate_is_refused_and_makes_no_token(cast, server_errors, body):
    answer = browser().post("/api/tokens/", json.dumps(body), content_type="application/json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] in ("bad_field", "bad_name")
    assert server_errors == [] and not ApiToken.objects.exists()


def test_a_sign_in_without_the_surrogate_makes_its_token(cast):
    answer = browser().post("/api/tokens/", json.dumps({"login": "bob", "password": "pw-long-enough-1", "name": "é"}),
                            content_type="application/json")
    assert answer.status_code == 201 and ApiToken.objects.get().name == "é"


@pytest.mark.parametrize("kwargs", [{"target_user_id": True}, {"message_id": True}, {"target_user_id": False}])
def test_a_report_naming_true_for_an_id_is_refused(cast, kwargs):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    with pytest.raises(services.GameError) as e:
        moderation.report_create(reporter=cast["chen"], room_id=room.pk, reason="rude", **kwargs)
    assert e.value.code in ("no_player", "no_message")
    assert not Report.objects.exists()


def test_a_report_naming_a_real_user_id_is_filed(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    moderation.report_create(reporter=cast["chen"], room_id=room.pk, reason="rude", target_user_id=cast["bob"].pk)
    assert Report.objects.get().target_user_id == cast["bob"].pk


@pytest.mark.parametrize("rules", [
    {"payouts": {"ordinary": 101}}, {"payouts": {"ordinary": 2**64}}, {"base_stake_cap": 2**64},
    {"chip_values": [10, 2**64]}, {"max_bet": AMOUNT_MAX + 1}, {"bank_min_cover": 2**64},
], ids=["payout-101", "payout-2**64", "cap", "chip", "max_bet", "cover"])
def test_a_room_asked_with_a_rule_past_its_ceiling_is_refused_and_not_made(cast, server_errors, rules):
    answer = browser(cast["bob"]).post("/api/rooms/", json.dumps({"preset": "ten-half", "rules": rules}),
                                       content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_rules"
    assert server_errors == [] and not Room.objects.exists()


def test_the_lobby_form_refuses_a_chip_past_its_ceiling(cast, server_errors):
    from games.forms import KnobsForm

    form = KnobsForm("ten-half")
    data = {"preset": "ten-half", "kind": "humans", "currency": "beans", "ten-half-shown": "1", "spectators": "public"}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if value is not None and value is not False:
            data[form.add_prefix(name)] = field.prepare_value(value)
    data["ten-half-chip_values"] = f"10, 50, {2**64}"
    refused = browser(cast["bob"]).post("/lobby/create/", data)
    assert refused.status_code == 400 and server_errors == [] and not Room.objects.exists()
    data["ten-half-chip_values"] = "10, 50, 100"
    made = browser(cast["bob"]).post("/lobby/create/", data)
    assert made.status_code == 302 and Room.objects.get().rules["chip_values"] == [10, 50, 100]
