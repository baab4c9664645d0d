"""The games in the order the reader's language plays them, decided here and nowhere else: every page that lists
the games (the home page, the lobby's practice buttons, create form and rules links, the records filter, a club's
room form) takes `games_in_order()`, and the lobby's create form starts on `lead_game()`.

Italian and Spanish players meet their own game first, Seven and a Half (Sette e mezzo, Siete y media); Chinese
players the three Chinese games, 十点半 first; English keeps the site's order, Ten and a Half first, the game
HalfPoint is named for. The language is the active one (django.utils.translation.get_language()), which the
language menu, a logged-in player's profile or the browser's Accept-Language set (accounts/language.py).

The presets with house rules on (games/engine/rules.py HOUSE_PRESETS) follow their game in every order, so the
Italian and Spanish reader finds Sette e mezzo con la matta second and the Chinese reader 十点半 抢庄 second; the home
page and the lobby's practice buttons show each as a variant under its game (`games_grouped()`).
"""

from django.utils.translation import get_language, gettext_lazy

from games.engine import PRESETS
from games.engine.rules import HOUSE_PRESETS
from games.models import PRESET_CHOICES

# A preset with house rules on (games/engine/rules.py HOUSE_PRESETS) comes right after its game: the Italian and
# Spanish reader meets Sette e mezzo con la matta second, the Chinese reader 十点半 抢庄 second.
DEFAULT_ORDER = ("ten-half", "ten-half-auction", "seven-half", "seven-half-matta", "zhejiang-ten-half", "ban-luck",
                 "ban-luck-opens")
ORDER = {
    "zh-hans": ("ten-half", "ten-half-auction", "zhejiang-ten-half", "ban-luck", "ban-luck-opens", "seven-half",
                "seven-half-matta"),
    "it": ("seven-half", "seven-half-matta", "ten-half", "ten-half-auction", "zhejiang-ten-half", "ban-luck",
           "ban-luck-opens"),
    "es": ("seven-half", "seven-half-matta", "ten-half", "ten-half-auction", "zhejiang-ten-half", "ban-luck",
           "ban-luck-opens"),
}
assert all(sorted(order) == sorted(PRESETS) for order in (DEFAULT_ORDER, *ORDER.values()))
assert all(order.index(slug) == order.index(game) + 1 for order in (DEFAULT_ORDER, *ORDER.values())
           for slug, game in HOUSE_PRESETS.items())

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

# A preset with house rules, as a variant under its game's name ("Sette e mezzo · con la matta").
VARIANT_NAMES = {
    "ten-half-auction": gettext_lazy("bid for the bank"),
    "seven-half-matta": gettext_lazy("with the matta"),
    "ban-luck-opens": gettext_lazy("the banker opens"),
}
assert set(VARIANT_NAMES) == set(HOUSE_PRESETS)


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


def game_of(slug: str) -> str:
    """The game's own preset: itself, or the preset a house preset turns its knobs on in."""
    return HOUSE_PRESETS.get(slug, slug)


def games_grouped(language: str | None = None) -> list[dict]:
    """The games in the reader's order, each with its presets with house rules as variants under it (the home page,
    the lobby's practice buttons): [{"slug", "name", "blurb", "variants": [{"slug", "name", "short", "blurb"}],
    "buttons": [(slug, label, is_variant)]}]."""
    groups: dict[str, dict] = {}
    for slug, name in games_in_order(language):
        entry = {"slug": slug, "name": name, "blurb": BLURBS[slug]}
        if slug in HOUSE_PRESETS:
            groups[game_of(slug)]["variants"].append({**entry, "short": VARIANT_NAMES[slug]})
        else:
            groups[slug] = {**entry, "variants": []}
    for group in groups.values():  # (slug, label, is a variant): the game's own first
        group["buttons"] = [(group["slug"], group["name"], False)] + [(v["slug"], v["short"], True)
                                                                      for v in group["variants"]]
    return list(groups.values())
