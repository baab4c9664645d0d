"""The replay on a hand's record page (static/js/replay.js) in a real browser: a hand played through the services,
stepped through with the keyboard alone, each step's cards read off the page and compared with what the record file
says each seat held by then (a side bettor's bet and result beside the felt); Home and End, play and pause with Space,
a link to a step (#step=N) that opens there for another reader of the hand and for nobody else, and the button that
copies it. Screenshots at 360 and 1280 px of a
middle step and the last step go to test-artifacts/."""

import re

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Hand, HandEvent
from tests.e2e.conftest import ARTIFACTS, PASSWORD, log_in
from tests.e2e.test_a11y import violations
from tests.games.conftest import act, seat_of, state, user_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
WIDE = {"width": 1280, "height": 800}

# The replay as drawn: the step, the event it stands for, and each seat's hands as card codes.
DRAWN = """() => {
  const root = document.querySelector("#replay");
  const seats = {};
  for (const seat of root.querySelectorAll("#replay-seats .seat")) {
    const hands = [...seat.querySelectorAll(".hand")].map((h) => [...h.querySelectorAll(".pcard")].map((c) => c.dataset.card));
    if (hands.some((h) => h.length)) seats[seat.dataset.seat] = hands;
  }
  return { step: Number(root.dataset.step), event: Number(root.dataset.event), count: root.querySelector("#replay-count").textContent,
           line: root.querySelector("#replay-line").textContent, seats };
}"""


def make_user(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD, display_name=name.capitalize())


@pytest.fixture
def played(settings, monkeypatch):
    """alice hosts and banks; bob stakes 20 and chen 30, dara side-bets 10 on bob; every hand draws until it holds
    two cards, then stands. erin never comes to the room. Returns the users and the finished hand."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # the hand stays the last one
    monkeypatch.setattr("games.broadcast._send", lambda room_id, message: None)  # no browser is at the table
    users = {name: make_user(name) for name in ("alice", "bob", "chen", "dara", "erin")}
    room = services.room_create(host=users["alice"], preset="ten-half", overrides={})
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=users[name], buy_in=500)
    services.seat_take(room_id=room.pk, user=users["dara"], role="side", buy_in=500)
    act(room, users["alice"], "start")
    act(room, users["alice"], "open_bank", amount=500)
    act(room, users["bob"], "bet", amount=20)
    act(room, users["dara"], "side_bet", backs=seat_of(room, users["bob"]), amount=10)
    act(room, users["chen"], "bet", amount=30)
    for _ in range(40):
        s = state(room)
        if s["phase"] != "playing":
            break
        seat, index = s["hand"]["turn"][0], s["hand"]["turn"][1]
        cards = s["hand"]["hands"][seat][index]["cards"]
        try:
            act(room, user_of(room, seat), "hit" if len(cards) < 2 else "stand")
        except services.GameError:
            act(room, user_of(room, seat), "stand")
    hand = Hand.objects.get(room=room, number=1)
    assert hand.is_over
    return users, hand


def expected_at(record: dict, events: list[dict], index: int) -> dict:
    """What the record file says each seat held once event `index` had happened: of each final hand, the cards
    among the first n dealt (the record's `dealt` is the order they left the deck), n the cards dealt by then."""
    n = sum(1 for e in events[:index + 1] if e["type"] == "card_dealt")
    out = {}
    for seat, hands in record["hands"].items():
        held = [[c for c in ph["cards"] if c in record["dealt"][:n]] for ph in hands]
        if any(held):
            out[seat] = held
    return out


def show_total(total) -> str:
    """feed.js's showTotal: 10.5 -> "10½", 0.5 -> "½"."""
    text = str(total)
    text = text[:-2] + "½" if text.endswith(".5") else text
    return "½" if text == "0½" else text


def open_replay(player, url: str):
    player.page.goto(player.base + url)
    player.page.wait_for_selector("#replay:not([hidden]) #replay-seats")
    return player.page


def test_stepping_through_a_hand_with_the_keyboard_draws_the_cards_each_seat_held(server, players, played):
    users, hand = played
    alice = players(server, "alice", viewport=PHONE)
    log_in(alice.context, alice.base, users["alice"])
    url = hand.get_absolute_url()
    page = open_replay(alice, url)
    record = page.request.get(f"{server}{url}record.json").json()
    events = [e.data for e in HandEvent.objects.filter(hand=hand).order_by("version", "seq")]
    assert not [e for e in events if e["type"] in ("card_discarded", "hand_split")]  # ten-half: cards only arrive
    assert record["dealt"] and len(record["dealt"]) == sum(len(ph["cards"]) for hands in record["hands"].values()
                                                          for ph in hands)

    # Nothing is focused: the keys belong to the replay. It opens at its first step.
    assert page.evaluate("document.activeElement === document.body")
    first = page.evaluate(DRAWN)
    total = int(re.fullmatch(r"Step 1 of (\d+)", first["count"]).group(1))
    assert first["step"] == 1 and first["seats"] == {} and first["line"].startswith("Hand 1 starts")
    seen, dealt_order = [first], []
    for k in range(2, total + 1):
        page.keyboard.press("ArrowRight")
        drawn = page.evaluate(DRAWN)
        assert drawn["step"] == k and drawn["count"] == f"Step {k} of {total}"
        assert drawn["event"] > seen[-1]["event"]  # each step a later event
        assert drawn["seats"] == expected_at(record, events, drawn["event"]), (k, drawn)
        before = {c for hands in seen[-1]["seats"].values() for h in hands for c in h}
        dealt_order += [c for hands in drawn["seats"].values() for h in hands for c in h if c not in before]
        seen.append(drawn)
    # Every card appeared at a step of its own, in the order it left the deck, and the last step is the record's.
    assert dealt_order == record["dealt"]
    card_events = [i for i, e in enumerate(events) if e["type"] == "card_dealt"]
    assert set(card_events) <= {s["event"] for s in seen}
    last = seen[-1]
    assert last["seats"] == {seat: [ph["cards"] for ph in hands] for seat, hands in record["hands"].items()}
    assert events[last["event"]]["type"] == "hand_over" and last["line"].startswith("Hand 1 is over")
    page.keyboard.press("ArrowRight")  # past the end: stays
    assert page.evaluate(DRAWN)["step"] == total

    # At the end: every hand's total, the bank's badge, and each bet's result as the record has them.
    for seat, hands in record["hands"].items():
        for i, ph in enumerate(hands):
            info = page.locator(f"#replay-seats .seat[data-seat='{seat}'] .hand[data-hand='{i}'] .hand-info").inner_text()
            want = f"{show_total(ph['total'])} bust" if ph["bust"] else show_total(ph["total"])
            assert info.split(" · ")[0] == want, (seat, info, ph)
    banker = record["banker"]
    assert page.locator(f"#replay-seats .seat[data-seat='{banker}'] .badge.bank").count() == 1
    for r in record["results"]:
        if r["kind"] == "main":
            outcome = page.locator(f"#replay-seats .seat[data-seat='{r['bettor']}'] .seat-result").first
            assert outcome.get_attribute("data-outcome") == r["outcome"]
    side = next(r for r in record["results"] if r["kind"] == "side")
    bettor = page.locator(f"#replay-sides li[data-seat='{side['bettor']}']")
    assert "Dara · 10 on Bob ✓" in bettor.inner_text()
    assert bettor.locator(".seat-result").get_attribute("class") == f"seat-result {side['outcome']}"

    # Back one, then Home and End go to the ends.
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(DRAWN)["step"] == total - 1
    page.keyboard.press("Home")
    assert page.evaluate(DRAWN)["step"] == 1 and page.evaluate(DRAWN)["seats"] == {}
    page.keyboard.press("End")
    assert page.evaluate(DRAWN)["seats"] == last["seats"]

    # Another control has the focus: the keys are its own. A replay button has it: the keys step again.
    page.focus("#verify-run")
    page.keyboard.press("Home")
    assert page.evaluate(DRAWN)["step"] == total
    page.focus("#replay-copy")
    page.keyboard.press("Home")
    assert page.evaluate(DRAWN)["step"] == 1
    assert page.url.endswith(f"{url}#step=1")  # the address names the step shown

    # Space plays from the page; again, it pauses.
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    assert page.get_attribute("#replay-play", "aria-label") == "Pause"
    page.wait_for_function("Number(document.querySelector('#replay').dataset.step) >= 3")
    page.keyboard.press(" ")
    assert page.get_attribute("#replay-play", "aria-label") == "Play"
    paused = page.evaluate(DRAWN)["step"]
    page.wait_for_timeout(1500)  # longer than a step of the autoplay
    assert page.evaluate(DRAWN)["step"] == paused
    assert not alice.console_errors, alice.console_errors


def test_a_link_to_a_step_opens_there_for_readers_and_the_copy_button_gives_it(server, players, browser, played):
    users, hand = played
    url = hand.get_absolute_url()
    alice = players(server, "alice", viewport=WIDE)
    log_in(alice.context, alice.base, users["alice"])
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = open_replay(alice, url)
    record = page.request.get(f"{server}{url}record.json").json()
    events = [e.data for e in HandEvent.objects.filter(hand=hand).order_by("version", "seq")]
    total = int(re.search(r"of (\d+)$", page.locator("#replay-count").inner_text()).group(1))
    middle = total // 2 + 1
    for _ in range(middle - 1):
        page.click("#replay-next")
    page.click("#replay-copy")
    link = f"{server}{url}#step={middle}"
    page.wait_for_function("document.querySelector('#replay-copied').textContent !== ''")
    assert page.evaluate("navigator.clipboard.readText()") == link
    assert page.input_value("#replay-url") == link
    assert page.locator("#replay-copied").inner_text() == f"Link to step {middle} copied."
    at_middle = page.evaluate(DRAWN)
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#replay").screenshot(path=str(ARTIFACTS / "replay-copied-1280.png"))

    # bob sat at the table: the link opens at that step for him, drawn as it was for alice.
    bob = players(server, "bob", viewport=PHONE)
    log_in(bob.context, bob.base, users["bob"])
    bob.page.goto(link)
    bob.page.wait_for_selector("#replay:not([hidden]) #replay-seats")
    drawn = bob.page.evaluate(DRAWN)
    assert drawn["count"] == f"Step {middle} of {total}" and drawn == at_middle
    assert drawn["seats"] == expected_at(record, events, drawn["event"])
    # erin never came to the room: the link leads nowhere, as the record does for her.
    erin = players(server, "erin", viewport=PHONE)
    log_in(erin.context, erin.base, users["erin"])
    assert erin.page.goto(link).status == 404
    # A step past the end opens at the last one.
    bob.page.goto(f"{server}{url}#step=999")
    bob.page.wait_for_function(f"document.querySelector('#replay').dataset.step === '{total}'")
    assert not alice.console_errors and not bob.console_errors, (alice.console_errors, bob.console_errors)


def test_the_replay_fits_a_phone_with_thumb_sized_controls_and_looks_right_wide(server, players, played):
    users, hand = played
    url = hand.get_absolute_url()
    bob = players(server, "bob", viewport=PHONE)
    log_in(bob.context, bob.base, users["bob"])
    page = open_replay(bob, url)
    total = int(re.search(r"of (\d+)$", page.locator("#replay-count").inner_text()).group(1))
    for size, viewport in (("360", PHONE), ("1280", WIDE)):
        page.set_viewport_size(viewport)
        for name, step in (("middle", total // 2 + 1), ("last", total)):
            page.goto(f"{server}{url}#step={step}")
            page.wait_for_function(f"document.querySelector('#replay').dataset.step === '{step}'")
            width = page.evaluate("document.scrollingElement.scrollWidth")
            assert width <= viewport["width"], f"{width} px wide at {size}"
            for button in ("first", "prev", "play", "next", "last"):
                box = page.locator(f"#replay-{button}").bounding_box()
                assert box["width"] >= 44 and box["height"] >= 44, (size, button, box)
                assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (size, button, box)
            page.evaluate("window.scrollTo(0, document.querySelector('#replay').offsetTop - 8)")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"replay-{name}-{size}.png"))
    page.set_viewport_size(PHONE)
    assert violations(page) == []
    # Every control is named for a screen reader, and the step's words are read out as they change.
    for button in ("first", "prev", "play", "next", "last"):
        assert page.get_attribute(f"#replay-{button}", "aria-label")
    assert page.get_attribute("#replay-now", "aria-live") == "polite"
    assert not bob.console_errors, bob.console_errors

