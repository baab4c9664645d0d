"""The table's feed (static/js/feed.js) in a real browser: a player who lets the timers run out reads that the table
placed the default stake and stood for them, and why their hand won or lost; a refresh mid-hand tells the hand's
lines again, the same ones, from the snapshot's events; the lines about the player reach the screen reader's live
region. A newcomer, in English, Chinese, Italian or Spanish, reads why a 10½ lost to the bank's 10, and a practice
hand's feed tells each bet once and no step of the fair deal, which the menu's "Fair deal" tab lists. Screenshots at
1280 and 360 px go to test-artifacts/."""

import re
import secrets
import time
from pathlib import Path

import polib
import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Room
from tests.e2e.conftest import ARTIFACTS, TIMEOUT_MS, Player, log_in
from tests.games.conftest import Clock, act, expire, seat_of, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The reasons feed.js gives a result compared at the reveal (ten-half.md, "Comparing a challenger with the banker"),
# then the class that pays a multiplier above ×1.
REASON = re.compile(r": (bust with \S+(: a bust loses even when the bank busts too)?|the bank busts with \S+"
                    r"|.+ beats the bank's .+|the bank's .+ beats .+|tie at \S+: the bank wins ties"
                    r"|.+ against the bank's .+: the bank counts half a point more)(; .+ pays ×\d+)?\.$")
LOCALE = Path(__file__).resolve().parents[2] / "locale"
PHONE = {"width": 360, "height": 740}
LANGUAGES = ["en", "zh-hans", "it", "es"]
# feed.js's steps of the fair deal: listed in the menu's "Fair deal" tab, never in the feed.
FAIR_TYPES = ("seed_committed", "seed_received", "seed_awaited", "seed_missing", "hand_over")


@pytest.fixture
def wake_here(settings, monkeypatch):
    """This process applies a table's expired deadline (what the Celery timeout does) with its clock moved past it;
    the server's sockets pick the new versions up from the database within a second (games/consumers.py)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    settings.GAMES_BOT_SECONDS = 0
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)  # no socket in this process
    clock = Clock()
    monkeypatch.setattr("games.services.run._now", clock)
    return clock


def feed_lines(player, since_hand: bool = True) -> list[str]:
    """The feed's lines, from the current hand's first line on."""
    lines = player.page.locator("#feed li").evaluate_all(
        "lis => lis.map(li => [li.classList.contains('hand_started'), li.textContent])")
    starts = [i for i, (start, _text) in enumerate(lines) if start]
    first = starts[-1] if since_hand and starts else 0
    return [text for _start, text in lines[first:]]


def wait_feed(player, text: str):
    player.page.wait_for_function(
        "t => [...document.querySelectorAll('#feed li')].some(li => li.textContent.includes(t))", arg=text,
        timeout=TIMEOUT_MS)


def seat_named(player, name: str) -> str:
    return next(x["id"] for x in player.view()["seats"] if x["name"] == name)


def open_table(players, server, bob_viewport=None):
    alice = players(server, "alice").signup()
    bob = players(server, "bob", viewport=bob_viewport).signup()
    code = alice.create_room("ten-half", base_stake=10)
    bob.join(code)
    alice.sit(0, buy_in=1000)
    bob.sit(2, buy_in=500)
    alice.click_enabled("#host-start")
    alice.wait_view("v.legal_actions.includes('open_bank')")
    alice.page.fill("#amount-bank", "400")
    alice.click_enabled("#act-open_bank")
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    return alice, bob, Room.objects.get(code=code)


def test_a_player_who_times_out_reads_the_defaults_and_why_the_hand_went_as_it_did(server, players, wake_here):
    alice, bob, room = open_table(players, server)
    bob_seat = seat_named(bob, "bob")

    # bob never bets: the betting timer places the base stake for him.
    assert expire(room, wake_here) == "timeout"
    wait_feed(bob, "Time ran out for bob: default stake 10.")
    bob.wait_view("v.phase === 'playing'")
    wait_feed(alice, "bob is dealt a face-down card.")  # the banker learns only that a card was dealt
    own = [line for line in feed_lines(bob) if line.startswith("bob is dealt ")]
    assert len(own) == 1 and own[0].endswith(", face down.") and "face-down card" not in own[0]

    # bob never acts either: the action timer stands for him; alice stands when it is her turn.
    for _ in range(6):
        s = state(room)
        if s["phase"] != "playing":
            break
        if s["hand"]["turn"][0] == bob_seat:
            assert expire(room, wake_here) == "timeout"
        else:
            alice.wait_view("v.hand.turn && v.hand.turn.seat === v.you")
            alice.click_enabled("#act-stand")
            alice.page.wait_for_function("!window.halfpoint.state.busy")
    for p in (alice, bob):
        p.wait_view("v.hand && v.hand.over")
        wait_feed(p, "Time ran out for bob: stands.")

    result = next(r for r in bob.view()["hand"]["results"] if r["bettor"] == bob_seat)
    verb = {"win": "wins", "lose": "loses"}[result["outcome"]]
    sign = "+" if result["outcome"] == "win" else "−"
    expected = f"bob {verb} ×{result['multiplier']}, {sign}{result['paid']}: "
    line = bob.page.locator(f"#feed li.bet_settled[data-seat='{bob_seat}']").inner_text()
    assert line.startswith(expected), line
    assert REASON.search(line), line  # the result says why
    mine = bob.view()["hand"]["hands"][bob_seat][0]
    if mine["bust"]:
        assert "bust with" in line
    assert alice.page.locator(f"#feed li.bet_settled[data-seat='{bob_seat}']").inner_text() == line
    # The screen reader hears bob's own lines: his default stake, his card, his result.
    heard = bob.page.locator("#feed-live").inner_text()
    assert line in heard, heard
    assert bob.page.locator("#feed").evaluate("f => getComputedStyle(f).overflowY") == "auto"
    bob.page.locator("#feed").scroll_into_view_if_needed()
    bob.screenshot("feed-timeout-1280")
    table_lines = feed_lines(bob)
    assert not bob.page.locator(", ".join(f"#feed li.{kind}" for kind in FAIR_TYPES)).count()

    # The menu's "Fair deal" tab lists the hand's fair deal: the seeds in, the server seed revealed.
    bob.page.click("#menu-button")
    bob.page.click("#tab-fair")
    bob.page.locator("#fair-log li.hand_over", has_text="Hand 1 is over; its server seed is revealed.").wait_for()
    assert bob.page.locator("#fair-log li.seed_received").count() >= 1
    bob.page.screenshot(path=str(ARTIFACTS / "feed-fair-tab-1280.png"))
    bob.page.click("#menu-close")

    # The hand's record tells the same events in the same words.
    bob.page.click("#hand-record-link")
    bob.page.wait_for_url(re.compile(r"/hands/[\w-]{22}/$"))
    record = bob.page.locator("#events li").all_inner_texts()
    assert record[0] == table_lines[0] and record[0].startswith("Hand 1 starts")
    assert "Time ran out for bob: default stake 10." in record and "Time ran out for bob: stands." in record
    assert line in [text.strip() for text in record]
    bob.screenshot("feed-hand-record-1280")
    assert not bob.console_errors, bob.console_errors


def test_a_refresh_mid_hand_tells_the_same_lines_again(server, players):
    alice, bob, room = open_table(players, server, bob_viewport={"width": 360, "height": 740})
    bob.click_enabled("#actions .chips button:nth-child(2)")
    bob.click_enabled("#act-confirm")
    for p in (alice, bob):
        p.wait_view("v.phase === 'playing'")
    first = alice if alice.my_turn() else bob
    first.page.keyboard.press("h")  # a card more for whoever acts first (the feed tells it to both)
    first.page.wait_for_function("!window.halfpoint.state.busy")
    wait_feed(alice, "hits.")
    wait_feed(bob, "hits.")

    for p in (bob, alice):
        before = feed_lines(p)
        assert before[0].startswith("Hand 1 starts") and len(before) >= 8, before
        p.page.reload()
        p.wait_connected()
        p.page.wait_for_function("document.querySelectorAll('#feed li').length > 0")
        assert feed_lines(p) == before
        assert not p.page.locator("#feed-live p").count()  # a rebuilt feed is not read out again
    assert any(line.endswith(", face down.") and line.startswith("bob is dealt") for line in feed_lines(bob))
    assert "bob is dealt a face-down card." in feed_lines(alice)

    width = bob.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide on a 360 px screen"
    bob.page.locator("#feed").scroll_into_view_if_needed()
    bob.screenshot("feed-refresh-360")
    alice.page.locator("#feed").scroll_into_view_if_needed()
    alice.screenshot("feed-refresh-1280")


def say(code: str, msgid: str, **params) -> str:
    """`msgid` as feed.js writes it in language `code` (the catalogs' djangojs.po; English as written)."""
    text = msgid
    if code != "en":
        entry = polib.pofile(str(LOCALE / {"zh-hans": "zh_Hans"}.get(code, code) / "LC_MESSAGES" / "djangojs.po")).find(msgid)
        assert entry is not None and entry.msgstr, (code, msgid)
        text = entry.msgstr
    return text % params if params else text


def reader_in(browser, base: str, user, code: str) -> Player:
    """`user`, logged in, in a phone-sized browser speaking `code` (their profile's language)."""
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale={"zh-hans": "zh-CN", "en": "en-US"}.get(code, code))
    player = Player(context, base, user.username, [])
    log_in(context, base, user)
    return player


NAMES = {"en": "Carlos", "zh-hans": "小美", "it": "Giulia", "es": "Lola"}


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_ten_and_a_half_that_loses_to_the_banks_ten_says_why(server, browser, wake_here, monkeypatch, code):
    make = get_user_model().objects.create_user
    reader = make(f"reader-{code}", f"reader-{code}@example.com", "a-long-password-1", language=code,
                  display_name=NAMES[code])
    banker = make("banker", "banker@example.com", "a-long-password-1", display_name="Bea")
    room = services.room_create(host=banker, preset="ten-half")
    services.seat_take(room_id=room.pk, user=banker, buy_in=1000)
    services.seat_take(room_id=room.pk, user=reader, buy_in=500)

    def stacked(run):
        # ten-half.md "Order": a roll of 2 counts the bank, then the challenger, who is dealt first and plays first:
        # the 10 of spades, then the bank's 10 of hearts; the challenger's hit is the king: 10½ against 10.
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": secrets.token_hex(32), "deck": ["10S", "10H", "KS"], "dice": [1, 1]})

    monkeypatch.setattr("games.services.moves._start_hand", stacked)
    player = reader_in(browser, server, reader, code)
    page = player.goto(f"/r/{room.code}/")
    player.wait_connected()
    act(room, banker, "start")
    act(room, banker, "open_bank", amount=400)
    act(room, reader, "bet", amount=10)
    me = seat_of(room, reader)
    assert state(room)["hand"]["turn"][0] == me
    act(room, reader, "hit")  # the king: 10½ ends the turn
    act(room, banker, "stand")
    hands = state(room)["hand"]["hands"]
    assert [c[0] for c in hands[me][0]["cards"]] == ["10S", "KS"]
    player.wait_view("v.hand && v.hand.over")

    hand = say(code, "%(class)s (%(total)s)", **{"class": say(code, "ten and a half"), "total": "10½"})
    why = say(code, "%(hand)s against the bank's %(bank)s: the bank counts half a point more", hand=hand, bank="10")
    expected = say(code, "%(who)s loses ×%(mult)s, −%(paid)s: %(why)s.", who=NAMES[code], mult=1, paid=10, why=why)
    line = page.locator(f"#feed li.bet_settled[data-seat='{me}']")
    line.wait_for()
    assert line.inner_text() == expected
    assert page.evaluate("document.documentElement.lang") == code
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.locator("#feed").scroll_into_view_if_needed()
    line.scroll_into_view_if_needed()
    player.screenshot(f"feed-half-point-{code}-360")
    assert not player.console_errors, player.console_errors
    player.context.close()


def stand_until_over(player) -> None:
    """Confirm the practice bet, then stand at each turn (hit where standing is not allowed yet) until the hand ends."""
    page = player.page
    deadline = time.monotonic() + 40
    while not page.evaluate("(() => { const v = window.halfpoint.state.view; return !!(v && v.hand && v.hand.over); })()"):
        assert time.monotonic() < deadline, "the hand did not finish"
        for button in ("#act-confirm", "#act-stand", "#act-hit"):
            if page.locator(f"{button}:not([disabled])").count():
                page.click(button)
                page.wait_for_function("!window.halfpoint.state.busy")
                break
        else:
            time.sleep(0.1)


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_practice_hand_tells_each_bet_once_and_the_fair_deal_only_in_its_tab(server, browser, code):
    user = get_user_model().objects.create_user(f"p-{code}", f"p-{code}@example.com", "a-long-password-1",
                                                language=code, display_name=NAMES[code])
    player = reader_in(browser, server, user, code)
    page = player.goto("/lobby/")
    page.click("button[data-practice='ten-half']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    player.wait_view("v.you && v.hand")
    stand_until_over(player)
    # The hand is over when its fair-deal line is in the feed's lines (listed in the Fair deal tab, below).
    page.wait_for_function("document.querySelector('#feed li.hand_over') === null"
                           " && window.halfpoint.state.feed.some(l => l.fair && l.type === 'hand_over')")
    view = player.view()

    feed = page.locator("#feed li").evaluate_all("lis => lis.map(li => [li.className.split(' ')[0], li.dataset.seat, li.textContent])")
    kinds = [kind for kind, _seat, _text in feed]
    assert kinds[0] == "hand_started"
    assert not [kind for kind in kinds if kind in FAIR_TYPES or kind.startswith("seed_")], kinds
    # Each challenger's bet is one line (the practice stake preset with a chip, then confirmed, is still one bet).
    bets = [seat for kind, seat, _text in feed if kind in ("bet_confirmed", "bet_defaulted", "bet_changed")]
    challengers = sorted(view["hand"]["bets"])
    assert sorted(bets) == challengers and len(challengers) >= 2, feed
    mine = [text for kind, seat, text in feed if kind == "bet_confirmed" and seat == view["you"]]
    assert mine == [say(code, "%(name)s bets %(amount)s.", name=NAMES[code], amount=view["hand"]["bets"][view["you"]]["amount"])]
    settled = [text for kind, seat, text in feed if kind == "bet_settled" and seat == view["you"]]
    result = next(r for r in view["hand"]["results"] if r["bettor"] == view["you"])
    said = {"win": "%(who)s wins ×%(mult)s, +%(paid)s: %(why)s.", "lose": "%(who)s loses ×%(mult)s, −%(paid)s: %(why)s.",
            "push": "%(who)s: push, the stake of %(stake)s stays: %(why)s."}[result["outcome"]]
    before_why = say(code, said, who=NAMES[code], mult=result["multiplier"], paid=result["paid"], stake=result["stake"],
                     why="\0").split("\0")[0]
    assert len(settled) == 1 and settled[0].startswith(before_why) and len(settled[0]) > len(before_why) + 2, settled
    page.locator("#feed").scroll_into_view_if_needed()
    player.screenshot(f"feed-practice-{code}-360")

    # The menu's "Fair deal" tab lists every step of the fair deal the feed left out.
    page.click("#menu-button")
    page.click("#tab-fair")
    log = page.locator("#fair-log")
    log.wait_for()
    fair = log.locator("li").evaluate_all("lis => lis.map(li => [li.className.split(' ')[0], li.textContent])")
    assert {kind for kind, _text in fair} <= set(FAIR_TYPES)
    assert ("hand_over", say(code, "Hand %(n)s is over; its server seed is revealed.", n=view["hand"]["no"])) in [tuple(x) for x in fair]
    assert ("seed_committed", say(code, "The server's seed for hand %(n)s is committed.", n=view["hand"]["no"] + 1)) \
        in [tuple(x) for x in fair]
    assert page.locator("#fair-log-title").is_visible()
    log.scroll_into_view_if_needed()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a 360 px screen"
    page.screenshot(path=str(ARTIFACTS / f"feed-fair-tab-{code}-360.png"))  # the menu is fixed: what the screen shows
    assert not [e for e in player.console_errors if "navigator.vibrate" not in e], player.console_errors
    player.context.close()
