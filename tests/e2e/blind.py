"""Helpers for the browser tests of the screen-reader table mode (contract: the mode's section of
docs/accessibility.md): a player's browser in a language, a log of every feed line the page told, the mode's
announcements and answers as it exposes them (`window.halfpoint.blind`), its one-key commands, and the latencies from
an event to its announcement. Used by tests/e2e/test_blind_games.py and tests/e2e/test_blind_night.py."""

import re
import statistics
import time
from urllib.parse import urlsplit

from tests.e2e.conftest import TIMEOUT_MS, Player, log_in

LOCALES = {"en": "en-US", "zh-hans": "zh-CN", "it": "it-IT", "es": "es-ES"}
PHONE = {"width": 360, "height": 740}
WIDE = {"width": 1280, "height": 900}
QUIET_MS = 300  # the contract's burst: frames within 300 ms of each other are announced as one
BURST_CAP_MS = 1200  # docs/accessibility.md: a burst that runs on is said 1.2 s after its first frame all the same


def person(browser, base: str, user, language: str = "en", viewport=None) -> Player:
    """`user` logged in, in a fresh browser context speaking `language` (the profile's language is set apart)."""
    context = browser.new_context(viewport=viewport or WIDE, bypass_csp=True, locale=LOCALES[language])
    player = Player(context, base, user.username, [])
    context.on("request", lambda r: player.requests.append(r.url))
    context.on("websocket", lambda ws: player.requests.append(ws.url))
    log_in(context, base, user)
    return player


def only_this_server(players: list[Player]) -> None:
    """Every request the pages made (pages, scripts, catalogs, sockets) went to the test server."""
    hosts = {urlsplit(url).netloc for p in players for url in p.requests if not url.startswith(("data:", "blob:", "about:"))}
    bases = {urlsplit(p.base).netloc for p in players}
    assert hosts <= bases, f"requests to other hosts: {sorted(hosts - bases)}"


# --- the feed as the page told it ---------------------------------------------------------------------------------
# The page keeps the lines of the current hand and the one before (table.js, FEED_HANDS): a night is longer, so the
# log keeps each hand's lines as told (`state.feed`, the lines `#feed` shows: the fair deal's are listed elsewhere) from
# when it is installed, read at every redraw of the feed. A feed told again (a snapshot, a module arriving) tells a
# hand the same way; a hand whose lines changed otherwise is noted in `changed`.
LOG_JS = """() => {
  if (window.__feedLog) return window.__feedLog.atStart;
  const S = window.halfpoint.state;
  const log = window.__feedLog = { hands: {}, changed: [], atStart: 0 };
  const grab = () => {
    const by = {};
    for (const l of S.feed) {
      if (l.fair) continue;
      (by[l.hand] = by[l.hand] || []).push({ text: l.text, type: l.type, seat: l.seat });
    }
    for (const [hand, lines] of Object.entries(by)) {
      const old = log.hands[hand] || [];
      if (lines.length < old.length) continue;  // trimmed: the log has it whole
      if (old.some((l, i) => l.text !== lines[i].text)) log.changed.push([hand, old.map((l) => l.text), lines.map((l) => l.text)]);
      log.hands[hand] = lines;
    }
  };
  grab();
  log.atStart = Object.values(log.hands).reduce((n, lines) => n + lines.length, 0);
  log.snapshots = 0;  // the snapshots drawn since: a reconnect's
  const socket = window.halfpoint.socket;
  const inner = socket.onFrame;
  socket.onFrame = (f) => { inner(f); if (f.type === "snapshot") log.snapshots += 1; };
  new MutationObserver(grab).observe(document.getElementById("feed"), { childList: true });
  setInterval(grab, 100);
  return log.atStart;
}"""
LINES_JS = """() => {
  const log = window.__feedLog;
  return Object.keys(log.hands).map(Number).sort((a, b) => a - b).flatMap((h) => log.hands[h].map((l) => ({ ...l, hand: h })));
}"""


def install_log(player: Player) -> int:
    """Start logging the page's feed; returns the number of lines it already held."""
    return player.page.evaluate(LOG_JS)


def open_table(blind: Player, friend: Player, code: str) -> int:
    """`blind` (whose profile has the mode on) opens room `code` first and its feed is logged from then; then `friend`.
    Returns the number of lines the feed held when the log started."""
    blind.goto(f"/r/{code}/")
    blind.wait_connected()
    wait_mode(blind)
    at_start = install_log(blind)
    friend.goto(f"/r/{code}/")
    friend.wait_connected()
    return at_start


def feed_lines(player: Player) -> list[dict]:
    """Every line the page's feed told since the log was installed, in order: {text, type, seat, hand}."""
    return player.page.evaluate(LINES_JS)


def feed_changes(player: Player) -> list:
    return player.page.evaluate("window.__feedLog.changed")


def reconnect(player: Player) -> None:
    """The page's socket drops (as on a phone that changes network): it reconnects by itself and draws the snapshot the
    server sends, whose events the feed tells again."""
    page = player.page
    before = page.evaluate("window.__feedLog.snapshots")
    page.evaluate("window.halfpoint.socket.ws.close()")
    page.wait_for_function(f"window.__feedLog.snapshots > {before}")


# --- the mode ----------------------------------------------------------------------------------------------------

def blind_state(player: Player) -> dict:
    return player.page.evaluate("(() => { const b = window.halfpoint && window.halfpoint.blind;"
                                " return b ? { spoken: b.spoken, answers: b.answers } : null; })()")


def spoken(player: Player) -> list[dict]:
    return player.page.evaluate("window.halfpoint.blind.spoken")


def said(player: Player) -> list[str]:
    """Every line announced in #blind-live, in order."""
    return [text for s in spoken(player) for text in s["texts"]]


def wait_mode(player: Player, on: bool = True) -> None:
    if on:
        player.page.wait_for_function("document.body.classList.contains('blind') && !!document.querySelector('#blind')"
                                      " && !!(window.halfpoint && window.halfpoint.blind)")
    else:
        player.page.wait_for_function("!document.body.classList.contains('blind')")


def in_command_box(player: Player) -> bool:
    return player.page.evaluate("!!document.activeElement && document.activeElement.id === 'blind-command'")


def to_command_box(player: Player, presses: int = 80) -> None:
    """Tab (or Shift+Tab, from a control after it) until the focus is in the command box: the keyboard's way back."""
    page = player.page
    if in_command_box(player):
        return
    after = page.evaluate("(() => { const box = document.getElementById('blind-command'); const a = document.activeElement;"
                          " return !!a && a !== document.body && !!(box.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING); })()")
    for direction in (("Shift+Tab", "Tab") if after else ("Tab", "Shift+Tab")):
        for _ in range(presses):
            page.keyboard.press(direction)
            if in_command_box(player):
                return
    raise AssertionError("the keyboard never reached #blind-command")


def command(player: Player, key: str, *, answer: bool = True) -> str | None:
    """Press one command key (a Playwright key name: "KeyC", "Shift+KeyP", "Shift+Slash", "Digit1") with the focus in
    the command box; with `answer`, wait for its one answer and return it (the list of answers grows by exactly one)."""
    to_command_box(player)
    page = player.page
    before = page.evaluate("window.halfpoint.blind.answers.length")
    page.keyboard.press(key)
    if not answer:
        return None
    page.wait_for_function(f"window.halfpoint.blind.answers.length > {before}")
    answers = page.evaluate("window.halfpoint.blind.answers")
    assert len(answers) == before + 1, f"{key} gave {len(answers) - before} answers: {answers[before:]}"
    text = answers[-1]
    shown = page.locator("#blind-answer").inner_text()
    assert text.strip(), f"{key}: an empty answer"
    assert shown.strip() == text.strip(), f"{key}: #blind-answer shows {shown!r}, the answer was {text!r}"
    return text



def tab_to(player: Player, selector: str, presses: int = 120) -> None:
    """Press Tab until the focused element matches `selector` (enabled); fails if Tab never reaches it."""
    page = player.page
    matches = f"(() => {{ const a = document.activeElement; return !!a && a.matches({selector!r}) && !a.disabled; }})()"
    for _ in range(presses):
        if page.evaluate(matches):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def act_by_keys(player: Player, selector: str, until: str, tries: int = 4) -> None:
    """A: the legal actions are said and the focus goes to the first; Tab to `selector`, Enter; until the view condition
    `until` holds (again if the controls were redrawn under the focus before Enter landed)."""
    for _ in range(tries):
        answer = command(player, "KeyA")
        focused = player.page.evaluate("(() => { const a = document.activeElement; return !!a && !a.disabled"
                                       " && !!a.closest('#actions, #host-controls, #blind'); })()")
        assert focused, f"A left the focus outside the actions: {answer!r}"
        try:
            tab_to(player, selector)
        except AssertionError:
            continue
        player.page.keyboard.press("Enter")
        try:
            player.wait_view(until, timeout=4000)
            return
        except Exception:  # noqa: BLE001 - redrawn under the focus: again
            continue
    raise AssertionError(f"Enter on {selector} never led to {until}")


# --- what the announcements must be ------------------------------------------------------------------------------

def wait_said(player: Player, count: int, timeout_s: float = 8) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while True:
        if len(said(player)) >= count or time.monotonic() > deadline:
            player.page.wait_for_timeout(QUIET_MS + 200)  # and nothing more comes: no line twice
            return said(player)
        time.sleep(0.05)


def assert_announced_once_in_order(player: Player, at_start: int) -> tuple[list[str], int]:
    """Every feed line the page told is announced exactly once, in order, with nothing else: the concatenation of the
    announcements is the feed's lines from the first one the mode was there for (the lines on the feed when the page
    loaded, `at_start` of them, are not news: the mode may start after any of them). Returns (the lines, where the announcements start)."""
    lines = [line["text"] for line in feed_lines(player)]
    got = wait_said(player, len(lines) - at_start)
    assert not feed_changes(player), f"the feed told a hand twice, differently: {feed_changes(player)}"
    start = next((k for k in range(at_start, -1, -1) if got == lines[k:]), at_start)
    want = lines[start:]
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
        raise AssertionError(
            f"announcements != feed lines from {start}: first difference at {i}\n"
            f"  announced[{i - 2}:{i + 3}] = {got[max(0, i - 2):i + 3]}\n  feed[{i - 2}:{i + 3}] = {want[max(0, i - 2):i + 3]}\n"
            f"  {len(got)} announced, {len(want)} told")
    texts = player.page.locator("#feed li").all_inner_texts()
    assert texts and lines[-len(texts):] == texts, "the log and #feed disagree on the last lines"
    return lines, start


def assert_bursts(player: Player) -> list[float]:
    """Lines joined into one announcement came in one burst: each one's frame within 300 ms of the one before it; and a
    burst is one announcement, unless it runs on: docs/accessibility.md says it at most 1.2 s after its first frame
    (the contract says one announcement; the cap is the module's). Returns the gaps (ms) between one announcement's
    last frame and the next one's first that were shorter than 300 ms: a burst said in two announcements."""
    entries = spoken(player)
    for s in entries:
        gaps = [b - a for a, b in zip(s["received"], s["received"][1:], strict=False)]
        assert all(g <= QUIET_MS + 60 for g in gaps), f"one announcement joins lines {gaps} ms apart: {s['texts']}"
        assert len(s["received"]) == len(s["texts"]), s
        assert s["at"] >= s["received"][-1], s
    split = []
    for a, b in zip(entries, entries[1:], strict=False):
        gap = b["received"][0] - a["received"][-1]
        if gap < QUIET_MS:
            assert a["at"] - a["received"][0] >= BURST_CAP_MS - 60, (
                f"a burst said in two announcements {gap:.0f} ms apart, the first after only"
                f" {a['at'] - a['received'][0]:.0f} ms: {a['texts']} | {b['texts']}")
            split.append(gap)
    return split


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


# --- latency -----------------------------------------------------------------------------------------------------

def latencies(player: Player) -> list[float]:
    """Per announced line: from its frame's arrival to its announcement, ms."""
    return [s["at"] - r for s in spoken(player) for r in s["received"]]


def report(what: str, values: list[float]) -> str:
    if not values:
        line = f"{what}: no sample"
    else:
        line = f"{what}: median {statistics.median(values):.0f} ms, max {max(values):.0f} ms (n={len(values)})"
    print(line)
    return line


def epoch_ms(player: Player) -> float:
    return player.page.evaluate("performance.timeOrigin + performance.now()")


def click_timed(player: Player, selector: str) -> float | None:
    """Click `selector` when enabled; the wall-clock moment (ms) the click sent the command, or None if it was not."""
    try:
        player.page.wait_for_selector(f"{selector}:not([disabled])", timeout=TIMEOUT_MS)
    except Exception:  # noqa: BLE001
        return None
    return player.page.evaluate("(sel) => { const el = document.querySelector(sel); if (!el || el.disabled) return null;"
                                " const t = performance.timeOrigin + performance.now(); el.click(); return t; }", selector)


def command_latencies(blind: Player, sent: list[dict]) -> list[float]:
    """From each other player's command (`sent`: {t, seat, type, after}: its wall-clock moment, the line it makes and
    how many lines the blind page's log held then) to the blind player's announcement of its line."""
    lines = feed_lines(blind)
    entries = spoken(blind)
    origin = blind.page.evaluate("performance.timeOrigin")
    said_at, k = [], 0
    for s in entries:
        for _ in s["texts"]:
            said_at.append(origin + s["at"])
            k += 1
    offset = len(lines) - len(said_at)  # lines before the announcements began
    out = []
    for c in sent:
        i = next((j for j in range(c["after"], len(lines))
                  if lines[j]["type"] == c["type"] and (c["seat"] is None or lines[j]["seat"] == c["seat"])), None)
        if i is None or i - offset < 0 or i - offset >= len(said_at):
            continue
        out.append(said_at[i - offset] - c["t"])
    return out


def amount_by_keys(player: Player, field: str, value: int, button: str, until: str, tries: int = 3) -> str:
    """A bank decision with an amount, with the keys: A (the actions said, the focus on the first), Shift+Tab back to the
    amount `field`, the amount typed over the one shown, Tab to `button`, Enter; until the view condition `until` holds.
    Returns A's answer."""
    page = player.page
    on = lambda sel: page.evaluate(f"(() => {{ const a = document.activeElement; return !!a && a.matches({sel!r}); }})()")  # noqa: E731
    for _ in range(tries):
        said_a = command(player, "KeyA")
        for _ in range(8):
            if on(field):
                break
            page.keyboard.press("Shift+Tab")
        if not on(field):
            continue
        page.keyboard.press("Control+A")
        page.keyboard.type(str(value))
        try:
            tab_to(player, button, presses=8)
        except AssertionError:
            continue
        page.keyboard.press("Enter")
        try:
            player.wait_view(until, timeout=4000)
            return said_a
        except Exception:  # noqa: BLE001 - redrawn under the focus: again
            continue
    raise AssertionError(f"{field} and {button} never led to {until}")
