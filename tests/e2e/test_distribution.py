"""The distribution report in Chromium at 360 and 1280 px (docs/fairness.md, "The distribution report"): a phone shows
each game folded under its name, so the page is short until one is opened, and an opened game fits the screen's width;
a game with a warning is open on a phone too; a wide screen opens every game. Screenshots go to test-artifacts/."""

import pytest
from django.core.cache import cache
from django.utils import timezone

from games import distribution
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_layout import PAGE_WIDTH
from tests.games.test_distribution import tallies_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GAMES = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")


def seed_report():
    """Ten and a Half and Ban Luck with enough hands for the first card's test, Seven and a Half with too few for any,
    Zhejiang's first card always the ace of spades (a warning)."""
    tallies = tallies_of({"ten-half": 400, "seven-half": 30, "ban-luck": 400})
    biased = tallies_of({"zhejiang-ten-half": 300}, deal=lambda i, deck: ["AS", deck[1 + i % 53]])
    tallies.games.update(biased.games)
    cache.set(distribution.CACHE_KEY, {"last": 0, "games": tallies.games, "at": timezone.now().isoformat()}, None)


def opened(page) -> dict:
    return page.evaluate("Object.fromEntries([...document.querySelectorAll('details.distribution')]"
                         ".map((d) => [d.id, d.open]))")


def test_the_report_folds_on_a_phone_and_opens_on_a_wide_screen(server, players):
    viewer = players(server, "reader", viewport={"width": 360, "height": 740})
    seed_report()
    page = viewer.goto("/verify/distribution/")
    page.wait_for_load_state("networkidle")
    assert opened(page) == {f"game-{g}": g == "zhejiang-ten-half" for g in GAMES}
    # The warning's game is open at once, its test in red; the others are one line each.
    assert page.locator("#game-zhejiang-ten-half .test.bad[data-test='first'][data-ready='true']").is_visible()
    assert page.locator("#game-zhejiang-ten-half [data-warning='first']").is_visible()
    assert page.locator("#game-seven-half .card-counts").is_hidden()
    height = page.evaluate("document.scrollingElement.scrollHeight")
    assert height < 3200, height
    assert page.evaluate(PAGE_WIDTH) is None
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "distribution-360.png"), full_page=True)

    # A game opened on the phone: counts within the screen's width, its test or the hands it still needs.
    for game in ("seven-half", "ten-half"):
        page.click(f"#game-{game} > summary")
    assert page.locator("#game-seven-half .test.pending[data-test='first']").is_visible()
    assert "more hands will bring it there" in page.locator("#game-seven-half .test.pending[data-test='first']").inner_text()
    assert page.locator("#game-ten-half .test.ok[data-test='first']").inner_text().startswith("χ² = ")
    assert page.evaluate(PAGE_WIDTH) is None
    table = page.locator("#game-ten-half .card-counts").bounding_box()
    assert table["x"] >= 0 and table["x"] + table["width"] <= 360, table
    assert page.locator("#game-ten-half .card-counts thead th.suit span[aria-hidden]").all_inner_texts() == ["♠", "♥", "♦", "♣"]
    page.screenshot(path=str(ARTIFACTS / "distribution-360-open.png"), full_page=True)

    page.set_viewport_size({"width": 1280, "height": 900})
    page.reload()
    page.wait_for_load_state("networkidle")
    assert opened(page) == {f"game-{g}": True for g in GAMES}
    assert page.evaluate(PAGE_WIDTH) is None
    assert page.locator("#game-seven-half .card-counts thead th.suit").all_inner_texts() == [
        "coins", "cups", "swords", "clubs"]
    page.screenshot(path=str(ARTIFACTS / "distribution-1280.png"), full_page=True)
    assert not viewer.console_errors, viewer.console_errors
