"""The games in the reader's order in templates (games/game_order.py): `{% games_in_order as games %}` gives a list
of {"slug", "name", "blurb"}, the reader's game first; the home page lists them and names the first in its headline."""

from django import template

from games import game_order

register = template.Library()


@register.simple_tag
def games_in_order() -> list[dict]:
    return [{"slug": slug, "name": name, "blurb": game_order.BLURBS[slug]} for slug, name in game_order.games_in_order()]


@register.simple_tag
def games_grouped() -> list[dict]:
    """The games in the reader's order, each with its presets with house rules (`variants`) under it."""
    return game_order.games_grouped()
