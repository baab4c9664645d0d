"""Sharing into a chat in a real browser on a phone (360 x 740), in English, Chinese, Italian and Spanish, under the
site's CSP (static/js/share.js): the room's invite and the settle-up's share link go to the Web Share API with the
words of the player's language (as the language's catalog has them, English where it has none yet) and the link in
it, the settle-up with its card as a PNG file; a share the player cancels says nothing and copies nothing; a share
that fails, or a browser without the API, copies the link and says so. navigator.share, navigator.canShare and the
clipboard are stubs that record what they are given. Screenshots go to test-artifacts/share/."""

import polib
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import formats, timezone, translation

from games import ledger_shares, services
from tests.e2e.conftest import ARTIFACTS, PASSWORD, TIMEOUT_MS, log_in
from tests.games.test_share import INVITE_TEXT, INVITE_TITLE, LOCALE, SETTLE_TEXT, SETTLE_TITLE, game_name, po_gettext

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "share"
PHONE = {"width": 360, "height": 740}
WIDE = {"width": 1280, "height": 900}
LANGUAGES = ["zh-hans", "it", "es", "en"]
BROWSER_LOCALES = {"zh-hans": "zh-CN", "it": "it-IT", "es": "es-ES", "en": "en-US"}

# What the page's share and clipboard get, and how the share answers: localStorage "share-mode" is "ok" (the app took
# it), "abort" (the player closed the sheet), "fail" (the browser refused) or "none" (no Web Share API at all).
STUBS = """
window.__shared = []; window.__copied = []; window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
const stubShare = (data) => {
  const mode = localStorage.getItem("share-mode") || "ok";
  if (mode === "abort") return Promise.reject(new DOMException("Share canceled", "AbortError"));
  if (mode === "fail") return Promise.reject(new DOMException("Permission denied", "NotAllowedError"));
  window.__shared.push({ title: data.title, text: data.text, url: data.url,
    files: (data.files || []).map((f) => ({ name: f.name, type: f.type, size: f.size })) });
  return Promise.resolve();
};
Object.defineProperty(navigator, "share", { configurable: true,
  get: () => (localStorage.getItem("share-mode") === "none" ? undefined : stubShare) });
Object.defineProperty(navigator, "canShare", { configurable: true,
  value: (data) => !!data && (data.files || []).every((f) => f instanceof File && f.type === "image/png") });
Object.defineProperty(navigator, "clipboard", { configurable: true,
  value: { writeText: (text) => { window.__copied.push(text); return Promise.resolve(); } } });
"""


def djangojs_gettext(lang: str, msgid: str) -> str:
    """`msgid` as the language's djangojs catalog translates it, or as written where it has no translation yet."""
    if lang == "en":
        return msgid
    po = polib.pofile(str(LOCALE / {"zh-hans": "zh_Hans"}.get(lang, lang) / "LC_MESSAGES" / "djangojs.po"))
    entry = po.find(msgid)
    return entry.msgstr if entry is not None and entry.msgstr and "fuzzy" not in entry.flags else msgid


def day_of(lang: str, room) -> str:
    """The day the room closed, as Django writes a date in `lang`."""
    with translation.override(lang):
        return formats.date_format(timezone.localtime(room.closed_at).date())


def logged_in_phone(browser, server: str, user, lang: str):
    """`user`'s phone: their session (made here, in the database the server reads), the stubs, the site's CSP."""
    context = browser.new_context(viewport=PHONE, locale=BROWSER_LOCALES[lang])
    log_in(context, server, user)
    context.add_init_script(STUBS)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


def mode(page, value: str) -> None:
    page.evaluate("(v) => localStorage.setItem('share-mode', v)", value)


def recorded(page) -> tuple[list, list]:
    shared, copied = page.evaluate("() => [window.__shared, window.__copied]")
    return shared, copied


def status(page):
    return page.locator(".share-status")


def fits(page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a {PHONE['width']} px screen"


def check_fallbacks(page, button: str, url: str, lang: str, shot: str) -> None:
    """Cancelled: nothing said, nothing copied. Refused, then no API at all: the link copied, and said so."""
    copied = djangojs_gettext(lang, "Link copied.")
    shared_before = len(recorded(page)[0])
    mode(page, "abort")
    page.click(button)
    page.wait_for_timeout(300)  # the stub's rejection is a microtask away: give the page time to (wrongly) react
    shared, copied_links = recorded(page)
    assert len(shared) == shared_before and copied_links == []
    assert status(page).is_hidden()
    mode(page, "fail")
    page.click(button)
    page.wait_for_function("() => window.__copied.length === 1")
    assert recorded(page)[1] == [url]
    assert status(page).is_visible() and status(page).inner_text() == copied
    status(page).evaluate("(node) => { node.hidden = true; }")
    mode(page, "none")
    page.click(button)
    page.wait_for_function("() => window.__copied.length === 2")
    assert recorded(page)[1] == [url, url] and len(recorded(page)[0]) == shared_before
    assert status(page).is_visible() and status(page).inner_text() == copied
    assert "share-status ok" == status(page).get_attribute("class")
    page.screenshot(path=str(SHOTS / f"{shot}-copied.png"))
    page.set_viewport_size(WIDE)
    page.screenshot(path=str(SHOTS / f"{shot}-copied-1280.png"))
    page.set_viewport_size(PHONE)
    mode(page, "ok")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_invite_and_the_settle_up_go_to_the_chat_in_the_players_language(browser, server, lang, monkeypatch):
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # no socket in this process
    SHOTS.mkdir(parents=True, exist_ok=True)
    users = get_user_model().objects
    alice = users.create_user("alice", "alice@example.com", PASSWORD, display_name="Alice Wu", language=lang)
    bob = users.create_user("bob", "bob@example.com", PASSWORD, display_name="Bob")
    room = services.room_create(host=alice, preset="seven-half", currency="beans")
    night = services.room_create(host=alice, preset="ten-half", currency="beans")
    for user in (alice, bob):
        services.seat_take(room_id=night.pk, user=user, buy_in=500)
    services.room_close(room_id=night.pk, by=alice)
    night.refresh_from_db()
    link = ledger_shares.ledger_share_create(room=night, by=alice)
    context, page, errors = logged_in_phone(browser, server, alice, lang)

    # The invite, from the table.
    page.goto(server + room.get_absolute_url())
    assert page.evaluate("() => document.documentElement.lang") == lang
    page.click("#share-invite")
    page.wait_for_function("() => window.__shared.length === 1")
    names = {"name": "Alice Wu", "game": game_name(lang, "seven-half"), "code": room.code}
    [sent], copied = recorded(page)
    assert sent == {"title": po_gettext(lang, INVITE_TITLE) % names, "text": po_gettext(lang, INVITE_TEXT) % names,
                    "url": f"{server}/join/{room.invite_token}/?lang={lang}", "files": []}
    if lang != "en" and po_gettext(lang, INVITE_TEXT) != INVITE_TEXT:
        assert sent["text"] != INVITE_TEXT % names
    assert copied == [] and status(page).is_hidden()
    fits(page)
    page.screenshot(path=str(SHOTS / f"invite-{lang}-360.png"))
    check_fallbacks(page, "#share-invite", sent["url"], lang, f"invite-{lang}-360")
    assert page.evaluate("() => window.__csp") == []

    # The settle-up, from the ledger page: the words, the link and the card.
    page.goto(server + reverse("games:room_ledger", args=[night.code]) + f"?room={night.pk}")
    button = "#share-links .share-button"
    page.click(button)
    page.wait_for_function("() => window.__shared.length === 1")
    [sent], copied = recorded(page)
    with_day = {"game": game_name(lang, "ten-half"), "code": night.code, "day": day_of(lang, night)}
    card = page.request.get(server + reverse("games:ledger_shared_png", args=[link.token]))
    assert card.status == 200 and card.headers["content-type"] == "image/png"
    assert sent == {"title": po_gettext(lang, SETTLE_TITLE) % with_day, "text": po_gettext(lang, SETTLE_TEXT) % with_day,
                    "url": f"{server}{link.get_absolute_url()}?lang={lang}",
                    "files": [{"name": f"halfpoint-{night.code}-settle-up.png", "type": "image/png",
                               "size": len(card.body())}]}
    assert sent["files"][0]["size"] > 0 and copied == []
    fits(page)
    page.locator("#share").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"settle-{lang}-360.png"))
    check_fallbacks(page, button, sent["url"], lang, f"settle-{lang}-360")
    assert page.evaluate("() => window.__csp") == []
    assert not errors, errors
    context.close()

