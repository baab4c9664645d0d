"""The installable app (config/pwa.py, docs/deploy.md "Installable app"): the manifest and its icons, the service
worker that keeps the static shell and the offline page and nothing of a table, a new cache when the worker changes,
and the header's Install entry. Screenshots of the offline page and the header at 360 and 1280 px go to
test-artifacts/."""

import re
import struct
import time

import pytest
from django.urls import reverse

from tests.e2e.conftest import ARTIFACTS, TIMEOUT_MS, Player
from tests.e2e.test_csp import WATCH_CSP, production_server  # noqa: F401  (the fixture, for getfixturevalue)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                 "Version/17.5 Mobile/15E148 Safari/604.1")
HASHED = re.compile(r"/static/.+\.[0-9a-f]{12}\.\w+$")

# Every URL in the worker's caches, by cache name.
CACHED = """async () => {
  const found = {};
  for (const name of await caches.keys()) {
    found[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname + new URL(r.url).search);
  }
  return found;
}"""

# The icon's pixels, counted: outside the maskable safe zone (the central circle of 80% of the width) and inside it,
# those that are not opaque felt green (the mark, or a hole).
PIXELS = """async (url) => {
  const img = new Image();
  img.src = url;
  await img.decode();
  const n = img.naturalWidth, canvas = document.createElement("canvas");
  canvas.width = canvas.height = n;
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, n, n).data;
  let notFeltOutside = 0, notFeltInside = 0, transparent = 0;
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    const i = (y * n + x) * 4, r = d[i], gr = d[i + 1], b = d[i + 2], a = d[i + 3];
    if (a === 0) transparent++;
    const felt = a === 255 && gr > r + 20 && gr > b + 10;
    if (Math.hypot(x + 0.5 - n / 2, y + 0.5 - n / 2) > 0.4 * n) { if (!felt) notFeltOutside++; }
    else if (!felt) notFeltInside++;
  }
  return {notFeltOutside, notFeltInside, transparent, corner: d[3]};
}"""


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return struct.unpack(">II", data[16:24])


def wait_for_worker(page) -> None:
    """Until a service worker is active and controls the page."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null"
                           " && navigator.serviceWorker.controller.state === 'activated'")


def css_variable(page, name: str) -> str:
    return page.evaluate(f"getComputedStyle(document.documentElement).getPropertyValue('{name}').trim()")


def test_the_manifest_names_the_app_its_start_and_icons_in_the_site_colours(server, players):
    ana = players(server, "ana").signup()
    page = ana.goto("/lobby/")
    href = page.get_attribute("link[rel=manifest]", "href")
    assert href == "/manifest.webmanifest"
    response = ana.context.request.get(server + href)
    assert response.status == 200 and response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()

    assert manifest["name"] == "HalfPoint" and manifest["short_name"] == "HalfPoint"
    assert len(manifest["description"]) > 20
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == reverse("games:lobby") + "?source=pwa" == "/lobby/?source=pwa"
    assert manifest["scope"] == "/" and manifest["lang"] == "en" and manifest["dir"] == "ltr"
    # The colours are the stylesheet's: the header bar and the page.
    assert manifest["theme_color"] == css_variable(page, "--ink")
    assert manifest["background_color"] == css_variable(page, "--bg")
    assert page.get_attribute("meta[name=theme-color]", "content") == manifest["theme_color"]
    assert page.get_attribute("meta[name=apple-mobile-web-app-capable]", "content") == "yes"
    assert page.get_attribute("meta[name=apple-mobile-web-app-title]", "content") == "HalfPoint"

    icons = {(icon["sizes"], icon["purpose"]): icon for icon in manifest["icons"]}
    assert set(icons) == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    apple = page.get_attribute("link[rel=apple-touch-icon]", "href")
    for (sizes, purpose), src in [*((key, icon["src"]) for key, icon in icons.items()), (("180x180", "apple"), apple)]:
        assert src.startswith("/static/icons/"), src
        image = ana.context.request.get(server + src)
        assert image.status == 200 and image.headers["content-type"] == "image/png", (src, image.headers)
        width, height = png_size(image.body())
        assert f"{width}x{height}" == sizes, src
        pixels = page.evaluate(PIXELS, src)
        assert pixels["notFeltInside"] > width * height // 10, (src, pixels)  # the mark is there, not a blank square
        if purpose == "any":
            assert pixels["corner"] == 0, (src, pixels)  # a rounded square: launchers that do not mask show it as is
        else:
            # Full bleed, and the whole mark inside the safe zone: whatever a launcher's mask cuts off is felt.
            assert pixels["transparent"] == 0 and pixels["notFeltOutside"] == 0, (src, pixels)


def test_the_worker_keeps_the_shell_never_a_table_and_shows_the_offline_page_without_a_network(server, players):
    ana = players(server, "ana").signup()
    page = ana.goto("/lobby/")
    wait_for_worker(page)
    worker = ana.context.request.get(server + "/sw.js")
    assert worker.headers["content-type"].startswith("application/javascript")
    assert "no-cache" in worker.headers["cache-control"]
    assert "service-worker-allowed" not in worker.headers  # not needed: the worker sits at the root
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == server + "/sw.js"
    assert page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.scope)") == server + "/"

    # A practice table, its JSON and the API read through the worker, and a POST: none of it may be kept.
    page.click("button[data-practice='ten-half']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    ana.wait_connected()
    code = page.locator("#room-code").inner_text()
    for path in (f"/r/{code}/chain.json", f"/api/rooms/{code}/", "/api/me/"):
        assert page.evaluate("(path) => fetch(path).then((r) => r.status)", path) < 500, path
    page.evaluate("fetch('/i18n/setlang/', {method: 'POST', body: new FormData()}).then((r) => r.status)")
    cached = page.evaluate(CACHED)
    assert len(cached) == 1 and next(iter(cached)).startswith("halfpoint-"), cached
    urls = next(iter(cached.values()))
    assert all(url.startswith("/static/") or url == "/offline/" for url in urls), urls
    for kept in ("/offline/", "/static/css/site.css", "/static/css/table.css", "/static/js/pwa.js",
                 "/static/js/language.js", "/static/icons/icon-192.png", "/static/icons/icon-maskable-512.png"):
        assert kept in urls, (kept, urls)

    ana.context.set_offline(True)
    page.goto(server + "/records/")
    assert page.url == server + "/records/"
    assert page.locator("h1").inner_text() == "You are offline"
    # Its stylesheet came from the cache too: the header bar has the site's colours.
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).backgroundColor") == "rgb(29, 36, 51)"
    assert page.get_attribute("#offline-retry", "href") == ""
    assert page.locator(".topbar").get_by_text("ana").count() == 0  # nothing of the player in a cached page
    for width, height in ((360, 740), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        ana.screenshot(f"pwa-offline-{width}")

    ana.context.set_offline(False)  # back online: the page tries again by itself, and the records are there
    page.wait_for_selector("body:not([data-offline])")
    assert page.url == server + "/records/"
    assert page.locator("h1").inner_text() != "You are offline"


def test_a_changed_worker_replaces_its_old_cache(server, players):
    """Any change of what the worker caches (a deploy's new hashed names, or here another language's offline page)
    is a new worker with a new cache, and the old one is deleted."""
    ana = players(server, "ana").signup()
    page = ana.goto("/lobby/")
    wait_for_worker(page)
    (first,) = page.evaluate(CACHED)
    page.evaluate("Promise.all([caches.open('halfpoint-0ld'), caches.open('not-ours')]).then(() => true)")

    page.select_option("#language-top", "it")
    page.wait_for_load_state()
    page.wait_for_function("() => document.documentElement.lang === 'it'")
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update()).then(() => true)")
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while set(names := page.evaluate(CACHED)) & {first, "halfpoint-0ld"} or len(names) != 2:
        assert time.monotonic() < deadline, names
        time.sleep(0.1)
    (second,) = set(names) - {"not-ours"}
    assert second.startswith("halfpoint-") and second != first
    offline = page.evaluate(f"caches.open('{second}').then((c) => c.match('/offline/')).then((r) => r.text())")
    assert '<html lang="it"' in offline


def test_the_worker_caches_the_hashed_urls_the_pages_use_with_debug_off(browser, request):
    base = request.getfixturevalue("production_server")  # DEBUG=0 and collectstatic (test_csp.py)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.add_init_script(WATCH_CSP)
    page = Player(context, base, "visitor", []).goto("/")
    wait_for_worker(page)
    page.reload()  # now through the worker: its answers from the cache must keep to the CSP too
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__csp") == []
    (urls,) = page.evaluate(CACHED).values()
    named = page.evaluate("""[...document.querySelectorAll('link[rel=stylesheet], script[src], link[rel=apple-touch-icon]')]
        .map((e) => new URL(e.href || e.src).pathname)""")
    assert named and all(HASHED.search(url) for url in named), named
    assert set(named) <= set(urls), (named, urls)
    assert all(HASHED.search(url) for url in urls if url != "/offline/"), urls
    manifest = context.request.get(base + "/manifest.webmanifest").json()
    assert all(HASHED.search(icon["src"]) and icon["src"] in urls for icon in manifest["icons"]), manifest["icons"]
    assert page.locator("#install-app").is_hidden()
    context.close()


def test_the_install_entry_shows_only_when_the_browser_offers_to_install(server, players):
    ana = players(server, "ana").signup()  # the fuller header
    page = ana.goto("/")
    page.wait_for_load_state("networkidle")
    entry = page.locator("#install-app")
    assert entry.is_hidden()

    # What Chromium sends when the site can be installed; the page keeps it for the entry instead of the infobar.
    prevented = page.evaluate("""() => {
      const event = new Event("beforeinstallprompt", {cancelable: true});
      event.prompt = () => { window.prompted = true; return Promise.resolve(); };
      window.dispatchEvent(event);
      return event.defaultPrevented;
    }""")
    assert prevented
    entry.wait_for(state="visible")
    for width, height in ((360, 740), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        assert entry.is_visible() and entry.bounding_box()["x"] + entry.bounding_box()["width"] <= width
        ana.screenshot(f"pwa-header-install-{width}")
    entry.click()
    assert page.evaluate("window.prompted") is True
    entry.wait_for(state="hidden")  # the prompt is good once


def test_on_an_iphone_the_install_entry_opens_the_add_to_home_screen_guide(browser, server):
    context = browser.new_context(viewport={"width": 360, "height": 740}, user_agent=IPHONE_SAFARI, has_touch=True,
                                  is_mobile=True, locale="en-US")
    bea = Player(context, server, "bea", [])
    page = bea.goto("/")
    entry = page.locator("#install-app")
    entry.wait_for(state="visible")  # Safari sends no beforeinstallprompt: the entry is there at once
    entry.click()
    guide = page.locator("#install-guide")
    guide.wait_for(state="visible")
    assert "Tap Share, then Add to Home Screen." in guide.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "pwa-iphone-guide-360.png"))  # the screen, where the modal is
    guide.get_by_role("button").click()
    guide.wait_for(state="hidden")

    # Opened from the home screen (Safari's navigator.standalone): nothing to install.
    context.add_init_script("Object.defineProperty(navigator, 'standalone', {value: true})")
    page.reload()
    page.wait_for_load_state("networkidle")
    assert entry.is_hidden()
    context.close()
