"""A night at a table of four friends, one of them in the screen-reader mode (docs/accessibility.md): the player in the
mode hosts it with the keyboard alone (V turns the mode on and their profile keeps it, A and Tab reach the host's
Deal button and the bank's decision, 0, a digit and Enter bet, H and S play), banks the first hand, and the bank passes
from hand to hand (the bank by turns of one hand); three sighted friends click. Every feed line the player in the
mode's page tells is announced once, in order; the sighted friends' pages are the sighted table: no `blind` class, no
#blind, the felt shown, and the ids and classes of their table area are those of a sighted page at a table where
nobody is in the mode, at the same moments (before the first hand, a bet to place, a hand over with the bank offered
to them). The latencies are printed (`-s`)."""

import time

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
    install_log,
    latencies,
    only_this_server,
    person,
    report,
    spoken,
    to_command_box,
    wait_mode,
)
from tests.e2e.conftest import ARTIFACTS
from tests.games.conftest import act, seat_of, state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RULES = {"bank_turn_hands": 1}  # Ten and a Half's bank by turns, one hand each: the bank changes hands every hand
HANDS = 3
# Classes that say how a moment stands (an outcome, the clock's urgency, a connection: its dot, a seat offline; the hand
# being played, a bet locked), not what the page is made of: they differ between two tables by the cards and the clock.
STATE_CLASSES = {"win", "lose", "push", "void", "urgent", "on", "off", "offline", "active", "locked", "mine", "selected",
                 "needed", "red", "black"}
# The ids and classes of a page's table area: the body's classes, the felt, the side seats, the controls, the results,
# the host's controls and the fair deal, and which of them are hidden; cards' insides (their faces) left out.
SHAPE_JS = """(state) => {
  const out = new Set();
  for (const c of document.body.classList) out.add("body." + c);
  if (document.getElementById("blind")) out.add("#blind");
  for (const sel of ["#felt", "#side-seats", "#actions", "#results", "#host-controls", "#fair-deal"]) {
    const root = document.querySelector(sel);
    if (!root) { out.add("no " + sel); continue; }
    if (root.hidden || !root.getClientRects().length) out.add("hidden " + sel);
    for (const el of [root, ...root.querySelectorAll("*")]) {
      if (el.parentElement && el.parentElement.closest(".pcard")) continue;
      if (el.id) out.add("#" + el.id);
      for (const c of el.classList) if (!state.includes(c)) out.add(el.tagName.toLowerCase() + "." + c);
    }
  }
  return [...out].sort();
}"""
NAMES = ("Ruolan", "Zaira", "Oksana", "Taavi")


def shape(player) -> list[str]:
    return player.page.evaluate(SHAPE_JS, sorted(STATE_CLASSES))


def sighted_table(player) -> None:
    page = player.page
    assert not page.evaluate("document.body.classList.contains('blind')"), "a sighted page has the class blind"
    assert page.locator("#blind, #blind-live, #blind-command").count() == 0, "a sighted page has the mode's document"
    assert page.locator("#felt").is_visible(), "a sighted page's felt is hidden"
    assert not page.evaluate("!!(window.halfpoint && window.halfpoint.blind)")


def reference_shapes(browser, server, make) -> dict[str, list[str]]:
    """A table of four sighted players, nobody in the mode: the shapes of the second seat's page before the first hand,
    with a bet to place, and with the hand over and the bank offered to it (the host's page open too, as at the night's
    table; the other two seats play from this process)."""
    users = [make(f"ref{i}", display_name=f"Ref{i}") for i in range(4)]
    room = services.room_create(host=users[0], preset="ten-half", overrides=RULES)
    for i, u in enumerate(users):
        services.seat_take(room_id=room.pk, user=u, buy_in=1000, position=i)
    host = person(browser, server, users[0], "en", WIDE)
    ref = person(browser, server, users[1], "en", WIDE)
    for p in (host, ref):
        p.goto(f"/r/{room.code}/")
        p.wait_connected()
    ref.wait_view("v.seats.length === 4")
    shapes = {"waiting": shape(ref)}
    # The host's page deals and opens the bank (a hand started from this process would judge the pages' presence by
    # the server's beats in the cache); the bets and the stands are made here.
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    host.page.fill("#amount-bank", "400")
    host.click_enabled("#act-open_bank")
    ref.wait_view("v.phase === 'betting' && v.legal_actions.includes('bet')")
    ref.page.wait_for_selector("#act-confirm")
    shapes["betting"] = shape(ref)
    for u in users[1:]:
        act(room, u, "bet", amount=10)
    for _ in range(40):
        s = state(room)
        if s["phase"] != "playing":
            break
        seat = s["hand"]["turn"][0]
        user = next(u for u in users if seat_of(room, u) == seat)
        act(room, user, "stand")
    ref.wait_view("v.hand && v.hand.over && v.pending && v.pending.seat === v.you")
    ref.page.wait_for_selector("#act-open_bank")
    ref.page.wait_for_selector("#results-table")
    shapes["offered"] = shape(ref)
    host.context.close()
    ref.context.close()
    return shapes


def test_a_night_hosted_by_a_player_in_the_mode_at_a_table_of_sighted_friends(server, browser, here):
    model = get_user_model()

    def make(username, **extra):
        return model.objects.create_user(username, f"{username}@example.com", "a-long-password-1", **extra)

    reference = reference_shapes(browser, server, make)

    users = [make(f"night{i}", display_name=name) for i, name in enumerate(NAMES)]
    host = users[0]
    room = services.room_create(host=host, preset="ten-half", overrides=RULES)
    for i, u in enumerate(users):
        services.seat_take(room_id=room.pk, user=u, buy_in=1000, position=i)
    blind = person(browser, server, host, "en", PHONE)
    friends = [person(browser, server, u, "en", PHONE if i % 2 else WIDE) for i, u in enumerate(users[1:])]
    for p in [blind, *friends]:
        p.goto(f"/r/{room.code}/")
        p.wait_connected()
    # V, with the focus on the page: the mode comes on and the profile keeps it.
    assert not blind.page.evaluate("document.body.classList.contains('blind')")
    blind.page.keyboard.press("KeyV")
    wait_mode(blind)
    at_start = install_log(blind)
    for _ in range(100):
        host.refresh_from_db()
        if host.screen_reader:
            break
        time.sleep(0.05)
    assert host.screen_reader, "V did not keep the mode on the profile"
    to_command_box(blind)
    for f in friends:
        f.wait_view("v.seats.length === 4")
        sighted_table(f)
    shapes = {"waiting": shape(friends[0])}

    me = {p: p.view()["you"] for p in [blind, *friends]}
    roles: dict[int, str] = {}
    over: set[int] = set()
    sent: list[dict] = []
    deadline = time.monotonic() + 150

    def click(p, selector, line_type):
        version = p.page.evaluate("window.halfpoint.state.version")
        after = len(feed_lines(blind))
        t = click_timed(p, selector)
        if t is None:
            return False
        sent.append({"t": t, "seat": me[p], "type": line_type, "after": after})
        try:
            p.page.wait_for_function(f"window.halfpoint.state.version > {version} && !window.halfpoint.state.busy",
                                     timeout=5000)
        except Exception:  # noqa: BLE001 - refused or late: the loop looks again
            pass
        return True

    def friend_step(p) -> bool:
        v = p.view()
        legal, hand, pending = v["legal_actions"], v.get("hand"), v.get("pending")
        if pending and pending["seat"] == v["you"] and "open_bank" in legal:
            if p is friends[0] and "offered" not in shapes:
                p.page.wait_for_selector("#act-open_bank")
                shapes["offered"] = shape(p)
            p.page.fill("#amount-bank", "400")
            return click(p, "#act-open_bank", "bank_opened")
        if v["phase"] == "betting" and "bet" in legal:
            if p is friends[0] and "betting" not in shapes:
                p.page.wait_for_selector("#act-confirm")
                shapes["betting"] = shape(p)
            return click(p, "#act-confirm", "bet_confirmed")
        if v["phase"] == "playing" and hand and hand["turn"] and hand["turn"]["seat"] == v["you"] and "stand" in legal:
            return click(p, "#act-stand", "action")
        return False

    def blind_step() -> bool:
        v = blind.view()
        legal, hand, pending = v["legal_actions"], v.get("hand"), v.get("pending")
        if pending and pending["seat"] == v["you"] and "open_bank" in legal:
            act_by_keys(blind, "#act-open_bank", "!v.pending || v.pending.seat !== v.you")
            return True
        if v["phase"] == "betting" and "bet" in legal:
            command(blind, "Digit0")
            command(blind, "Digit1")
            command(blind, "Enter")
            blind.wait_view("!v.legal_actions.includes('bet')")
            return True
        if v["phase"] == "playing" and hand and hand["turn"] and hand["turn"]["seat"] == v["you"]:
            total = hand["hands"][v["you"]][hand["turn"]["hand"]].get("total", 0)
            version = blind.page.evaluate("window.halfpoint.state.version")
            command(blind, "KeyH" if total < 5 or "stand" not in legal else "KeyS")
            blind.page.wait_for_function(f"window.halfpoint.state.version > {version} && !window.halfpoint.state.busy")
            return True
        idle = not hand or hand["over"]
        if idle and not pending and len(over) < HANDS and blind.page.locator("#host-start:not([disabled])").count():
            # every friend's page has the hand over before the next is dealt (the shapes are read at that moment)
            for f in friends:
                f.wait_view("!v.hand || v.hand.over")
            no = hand["no"] if hand else 0
            act_by_keys(blind, "#host-start", f"v.phase !== {v['phase']!r} || (!!v.hand && v.hand.no !== {no})")
            return True
        return False

    while len(over) < HANDS:
        assert time.monotonic() < deadline, f"the night did not finish: banker by hand {roles}, hands over {over}"
        v = blind.view()
        if v.get("hand") and v.get("banker") and not v["hand"]["over"]:
            roles[v["hand"]["no"]] = v["banker"]
        if v.get("hand") and v["hand"]["over"] and v["hand"]["no"] in roles and v["hand"]["no"] not in over:
            over.add(v["hand"]["no"])
            for f in friends:
                sighted_table(f)
            continue
        if not (blind_step() or any(friend_step(f) for f in friends)):
            time.sleep(0.05)
    blind.wait_view("v.hand && v.hand.over")

    assert roles.get(1) == me[blind], f"the player in the mode did not bank the first hand: {roles}"
    assert len(set(roles.values())) >= 2, f"the bank never changed hands: {roles}"
    lines, start = assert_announced_once_in_order(blind, at_start)
    split = assert_bursts(blind)
    print(f"\nbursts said in two announcements: {len(split)} (gaps {[round(g) for g in split]} ms)")
    for f in friends:
        sighted_table(f)
        errors = [e for e in f.console_errors if "navigator.vibrate" not in e]
        assert not errors, errors
    for moment in ("waiting", "betting", "offered"):
        assert moment in shapes, f"the friend's page was not read at the moment {moment!r}"
        extra = sorted(set(shapes[moment]) - set(reference[moment]))
        missing = sorted(set(reference[moment]) - set(shapes[moment]))
        assert not extra and not missing, (f"{moment}: a sighted page at the mode's table differs from one at a sighted"
                                           f" table: more {extra}, less {missing}")
    print(f"\nthe night: {len(over)} hands, banker by hand {roles}, {len(lines) - start} lines in "
          f"{len(spoken(blind))} announcements")
    report("blind announce latency (night)", latencies(blind))
    report("blind command-to-announcement latency (night)", command_latencies(blind, sent))
    ARTIFACTS.mkdir(exist_ok=True)
    blind.page.screenshot(path=str(ARTIFACTS / "blind-night-360.png"), full_page=True)
    friends[0].page.screenshot(path=str(ARTIFACTS / "blind-night-friend-1280.png"), full_page=True)
    errors = [e for e in blind.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
    only_this_server([blind, *friends])
