"""The language menu (templates/_language.html): `{% language_names as languages %}` gives settings.LANGUAGES with
each language under its own name in its own script (English, 简体中文, Italiano, Español), whatever the page's
language. Django's `{% get_available_languages %}` runs each name through gettext, which turned "English" into
"Inglés" on a Spanish page while the others kept their own names. `{% manifest_url %}`: the web app manifest in
the page's language (templates/base.html)."""

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils import translation

register = template.Library()


@register.simple_tag
def language_names() -> list[tuple[str, str]]:
    return [(code, str(name)) for code, name in settings.LANGUAGES]


@register.simple_tag
def manifest_url() -> str:
    """The web app manifest in the page's language (config/pwa.py): the plain one in the site's own language."""
    code = translation.get_language() or settings.LANGUAGE_CODE
    if code == settings.LANGUAGE_CODE or code not in dict(settings.LANGUAGES):
        return reverse("manifest")
    return reverse("manifest_in", args=[code])
