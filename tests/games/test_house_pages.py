"""The house rules (house-rules.md) on the pages: every game's rules page explains, under "House rules", each house
rule the game offers with a worked example, and names the preset that plays with it on; a preset with house rules
has its game's rules page with those on; a room's rules tab explains the house rules it turns on and no other; the
home page and the lobby show each preset with house rules as a variant under its game; the create form keeps a
house rule's settings out of the room while the rule is off."""

import re

import pytest
from django.urls import reverse

from games import services
from games.engine import PRESETS
from games.engine.rules import HOUSE_PRESETS
from games.models import Room
from games.pages import HOUSE_OFFERED
from tests.games.test_pages import create_post, ten_half_defaults

pytestmark = pytest.mark.django_db(transaction=True)

# What each game offers (the engine decides: games/pages.py HOUSE_OFFERED), and a sentence of each worked example.
OFFERED = {"ten-half": ["bank_auction", "push_cap"], "zhejiang-ten-half": ["bank_auction", "push_cap"],
           "seven-half": ["matta"], "ban-luck": ["banker_opens", "free_hand"]}
EXAMPLES = {
    "banker_opens": "the banker holds 16 and opens Ann, who has 18: Ann wins",
    "free_hand": "She runs and gets her 50 back.",
    "matta": "the matta counts 2, for 7, as 2½ is no card's value",
    "bank_auction": "the bank pays him 60 (20 × 3)",
    "push_cap": "in the hand after she may stake up to 40",
}
ON = {"ten-half-auction": ["bank_auction", "push_cap"], "seven-half-matta": ["matta"],
      "ban-luck-opens": ["banker_opens", "free_hand"]}


@pytest.fixture
def alice_client(client, cast):
    client.force_login(cast["alice"])
    return client


def house_sections(html: str) -> dict[str, str]:
    """The house rules explained on a page: knob -> its section's HTML."""
    return dict(re.findall(r'<section class="house-rule" data-house-rule="([a-z_]+)">(.*?)</section>', html, re.S))


def test_each_game_offers_the_house_rules_its_rules_accept():
    for game, knobs in OFFERED.items():
        assert list(HOUSE_OFFERED[game]) == knobs
    for slug, game in HOUSE_PRESETS.items():
        assert HOUSE_OFFERED[slug] == HOUSE_OFFERED[game]


@pytest.mark.parametrize("preset", list(OFFERED))
def test_a_games_rules_page_explains_every_house_rule_it_offers_with_an_example(client, preset):
    html = client.get(reverse("games:rules", args=[preset])).content.decode()
    sections = house_sections(html)
    assert list(sections) == OFFERED[preset]
    assert '<h3>House rules</h3>' in html
    for knob, section in sections.items():
        assert EXAMPLES[knob] in section, knob
        assert "Off in these rules: a room may turn it on." in section  # the game's own preset keeps them off
    # The preset that plays with them on is named and linked, under its own game only.
    house = [slug for slug, game in HOUSE_PRESETS.items() if game == preset]
    for slug in house:
        assert f'href="{reverse("games:rules", args=[slug])}"' in html
    assert all(f'href="{reverse("games:rules", args=[slug])}"' not in html for slug in HOUSE_PRESETS if slug not in house)


@pytest.mark.parametrize("preset", list(HOUSE_PRESETS))
def test_a_house_presets_rules_page_is_its_games_with_its_house_rules_on(client, preset):
    game = HOUSE_PRESETS[preset]
    page = client.get(reverse("games:rules", args=[preset]))
    html = page.content.decode()
    assert page.status_code == 200 and page.context["rules_template"] == f"games/rules/{game}.html"
    sections = house_sections(html)
    assert list(sections) == OFFERED[game]
    for knob, section in sections.items():
        on = knob in ON[preset]
        assert ("On in these rules." in section) == on and ("Off in these rules" in section) == (not on)
        assert EXAMPLES[knob] in section


def test_the_explanations_use_the_rooms_own_settings():
    from django.template.loader import render_to_string

    from games.pages import rules_context

    rules = {**PRESETS["ban-luck-opens"].to_json(), "banker_open_from": 17}
    html = render_to_string("games/_rules.html", rules_context("ban-luck-opens", rules))
    assert "must hit while their total is below 17. From 17 on" in html
    rules = {**PRESETS["ten-half-auction"].to_json(), "auction_max": 2, "auction_sees_first_card": False, "push_cap": 5}
    html = render_to_string("games/_rules.html", rules_context("ten-half-auction", rules))
    assert "no bid, or ×1 up to ×2." in html and "Players bid before seeing any card." in html
    assert "at most 5 × the base stake" in html
    rules = {**PRESETS["seven-half-matta"].to_json(), "matta_natural": True}
    html = render_to_string("games/_rules.html", rules_context("seven-half-matta", rules))
    assert "made with the matta is a natural, paid ×2." in html


def test_a_rooms_rules_tab_explains_the_house_rules_it_turns_on_and_no_other(alice_client, cast):
    plain = services.room_create(host=cast["alice"], preset="ten-half")
    html = alice_client.get(plain.get_absolute_url()).content.decode()
    assert house_sections(html) == {} and "House rules in this room" not in html
    ride = services.room_create(host=cast["bob"], preset="ten-half", overrides={"push_cap": 20})
    alice_client.force_login(cast["bob"])
    html = alice_client.get(ride.get_absolute_url()).content.decode()
    assert "House rules in this room" in html and list(house_sections(html)) == ["push_cap"]
    assert "at most 20 × the base stake" in house_sections(html)["push_cap"]
    matta = services.room_create(host=cast["chen"], preset="seven-half-matta")
    alice_client.force_login(cast["chen"])
    html = alice_client.get(matta.get_absolute_url()).content.decode()
    assert list(house_sections(html)) == ["matta"] and EXAMPLES["matta"] in html


def test_the_home_page_shows_each_house_preset_under_its_game(client):
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for article in re.findall(r"<article .*?</article>", html, re.S):
        game = re.search(r'data-game="([^"]+)"', article).group(1)
        variants = re.findall(r'<div class="house-preset" data-game="([^"]+)">', article)
        assert variants == [slug for slug, of in HOUSE_PRESETS.items() if of == game]
    assert "Seven and a Half · with the matta" in re.sub(r"<[^>]+>", "", html)


def test_the_practice_buttons_offer_each_house_preset_beside_its_game(alice_client):
    html = alice_client.get(reverse("games:lobby")).content.decode()
    practice = html.split('id="practice-buttons"', 1)[1].split('id="practice-fair"', 1)[0]
    rows = re.findall(r'<div class="practice-game" data-game="([^"]+)">(.*?)</div>', practice, re.S)
    assert [game for game, _row in rows] == ["ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"]
    for game, row in rows:
        assert re.findall(r'data-practice="([^"]+)"', row) == [game] + [s for s, of in HOUSE_PRESETS.items() if of == game]


def test_the_create_form_offers_the_house_rules_of_each_game(alice_client):
    html = alice_client.get(reverse("games:lobby")).content.decode()
    for name in ("ten-half-bank_auction", "ten-half-auction_max", "ten-half-auction_sees_first_card",
                 "ten-half-push_cap", "seven-half-matta", "seven-half-matta_natural", "ban-luck-banker_opens",
                 "ban-luck-banker_open_from", "ban-luck-free_hand", "ten-half-auction-bank_auction"):
        assert f'name="{name}"' in html, name
    assert 'name="seven-half-bank_auction"' not in html and 'name="ban-luck-matta"' not in html
    # The matta's choices in words.
    select = re.search(r'<select name="seven-half-matta"[^>]*>(.*?)</select>', html, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)<', select) == [("off", "off"),
                                                                            ("king-of-coins", "the king of coins")]


def test_a_house_rules_settings_are_not_kept_while_it_is_off(alice_client, cast):
    """An unticked box posts false: "bid after seeing one's first card" off means nothing without the auction."""
    alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(auction_max="2")})
    room = Room.objects.get(host=cast["alice"])
    assert room.overrides == {} and room.rules["auction_sees_first_card"] is True and room.rules["auction_max"] == 4
    alice_client.force_login(cast["bob"])
    alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(bank_auction="on",
                                                                                       auction_max="2")})
    room = Room.objects.get(host=cast["bob"])
    assert room.overrides == {"bank_auction": True, "auction_max": 2, "auction_sees_first_card": False}


def test_a_room_of_a_house_preset_keeps_its_knobs_on_from_the_create_form(alice_client, cast):
    data = {"preset": "seven-half-matta", "kind": "humans", "currency": "beans"}  # the knobs as the preset has them
    page = alice_client.post(reverse("games:create"), data)
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302 and room.preset == "seven-half-matta" and room.rules["matta"] == "king-of-coins"


def test_the_api_lists_the_seven_presets_each_with_its_game(alice_client):
    games = alice_client.get("/api/games/").json()
    presets = {p["id"]: p for p in games["presets"]}
    assert set(presets) == set(PRESETS) and len(presets) == 7
    for slug, p in presets.items():
        assert p["rules"] == PRESETS[slug].to_json() and p["rules"]["game"] == HOUSE_PRESETS.get(slug, slug)
    matta = next(k for k in games["knobs"] if k["name"] == "matta")
    assert matta["defaults"]["seven-half-matta"] == "king-of-coins" and matta["defaults"]["seven-half"] == "off"


def test_a_friends_room_of_the_auction_preset_bids_for_the_bank_every_hand(alice_client, cast):
    """The create form starts the auction preset at a bank turn of one hand: the bank is bid for before every hand, as
    in the friend-room apps; the preset itself (practice, the engine) keeps 0."""
    html = alice_client.get(reverse("games:lobby")).content.decode()
    box = re.search(r'<input[^>]*name="ten-half-auction-bank_turn_hands"[^>]*>', html).group(0)
    assert 'value="1"' in box and PRESETS["ten-half-auction"].bank_turn_hands == 0


def test_the_house_rules_few_values_are_menus(alice_client, cast):
    html = alice_client.get(reverse("games:lobby")).content.decode()

    def options(name):
        select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S).group(1)
        return re.findall(r'<option value="([^"]+)"( selected)?>([^<]+)<', select)

    assert options("ten-half-push_cap") == [("0", " selected", "off"), ("5", "", "×5"), ("10", "", "×10"),
                                            ("20", "", "×20")]
    assert options("ten-half-auction-push_cap")[2] == ("10", " selected", "×10")
    assert [v for v, _s, _t in options("ten-half-auction_max")] == ["1", "2", "3", "4"]
    assert options("ban-luck-banker_open_from")[1] == ("16", " selected", "16")
    alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(push_cap="20")})
    assert Room.objects.get(host=cast["alice"]).rules["push_cap"] == 20
