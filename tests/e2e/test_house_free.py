"""The free hand at a newcomer's practice table (house-rules.md, "The free hand"; static/js/house-free.js), in a real
browser at 360 x 740, in each language: at a practice table of `ban-luck-opens` (the lobby's practice button's service,
`practice_open`, called here so that its first hand is stacked: the web server is another process), the newcomer is
dealt a two-card 15, sees Run (and no Run before), runs, and reads the run and the stake given back in the feed.

The words are those of /work/brief/tr-free.py (the catalogs carry them once the lead compiles them)."""

import re

import pytest
from django.contrib.auth import get_user_model

from games.engine.cards import DECKS
from tests.e2e.conftest import ARTIFACTS, PHONE, phone_table, practice_here

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The newcomer sits at the banker's left and is dealt first: a 5, then (whatever the number of seats) a ten-card, 15;
# every other seat gets two ten-cards (20), so no special settles anything and nobody else holds a free hand.
TENS = [r + s for r in ("10", "J", "Q", "K") for s in "SHDC"]
STACK = ["5H"] + TENS + [c for c in DECKS["french-52"] if c != "5H" and c not in TENS]

WORDS = {  # language: (browser locale, the Run button, the note, the feed's run, the feed's stake back)
    "en": ("en-US", "Run (free hand)", "A two-card 15: run, and your stake comes back, no win and no loss.",
           "%(name)s runs with a free hand (a two-card 15): the stake comes back, no win and no loss.",
           "%(name)s gets the stake of %(stake)s back: ran with a free hand."),
    "zh-hans": ("zh-CN", "走（十五点）", "两张牌十五点：走，下注退回，不输不赢。",
                "%(name)s十五点走（两张牌十五点）：下注退回，不输不赢。",
                "%(name)s的下注 %(stake)s 退回：十五点走了。"),
    "it": ("it-IT", "Scappo (mano libera)",
           "Un 15 con due carte: scappa, e la tua puntata torna indietro, senza vincere né perdere.",
           "%(name)s scappa con una mano libera (un 15 con due carte): la puntata torna indietro, senza vincere né "
           "perdere.",
           "%(name)s riprende la puntata di %(stake)s: è scappato con una mano libera."),
    "es": ("es-ES", "Me escapo (mano libre)", "Un 15 con dos cartas: escápate y tu apuesta vuelve, sin ganar ni perder.",
           "%(name)s se escapa con una mano libre (un 15 con dos cartas): la apuesta vuelve, sin ganar ni perder.",
           "%(name)s recupera la apuesta de %(stake)s: se escapó con una mano libre."),
}


def pattern(template: str) -> re.Pattern:
    """A feed line from its template, any name and amount."""
    return re.compile(re.escape(template).replace(re.escape("%(name)s"), ".+").replace(re.escape("%(stake)s"), r"\S+"))


@pytest.mark.parametrize("language", list(WORDS))
def test_a_newcomer_runs_with_a_free_hand_and_the_feed_says_so(server, browser, monkeypatch, language):
    locale, run, note, told, back = WORDS[language]
    user = get_user_model().objects.create_user(f"free-{language}", f"free-{language}@example.com",
                                                "a-long-password-1", language=language)
    room = practice_here(monkeypatch, user, "ban-luck-opens", STACK, every_hand=True)
    player, page = phone_table(browser, server, user, room, locale)
    assert page.evaluate("document.documentElement.lang") == language

    player.wait_view("v.you && v.hand && v.phase === 'betting'")
    assert page.locator("#act-escape").count() == 0  # no Run while betting
    page.locator("#act-confirm:not([disabled])").click()
    button = page.locator("#act-escape:not([disabled])")
    button.wait_for()
    me = player.view()["you"]
    assert [c["card"] for c in player.view()["hand"]["hands"][me][0]["cards"]][0] == "5H"
    assert button.inner_text() == run
    assert page.locator("#free-hand-note").inner_text() == note
    page.locator("#act-hit:not([disabled])").wait_for()  # not running is always allowed: Hit is there too
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen with Run"
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#actions").screenshot(path=str(ARTIFACTS / f"house-free-{language}-360-run.png"))

    button.click()
    page.locator("#feed li", has_text=pattern(told)).wait_for()
    page.locator("#feed li", has_text=pattern(back)).wait_for()
    player.wait_view(f"v.house && v.house.free_hand && v.house.free_hand.escaped.includes('{me}')")
    assert page.locator("#act-escape").count() == 0
    result = next(r for r in player.view()["hand"]["results"] if r["bettor"] == me)
    assert (result["outcome"], result["paid"], result["why"]) == ("void", 0, "free_hand")

    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.screenshot(path=str(ARTIFACTS / f"house-free-{language}-360.png"))
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()
