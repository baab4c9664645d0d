"""The language menu and what follows the language in a browser: each language under its own name whatever the page's
language, the manifest link, and Django's and allauth's messages (the short-password error) in the chosen language.
Screenshots at 360 and 1280 px under test-artifacts/."""

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NATIVE = ["English", "简体中文", "Italiano", "Español"]
SHORT = {"es": "La contraseña es demasiado corta", "it": "Questa password è troppo corta", "zh-hans": "密码太短"}


@pytest.mark.parametrize("width", [360, 1280])
def test_the_menu_keeps_each_language_name_and_the_page_follows_the_choice(server, players, width):
    mei = players(server, "mei", viewport={"width": width, "height": 900})
    page = mei.goto("/accounts/signup/")
    menu = page.locator("#language-top")
    assert menu.locator("option").all_inner_texts() == NATIVE
    for code, name in (("es", "Español"), ("zh-hans", "简体中文"), ("it", "Italiano")):
        with page.expect_navigation():
            menu.select_option(code)  # language.js sends the form at once
        assert page.get_attribute("html", "lang") == code
        assert page.locator("#language-top option").all_inner_texts() == NATIVE
        assert page.locator("#language-top option:checked").inner_text() == name
        assert page.get_attribute("link[rel=manifest]", "href") == f"/manifest.{code}.webmanifest"
        page.fill("input[name=username]", "mei")
        page.fill("input[name=email]", "mei@example.com")
        page.fill("input[name=password1]", "q7z")
        page.fill("input[name=password2]", "q7z")
        page.locator("form[action*=signup] [type=submit]").click()
        page.wait_for_load_state()
        error = page.locator(".errorlist").first.inner_text()
        assert SHORT[code] in error and "too short" not in error
        mei.screenshot(f"language-menu-{code}-{width}")
    manifest = page.request.get(server + "/manifest.it.webmanifest").json()
    assert manifest["lang"] == "it" and "Dieci e mezzo" in manifest["description"]
