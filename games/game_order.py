"""The games in the order the reader's language plays them, decided here and nowhere else: every page that lists
the games (the home page, the lobby's practice buttons, create form and rules links, the records filter, a club's
room form) takes `games_in_order()`, and the lobby's create form starts on `lead_game()`.

Italian and Spanish players meet their own game first, Seven and a Half (Sette e mezzo, Siete y media); Chinese
players the three Chinese games, 十点半 first; English keeps the site's order, Ten and a Half first, the game
HalfPoint is named for. The language is the active one (django.utils.translation.get_language()), which the
language menu, a logged-in player's profile or the browser's Accept-Language set (accounts/language.py).
"""

from django.utils.translation import get_language, gettext_lazy

from games.engine import PRESETS
from games.models import PRESET_CHOICES

DEFAULT_ORDER = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck", "ten-half-auction", "seven-half-matta",
                 "ban-luck-opens")
ORDER = {
    "zh-hans": ("ten-half", "zhejiang-ten-half", "ban-luck", "seven-half", "ten-half-auction", "ban-luck-opens",
                "seven-half-matta"),
    "it": ("seven-half", "ten-half", "zhejiang-ten-half", "ban-luck", "seven-half-matta", "ten-half-auction",
           "ban-luck-opens"),
    "es": ("seven-half", "ten-half", "zhejiang-ten-half", "ban-luck", "seven-half-matta", "ten-half-auction",
           "ban-luck-opens"),
}
assert all(sorted(order) == sorted(PRESETS) for order in (DEFAULT_ORDER, *ORDER.values()))

# One line about each game, under its name on the home page.
BLURBS = {
    "ten-half": gettext_lazy("Get to 10½ without going over. Picture cards count ½. Dice decide the order."),
    "seven-half": gettext_lazy("The Italian and Spanish classic with a 40-card deck and a shoe that lasts across "
                               "hands."),
    "zhejiang-ten-half": gettext_lazy("Jokers, picture hands and the heavenly king paying up to ten times the stake."),
    "ban-luck": gettext_lazy("Ban-Ban, Ban-Luck and the Five Dragon against a banker who must draw to 16."),
    "ten-half-auction": gettext_lazy("Ten and a Half as the friend-room apps play it: bid for the bank after seeing "
                                     "your first card, and let a win ride."),
    "seven-half-matta": gettext_lazy("Seven and a Half with the king of coins wild: it is worth whatever makes your "
                                     "hand best."),
    "ban-luck-opens": gettext_lazy("Chinese Blackjack as Singapore plays it: the banker opens hands one by one, and "
                                   "a two-card 15 may run."),
}
assert set(BLURBS) == set(PRESETS)


def game_order(language: str | None = None) -> tuple[str, ...]:
    """The presets' slugs, the reader's game first; `language` defaults to the active one. A regional code
    (es-mx) takes its language's order; a language without an order of its own takes the site's."""
    code = (language or get_language() or "").lower()
    return ORDER.get(code) or ORDER.get(code.split("-")[0]) or DEFAULT_ORDER


def lead_game(language: str | None = None) -> str:
    """The game the reader meets first: the create form's default."""
    return game_order(language)[0]


def games_in_order(language: str | None = None) -> list[tuple[str, str]]:
    """(slug, name) of every game in the reader's order, the names to be translated where shown, as PRESET_CHOICES."""
    names = dict(PRESET_CHOICES)
    return [(slug, names[slug]) for slug in game_order(language)]
