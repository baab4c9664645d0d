"""The bank by turns (`bank_turn_hands`, docs/rules.md) on the pages: the lobby's create form (5 hands to start with in
the two Chinese games, off in Chinese Blackjack, absent from Seven and a Half), its errors, the rules pages and a
room's rules tab with the worked example."""

import pytest
from django.urls import reverse

from games import services
from games.models import Room
from tests.games.test_pages import create_post, ten_half_defaults

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice_client(client, cast):
    client.force_login(cast["alice"])
    return client


def field_value(html: str, name: str) -> str | None:
    """The value="..." of the input named `name`, or None when the form has no such input."""
    tag = html.split(f'name="{name}"', 1)
    if len(tag) == 1:
        return None
    start = tag[0].rsplit("<input", 1)[1] + tag[1].split(">", 1)[0]
    return start.split('value="', 1)[1].split('"', 1)[0] if 'value="' in start else ""


def test_the_create_form_starts_the_chinese_games_at_five_hands_and_leaves_the_others_off(alice_client):
    html = alice_client.get(reverse("games:lobby")).content.decode()
    assert field_value(html, "ten-half-bank_turn_hands") == "5"
    assert field_value(html, "zhejiang-ten-half-bank_turn_hands") == "5"
    assert field_value(html, "ban-luck-bank_turn_hands") == "0"
    assert field_value(html, "seven-half-bank_turn_hands") is None  # Seven and a Half has bank_max_hands


@pytest.mark.parametrize("posted, kept", [("3", 3), ("5", 5), ("0", 0), ("", 0), (None, 0)])
def test_creating_a_room_keeps_the_posted_turn_and_an_empty_one_is_the_presets(alice_client, cast, posted, kept):
    data = {**create_post(), **ten_half_defaults()}
    if posted is not None:
        data["ten-half-bank_turn_hands"] = posted
    page = alice_client.post(reverse("games:create"), data)
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302 and room.rules["bank_turn_hands"] == kept
    assert ("bank_turn_hands" in room.overrides) == bool(kept)


@pytest.mark.parametrize("posted, message", [("21", "at most 20"), ("-1", "at least 0"), ("two", "whole number"),
                                             ("2.5", "whole number")])
def test_a_turn_out_of_range_is_shown_on_its_field_and_creates_nothing(alice_client, posted, message):
    page = alice_client.post(reverse("games:create"),
                             {**create_post(), **ten_half_defaults(bank_turn_hands=posted)})
    form = page.context["knob_forms"][0][2]
    assert page.status_code == 400 and list(form.errors) == ["bank_turn_hands"], form.errors
    assert message in str(form.errors["bank_turn_hands"]) and not Room.objects.exists()


def test_the_rules_pages_explain_it_with_the_worked_example_where_the_game_takes_it(client):
    for preset in ("ten-half", "zhejiang-ten-half", "ban-luck"):
        html = client.get(reverse("games:rules", args=[preset])).content.decode()
        assert "The bank by turns" in html and "Example, with turns of 3 hands" in html, preset
        assert "These rules play without it" in html  # every preset keeps it off
        assert "the banker's edge stays the same" in html
    html = client.get(reverse("games:rules", args=["seven-half"])).content.decode()
    assert "The bank by turns" not in html


def test_a_rooms_rules_tab_says_after_how_many_hands_its_bank_passes(alice_client, cast):
    room = services.room_create(host=cast["alice"], preset="zhejiang-ten-half", overrides={"bank_turn_hands": 4})
    html = alice_client.get(room.get_absolute_url()).content.decode()
    assert 'data-bank-turn-hands="4"' in html and "With these rules the bank passes after 4 hands." in html
    assert 'data-knob="bank_turn_hands"' in html  # listed among the room's changes
    one = services.room_create(host=cast["bob"], preset="ban-luck", overrides={"bank_turn_hands": 1})
    alice_client.force_login(cast["bob"])
    assert "With these rules the bank passes after 1 hand." in alice_client.get(one.get_absolute_url()).content.decode()
