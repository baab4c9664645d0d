"""Sharing into a chat in templates (games/share.py): `{% og_locale %}`, `{% absolute_static path %}` (a chat fetches
og:image from elsewhere, so it needs the whole URL), and the words and link a share button sends,
`{% invite_share room url as share %}` and `{% settle_share room url as share %}`: share.title, share.text and
share.url, the link in the page's language."""

from django import template
from django.templatetags.static import static

from games import share

register = template.Library()


@register.simple_tag
def og_locale() -> str:
    return share.og_locale()


@register.simple_tag(takes_context=True)
def absolute_static(context, path: str) -> str:
    url = static(path)
    request = context.get("request")
    return request.build_absolute_uri(url) if request is not None else url


@register.simple_tag
def invite_share(room, url: str) -> dict[str, str]:
    return {**share.invite_words(room), "url": share.in_language(url)}


@register.simple_tag
def settle_share(room, url: str) -> dict[str, str]:
    return {**share.settle_words(room), "url": share.in_language(url)}
