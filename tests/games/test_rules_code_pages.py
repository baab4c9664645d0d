"""A rules code on the site (games/rules_code_views.py, games/rules_code_api.py; docs/api.md "Rules codes"): the room's
rules tab and a game's rules page share their rules as a code; the code's page words them in the reader's language,
draws the QR code of its link and makes a room whose rules are the original's; a refused code, a visitor without an
account and a wrong form make nothing.

The cast: alice hosts a room of house rules, bob opens her code in Chinese, chen in Italian."""

import html
import io
import re
from datetime import timedelta

import pytest
import segno
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.engine import PRESETS
from games.models import Room, Table
from games.rules_codes import MAX_CODE, decode, rules_code
from tests.api.conftest import call, token_of
from tests.games.test_rules_codes import GOOD, of, pack

pytestmark = pytest.mark.django_db

CHANGES = {"base_stake": 20, "bank_turn_hands": 5, "bank_auction": True, "push_cap": 10, "payouts": {"five-dragons": 3}}
# One code of each refusal (games/rules_codes.py REFUSALS).
REFUSED = {
    "code_too_long": "h1." + "A" * MAX_CODE, "code_garbled": "not-a-code", "code_version": pack(b'["ten-half",{}]', version=2),
    "code_truncated": GOOD[:-3], "code_checksum": pack(b'["ten-half",{}]', check=b"abc"),
    "unknown_preset": of("poker", {}), "unknown_knob": of("ten-half", {"jokers_wild": True}),
    "bad_value_type": of("ten-half", {"base_stake": "20"}), "value_out_of_range": of("ten-half", {"base_stake": 0}),
    "rules_refused": of("ten-half", {"matta": "king-of-coins"}),
}


def client_of(user=None, language: str | None = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language) if language else Client()
    if user is not None:
        if language:
            user.language = language
            user.save(update_fields=["language"])
        client.force_login(user)
    return client


@pytest.fixture
def room(cast):
    return services.room_create(host=cast["alice"], preset="ten-half", overrides=CHANGES)


def shared_link(page: str) -> str:
    found = re.search(r'href="([^"]+)" id="rules-share-link"', page)
    assert found, "no share link"
    return html.unescape(found.group(1))


def code_in(link: str) -> str:
    return re.search(r"/rules/code/([^/]+)/$", link).group(1)


def rooms_as_they_are() -> tuple:
    return Room.objects.count(), Table.objects.count(), list(Room.objects.values_list("pk", "rules"))


def test_the_rooms_rules_tab_shares_the_code_of_the_rules_the_room_plays(room, cast):
    page = client_of(cast["alice"]).get(f"/r/{room.code}/").content.decode()
    link = shared_link(page)
    assert link.startswith("http://testserver/rules/code/h1.")
    assert decode(code_in(link)).rules == Room.objects.get(pk=room.pk).rules
    assert 'id="rules-share-button"' in page and 'id="rules-share-qr"' in page
    # The host changes the rules at the table: the tab shares the new ones.
    services.room_rules_update(room_id=room.pk, overrides={**CHANGES, "base_stake": 50})
    link = shared_link(client_of(cast["alice"]).get(f"/r/{room.code}/").content.decode())
    assert decode(code_in(link)).overrides["base_stake"] == 50


def test_a_room_whose_rules_are_too_big_for_a_code_offers_no_share(cast):
    chips = [i * 7919 % 99991 + 1 for i in range(600)]
    big = services.room_create(host=cast["alice"], preset="ten-half", overrides={"chip_values": chips})
    page = client_of(cast["alice"]).get(f"/r/{big.code}/").content.decode()
    assert 'id="rules-panel"' in page and 'id="rules-share"' not in page


def test_each_games_rules_page_shares_the_code_of_its_preset():
    for preset, rules in PRESETS.items():
        link = shared_link(Client().get(f"/rules/{preset}/").content.decode())
        found = decode(code_in(link))
        assert (found.preset, found.overrides, found.rules) == (preset, {}, rules.to_json())


def test_the_codes_page_words_the_rules_in_the_readers_language(room, cast):
    code = rules_code("ten-half", room.rules)
    english = Client().get(f"/rules/code/{code}/").content.decode()
    chinese = client_of(cast["bob"], "zh-hans").get(f"/rules/code/{code}/").content.decode()
    italian = client_of(cast["chen"], "it").get(f"/rules/code/{code}/").content.decode()
    for page, base_stake, lang in ((english, "Base stake", "en"), (chinese, "底注", "zh-hans"),
                                   (italian, "Puntata base", "it")):
        assert f'<html lang="{lang}"' in page
        changes = re.search(r'<ul class="overrides" id="rules-code-changes">(.*?)</ul>', page, re.S).group(1)
        assert re.findall(r'data-knob="([\w.-]+)"', changes) == [
            "base_stake", "payouts.five-dragons", "bank_turn_hands", "bank_auction", "push_cap"]
        assert f"<strong>{base_stake}</strong>: 20" in changes
        assert f'value="http://testserver/rules/code/{code}/"' in page and f'value="{code}"' in page


def test_a_visitor_without_an_account_reads_the_rules_and_is_asked_to_log_in_to_create():
    page = Client().get(f"/rules/code/{GOOD}/").content.decode()
    assert 'id="rules-code-login"' in page and 'id="rules-code-form"' not in page
    # A chat's preview of the link says what it is.
    assert '<meta property="og:title" content="House rules of Ten and a Half">' in page
    assert f'<meta property="og:url" content="http://testserver/rules/code/{GOOD}/">' in page
    response = Client().post(f"/rules/code/{GOOD}/create/", {"kind": "humans", "currency": "beans"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Room.objects.count() == 0


def test_creating_a_room_from_a_code_gives_it_the_rules_of_the_original(room, cast):
    code = rules_code("ten-half", room.rules)
    before = Room.objects.count()
    response = client_of(cast["bob"], "zh-hans").post(f"/rules/code/{code}/create/", {
        "kind": "humans", "currency": "points", "buy_in_min": "300", "buy_in_max": "3000"})
    assert response.status_code == 302
    made = Room.objects.exclude(pk=room.pk).get()
    assert Room.objects.count() == before + 1 and response["Location"] == f"/r/{made.code}/"
    assert (made.host, made.preset, made.rules) == (cast["bob"], "ten-half", room.rules)
    assert (made.currency, made.buy_in_min, made.buy_in_max, made.kind) == ("points", 300, 3000, "humans")
    assert Table.objects.filter(pk=made.pk).exists()


def test_every_preset_and_a_practice_room_with_bots_come_out_of_their_codes(cast):
    client = client_of(cast["bob"])
    for preset, rules in PRESETS.items():
        code = rules_code(preset, rules.to_json())
        response = client.post(f"/rules/code/{code}/create/", {"kind": "ai", "currency": "beans"})
        made = Room.objects.get(pk=int(Room.objects.latest("pk").pk))
        assert response.status_code == 302 and made.preset == preset and made.rules == rules.to_json()
        assert (made.kind, made.currency) == ("ai", "points")  # practice with bots is always for points


@pytest.mark.parametrize("refusal", list(REFUSED))
def test_a_refused_code_shows_why_and_creates_nothing(refusal, room, cast):
    code = REFUSED[refusal]
    before = rooms_as_they_are()
    client = client_of(cast["bob"])
    for response in (client.get(f"/rules/code/{code}/"),
                     client.post(f"/rules/code/{code}/create/", {"kind": "humans", "currency": "beans"})):
        assert response.status_code == 400
        page = response.content.decode()
        assert f'data-refusal="{refusal}"' in page and 'id="rules-code-form"' not in page
    assert client.get(f"/rules/code/{code}/qr.svg").status_code == 404
    assert rooms_as_they_are() == before


@pytest.mark.parametrize("form, field", [
    ({"kind": "humans", "currency": "gold"}, "currency"), ({"kind": "club", "currency": "beans"}, "kind"),
    ({"currency": "beans"}, "kind"), ({"kind": "humans", "currency": "beans", "buy_in_min": "900", "buy_in_max": "100"},
                                     "buy_in_min"),
    ({"kind": "humans", "currency": "beans", "buy_in_min": "5"}, "buy_in_min"),  # below one stake (20)
    ({"kind": "humans", "currency": "beans", "buy_in_max": "9999999999"}, None),
    ({"kind": "humans", "currency": "beans", "buy_in_min": "ten"}, "buy_in_min"),
])
def test_a_wrong_room_form_shows_the_code_again_and_creates_nothing(form, field, room, cast):
    code = rules_code("ten-half", room.rules)
    before = rooms_as_they_are()
    response = client_of(cast["bob"]).post(f"/rules/code/{code}/create/", form)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="rules-code-form"' in page and "errorlist" in page
    if field in ("buy_in_min", "buy_in_max"):
        assert f'has-error" id="field-{field}"' in page
    assert rooms_as_they_are() == before


def test_creating_needs_a_post_and_a_banned_player_creates_nothing(room, cast):
    code = rules_code("ten-half", room.rules)
    assert client_of(cast["bob"]).get(f"/rules/code/{code}/create/").status_code == 405
    cast["dara"].banned_until = timezone.now() + timedelta(days=1)
    cast["dara"].save()
    before = rooms_as_they_are()
    client_of(cast["dara"]).post(f"/rules/code/{code}/create/", {"kind": "humans", "currency": "beans"})
    assert rooms_as_they_are() == before


def test_the_qr_code_is_the_link_of_the_codes_page(room):
    code = rules_code("ten-half", room.rules)
    response = Client().get(f"/rules/code/{code}/qr.svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    made = io.BytesIO()
    segno.make(f"http://testserver/rules/code/{code}/", error="m").save(made, kind="svg", border=2, omitsize=True)
    assert response.content == made.getvalue()
    assert b"viewBox" in response.content


def test_the_api_makes_a_code_and_reads_it_back(cast):
    token = token_of(cast["alice"])
    status, made = call(Client(), "POST", "/api/rules/codes/", token=token, body={"preset": "ten-half", "rules": CHANGES})
    assert status == 200 and made["code"].startswith("h1.") and made["version"] == 1
    assert made["page_url"] == f"http://testserver/rules/code/{made['code']}/"
    status, read = call(Client(), "GET", f"/api/rules/codes/{made['code']}/", token=token)
    assert status == 200 and read == made
    assert read["changes"] == CHANGES and read["rules"]["base_stake"] == 20


@pytest.mark.parametrize("refusal", list(REFUSED))
def test_the_api_answers_each_refusal_with_its_code(refusal, cast):
    status, answer = call(Client(), "GET", f"/api/rules/codes/{REFUSED[refusal]}/", token=token_of(cast["alice"]))
    assert status == 400 and answer["error"]["code"] == refusal and answer["error"]["message"]


@pytest.mark.parametrize("body, code, field", [
    ({"preset": "poker"}, "bad_field", "preset"), ({}, "bad_field", "preset"),
    ({"preset": "ten-half", "rules": [1]}, "bad_field", "rules"),
    ({"preset": "ten-half", "rules": {"base_stake": 0}}, "invalid_rules", "base_stake"),
    ({"preset": "ten-half", "rules": {"chip_values": [i * 7919 % 99991 + 1 for i in range(600)]}},
     "code_too_long", "rules"),
])
def test_the_api_refuses_a_rule_set_it_cannot_make_a_code_of(body, code, field, cast):
    status, answer = call(Client(), "POST", "/api/rules/codes/", token=token_of(cast["alice"]), body=body)
    assert status == 400 and (answer["error"]["code"], answer["error"].get("field")) == (code, field)


def test_the_api_wants_a_token_or_a_session():
    status, answer = call(Client(), "GET", f"/api/rules/codes/{GOOD}/")
    assert status == 401 and answer["error"]["code"] == "login_required"
    assert reverse("api:rules_code", kwargs={"code": GOOD}) == f"/api/rules/codes/{GOOD}/"
