"""Your-turn cues (static/js/cues.js): the sound toggle in the table menu is remembered; while the tab is hidden
the title flashes once it is the player's turn; the phone vibrates and, with the sound on, the beep plays when the
turn comes; the screen is kept awake while seated and let go on leaving.

The browser's hidden tab, vibration, audio and Wake Lock are stood in for by an init script: a headless page is
never hidden, and has no speaker or screen to keep awake."""

import pytest

from tests.e2e.conftest import play_out

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STAND_INS = """
window.__hidden = false;
Object.defineProperty(Document.prototype, "hidden", { configurable: true, get() { return window.__hidden; } });
Object.defineProperty(Document.prototype, "visibilityState", {
  configurable: true, get() { return window.__hidden ? "hidden" : "visible"; } });
window.__vibrations = [];
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };
window.__beeps = 0;
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() {}
  createOscillator() {
    return { type: "", frequency: { value: 0 }, connect: (n) => n, start: () => { window.__beeps += 1; }, stop() {} };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (n) => n };
  }
};
window.__locks = [];
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: { request: async (type) => {
  const lock = { type, released: false, release: async () => { lock.released = true; }, addEventListener() {} };
  window.__locks.push(lock);
  return lock;
} } });
"""


def hide(player, hidden: bool):
    player.page.evaluate(f"window.__hidden = {'true' if hidden else 'false'};"
                         " document.dispatchEvent(new Event('visibilitychange'))")


def open_menu(player):
    player.page.click("#menu-button")
    player.page.wait_for_selector("#turn-sound", state="visible")


def test_the_sound_toggle_is_off_at_first_and_remembered(server, players):
    alice = players(server, "alice").signup()
    alice.create_room("ten-half")
    page = alice.page
    open_menu(alice)
    assert not page.is_checked("#turn-sound")
    assert page.evaluate("localStorage.getItem('halfpoint.turnSound')") is None
    page.check("#turn-sound")
    assert page.evaluate("localStorage.getItem('halfpoint.turnSound')") == "1"
    page.reload()
    alice.wait_connected()
    open_menu(alice)
    assert page.is_checked("#turn-sound")
    page.uncheck("#turn-sound")
    page.reload()
    alice.wait_connected()
    open_menu(alice)
    assert not page.is_checked("#turn-sound")
    alice.screenshot("cues-menu-toggle")


def test_the_title_flashes_in_a_hidden_tab_when_the_turn_comes(server, players):
    alice = players(server, "alice").signup()
    bob = players(server, "bob", viewport={"width": 360, "height": 740})
    bob.context.add_init_script(STAND_INS)
    bob.signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    bob.page.evaluate("localStorage.setItem('halfpoint.turnSound', '1')")
    bob.page.reload()
    bob.wait_connected()
    title = bob.page.title()
    assert bob.page.evaluate("window.__locks.length") == 0  # not seated: nothing keeps the screen awake
    alice.sit(0)
    bob.sit(None, buy_in=500)
    bob.page.wait_for_function("window.__locks.length === 1 && !window.__locks[0].released")
    hide(bob, True)
    alice.click_enabled("#host-start")
    alice.wait_view("v.legal_actions.includes('open_bank')")
    bob.page.wait_for_timeout(1200)  # a whole flash period: no turn of bob's yet, so the title stays
    assert bob.page.title() == title and bob.page.evaluate("window.__beeps") == 0
    alice.page.fill("#amount-bank", "400")
    alice.click_enabled("#act-open_bank")
    # bob's bet is due: his hidden tab's title flashes, on and off, and his phone buzzed and beeped once.
    bob.page.wait_for_function("document.title.startsWith('Your turn!')")
    bob.page.wait_for_function(f"document.title === {title!r}")
    bob.page.wait_for_function("document.title.startsWith('Your turn!')")
    assert bob.page.evaluate("window.__vibrations.length") == 1 and bob.page.evaluate("window.__beeps") == 1
    # Back to the tab: the title is the page's own again and stays so.
    hide(bob, False)
    assert bob.page.title() == title
    bob.page.wait_for_timeout(1200)
    assert bob.page.title() == title
    bob.click_enabled("#actions .chips button:nth-child(1)")
    bob.click_enabled("#act-confirm")
    bob.wait_view("v.phase === 'playing'")
    hide(bob, True)
    for _ in range(150):  # the dice choose who plays first: alice stands on hers, until bob's comes
        if bob.my_turn():
            break
        if alice.my_turn() and alice.page.locator("#act-stand:not([disabled])").count():
            alice.page.click("#act-stand")
        alice.page.wait_for_timeout(100)
    assert bob.my_turn()
    bob.page.wait_for_function("document.title.startsWith('Your turn!')")
    assert bob.page.evaluate("window.__vibrations.length") == 2 and bob.page.evaluate("window.__beeps") == 2
    hide(bob, False)
    play_out([alice, bob])
    bob.wait_view("v.hand.over")
    assert bob.page.title() == title
    # Leaving lets the screen sleep again.
    bob.page.on("dialog", lambda d: d.accept())
    bob.click_enabled("#act-leave")
    bob.page.wait_for_function("window.__locks.every((l) => l.released)")


def test_a_bid_for_the_bank_is_the_players_own_moment(server, browser, monkeypatch, settings):
    """The bank auction (house-rules.md; preset ten-half-auction) waits for the player's bid before its deadline, like a
    bet: the phone vibrates, a hidden tab's title flashes, and the focus goes to the bid row. The practice table's first
    deal is stacked as in tests/e2e/test_house_auction.py: the bots make no bid and the newcomer's bid is awaited."""
    from django.contrib.auth import get_user_model

    from tests.e2e.conftest import PHONE, Player, log_in, practice_here

    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    user = get_user_model().objects.create_user("bidder", "bidder@example.com", "a-long-password-1")
    room = practice_here(monkeypatch, user, "ten-half-auction", ["2S", "10H", "3D", "4C"], dice=[1, 1],
                         overrides={"bank_seconds": 300})
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale="en-US")
    context.add_init_script(STAND_INS)
    player = Player(context, server, user.username, [])
    log_in(context, server, user)
    page = player.goto(f"/r/{room.code}/")
    player.wait_connected()
    player.wait_view("v.phase === 'auction' && v.legal_actions.includes('bid')")
    page.wait_for_function("window.__vibrations.length === 1")
    page.wait_for_function("(document.activeElement.id || '').startsWith('act-bid-')")
    title = page.title()
    hide(player, True)
    page.wait_for_function("document.title.startsWith('Your turn!')")
    hide(player, False)
    assert page.title() == title
    page.locator("#act-bid-1").click()
    player.wait_view("v.phase !== 'auction'")
    assert page.evaluate("window.__vibrations.length") >= 1
    context.close()
