"""The same night again and the past nights in a real browser (games/nights.py, docs/ledger.md): on a phone the host
plays a closed night again from its ledger, the player who sat there receives the notification as the site sends it
(encrypted to the browser's keys, through the push service this test runs: tests/pushservice.py), opens its link and
sits at the new table; the night is found under "past nights" on the profile and in the club, its ledger opens, and
from it its hands and its hash chain; a club room's rules are saved under a name and open a room. Each page is checked
with axe and its outline at 360 and 1280 px; screenshots go to /tmp/shots-again/."""

import hashlib
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from accounts.push import subscription_save
from games import clubs, nights, services
from games.models import HouseVariant, Room, Seat
from tests.e2e.conftest import PASSWORD, PHONE, log_in
from tests.e2e.test_a11y import Scan
from tests.games.conftest import act
from tests.games.conftest import play_out as play_out_here
from tests.pushservice import Browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1280, "height": 800}
SHOTS = Path("/tmp/shots-again")


def shoot(player, name: str) -> None:
    """The page at 360 px, then at 1280 px (and back to the phone)."""
    SHOTS.mkdir(exist_ok=True)
    for width, size in (("360", PHONE), ("1280", WIDE)):
        player.page.set_viewport_size(size)
        player.page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    player.page.set_viewport_size(PHONE)


def make_user(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD, display_name=name.capitalize())


def played_night(host, players, *, club=None) -> Room:
    """A room of `host` where `players` sat and played one hand (the host holds the bank), then closed."""
    if club is None:
        room = services.room_create(host=host, preset="ten-half", overrides={})
    else:
        room = clubs.club_room_create(club=club, by=host, preset="ten-half", overrides={"max_cards": 4})
    for user in [host, *players]:
        services.seat_take(room_id=room.pk, user=user, buy_in=500)
    act(room, host, "start")
    act(room, host, "open_bank", amount=300)
    for user in players:
        act(room, user, "bet", amount=20, seed=hashlib.sha256(user.username.encode()).hexdigest())
    play_out_here(room)
    services.room_close(room_id=room.pk, by=host)
    return Room.objects.get(pk=room.pk)


@pytest.fixture
def quiet_here(settings, monkeypatch):
    """This process plays the hands: its tasks run at once, and no browser watches those rooms."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    monkeypatch.setattr("games.broadcast._send", lambda room_id, message: None)



def test_the_same_night_again_invites_the_players_who_join_by_the_notifications_link(push_server, service, players,
                                                                                    settings):
    settings.PUSH_SERVICE_HOSTS = ["127.0.0.1"]  # this process stores bob's subscription, and checks it as the site
    base, _public = push_server
    alice_user, bob_user = make_user("alice"), make_user("bob")
    phone = Browser(service.endpoint("bob-phone"))
    subscription_save(user=bob_user, subscription=phone.subscription())
    get_user_model().objects.filter(pk=bob_user.pk).update(language="es")
    old = services.room_create(host=alice_user, preset="ten-half", overrides={"max_cards": 4})
    for user in (alice_user, bob_user):
        services.seat_take(room_id=old.pk, user=user, buy_in=500)
    services.room_close(room_id=old.pk, by=alice_user)
    ledger_path = f"/r/{old.code}/ledger/?room={old.pk}"

    # The host, on a phone, on the closed room's ledger: the settle-up and "Play the same night again".
    alice = players(base, "alice", viewport=PHONE)
    log_in(alice.context, base, alice_user)
    page = alice.goto(ledger_path)
    page.wait_for_selector("#settle")
    scan = Scan()
    scan(alice, "a closed room's ledger, its host")
    shoot(alice, "ledger-again")
    page.click("#again")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    alice.wait_connected()
    new = nights.continued_in(old)
    assert new is not None and page.url.endswith(new.get_absolute_url())
    assert new.rules["max_cards"] == 4 and new.host_id == alice_user.pk
    assert "1 player is invited" in page.locator(".messages").inner_text()
    shoot(alice, "again-table")

    # bob's phone gets the invitation, in Spanish, with the new room's invite link.
    [(_path, headers, body)] = service.wait("bob-phone")
    assert headers["content-encoding"] == "aes128gcm"
    message = phone.decrypt(body)
    assert message["title"] == f"Sala {new.code}" and "Alice" in message["body"]
    assert message["url"] == f"/join/{new.invite_token}/" and message["tag"] == f"room-{new.pk}"

    # He opens it (the service worker opens the message's url) and sits at the new table.
    bob = players(base, "bob", viewport=PHONE)
    log_in(bob.context, base, bob_user)
    bob.goto(message["url"])
    bob.page.wait_for_url(re.compile(rf"/r/{new.code}/$"))
    bob.wait_connected()
    bob.sit(None, buy_in=500)
    assert Seat.objects.filter(room=new, user=bob_user, left_at__isnull=True).exists()
    shoot(bob, "again-joined")

    # The old night's ledger links the new one, which links back; and nobody plays the old night again twice.
    bob.goto(ledger_path)
    assert bob.page.locator("#continued-in a").get_attribute("href") == new.get_absolute_url()
    assert bob.page.locator("#again").count() == 0
    scan(bob, "a closed room's ledger, continued")
    alice.goto(ledger_path)
    assert alice.page.locator("#again").count() == 0
    alice.goto(f"/r/{new.code}/ledger/?room={new.pk}")
    alice.page.click("#continued-from a")
    alice.page.wait_for_url(re.compile(rf"/r/{old.code}/ledger/\?room={old.pk}$"))
    assert Room.objects.filter(host=alice_user).count() == 2
    assert not scan.found, scan.failures()
    assert not alice.console_errors and not bob.console_errors, alice.console_errors + bob.console_errors


def test_past_nights_on_the_profile_and_in_the_club_open_each_ledger_its_hands_and_chain(server, players,
                                                                                       quiet_here):
    alice_user, bob_user = make_user("alice"), make_user("bob")
    club = clubs.club_create(owner=alice_user, name="Friday Night", open_joining=True)
    clubs.club_join(club=club, user=bob_user)
    first = played_night(alice_user, [bob_user])
    at_club = played_night(alice_user, [bob_user], club=club)
    scan = Scan()

    # bob, on a phone: the profile lists his nights, newest first; the ledger opens, then its hands and chain.
    bob = players(server, "bob", viewport=PHONE)
    log_in(bob.context, server, bob_user)
    page = bob.goto("/profile/")
    rows = page.locator("#profile-nights > li")
    assert [rows.nth(i).get_attribute("data-room") for i in range(rows.count())] == [str(at_club.pk), str(first.pk)]
    scan(bob, "profile with past nights")
    shoot(bob, "profile-nights")
    page.click(f"#profile-nights > li[data-room='{first.pk}'] a")
    page.wait_for_url(re.compile(rf"/r/{first.code}/ledger/\?room={first.pk}$"))
    page.wait_for_selector("#settle-nets")
    assert page.locator("#again").count() == 0  # bob sat there; alice hosted it
    page.click("#ledger-hands")
    page.wait_for_url(re.compile(rf"/r/{first.code}/hands/"))
    assert page.locator(".hand-list a", has_text="Hand 1").count() == 1
    page.go_back()
    page.click("#ledger-chain")
    page.wait_for_selector("#chain-status[data-ok='true']")

    # The records and the lobby lead to the whole list.
    for where, link in (("/records/", "#records-nights"), ("/lobby/", "#lobby-nights")):
        bob.goto(where)
        page.click(link)
        page.wait_for_url(re.compile(r"/nights/$"))
    assert page.locator("#nights > li").count() == 2
    scan(bob, "past nights")
    shoot(bob, "past-nights")

    # The club's nights: on its page and its own list, for its members.
    bob.goto(f"/clubs/{club.pk}/")
    assert page.locator("#club-nights-list > li").count() == 1
    page.click("#club-nights-all")
    page.wait_for_url(re.compile(rf"/clubs/{club.pk}/nights/$"))
    scan(bob, "a club's past nights")
    shoot(bob, "club-nights")
    page.click(f"#nights > li[data-room='{at_club.pk}'] a")
    page.wait_for_url(re.compile(rf"/r/{at_club.code}/ledger/\?room={at_club.pk}$"))
    page.wait_for_selector("#settle-nets")

    # The owner saves that room's rules for the club from its ledger, and opens a room with them from the club page.
    alice = players(server, "alice", viewport=PHONE)
    log_in(alice.context, server, alice_user)
    page = alice.goto(f"/r/{at_club.code}/ledger/?room={at_club.pk}")
    page.fill("#rules-save-name", "Four cards")
    scan(alice, "a club room's ledger, its owner")
    shoot(alice, "ledger-save-rules")
    page.click("#rules-save")
    page.wait_for_selector(".messages")
    saved = HouseVariant.objects.get(club=club)
    assert (saved.name, saved.overrides) == ("Four cards", {"max_cards": 4})
    alice.goto(f"/clubs/{club.pk}/")
    scan(alice, "a club with saved rules")
    shoot(alice, "club-rules")
    page.select_option(f"#set-currency-{saved.pk}", "points")
    page.click(f"button[data-open-set='{saved.pk}']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    opened = Room.objects.get(club=club, status=Room.Status.OPEN)
    assert (opened.overrides, opened.currency) == ({"max_cards": 4}, "points")
    assert not scan.found, scan.failures()
    assert not alice.console_errors and not bob.console_errors, alice.console_errors + bob.console_errors
