"""Personal API tokens (docs/api.md, "Authentication"): made on the profile page or by signing in, shown once and
stored as a SHA-256 only, revoked at once, read-only in the admin; signing in is rate limited like the site's login."""

import hashlib
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import ApiToken
from accounts.tokens import LIVE_TOKENS_MAX, token_create
from tests.api.conftest import call, token_of

pytestmark = pytest.mark.django_db

SECRET = re.compile(r"hpt_[A-Za-z0-9_-]{43}")
PASSWORD = "pw-long-enough-1"  # tests/games/conftest.py make_player's


def browser(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_only_the_sha256_of_a_secret_is_stored(cast):
    token, secret = token_create(user=cast["alice"], name="my bot")
    assert SECRET.fullmatch(secret)
    stored = ApiToken.objects.filter(pk=token.pk).values().get()
    assert stored["secret_hash"] == hashlib.sha256(secret.encode()).hexdigest()
    assert not any(secret in str(value) for value in stored.values())


def test_the_profile_page_makes_a_token_shows_it_once_and_revokes_it(client, cast):
    alice = browser(cast["alice"])
    page = alice.post("/profile/", {"token": "create", "token_name": "home server"}).content.decode()
    secret = SECRET.search(page).group()
    assert call(client, "GET", "/api/me/", token=secret)[1]["user"]["username"] == "alice"
    again = alice.get("/profile/").content.decode()
    assert "home server" in again and secret not in again and "API tokens" in again
    token = ApiToken.objects.get(user=cast["alice"])
    assert token.last_used_at is not None

    alice.post("/profile/", {"token": "revoke", "token_id": str(token.pk)})
    status, answer = call(client, "GET", "/api/me/", token=secret)
    assert (status, answer["error"]["code"]) == (401, "bad_token")
    assert "home server" not in alice.get("/profile/").content.decode()


def test_nobody_revokes_another_users_token(client, cast):
    secret = token_of(cast["alice"])
    token = ApiToken.objects.get(user=cast["alice"])
    browser(cast["bob"]).post("/profile/", {"token": "revoke", "token_id": str(token.pk)})
    assert call(client, "GET", "/api/me/", token=secret)[0] == 200


def test_the_profile_forms_need_the_csrf_token(cast):
    alice = Client(enforce_csrf_checks=True)
    alice.force_login(cast["alice"])
    assert alice.post("/profile/", {"token": "create", "token_name": "home server"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_a_token_name_is_required_and_live_tokens_are_limited(cast):
    alice = browser(cast["alice"])
    alice.post("/profile/", {"token": "create", "token_name": "  "})
    assert not ApiToken.objects.exists()
    for n in range(LIVE_TOKENS_MAX):
        token_create(user=cast["alice"], name=f"t{n}")
    page = alice.post("/profile/", {"token": "create", "token_name": "one more"}, follow=True).content.decode()
    assert "revoke one" in page and ApiToken.objects.count() == LIVE_TOKENS_MAX


def test_signing_in_with_a_username_or_an_email_gives_a_new_token(client, cast):
    for login in ("bob", "bob@example.com"):
        status, answer = call(client, "POST", "/api/tokens/", body={"login": login, "password": PASSWORD,
                                                                    "name": "laptop"})
        assert status == 201 and answer["user"] == {"id": cast["bob"].pk, "username": "bob", "name": "Bob"}
        assert answer["name"] == "laptop" and SECRET.fullmatch(answer["token"])
        assert call(client, "GET", "/api/me/", token=answer["token"])[1]["user"]["id"] == cast["bob"].pk
    assert ApiToken.objects.filter(user=cast["bob"], revoked_at__isnull=True).count() == 2


def test_a_wrong_password_and_then_too_many_are_refused(client, cast):
    for _ in range(5):
        status, answer = call(client, "POST", "/api/tokens/", body={"login": "bob", "password": "wrong"})
        assert (status, answer["error"]["code"]) == (400, "bad_credentials")
    # The site's login limit (settings.ACCOUNT_RATE_LIMITS "login_failed"): now even the right password waits.
    status, answer = call(client, "POST", "/api/tokens/", body={"login": "bob", "password": PASSWORD})
    assert (status, answer["error"]["code"]) == (429, "rate_limited")
    assert not ApiToken.objects.exists()


def test_banned_inactive_and_unverified_users_get_no_token(client, cast, settings):
    bob, chen = cast["bob"], cast["chen"]
    bob.banned_until = timezone.now() + timedelta(days=1)
    bob.save()
    status, answer = call(client, "POST", "/api/tokens/", body={"login": "bob", "password": PASSWORD})
    assert (status, answer["error"]["code"]) == (403, "banned")
    chen.is_active = False
    chen.save()
    status, answer = call(client, "POST", "/api/tokens/", body={"login": "chen", "password": PASSWORD})
    assert (status, answer["error"]["code"]) == (403, "inactive")
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    status, answer = call(client, "POST", "/api/tokens/", body={"login": "dara", "password": PASSWORD})
    assert (status, answer["error"]["code"]) == (403, "email_unverified")
    assert not ApiToken.objects.exists()


def test_a_banned_users_token_is_refused(client, cast):
    secret = token_of(cast["bob"])
    get_user_model().objects.filter(pk=cast["bob"].pk).update(banned_until=timezone.now() + timedelta(days=1))
    status, answer = call(client, "GET", "/api/me/", token=secret)
    assert (status, answer["error"]["code"]) == (403, "banned")


@pytest.mark.parametrize(("body", "code", "field"), [
    ({}, "bad_field", "login"),
    ({"login": "bob"}, "bad_field", "password"),
    ({"login": ["bob"], "password": PASSWORD}, "bad_field", "login"),
    ({"login": "bob", "password": PASSWORD, "name": 7}, "bad_field", "name"),
    ({"login": "bob", "password": PASSWORD, "name": ["my bot"]}, "bad_field", "name"),
    ({"login": "bob", "password": PASSWORD, "name": None}, "bad_field", "name"),
    # A text that breaks the name's rules is `bad_name` (docs/api.md), whatever its length.
    ({"login": "bob", "password": PASSWORD, "name": ""}, "bad_name", "name"),
    ({"login": "bob", "password": PASSWORD, "name": "   "}, "bad_name", "name"),
    ({"login": "bob", "password": PASSWORD, "name": "x" * 61}, "bad_name", "name"),
    ({"login": "bob", "password": PASSWORD, "name": "x" * 5000}, "bad_name", "name"),
    ({"login": "bob", "password": PASSWORD, "name": "my\x00bot"}, "bad_name", "name"),
])
def test_signing_in_with_a_missing_or_wrong_field_says_which(client, cast, body, code, field):
    status, answer = call(client, "POST", "/api/tokens/", body=body)
    assert (status, answer["error"]["code"], answer["error"]["field"]) == (400, code, field)
    assert not ApiToken.objects.exists()


def test_a_token_name_of_60_characters_is_taken_as_it_is(client, cast):
    name = "名" * 60
    status, answer = call(client, "POST", "/api/tokens/", body={"login": "bob", "password": PASSWORD, "name": name})
    assert status == 201 and answer["name"] == name
    assert ApiToken.objects.get(user=cast["bob"]).name == name


def test_signing_out_revokes_the_token_of_the_request(client, cast):
    secret, other = token_of(cast["bob"]), token_of(cast["bob"])
    token = ApiToken.objects.filter(user=cast["bob"]).order_by("pk").first()
    assert ApiToken.objects.filter(user=cast["bob"]).count() == 2
    status, answer = call(client, "DELETE", "/api/tokens/current/", token=secret)
    # The revoked token itself, as sign-in described it (docs/api.md): an object, never a number to read as a count.
    assert status == 200 and answer == {"revoked": {"id": token.pk, "name": token.name,
                                                    "created_at": answer["revoked"]["created_at"]}}
    assert abs(parse_datetime(answer["revoked"]["created_at"]) - token.created_at) < timedelta(milliseconds=1)
    assert call(client, "GET", "/api/me/", token=secret)[0] == 401
    assert call(client, "GET", "/api/me/", token=other)[0] == 200
    status, answer = call(browser(cast["bob"]), "DELETE", "/api/tokens/current/")
    assert (status, answer["error"]["code"]) == (400, "no_token")


def test_the_admin_lists_tokens_and_changes_none(cast):
    admin = get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    token, _secret = token_create(user=cast["bob"], name="laptop")
    site = browser(admin)
    assert "laptop" in site.get("/admin/accounts/apitoken/").content.decode()
    assert site.get("/admin/accounts/apitoken/add/").status_code == 403
    site.post(f"/admin/accounts/apitoken/{token.pk}/change/", {"name": "renamed"})
    site.post(f"/admin/accounts/apitoken/{token.pk}/delete/", {"post": "yes"})
    assert ApiToken.objects.get(pk=token.pk).name == "laptop"
