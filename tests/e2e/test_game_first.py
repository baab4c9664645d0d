"""The player's game first, in Chromium on a phone (360×740): an Italian visitor's home page and lobby lead with
Sette e mezzo, a Spanish one's with Siete y media, a Chinese one's with 十点半 (games/game_order.py); the first
practice button deals that game, and the create form left as it is makes a room of it. Screenshots of both pages at
360 and 1280 px go to test-artifacts/game-first/."""

import re

import pytest
from django.contrib.auth import get_user_model

from games.models import Room
from tests.e2e.conftest import ARTIFACTS, Player, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "game-first"
PHONE = {"width": 360, "height": 740}
# The browser's language, the site's, the game it leads with and its name there (docs/glossary.md), and the preset
# with the house rules that language's groups play, right after it (docs/rules.md, "Presets with house rules").
VISITORS = [("it-IT", "it", "seven-half", "Sette e mezzo", "seven-half-matta"),
            ("es-ES", "es", "seven-half", "Siete y media", "seven-half-matta"),
            ("zh-CN", "zh-hans", "ten-half", "十点半", "ten-half-auction")]


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def no_sideways_scroll(page) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("locale, code, lead, name, house", VISITORS, ids=[v[1] for v in VISITORS])
def test_a_visitor_meets_their_languages_game_first_on_home_and_lobby(browser, server, locale, code, lead, name,
                                                                       house):
    context = browser.new_context(viewport=PHONE, locale=locale)
    visitor = Player(context, server, f"v-{code}", [])

    # A first visit: the browser's language decides, before any account.
    page = visitor.goto("/")
    assert page.locator("html").get_attribute("lang") == code
    headline = page.locator("h1")
    assert headline.get_attribute("data-game") == lead and headline.inner_text().startswith(name)
    first = page.locator("#home-games article").first
    assert first.get_attribute("data-game") == lead and first.locator("h2").inner_text() == name
    assert headline.is_visible() and headline.bounding_box()["y"] < PHONE["height"]  # on the first screen
    # Their house rules' preset is a variant under their game, named after it, its link to its rules.
    variant = first.locator(".house-preset")
    assert variant.get_attribute("data-game") == house and variant.inner_text().startswith(name)
    assert variant.locator("a").get_attribute("href").endswith(f"/{house}/")
    no_sideways_scroll(page)
    shot(page, f"home-{code}-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    shot(page, f"home-{code}-1280")
    page.set_viewport_size(PHONE)

    # Signed in with the same language on the profile: the lobby.
    user = get_user_model().objects.create_user(f"v-{code}", f"v-{code}@example.com", "a-long-password-1",
                                                language=code)
    log_in(context, server, user)
    page = visitor.goto("/lobby/")
    buttons = page.locator("#practice-buttons button")
    assert buttons.first.get_attribute("data-practice") == lead and buttons.first.inner_text() == name
    assert buttons.first.is_visible()
    # The house preset beside it, in the same row: four rows of practice, not seven buttons.
    second = buttons.nth(1)
    assert second.get_attribute("data-practice") == house and second.is_visible()
    assert abs(second.bounding_box()["y"] - buttons.first.bounding_box()["y"]) < 4
    assert page.locator("#practice-buttons .practice-game").count() == 4
    preset = page.locator("#create-form select[name=preset]")
    assert preset.input_value() == lead
    assert preset.locator("option").first.inner_text() == name
    assert [o.get_attribute("value") for o in preset.locator("option").all()][:2] == [lead, house]
    shown = page.locator("#create-form fieldset.knobs:not([hidden])")
    assert shown.count() == 1 and shown.get_attribute("data-preset") == lead and name in shown.locator("legend").inner_text()
    no_sideways_scroll(page)
    shot(page, f"lobby-{code}-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    shot(page, f"lobby-{code}-1280")
    page.set_viewport_size(PHONE)

    # The create form as it comes makes a room of that game.
    page.click("#create-submit")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    assert Room.objects.get(host=user).preset == lead

    # The first practice button deals it too.
    page = visitor.goto("/lobby/")
    page.locator("#practice-buttons button").first.click()
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    code_shown = page.url.rstrip("/").rsplit("/", 1)[1]
    assert Room.objects.get(code=code_shown).preset == lead
    # And the button beside it deals their house rules.
    page = visitor.goto("/lobby/")
    page.locator(f'#practice-buttons button[data-practice="{house}"]').click()
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    code_shown = page.url.rstrip("/").rsplit("/", 1)[1]
    assert Room.objects.get(code=code_shown).preset == house
    assert not [e for e in visitor.console_errors if "favicon" not in e], visitor.console_errors
    context.close()


@pytest.mark.parametrize("locale, code, preset", [("it-IT", "it", "seven-half-matta"), ("zh-CN", "zh-hans", "ban-luck")])
def test_the_house_rules_read_on_a_phone(browser, server, locale, code, preset):
    """The rules page's "House rules" on a phone and a desktop, and the lobby's create form showing a house rule's
    settings only once it is on."""
    context = browser.new_context(viewport=PHONE, locale=locale)
    visitor = Player(context, server, f"r-{code}", [])
    page = visitor.goto(f"/rules/{preset}/")
    section = page.locator("#house-rules")
    assert section.is_visible() and section.locator(".house-rule").count() >= 1
    assert section.locator(".house-example").first.is_visible()
    no_sideways_scroll(page)
    shot(page, f"rules-{preset}-{code}-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    shot(page, f"rules-{preset}-{code}-1280")
    page.set_viewport_size(PHONE)

    user = get_user_model().objects.create_user(f"r-{code}", f"r-{code}@example.com", "a-long-password-1",
                                                language=code)
    log_in(context, server, user)
    page = visitor.goto("/lobby/?preset=ban-luck")
    opens_from = page.locator("#field-ban-luck-banker_open_from")
    assert opens_from.is_hidden()  # the banker does not open hands in the game's own preset
    page.locator("[name=ban-luck-banker_opens]").check()
    assert opens_from.is_visible()
    page.locator("#field-ban-luck-banker_opens").scroll_into_view_if_needed()
    no_sideways_scroll(page)
    shot(page, f"lobby-house-knobs-{code}-360")
    assert not [e for e in visitor.console_errors if "favicon" not in e], visitor.console_errors
    context.close()
