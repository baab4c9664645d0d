"""Who may read a hand record (docs/rules.md, "Who may read a hand record"): the players of the hand, side bettors
included, who came to the room before it ended, the host, a club room's members and moderators; anyone else gets
404, on the record's key URL and on the room's URLs alike. A reader shares one hand by a link they make and revoke.

The cast: alice hosts without sitting, bob banks, chen challenges, dara side-bets on chen; erin, frank and gus are
strangers to the room until a test sends them there; maud is a moderator."""

import pytest
from django.test import Client
from django.urls import reverse

from games import clubs, hand_records, selectors, services
from games.models import Hand, HandSeat, HandShare, RoomVisit
from tests.games.conftest import act, play_out, seat_of, state

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _one_hand_at_a_time(_table_settings, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # a finished hand stays the latest until the host starts the next


def browser(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def open_room(people, *, club=None):
    """alice's room, where the first to sit banks (so alice hosts without a seat)."""
    overrides = {"host_banks": False, "first_banker": "first-seated"}
    if club is not None:
        return clubs.club_room_create(club=club, by=people["alice"], preset="ten-half", overrides=overrides)
    return services.room_create(host=people["alice"], preset="ten-half", overrides=overrides)


def play_hand(room, people, *, side: bool = True) -> Hand:
    """bob banks, chen stakes 20, dara (when `side`) side-bets 20 on chen; everyone stands."""
    bob, chen, dara = people["bob"], people["chen"], people["dara"]
    if not Hand.objects.filter(room=room).exists():
        services.seat_take(room_id=room.pk, user=bob, buy_in=500)
        services.seat_take(room_id=room.pk, user=chen, buy_in=500)
        if side:
            services.seat_take(room_id=room.pk, user=dara, buy_in=500, role="side")
    act(room, people["alice"], "start")
    if state(room)["pending"]:  # the first hand: bob opens the bank
        act(room, bob, "open_bank", amount=300)
    act(room, chen, "bet", amount=20)
    if side:
        act(room, dara, "side_bet", backs=seat_of(room, chen), amount=20)
    play_out(room)
    return Hand.objects.filter(room=room).order_by("-number").first()


def reads(user, hand: Hand) -> bool:
    """`user` gets the record page (200) or a 404, never anything else."""
    status = browser(user).get(hand.get_absolute_url()).status_code
    assert status in (200, 404), status
    return status == 200


@pytest.fixture
def hand(people) -> Hand:
    return play_hand(open_room(people), people)


# --- the readers -------------------------------------------------------------------------------------------------


def test_the_record_is_addressed_by_an_unguessable_key_not_its_sequential_id(people, hand):
    assert len(hand.key) == 22 and hand.get_absolute_url() == f"/hands/{hand.key}/"
    assert browser(people["chen"]).get(f"/hands/{hand.pk}/").status_code == 404


def test_who_sat_in_the_hand_reads_it_banker_and_challenger(people, hand):
    assert {hs.user.username: hs.role for hs in HandSeat.objects.filter(hand=hand)}["chen"] == "challenger"
    assert not RoomVisit.objects.filter(user__in=[people["bob"], people["chen"]]).exists()  # they never came by page
    assert reads(people["bob"], hand) and reads(people["chen"], hand)


def test_a_side_bettor_reads_the_hand_they_bet_on(people, hand):
    assert HandSeat.objects.get(hand=hand, user=people["dara"]).role == "side"
    assert reads(people["dara"], hand)


def test_who_came_to_the_room_before_the_hand_ended_reads_it_and_not_the_hands_before(people):
    room = open_room(people)
    erin = people["erin"]
    assert browser(erin).get(room.get_absolute_url()).status_code == 200  # erin watches from the first hand on
    first = play_hand(room, people)
    assert browser(people["frank"]).get(room.get_absolute_url()).status_code == 200  # frank comes after it
    second = play_hand(room, people)
    assert reads(erin, first) and reads(erin, second)
    assert not reads(people["frank"], first) and reads(people["frank"], second)


def test_the_host_reads_the_rooms_hands_without_a_seat_or_a_visit(people, hand):
    alice = people["alice"]
    assert not HandSeat.objects.filter(user=alice).exists() and not RoomVisit.objects.filter(user=alice).exists()
    assert reads(alice, hand)


def test_a_moderator_reads_any_hand(people, maud, hand):
    assert reads(maud, hand)


def test_a_stranger_gets_the_404_of_a_key_that_does_not_exist(people, hand):
    gus = browser(people["gus"])
    stranger, missing = gus.get(hand.get_absolute_url()), gus.get(reverse("games:hand", args=["x" * 22]))
    assert stranger.status_code == missing.status_code == 404
    assert stranger.content == missing.content
    assert gus.get(reverse("games:room_hand", args=[hand.room.code, hand.number])).status_code == 404
    assert not selectors.hand_visible_to(hand, people["gus"])


def test_a_hand_being_played_has_no_record_even_for_its_players(people):
    room = open_room(people)
    services.seat_take(room_id=room.pk, user=people["bob"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["chen"], buy_in=500)
    act(room, people["alice"], "start")
    act(room, people["bob"], "open_bank", amount=300)
    playing = Hand.objects.get(room=room)
    assert not reads(people["alice"], playing) and not reads(people["bob"], playing)


# --- club rooms ---------------------------------------------------------------------------------------------------


@pytest.fixture
def club(people):
    """alice's club: bob, chen and dara are members; erin is not."""
    c = clubs.club_create(owner=people["alice"], name="Friday Night")
    for name in ("bob", "chen", "dara"):
        clubs.request_decide(request=clubs.club_join(club=c, user=people[name]), by=people["alice"], approve=True)
    return c


def test_a_club_member_reads_the_club_rooms_hands_without_sitting_or_watching(people, club):
    hand = play_hand(open_room(people, club=club), people, side=False)
    dara = people["dara"]
    assert not HandSeat.objects.filter(hand=hand, user=dara).exists() and not RoomVisit.objects.exists()
    assert reads(dara, hand)
    clubs.member_leave(club=club, user=dara)
    assert not reads(dara, hand)  # a member who leaves loses what only membership gave


def test_a_club_rooms_hands_are_404_to_outsiders_on_every_url(people, club):
    room = open_room(people, club=club)
    hand = play_hand(room, people, side=False)
    erin = browser(people["erin"])
    assert erin.get(room.get_absolute_url()).status_code == 302  # the room refuses erin, as its socket does (4403)
    assert erin.get(hand.get_absolute_url()).status_code == 404
    assert erin.get(reverse("games:room_hands", args=[room.code])).status_code == 404
    assert erin.get(reverse("games:room_hand", args=[room.code, hand.number])).status_code == 404
    assert not RoomVisit.objects.filter(user=people["erin"]).exists()  # a refused visit is no visit


# --- the room's hands ----------------------------------------------------------------------------------------------


def test_the_room_hands_page_lists_only_the_hands_the_user_may_read(people):
    room = open_room(people)
    first = play_hand(room, people)
    assert browser(people["frank"]).get(room.get_absolute_url()).status_code == 200
    second = play_hand(room, people)
    listing = reverse("games:room_hands", args=[room.code])
    html = browser(people["chen"]).get(listing).content.decode()
    assert first.get_absolute_url() in html and second.get_absolute_url() in html
    frank = browser(people["frank"])
    html = frank.get(listing).content.decode()
    assert first.get_absolute_url() not in html and second.get_absolute_url() in html
    assert frank.get(reverse("games:room_hand", args=[room.code, first.number])).status_code == 404
    assert frank.get(reverse("games:room_hand", args=[room.code, second.number])).url == second.get_absolute_url()
    html = frank.get(room.get_absolute_url()).content.decode()  # the table's menu has the same list
    assert first.get_absolute_url() not in html and second.get_absolute_url() in html


# --- share links ---------------------------------------------------------------------------------------------------


def test_a_share_link_is_made_used_by_anyone_logged_in_and_revoked(people, hand):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(people["chen"])
    assert strict.post(reverse("games:hand_share", args=[hand.key])).status_code == 403  # the form's CSRF token
    assert not HandShare.objects.exists()
    chen, gus = browser(people["chen"]), browser(people["gus"])
    page = chen.post(reverse("games:hand_share", args=[hand.key]), follow=True)
    share = HandShare.objects.get(hand=hand)
    assert share.created_by == people["chen"] and len(share.token) == 22
    shared = share.get_absolute_url()
    assert shared in page.content.decode() and "Share link made" in page.content.decode()
    page = gus.get(shared)
    assert page.status_code == 200 and hand.seed in page.content.decode()
    assert 'id="shared-by"' in page.content.decode() and 'id="share"' not in page.content.decode()
    assert gus.get(hand.get_absolute_url()).status_code == 404  # the link, not the record's own URL
    anonymous = Client().get(shared)
    assert anonymous.status_code == 302 and anonymous.url.startswith(reverse("account_login"))
    assert 'id="share-links"' not in browser(people["bob"]).get(hand.get_absolute_url()).content.decode()
    page = chen.post(reverse("games:hand_share_revoke", args=[hand.key]), {"token": share.token}, follow=True)
    assert "Share link revoked" in page.content.decode() and shared not in page.content.decode()
    share.refresh_from_db()
    assert share.revoked_at is not None
    assert gus.get(shared).status_code == 404


def test_revoking_a_link_that_is_not_yours_or_already_revoked_says_so_and_changes_nothing(people, hand):
    share = hand_records.hand_share_create(hand=hand, by=people["chen"])
    bob = browser(people["bob"])
    for token in (share.token, "no-such-token", ""):
        page = bob.post(reverse("games:hand_share_revoke", args=[hand.key]), {"token": token}, follow=True)
        assert "not one of yours, or it is already revoked" in page.content.decode()
    assert HandShare.objects.get().revoked_at is None
    assert browser(people["gus"]).get(share.get_absolute_url()).status_code == 200
    assert browser(people["chen"]).get(reverse("games:hand_share_revoke", args=[hand.key])).status_code == 405


def test_a_share_link_of_a_hand_you_may_not_read_cannot_be_made(people, hand):
    gus = people["gus"]
    assert browser(gus).post(reverse("games:hand_share", args=[hand.key])).status_code == 404
    with pytest.raises(services.GameError) as e:
        hand_records.hand_share_create(hand=hand, by=gus)
    assert e.value.code == "no_hand"
    assert not HandShare.objects.exists()


def test_a_share_link_works_only_while_its_maker_may_read_the_hand(people, club):
    hand = play_hand(open_room(people, club=club), people, side=False)
    share = hand_records.hand_share_create(hand=hand, by=people["dara"])  # dara reads it as a member
    gus = browser(people["gus"])
    assert gus.get(share.get_absolute_url()).status_code == 200
    clubs.member_leave(club=club, user=people["dara"])
    assert gus.get(share.get_absolute_url()).status_code == 404


def test_a_reader_has_at_most_ten_open_links_of_a_hand(people, hand):
    for _ in range(hand_records.SHARES_PER_HAND):
        hand_records.hand_share_create(hand=hand, by=people["chen"])
    page = browser(people["chen"]).post(reverse("games:hand_share", args=[hand.key]), follow=True)
    assert "share links of this hand already" in page.content.decode()
    assert HandShare.objects.count() == hand_records.SHARES_PER_HAND


# --- the migration -------------------------------------------------------------------------------------------------


def test_the_migration_keys_every_existing_hand_counts_seats_as_visits_and_goes_back(people):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    hand = play_hand(open_room(people), people)
    hand_records.hand_share_create(hand=hand, by=people["chen"])
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate([("games", "0012_handevent_no_single_column_indexes")])
    try:
        with connection.cursor() as cursor:
            columns = {c.name for c in connection.introspection.get_table_description(cursor, "games_hand")}
            tables = connection.introspection.table_names(cursor)
        assert "key" not in columns and "games_handshare" not in tables and "games_roomvisit" not in tables
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
    fresh = Hand.objects.get(pk=hand.pk)
    assert len(fresh.key) == 22 and fresh.key != hand.key  # drawn again: the old URL leads nowhere now
    assert set(RoomVisit.objects.values_list("user__username", flat=True)) == {"bob", "chen", "dara"}
    assert not HandShare.objects.exists()
