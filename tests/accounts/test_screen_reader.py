"""The screen-reader mode's setting (accounts.User.screen_reader): off for a new player, set on the profile page and by
the table's POST endpoint (static/js/blind.js: the menu's checkbox and the V key), which refuses a GET, an anonymous
visitor, a missing CSRF token and any value but 1 or 0, changing nothing; the table's config carries it."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.forms import ProfileForm

User = get_user_model()
pytestmark = pytest.mark.django_db

URL = "/profile/screen-reader/"


def make(username="noor", **fields):
    return User.objects.create_user(username, f"{username}@example.com", "pw-long-enough-1", **fields)


def state(user) -> bool:
    return User.objects.get(pk=user.pk).screen_reader


def test_the_url_and_a_new_player_has_the_mode_off():
    assert reverse("screen_reader") == URL
    assert make().screen_reader is False


@pytest.mark.parametrize("before,value,after", [(False, "1", True), (True, "0", False), (True, "1", True),
                                                (False, "0", False)])
def test_the_endpoint_turns_the_mode_on_and_off(client, before, value, after):
    user = make(screen_reader=before)
    client.force_login(user)
    r = client.post(URL, {"on": value})
    assert r.status_code == 200
    assert r.json() == {"on": after}
    assert state(user) is after


@pytest.mark.parametrize("bad", ["", "2", "true", "on", "yes", " 1", "1 ", "01", "-1", "1.0", "\u0661", "<b>"])
def test_a_bad_value_is_refused_and_changes_nothing(client, bad):
    for before in (False, True):
        user = make(f"bad{int(before)}", screen_reader=before)
        client.force_login(user)
        r = client.post(URL, {"on": bad})
        assert r.status_code == 400
        assert r.json() == {"error": "bad_value"}
        assert state(user) is before


def test_a_post_without_the_value_or_with_it_twice_is_refused(client):
    user = make(screen_reader=True)
    client.force_login(user)
    assert client.post(URL, {}).status_code == 400
    assert client.post(URL, "on=0", content_type="application/json").status_code == 400  # not a form: no `on`
    assert state(user) is True
    r = client.post(URL, {"on": ["1", "0"]})  # the last of a repeated field is read: "0" is a valid value
    assert r.status_code == 200 and state(user) is False


@pytest.mark.parametrize("method", ["get", "put", "delete", "patch"])
def test_other_methods_are_refused_with_405(client, method):
    user = make(screen_reader=False)
    client.force_login(user)
    r = getattr(client, method)(URL, {"on": "1"} if method == "get" else "on=1")
    assert r.status_code == 405
    assert state(user) is False


def test_an_anonymous_visitor_is_refused_with_403():
    user = make()
    r = Client().post(URL, {"on": "1"})
    assert r.status_code == 403
    assert r.json() == {"error": "not_logged_in"}
    assert state(user) is False


def test_a_post_without_the_csrf_token_is_refused():
    user = make()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(URL, {"on": "1"}).status_code == 403
    assert state(user) is False
    page = client.get(reverse("profile"))  # the token a page carries (the table's menu has one too) lets it through
    token = page.cookies["csrftoken"].value
    r = client.post(URL, {"on": "1"}, headers={"X-CSRFToken": token})
    assert r.status_code == 200 and state(user) is True


def test_the_profile_form_sets_and_clears_it():
    user = make()
    form = ProfileForm({"display_name": "Noor", "avatar_colour": "#2a9d8f", "deck_art": "", "screen_reader": "on"},
                       instance=user)
    assert form.is_valid(), form.errors
    form.save()
    assert state(user) is True
    form = ProfileForm({"display_name": "Noor", "avatar_colour": "#2a9d8f", "deck_art": ""},
                       instance=User.objects.get(pk=user.pk))  # an unticked checkbox is not posted
    assert form.is_valid(), form.errors
    form.save()
    assert state(user) is False


def test_the_profile_page_shows_the_checkbox_and_saves_it(client):
    user = make()
    client.force_login(user)
    page = client.get(reverse("profile")).content.decode()
    assert 'name="screen_reader"' in page and 'id="id_screen_reader"' in page
    assert not re.search(r'<input type="checkbox" name="screen_reader"[^>]* checked', page)
    r = client.post(reverse("profile"), {"display_name": "", "avatar_colour": "#2a9d8f", "deck_art": "",
                                         "screen_reader": "on"})
    assert r.status_code == 302 and state(user) is True
    assert re.search(r'<input type="checkbox" name="screen_reader"[^>]* checked', client.get(reverse("profile")).content.decode())


def test_the_table_config_carries_the_mode_and_its_url(client):
    from games import services

    user = make(screen_reader=True)
    room = services.practice_open(user=user, preset="ten-half")
    client.force_login(user)
    page = client.get(f"/r/{room.code}/").content.decode()
    config = json.loads(page.split('<script id="table-config" type="application/json">')[1].split("</script>")[0])
    assert config["screen_reader"] is True and config["screen_reader_url"] == URL
    assert 'id="screen-reader"' in page and 'id="screen-reader" checked' in page.replace("\n", " ")
    client.post(URL, {"on": "0"})
    page = client.get(f"/r/{room.code}/").content.decode()
    config = json.loads(page.split('<script id="table-config" type="application/json">')[1].split("</script>")[0])
    assert config["screen_reader"] is False
    assert 'id="screen-reader" checked' not in page


@pytest.mark.parametrize("language", ["zh-hans", "it", "es"])
def test_the_modes_words_come_from_their_own_catalog(client, language):
    """/jsi18n/ leaves out the words of context "screen reader" (the table's catalog has a 40 KB budget);
    /jsi18n/blind/ serves those alone (static/js/blind.js adds them to the page's catalog)."""

    def catalog(url):
        r = client.get(url, headers={"Accept-Language": language})
        assert r.status_code == 200 and r["Content-Type"].startswith("text/javascript")
        text = r.content.decode()
        found = re.search(r"const newcatalog = (\{.*?\});\n", text, re.S)
        return json.loads(found.group(1)) if found else {}

    table = catalog("/jsi18n/")
    assert table and not [key for key in table if key.startswith("screen reader")]
    blind = catalog("/jsi18n/blind/")
    assert all(key.startswith("screen reader\x04") for key in blind)
    assert set(blind) <= set(catalog("/jsi18n/fair/"))  # the hand record's catalog has every word
