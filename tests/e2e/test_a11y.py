"""Accessibility in a real browser: axe-core (axe-playwright-python) over the lobby, the table with a hand under
way, the records, a hand record and the wallet, failing on serious or critical violations; and a hand played
with the keyboard alone (Tab to reach a control, Enter or Space to press it)."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from games.models import Hand
from tests.e2e.conftest import play_out

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BLOCKING = ("serious", "critical")
axe = Axe()


def violations(page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, one line each (rule, impact, where)."""
    results = axe.run(page)
    found = []
    for v in results.response["violations"]:
        if v["impact"] in BLOCKING:
            for node in v["nodes"][:6]:
                why = "; ".join(check["message"] for check in node["any"] + node["all"] + node["none"])
                found.append(f"{v['id']} ({v['impact']}) at {' '.join(map(str, node['target']))}: {why}")
    return found


def start_and_open_bank(host, amount=400):
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    host.page.fill("#amount-bank", str(amount))
    host.click_enabled("#act-open_bank")


def test_no_serious_or_critical_axe_violation_on_the_main_pages(server, players):
    alice = players(server, "alice").signup()
    bob = players(server, "bob", viewport={"width": 360, "height": 740}).signup()
    found: dict[str, list[str]] = {}
    found["lobby"] = violations(alice.goto("/lobby/"))
    alice.page.locator("#rules-stats").get_by_text("Banker's edge").wait_for()
    found["lobby, statistics shown"] = violations(alice.page)
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(None, buy_in=500)
    start_and_open_bank(alice)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    found["table, betting (360 px)"] = violations(bob.page)
    bob.click_enabled("#actions .chips button:nth-child(1)")
    bob.click_enabled("#act-confirm")
    bob.wait_view("v.phase === 'playing'")
    alice.wait_view("v.phase === 'playing'")
    found["table, playing (1280 px)"] = violations(alice.page)
    found["table, playing (360 px)"] = violations(bob.page)
    bob.screenshot("a11y-table-playing-360")
    play_out([alice, bob])
    alice.page.wait_for_selector("#results-table")
    found["table, results"] = violations(alice.page)
    hand = Hand.objects.get(room__code=code, number=1)
    found["hand record"] = violations(bob.goto(f"/hands/{hand.key}/"))
    bob.screenshot("a11y-hand-record-360")
    found["records"] = violations(bob.goto("/records/"))
    found["wallet (360 px)"] = violations(bob.goto("/wallet/"))
    found["wallet (1280 px)"] = violations(alice.goto("/wallet/"))
    for name, page in (("wallet-360", bob), ("wallet-1280", alice)):
        page.screenshot(f"a11y-{name}")
    failures = {page: lines for page, lines in found.items() if lines}
    assert not failures, "\n".join(f"{page}:\n  " + "\n  ".join(lines) for page, lines in failures.items())


def tab_to(player, selector: str, presses: int = 120) -> None:
    """Press Tab until the focused element matches `selector` (enabled); fails if Tab never reaches it."""
    page = player.page
    matches = f"(() => {{ const a = document.activeElement; return !!a && a.matches({selector!r}) && !a.disabled; }})()"
    for _ in range(presses):
        if page.evaluate(matches):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def press(player, selector: str, key: str, until: str) -> None:
    """Reach `selector` with Tab and press `key` on it, again if the table redrew it first, until the view
    condition `until` holds."""
    for _ in range(5):
        tab_to(player, selector)
        player.page.keyboard.press(key)
        try:
            player.wait_view(until, timeout=3000)
            return
        except Exception:  # redrawn under the focus before the key landed: reach it again
            continue
    raise AssertionError(f"{key} on {selector} never led to {until}")


def test_a_hand_played_with_the_keyboard_alone(server, players):
    alice = players(server, "alice").signup()
    bob = players(server, "bob").signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    # bob: Tab and Enter or Space only, from taking a seat to standing on his turn.
    tab_to(bob, "button[data-sit]")
    bob.page.keyboard.press("Enter")
    assert bob.page.evaluate("document.activeElement.id") == "sit-buy-in"  # the dialog takes the focus
    bob.page.keyboard.press("Control+A")
    bob.page.keyboard.type("500")
    tab_to(bob, "#sit-confirm")
    bob.page.keyboard.press("Enter")
    bob.wait_view("!!v.you")
    start_and_open_bank(alice)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    tab_to(bob, "#actions .chips button")
    bob.page.keyboard.press("Space")  # a chip: the bet grows, not yet sent
    bob.page.wait_for_function("document.querySelector('#bet-box').value === '20'")  # the base stake + 10
    press(bob, "#act-confirm", "Enter", "v.phase === 'playing'")
    over = "v.hand && v.hand.over"
    for _ in range(40):
        if alice.page.evaluate("(() => { const v = window.halfpoint.state.view; return !!(v.hand && v.hand.over); })()"):
            break
        if bob.my_turn():
            press(bob, "#act-stand", "Enter", f"({over}) || !v.hand.turn || v.hand.turn.seat !== v.you")
        elif alice.my_turn():
            alice.click_enabled("#act-stand")
            alice.page.wait_for_function("!window.halfpoint.state.busy")
        else:
            alice.page.wait_for_timeout(100)
    bob.wait_view(over)
    bob.page.wait_for_selector("#results-table")
    assert bob.page.locator("#results-table tr[data-outcome]").count() == 1
    hand = Hand.objects.get(room__code=code, number=1)
    assert hand.ended_at is not None
    # Every control bob used showed where the focus was (a visible focus ring, not `outline: none`).
    tab_to(bob, "#menu-button")
    ring = bob.page.evaluate("(() => { const s = getComputedStyle(document.activeElement);"
                             " return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0"
                             " || s.boxShadow !== 'none'; })()")
    assert ring, "the focused control shows no focus ring"
