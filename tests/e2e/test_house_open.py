"""The banker opens hands one by one (house-rules.md, `banker_opens`), in Chromium at 360×740, in four languages: a
newcomer's practice table of the preset `ban-luck-opens` offers them the bank (moves.PRACTICE_BANK_OFFER_AFTER, made
due at once here by the table's own bookkeeping), they take it, draw at their turn until the rule lets them open, read
what the rule lets them do, open a challenger's hand with the Open button on that seat, and the feed tells the open
and its result in their language (static/js/house-open.js; the words: docs/glossary.md, 开牌)."""

import re
import time

import pytest
from django.contrib.auth import get_user_model

from games.models import Room, Table
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_languages import player_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
# The texts of static/js/house-open.js in each language (the catalogs' msgstr, /work/brief/tr-open.py until merged).
TEXTS = {
    "en": {"button": "Open",
           "opens": "%(banker)s opens %(name)s's hand: it is settled now against the bank's %(bank)s.",
           "results": ["%(name)s wins ×%(mult)s, +%(paid)s: opened, %(hand)s beats the bank's %(bank)s.",
                       "%(name)s loses ×%(mult)s, −%(paid)s: opened, the bank's %(bank)s beats %(hand)s.",
                       "%(name)s: push, the stake of %(stake)s stays: opened, %(hand)s against the bank's %(bank)s."],
           "note": "Open a challenger's hand on their seat"},
    "zh-hans": {"button": "开牌",
                "opens": "%(banker)s 开了 %(name)s 的牌：按庄家现在的 %(bank)s 立即结算。",
                "results": ["%(name)s 赢 ×%(mult)s，+%(paid)s：开牌，%(hand)s 胜庄家的 %(bank)s。",
                            "%(name)s 输 ×%(mult)s，−%(paid)s：开牌，庄家的 %(bank)s 胜 %(hand)s。",
                            "%(name)s：平局，%(stake)s 下注保留：开牌，%(hand)s 对庄家的 %(bank)s。"],
                "note": "在闲家的座位上开牌"},
    "it": {"button": "Scopri",
           "opens": "%(banker)s scopre la mano di %(name)s: si regola ora contro %(bank)s del banco.",
           "results": ["%(name)s vince ×%(mult)s, +%(paid)s: scoperta, %(hand)s batte %(bank)s del banco.",
                       "%(name)s perde ×%(mult)s, −%(paid)s: scoperta, %(bank)s del banco batte %(hand)s.",
                       "%(name)s: pareggio, la puntata di %(stake)s resta: scoperta, %(hand)s contro %(bank)s del banco."],
           "note": "Scopri la mano di un giocatore sul suo posto"},
    "es": {"button": "Destapar",
           "opens": "%(banker)s destapa la mano de %(name)s: se liquida ya contra la banca (%(bank)s).",
           "results": ["%(name)s gana ×%(mult)s, +%(paid)s: destapada, %(hand)s gana a la banca (%(bank)s).",
                       "%(name)s pierde ×%(mult)s, −%(paid)s: destapada, la banca (%(bank)s) gana a %(hand)s.",
                       "%(name)s: empate, la apuesta de %(stake)s se queda: destapada, %(hand)s contra la banca (%(bank)s)."],
           "note": "Destapa la mano de un jugador en su asiento"},
}
STATE = "(() => { const v = window.halfpoint && window.halfpoint.state.view; if (!v) return ''; %s })()"
# What the page offers the newcomer now: the bank, the next hand, a bet to confirm, a draw or an open, or nothing yet.
NEXT = STATE % """
  const on = (sel) => !!document.querySelector(sel + ':not([disabled])');
  if (on('#act-take_bank')) return 'take';
  if (document.querySelector('[id^=act-open-]:not([disabled])')) return 'open';
  if (on('#act-confirm')) return 'confirm';
  if (v.hand && v.hand.turn && v.hand.turn.seat === v.you && on('#act-stand') && v.banker !== v.you) return 'stand';
  if (v.hand && v.hand.turn && v.hand.turn.seat === v.you && on('#act-hit')) return 'hit';
  if (on('#host-start')) return 'deal';
  return '';"""


def pattern(template: str) -> re.Pattern:
    """A feed line of `template` with any names and amounts in it."""
    return re.compile(re.sub(r"%\\\(\w+\\\)s", ".+?", re.escape(template)))


def make_the_bank_offer_due(room: Room) -> None:
    """The practice bank offer comes PRACTICE_BANK_OFFER_AFTER hands after the last: due at the next hand's start.
    Written while the table waits for the newcomer's own move (no command in flight), and only on the version read."""
    for _ in range(50):
        table = Table.objects.get(pk=room.pk)
        meta = dict(table.meta, bank_offered_at=-100)
        if Table.objects.filter(pk=room.pk, version=table.version).update(meta=meta):
            return
    raise AssertionError("the table kept changing")


def test_the_banker_opens_a_hand_and_the_feed_tells_it_in_four_languages(browser, server):
    for code in TEXTS:  # one server for the four: English first, then the catalogs' languages
        bank_and_open(browser, server, code)


def bank_and_open(browser, server, code: str) -> None:
    texts = TEXTS[code]
    user = get_user_model().objects.create_user(f"opener-{code}", f"opener-{code}@example.com", "a-long-password-1",
                                                language="" if code == "en" else code, display_name=f"Mei {code}")
    mei = player_in(browser, server, user, code, viewport=PHONE)
    page = mei.goto("/lobby/")
    page.click("button[data-practice='ban-luck-opens']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.wait_view("v.you && v.hand")
    room = Room.objects.filter(code=page.url.rstrip("/").rsplit("/", 1)[-1]).latest("pk")
    make_the_bank_offer_due(room)
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, f"no open came: {mei.view()['phase']}"
        page.wait_for_function(NEXT)
        step = page.evaluate(NEXT)
        if step == "open":
            break
        target = {"take": "#act-take_bank", "confirm": "#act-confirm", "stand": "#act-stand", "hit": "#act-hit",
                  "deal": "#host-start"}[step]
        version = page.evaluate("window.halfpoint.state.version")
        page.click(target)
        page.wait_for_function(f"window.halfpoint.state.version > {version} && !window.halfpoint.state.busy")
    v = mei.view()
    assert v["banker"] == v["you"] and v["hand"]["turn"]["seat"] == v["you"]
    assert page.locator("#open-note").inner_text().startswith(texts["note"])
    button = page.locator("[id^=act-open-]:not([disabled])").first
    assert button.inner_text().strip() == texts["button"]
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= PHONE["width"], f"the page is {scroll_width} px wide on a {PHONE['width']} px screen"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"house-open-{code}-decision.png"), full_page=True)
    button.click()
    page.locator("#feed li", has_text=pattern(texts["opens"])).first.wait_for(state="attached")
    results = "|".join(pattern(t).pattern for t in texts["results"])
    page.locator("#feed li", has_text=re.compile(results)).first.wait_for(state="attached")
    page.screenshot(path=str(ARTIFACTS / f"house-open-{code}-opened.png"), full_page=True)
    errors = [e for e in mei.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
    mei.context.close()
