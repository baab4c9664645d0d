"""The site in each player's language (accounts/language.py, locale/, docs/glossary.md), in Chromium: every page a
Chinese player reads holds no English word, the Italian and Spanish pages none of the site's common English words,
three players at one table each read the same move in their own language, and switching language at the table
keeps the seat and its face-down card. Screenshots go to test-artifacts/languages/."""

import json
import re
import time
from pathlib import Path

import polib
import pytest
from django.contrib.auth import get_user_model

from games import clubs, services
from games.engine import PRESETS, state_from_json, view
from games.models import Hand, HandEvent, Room, Table
from games.rules_codes import rules_code
from tests.e2e.conftest import ARTIFACTS, Player, log_in
from tests.games.sockets import sensible_move

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOCALE = Path(__file__).resolve().parents[2] / "locale"
SHOTS = ARTIFACTS / "languages"
# Words that are names or codes in every language: the brand, the bots, the Ban Luck hands as Chinese players say
# them (docs/glossary.md), and the cryptography's names.
ALLOWED = {"Half", "Point", "HalfPoint", "Ban", "Luck", "Ada", "Bao", "Cai", "Dee", "Eli", "Fei", "Gus", "Hui",
           "Fisher", "Yates", "Python", "Home", "End"}  # Home and End: the keys' names, as printed on them
COMMON_ENGLISH = {"the", "your", "hand", "hands", "bank", "stake", "turn", "wins", "waiting", "player", "seat",
                  "table", "room", "banker", "stand", "bet", "and", "you", "with", "rules", "wallet"}
# Every visible text node's ASCII words of 3 letters or more, outside code, chat and what the page hides. A token
# with a digit (a hash), a slash or a dot (a file's path) or in capitals only (CSV, API, a club's invite code) is
# not a word.
VISIBLE_WORDS = r"""() => {
  const words = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || el.closest("script, style, code, pre, [hidden], #chat-list, .name, .seat-name, option")) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === "hidden") continue;
    for (const token of walker.currentNode.textContent.match(/[\w./-]+/g) || []) {
      if (/^[A-Za-z]{3,}$/.test(token) && token !== token.toUpperCase()) words.push(token);
      else if (/^[A-Za-z]+-[A-Za-z]+$/.test(token)) words.push(...token.split("-").filter((w) => w.length > 2));
    }
  }
  return words;
}"""


def translated(code: str, msgid: str) -> str:
    locale = {"zh-hans": "zh_Hans"}.get(code, code)
    entry = polib.pofile(str(LOCALE / locale / "LC_MESSAGES" / "djangojs.po")).find(msgid)
    assert entry is not None and entry.msgstr, (code, msgid)
    return entry.msgstr


def player_in(browser, base: str, user, code: str, viewport=None) -> Player:
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900}, bypass_csp=True,
                                  locale={"zh-hans": "zh-CN"}.get(code, code))
    player = Player(context, base, user.username, [])
    log_in(context, base, user)
    return player


def words_on(player: Player, name: str) -> list[str]:
    page = player.page
    page.wait_for_load_state("networkidle")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    return page.evaluate(VISIBLE_WORDS)


def play_practice_hand(player: Player, preset: str) -> None:
    """From the lobby, one click to a practice table, then stand at each turn (hit where standing is not allowed
    yet) until a result shows."""
    page = player.goto("/lobby/")
    page.click(f"button[data-practice='{preset}']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    player.wait_view("v.you")
    deadline = time.monotonic() + 40
    while not page.evaluate("(() => { const v = window.halfpoint.state.view; return !!(v.hand && v.hand.over); })()"):
        assert time.monotonic() < deadline, "the hand did not finish"
        for button in ("#act-confirm", "#act-stand", "#act-hit"):
            if page.locator(f"{button}:not([disabled])").count():
                page.click(button)
                break
        else:
            time.sleep(0.1)
    page.wait_for_selector("#results-table")


def test_a_chinese_player_reads_no_english_word(browser, server):
    user = get_user_model().objects.create_user("mei", "mei@example.com", "a-long-password-1", language="zh-hans",
                                                display_name="小美")
    mei = player_in(browser, server, user, "zh-hans")
    found = {}
    mei.goto("/lobby/")
    found["lobby"] = words_on(mei, "zh-lobby")
    for preset in ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"):
        play_practice_hand(mei, preset)
        found[f"table-{preset}"] = words_on(mei, f"zh-table-{preset}")
    hand = Hand.objects.filter(ended_at__isnull=False, room__host=user).first()
    club = clubs.club_create(owner=user, name="夜猫子")
    pages = {"records": "/records/", "hand": hand.get_absolute_url(), "wallet": "/wallet/", "profile": "/profile/",
             "club": club.get_absolute_url(), "verify": "/verify/", "clubs": "/clubs/"}
    pages.update({f"rules-{p}": f"/rules/{p}/" for p in ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")})
    pages["rules-code"] = f"/rules/code/{rules_code('ten-half-auction', PRESETS['ten-half-auction'].to_json())}/"
    for name, path in pages.items():
        mei.goto(path)
        found[name] = words_on(mei, f"zh-{name}")
    allowed = ALLOWED | {user.username}
    english = {name: sorted(set(words) - allowed) for name, words in found.items() if set(words) - allowed}
    assert not english, json.dumps(english, ensure_ascii=False)
    mei.context.close()


@pytest.mark.parametrize("code", ["it", "es"])
def test_italian_and_spanish_pages_have_none_of_the_common_english_words(browser, server, code):
    user = get_user_model().objects.create_user(f"p-{code}", f"p-{code}@example.com", "a-long-password-1",
                                                language=code)
    player = player_in(browser, server, user, code)
    found = {}
    player.goto("/lobby/")
    found["lobby"] = words_on(player, f"{code}-lobby")
    play_practice_hand(player, "seven-half")
    found["table"] = words_on(player, f"{code}-table")
    hand = Hand.objects.filter(ended_at__isnull=False, room__host=user).first()
    club = clubs.club_create(owner=user, name=f"Club {code}")
    for name, path in (("records", "/records/"), ("hand", hand.get_absolute_url()), ("wallet", "/wallet/"),
                       ("club", club.get_absolute_url()), ("verify", "/verify/"), ("rules", "/rules/seven-half/")):
        player.goto(path)
        found[name] = words_on(player, f"{code}-{name}")
    english = {name: sorted({w for w in words if w.lower() in COMMON_ENGLISH}) for name, words in found.items()}
    assert not any(english.values()), json.dumps(english, ensure_ascii=False)
    player.context.close()


def play_with_services(room, monkeypatch) -> None:
    """Deal the first hand (the time moved past the pause before it, in this process), then every seat makes the
    plain move the socket tests make until the hand is over."""
    users = {s.engine_id: s.user for s in room.seats.filter(left_at__isnull=True).select_related("user")}
    for _ in range(80):
        state = state_from_json(Table.objects.get(pk=room.pk).state)
        if state.phase == "between_hands" and state.hand_no >= 1:
            return
        if state.phase == "between_hands":
            with monkeypatch.context() as m:
                m.setattr("games.services.run._now", lambda: time.time() + 3600)
                services.table_wake(room_id=room.pk)
            continue
        for seat_id, user in users.items():
            move = sensible_move(view(state, seat_id))
            if move is not None:
                services.action_submit(room_id=room.pk, user=user, action=move[0], args=move[1])
                break
        else:
            raise AssertionError(("nobody has a move", state.phase, {k: view(state, k)["legal_actions"] for k in users}))
    raise AssertionError("the hand did not end")


def test_one_table_three_languages_each_reads_the_same_moment_in_their_own(browser, server, monkeypatch):
    make = get_user_model().objects.create_user
    people = {"zh-hans": make("li", "li@example.com", "a-long-password-1", language="zh-hans", display_name="李"),
              "it": make("gianni", "gianni@example.com", "a-long-password-1", language="it", display_name="Gianni"),
              "es": make("lola", "lola@example.com", "a-long-password-1", language="es", display_name="Lola")}
    room = services.room_create(host=people["zh-hans"], preset="ten-half")
    for user in people.values():
        services.seat_take(room_id=room.pk, user=user, buy_in=1000)
    browsers = {code: player_in(browser, server, user, code) for code, user in people.items()}
    for player in browsers.values():
        player.goto(f"/r/{room.code}/")
        player.wait_connected()
    services.action_submit(room_id=room.pk, user=people["zh-hans"], action="start")
    play_with_services(room, monkeypatch)
    # The hand's first hit or stand (every seat makes one: no hand ends its turns before a first move).
    events = HandEvent.objects.filter(hand=Hand.objects.filter(room=room).latest("number")).order_by("version", "seq")
    move = next(e.data for e in events if e.type == "action" and e.data.get("action") in ("hit", "stand")
                and not e.data.get("timeout"))
    msgid = {"hit": "%(name)s hits.", "stand": "%(name)s stands."}[move["action"]]
    name = next(s.user.public_name for s in Room.objects.get(pk=room.pk).seats.all() if s.engine_id == move["seat"])
    for code, player in browsers.items():
        line = translated(code, msgid).replace("%(name)s", name)
        player.page.locator("#feed li", has_text=line).first.wait_for()
        SHOTS.mkdir(parents=True, exist_ok=True)
        player.page.screenshot(path=str(SHOTS / f"one-table-{code}.png"), full_page=True)
        assert player.page.evaluate("document.documentElement.lang") == code
    for player in browsers.values():
        player.context.close()


def test_switching_language_at_the_table_keeps_the_seat_and_its_face_down_card(browser, server):
    user = get_user_model().objects.create_user("mei", "mei@example.com", "a-long-password-1", language="zh-hans")
    mei = player_in(browser, server, user, "zh-hans", viewport={"width": 390, "height": 844})
    page = mei.goto("/lobby/")
    page.click("button[data-practice='ten-half']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.click_enabled("#act-confirm")  # the practice bet, preset to the base stake: then the cards come
    mei.wait_view("v.you && v.hand && (v.hand.hands[v.you] || []).some(h => h.cards.some(c => c.card && !c.up))")
    before = mei.view()
    own = [c["card"] for h in before["hand"]["hands"][before["you"]] for c in h["cards"] if c.get("card")]
    page.click("#menu-button")
    page.select_option("#language-menu", "it")
    page.wait_for_function("document.documentElement.lang === 'it'")
    mei.wait_connected()
    mei.wait_view("v.you")
    after = mei.view()
    assert after["you"] == before["you"]
    assert [c["card"] for h in after["hand"]["hands"][after["you"]] for c in h["cards"] if c.get("card")][:len(own)] \
        == own
    user.refresh_from_db()
    assert user.language == "it"
    mei.context.close()
