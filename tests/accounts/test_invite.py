"""An invite opened without a session (games/invite.py, accounts/adapter.py): the page says who invites to what and
nothing private, and every way through sign-up and log-in (the header's buttons, the text links, allauth's pages,
the e-mail confirmation) comes back to the room; a new account's first page names its welcome beans, once."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.adapter import WELCOME_SESSION_KEY
from games import invite, services
from games.models import Room
from tests.games.conftest import act, state

User = get_user_model()
PASSWORD = "a-long-table-password-1"
pytestmark = pytest.mark.django_db(transaction=True)  # the table deals after commit


@pytest.fixture(autouse=True)
def _settings(settings):
    cache.clear()  # allauth counts sign-ups and log-ins per address in the cache
    settings.WELCOME_BEANS = 10_000
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 0
    yield
    cache.clear()


def player(name: str, display: str = ""):
    return User.objects.create_user(name, f"{name}@example.com", PASSWORD, display_name=display)


@pytest.fixture
def room():
    """Alice's ten-half room (beans) with bob and chen, in a hand whose cards are dealt."""
    alice, bob, chen = player("alice", "Alice Wu"), player("bob", "Bob Face"), player("chen", "Chen Hidden")
    found = services.room_create(host=alice, preset="ten-half")
    for user in (alice, bob, chen):
        services.seat_take(room_id=found.pk, user=user, buy_in=500)
    act(found, alice, "start")
    act(found, alice, "open_bank", amount=500)
    for user in (bob, chen):
        act(found, user, "bet", amount=20)
    return found


def signup(client: Client, name: str, path: str = "/accounts/signup/"):
    return client.post(path, {"username": name, "email": f"{name}@example.com", "password1": PASSWORD,
                              "password2": PASSWORD})


def test_a_room_opened_without_a_session_says_who_invites_to_what_and_nothing_private(client, room):
    page = client.get(room.get_absolute_url())
    assert page.status_code == 200 and "games/invite.html" in [t.name for t in page.templates]
    html = page.content.decode()
    assert "Alice Wu invites you to play Ten and a Half" in html
    assert f'id="invite-code">{room.code}<' in html and 'id="invite-host">Alice Wu<' in html
    assert re.search(r'id="invite-stake">10\b', html) and "beans" in html
    next_query = f"?next=/r/{room.code}/"
    for door in ("invite-signup", "invite-login", "header-signup", "header-login"):
        assert re.search(rf'href="/accounts/(signup|login)/{re.escape(next_query)}" id="{door}"', html) or \
            re.search(rf'id="{door}" href="/accounts/(signup|login)/{re.escape(next_query)}"', html), door
    # Nothing of the table: no other player, no card, no seed.
    s = state(room)
    assert s["phase"] == "playing"
    dealt = [c[0] for phs in s["hand"]["hands"].values() for ph in phs for c in ph["cards"]]
    assert dealt and not [c for c in dealt if re.search(rf"(?<![\w-]){c}(?![\w-])", html)]
    assert "Bob Face" not in html and "Chen Hidden" not in html
    assert s["hand"]["seed"] not in html and s["hand"]["commitment"] not in html
    assert "table-config" not in html and "/ws/rooms/" not in html
    assert client.session[invite.SESSION_KEY] == room.pk


def test_the_invite_link_opened_without_a_session_shows_the_same_invite(client, room):
    page = client.get(reverse("games:invite", kwargs={"token": room.invite_token}))
    assert page.status_code == 200 and "games/invite.html" in [t.name for t in page.templates]
    assert client.session[invite.SESSION_KEY] == room.pk
    member = Client()
    member.force_login(User.objects.get(username="bob"))
    r = member.get(reverse("games:invite", kwargs={"token": room.invite_token}))
    assert r.status_code == 302 and r["Location"] == room.get_absolute_url()


@pytest.mark.parametrize("path", ["/join/not-a-token/", "/join/%00/", "/join/" + "x" * 200 + "/"])
def test_an_invite_link_that_leads_nowhere_is_404_and_remembers_nothing(client, room, path):
    assert client.get(path).status_code == 404
    assert invite.SESSION_KEY not in client.session


def test_a_closed_rooms_invite_link_is_404(client, room):
    Room.objects.filter(pk=room.pk).update(status=Room.Status.CLOSED)
    assert client.get(reverse("games:invite", kwargs={"token": room.invite_token})).status_code == 404
    assert invite.SESSION_KEY not in client.session


@pytest.mark.parametrize("code", ["9999", "abcd", "12345", "12"])
def test_a_room_code_without_an_open_room_goes_to_log_in_as_before(client, room, code):
    if code == "9999" and room.code == "9999":
        code = "9998"
    r = client.get(f"/r/{code}/")
    assert r.status_code == 302 and r["Location"] == f"/accounts/login/?next=/r/{code}/"
    assert invite.SESSION_KEY not in client.session


def test_signing_up_through_the_headers_button_lands_at_the_room_with_the_welcome_beans_once(client, room):
    client.get(room.get_absolute_url())
    r = signup(client, "newcomer")  # the header's plain /accounts/signup/: no next in the form
    assert r.status_code == 302 and r["Location"] == room.get_absolute_url()
    html = client.get(r["Location"]).content.decode()
    assert 'id="table-config"' in html  # the room's own page now, with its seats
    assert re.search(r'class="welcome info">Welcome! You have 10,000 beans to play with friends', html)
    assert "Welcome! You have" not in client.get(room.get_absolute_url()).content.decode()  # once
    assert invite.SESSION_KEY not in client.session and WELCOME_SESSION_KEY not in client.session


def test_signing_up_through_a_text_link_with_next_lands_at_the_room(client, room):
    client.get(room.get_absolute_url())
    r = signup(client, "newcomer", f"/accounts/signup/?next=/r/{room.code}/")
    assert r.status_code == 302 and r["Location"] == room.get_absolute_url()


def test_logging_in_through_the_header_lands_at_the_room_then_the_invite_is_spent(client, room):
    player("dara")
    client.get(reverse("games:invite", kwargs={"token": room.invite_token}))
    r = client.post("/accounts/login/", {"login": "dara", "password": PASSWORD})
    assert r.status_code == 302 and r["Location"] == room.get_absolute_url()
    assert "Welcome! You have" not in client.get(r["Location"]).content.decode()  # not a new account
    client.post("/accounts/logout/")
    r = client.post("/accounts/login/", {"login": "dara", "password": PASSWORD})
    assert r["Location"] == reverse("home")  # the invite took them there once


def test_an_explicit_next_wins_over_the_invite(client, room):
    player("dara")
    client.get(room.get_absolute_url())
    r = client.post("/accounts/login/?next=/records/", {"login": "dara", "password": PASSWORD})
    assert r["Location"] == "/records/"


def test_an_invite_whose_room_closed_meanwhile_leads_home(client, room):
    player("dara")
    client.get(room.get_absolute_url())
    Room.objects.filter(pk=room.pk).update(status=Room.Status.CLOSED)
    r = client.post("/accounts/login/", {"login": "dara", "password": PASSWORD})
    assert r["Location"] == reverse("home")


@pytest.mark.parametrize("junk", ["pk as text", True, None, [1], {"pk": 1}, 10**12])
def test_a_session_value_that_is_not_a_room_is_ignored(client, room, junk):
    player("dara")
    session = client.session
    session[invite.SESSION_KEY] = str(room.pk) if junk == "pk as text" else junk
    session.save()
    r = client.post("/accounts/login/", {"login": "dara", "password": PASSWORD})
    assert r["Location"] == reverse("home")


@pytest.mark.parametrize("target", ["https://evil.example/r/1234/", "//evil.example/", "javascript:alert(1)"])
def test_the_headers_buttons_keep_only_a_next_of_this_site(client, target):
    html = client.get("/accounts/login/", {"next": target}).content.decode()
    assert '<a class="button" href="/accounts/signup/" id="header-signup">' in html
    assert 'href="/accounts/login/" id="header-login"' in html


def test_the_headers_sign_up_on_the_log_in_page_keeps_the_next(client, room):
    html = client.get("/accounts/login/", {"next": room.get_absolute_url()}).content.decode()
    assert f'href="/accounts/signup/?next=/r/{room.code}/" id="header-signup"' in html


def test_allauths_pages_remind_the_visitor_of_the_invite(client, room):
    assert 'id="invite-reminder"' not in client.get("/accounts/signup/").content.decode()
    client.get(room.get_absolute_url())
    for path in ("/accounts/signup/", "/accounts/login/"):
        html = client.get(path).content.decode()
        assert 'id="invite-reminder"' in html and "Alice Wu invites you to play Ten and a Half in room " \
            + room.code in html, path


def test_with_mandatory_confirmation_the_e_mail_link_logs_in_and_lands_at_the_room(client, room, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    client.get(room.get_absolute_url())
    r = signup(client, "newcomer")
    assert r.status_code == 302 and r["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in client.session  # not logged in before the address is confirmed
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+/)", mail.outbox[-1].body).group(1)
    r = client.post(link)
    assert r.status_code == 302 and r["Location"] == room.get_absolute_url()
    html = client.get(r["Location"]).content.decode()
    assert 'id="table-config"' in html and "Welcome! You have 10,000 beans" in html
