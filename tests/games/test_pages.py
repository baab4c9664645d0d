"""The pages around the table (games/views.py), with Django's test client: the lobby's forms, joining
by code and by invite link, the room page, the records and their CSV, a hand's record."""

import csv
import io

import pytest
from django.urls import reverse

from games import services
from games.engine import PRESETS
from games.models import Hand, Room
from tests.games.conftest import act, seat_of, state

# Transactions for real: the services broadcast and wake the table on commit (Celery eager in tests).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _one_hand_at_a_time(_table_settings, settings):
    # The next hand waits (a finished hand stays the latest one), unlike the suite's default of 0 s.
    settings.GAMES_NEXT_HAND_SECONDS = 3600


@pytest.fixture
def alice_client(client, cast):
    client.force_login(cast["alice"])
    return client


def create_post(preset="ten-half", **fields):
    data = {"preset": preset, "kind": "humans", "currency": "beans", f"{preset}-shown": "1"}
    data.update(fields)
    return data


def ten_half_defaults(**knobs):
    base = {"ten-half-base_stake": "10", "ten-half-chip_values": "10, 50, 100", "ten-half-max_main_seats": "4",
            "ten-half-side_bets_enabled": "on", "ten-half-max_side_bettors": "8", "ten-half-host_banks": "on",
            "ten-half-retire_needs_profit": "on", "ten-half-bet_seconds": "15", "ten-half-act_seconds": "20",
            "ten-half-payouts__ordinary": "1", "ten-half-payouts__ten-and-a-half": "2",
            "ten-half-payouts__five-dragons": "2"}
    base.update({f"ten-half-{k}": v for k, v in knobs.items()})
    return base


def play_a_hand(room, cast, banker="alice", challenger="bob"):
    """The host banks, the challenger stakes 20 and both stand: one finished hand."""
    alice, bob = cast[banker], cast[challenger]
    services.seat_take(room_id=room.pk, user=alice, buy_in=500)
    services.seat_take(room_id=room.pk, user=bob, buy_in=500)
    act(room, alice, "start")
    act(room, alice, "open_bank", amount=300)
    act(room, bob, "bet", amount=20)
    for _ in range(4):
        s = state(room)
        if s["phase"] != "playing":
            break
        turn = s["hand"]["turn"][0]
        act(room, alice if turn == seat_of(room, alice) else bob, "stand")
    return Hand.objects.filter(room=room).order_by("-number").first()


# --- the lobby ---------------------------------------------------------------------------------------


def test_lobby_shows_balances_forms_and_the_rules_links(alice_client):
    page = alice_client.get(reverse("games:lobby"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="beans-available">10,000<' in html  # grouped as English writes it
    assert 'name="ten-half-base_stake"' in html and 'name="ban-luck-max_bet"' in html
    assert reverse("games:rules", args=["seven-half"]) in html
    assert 'data-practice="ten-half"' in html


def test_create_room_with_preset_values_redirects_to_the_room(alice_client, cast):
    page = alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(base_stake="20")})
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302 and page["Location"] == room.get_absolute_url()
    assert room.overrides == {"base_stake": 20}  # only what differs from the preset
    assert room.rules["base_stake"] == 20 and room.buy_in_min == 200 and room.buy_in_max == 2000


def test_invalid_rules_show_the_error_on_the_knob_that_is_wrong(alice_client, cast):
    page = alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(max_main_seats="5")})
    assert page.status_code == 400
    form = page.context["knob_forms"][0][2]
    assert list(form.errors) == ["max_main_seats"], form.errors
    assert "ten-half seats 2 to 4 main players" in form.errors["max_main_seats"][0]
    html = page.content.decode()
    # Rendered inside that field's block, and the ten-half fieldset stays the one shown.
    block = html.split('id="field-ten-half-max_main_seats"')[1].split('<div class="field')[0]
    assert "errorlist" in block and "seats 2 to 4" in block
    assert not Room.objects.exists()


def test_incoherent_knobs_put_the_error_on_the_knob_the_engine_names(alice_client):
    data = {**create_post("ban-luck"), "ban-luck-base_stake": "10", "ban-luck-min_bet": "50", "ban-luck-max_bet": "20",
            "ban-luck-chip_values": "1, 5, 25", "ban-luck-max_main_seats": "5", "ban-luck-banker_forced_draw": "on",
            "ban-luck-bet_seconds": "15", "ban-luck-act_seconds": "20", "ban-luck-payouts__ordinary": "1",
            "ban-luck-payouts__five-dragon": "2", "ban-luck-payouts__ban-luck": "2", "ban-luck-payouts__ban-ban": "3",
            "ban-luck-payouts__five-card-bust": "2"}
    page = alice_client.post(reverse("games:create"), data)
    form = {slug: f for slug, _n, f in page.context["knob_forms"]}["ban-luck"]
    assert page.status_code == 400 and list(form.errors) == ["min_bet"], form.errors


def test_a_payout_of_zero_is_refused_on_its_hand_class(alice_client):
    page = alice_client.post(reverse("games:create"),
                             {**create_post(), **ten_half_defaults(**{"payouts__five-dragons": "0"})})
    form = page.context["knob_forms"][0][2]
    assert "payouts__five-dragons" in form.errors, form.errors


# The engine's refusal in the player's language (games/services/errors.py rules_refusal): its template translated, its
# numbers and codes filled in; the English page shows the English text.
REFUSED_IN = {
    "en": ("ten-half seats 2 to 4 main players", "must be at least 3"),
    "zh-hans": ("ten-half 可设 2 到 4 个主座位", "不能小于 3"),
    "es": ("ten-half tiene de 2 a 4 asientos principales", "debe ser como mínimo 3"),
}


@pytest.mark.parametrize("language", list(REFUSED_IN))
def test_a_refused_rule_value_is_shown_in_the_players_language(client, cast, language):
    cast["alice"].language = language
    cast["alice"].save(update_fields=["language"])
    client.force_login(cast["alice"])
    seats, seconds = REFUSED_IN[language]
    for knobs, field, text in ((ten_half_defaults(max_main_seats="5"), "max_main_seats", seats),
                               (ten_half_defaults(bet_seconds="2"), "bet_seconds", seconds)):
        page = client.post(reverse("games:create"), {**create_post(), **knobs})
        assert page.status_code == 400
        form = {slug: f for slug, _n, f in page.context["knob_forms"]}["ten-half"]  # the games' order is the reader's
        assert form.errors == {field: [text]}, form.errors
        block = page.content.decode().split(f'id="field-ten-half-{field}"')[1].split('<div class="field')[0]
        assert text in block
    assert not Room.objects.exists()


def test_a_refusal_of_a_knob_not_on_the_form_is_named_by_the_knobs_label_in_the_readers_language():
    from django.utils import translation

    from games.engine import RulesError, rules_from
    from games.forms import KnobsForm
    from games.services.errors import rules_refusal

    with pytest.raises(RulesError) as e:
        rules_from("ten-half", {"jackpot_enabled": True})
    for language, text in (("en", "Jackpot: the jackpot is a Seven and a Half rule"), ("zh-hans", "奖池：奖池是七点半的规则"),
                           ("it", "Piatto: il piatto è una regola del Sette e mezzo")):
        with translation.override(language):
            form = KnobsForm("ten-half", {})
            form.attempted = {"jackpot_enabled": True}  # jackpot_enabled is not on Ten and a Half's form
            form.add_error(None, rules_refusal(e.value))
            assert form.non_field_errors() == [text], form.non_field_errors()


def test_chip_values_must_be_numbers(alice_client):
    page = alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(chip_values="10, lots")})
    assert "chip_values" in page.context["knob_forms"][0][2].errors


def test_a_buy_in_below_one_stake_is_shown_on_the_buy_in(alice_client):
    page = alice_client.post(reverse("games:create"), {**create_post(), **ten_half_defaults(base_stake="50"),
                                                       "buy_in_min": "20", "buy_in_max": "100"})
    assert page.status_code == 400
    assert "buy_in_min" in page.context["room_form"].errors


def test_an_ai_room_plays_for_points_with_bots(alice_client, cast):
    page = alice_client.post(reverse("games:create"), {**create_post("seven-half"), "kind": "ai", "bot_level": "expert",
                                                       "seven-half-shown": ""})
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302
    assert (room.kind, room.currency, room.bot_level, room.overrides) == ("ai", "points", "expert", {})


def test_practice_in_one_click(alice_client, cast):
    page = alice_client.post(reverse("games:practice"), {"preset": "zhejiang-ten-half"})
    room = Room.objects.get(host=cast["alice"])
    assert page["Location"] == room.get_absolute_url()
    assert (room.kind, room.currency, room.preset) == ("ai", "points", "zhejiang-ten-half")


def test_the_lobby_lists_the_rooms_the_user_sits_in(alice_client, cast):
    room = services.room_create(host=cast["bob"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["alice"], buy_in=200)
    other = services.room_create(host=cast["chen"], preset="ban-luck")
    html = alice_client.get(reverse("games:lobby")).content.decode()
    assert room.get_absolute_url() in html and other.get_absolute_url() not in html


# --- joining -----------------------------------------------------------------------------------------


def test_join_with_a_code_goes_to_the_room(alice_client, cast):
    room = services.room_create(host=cast["bob"], preset="ten-half")
    page = alice_client.get(reverse("games:join"), {"code": room.code})
    assert page.status_code == 302 and page["Location"] == room.get_absolute_url()


def test_join_with_an_unknown_or_malformed_code_shows_the_error_on_the_code(alice_client, cast):
    room = services.room_create(host=cast["bob"], preset="ten-half")
    unknown = "0000" if room.code != "0000" else "0001"
    page = alice_client.get(reverse("games:join"), {"code": unknown})
    assert page.status_code == 400 and "No open room has this code." in page.context["join_form"].errors["code"]
    page = alice_client.get(reverse("games:join"), {"code": "12a"})
    assert "A room code is 4 digits." in page.context["join_form"].errors["code"]


def test_a_closed_room_cannot_be_joined(alice_client, cast):
    room = services.room_create(host=cast["bob"], preset="ten-half")
    services.room_close(room_id=room.pk, by=cast["bob"])
    assert alice_client.get(reverse("games:join"), {"code": room.code}).status_code == 400
    assert alice_client.get(room.get_absolute_url()).status_code == 404


def test_an_invite_link_takes_an_anonymous_visitor_through_login_back_to_the_room(client, cast):
    room = services.room_create(host=cast["bob"], preset="ten-half")
    invite = reverse("games:invite", args=[room.invite_token])
    page = client.get(invite)  # the invite itself (tests/accounts/test_invite.py), with its way to log in
    assert page.status_code == 200
    assert f'href="{reverse("account_login")}?next={room.get_absolute_url()}"' in page.content.decode()
    page = client.post(reverse("account_login"), {"login": "alice", "password": "pw-long-enough-1", "next": invite})
    assert page.status_code == 302 and page["Location"] == invite
    page = client.get(invite, follow=True)
    assert page.redirect_chain[-1][0] == room.get_absolute_url()
    assert page.status_code == 200 and f'"code": "{room.code}"' in page.content.decode()


def test_a_stale_invite_is_not_found(alice_client):
    assert alice_client.get(reverse("games:invite", args=["nope"])).status_code == 404


def test_the_room_page_has_the_invite_code_rules_and_no_cards(alice_client, cast):
    room = services.room_create(host=cast["bob"], preset="ten-half", overrides={"base_stake": 20})
    play_a_hand(room, cast, banker="bob", challenger="chen")
    html = alice_client.get(room.get_absolute_url()).content.decode()
    assert room.invite_token in html and f'<span id="room-code">{room.code}</span>' in html
    assert 'data-knob="base_stake"' in html  # the room's override, generated from its rules
    assert 'id="table-config"' in html and reverse("javascript-catalog") in html
    assert "data-card" not in html  # the table is drawn from the socket's per-viewer view only


# --- records and hands -------------------------------------------------------------------------------


def test_the_hand_page_is_404_while_the_hand_is_played_and_verifiable_after(alice_client, cast):
    alice, bob = cast["alice"], cast["bob"]
    room = services.room_create(host=alice, preset="ten-half")
    services.seat_take(room_id=room.pk, user=alice, buy_in=500)
    services.seat_take(room_id=room.pk, user=bob, buy_in=500)
    act(room, alice, "start")
    act(room, alice, "open_bank", amount=300)
    hand = Hand.objects.get(room=room)
    act(room, bob, "bet", amount=20)
    assert state(room)["phase"] == "playing"
    assert alice_client.get(hand.get_absolute_url()).status_code == 404
    while state(room)["phase"] == "playing":
        turn = state(room)["hand"]["turn"][0]
        act(room, alice if turn == seat_of(room, alice) else bob, "stand")
    page = alice_client.get(hand.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    hand.refresh_from_db()
    assert hand.seed and hand.seed in html and hand.commitment in html
    assert 'id="verify-data"' in html and "Dice:" in html
    assert html.count('class="pcard" data-card=') >= 4  # two hands of at least one card, in the log and the result
    assert page.context["verify"]["dealt"] == hand.summary["dealt"]
    assert alice_client.get(reverse("games:room_hand", args=[room.code, hand.number])).url == hand.get_absolute_url()


def test_records_filter_by_room_and_game_with_net_results(alice_client, cast):
    first = services.room_create(host=cast["alice"], preset="ten-half")
    hand1 = play_a_hand(first, cast)
    services.room_close(room_id=first.pk, by=cast["alice"])
    second = services.room_create(host=cast["alice"], preset="ten-half")
    hand2 = play_a_hand(second, cast)
    page = alice_client.get(reverse("games:records"))
    assert [r.hand_id for r in page.context["rows"]] == [hand2.pk, hand1.pk]
    net = sum(r.delta for r in page.context["rows"])
    assert page.context["totals"] == [{"currency": "beans", "currency_name": "beans", "net": net}]
    page = alice_client.get(reverse("games:records"), {"room": second.code})
    assert [r.hand_id for r in page.context["rows"]] == [hand2.pk] if second.code != first.code else True
    page = alice_client.get(reverse("games:records"), {"game": "ban-luck"})
    assert list(page.context["rows"]) == [] and "No hands yet." in page.content.decode()
    page = alice_client.get(reverse("games:records"), {"game": "ten-half"})
    assert len(page.context["rows"]) == 2


def test_records_export_as_csv_with_the_same_filters(alice_client, cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    hand = play_a_hand(room, cast)
    page = alice_client.get(reverse("games:records_csv"), {"game": "ten-half"})
    assert page["Content-Type"].startswith("text/csv")
    assert "attachment" in page["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(page.content.decode())))
    assert rows[0] == ["hand_id", "room", "game", "hand", "ended_at", "role", "chips", "net", "url"]
    assert rows[1][:4] == [str(hand.pk), room.code, "ten-half", str(hand.number)]
    assert rows[1][5] == "banker" and rows[1][8].endswith(hand.get_absolute_url())
    assert len(list(csv.reader(io.StringIO(alice_client.get(reverse("games:records_csv"), {"game": "seven-half"})
                                           .content.decode())))) == 1


def test_the_room_hands_fragment_lists_finished_hands(alice_client, cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    hand = play_a_hand(room, cast)
    html = alice_client.get(reverse("games:room_hands", args=[room.code])).content.decode()
    assert hand.get_absolute_url() in html


def test_every_game_has_a_rules_page(client):
    for preset in PRESETS:  # the four games and the presets with house rules
        page = client.get(reverse("games:rules", args=[preset]))
        assert page.status_code == 200 and page.context["rule_rows"]
    assert client.get(reverse("games:rules", args=["poker"])).status_code == 404


def test_the_javascript_catalog_is_served(client):
    page = client.get(reverse("javascript-catalog"))
    assert page.status_code == 200 and b"gettext" in page.content


@pytest.mark.django_db(transaction=True)
def test_a_house_variant_appears_in_the_lobby_and_opens_a_room_with_its_rules(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from django.contrib.auth import get_user_model

    from games.models import HouseVariant

    maker = get_user_model().objects.create_superuser("mo", "mo@example.com", "pw-long-enough-1")
    player = get_user_model().objects.create_user("pat", "pat@example.com", "pw-long-enough-1")
    variant = HouseVariant.objects.create(name="High rollers", preset="ten-half",
                                          overrides={"base_stake": 50, "chip_values": [50, 100, 500]},
                                          created_by=maker)
    HouseVariant.objects.create(name="Retired", preset="ten-half", active=False, created_by=maker)
    client.force_login(player)
    lobby = client.get(reverse("games:lobby")).content.decode()
    assert "High rollers" in lobby and "Retired" not in lobby
    response = client.post(reverse("games:create"), {"preset": "ban-luck", "kind": "humans", "currency": "beans",
                                                     "variant": variant.pk})
    assert response.status_code == 302
    room = Room.objects.get()
    assert room.preset == "ten-half" and room.rules["base_stake"] == 50 and room.rules["chip_values"] == [50, 100, 500]


@pytest.mark.django_db(transaction=True)
def test_the_lobby_form_asks_for_the_bankers_edge_of_the_chosen_settings(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    import json

    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_user("pat", "pat@example.com", "pw-long-enough-1"))
    page = client.get(reverse("games:lobby")).content.decode()
    assert 'data-rules-stats="/rules/stats/?form=lobby"' in page and "data-rules-stats-out" in page
    url = reverse("rules_stats") + "?form=lobby&preset=ban-luck"
    plain = json.loads(client.post(url, {"preset": "ban-luck"}).content)
    assert plain["status"] == "done"
    bad = client.post(url, {"preset": "ban-luck", "ban-luck-shown": "1", "ban-luck-max_bet": "0"})
    assert bad.status_code == 400 and json.loads(bad.content)["status"] == "invalid"
