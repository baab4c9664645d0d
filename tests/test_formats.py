"""Numbers and dates in the reader's language on the server's pages (settings.USE_THOUSAND_SEPARATOR, config/formats/,
accounts/templatetags/formats.py), while what a machine reads stays plain: an input's value, a data-* attribute, a
hidden id posted back, the CSV export and the JSON API. The browser's side is tests/e2e/test_formats.py."""

import datetime
import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation
from django.utils.formats import number_format

from accounts.models import ApiToken
from games import services
from games.models import Hand, HandSeat

pytestmark = pytest.mark.django_db

LANGUAGES = ["en", "zh-hans", "it", "es"]
# The spec: 12345 as each language groups it, the same as the browsers' Intl.NumberFormat (CLDR).
GROUPED = {"en": "12,345", "zh-hans": "12,345", "it": "12.345", "es": "12.345"}
# Four digits are grouped too (CLDR would not in Italian and Spanish; static/js/format.js groups them as well).
GROUPED_4 = {"en": "1,234", "zh-hans": "1,234", "it": "1.234", "es": "1.234"}
# 2026-03-04 05:06 UTC as the server writes it without a script: Django's SHORT_DATETIME_FORMAT, labelled UTC.
ENDED = datetime.datetime(2026, 3, 4, 5, 6, 7, 890, tzinfo=datetime.UTC)
ENDED_TEXT = {"en": "03/04/2026 5:06 a.m. UTC", "zh-hans": "2026年3月4日 05:06 UTC", "it": "04/03/2026 05:06 UTC",
              "es": "04/03/2026 05:06 UTC"}
GROUPED_NUMBER = re.compile(r"^[+\-\u2212]?\d{1,3}([.,\u00a0]\d{3})+$")


class Attributes(HTMLParser):
    """Every attribute of a page as (tag, name, value)."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.found.extend((tag, name, value or "") for name, value in attrs)


def grouped_attributes(html: str) -> list[tuple[str, str, str]]:
    parser = Attributes()
    parser.feed(html)
    return [a for a in parser.found if GROUPED_NUMBER.match(a[2])]


@pytest.fixture
def rich(settings):
    """A player with 12345 beans (the welcome gift), who hosts a room whose buy-ins go up to 20000."""
    settings.WELCOME_BEANS = 12_345

    def make(code: str):
        user = get_user_model().objects.create_user(f"p-{code}", f"p-{code}@example.com", "pw-long-enough-1",
                                                    language=code)
        room = services.room_create(host=user, preset="ten-half", buy_in_min=100, buy_in_max=20_000)
        return user, room

    return make


def finished_hand(room, user, *, pk=None, delta=12_345) -> Hand:
    hand = Hand.objects.create(pk=pk, room=room, number=1, rules=room.rules, commitment="0" * 64, ended_at=ENDED)
    HandSeat.objects.create(hand=hand, user=user, seat_id="s1", role="challenger", delta=delta)
    return hand


@pytest.mark.parametrize("code", LANGUAGES)
def test_django_groups_twelve_thousand_as_the_browsers_do(code):
    with translation.override(code):
        assert number_format(12_345) == GROUPED[code]
        assert number_format(1_234) == GROUPED_4[code]


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_wallet_shows_the_balance_grouped_in_the_players_language(client, rich, code):
    user, _room = rich(code)
    client.force_login(user)
    html = client.get(reverse("wallets:wallet")).content.decode()
    beans = re.search(r'<tr id="balance-beans">(.*?)</tr>', html, re.S).group(1)
    assert re.findall(r"<td>([^<]*)</td>", beans) == [GROUPED[code], "0"]
    assert f"+{GROUPED[code]}" in html.split('class="ledger"', 1)[1]  # the welcome gift's line
    assert "12345" not in html


@pytest.mark.parametrize("code", LANGUAGES)
def test_records_show_the_net_grouped_and_the_time_in_utc_in_the_players_format(client, rich, code):
    user, room = rich(code)
    hand = finished_hand(room, user)
    client.force_login(user)
    html = client.get(reverse("games:records")).content.decode()
    row = re.search(rf'<tr data-hand="{hand.pk}">(.*?)</tr>', html, re.S).group(1)
    assert (f'<time datetime="2026-03-04T05:06:07+00:00" data-local="datetime">{ENDED_TEXT[code]}</time>') in row
    assert f"+{GROUPED[code]}" in row
    assert f"+{GROUPED[code]}</strong>" in html.split('id="records-total"', 1)[1]


def test_the_csv_export_and_the_api_keep_plain_numbers(client, rich):
    user, room = rich("it")
    finished_hand(room, user)
    client.force_login(user)
    csv = client.get(reverse("games:records_csv")).content.decode()
    assert ",12345," in csv and "2026-03-04T05:06:07" in csv and "12.345" not in csv
    me = client.get("/api/me/").json()
    assert me["balances"]["beans"]["available"] == 12_345


def test_machine_values_stay_plain_in_italian(client, rich):
    user, room = rich("it")
    finished_hand(room, user, pk=12_345)
    token = ApiToken.objects.create(pk=23_456, user=user, name="bot", secret_hash="f" * 64)
    client.force_login(user)
    pages = {"room": client.get(room.get_absolute_url()).content.decode(),
             "records": client.get(reverse("games:records")).content.decode(),
             "profile": client.get(reverse("profile")).content.decode(),
             "wallet": client.get(reverse("wallets:wallet")).content.decode()}
    assert {name: grouped_attributes(html) for name, html in pages.items()} == {name: [] for name in pages}
    sit = re.search(r'<input type="number" id="sit-buy-in"[^>]*>', pages["room"]).group(0)
    assert 'max="20000"' in sit and 'min="100"' in sit
    assert "20.000" in pages["room"]  # the buy-in limits as the player reads them
    assert 'data-hand="12345"' in pages["records"]
    # The revoke form posts back the id it was given, and it works.
    token_id = re.search(r'name="token_id" value="([^"]*)"', pages["profile"]).group(1)
    client.post(reverse("profile"), {"token": "revoke", "token_id": token_id})
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_signed_and_local_time_filters():
    template = Template('{% load formats %}{{ a|signed }} {{ b|signed }} {{ c|signed }} {{ none|signed }}'
                        '|{{ when|local_time:"time" }}|{{ none|local_time }}')
    with translation.override("it"):
        text = template.render(Context({"a": 1200, "b": -1200, "c": 0, "none": None, "when": ENDED}))
    assert text == '+1.200 \u22121.200 0 |<time datetime="2026-03-04T05:06:07+00:00" data-local="time">05:06 UTC</time>|'


def test_the_admin_lists_amounts_grouped(client, rich):
    user, _room = rich("it")
    user.is_staff = user.is_superuser = True
    user.save()
    client.force_login(user)
    html = client.get(reverse("admin:wallets_account_changelist")).content.decode()
    assert re.search(r'<td class="field-balance">12\.345</td>', html)


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_refusal_writes_its_amounts_as_the_players_language_does(rich, code):
    user, room = rich(code)
    with translation.override(code), pytest.raises(services.GameError) as refused:
        services.seat_take(room_id=room.pk, user=user, buy_in=20_001)
    assert refused.value.code == "bad_buy_in"
    assert {"en": "20,000", "zh-hans": "20,000", "it": "20.000", "es": "20.000"}[code] in refused.value.message
    assert "20000" not in refused.value.message
