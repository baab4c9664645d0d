"""The installable app (docs/deploy.md, "Installable app"): the web app manifest, the service worker and the page it
shows when a navigation finds no network. The worker is rendered here rather than served from /static/ so that its
scope is the whole site and its cache list names the same static URLs the pages use (hashed names with DEBUG=0)."""

import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

# static/css/site.css: --ink (the header bar) and --bg (the page). templates/base.html and templates/pwa/offline.html
# repeat them in <meta name="theme-color">; tests/e2e/test_pwa.py compares all three with the stylesheet.
THEME_COLOR = "#1d2433"
BACKGROUND_COLOR = "#f6f4ef"

# Drawn by tools/make_icons.py: (file under static/icons/, pixels, manifest purpose).
ICONS = (("icon-192.png", 192, "any"), ("icon-512.png", 512, "any"), ("icon-maskable-512.png", 512, "maskable"))
APPLE_TOUCH_ICON = "icons/apple-touch-icon.png"  # 180 px, full bleed: iOS rounds the corners itself

# What the worker keeps for offline use: the stylesheets, the scripts every page loads, the icons. Only static files,
# which hold nothing about a player; pages, table state and JSON always come from the network.
SHELL = ("css/site.css", "css/pages.css", "css/cards.css", "css/table.css", "js/language.js", "js/pwa.js", APPLE_TOUCH_ICON,
         *(f"icons/{name}" for name, _size, _purpose in ICONS))


@never_cache
@require_GET
def manifest(request: HttpRequest, lang: str | None = None) -> JsonResponse:
    """The manifest in one language: /manifest.webmanifest in the site's own (English), /manifest.<code>.webmanifest
    in another of settings.LANGUAGES; each page links its reader's (accounts/templatetags/languages.py). The id is
    the same in every language: one app, whichever language installed it. Another code is 404."""
    code = lang or settings.LANGUAGE_CODE
    if code not in dict(settings.LANGUAGES):
        raise Http404
    with translation.override(code):
        words = {
            "name": pgettext("the installed app's name", "HalfPoint"),
            "short_name": pgettext("the installed app's name under its icon, 12 characters at most", "HalfPoint"),
            "description": gettext("Ten and a Half and other banker card games with friends, for play money."),
        }
    data = {
        "id": reverse("home"),
        **words,
        "lang": code,
        "dir": "ltr",
        "start_url": reverse("games:lobby") + "?source=pwa",
        "scope": reverse("home"),
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "categories": ["games"],
        "icons": [{"src": static(f"icons/{name}"), "sizes": f"{size}x{size}", "type": "image/png", "purpose": purpose}
                  for name, size, purpose in ICONS],
    }
    return JsonResponse(data, content_type="application/manifest+json")


@never_cache
@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """The page the worker shows for a navigation that found no network. It is cached, so it is rendered from its
    own template with nothing of the visitor in it (no name, no CSRF token): see templates/pwa/offline.html."""
    return render(request, "pwa/offline.html", _offline_context())


def _offline_context() -> dict:
    return {"theme_color": THEME_COLOR, "apple_touch_icon": APPLE_TOUCH_ICON}


@never_cache
@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """templates/pwa/sw.js with its cache list. Browsers fetch the worker again on navigations and install it anew
    when its bytes change, so the cache name carries a version of everything it caches: a deploy (new hashed
    names) or another language (another offline page) makes a new cache, and the new worker deletes the old."""
    offline_url = reverse("offline")
    shell = [static(path) for path in SHELL]
    version = hashlib.sha256()
    version.update("\n".join([*shell, offline_url]).encode())
    version.update(render_to_string("pwa/offline.html", _offline_context(), request=request).encode())
    if not isinstance(staticfiles_storage, ManifestFilesMixin):  # plain names (DEBUG=1): the contents tell a change
        for path in SHELL:
            version.update(Path(finders.find(path)).read_bytes())
    config = {
        "cache": f"halfpoint-{version.hexdigest()[:16]}",
        "cachePrefix": "halfpoint-",
        "shell": [*shell, offline_url],
        "offline": offline_url,
        "static": settings.STATIC_URL,
        "push": static("js/sw-push.js"),
    }
    return render(request, "pwa/sw.js", {"config": mark_safe(json.dumps(config))},  # a script, not HTML
                  content_type="application/javascript; charset=utf-8")
