"""The same night again (games/nights.py): who may open it, from which room, once; the new room's rules and the link
between the two ledgers; the invitation the previous players receive. The past nights (the player's, the club's),
and a club's saved rules (games/club_rules.py): every refusal changes nothing."""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import PushSubscription
from accounts.push import preferences_update
from games import club_rules, clubs, nights, notify, services
from games.models import HouseVariant, NightLink, Room
from games.services import GameError
from tests.games.conftest import act

pytestmark = pytest.mark.django_db(transaction=True)  # the invitations are queued on commit


def night(host, players, *, club=None, preset="ten-half", overrides=None, close=True, **options) -> Room:
    """A room hosted by `host` where `players` sat, closed unless told."""
    if club is not None:
        room = clubs.club_room_create(club=club, by=host, preset=preset, overrides=overrides, **options)
    else:
        room = services.room_create(host=host, preset=preset, overrides=overrides, **options)
    for position, user in enumerate(players):
        act(room, user, "sit", role="main", buy_in=room.buy_in_min, position=position)
    if close:
        services.room_close(room_id=room.pk, by=host)
    return Room.objects.get(pk=room.pk)


def counts() -> tuple[int, int]:
    return Room.objects.count(), NightLink.objects.count()


def refused(code: str, room: Room, by) -> None:
    before = counts()
    with pytest.raises(GameError) as e:
        nights.night_again(room=room, by=by)
    assert e.value.code == code
    assert counts() == before


@pytest.fixture
def club(cast):
    """alice owns "Friday Night"; bob is an admin, chen a member; dara is not in it. Members may not open rooms."""
    c = clubs.club_create(owner=cast["alice"], name="Friday Night")
    for name in ("bob", "chen"):
        clubs.request_decide(request=clubs.club_join(club=c, user=cast[name]), by=cast["alice"], approve=True)
    clubs.member_set_role(club=c, user=cast["bob"], role="admin", by=cast["alice"])
    return c


# --- the same night again --------------------------------------------------------------------------------------


def test_the_host_opens_the_night_again_with_the_rules_it_ended_with(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half", currency="points", buy_in_min=150,
                                buy_in_max=900)
    services.room_rules_update(room_id=room.pk, overrides={"max_cards": 4}, by=cast["alice"])
    act(room, cast["bob"], "sit", role="main", buy_in=200, position=1)
    services.room_close(room_id=room.pk, by=cast["alice"])
    room.refresh_from_db()
    new = nights.night_again(room=room, by=cast["alice"])
    assert new.is_open and new.pk != room.pk and new.host == cast["alice"]
    assert (new.preset, new.overrides, new.rules, new.currency, new.kind, new.buy_in_min, new.buy_in_max) == (
        room.preset, {"max_cards": 4}, room.rules, "points", room.kind, 150, 900)
    assert new.rules["max_cards"] == 4
    assert nights.continued_in(room) == new and nights.continued_from(new) == room
    assert nights.continued_from(room) is None and nights.continued_in(new) is None


def test_refusals_change_nothing(cast):
    alice, bob = cast["alice"], cast["bob"]
    still_open = night(alice, [bob], close=False)
    refused("room_open", still_open, alice)
    closed = night(alice, [bob])
    refused("not_allowed", closed, bob)  # a player, not the host
    refused("not_allowed", closed, cast["dara"])
    practice = services.practice_open(user=bob, preset="ten-half")
    services.room_close(room_id=practice.pk, by=bob)
    refused("practice_room", Room.objects.get(pk=practice.pk), bob)
    nights.night_again(room=closed, by=alice)
    refused("already_again", closed, alice)  # a night is played again once


@pytest.mark.services  # on PostgreSQL, where the closed room's row lock is real
def test_two_agains_at_once_open_one_room_and_the_other_is_refused(cast):
    room = night(cast["alice"], [cast["bob"]])
    start = threading.Barrier(2)
    results = []

    def again():
        try:
            start.wait()
            results.append(nights.night_again(room=Room.objects.get(pk=room.pk), by=cast["alice"]).pk)
        except GameError as e:
            results.append(e.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=again) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    opened = Room.objects.get(status="open")
    assert sorted(results, key=str) == sorted([opened.pk, "already_again"], key=str)
    assert NightLink.objects.get().room == opened


def test_the_view_refuses_with_a_message_and_the_room_stays_as_it_was(cast):
    alice, bob = cast["alice"], cast["bob"]
    closed = night(alice, [bob])
    url = reverse("games:room_again", kwargs={"code": closed.code}) + f"?room={closed.pk}"
    client = Client()
    client.force_login(bob)
    before = counts()
    answer = client.post(url, follow=True)
    assert answer.status_code == 200 and "Only the host" in answer.content.decode()
    assert client.get(url).status_code == 405
    client.force_login(cast["dara"])  # never in the room: it is not hers to read
    assert client.post(url).status_code == 404
    assert client.post(reverse("games:room_again", kwargs={"code": "12a4"})).status_code == 404
    assert counts() == before
    client.force_login(alice)
    answer = client.post(url)
    new = nights.continued_in(closed)
    assert answer.status_code == 302 and answer["Location"] == new.get_absolute_url()
    again = client.post(url, follow=True)
    assert "played again already" in again.content.decode() and counts() == (before[0] + 1, before[1] + 1)


def test_the_two_ledgers_link_each_other_and_the_button_shows_only_while_it_may_be_used(cast):
    alice, bob = cast["alice"], cast["bob"]
    closed = night(alice, [bob])
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("games:room_ledger", kwargs={"code": closed.code}) + f"?room={closed.pk}")
    assert 'id="again"' in page.content.decode()
    client.force_login(bob)
    page = client.get(reverse("games:room_ledger", kwargs={"code": closed.code}) + f"?room={closed.pk}")
    assert 'id="again"' not in page.content.decode()
    new = nights.night_again(room=closed, by=alice)
    old_page = client.get(reverse("games:room_ledger", kwargs={"code": closed.code}) + f"?room={closed.pk}").content
    assert f'href="{new.get_absolute_url()}"' in old_page.decode() and 'id="again"' not in old_page.decode()
    client.force_login(alice)
    new_page = client.get(reverse("games:room_ledger", kwargs={"code": new.code}) + f"?room={new.pk}").content.decode()
    assert 'id="continued-from"' in new_page and f"?room={closed.pk}" in new_page


def test_in_a_club_members_who_may_open_rooms_play_it_again_and_only_members_are_invited(cast, club, settings,
                                                                                        monkeypatch):
    alice, bob, chen, dara = cast["alice"], cast["bob"], cast["chen"], cast["dara"]
    room = night(alice, [alice, bob, chen], club=club)
    refused("not_allowed", room, chen)  # a member, while members may not open rooms
    refused("not_allowed", room, dara)  # not in the club
    invited = []
    monkeypatch.setattr(notify, "night_again_invite", lambda new, ids: invited.append((new.pk, ids)))
    clubs.member_leave(club=club, user=chen)
    new = nights.night_again(room=room, by=bob)  # an admin, not the host
    assert new.club == club and new.host == bob
    assert invited == [(new.pk, [alice.pk])]  # chen left the club; bob opened it
    second = night(alice, [bob], club=club)
    clubs.club_dissolve(club=club, by=alice)
    refused("club_dissolved", Room.objects.get(pk=second.pk), alice)


def test_a_member_plays_it_again_when_the_club_lets_members_open_rooms(cast, club):
    room = night(cast["alice"], [cast["chen"]], club=club)
    clubs.club_settings_update(club=club, by=cast["alice"], open_joining=False, members_create_rooms=True)
    club.refresh_from_db()
    new = nights.night_again(room=Room.objects.select_related("club").get(pk=room.pk), by=cast["chen"])
    assert new.host == cast["chen"] and nights.continued_from(new) == room


def test_the_previous_players_who_want_it_are_invited_by_the_invite_link_in_their_language(cast, settings,
                                                                                          monkeypatch):
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY, settings.VAPID_SUBJECT = "k", "p", "mailto:a@b.example"
    alice, bob, chen, dara = cast["alice"], cast["bob"], cast["chen"], cast["dara"]
    for n, user in enumerate((alice, bob, chen, dara)):
        PushSubscription.objects.create(user=user, endpoint=f"https://push.example/{n}", p256dh="x", auth="y")
    preferences_update(user=chen, kinds={"night_again": False})
    type(bob).objects.filter(pk=bob.pk).update(language="it")
    sent = []
    monkeypatch.setattr(notify, "push_send", lambda **kw: sent.append(kw) or 1)
    room = night(alice, [alice, bob, chen])
    new = nights.night_again(room=room, by=alice)
    [message] = sent  # not alice (she opened it), not chen (he said no), not dara (she did not play)
    assert message["user"] == bob and message["topic"] == f"room{new.pk}"
    assert message["payload"]["url"] == reverse("games:invite", kwargs={"token": new.invite_token})
    assert message["payload"]["title"] == f"Stanza {new.code}"
    assert "Alice" in message["payload"]["body"] and message["payload"]["tag"] == f"room-{new.pk}"


def test_without_push_nobody_is_sent_anything_and_the_room_opens(cast, monkeypatch):
    sent = []
    monkeypatch.setattr(notify, "push_send", lambda **kw: sent.append(kw) or 1)
    PushSubscription.objects.create(user=cast["bob"], endpoint="https://push.example/b", p256dh="x", auth="y")
    new = nights.night_again(room=night(cast["alice"], [cast["bob"]]), by=cast["alice"])
    assert new.is_open and sent == []


# --- past nights -------------------------------------------------------------------------------------------------


def test_past_nights_are_the_closed_rooms_the_player_sat_in_newest_first(cast, club):
    alice, bob, chen = cast["alice"], cast["bob"], cast["chen"]
    first = night(alice, [bob])
    second = night(alice, [bob, chen], club=club)
    night(alice, [chen])  # without bob
    night(alice, [bob], close=False)  # still open
    assert list(nights.past_nights_of(bob)) == [second, first]
    client = Client()
    client.force_login(bob)
    page = client.get(reverse("games:past_nights")).content.decode()
    assert page.index(f'data-room="{second.pk}"') < page.index(f'data-room="{first.pk}"')
    assert f"/r/{first.code}/ledger/?room={first.pk}" in page
    profile = client.get(reverse("profile")).content.decode()
    assert f'data-room="{second.pk}"' in profile and reverse("games:past_nights") in profile
    for where in ("games:records", "games:lobby"):
        assert reverse("games:past_nights") in client.get(reverse(where)).content.decode()


def test_a_clubs_past_nights_are_for_its_members(cast, club):
    alice, bob, dara = cast["alice"], cast["bob"], cast["dara"]
    mine = night(alice, [bob], club=club)
    night(alice, [bob])  # not a club room
    assert list(nights.past_nights_of_club(club)) == [mine]
    client = Client()
    client.force_login(cast["chen"])  # a member who never sat there
    page = client.get(reverse("clubs:nights", kwargs={"pk": club.pk})).content.decode()
    assert f'data-room="{mine.pk}"' in page
    assert f'data-room="{mine.pk}"' in client.get(club.get_absolute_url()).content.decode()
    assert client.get(reverse("games:room_ledger", kwargs={"code": mine.code}) + f"?room={mine.pk}").status_code == 200
    client.force_login(dara)
    assert client.get(reverse("clubs:nights", kwargs={"pk": club.pk})).status_code == 404


# --- a club's saved rules --------------------------------------------------------------------------------------


def test_a_room_s_rules_are_saved_under_a_name_and_open_a_club_room(cast, club):
    alice, bob = cast["alice"], cast["bob"]
    room = night(alice, [bob], club=club, overrides={"max_cards": 4})
    saved = club_rules.rule_set_save(club=club, room=room, name="  Fives  ", by=bob)
    assert (saved.name, saved.preset, saved.overrides, saved.club) == ("Fives", "ten-half", {"max_cards": 4}, club)
    client = Client()
    client.force_login(alice)
    assert f'data-set="{saved.pk}"' in client.get(club.get_absolute_url()).content.decode()
    answer = client.post(reverse("clubs:room_create", kwargs={"pk": club.pk}),
                         {"game": f"variant:{saved.pk}", "currency": "points"})
    new = Room.objects.get(status="open", club=club)
    assert answer["Location"] == new.get_absolute_url()
    assert (new.preset, new.overrides["max_cards"], new.currency) == ("ten-half", 4, "points")


def test_saving_rules_refuses_what_it_must_and_changes_nothing(cast, club, settings):
    alice, bob, chen, dara = cast["alice"], cast["bob"], cast["chen"], cast["dara"]
    room = night(alice, [bob], club=club)
    elsewhere = night(alice, [bob])
    club_rules.rule_set_save(club=club, room=room, name="Fives", by=alice)
    cases = [(chen, room, "Mine", "not_allowed"), (dara, room, "Mine", "not_allowed"),
             (alice, elsewhere, "Mine", "bad_room"), (alice, room, "", "bad_name"), (alice, room, "   ", "bad_name"),
             (alice, room, "x" * 61, "bad_name"), (alice, room, None, "bad_name"), (alice, room, "Fives", "name_taken")]
    for by, which, name, code in cases:
        with pytest.raises(GameError) as e:
            club_rules.rule_set_save(club=club, room=which, name=name, by=by)
        assert e.value.code == code, (by, name)
    assert list(HouseVariant.objects.values_list("name", flat=True)) == ["Fives"]
    for n in range(club_rules.SETS_PER_CLUB - 1):
        HouseVariant.objects.create(club=club, name=f"set {n}", preset="ten-half", created_by=alice)
    with pytest.raises(GameError) as e:
        club_rules.rule_set_save(club=club, room=room, name="One more", by=alice)
    assert e.value.code == "too_many" and HouseVariant.objects.count() == club_rules.SETS_PER_CLUB


def test_the_save_form_refuses_with_a_message_and_deletes_for_admins_and_the_saver(cast, club):
    alice, bob, chen = cast["alice"], cast["bob"], cast["chen"]
    room = night(alice, [bob], club=club)
    url = reverse("clubs:rules_save", kwargs={"pk": club.pk})
    client = Client()
    client.force_login(chen)
    answer = client.post(url, {"room": room.pk, "name": "Mine"}, follow=True)
    assert "Only the members who may open rooms" in answer.content.decode()
    client.force_login(alice)
    for data in ({"room": "x", "name": "Mine"}, {"name": "Mine"}, {"room": 10**20, "name": "Mine"}):
        assert client.post(url, data).status_code == 302
    assert HouseVariant.objects.count() == 0
    client.post(url, {"room": room.pk, "name": "Mine"})
    saved = HouseVariant.objects.get()
    client.force_login(chen)
    delete = reverse("clubs:rules_delete", kwargs={"pk": club.pk, "set_id": saved.pk})
    client.post(delete)
    assert HouseVariant.objects.count() == 1  # chen is neither an admin nor the one who saved it
    client.force_login(bob)
    client.post(delete)
    assert HouseVariant.objects.count() == 0
