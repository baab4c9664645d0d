"""Every language by its own name in the language menu (templates/_language.html), whatever the page's language,
and the web app manifest in the reader's language (config/pwa.py)."""

import json
import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

NATIVE = {"en": "English", "zh-hans": "简体中文", "it": "Italiano", "es": "Español"}
pytestmark = pytest.mark.django_db


def menu(html: str) -> dict[str, str]:
    return dict(re.findall(r'<option value="([^"]+)" lang="[^"]+"(?: selected)?>([^<]*)</option>', html))


def test_the_native_names_are_the_settings():
    assert dict(settings.LANGUAGES) == NATIVE


@pytest.mark.parametrize("code", list(NATIVE))
def test_the_menu_names_each_language_in_its_own_script_on_every_page_language(code):
    html = Client().get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE=code).content.decode()
    assert f'<html lang="{code}"' in html
    assert menu(html) == NATIVE
    for translated in ("Inglés", "Inglese", "英语", "Cinese", "Chino", "Italian<", "Spanish<"):
        assert translated not in html


@pytest.mark.parametrize("code", list(NATIVE))
def test_each_page_links_the_manifest_in_its_language_and_it_is_in_that_language(code):
    html = Client().get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE=code).content.decode()
    href = re.search(r'<link rel="manifest" href="([^"]+)">', html)[1]
    assert href == ("/manifest.webmanifest" if code == "en" else f"/manifest.{code}.webmanifest")
    response = Client().get(href)
    assert response.status_code == 200 and response["Content-Type"] == "application/manifest+json"
    data = json.loads(response.content)
    assert data["lang"] == code and data["id"] == "/" and data["start_url"] == "/lobby/?source=pwa"
    assert data["name"].startswith("HalfPoint") and data["short_name"] == "HalfPoint"
    assert len(data["short_name"]) <= 12
    english = "Ten and a Half and other banker card games with friends, for play money."
    assert (data["description"] == english) == (code == "en")
    expected = {"en": "Ten and a Half", "zh-hans": "十点半", "it": "Dieci e mezzo", "es": "Diez y media"}[code]
    assert expected in data["description"]


def test_the_manifests_differ_only_in_their_words_and_language():
    en = json.loads(Client().get("/manifest.webmanifest").content)
    for code in ("zh-hans", "it", "es"):
        other = json.loads(Client().get(f"/manifest.{code}.webmanifest").content)
        same = {k for k in en if k not in ("name", "short_name", "description", "lang")}
        assert {k: other[k] for k in same} == {k: en[k] for k in same}


@pytest.mark.parametrize("bad", ["klingon", "en-us", "zh", "ZH-HANS", "it'", "x" * 200])
def test_a_manifest_in_a_language_the_site_does_not_offer_is_not_found(bad):
    assert Client().get(f"/manifest.{bad}.webmanifest").status_code == 404


def test_the_manifest_does_not_follow_the_visitor_language_but_its_address():
    # A Spanish browser fetching the Italian manifest gets Italian: the address names the language.
    data = json.loads(Client().get("/manifest.it.webmanifest", HTTP_ACCEPT_LANGUAGE="es").content)
    assert data["lang"] == "it" and "Dieci e mezzo" in data["description"]
    data = json.loads(Client().get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="zh-hans").content)
    assert data["lang"] == "en"
