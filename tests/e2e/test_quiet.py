"""A quiet table, for the eyes and for screen readers (Chromium, 360 x 740 unless said):

- no 64-digit code shows on the table page outside the menu's "Fair deal" tab: the table has a one-line summary
  (#fair-summary) whose Details button opens that tab, where the commitment, the seeds and the server seed are;
- the key hints (H, S, Enter) show only once a keyboard is used: never on a touch screen, after a key press on a
  desktop, not for a key typed into a text field;
- the ledger page says that its table scrolls sideways when it is wider than the screen (a fade at the edge with more
  behind it and a hint line), and says nothing when it fits;
- a phone on its side (740 x 360) at the player's turn has the bank's seat and their own both in view;
- the live regions speak over a 15 s turn only at the moments of the countdown the player chose in the menu (10 s
  and 5 s by default, 5 s only, never) and the turn's own lines; the turn moves the focus to its first action (the bet
  box, Hit) and Confirm is one Tab from the bet box.

Screenshots at 360 and 1280 px and on a phone's side go to test-artifacts/quiet-*.png.
"""

import re
import time

import pytest

from tests.e2e.conftest import ARTIFACTS, TIMEOUT_MS, Player, play_out
from tests.e2e.test_a11y import violations
from tests.e2e.test_layout import FRAMES, last_challenger_turn, log_in, open_at, seat_players
from tests.e2e.test_layout import drive as drive_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
WIDE = {"width": 1280, "height": 900}

# Every piece of hex of 16 digits or more that a person could see or a screen reader read on the page (text, a
# field's value, a title or a label), outside the menu's Fair deal tab: "where: text" each.
HEX_SHOWN = r"""() => {
  const hex = /[0-9a-f]{16,}/i;
  const shown = (el) => el.checkVisibility({ visibilityProperty: true }) || !!el.closest(".visually-hidden");
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (hex.test(n.textContent) && !el.closest("#fair-panel") && shown(el)) out.push(`${el.tagName}#${el.id}: ${n.textContent.trim().slice(0, 80)}`);
  }
  for (const el of document.body.querySelectorAll("input, [title], [aria-label]")) {
    const text = [el.value, el.title, el.getAttribute("aria-label")].filter(Boolean).join(" ");
    if (hex.test(text) && !el.closest("#fair-panel") && shown(el)) out.push(`${el.tagName}#${el.id}: ${text.slice(0, 80)}`);
  }
  return out;
}"""


def shot(player, name: str, full: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    player.page.screenshot(path=str(ARTIFACTS / f"quiet-{name}.png"), full_page=full)


def open_bank(host, amount=400):
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    host.page.fill("#amount-bank", str(amount))
    host.click_enabled("#act-open_bank")


def one_line(player, selector: str) -> bool:
    """The element's first and last pieces stand on one line (their vertical middles within a few pixels)."""
    return player.page.evaluate("""(sel) => {
        const kids = [...document.querySelector(sel).children];
        const mid = (el) => { const r = el.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
        return Math.abs(mid(kids[0]) - mid(kids[kids.length - 1])) < 8;
    }""", selector)


def test_the_table_shows_no_hex_code_outside_the_fair_deal_tab(server, players):
    alice = players(server, "alice", viewport=WIDE).signup()
    bob = players(server, "bob", viewport=PHONE).signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(1, buy_in=500)

    # Before the first card: one line on the table, the codes in the tab it opens.
    for p in (alice, bob):
        p.wait_view("v.fair_deal && v.fair_deal.open")
        assert p.page.evaluate(HEX_SHOWN) == [], p.name
        summary = p.page.locator("#fair-summary")
        assert summary.is_visible() and "hand 1" in summary.inner_text()
        assert one_line(p, "#fair-summary"), p.name
    shot(bob, "table-before-the-first-card-360")
    shot(alice, "table-before-the-first-card-1280")
    bob.page.click("#fair-details")
    assert bob.page.locator("#tab-fair").get_attribute("aria-selected") == "true"
    commitment = bob.page.locator("#fair-commitment")
    commitment.wait_for()  # the tab is drawn by static/js/fair-menu.js once it opens
    assert commitment.is_visible() and re.fullmatch(r"[0-9a-f]{64}", commitment.inner_text())
    assert commitment.inner_text() == bob.view()["fair_deal"]["commitment"]
    assert bob.page.locator("#fair-seeds").is_visible()
    shot(bob, "fair-tab-360", full=False)
    bob.page.click("#menu-close")

    # Betting and playing: still none.
    open_bank(alice)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('bet')")
    assert bob.page.evaluate(HEX_SHOWN) == []
    bob.click_enabled("#act-confirm")
    bob.wait_view("v.phase === 'playing'")
    for p in (alice, bob):
        assert p.page.evaluate(HEX_SHOWN) == [], p.name
    play_out([alice, bob])

    # The hand over: the summary links to the hand's check; its server seed is in the tab.
    for p in (alice, bob):
        p.wait_view("v.hand && v.hand.over && !!v.seed")
        p.page.wait_for_selector("#fair-verify")
        assert p.page.evaluate(HEX_SHOWN) == [], p.name
        assert one_line(p, "#fair-summary"), p.name
    assert bob.page.locator("#fair-verify").get_attribute("href").startswith(f"/r/{code}/hands/1/")
    shot(bob, "table-after-the-hand-360")
    shot(alice, "table-after-the-hand-1280")
    alice.page.click("#fair-details")
    seed = alice.page.locator("#fair-server-seed")
    seed.wait_for()
    assert seed.is_visible() and seed.inner_text() == alice.view()["seed"]
    shot(alice, "fair-tab-after-the-hand-1280", full=False)
    assert violations(alice.page) == []


def touch_player(browser, base: str, name: str, requests: list[str]) -> Player:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-US", bypass_csp=True)
    context.on("request", lambda r: requests.append(r.url))
    return Player(context, base, name, requests)


def kbd_shown(player, selector: str) -> bool:
    return player.page.locator(f"{selector} kbd").is_visible()


def test_key_hints_show_only_once_a_keyboard_is_used(server, players, browser):
    alice = players(server, "alice", viewport=WIDE).signup()  # a desktop: the banker, who plays last
    requests: list[str] = []
    bob = touch_player(browser, server, "bob", requests).signup()  # a phone
    try:
        code = alice.create_room("ten-half")
        bob.join(code)
        alice.sit(0)
        bob.sit(1, buy_in=500)
        open_bank(alice)
        bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('bet')")
        # A phone's bet: Confirm takes the focus, not the box (which would raise the on-screen keyboard); no hint.
        bob.page.wait_for_function("document.activeElement && document.activeElement.id === 'act-confirm'")
        assert bob.page.locator("#act-confirm").is_visible() and not kbd_shown(bob, "#act-confirm")
        # Typing into a text field (the chat, on the on-screen keyboard) shows no hint either.
        bob.page.tap("#menu-button")
        bob.page.tap("#tab-chat")
        bob.page.locator("#chat-input").press_sequentially("hi there")
        bob.page.keyboard.press("Enter")
        bob.page.tap("#menu-close")
        assert not kbd_shown(bob, "#act-confirm")
        bob.page.tap("#act-confirm")
        bob.wait_view("v.phase === 'playing'")

        def phone_turn():
            bob.page.wait_for_selector("#act-hit:not([disabled])")
            assert bob.page.locator("#act-hit").is_visible()
            assert not kbd_shown(bob, "#act-hit") and not kbd_shown(bob, "#act-stand")
            shot(bob, "touch-turn-360", full=False)
            bob.page.tap("#act-stand")

        def desktop_turn():  # no hints until a key is pressed, then H and S show (kept on a reload), and S stands
            alice.page.wait_for_selector("#act-stand:not([disabled])")
            assert alice.page.evaluate("document.activeElement.id") == "act-hit"  # the turn's first action
            assert not kbd_shown(alice, "#act-hit") and not kbd_shown(alice, "#act-stand")
            alice.page.keyboard.press("Tab")
            assert kbd_shown(alice, "#act-hit") and kbd_shown(alice, "#act-stand")
            assert alice.page.locator("#act-hit kbd").inner_text() == "H"
            shot(alice, "keyboard-turn-1280", full=False)
            alice.page.reload()
            alice.wait_connected()
            alice.page.wait_for_selector("#act-stand:not([disabled])")
            assert kbd_shown(alice, "#act-stand")
            alice.page.keyboard.press("s")

        played = []
        for _ in range(400):  # the dice choose who plays first
            if alice.page.evaluate("!!window.halfpoint.state.view.hand.over"):
                break
            if bob.my_turn() and "bob" not in played:
                phone_turn()
                played.append("bob")
            elif alice.my_turn() and "alice" not in played:
                desktop_turn()
                played.append("alice")
            else:
                alice.page.wait_for_timeout(50)
        assert sorted(played) == ["alice", "bob"]
        alice.wait_view("v.hand && v.hand.over")
    finally:
        bob.context.close()


def test_the_ledger_page_says_it_scrolls_when_its_table_is_wider_than_the_screen(server, players):
    alice = players(server, "alice", viewport=PHONE).signup()
    bob = players(server, "bob", viewport=WIDE).signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(1, buy_in=500)
    state = """() => { const box = document.querySelector('#ledger-scroll');
        return { over: box.scrollWidth > box.clientWidth, end: box.classList.contains('more-end'),
                 start: box.classList.contains('more-start'), mask: getComputedStyle(box).maskImage }; }"""
    page = alice.goto(f"/r/{code}/ledger/")
    page.wait_for_selector("#ledger tbody tr")
    hint = page.locator("#ledger-scroll-hint")
    hint.wait_for(state="visible")
    got = page.evaluate(state)
    assert got["over"] and got["end"] and not got["start"] and "gradient" in got["mask"]
    assert "Scroll sideways" in hint.inner_text() and hint.bounding_box()["width"] > 0
    alice.screenshot("quiet-ledger-360")
    # Scrolled to its end: the fade moves to the start, and the hint stays while the table is wider than the screen.
    page.evaluate("document.querySelector('#ledger-scroll').scrollLeft = 10000")
    page.wait_for_function("document.querySelector('#ledger-scroll').classList.contains('more-start')")
    got = page.evaluate(state)
    assert got["start"] and not got["end"] and hint.is_visible()
    assert violations(page) == []
    # A wide screen: everything fits, nothing is said.
    page = bob.goto(f"/r/{code}/ledger/")
    page.wait_for_selector("#ledger tbody tr")
    got = page.evaluate(state)
    assert not got["over"] and not got["end"] and not got["start"] and got["mask"] == "none"
    assert not page.locator("#ledger-scroll-hint").is_visible()
    bob.screenshot("quiet-ledger-1280")
    # The same page narrowed to a phone's width without a reload: the hint comes back.
    page.set_viewport_size(PHONE)
    page.locator("#ledger-scroll-hint").wait_for(state="visible")
    assert page.evaluate(state)["end"]


IN_VIEW = """(sel) => { const el = document.querySelector(sel); if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight; }"""


@pytest.mark.parametrize("preset, overrides, mains", [("ten-half", {}, 4), ("seven-half", {"max_main_seats": 8}, 8)])
def test_a_phone_on_its_side_shows_the_bank_and_the_players_own_seat_at_their_turn(
        preset, overrides, mains, server, browser, settings, monkeypatch):
    room, users = seat_players(settings, monkeypatch, preset, overrides, mains, 0)
    player, _v = drive_table(room, users, last_challenger_turn)
    context = browser.new_context(locale="en-US", bypass_csp=True)
    log_in(context, server, player)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    mine = "v.phase === 'playing' && v.hand.turn && v.hand.turn.seat === v.you"
    url = server + room.get_absolute_url()
    found = {}
    for label, size, reload in (("740x360", (740, 360), True), ("844x390", (844, 390), True),
                                ("360x740", (360, 740), True), ("turned-740x360", (740, 360), False)):
        if reload:
            open_at(page, url, size, mine)
        else:  # the phone turned on its side mid-turn, no reload
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.evaluate(FRAMES)
        page.evaluate(FRAMES)
        found[label] = (page.evaluate(IN_VIEW, "#seats .seat.me"), page.evaluate(IN_VIEW, "#seats .seat.banker"))
        page.screenshot(path=str(ARTIFACTS / f"quiet-{preset}-{label}-turn.png"))
    context.close()
    assert all(me and bank for me, bank in found.values()), found


# Every change a screen reader would hear: text added to a live region (aria-live, or the roles status, alert and
# log), one entry each, with the region's id and the text.
LISTEN = """() => {
  window.__heard = [];
  const live = '[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]';
  const watch = new MutationObserver((records) => {
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const region = node && node.closest(live);
      if (!region) continue;
      if (r.type === 'characterData') window.__heard.push([region.id, r.target.textContent]);
      for (const added of r.addedNodes) if (added.textContent.trim()) window.__heard.push([region.id, added.textContent]);
    }
  });
  watch.observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


def heard(player) -> list[list[str]]:
    return player.page.evaluate("window.__heard")


def tabs_to(player, selector: str, most: int = 10) -> int:
    """How many Tab presses take the focus from where it is to `selector`."""
    for n in range(most + 1):
        if player.page.evaluate(f"document.activeElement.matches({selector!r})"):
            return n
        player.page.keyboard.press("Tab")
    raise AssertionError(f"{selector} is more than {most} Tab stops away")


def test_a_turn_is_heard_at_the_chosen_moments_and_takes_the_focus(server, players):
    alice = players(server, "alice", viewport=WIDE).signup()
    bob = players(server, "bob", viewport=PHONE).signup()
    code = alice.create_room("ten-half", bet_seconds=15, act_seconds=8)
    bob.join(code)
    alice.sit(0)
    bob.sit(1, buy_in=500)
    bob.page.click("#menu-button")
    assert bob.page.locator("#time-cue").input_value() == "10,5"  # the default: at 10 s and 5 s
    bob.page.click("#menu-close")
    bob.page.evaluate(LISTEN)

    # bob's bet is due, 15 s: the focus is on the bet box, Confirm the next Tab stop; over the whole 15 s the
    # live regions say the 10 s and the 5 s left, and the turn's own lines, nothing else.
    open_bank(alice)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('bet')")
    started = time.monotonic()
    bob.page.wait_for_function("document.activeElement && document.activeElement.id === 'bet-box'")
    assert tabs_to(bob, "#act-confirm") == 1
    bob.page.wait_for_function("!!document.querySelector('#countdown') && document.querySelector('#countdown').textContent === '0 s'",
                               timeout=20_000)
    bob.page.wait_for_timeout(max(0, int((started + 16 - time.monotonic()) * 1000)))
    said = heard(bob)
    times = [text for region, text in said if region == "time-live"]
    own = [text for region, text in said if region == "feed-live"]
    assert times == ["10 seconds left", "5 seconds left"], said
    assert len(own) <= 2 and len(said) == len(times) + len(own), said
    shot(bob, "bet-due-360", full=False)

    # The menu's choice, "at 5 s only", remembered; the 8 s playing turn says 5 s once, and the focus is on Hit.
    bob.page.click("#menu-button")
    bob.page.select_option("#time-cue", "5")
    shot(bob, "menu-time-cue-360", full=False)
    bob.page.click("#menu-close")
    assert bob.page.evaluate("localStorage.getItem('halfpoint.timeCue')") == "5"
    bob.page.focus("#act-confirm")
    bob.page.evaluate("window.__heard = []")
    bob.page.keyboard.press("Enter")
    bob.wait_view("v.phase === 'playing'")
    for _ in range(200):
        if bob.my_turn() or alice.page.evaluate("!!window.halfpoint.state.view.hand.over"):
            break
        if alice.my_turn():
            alice.click_enabled("#act-stand")
        alice.page.wait_for_timeout(50)
    assert bob.my_turn()
    started = time.monotonic()
    bob.page.wait_for_function("document.activeElement && document.activeElement.id === 'act-hit'")
    bob.page.wait_for_function("!!document.querySelector('#countdown') && document.querySelector('#countdown').textContent === '0 s'",
                               timeout=15_000)
    bob.page.wait_for_timeout(max(0, int((started + 9 - time.monotonic()) * 1000)))
    said = heard(bob)
    assert [text for region, text in said if region == "time-live"] == ["5 seconds left"], said
    own = [text for region, text in said if region == "feed-live"]  # the bet, the card dealt, "Your turn."
    assert len(own) <= 3 and any("Your turn." in text for text in own), said
    assert all(region in ("time-live", "feed-live") for region, _text in said), said
    # Never: nothing is said, even past both moments; at 10 s and 5 s, a tab that slept past both says the time once.
    bob.page.click("#menu-button")
    bob.page.select_option("#time-cue", "")
    slept = """async () => { const cues = await import('/static/js/cues.js');
        const live = document.querySelector('#time-live');
        live.textContent = '';
        cues.timeCue(1, 12); cues.timeCue(1, 3);  // one deadline, seen at 12 s left, then at 3 s
        return [cues.timeMoments(), [...live.children].map((p) => p.textContent)]; }"""
    assert bob.page.evaluate(slept) == [[], []]
    bob.page.select_option("#time-cue", "10,5")
    assert bob.page.evaluate(slept) == [[10, 5], ["3 seconds left"]]
    bob.page.select_option("#time-cue", "")
    bob.page.reload()
    bob.wait_connected()
    bob.page.click("#menu-button")
    assert bob.page.locator("#time-cue").input_value() == ""
