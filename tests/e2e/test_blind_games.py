"""The screen-reader table mode in each game (docs/accessibility.md): a player in the mode and a sighted friend play
whole hands, the one in the mode with the keyboard alone (the mode's one-key commands; Tab and Enter on the actions
that A reaches: the bank's decisions), as a challenger and as the banker, and the test reads what the mode said.

Every line of the table's feed is announced in #blind-live exactly once, in order and nothing else; lines that came in
one burst are one announcement; each command is answered once in #blind-answer. Each game runs in English and once in
Chinese, Italian or Spanish, where the announcements and the actions' names are the glossary's words and no English
word of the English run's announcements appears. The time from a frame's arrival to its announcement, and from the
friend's click to the announcement of it, is printed (`-s`).

Bank decisions, by game: Ten and a Half (the bank by turns of one hand here) offers the bank, which the player in the
mode opens and later declines; the other games open a bank with the whole stack, and the player in the mode retires from
it (Seven and a Half's first bank is drawn: whoever banks first retires so that both bank). The players' names are not
English words. Half the runs are at 360 x 740, half at 1280 x 900."""

import time
from pathlib import Path

import polib
import pytest
from django.contrib.auth import get_user_model

from games import services
from tests.e2e.blind import (
    PHONE,
    WIDE,
    act_by_keys,
    assert_announced_once_in_order,
    assert_bursts,
    click_timed,
    command,
    command_latencies,
    feed_lines,
    latencies,
    only_this_server,
    open_table,
    person,
    reconnect,
    report,
    said,
    spoken,
    to_command_box,
    wait_said,
    words,
)
from tests.e2e.conftest import ARTIFACTS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# (game, language of the player in the mode, their screen)
RUNS = [
    ("ten-half", "en", WIDE), ("ten-half", "zh-hans", PHONE),
    ("seven-half", "en", PHONE), ("seven-half", "it", WIDE),
    ("zhejiang-ten-half", "en", WIDE), ("zhejiang-ten-half", "zh-hans", PHONE),
    ("ban-luck", "en", PHONE), ("ban-luck", "es", WIDE),
]
OVERRIDES = {"ten-half": {"bank_turn_hands": 1}}  # the bank passes after every hand: offered, opened, declined
# English words the English runs' announcements use (each English run checks it heard most of them): none may be in
# another language's announcements, as whole words, whatever the case.
ENGLISH = {"hit", "hits", "stand", "stands", "bank", "banker", "banks", "stake", "bust", "busts", "wins", "loses",
           "your", "turn", "hand", "hands", "dealt", "face", "down", "bets", "the", "and", "with", "opens", "starts",
           "settled", "holds", "declines", "retires", "sits", "card"}
# The glossary's words (docs/glossary.md) that the announcements of every run in a language hold: the hand's start
# ("Hand 2 starts: X banks 1,000, base stake 10") and the bank's opening or closing name the bank and the base stake.
GLOSSARY = {"zh-hans": ["庄本", "底注", "坐庄"], "it": ["banco", "puntata base", "mano"],
            "es": ["banca", "apuesta base", "mano"]}
# The actions' names (table.js's buttons, which the A command reads out) in each language: Hit, Stand.
ACTION_WORDS = {"en": ("Hit", "Stand"), "zh-hans": ("要牌", "停牌"), "it": ("Carta", "Sto"), "es": ("Pedir", "Me planto")}
NAMES = {"en": ("Ruolan", "Zaira"), "zh-hans": ("若兰", "Zaira"), "it": ("Ruolan", "Zaira"), "es": ("Ruolan", "Zaira")}
IDLE = "!v.hand || v.hand.over"
LOCALE = Path(__file__).resolve().parents[2] / "locale"


def has_mode_words(language: str) -> bool:
    """Whether the language's compiled catalog has the words of the mode (the context "screen reader")."""
    po = LOCALE / {"zh-hans": "zh_Hans"}.get(language, language) / "LC_MESSAGES" / "djangojs.po"
    return any(e.msgctxt == "screen reader" and e.msgstr for e in polib.pofile(str(po)))


class Night:
    """Two players at one table: `blind` (in the mode, keys only) and `friend` (sighted, the host, clicks)."""

    def __init__(self, game: str, language: str, blind, friend, at_start: int):
        self.game, self.language, self.blind, self.friend, self.at_start = game, language, blind, friend, at_start
        self.b = blind.view()["you"]
        self.f = friend.view()["you"]
        self.roles: dict[int, str] = {}  # hand number -> its banker (seat id), from the blind page
        self.over: set[int] = set()
        self.done: set[str] = set()  # the blind player's decisions made: opened, declined, retired
        self.turns = 0  # the blind player's own turns played
        self.read = False  # every reading command tried, at a turn as a challenger
        self.bets = 0  # bets the blind player confirmed with 0, a digit and Enter
        self.reconnected = False  # the blind page's socket dropped once, during a hand
        self.sent: list[dict] = []  # the friend's commands: {t, seat, type, after}
        self.answers: dict[str, str] = {}

    # -- what the test needs ------------------------------------------------------------------------------------
    def banked(self, seat: str) -> bool:
        return any(b == seat for n, b in self.roles.items() if n in self.over)

    def needs(self) -> set[str]:
        return {"opened", "declined"} if self.game == "ten-half" else {"retired"}

    def finished(self) -> bool:
        b_banked = self.banked(self.b)
        b_challenged = any(n in self.over and bank != self.b for n, bank in self.roles.items())
        bet = self.bets >= 1 or self.game == "zhejiang-ten-half"  # Zhejiang's stake is fixed: nothing to bet
        return b_banked and b_challenged and bet and self.needs() <= self.done and self.read and self.reconnected \
            and self.idle()

    def idle(self) -> bool:
        return self.blind.page.evaluate(f"(() => {{ const v = window.halfpoint.state.view; return {IDLE}; }})()")

    def note_hand(self) -> None:
        v = self.blind.view()
        hand = v.get("hand")
        if hand and v.get("banker") and not hand["over"]:
            self.roles[hand["no"]] = v["banker"]
        if hand and hand["over"] and hand["no"] in self.roles:
            self.over.add(hand["no"])

    # -- one move by whoever has one --------------------------------------------------------------------------
    def step(self) -> bool:
        self.note_hand()
        return self.friend_retires() or self.step_blind() or self.step_friend()

    def friend_retires(self) -> bool:
        """A friend who banks first (the host's bank, or the draw's) retires at once, so that the bank comes to the player
        in the mode (Ten and a Half's passes by turns)."""
        v = self.friend.view()
        if self.game != "ten-half" and "retire" in v["legal_actions"] and v.get("banker") == v["you"] \
                and not self.banked(self.b):
            return self.click(self.friend, "#act-retire", "bank_retire_requested")
        return False

    def step_blind(self) -> bool:
        p, v = self.blind, self.blind.view()
        legal, me, hand = v["legal_actions"], v["you"], v.get("hand")
        pending = v.get("pending")
        if not self.reconnected and hand and not hand["over"] and v["phase"] in ("betting", "playing"):
            reconnect(p)  # the snapshot tells this hand's lines again: none is announced twice
            self.reconnected = True
            return True
        if pending and pending["seat"] == me and pending["kind"] in ("open", "take"):
            take = pending["kind"] == "open" and not self.banked(me) and "opened" not in self.done
            target = "#act-open_bank" if take else "#act-decline_bank"
            act_by_keys(p, target, "!v.pending || v.pending.seat !== v.you")
            if pending["kind"] == "open":
                self.done.add("opened" if take else "declined")
            return True
        if v["phase"] == "betting" and "bet" in legal:
            base = v["hand"]["base_stake"]
            answer = command(p, "Digit0")  # the bet back to the base stake
            assert p.page.input_value("#bet-box") == str(base), answer
            answer = command(p, "Digit1")  # and the first chip on it
            chip = v["rules"]["chip_values"][0]
            assert p.page.input_value("#bet-box") == str(base + chip), answer
            answer = command(p, "Enter")
            if self.language == "en":
                assert answer == f"Bet confirmed: {base + chip}.", answer
            p.wait_view("!v.legal_actions.includes('bet')")  # confirmed
            self.bets += 1
            return True
        if v["phase"] == "playing" and hand and hand["turn"] and hand["turn"]["seat"] == me \
                and ("hit" in legal or "stand" in legal):
            if not self.read and me != v.get("banker"):
                self.read_everything(v)
                self.read = True
            if "retire" in legal and self.wants_retire(v):
                self.retire()
                return True
            ph = hand["hands"][me][hand["turn"]["hand"]]
            total = ph.get("total", 0)
            limit = {"seven-half": 4, "ban-luck": 16}.get(self.game, 6)
            hit = "stand" not in legal or (self.turns == 0 and "hit" in legal) or total < limit
            version = p.page.evaluate("window.halfpoint.state.version")
            answer = command(p, "KeyH" if hit else "KeyS")
            if self.language == "en":
                assert answer == ("Hit." if hit else "Stand."), answer
            p.page.wait_for_function(f"window.halfpoint.state.version > {version} && !window.halfpoint.state.busy")
            self.turns += 1
            return True
        if "retire" in legal and self.wants_retire(v):
            self.retire()
            return True
        return False

    def wants_retire(self, v) -> bool:
        return self.game != "ten-half" and "retired" not in self.done and v.get("banker") == v["you"] \
            and v["hand"] is not None and not v["hand"]["over"]

    def retire(self) -> None:
        act_by_keys(self.blind, "#act-retire", "!v.legal_actions.includes('retire')")
        self.done.add("retired")

    def read_everything(self, v) -> None:
        """At the player's first turn as a challenger: every command that reads the table, each answered once."""
        p = self.blind
        p.page.wait_for_function("document.querySelector('#blind-alert').textContent.trim() !== ''")  # "your turn"
        a = self.answers
        a["C"] = command(p, "KeyC")
        a["B"] = command(p, "KeyB")
        a["P"] = command(p, "KeyP")
        a["Shift+P"] = command(p, "Shift+KeyP")
        a["M"] = command(p, "KeyM")
        a["T"] = command(p, "KeyT")
        a["?"] = command(p, "Shift+Slash")
        last = wait_said(p, len(feed_lines(p)) - self.at_start)[-1]
        a["L"] = command(p, "KeyL")
        a["Shift+L"] = command(p, "Shift+KeyL")
        me, banker = v["you"], v["banker"]
        names = {x["id"]: x["name"] for x in v["seats"]}
        stack = next(x["stack"] for x in v["seats"] if x["id"] == me)
        grouped = p.page.evaluate("(n) => new Intl.NumberFormat(document.documentElement.lang, { useGrouping: true }).format(n)",
                                  stack)
        ph = v["hand"]["hands"][me][v["hand"]["turn"]["hand"]]
        if ph["total"] >= 1:
            assert str(int(ph["total"])) in a["C"], f"C does not say the total {ph['total']}: {a['C']!r}"
        if self.language == "en":  # the total in words: "7 and a half", "a half", "bust at 11"
            if ph["bust"]:
                assert "bust at" in a["C"], a["C"]
            elif ph["total"] % 1:
                assert "a half" in a["C"] and "½" not in a["C"], a["C"]
        # The table as a document: the player's hand, the bank, then each other seat, each under its heading.
        heads = p.page.locator("#blind h3").all_inner_texts()
        assert heads[-1] == names[self.f] and len(heads) == 3, heads
        if self.language == "en":
            assert heads[:2] == ["Your hand", "The bank"], heads
        assert names[banker] in a["B"], f"B does not name the banker {names[banker]}: {a['B']!r}"
        assert names[self.f] in a["P"] + a["Shift+P"], f"P does not reach {names[self.f]}: {a['P']!r}, {a['Shift+P']!r}"
        assert grouped in a["M"], f"M does not say the stack {grouped}: {a['M']!r}"
        assert last in a["L"], f"L is not the last event {last!r}: {a['L']!r}"
        assert last in a["Shift+L"] and len(a["Shift+L"]) > len(a["L"]), a["Shift+L"]
        assert len(a["?"]) > 80, f"? lists the commands: {a['?']!r}"
        a["A"] = command(p, "KeyA")
        focused = p.page.evaluate("(() => { const a = document.activeElement; return !!a && !!a.closest('#actions')"
                                  " && !a.disabled ? a.id : null; })()")
        assert focused, "A does not move the focus to the first action"
        hit, stand = ACTION_WORDS[self.language]
        assert hit in a["A"], f"A does not name {hit}: {a['A']!r}"
        if "stand" in v["legal_actions"]:
            assert stand in a["A"], f"A does not name {stand}: {a['A']!r}"
        to_command_box(p)

    def step_friend(self) -> bool:
        p, v = self.friend, self.friend.view()
        legal, me, hand = v["legal_actions"], v["you"], v.get("hand")
        pending = v.get("pending")
        if pending and pending["seat"] == me and pending["kind"] in ("open", "take"):
            # The friend lets the bank go to the player in the mode until they have banked, then takes it.
            take = pending["kind"] == "open" and self.banked(self.b)
            if take and v["rules"]["bank_open"] == "choose":
                p.page.fill("#amount-bank", "400")
            return self.click(p, "#act-open_bank" if take else "#act-decline_bank",
                              "bank_opened" if take else "bank_declined")
        if v["phase"] == "betting" and "bet" in legal:
            return self.click(p, "#act-confirm", "bet_confirmed")
        if v["phase"] == "playing" and hand and hand["turn"] and hand["turn"]["seat"] == me:
            ph = hand["hands"][me][hand["turn"]["hand"]]
            must = "stand" not in legal or (self.game == "ban-luck" and ph.get("total", 0) < 16)
            return self.click(p, "#act-hit" if must else "#act-stand", "action")
        if p.page.locator("#host-start:not([disabled])").count() and self.idle():
            self.note_hand()  # the hand just over counted before the next one starts
            if not self.finished():
                return self.click(p, "#host-start", None)
        return False

    def click(self, p, selector: str, line_type: str | None) -> bool:
        version = p.page.evaluate("window.halfpoint.state.version")
        after = len(feed_lines(self.blind))
        t = click_timed(p, selector)
        if t is None:
            return False
        if line_type:
            self.sent.append({"t": t, "seat": self.f, "type": line_type, "after": after})
        try:
            p.page.wait_for_function(f"window.halfpoint.state.version > {version} && !window.halfpoint.state.busy",
                                     timeout=5000)
        except Exception:  # noqa: BLE001 - refused or not yet applied: the loop looks again
            pass
        return True

    def play(self, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.finished():
            assert time.monotonic() < deadline, (f"the night did not finish: roles {self.roles}, over {self.over}, "
                                                 f"decisions {self.done}, turns {self.turns}, view {self.blind.view()['phase']}")
            if not self.step():
                time.sleep(0.05)


@pytest.mark.parametrize(("game", "language", "screen"), RUNS, ids=[f"{g}-{lang}-{s['width']}" for g, lang, s in RUNS])
def test_hands_played_in_the_mode_with_the_keyboard_alone(server, browser, here, game, language, screen):
    make = get_user_model().objects.create_user
    blind_name, friend_name = NAMES[language]
    blind_user = make(f"blind-{language}", f"blind-{language}@example.com", "a-long-password-1",
                      language="" if language == "en" else language, display_name=blind_name, screen_reader=True)
    friend_user = make("friend", "friend@example.com", "a-long-password-1", display_name=friend_name)
    room = services.room_create(host=friend_user, preset=game, overrides=OVERRIDES.get(game, {}))
    # Zhejiang's first bank is the first seated: the player in the mode; the others' the host's (or a draw).
    first, second = (blind_user, friend_user) if game == "zhejiang-ten-half" else (friend_user, blind_user)
    services.seat_take(room_id=room.pk, user=first, buy_in=1000)
    services.seat_take(room_id=room.pk, user=second, buy_in=1000)

    blind = person(browser, server, blind_user, language, screen)
    friend = person(browser, server, friend_user, "en", WIDE if screen is PHONE else PHONE)
    at_start = open_table(blind, friend, room.code)
    page = blind.page
    assert page.evaluate("document.documentElement.lang") == language
    assert page.locator("#felt").is_hidden() and page.locator("#side-seats").is_hidden()
    assert page.evaluate("document.getElementById('blind').nextElementSibling.id") == "actions"
    assert page.locator("#blind h2").count() == 1 and page.locator("#blind-live[role=status][aria-live=polite]").count() == 1
    assert page.locator("#blind-alert[role=alert]").count() == 1 and page.locator("#blind-answer[role=status]").count() == 1
    assert page.locator("#blind-command").evaluate("el => el.tagName === 'INPUT' && el.labels.length > 0")
    to_command_box(blind)

    night = Night(game, language, blind, friend, at_start)
    night.play()
    lines, start = assert_announced_once_in_order(blind, at_start)
    split = assert_bursts(blind)
    print(f"\nbursts said in two announcements: {len(split)} (gaps {[round(g) for g in split]} ms)")
    heard = " ".join(said(blind))
    if language == "en":
        used = ENGLISH & words(heard)
        assert len(used) >= 12, f"the English announcements use few of the listed words: {sorted(used)}"
    else:
        english = ENGLISH & words(heard)
        assert not english, f"English words in the {language} announcements: {sorted(english)}"
        missing = [w for w in GLOSSARY[language] if w not in heard]
        assert not missing, f"the glossary's {missing} are not in the {language} announcements"
        # The answers are the mode's own words (the catalog /jsi18n/blind/ serves), the feed's and the buttons': checked
        # for English once the catalog has the mode's words.
        answered = " ".join(blind.page.evaluate("window.halfpoint.blind.answers"))
        if has_mode_words(language):
            english = ENGLISH & words(answered)
            assert not english, f"English words in the {language} answers: {sorted(english)}: {answered}"
        else:
            print(f"\n{language}: the catalog has no words of the mode yet; its answers were: {answered[:300]}")
    # The friend's page is the sighted table.
    assert not friend.page.evaluate("document.body.classList.contains('blind')")
    assert friend.page.locator("#blind").count() == 0 and friend.page.locator("#felt").is_visible()

    print(f"\n{game} {language} {screen['width']} px: {len(lines) - start} lines in {len(spoken(blind))} announcements, "
          f"hands {sorted(night.over)}, banker by hand {night.roles}, decisions {sorted(night.done)}")
    report("blind announce latency", latencies(blind))
    report("blind command-to-announcement latency", command_latencies(blind, night.sent))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"blind-{game}-{language}-{screen['width']}.png"), full_page=True)
    if screen is PHONE:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    errors = [e for e in blind.console_errors + friend.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
    only_this_server([blind, friend])
