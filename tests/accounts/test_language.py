"""The language a user reads the site in (accounts/language.py): the browser's on a first visit, then the language
menu's choice, saved on the profile and applied on every device and in e-mails."""

import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

User = get_user_model()
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_rate_limits():
    cache.clear()
    yield
    cache.clear()


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode())[1]


def test_a_first_visit_reads_the_browser_language(client):
    r = client.get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE="zh-Hans-CN,zh;q=0.9")
    assert html_lang(r) == "zh-hans"
    assert "登录" in r.content.decode()  # allauth's own catalog
    assert html_lang(client.get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE="es-ES,es;q=0.9")) == "es"
    assert html_lang(Client().get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE="it-IT")) == "it"


def test_every_page_has_the_language_menu_with_each_language_by_its_own_name(client):
    page = client.get(reverse("account_login")).content.decode()
    assert reverse("set_language") in page
    for code, name in settings.LANGUAGES:
        assert f'value="{code}"' in page and name in page


def test_the_choice_is_saved_on_the_profile_and_follows_the_user_to_another_device(client):
    user = User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1")
    client.force_login(user)
    r = client.post(reverse("set_language"), {"language": "it", "next": reverse("profile")})
    assert r.status_code == 302 and r["Location"] == reverse("profile")
    assert r.cookies[settings.LANGUAGE_COOKIE_NAME].value == "it"
    user.refresh_from_db()
    assert user.language == "it"
    phone = Client()  # another device: no cookie, a Spanish browser
    phone.force_login(user)
    r = phone.get(reverse("profile"), HTTP_ACCEPT_LANGUAGE="es")
    assert html_lang(r) == "it"
    assert r.cookies[settings.LANGUAGE_COOKIE_NAME].value == "it"  # the cookie follows the profile


def test_a_language_the_site_does_not_offer_changes_nothing(client):
    user = User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1", language="es")
    client.force_login(user)
    for bad in ("klingon", "", "zh-hans'--", "x" * 500):
        r = client.post(reverse("set_language"), {"language": bad, "next": "/"})
        assert r.status_code == 302
    user.refresh_from_db()
    assert user.language == "es"
    assert html_lang(client.get(reverse("profile"))) == "es"


def test_an_anonymous_choice_is_kept_in_the_cookie_only(client):
    r = client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    assert r.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assert html_lang(client.get(reverse("account_login"))) == "zh-hans"


def test_e_mails_go_out_in_the_recipient_language(client, mailoutbox):
    User.objects.create_user("mei", "mei@example.com", "pw-long-enough-1", language="zh-hans")
    User.objects.create_user("lin", "lin@example.com", "pw-long-enough-1")
    client.post(reverse("account_reset_password"), {"email": "mei@example.com"}, HTTP_ACCEPT_LANGUAGE="en")
    client.post(reverse("account_reset_password"), {"email": "lin@example.com"}, HTTP_ACCEPT_LANGUAGE="en")
    to_mei, to_lin = mailoutbox
    assert "密码" in to_mei.subject + to_mei.body  # allauth's Chinese password-reset e-mail
    assert "密码" not in to_lin.subject + to_lin.body and "password" in (to_lin.subject + to_lin.body).lower()
