"""The Spanish-suited deck drawn as each player knows it (static/js/cards.js), in a real browser at 360 x 740: an Italian
player's Sette e mezzo practice table shows the Napoletane (A, 2–7, F, C, R; asso, fante, cavallo, re di denari,
coppe, spade, bastoni), a Spanish player's the baraja (1–7, 10, 11, 12; as, sota, caballo, rey de oros, copas,
espadas, bastos), in the visible index, the aria-label and the feed; the profile's deck art overrides the language;
an English player's Ten and a Half still shows French cards. The codes stay: data-card and the view hold 1O, KB.
Screenshots at 360 px go to test-artifacts/."""

import re
import secrets

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine.cards import SPANISH_40
from tests.e2e.conftest import ARTIFACTS, Player, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
# The newcomer sits first from the bank and is dealt first: the ace of coins, then picture cards only, so that every
# seat's cards and the newcomer's hits are jacks, knights and kings (½ each: nobody busts on them).
PICTURES = [r + s for r in "JNK" for s in "OCEB"]
STACK = ["1O"] + PICTURES + [c for c in SPANISH_40 if c != "1O" and c not in PICTURES]

# What each art prints in a card's corner, and each language's names: written here from the decks themselves, not
# from cards.js.
INDEX = {
    "napoletane": {"1": "A", "J": "F", "N": "C", "K": "R"},
    "baraja": {"J": "10", "N": "11", "K": "12"},
    "letters": {"1": "A"},
}
NAMES = {
    "it": ("%s di %s", {"1": "asso", "J": "fante", "N": "cavallo", "K": "re"},
           {"O": "denari", "C": "coppe", "E": "spade", "B": "bastoni"}),
    "es": ("%s de %s", {"1": "as", "J": "sota", "N": "caballo", "K": "rey"},
           {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"}),
}


def expected(code: str, art: str, language: str) -> tuple[str, str]:
    """(visible index, aria-label) of a Spanish-suited card."""
    rank, suit = code[:-1], code[-1]
    pattern, ranks, suits = NAMES[language]
    return INDEX[art].get(rank, rank), pattern % (ranks.get(rank, rank), suits[suit])


def logged_in(browser, base: str, user, locale: str) -> Player:
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale=locale)
    player = Player(context, base, user.username, [])
    log_in(context, base, user)
    return player


def stacked_practice(monkeypatch, user, preset: str, deck: list[str] | None):
    """A practice room opened in this process (services.practice_open), its first hand dealt from `deck`'s order."""
    def stacked(run):
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": secrets.token_hex(32), "deck": deck or []})

    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # no socket in this process
    monkeypatch.setattr("games.services.moves._start_hand", stacked)
    return services.practice_open(user=user, preset=preset)


def play_hand(player, hits: int) -> None:
    """Confirm the practice stake, hit `hits` times at the newcomer's turn, stand, and wait for the hand's end."""
    page = player.page
    player.wait_view("v.you && v.hand")
    page.locator("#act-confirm:not([disabled])").click()
    for _ in range(hits):
        page.locator("#act-hit:not([disabled])").click()
        page.wait_for_function("!window.halfpoint.state.busy")
    page.locator("#act-stand:not([disabled])").click()
    player.wait_view("v.hand && v.hand.over")


def table_cards(page) -> list[tuple[str, str, str, str]]:
    """(code, visible index, aria-label, class) of every card drawn on the felt."""
    return page.locator("#felt .pcard[data-card]").evaluate_all(
        "els => els.map(e => [e.dataset.card, e.querySelector('.rank').textContent, e.getAttribute('aria-label'),"
        " e.className])")


def sheet(page) -> dict[str, tuple[str, str]]:
    """Every card of the deck painted by the page's own cards.js module (the one table.js imported, set to the
    table's deck): code -> (visible index, aria-label)."""
    return page.evaluate("""async (codes) => {
        const src = document.querySelector('script[src*="/table.js"]').src.replace(/table\\.js.*$/, 'cards.js');
        const { paint } = await import(src);
        return Object.fromEntries(codes.map((c) => {
            const el = paint(document.createElement('span'), c);
            return [c, [el.querySelector('.rank').textContent, el.getAttribute('aria-label')]];
        }));
    }""", list(SPANISH_40))


CASES = [  # language, the profile's deck art, the art expected, the names' language
    ("it", "", "napoletane", "it"),
    ("es", "", "baraja", "es"),
    ("it", "baraja", "baraja", "it"),
    ("es", "letters", "letters", "es"),
]


@pytest.mark.parametrize(("language", "choice", "art", "names"), CASES)
def test_seven_and_a_half_is_drawn_in_the_players_deck(server, browser, monkeypatch, language, choice, art, names):
    user = get_user_model().objects.create_user(f"p-{language}-{choice or 'auto'}", f"{language}@example.com",
                                                "a-long-password-1", language=language, deck_art=choice)
    room = stacked_practice(monkeypatch, user, "seven-half", STACK)
    player = logged_in(browser, server, user, {"it": "it-IT", "es": "es-ES"}[language])
    page = player.goto(f"/r/{room.code}/")
    player.wait_connected()
    assert page.evaluate("document.documentElement.lang") == language
    play_hand(player, hits=3)

    # The newcomer's hand, as the engine keeps it: the codes, never the art's indices.
    view = player.view()
    mine = [c[0] if isinstance(c, list) else c["card"] for c in view["hand"]["hands"][view["you"]][0]["cards"]]
    assert mine[0] == "1O" and len(mine) == 4 and all(c in PICTURES for c in mine[1:]), mine

    drawn = table_cards(page)
    codes = [code for code, *_ in drawn]
    assert "1O" in codes and {c[0] for c in codes if c in PICTURES} == {"J", "N", "K"}, codes
    for code, index, label, classes in drawn:
        assert (index, label) == expected(code, art, names), (code, index, label)
        assert f"art-{art}" in classes.split() and "spanish" in classes.split()
    assert all(code in SPANISH_40 for code in codes)  # data-card keeps the code

    # The whole deck as the page's cards.js draws it.
    painted = sheet(page)
    assert painted == {code: list(expected(code, art, names)) for code in SPANISH_40}

    # The feed names the newcomer's cards in the deck's words.
    ace = expected("1O", art, names)[1]
    feed = " ".join(page.locator("#feed li").all_text_contents())
    assert ace in feed, feed
    assert re.search(r"\b1 (di|de) ", feed) is None, feed  # never "1 di denari"
    for code in mine[1:]:
        assert expected(code, art, names)[1] in feed, (code, feed)

    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    # Legible at the phone's card size: the index at least 14 px, the suit mark at least 18 px, inside the card.
    sizes = page.locator("#felt .pcard.spanish").first.evaluate(
        "e => { const r = e.getBoundingClientRect(), s = e.querySelector('svg').getBoundingClientRect();"
        " return [parseFloat(getComputedStyle(e.querySelector('.rank')).fontSize), s.width, s.height,"
        " s.top >= r.top && s.bottom <= r.bottom && s.left >= r.left && s.right <= r.right]; }")
    assert sizes[0] >= 14 and sizes[1] >= 18 and sizes[2] >= 18 and sizes[3], sizes
    page.locator("#felt").scroll_into_view_if_needed()
    player.screenshot(f"deck-art-{language}-{choice or 'auto'}-360")
    page.locator("#felt").screenshot(path=str(ARTIFACTS / f"deck-art-{language}-{choice or 'auto'}-360-felt.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("#felt").screenshot(path=str(ARTIFACTS / f"deck-art-{language}-{choice or 'auto'}-1280-felt.png"))
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()


def test_an_english_players_french_deck_stays_french(server, browser, monkeypatch):
    user = get_user_model().objects.create_user("carl", "carl@example.com", "a-long-password-1", language="en",
                                                deck_art="napoletane")  # the choice is for the Spanish-suited deck only
    room = stacked_practice(monkeypatch, user, "ten-half", ["AS", "KH", "QD", "JC", "10S", "9H", "8D"])
    player = logged_in(browser, server, user, "en-US")
    page = player.goto(f"/r/{room.code}/")
    player.wait_connected()
    play_hand(player, hits=0)
    drawn = table_cards(page)
    assert drawn
    suits = {"S": ("♠", "spades"), "H": ("♥", "hearts"), "D": ("♦", "diamonds"), "C": ("♣", "clubs")}
    ranks = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
    assert "AS" in [code for code, *_ in drawn]
    for code, index, label, classes in drawn:
        rank, suit = code[:-1], code[-1]
        assert index == rank and label == f"{ranks.get(rank, rank)} of {suits[suit][1]}", (code, index, label)
        assert "spanish" not in classes.split()
        assert page.locator(f"#felt .pcard[data-card='{code}'] .pip").first.text_content() == suits[suit][0]
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.locator("#felt").scroll_into_view_if_needed()
    player.screenshot("deck-art-en-french-360")
    page.locator("#felt").screenshot(path=str(ARTIFACTS / "deck-art-en-french-360-felt.png"))
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()


def test_the_profile_shows_each_art_and_keeps_the_choice(server, browser):
    user = get_user_model().objects.create_user("lola", "lola@example.com", "a-long-password-1", language="es")
    player = logged_in(browser, server, user, "es-ES")
    page = player.goto("/profile/")
    options = page.locator("input[name=deck_art]")
    assert options.evaluate_all("els => els.map(e => e.value)") == ["", "baraja", "napoletane", "letters"]
    assert page.locator("input[name=deck_art][value='']").is_checked()
    previews = page.locator(".deck-preview").evaluate_all(
        "rows => rows.map(r => [r.getAttribute('aria-hidden'), [...r.querySelectorAll('.rank')].map(e => e.textContent)])")
    # 1O, JC, NE, KB in each art; "by my language" is the baraja for a Spanish page.
    assert previews == [["true", ["1", "10", "11", "12"]], ["true", ["1", "10", "11", "12"]],
                        ["true", ["A", "F", "C", "R"]], ["true", ["A", "J", "N", "K"]]]
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.locator("#id_deck_art").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "deck-art-profile-es-360.png"))
    page.check("input[name=deck_art][value=napoletane]")
    page.locator("form:has(input[name=deck_art]) button[type=submit]").click()
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.dataset.deckArt") == "napoletane"
    assert page.locator("input[name=deck_art][value=napoletane]").is_checked()
    user.refresh_from_db()
    assert user.deck_art == "napoletane"
    assert not player.console_errors, player.console_errors
    player.context.close()
