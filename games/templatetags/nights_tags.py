"""Past nights and a club's saved rules in templates (games/nights.py, games/club_rules.py): `{% past_nights user 5
as rooms %}` (the profile), `{% club_past_nights club 5 as rooms %}` and `{% club_rule_sets club as sets %}` (the club
page), so that the pages' views need not change."""

from django import template

from games import club_rules, nights

register = template.Library()


@register.simple_tag
def past_nights(user, n: int) -> list:
    return list(nights.past_nights_of(user)[:n])


@register.simple_tag
def club_past_nights(club, n: int) -> list:
    return list(nights.past_nights_of_club(club)[:n])


@register.simple_tag
def club_rule_sets(club) -> list:
    return list(club_rules.rule_sets_of(club))
