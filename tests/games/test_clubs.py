"""Clubs: membership (invite, request, approve, leave, transfer, dissolve), club rooms that only
members can see or join, club admins who moderate their own club and nothing else, and a
leaderboard that equals the ledger."""

import pytest
from django.test import Client
from django.urls import reverse

from games import clubs, services
from games.models import ClubJoinRequest, ClubMember, GameSetting, HandSeat, HouseVariant, ModerationLog, Room
from games.services import GameError
from tests.games.conftest import act, assert_ledger_clean, seat_of, state, table
from wallets.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club(cast):
    """alice's club "Friday Night": bob is an admin, chen a member; dara is not in it."""
    c = clubs.club_create(owner=cast["alice"], name="Friday Night")
    for name in ("bob", "chen"):
        request = clubs.club_join(club=c, user=cast[name])
        clubs.request_decide(request=request, by=cast["alice"], approve=True)
    clubs.member_set_role(club=c, user=cast["bob"], role="admin", by=cast["alice"])
    return c


def roles(club) -> dict:
    return {m.user.username: m.role for m in club.members.select_related("user")}


# --- membership --------------------------------------------------------------------------------------------


def test_a_closed_club_turns_a_join_into_a_request_that_an_admin_approves(cast, club):
    request = clubs.club_join(club=club, user=cast["dara"])
    assert isinstance(request, ClubJoinRequest) and request.status == "pending"
    assert clubs.club_join(club=club, user=cast["dara"]).pk == request.pk  # asking twice: one request
    with pytest.raises(GameError) as e:
        clubs.request_decide(request=request, by=cast["chen"], approve=True)  # a member is no admin
    assert e.value.code == "not_club_admin"
    clubs.request_decide(request=request, by=cast["bob"], approve=True)
    assert roles(club)["dara"] == "member"
    with pytest.raises(GameError):
        clubs.request_decide(request=request, by=cast["bob"], approve=False)


def test_an_open_club_takes_anyone_with_the_link_at_once(cast):
    c = clubs.club_create(owner=cast["alice"], name="Open Doors", open_joining=True)
    browser = Client()
    link = reverse("clubs:invite", kwargs={"token": c.invite_token})
    assert browser.get(link).status_code == 302 and "login" in browser.get(link)["Location"]
    browser.force_login(cast["dara"])
    assert browser.get(link).status_code == 302
    assert roles(c) == {"alice": "owner", "dara": "member"}


def test_joining_by_code(cast, club):
    browser = Client()
    browser.force_login(cast["dara"])
    browser.post(reverse("clubs:join_code"), {"code": club.join_code.lower()})
    assert ClubJoinRequest.objects.filter(club=club, user=cast["dara"], status="pending").exists()


def test_leaving_and_the_owner_who_must_transfer_first(cast, club):
    clubs.member_leave(club=club, user=cast["chen"])
    assert "chen" not in roles(club)
    with pytest.raises(GameError) as e:
        clubs.member_leave(club=club, user=cast["alice"])
    assert e.value.code == "owner_cannot_leave"
    clubs.ownership_transfer(club=club, to_user=cast["bob"], by=cast["alice"])
    club.refresh_from_db()
    assert club.owner == cast["bob"] and roles(club) == {"alice": "admin", "bob": "owner"}
    clubs.member_leave(club=club, user=cast["alice"])
    assert roles(club) == {"bob": "owner"}
    with pytest.raises(GameError):
        clubs.ownership_transfer(club=club, to_user=cast["dara"], by=cast["bob"])  # not a member


def test_dissolving_closes_the_clubs_rooms_and_releases_every_stack(cast, club):
    room = clubs.club_room_create(club=club, by=cast["bob"], preset="ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["bob"], "start")
    with pytest.raises(GameError):
        clubs.club_dissolve(club=club, by=cast["bob"])  # an admin is not the owner
    clubs.club_dissolve(club=club, by=cast["alice"])
    room.refresh_from_db()
    club.refresh_from_db()
    assert room.status == Room.Status.CLOSED and club.dissolved_at is not None
    with pytest.raises(GameError) as e:
        clubs.club_join(club=club, user=cast["dara"])
    assert e.value.code == "club_dissolved"
    assert_ledger_clean()


# --- club rooms ---------------------------------------------------------------------------------------------


def test_a_non_member_can_neither_see_nor_join_a_club_room_by_code_or_link(cast, club):
    room = clubs.club_room_create(club=club, by=cast["bob"], preset="ten-half")
    with pytest.raises(GameError) as e:
        services.room_check_access(room=room, user=cast["dara"])
    assert e.value.code == "club_members_only"
    with pytest.raises(GameError) as e:
        services.seat_take(room_id=room.pk, user=cast["dara"], buy_in=500)
    assert e.value.code == "club_members_only"
    with pytest.raises(GameError):
        services.chat_post(room_id=room.pk, user=cast["dara"], text="hi")
    outsider = Client()
    outsider.force_login(cast["dara"])
    room_url = reverse("games:room", kwargs={"code": room.code})
    for url in (room_url, reverse("games:invite", kwargs={"token": room.invite_token})):
        page = outsider.get(url, follow=True)
        assert page.redirect_chain and page.redirect_chain[-1][0] != room_url
        assert room.invite_token not in page.content.decode()
    member = Client()
    member.force_login(cast["chen"])
    page = member.get(room_url)
    assert page.status_code == 200 and room.invite_token in page.content.decode()


def test_who_may_open_a_club_room(cast, club):
    with pytest.raises(GameError) as e:
        clubs.club_room_create(club=club, by=cast["chen"], preset="ten-half")
    assert e.value.code == "not_allowed"
    clubs.club_settings_update(club=club, by=cast["alice"], open_joining=False, members_create_rooms=True)
    assert clubs.club_room_create(club=club, by=cast["chen"], preset="ten-half").club_id == club.pk
    with pytest.raises(GameError):
        clubs.club_room_create(club=club, by=cast["dara"], preset="ten-half")


def test_a_game_marked_not_for_clubs_cannot_open_there(cast, club):
    GameSetting.objects.create(preset="ban-luck", available_in_clubs=False)
    with pytest.raises(GameError) as e:
        clubs.club_room_create(club=club, by=cast["alice"], preset="ban-luck")
    assert e.value.code == "not_in_clubs"
    assert clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")


def test_a_club_variant_opens_in_its_club_only(cast, club):
    variant = HouseVariant.objects.create(name="Big", preset="ten-half", overrides={"base_stake": 50}, club=club,
                                          created_by=cast["alice"])
    room = clubs.club_room_create(club=club, by=cast["alice"], variant=variant)
    assert room.rules["base_stake"] == 50
    other = clubs.club_create(owner=cast["dara"], name="Elsewhere")
    with pytest.raises(GameError) as e:
        clubs.club_room_create(club=other, by=cast["dara"], variant=variant)
    assert e.value.code == "bad_variant"


# --- club moderation --------------------------------------------------------------------------------------------


def test_a_club_admin_moderates_the_clubs_rooms_and_it_is_logged_with_the_club(cast, club):
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["chen"], buy_in=500)
    clubs.club_mute(club=club, user=cast["chen"], by=cast["bob"], reason="spamming the table")
    with pytest.raises(GameError) as e:
        services.chat_post(room_id=room.pk, user=cast["chen"], text="hello")
    assert e.value.code == "muted"
    clubs.club_seat_kick(room=room, user=cast["chen"], by=cast["bob"], reason="stalling")
    assert seat_of(room, cast["chen"]) is None
    clubs.club_room_close(room=room, by=cast["bob"], reason="closing for the night")
    room.refresh_from_db()
    assert room.status == "closed"
    logged = list(ModerationLog.objects.order_by("pk").values_list("action", "club_id", "actor_id"))
    assert logged == [("mute", club.pk, cast["bob"].pk), ("kick", club.pk, cast["bob"].pk),
                      ("close_room", club.pk, cast["bob"].pk)]


def test_a_club_admin_has_no_power_outside_the_club(cast, club):
    public = services.room_create(host=cast["dara"], preset="ten-half")
    services.seat_take(room_id=public.pk, user=cast["chen"], buy_in=500)
    other = clubs.club_create(owner=cast["dara"], name="Not Bob's")
    other_room = clubs.club_room_create(club=other, by=cast["dara"], preset="ten-half")
    for room in (public, other_room):
        with pytest.raises(GameError) as e:
            clubs.club_room_close(room=room, by=cast["bob"], reason="power grab")
        assert e.value.code == "not_club_admin"
        with pytest.raises(GameError):
            clubs.club_seat_kick(room=room, user=cast["chen"], by=cast["bob"], reason="power grab")
        with pytest.raises(GameError):
            services.room_close(room_id=room.pk, by=cast["bob"])
    with pytest.raises(GameError):
        clubs.club_mute(club=other, user=cast["dara"], by=cast["bob"], reason="x")
    public.refresh_from_db()
    assert public.status == "open" and seat_of(public, cast["chen"]) is not None
    assert not ModerationLog.objects.exists()


def test_club_moderation_needs_a_reason_like_the_sites(cast, club):
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["chen"], buy_in=500)
    for act_without_reason in (
            lambda: clubs.club_mute(club=club, user=cast["chen"], by=cast["bob"], reason="  "),
            lambda: clubs.club_seat_kick(room=room, user=cast["chen"], by=cast["bob"], reason=""),
            lambda: clubs.club_room_close(room=room, by=cast["bob"], reason=None),
            lambda: clubs.member_remove(club=club, user=cast["chen"], by=cast["bob"], reason=" ")):
        with pytest.raises(GameError) as e:
            act_without_reason()
        assert e.value.code == "reason_required"
    room.refresh_from_db()
    assert room.status == "open" and seat_of(room, cast["chen"]) is not None
    assert roles(club)["chen"] == "member" and not ModerationLog.objects.exists()


def test_an_admin_removes_a_member_whose_seats_go_and_only_the_owner_removes_an_admin(cast, club):
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["chen"], buy_in=500)
    bob = Client()
    bob.force_login(cast["bob"])
    bob.post(reverse("clubs:member", kwargs={"pk": club.pk, "user_id": cast["alice"].pk}), {"do": "remove"})
    clubs.member_set_role(club=club, user=cast["chen"], role="admin", by=cast["alice"])
    with pytest.raises(GameError) as e:
        clubs.member_remove(club=club, user=cast["chen"], by=cast["bob"], reason="too many admins")
    assert e.value.code == "not_allowed"
    clubs.member_set_role(club=club, user=cast["chen"], role="member", by=cast["alice"])
    bob.post(reverse("clubs:member", kwargs={"pk": club.pk, "user_id": cast["chen"].pk}),
             {"do": "remove", "reason": "stalling every hand"})
    assert roles(club) == {"alice": "owner", "bob": "admin"} and seat_of(room, cast["chen"]) is None
    logged = list(ModerationLog.objects.values_list("action", "actor_id", "target_user_id", "club_id", "reason",
                                                    "details"))
    assert logged == [("kick", cast["bob"].pk, cast["chen"].pk, club.pk, "stalling every hand",
                       {"removed_from_club": True})]


# --- the leaderboard ----------------------------------------------------------------------------------------------


def play_hands(room, users, n):
    for _ in range(n):
        s = state(room)
        for seat_id, bet in s["hand"]["bets"].items():
            if not bet["confirmed"]:
                services.action_submit(room_id=room.pk, user=users[seat_id], action="bet", args={"amount": 30})
        for _step in range(40):
            s = state(room)
            if s["phase"] != "playing":
                break
            services.action_submit(room_id=room.pk, user=users[s["hand"]["turn"][0]], action="hit"
                                   if len(s["hand"]["hands"][s["hand"]["turn"][0]][0]["cards"]) < 2 else "stand")
        if state(room)["phase"] == "bank_decision":
            pending = state(room)["pending"]
            services.action_submit(room_id=room.pk, user=users[pending["seat"]], action="pass_bank"
                                   if pending["kind"] == "refill" else "decline_bank")


def test_the_leaderboard_equals_the_ledger_with_beans_and_points_apart(cast, club):
    beans = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    points = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half", currency="points")
    outside = services.room_create(host=cast["alice"], preset="ten-half")  # not the club's: not counted
    for room in (beans, points, outside):
        for name in ("alice", "bob", "chen"):
            services.seat_take(room_id=room.pk, user=cast[name], buy_in=600)
        act(room, cast["alice"], "start")
        act(room, cast["alice"], "open_bank", amount=600)
        users = {seat: type(cast["alice"]).objects.get(pk=int(uid)) for uid, seat in table(room).meta["users"].items()}
        play_hands(room, users, 4)
    board = clubs.leaderboard(club, "all")
    for currency, room in (("beans", beans), ("points", points)):
        ledger = {}
        for e in Entry.objects.filter(transaction__kind="settle", account__currency=currency,
                                      account__seat_ref__startswith=f"room{room.pk}:"):
            ledger[e.account.user_id] = ledger.get(e.account.user_id, 0) + e.amount
        shown = {row["user_id"]: row["net"] for row in board[currency]}
        assert shown == {uid: net for uid, net in ledger.items()}
        assert sum(shown.values()) == 0 and shown  # play moves chips between players only
        records = {}
        for hs in HandSeat.objects.filter(hand__room=room):
            records[hs.user_id] = records.get(hs.user_id, 0) + hs.delta
        assert {uid: net for uid, net in records.items() if net} == {uid: net for uid, net in shown.items() if net}
        nets = [row["net"] for row in board[currency]]
        assert nets == sorted(nets, reverse=True)
    assert clubs.leaderboard(club, "week") == board  # everything happened today
    assert all(row["user_id"] != cast["dara"].pk for rows in board.values() for row in rows)


def test_club_members_see_the_club_page_and_outsiders_only_its_door(cast, club):
    room = clubs.club_room_create(club=club, by=cast["bob"], preset="ten-half")
    member = Client()
    member.force_login(cast["chen"])
    page = member.get(reverse("clubs:club", kwargs={"pk": club.pk})).content.decode()
    assert "Friday Night" in page and room.code in page and "Bob" in page
    outsider = Client()
    outsider.force_login(cast["dara"])
    page = outsider.get(reverse("clubs:club", kwargs={"pk": club.pk})).content.decode()
    assert "Friday Night" in page and room.code not in page
    assert ClubMember.objects.filter(club=club).count() == 3
