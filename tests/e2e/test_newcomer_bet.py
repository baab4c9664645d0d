"""The bet box on a phone (360 x 740), in Chinese, Italian and Spanish: each hand starts with the previous stake (the
base stake the first time), Confirm is disabled on an amount the table would refuse and the reason stands under the
box, never over the buttons; ten hands in a row where the player confirms each one have no timeout default.

Practice tables (bots with no pause: tests/e2e/conftest.py) keep it fast; the host's "Deal the next hand now" deals
each next hand. Screenshots go to test-artifacts/newcomer/."""

import re

import pytest

from games.models import HandEvent, Room
from tests.e2e.conftest import ARTIFACTS, Player

pytestmark = pytest.mark.e2e

SHOTS = ARTIFACTS / "newcomer"
PHONE = {"width": 360, "height": 740}
# One game a language: the three games whose challengers choose their stake (Zhejiang's is fixed).
CASES = [("zh-hans", "ban-luck"), ("it", "seven-half"), ("es", "ten-half")]
HANDS = 10


def phone_player(browser, server: str, name: str, lang: str) -> Player:
    """A new player on a phone whose browser asks for `lang` (Accept-Language, as test_languages.py does)."""
    context = browser.new_context(viewport=PHONE, locale={"zh-hans": "zh-CN"}.get(lang, lang), bypass_csp=True)
    return Player(context, server, name, [])


def rect(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def overlaps(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] \
        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def wait_for_betting(player: Player, number: int) -> None:
    """Until hand `number` asks this player for a stake; a practice bank offered on the way (after five hands) is
    declined."""
    page = player.page
    page.wait_for_function(
        "(n) => { const v = window.halfpoint.state.view; return !!v && ((v.phase === 'betting' && v.hand.no === n"
        " && v.legal_actions.includes('bet')) || v.legal_actions.includes('decline_bank')); }", arg=number)
    if player.view()["phase"] == "bank_decision":
        player.click_enabled("#act-decline_bank")
        player.click_enabled("#host-start")  # a bot keeps the bank; the host deals
        wait_for_betting(player, number)


def play_hand_out(player: Player) -> None:
    """Stand when standing is allowed, else hit (Chinese Blackjack below 16), until the hand is over."""
    page = player.page
    while True:
        page.wait_for_function(
            "() => { const v = window.halfpoint.state.view; return !window.halfpoint.state.busy && !!v && !!v.hand"
            " && (v.hand.over || v.legal_actions.includes('stand') || v.legal_actions.includes('hit')); }")
        legal = player.view()["legal_actions"]
        if player.view()["hand"]["over"]:
            return
        page.click("#act-stand" if "stand" in legal else "#act-hit")
        page.wait_for_function("!window.halfpoint.state.busy")


def check_refusals(player: Player, lang: str, game: str) -> None:
    """0 and an amount above the largest stake: Confirm disabled, the reason under the box, clear of the buttons."""
    page = player.page
    reasons = set()
    for amount, name in (("0", "zero"), ("100000", "above-max")):  # 100000: a multiple of every base stake
        page.fill("#bet-box", amount)
        page.wait_for_selector("#act-confirm[disabled]")
        why = page.locator("#bet-why")
        assert why.is_visible() and why.inner_text().strip(), (lang, amount)
        reasons.add(why.inner_text())
        box, reason = rect(page, "#bet-box"), rect(page, "#bet-why")
        assert 0 <= reason["y"] - (box["y"] + box["height"]) < 40, (box, reason)  # just under the box
        for button in ("#act-confirm", "#act-leave", "#act-reset"):
            assert not overlaps(reason, rect(page, button)), (button, reason)
        assert page.locator("#toast").is_hidden()  # nothing covers the buttons
        page.click("#act-confirm", force=True)  # a tap on the disabled button sends nothing
        assert player.view()["hand"]["bets"][player.view()["you"]]["confirmed"] is False
        page.locator("#actions").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"bet-{lang}-{game}-refused-{name}.png"))
    assert len(reasons) == 2, reasons  # too little and too much each say their own limit


@pytest.mark.parametrize(("lang", "game"), CASES)
def test_the_bet_stays_in_the_box_and_ten_confirmed_hands_take_no_default(browser, server, lang, game):
    SHOTS.mkdir(parents=True, exist_ok=True)
    mei = phone_player(browser, server, f"mei{lang.replace('-', '')}", lang).signup()
    page = mei.goto("/lobby/")
    page.click(f"button[data-practice='{game}']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.wait_connected()
    assert page.evaluate("document.documentElement.lang") == lang

    rules = mei.view()["rules"]
    base, chip = rules["base_stake"], min(rules["chip_values"])
    confirmed, previous = {}, None
    for number in range(1, HANDS + 1):
        wait_for_betting(mei, number)
        shown = page.input_value("#bet-box")
        assert shown == str(previous or base), (number, shown, previous)  # the previous stake, or the base the first time
        assert page.locator("#act-confirm").is_enabled() and page.locator("#bet-why").is_hidden()
        if number == 2:
            page.screenshot(path=str(SHOTS / f"bet-{lang}-{game}-hand2.png"))
            page.set_viewport_size({"width": 1280, "height": 900})
            page.screenshot(path=str(SHOTS / f"bet-{lang}-{game}-hand2-1280.png"))
            page.set_viewport_size(PHONE)
            check_refusals(mei, lang, game)
        # The player changes the stake now and then: chips after Reset, a typed amount, or the box as it is.
        if number % 3 == 2:
            page.click("#act-reset")
            page.wait_for_selector("#act-confirm[disabled]")
            page.click(f"#act-chip-{chip}")
            page.click(f"#act-chip-{chip}")
            stake = 2 * chip
        elif number % 3 == 0:
            stake = 3 * base
            page.fill("#bet-box", str(stake))
        else:
            stake = int(shown) if number > 2 else base
            page.fill("#bet-box", str(stake))
        assert page.input_value("#bet-box") == str(stake)
        mei.click_enabled("#act-confirm")
        mei.wait_view("v.hand.no > " + str(number) + " || (v.hand.bets[v.you] && v.hand.bets[v.you].confirmed)")
        confirmed[number] = stake
        previous = stake
        play_hand_out(mei)
        if number < HANDS:
            mei.click_enabled("#host-start")

    room = Room.objects.get(code=re.search(r"/r/(\d{4})/", page.url).group(1), status=Room.Status.OPEN)
    seat = mei.view()["you"]
    events = HandEvent.objects.filter(room=room, hand__number__lte=HANDS)
    assert not events.filter(type="bet_defaulted", data__seat=seat).exists()
    placed = {e.hand.number: e.data["amount"] for e in events.filter(type="bet_confirmed", data__seat=seat)
              .select_related("hand")}
    assert placed == confirmed
    errors = [e for e in mei.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
    mei.context.close()
