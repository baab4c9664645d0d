"""The Open Graph preview a chat draws from a shared link (games/share.py, docs/ledger.md "Sharing into a chat"): the
invite and the shared settle-up in English, Chinese, Italian and Spanish, og:locale matching the language, the title
and description in it (as the language's catalog has them, English where it has none yet), whole URLs, and the
settle-up's card answering as a PNG. The link's `?lang=` speaks for a visitor without a language of their own and
for nobody else; what the preview says tells nothing private.

The cast: alice hosts, bob sits at her open table, chen sat at her closed one; a chat's crawler has no account and no cookie."""

import html
import re
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from games import ledger_shares, services
from games.models import PRESET_CHOICES
from games.share import OG_LOCALES, in_language, link_language
from tests.games.conftest import make_player

pytestmark = pytest.mark.django_db

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGUAGES = ["en", "zh-hans", "it", "es"]
LOCALES = {"en": "en_US", "zh-hans": "zh_CN", "it": "it_IT", "es": "es_ES"}
INVITE_TITLE = "%(name)s invites you to play %(game)s"
INVITE_TEXT = ("%(name)s invites you to play %(game)s in room %(code)s on HalfPoint. Play money, in the browser: open "
               "the link to take a seat.")
SETTLE_TITLE = "Room %(code)s: settle up"
SETTLE_TEXT = "How the night of %(game)s in room %(code)s ended on %(day)s: each player's net, and who pays whom."
META = re.compile(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">')


def po_gettext(lang: str, msgid: str) -> str:
    """`msgid` as the language's django catalog translates it, or as written where it has no translation yet."""
    if lang == "en":
        return msgid
    po = polib.pofile(str(LOCALE / {"zh-hans": "zh_Hans"}.get(lang, lang) / "LC_MESSAGES" / "django.po"))
    entry = po.find(msgid)
    return entry.msgstr if entry is not None and entry.msgstr and "fuzzy" not in entry.flags else msgid


def game_name(lang: str, preset: str) -> str:
    with translation.override("en"):
        english = str(dict(PRESET_CHOICES)[preset])
    return po_gettext(lang, english)


def og(page: str) -> dict[str, str]:
    tags = {}
    for key, value in META.findall(page):
        assert key not in tags, f"{key} twice"
        tags[key] = html.unescape(value)
    return tags


@pytest.fixture
def alice():
    user = make_player("alice")
    user.display_name = 'Alice "Ace" <Wu>'  # a name is a player's own text: escaped wherever it goes
    user.save()
    return user


@pytest.fixture
def room(alice):
    found = services.room_create(host=alice, preset="seven-half", currency="beans")
    services.seat_take(room_id=found.pk, user=make_player("bob"), buy_in=500)
    return found


@pytest.fixture
def settled(alice):
    """A closed room where alice and chen sat, and alice's share link of its settle-up."""
    found = services.room_create(host=alice, preset="ten-half", currency="beans")
    for user in (alice, make_player("chen")):
        services.seat_take(room_id=found.pk, user=user, buy_in=500)
    services.room_close(room_id=found.pk, by=alice)
    found.refresh_from_db()
    return found, ledger_shares.ledger_share_create(room=found, by=alice)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_invites_preview_says_who_invites_to_which_game_and_room_in_the_links_language(room, alice, lang):
    page = Client().get(f"/join/{room.invite_token}/?lang={lang}")
    assert page.status_code == 200 and page["Content-Language"] == lang
    text = page.content.decode()
    tags = og(text)
    names = {"name": alice.public_name, "game": game_name(lang, "seven-half"), "code": room.code}
    assert tags["og:locale"] == LOCALES[lang] == OG_LOCALES[lang]
    assert tags["og:title"] == po_gettext(lang, INVITE_TITLE) % names
    assert tags["og:description"] == po_gettext(lang, INVITE_TEXT) % names
    if lang != "en" and po_gettext(lang, INVITE_TEXT) != INVITE_TEXT:
        assert tags["og:description"] != INVITE_TEXT % names
    assert room.code in tags["og:description"] and alice.public_name in tags["og:description"]
    assert 'Alice "Ace" <Wu>' not in text  # escaped, in the tags as on the page
    assert tags["og:url"] == f"http://testserver/join/{room.invite_token}/?lang={lang}"
    assert tags["og:site_name"] == "HalfPoint" and tags["og:type"] == "website"
    # The site's own picture: the preview shows the invite's words beside it.
    assert tags["og:image"].startswith("http://testserver/static/") and tags["og:image"].endswith("icon-512.png")
    assert (tags["og:image:width"], tags["og:image:height"], tags["og:image:type"]) == ("512", "512", "image/png")
    assert "Bob" not in tags["og:description"] + tags["og:title"]  # who sits at the table is not the invite's to tell


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_crawler_without_lang_gets_the_preview_in_its_own_language(room, lang):
    """A chat's crawler that says its language (WeChat's sends zh-CN) and a link shared before `?lang=` existed."""
    tags = og(Client().get(f"/r/{room.code}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode())
    assert tags["og:locale"] == LOCALES[lang]
    assert tags["og:url"] == f"http://testserver/r/{room.code}/?lang={lang}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_shared_settle_ups_preview_shows_its_card_and_says_which_night_in_the_links_language(settled, lang):
    room, link = settled
    crawler = Client()
    page = crawler.get(link.get_absolute_url() + f"?lang={lang}")
    assert page.status_code == 200 and page["Content-Language"] == lang
    tags = og(page.content.decode())
    with translation.override(lang):  # the day as Django writes a date in that language
        day = formats.date_format(timezone.localtime(room.closed_at).date())
    names = {"game": game_name(lang, "ten-half"), "code": room.code, "day": day}
    assert tags["og:locale"] == LOCALES[lang]
    assert tags["og:title"] == po_gettext(lang, SETTLE_TITLE) % names
    assert tags["og:description"] == po_gettext(lang, SETTLE_TEXT) % names
    for person in ("Alice", "Chen", "+", "−"):  # who won and lost is on the card, not in the line under the link
        assert person not in tags["og:description"]
    card = reverse("games:ledger_shared_png", args=[link.token])
    assert tags["og:image"] == f"http://testserver{card}?lang={lang}"
    assert (tags["og:image:width"], tags["og:image:height"], tags["og:image:type"]) == ("1200", "630", "image/png")
    assert tags["twitter:card"] == "summary_large_image"
    answer = crawler.get(tags["og:image"].removeprefix("http://testserver"))
    assert answer.status_code == 200 and answer["Content-Type"] == "image/png"
    assert answer.content.startswith(b"\x89PNG\r\n\x1a\n") and answer["Content-Language"] == lang


def test_the_card_of_the_preview_is_drawn_in_the_links_language(settled):
    _room, link = settled
    card = reverse("games:ledger_shared_png", args=[link.token])
    english, chinese = (Client().get(card + f"?lang={lang}").content for lang in ("en", "zh-hans"))
    assert english != chinese


def test_a_link_without_a_language_keeps_the_og_image_as_the_page_asked_for_it(settled):
    _room, link = settled
    tags = og(Client().get(link.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="it").content.decode())
    assert tags["og:locale"] == "it_IT"
    assert tags["og:image"] == "http://testserver" + reverse("games:ledger_shared_png", args=[link.token])


@pytest.mark.parametrize("value", ["fr", "", "ZH-HANS", "zh_Hans", "zh", "it-IT", "en-us", "<script>alert(1)</script>",
                                   "es%00", "it&lang", " it"])
def test_a_lang_the_site_does_not_offer_changes_nothing(room, value):
    page = Client().get(f"/join/{room.invite_token}/", {"lang": value}, HTTP_ACCEPT_LANGUAGE="es")
    assert page.status_code == 200 and page["Content-Language"] == "es"
    text = page.content.decode()
    assert og(text)["og:locale"] == "es_ES"
    assert "<script>alert" not in text


def test_a_visitor_who_chose_a_language_keeps_it_whatever_the_link_says(room, settled):
    chosen = Client()
    chosen.cookies[settings.LANGUAGE_COOKIE_NAME] = "it"
    for url in (f"/join/{room.invite_token}/?lang=zh-hans", settled[1].get_absolute_url() + "?lang=zh-hans"):
        page = chosen.get(url)
        assert page["Content-Language"] == "it" and og(page.content.decode())["og:locale"] == "it_IT"
    card = reverse("games:ledger_shared_png", args=[settled[1].token])
    assert chosen.get(card + "?lang=zh-hans").content == chosen.get(card).content


def test_a_logged_in_players_own_language_wins_over_the_links(settled):
    room, link = settled
    chen = type(room.host).objects.get(username="chen")
    chen.language = "es"
    chen.save()
    client = Client()
    client.force_login(chen)
    page = client.get(link.get_absolute_url() + "?lang=zh-hans")
    assert page["Content-Language"] == "es" and og(page.content.decode())["og:locale"] == "es_ES"


def test_link_language_takes_the_last_lang_when_a_link_names_two(rf):
    request = rf.get("/join/x/?lang=it&lang=es")
    request.user = type("Anonymous", (), {"is_authenticated": False})()
    with translation.override("en"):
        assert link_language(request) == "es" and translation.get_language() == "es"


def test_in_language_sets_lang_and_keeps_the_other_parameters():
    with translation.override("zh-hans"):
        assert in_language("https://h.example/settle/abc/") == "https://h.example/settle/abc/?lang=zh-hans"
        assert in_language("/r/1234/settle.png?room=5&lang=it") == "/r/1234/settle.png?room=5&lang=zh-hans"
    assert in_language("/settle/abc.png", "es") == "/settle/abc.png?lang=es"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_has_the_sites_preview_in_its_language(lang):
    tags = og(Client().get("/", HTTP_ACCEPT_LANGUAGE=lang).content.decode())
    assert tags["og:locale"] == LOCALES[lang] and tags["og:title"] == "HalfPoint"
    assert tags["og:description"] == po_gettext(
        lang, "HalfPoint: play-money banker card games with friends. Beans and points have no monetary value.")
    assert tags["og:image"].startswith("http://testserver/static/")
