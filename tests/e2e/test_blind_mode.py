"""The screen-reader table mode (docs/accessibility.md; static/js/blind.js) in Chromium, at a newcomer's practice table:
V turns it on (and the profile keeps it: a reload opens the page in the mode), the table is a document before the
controls, every command key is answered in words, a hand is played with keys alone (a chip, the base stake back,
Enter, H, S), each new line of the feed is announced once and in order, the player's turn comes as an alert, and a
sighted player watching the same table sees the table as ever. The words of /jsi18n/blind/ in another language are
the tests of tests/e2e/test_blind_games.py."""

import re

import pytest
from django.contrib.auth import get_user_model

from games import services
from tests.e2e.conftest import ARTIFACTS, Player, log_in, practice_here
from tests.games.conftest import act

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Ten and a Half, a roll of 2: the newcomer (the bank's left) acts first. Their 5 of spades, the bots' 9s, the bank's 8;
# the newcomer's hit brings the queen of hearts (a picture card, ½): 5½, and they stand.
DECK = ["5S", "9H", "9D", "8C", "QH"]
SLOW = {"bet_seconds": 300, "act_seconds": 300}
ANSWERS = "window.halfpoint.blind.answers"
SPOKEN = "window.halfpoint.blind.spoken.flatMap((s) => s.texts)"
FEED = "[...document.querySelectorAll('#feed li')].map((li) => li.textContent)"


def command(page, key: str) -> str:
    """`key` pressed in the command box, and its answer (the newest in the record, also the text of #blind-answer)."""
    before = page.evaluate(f"{ANSWERS}.length")
    page.focus("#blind-command")
    page.keyboard.press(key)
    page.wait_for_function(f"{ANSWERS}.length > {before}")
    said = page.evaluate(f"{ANSWERS}[{ANSWERS}.length - 1]")
    assert page.locator("#blind-answer").inner_text().strip() == said.strip()
    return said


def test_the_mode_is_turned_on_with_v_kept_and_a_hand_is_played_with_keys(server, browser, monkeypatch, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    User = get_user_model()
    user = User.objects.create_user("noor", "noor@example.com", "a-long-password-1", display_name="Noor")
    # Clocks long enough for the commands on a busy machine; the second hand's bet clock is short (its warning).
    room = practice_here(monkeypatch, user, "ten-half", DECK, dice=[1, 1], overrides=SLOW)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", bypass_csp=True)
    noor = Player(context, server, "noor", [])
    log_in(context, server, user)
    page = noor.goto(f"/r/{room.code}/")
    noor.wait_view("v.you && v.hand && v.phase === 'betting'")

    # Off: the table as everyone sees it. V (on the page, not in a field) turns the mode on and keeps it on the profile.
    assert page.evaluate("document.body.classList.contains('blind')") is False
    assert page.locator("#blind").count() == 0 and page.locator("#felt").is_visible()
    page.evaluate("document.activeElement.blur()")  # the bet moment put the focus in the bet box, a text field
    page.keyboard.press("v")
    page.wait_for_selector("#blind")
    assert page.evaluate("document.body.classList.contains('blind')")
    assert page.locator("#felt").is_hidden() and page.locator("#side-seats").is_hidden()
    assert page.evaluate("document.querySelector('#blind').nextElementSibling.id") == "actions"
    assert page.evaluate("document.activeElement.id") == "blind-command"
    assert page.locator("#screen-reader").is_checked()
    assert page.locator("#blind h2").inner_text() == "Table"
    assert page.locator("label[for=blind-command]").inner_text() == "Command (? for help)"
    heads = page.locator("#blind h3").all_inner_texts()
    assert heads[:2] == ["Your hand", "The bank"] and len(heads) == 5, heads  # the newcomer, the bank, three bots
    assert page.get_attribute("#blind-live", "role") == "status" and page.get_attribute("#blind-alert", "role") == "alert"
    page.wait_for_function("fetch('/profile/').then(() => true)")
    for _ in range(50):
        if User.objects.get(pk=user.pk).screen_reader:
            break
        page.wait_for_timeout(100)
    assert User.objects.get(pk=user.pk).screen_reader is True
    told_before = len(page.evaluate(FEED))

    # Every command is answered in words.
    assert command(page, "Shift+Slash").startswith("Commands: C your hand and its total, B the bank and its stakes")
    assert command(page, "c") == "No cards yet."  # the deal comes once the bets are in
    v = noor.view()
    banker = next(x for x in v["seats"] if x["id"] == v["banker"])
    assert command(page, "b").startswith(f"{banker['name']} holds the bank: ")
    others = page.locator("#blind h3").all_inner_texts()[2:]
    first = command(page, "p")
    assert first.startswith(others[0] + ". Role: ")
    assert command(page, "p").startswith(others[1] + ". ")
    assert command(page, "Shift+p").startswith(others[0] + ". ")
    assert command(page, "l") == page.evaluate(FEED)[-1]
    assert command(page, "Shift+l") == " ".join(page.evaluate(FEED)[-5:])
    assert re.fullmatch(r"\d+ seconds left for you\.", command(page, "t"))
    assert command(page, "m").startswith("Your bet: 10, not confirmed yet. Stack: ")
    assert command(page, "k") in ("You asked the host for a longer clock.",
                                  "Asking the host for a longer clock is not available.")
    assert command(page, "x") == "Unknown key. Press ? for the commands."
    said = command(page, "a")
    assert said.startswith("Actions: Confirm")
    assert page.evaluate("document.activeElement.id") == "act-confirm"

    # The bet with keys: the first chip (10) added, the base stake back, Enter confirms it.
    assert command(page, "1") == "Your bet: 20."
    assert command(page, "0") == "Your bet: 10."
    assert command(page, "Enter") == "Bet confirmed: 10."
    noor.wait_view("v.hand.bets[v.you].confirmed")

    # The turn: an alert, then H, C with the total in words, S.
    page.wait_for_function("document.querySelector('#blind-alert').textContent.includes('Your turn')")
    assert command(page, "c") == "Cards: 5 of spades, face down. Total: 5."
    assert command(page, "h") == "Hit."
    noor.wait_view("v.hand.hands[v.you][0].cards.length === 2")
    assert command(page, "c") == "Cards: 5 of spades, face down, queen of hearts, face down. Total: 5 and a half."
    assert command(page, "s") == "Stand."
    noor.wait_view("v.hand.over")
    assert command(page, "h") == "Hit is not possible now."

    # Each line the feed told since the mode came on was announced once, in order (bursts joined).
    page.wait_for_function(f"{SPOKEN}.length === {FEED}.length - {told_before}")
    spoken = page.evaluate("window.halfpoint.blind.spoken")
    assert [t for s in spoken for t in s["texts"]] == page.evaluate(FEED)[told_before:]
    assert all(s["at"] >= max(s["received"]) and len(s["texts"]) == len(s["received"]) for s in spoken)
    assert page.locator("#blind-live p").last.inner_text() == " ".join(spoken[-1]["texts"])

    # A reconnect: the snapshot tells the hand's lines again, and none of them is said again.
    page.evaluate("""(() => { const s = window.halfpoint.socket; const inner = s.onFrame; window.snapshots = 0;
        s.onFrame = (f) => { if (f.type === 'snapshot') window.snapshots += 1; inner(f); }; s.ws.close(); })()""")
    page.wait_for_function("window.snapshots === 1")
    page.wait_for_timeout(400)  # a burst would be said by now
    assert page.evaluate("window.halfpoint.blind.spoken") == spoken
    assert [t for s in spoken for t in s["texts"]] == page.evaluate(FEED)[told_before:]
    mine = page.locator("#blind-mine").inner_text()
    assert "Result: " in mine and "5 and a half" in mine
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "blind-mode-1280.png"), full_page=True)

    # Kept: a reload opens the page in the mode, and says nothing the feed had told before it.
    page.reload()
    page.wait_for_selector("#blind #blind-doc h3")
    assert page.evaluate("document.body.classList.contains('blind')") and page.locator("#felt").is_hidden()
    assert "queen of hearts" in command(page, "c")
    page.wait_for_timeout(400)  # a burst would be said by now
    assert page.evaluate("window.halfpoint.blind.spoken.length") == 0
    # The next hand: the bet moment's alert, then the clock's warning at 10 s (the menu's default moments) as an alert
    # too, while the table's own time region is silent in the mode; Enter confirms the stake the box holds.
    services.room_rules_update(room_id=room.pk, overrides={**SLOW, "bet_seconds": 13})
    act(room, user, "start")
    page.wait_for_function("document.querySelector('#blind-alert').textContent.startsWith('Your turn. ')")
    page.wait_for_function("document.querySelector('#blind-alert').textContent === '10 seconds left'", timeout=20_000)
    assert page.locator("#time-live").is_hidden()
    # In the bet box (where the table puts a keyboard's focus when a bet is due) the letters are commands, the digits
    # the amount's.
    page.focus("#bet-box")
    before = page.evaluate(f"{ANSWERS}.length")
    page.keyboard.press("m")
    page.wait_for_function(f"{ANSWERS}.length === {before + 1}")
    assert page.evaluate(f"{ANSWERS}[{before}]").startswith("Your bet: 10, not confirmed yet.")
    page.keyboard.press("0")
    assert sorted(page.input_value("#bet-box")) == ["0", "0", "1"]  # typed where the caret was
    assert page.evaluate(f"{ANSWERS}.length") == before + 1
    assert command(page, "Enter").startswith("Bet confirmed: ")
    page.set_viewport_size({"width": 360, "height": 740})  # a phone: the document fits its width
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(ARTIFACTS / "blind-mode-360.png"), full_page=True)

    # A sighted player watching the same table: the table as ever.
    watcher_user = User.objects.create_user("ines", "ines@example.com", "a-long-password-1")
    watcher_context = browser.new_context(viewport={"width": 360, "height": 740}, locale="en-US", bypass_csp=True)
    ines = Player(watcher_context, server, "ines", [])
    log_in(watcher_context, server, watcher_user)
    watcher = ines.goto(f"/r/{room.code}/")
    ines.wait_connected()
    watcher.wait_for_selector("#seats .seat")
    assert watcher.evaluate("document.body.classList.contains('blind')") is False
    assert watcher.locator("#blind").count() == 0 and watcher.locator("#felt").is_visible()
    assert not watcher.locator("#screen-reader").is_checked()

    # The watcher's chat message is said on the page in the mode (apart from the feed's lines), once.
    watcher.click("#menu-button")
    watcher.click("#tab-chat")
    watcher.fill("#chat-input", "buona fortuna")
    watcher.press("#chat-input", "Enter")
    page.wait_for_function("document.querySelector('#blind-chat').textContent === 'ines says: buona fortuna'")
    assert page.get_attribute("#blind-chat", "role") == "log"

    # V again: off, for this page and on the profile.
    page.focus("#blind-command")
    page.keyboard.press("v")
    page.wait_for_selector("#blind", state="detached")
    assert page.locator("#felt").is_visible() and not page.locator("#screen-reader").is_checked()
    for _ in range(50):
        if not User.objects.get(pk=user.pk).screen_reader:
            break
        page.wait_for_timeout(100)
    assert User.objects.get(pk=user.pk).screen_reader is False
    # The menu's checkbox turns it on again (the profile too); the profile page shows the same setting.
    page.click("#menu-button")
    page.locator("#screen-reader").check()
    page.wait_for_selector("#blind")
    page.screenshot(path=str(ARTIFACTS / "blind-mode-menu-360.png"))
    for _ in range(50):
        if User.objects.get(pk=user.pk).screen_reader:
            break
        page.wait_for_timeout(100)
    assert User.objects.get(pk=user.pk).screen_reader is True
    for width, height in ((360, 740), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        noor.goto("/profile/")
        assert page.locator("#id_screen_reader").is_checked()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"blind-mode-profile-{width}.png"), full_page=True)
    errors = [e for p in (noor, ines) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
    context.close()
    watcher_context.close()
