"""Moderation end to end: bans and mutes reach open sockets at once, kicks, closing rooms, hiding chat,
reports, the Moderators group's exact powers, the rules form, and the append-only log."""

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.urls import reverse

from games import clubs, moderation, services
from games.models import ChatMessage, ModerationLog, Report, Room
from games.roles import MODERATORS, ensure_moderators_group
from games.rules_form import RulesForm
from games.services import GameError
from tests.games.conftest import act, assert_ledger_clean, make_player, seat_of, state, table
from tests.games.sockets import Closed, Tab
from wallets.models import Account
from wallets.selectors import balances_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]
db = database_sync_to_async


@pytest.fixture
def mod(cast):
    from django.apps import apps

    ensure_moderators_group(apps)  # a flush between transactional tests removes what migrations created
    user = make_player("maud")
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get(name=MODERATORS))
    return type(user).objects.get(pk=user.pk)  # fresh permission cache


def table_of_four(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen", "dara"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=500)
    return room


def finish_hand(room, cast):
    """Challengers who still have to bet bet one base stake; then everyone stands."""
    users = {seat: type(cast["bob"]).objects.get(pk=int(uid)) for uid, seat in table(room).meta["users"].items()}
    for seat_id, bet in state(room)["hand"]["bets"].items():
        if not bet["confirmed"]:
            services.action_submit(room_id=room.pk, user=users[seat_id], action="bet", args={"amount": 10})
    for _ in range(30):
        s = state(room)
        if s["phase"] != "playing":
            return
        services.action_submit(room_id=room.pk, user=users[s["hand"]["turn"][0]], action="stand")
    raise AssertionError("the hand did not end")


# --- bans --------------------------------------------------------------------------------------------------


async def test_a_ban_closes_the_players_open_socket_at_once_and_they_cannot_come_back(cast, mod):
    room = await db(table_of_four)(cast)
    tab = Tab(cast["bob"], room.code)
    await tab.open()
    await db(moderation.user_ban)(user=cast["bob"], by=mod, reason="abuse in chat", duration=timedelta(days=1))
    with pytest.raises(Closed) as closed:
        while True:
            await tab.next()
    assert closed.value.code == 4403
    again = Tab(cast["bob"], room.code)
    with pytest.raises(Closed) as closed:
        await again.open()
        await again.next()
    assert closed.value.code == 4403
    entry = await db(ModerationLog.objects.get)(action="ban")
    assert entry.actor_id == mod.pk and entry.target_user_id == cast["bob"].pk and entry.reason == "abuse in chat"


def test_a_banned_player_keeps_the_hand_then_loses_the_seat_and_the_beans_go_home(cast, mod):
    room = table_of_four(cast)
    moderation.user_ban(user=cast["bob"], by=mod, reason="cheating")
    assert seat_of(room, cast["bob"]) is not None  # in the hand: plays it out by defaults
    finish_hand(room, cast)
    assert seat_of(room, cast["bob"]) is None
    assert balances_for(cast["bob"])["beans"]["held"] == 0
    assert_ledger_clean()


def test_a_banned_player_cannot_log_in_and_an_open_session_is_logged_out(cast, mod):
    browser = Client()
    assert browser.post(reverse("account_login"), {"login": "bob", "password": "pw-long-enough-1"}).status_code == 302
    assert browser.get(reverse("games:lobby")).status_code == 200
    moderation.user_ban(user=cast["bob"], by=mod, reason="spam")
    assert browser.get(reverse("games:lobby")).status_code == 302  # logged out: sent to log in
    fresh = Client()
    fresh.post(reverse("account_login"), {"login": "bob", "password": "pw-long-enough-1"})
    assert fresh.get(reverse("games:lobby")).status_code == 302
    moderation.user_unban(user=cast["bob"], by=mod, reason="appeal accepted")
    fresh.post(reverse("account_login"), {"login": "bob", "password": "pw-long-enough-1"})
    assert fresh.get(reverse("games:lobby")).status_code == 200


def test_a_moderation_action_needs_a_reason_and_the_permission(cast, mod):
    with pytest.raises(GameError) as e:
        moderation.user_ban(user=cast["bob"], by=mod, reason="  ")
    assert e.value.code == "reason_required"
    with pytest.raises(GameError) as e:
        moderation.user_ban(user=cast["bob"], by=cast["chen"], reason="I do not like bob")
    assert e.value.code == "not_allowed"
    assert not ModerationLog.objects.exists()
    cast["bob"].refresh_from_db()
    assert cast["bob"].banned_until is None


# --- mutes and chat ------------------------------------------------------------------------------------------


async def test_a_mute_refuses_chat_on_a_socket_that_was_already_open(cast, mod):
    room = await db(table_of_four)(cast)
    bob, chen = Tab(cast["bob"], room.code), Tab(cast["chen"], room.code)
    await bob.open()
    await chen.open()
    await bob.send({"type": "chat", "text": "hello table"})
    assert (await chen.reply("chat"))["message"]["text"] == "hello table"
    await db(moderation.user_mute)(user=cast["bob"], by=mod, reason="insults")
    assert (await bob.reply("notice"))["code"] == "muted"
    await bob.send({"type": "chat", "text": "you cannot stop me"})
    refused = await bob.reply("error")
    assert refused["code"] == "muted"
    assert await db(ChatMessage.objects.filter(text="you cannot stop me").exists)() is False
    await bob.close()
    await chen.close()


async def test_a_hidden_message_leaves_every_open_table_and_every_snapshot(cast, mod):
    room = await db(table_of_four)(cast)
    chen = Tab(cast["chen"], room.code)
    await chen.open()
    message = await db(services.chat_post)(room_id=room.pk, user=cast["bob"], text="rude words")
    assert (await chen.reply("chat"))["message"]["id"] == message.pk
    await db(moderation.chat_hide)(message=message, by=mod, reason="rude")
    assert (await chen.reply("chat_hidden"))["id"] == message.pk
    await chen.send({"type": "snapshot"})
    snapshot = await chen.reply("snapshot")
    assert message.pk not in [m["id"] for m in snapshot["chat"]]
    await chen.close()


# --- kicks, closing, reports -------------------------------------------------------------------------------------


def test_a_moderator_kick_removes_the_seat_after_the_hand_for_good(cast, mod):
    room = table_of_four(cast)
    moderation.seat_kick(room=room, user=cast["dara"], by=mod, reason="stalling every hand")
    finish_hand(room, cast)
    assert seat_of(room, cast["dara"]) is None
    with pytest.raises(GameError) as e:
        services.seat_take(room_id=room.pk, user=cast["dara"], buy_in=500)
    assert e.value.code == "kicked"
    assert ModerationLog.objects.get(action="kick").room_id == room.pk


def test_a_moderator_closes_a_room_mid_hand_and_every_stack_is_released(cast, mod):
    room = table_of_four(cast)
    moderation.room_close(room=room, by=mod, reason="abusive room name")
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED
    assert not Account.objects.filter(kind="hold", closed_at__isnull=True).exists()
    assert sum(balances_for(u)["beans"]["available"] for u in cast.values()) == 4 * 10_000
    assert_ledger_clean()


def test_in_a_club_room_a_moderator_is_no_club_admin_and_a_club_admin_no_moderator(cast, mod):
    """The same kick serves both: each acts in their own capacity, and only a club admin's row names the club."""
    club = clubs.club_create(owner=cast["alice"], name="Friday Night")
    clubs.club_join(club=club, user=cast["chen"])
    clubs.request_decide(request=club.join_requests.get(), by=cast["alice"], approve=True)
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["chen"], buy_in=500)
    with pytest.raises(GameError) as e:
        clubs.club_seat_kick(room=room, user=cast["chen"], by=mod, reason="stalling")
    assert e.value.code == "not_club_admin"
    with pytest.raises(GameError) as e:
        moderation.seat_kick(room=room, user=cast["chen"], by=cast["alice"], reason="stalling")
    assert e.value.code == "not_allowed"
    moderation.seat_kick(room=room, user=cast["chen"], by=mod, reason="stalling")
    assert seat_of(room, cast["chen"]) is None
    clubs.club_room_close(room=room, by=cast["alice"], reason="closing for the night")
    logged = list(ModerationLog.objects.order_by("pk").values_list("action", "actor_id", "club_id"))
    assert logged == [("kick", mod.pk, None), ("close_room", cast["alice"].pk, club.pk)]


async def test_a_player_reports_a_chat_message_from_the_table_and_a_moderator_resolves_it(cast, mod):
    room = await db(table_of_four)(cast)
    message = await db(services.chat_post)(room_id=room.pk, user=cast["bob"], text="buy cheap beans at ...")
    chen = Tab(cast["chen"], room.code)
    await chen.open()
    await chen.send({"type": "report", "message": message.pk, "reason": "spam"})
    assert (await chen.reply("reported", "error"))["type"] == "reported"
    await chen.send({"type": "report", "user": cast["chen"].pk, "reason": "me"})
    assert (await chen.reply("reported", "error"))["code"] == "report_self"
    dara_seat = (await db(table)(room)).meta["users"][str(cast["dara"].pk)]
    await chen.send({"type": "report", "seat": dara_seat, "reason": "stalls every hand"})
    assert (await chen.reply("reported", "error"))["type"] == "reported"
    await chen.send({"type": "report", "seat": "s999999", "reason": "ghost"})
    assert (await chen.reply("reported", "error"))["code"] == "not_seated"
    await chen.close()
    assert await db(Report.objects.filter(target_user=cast["dara"], message=None).count)() == 1
    report = await db(Report.objects.get)(message=message)
    assert (report.target_user_id, report.message_id, report.status) == (cast["bob"].pk, message.pk, "open")
    await db(moderation.report_resolve)(report=report, by=mod, status="actioned", resolution="muted bob")
    await db(report.refresh_from_db)()
    assert report.status == "actioned" and report.resolved_by_id == mod.pk


# --- roles and the admin --------------------------------------------------------------------------------------------


def test_a_moderator_can_ban_and_mute_in_the_admin_but_not_touch_a_wallet(cast, mod):
    browser = Client()
    browser.force_login(mod)
    url = reverse("admin:accounts_user_moderate", args=[cast["bob"].pk])
    assert browser.post(url, {"action": "mute", "duration": "1h", "reason": "shouting"}).status_code == 302
    assert browser.post(url, {"action": "ban", "duration": "7d", "reason": "cheating"}).status_code == 302
    cast["bob"].refresh_from_db()
    assert cast["bob"].is_banned and cast["bob"].is_muted
    assert browser.get(reverse("admin:wallets_transaction_adjust")).status_code == 403
    before = list(Account.objects.values_list("pk", "balance"))
    txn = Account.objects.filter(kind="available").first().entries.first().transaction
    assert browser.post(reverse("admin:wallets_transaction_change", args=[txn.pk]), {"memo": "x"}).status_code == 403
    assert browser.post(reverse("admin:wallets_transaction_delete", args=[txn.pk]), {"post": "yes"}).status_code == 403
    assert list(Account.objects.values_list("pk", "balance")) == before
    # A player is no moderator.
    player = Client()
    player.force_login(cast["chen"])
    assert player.post(url, {"action": "ban", "duration": "1h", "reason": "x"}).status_code == 302  # to admin login
    cast["bob"].refresh_from_db()
    assert ModerationLog.objects.filter(actor=cast["chen"]).count() == 0


def test_the_moderation_log_cannot_be_edited_or_deleted_from_the_admin(cast, mod, admin_client):
    entry = moderation.user_mute(user=cast["bob"], by=mod, reason="noise")
    for client in (admin_client, Client()):
        if client is not admin_client:
            client.force_login(mod)
        assert client.get(reverse("admin:games_moderationlog_change", args=[entry.pk])).status_code == 200
        assert client.post(reverse("admin:games_moderationlog_change", args=[entry.pk]),
                           {"reason": "rewritten"}).status_code == 403
        assert client.post(reverse("admin:games_moderationlog_delete", args=[entry.pk]),
                           {"post": "yes"}).status_code == 403
        assert client.get(reverse("admin:games_moderationlog_add")).status_code == 403
    entry.refresh_from_db()
    assert entry.reason == "noise"
    with pytest.raises(ValueError):
        entry.save()
    with pytest.raises(ValueError):
        entry.delete()


@pytest.mark.services
def test_postgresql_refuses_to_rewrite_the_moderation_log(cast, mod):
    from django.db import DatabaseError, transaction

    entry = moderation.user_mute(user=cast["bob"], by=mod, reason="noise")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE games_moderationlog SET reason = 'gone' WHERE id = %s", [entry.pk])
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM games_moderationlog WHERE id = %s", [entry.pk])


def test_the_admin_dashboard_counts_rooms_players_hands_and_reports(cast, mod):
    room = table_of_four(cast)
    finish_hand(room, cast)
    moderation.report_create(reporter=cast["chen"], room_id=room.pk, target_user_id=cast["bob"].pk, reason="rude")
    browser = Client()
    browser.force_login(mod)
    page = browser.get(reverse("admin:index"))
    board = page.context["dashboard"]
    assert (board["open_rooms"], board["seated_players"], board["hands_last_hour"], board["open_reports"]) == \
        (1, 4, 1, 1)
    assert b"halfpoint-dashboard" in page.content


def test_hands_are_read_only_in_the_admin_and_searchable_by_room_and_player(cast, mod):
    room = table_of_four(cast)
    finish_hand(room, cast)
    browser = Client()
    browser.force_login(mod)
    listing = browser.get(reverse("admin:games_hand_changelist"), {"q": room.code})
    assert listing.status_code == 200 and listing.context["cl"].result_count == 2  # hand 2 is being dealt
    assert browser.get(reverse("admin:games_hand_changelist"), {"q": "nobody-like-this"}).context["cl"].result_count == 0
    assert browser.get(reverse("admin:games_hand_changelist"), {"q": "dara"}).context["cl"].result_count == 1
    hand = room.hands.get(number=1)
    page = browser.get(reverse("admin:games_hand_change", args=[hand.pk]))
    assert page.status_code == 200 and hand.get_absolute_url().encode() in page.content
    assert browser.post(reverse("admin:games_hand_change", args=[hand.pk]), {}).status_code == 403


def test_the_admin_shows_no_card_of_a_hand_in_play_and_every_card_once_it_is_over(cast, mod):
    """Moderators may sit at tables too: the face-down cards of a hand in play are their owners' alone."""
    room = table_of_four(cast)
    for name in ("bob", "chen", "dara"):
        act(room, cast[name], "bet", amount=20)
    hand = room.hands.get(number=1)
    assert not hand.is_over
    dealt = [e.data["card"] for e in hand.events.filter(type="card_dealt")]
    assert dealt  # face down: one card each
    browser = Client()
    browser.force_login(mod)
    playing = browser.get(reverse("admin:games_hand_change", args=[hand.pk]))
    assert playing.status_code == 200
    assert not [card for card in dealt if f'"{card}"'.encode() in playing.content.replace(b"&quot;", b'"')]
    finish_hand(room, cast)
    over = browser.get(reverse("admin:games_hand_change", args=[hand.pk]))
    assert all(f'"{card}"'.encode() in over.content.replace(b"&quot;", b'"') for card in dealt)


# --- the rules form ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset, change, field", [
    ("ten-half", {"max_cards": "1"}, "max_cards"),
    ("ten-half", {"max_cards": "7"}, "max_cards"),
    ("ten-half", {"min_bet": "50"}, "min_bet"),
    ("ten-half", {"max_bet": "5"}, "max_bet"),
    ("ten-half", {"bet_seconds": "1"}, "bet_seconds"),
    ("ten-half", {"side_bets_enabled": "on", "max_side_bettors": "0"}, "max_side_bettors"),
    ("seven-half", {"order_policy": "dice"}, "order_policy"),
    ("seven-half", {"banker_policy": "max-hands", "bank_max_hands": ""}, "bank_max_hands"),
    ("zhejiang-ten-half", {"max_cards": "9"}, "max_cards"),
    ("ban-luck", {"stake_third_of_stack": None}, "stake_third_of_stack"),
    ("ten-half", {"payouts__ordinary": "0"}, "payouts__ordinary"),
])
def test_the_rules_form_puts_the_engines_refusal_on_the_right_field(preset, change, field):
    from games.engine import RulesError, rules_from

    data = {**_form_data(RulesForm(preset, None)), **change}
    data = {k: v for k, v in data.items() if v is not None}  # None: an unticked box
    form = RulesForm(preset, data)
    assert not form.is_valid()
    assert list(form.errors) == [field], form.errors
    with pytest.raises(RulesError) as refused:
        rules_from(preset, form.attempted)
    assert form.errors[field] == [refused.value.message.split(": ", 1)[1]]


def test_the_rules_form_refuses_chips_that_are_not_numbers():
    form = RulesForm("ten-half", {**_form_data(RulesForm("ten-half", None)), "chip_values": "10, x"})
    assert not form.is_valid() and list(form.errors) == ["chip_values"]


def test_the_rules_form_keeps_only_what_differs_from_the_preset():
    form = RulesForm("ban-luck", {**_form_data(RulesForm("ban-luck", None)), "max_bet": "200"})
    assert form.is_valid(), form.errors
    assert form.overrides == {"max_bet": 200} and form.rules.max_bet == 200


def test_a_rules_change_from_the_admin_applies_from_the_next_hand(cast, mod):
    room = table_of_four(cast)
    browser = Client()
    browser.force_login(mod)
    url = reverse("admin:games_room_rules", args=[room.pk])
    page = browser.get(url)
    data = {name: value for name, value in _form_data(page.context["form"]).items()}
    data.update({"base_stake": "20", "chip_values": "20, 100", "why-reason": "players asked for higher stakes"})
    bad = browser.post(url, {**data, "max_cards": "9"})
    assert bad.status_code == 200 and "max_cards" in bad.context["form"].errors
    assert browser.post(url, data).status_code == 302
    assert state(room)["rules"]["base_stake"] == 10  # the hand under way keeps its rules
    assert state(room)["next_rules"]["base_stake"] == 20
    finish_hand(room, cast)
    assert state(room)["rules"]["base_stake"] == 20 and state(room)["hand"]["base"] == 20
    assert ModerationLog.objects.get(action="rules").details["overrides"]["base_stake"] == 20
    assert room.events.filter(type="rules_changed").exists()


def _form_data(form) -> dict:
    out = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if type(field).__name__ == "BooleanField":
            if value:
                out[name] = "on"
        elif type(field).__name__ == "NullBooleanField":
            out[name] = {True: "true", False: "false"}.get(value, "unknown")
        elif isinstance(value, (list, tuple)):
            out[name] = ", ".join(map(str, value))
        elif value is not None:
            out[name] = value
    return out


def test_a_moderator_saves_a_house_variant_from_typed_fields(cast, mod):
    browser = Client()
    browser.force_login(mod)
    url = reverse("admin:games_housevariant_add") + "?preset=ten-half"
    page = browser.get(url)
    assert page.status_code == 200
    data = {k[len("rules-"):]: v for k, v in _form_data(page.context["adminform"].form).items()
            if k.startswith("rules-")}
    post = {f"rules-{k}": v for k, v in data.items()}
    post.update({"name": "High rollers", "description": "", "preset": "ten-half", "active": "on",
                 "rules-base_stake": "50", "rules-chip_values": "50, 100, 500"})
    response = browser.post(url, post)
    assert response.status_code == 302, response.context["adminform"].form.errors
    from games.models import HouseVariant

    variant = HouseVariant.objects.get(name="High rollers")
    assert variant.overrides == {"base_stake": 50, "chip_values": [50, 100, 500]}


def test_the_rules_stats_show_the_bankers_edge_of_a_rule_set(cast):
    browser = Client()
    browser.force_login(cast["bob"])
    response = browser.get(reverse("rules_stats"), {"preset": "ten-half"})  # eager: computed at once
    data = json.loads(response.content)
    if data["status"] == "running":
        data = json.loads(browser.get(reverse("rules_stats"), {"preset": "ten-half"}).content)
    assert data["status"] == "done"
    r = data["result"]
    assert abs(r["win"] + r["push"] + r["lose"] - 1) < 1e-9 and r["hands"] == 20_000
    assert 0 < r["banker_edge"] < 0.5  # ½ to the banker and ties to the bank: the bank has the edge
    richer = RulesForm("ten-half", None)
    data2 = _form_data(richer)
    data2.update({"payouts__ordinary": "3"})
    other = json.loads(browser.post(reverse("rules_stats") + "?preset=ten-half", data2).content)
    assert other["status"] == "done" and other["result"]["banker_edge"] < 0  # paying x3 hands the edge over
