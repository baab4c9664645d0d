"""Quick phrases and reactions in real browsers on 360 x 740 phones (static/js/phrases.js): three players, in English,
Chinese and Spanish, each read a phrase one of them taps in their own language at the sender's seat for two seconds;
a reaction is drawn there too; "Hide the others' phrases and reactions" keeps the others' away from that page (its
own stay); a tap too soon is refused in the page's own words; the banker's phrase is offered to the banker only; the
screen-reader mode says the others' in its chat region; a spectator may hide them and is told to sit to send any.
Screenshots of the panel and the bubbles at 360 and 1280 px go to test-artifacts/phrases/."""

import time
from pathlib import Path

import polib
import pytest
from django.contrib.auth import get_user_model

from games import services
from tests.e2e import test_csp
from tests.e2e.conftest import ARTIFACTS, PHONE, Player, log_in
from tests.e2e.test_a11y import OUTLINE, violations
from tests.e2e.test_csp import WATCH_CSP, logged_in, wait_js

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOCALE = Path(__file__).resolve().parents[2] / "locale"
SHOTS = ARTIFACTS / "phrases"
LOCALES = {"en": "en-US", "zh-hans": "zh-CN", "es": "es-ES"}
production_server = test_csp.production_server  # DEBUG=0 and the site's CSP: a fixture


# How long the page's first bubble stayed, in milliseconds, once it is gone: window.bubbleShown.
LIFETIME = """() => {
  let since = null;
  new MutationObserver((changes) => {
    for (const c of changes) {
      for (const n of c.addedNodes) if (n.classList && n.classList.contains("phrase-bubble")) since = performance.now();
      for (const n of c.removedNodes) if (n.classList && n.classList.contains("phrase-bubble") && since !== null
        && window.bubbleShown === undefined) window.bubbleShown = performance.now() - since;
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def words(code: str, msgid: str) -> str:
    """`msgid` of the context "quick phrase" as a page in `code` shows it (the djangojs catalog)."""
    if code == "en":
        return msgid
    po = polib.pofile(str(LOCALE / {"zh-hans": "zh_Hans"}.get(code, code) / "LC_MESSAGES" / "djangojs.po"))
    entry = po.find(msgid, msgctxt="quick phrase")
    assert entry is not None and entry.msgstr, (code, msgid)
    return entry.msgstr


def at_table(browser, server, user, room, code: str) -> Player:
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale=LOCALES[code])
    player = Player(context, server, user.username, [])
    log_in(context, server, user)
    player.goto(f"/r/{room.code}/")
    player.wait_view("!!v.you")
    assert player.page.evaluate("document.documentElement.lang") == code
    return player


def shot(player: Player, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    player.page.screenshot(path=str(SHOTS / f"{name}.png"))


def open_panel(player: Player):
    player.page.click("#phrases-button")
    panel = player.page.locator("#phrases")
    panel.wait_for()
    assert player.page.get_attribute("#phrases-button", "aria-expanded") == "true"
    return panel


def bubble_at(player: Player, seat: str, text: str):
    """The bubble over `seat` on `player`'s page, reading `text`, over the seat's box."""
    bubble = player.page.locator(f".phrase-bubble[data-seat='{seat}']")
    bubble.wait_for()
    assert bubble.inner_text() == text
    b = bubble.bounding_box()
    s = player.page.locator(f"#seats [data-seat='{seat}']").bounding_box()
    assert s["x"] <= b["x"] + b["width"] / 2 <= s["x"] + s["width"]  # centred over the seat
    assert b["y"] < s["y"] < b["y"] + b["height"]  # on its top edge
    assert 0 <= b["x"] and b["x"] + b["width"] <= player.page.viewport_size["width"]  # on the screen
    return bubble


def test_three_players_read_a_phrase_each_in_their_own_language_at_the_senders_seat(server, browser, here):
    make = get_user_model().objects.create_user
    cast = {"en": make("ann", "ann@example.com", "a-long-password-1", language="en", display_name="Ann"),
            "zh-hans": make("li", "li@example.com", "a-long-password-1", language="zh-hans", display_name="李"),
            "es": make("lola", "lola@example.com", "a-long-password-1", language="es", display_name="Lola")}
    room = services.room_create(host=cast["en"], preset="ten-half")
    for user in cast.values():
        services.seat_take(room_id=room.pk, user=user, buy_in=1000)
    pages = {code: at_table(browser, server, user, room, code) for code, user in cast.items()}
    ann, li, lola = pages["en"], pages["zh-hans"], pages["es"]
    seats = {code: p.page.evaluate("window.halfpoint.state.view.you") for code, p in pages.items()}

    # Ann opens the panel: the phrases in her language, no banker's phrase (nobody holds the bank), six reactions.
    panel = open_panel(ann)
    assert panel.locator("[data-phrase]").all_inner_texts() == [
        "Good luck!", "Hurry up!", "Nice hand!", "Well played!", "Thanks!", "One more hand?", "Be right back."]
    assert panel.locator("[data-reaction]").count() == 6
    assert panel.locator("[data-reaction='laugh']").get_attribute("aria-label") == "Laughing"
    box = panel.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["y"] + box["height"] <= PHONE["height"]  # the whole panel on the screen, nothing to scroll to
    shot(ann, "panel-360-en")
    assert ann.page.evaluate("document.activeElement.dataset.phrase") == "good_luck"  # the focus in the panel
    found = violations(ann.page) + ann.page.evaluate(OUTLINE)  # axe at every level, and the landmarks
    assert not found, found

    # One tap: sent, the panel closed, and each page reads it in its own language over Ann's seat.
    ann.page.evaluate(LIFETIME)
    panel.locator("[data-phrase='good_luck']").click()
    panel.wait_for(state="detached")
    for code, player in pages.items():
        bubble_at(player, seats["en"], words(code, "Good luck!"))
    assert words("zh-hans", "Good luck!") == "祝你好运！" and words("es", "Good luck!") == "¡Buena suerte!"
    shot(li, "bubble-360-zh-hans")
    found = li.page.evaluate(OUTLINE) + violations(li.page)  # the outline first, while the bubble shows
    assert not found, found
    # Gone two seconds later.
    for player in pages.values():
        player.page.locator(".phrase-bubble").wait_for(state="detached", timeout=4000)
    assert 1900 <= ann.page.evaluate("window.bubbleShown") < 2500

    # Li's panel in Chinese; a reaction drawn over Li's seat on every page.
    panel = open_panel(li)
    assert panel.locator("#phrases-title").inner_text() == words("zh-hans", "Quick phrases")
    assert panel.locator("[data-phrase='thanks']").inner_text() == words("zh-hans", "Thanks!")
    shot(li, "panel-360-zh-hans")
    panel.locator("[data-reaction='laugh']").click()
    for player in pages.values():
        bubble_at(player, seats["zh-hans"], "😂")
    # Too soon after it: refused in the page's own words, and nobody else sees anything.
    open_panel(li).locator("[data-phrase='hurry_up']").click()
    li.page.wait_for_function("document.querySelector('#toast').textContent.length > 0 && !document.querySelector('#toast').hidden")
    assert li.page.locator("#toast").inner_text() == words(
        "zh-hans", "One quick phrase or reaction every 2 seconds, 5 a minute: wait a moment.")

    # Lola hides the others' phrases and reactions: Li's next one reaches Ann and not her; her own still shows to her.
    panel = open_panel(lola)
    panel.locator("#phrases-hide").check()
    panel.locator("#phrases-close").click()
    panel.wait_for(state="detached")
    time.sleep(2.2)  # Li's two seconds between two
    open_panel(li).locator("[data-phrase='well_played']").click()
    bubble_at(ann, seats["zh-hans"], "Well played!")
    bubble_at(li, seats["zh-hans"], words("zh-hans", "Well played!"))
    assert lola.page.locator(".phrase-bubble").count() == 0
    open_panel(lola).locator("[data-phrase='one_more']").click()
    bubble_at(lola, seats["es"], words("es", "One more hand?"))
    bubble_at(ann, seats["es"], "One more hand?")
    shot(lola, "bubble-360-es")
    # The setting stays with the browser: the panel opens with it checked after a reload.
    lola.page.reload()
    lola.wait_view("!!v.you")
    assert open_panel(lola).locator("#phrases-hide").is_checked()

    # On a wide screen: the panel and a bubble.
    ann.page.set_viewport_size({"width": 1280, "height": 900})
    panel = open_panel(ann)
    box = panel.bounding_box()
    assert box["x"] + box["width"] <= 1280 and box["y"] >= 0
    shot(ann, "panel-1280-en")
    panel.locator("[data-reaction='clap']").click()
    bubble_at(ann, seats["en"], "👏")
    shot(ann, "bubble-1280-en")
    errors = [e for p in pages.values() for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors


def test_the_banker_is_offered_place_your_bets_and_a_spectator_in_screen_reader_mode_hears_it(server, browser, here):
    make = get_user_model().objects.create_user
    ann = make("ann", "ann@example.com", "a-long-password-1", language="en", display_name="Ann")
    bo = make("bo", "bo@example.com", "a-long-password-1", language="en", display_name="Bo")
    eve = make("eve", "eve@example.com", "a-long-password-1", language="en", display_name="Eve", screen_reader=True)
    room = services.room_create(host=ann, preset="ten-half")
    for user in (ann, bo):
        services.seat_take(room_id=room.pk, user=user, buy_in=1000)
    services.action_submit(room_id=room.pk, user=ann, action="start")
    services.action_submit(room_id=room.pk, user=ann, action="open_bank", args={"amount": 500})
    banker = at_table(browser, server, ann, room, "en")
    challenger = at_table(browser, server, bo, room, "en")
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale="en-US")
    watcher = Player(context, server, eve.username, [])
    log_in(context, server, eve)
    watcher.goto(f"/r/{room.code}/")
    watcher.wait_view("v.phase === 'betting'")

    panel = open_panel(banker)
    assert panel.locator("[data-phrase]").last.inner_text() == "Place your bets!"
    shot(banker, "panel-360-banker")
    panel.locator("[data-phrase='place_bets']").click()
    for player in (banker, challenger):
        bubble_at(player, banker.page.evaluate("window.halfpoint.state.view.you"), "Place your bets!")
    # The screen-reader mode (its table a document, no felt) says it in its chat region.
    watcher.page.locator("#blind-chat p", has_text="Ann says: Place your bets!").wait_for(state="attached")
    assert watcher.page.locator(".phrase-bubble").count() == 0
    assert open_panel(challenger).locator("[data-phrase='place_bets']").count() == 0
    # A spectator reads the others' phrases and may hide them, and is told to sit to send any.
    panel = open_panel(watcher)
    assert panel.locator("[data-phrase], [data-reaction]").count() == 0
    assert panel.locator("p").inner_text() == "Take a seat to send phrases and reactions."
    assert panel.locator("#phrases-hide").count() == 1
    shot(watcher, "panel-360-spectator")
    # A tap elsewhere closes it; the button opens it again.
    watcher.page.mouse.click(180, 300)
    panel.wait_for(state="detached")
    assert watcher.page.get_attribute("#phrases-button", "aria-expanded") == "false"
    panel = open_panel(watcher)
    # Escape closes the panel and gives the focus back to its button.
    watcher.page.keyboard.press("Escape")
    panel.wait_for(state="detached")
    assert watcher.page.evaluate("document.activeElement.id") == "phrases-button"
    errors = [e for p in (banker, challenger, watcher) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors


def test_under_the_production_csp_the_module_its_words_and_its_stylesheet_load_and_a_phrase_is_drawn(
        browser, production_server, settings, here):
    """DEBUG=0, the static files as collectstatic made them and the site's CSP (tests/e2e/test_csp.py): the lazy
    module, its catalog (/jsi18n/phrases/, a script it adds) and its stylesheet come in without a violation."""
    make = get_user_model().objects.create_user
    cast = {"zh-hans": make("li", "li@example.com", "a-long-password-1", language="zh-hans", display_name="李"),
            "en": make("ann", "ann@example.com", "a-long-password-1", language="en", display_name="Ann")}
    room = services.room_create(host=cast["en"], preset="ten-half")
    for user in cast.values():
        services.seat_take(room_id=room.pk, user=user, buy_in=1000)
    pages = {}
    for code, user in cast.items():
        context = browser.new_context(viewport=PHONE, locale=LOCALES[code])
        context.add_init_script(WATCH_CSP)
        pages[code] = player = Player(context, production_server, user.username, [])
        logged_in(player, user, settings)
        player.goto(f"/r/{room.code}/")
        wait_js(player.page, "window.halfpoint && window.halfpoint.state.view && window.halfpoint.state.view.you")
    li, ann = pages["zh-hans"], pages["en"]
    li.page.click("#phrases-button")
    li.page.locator("#phrases [data-phrase='good_luck']").click()
    for player, text in ((li, words("zh-hans", "Good luck!")), (ann, "Good luck!")):
        bubble = player.page.locator(".phrase-bubble")
        bubble.wait_for()
        assert bubble.inner_text() == text
        assert player.page.evaluate("getComputedStyle(document.querySelector('.phrase-bubble')).position") == "absolute"
    for player in pages.values():
        assert player.page.evaluate("window.__csp") == []
        assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
