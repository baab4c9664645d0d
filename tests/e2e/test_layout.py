"""The table's layout and every page's width, measured in Chromium at phone, tablet and desktop sizes.

The seats play through the services layer (the rules' own `basic` bot decides for each of them); one
browser page, logged in as the player whose turn is checked, is reloaded at each viewport at that moment
(then turned from portrait to landscape and back without a reload) and again when the hand is over. From bounding boxes: no two seats' boxes intersect (nor the centre's,
on the felt), nothing in a seat reaches outside it, the player's own cards and total are inside the
viewport and on top (`document.elementFromPoint` finds the own seat at their centres and corners), and
no page scrolls sideways. The deals are random, so each game's longest hands (five dragons at every seat, Zhejiang's
9 cards, Seven and a Half's 12) are also dealt from a stacked deck and checked in the banker's seat, the widest of
one's own. Screenshots: test-artifacts/layout/.
"""

import pytest
from django.contrib.auth import get_user_model

from games import clubs, services
from games.engine import bot_decide
from games.engine.rules import Rules
from games.models import Hand
from games.selectors import snapshot
from games.services import GameError
from tests.e2e.conftest import ARTIFACTS, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "layout"
VIEWPORTS = {  # portrait and landscape: phones, a tablet, a laptop
    "360x740": (360, 740), "740x360": (740, 360), "390x844": (390, 844), "844x390": (844, 390),
    "768x1024": (768, 1024), "1024x768": (1024, 768), "1280x800": (1280, 800),
}
ROTATIONS = {"turned-740x360": (740, 360), "turned-back-360x740": (360, 740)}  # after 1280x800, the last of VIEWPORTS
SLOW = {"bet_seconds": 600, "act_seconds": 600, "bank_seconds": 600}  # no deadline runs out mid-check
GAMES = {
    "ten-half": ("ten-half", {}, 4, 0),
    "seven-half": ("seven-half", {}, 4, 0),
    "zhejiang-ten-half": ("zhejiang-ten-half", {}, 4, 0),
    "ban-luck": ("ban-luck", {}, 4, 0),
    "seven-half-12-seats": ("seven-half", {"max_main_seats": 8, "side_bets_enabled": True, "max_side_bettors": 4}, 8, 4),
}
NAMES = ["alice", "bob", "chen", "dara", "emeka", "farida", "gustavo", "hiroko", "ingrid", "jamal", "kwame",
         "ludmila"]

# Problems with the table as drawn, as a list of strings (empty: all good). `own` also checks the
# player's own cards and total: inside the viewport and the topmost thing at their centre and corners.
HELPERS = """
  const box = (el) => el.getBoundingClientRect();
  const shown = (el) => { const r = box(el); return r.width > 0 && r.height > 0; };
  const label = (el) => el.dataset.seat || el.dataset.pos || el.id || el.className;
  // What of each seat's own reaches outside it (a card, the total, the name), and a seat that scrolls sideways.
  const seatsHold = (seats) => seats.flatMap((seat) => {
    const r = box(seat);
    const out = [...seat.querySelectorAll("*")].filter(shown).filter((el) => {
      const e = box(el);
      return e.left < r.left - 1 || e.right > r.right + 1 || e.top < r.top - 1 || e.bottom > r.bottom + 1;
    }).map((el) => `in seat ${label(seat)}: ${el.tagName.toLowerCase()}.${el.className} "${el.textContent.slice(0, 30)}" is outside it`);
    return seat.scrollWidth > seat.clientWidth + 1 ? [...out, `seat ${label(seat)} overflows sideways`] : out;
  });
"""
CHECK_TABLE = """(own) => {
  const out = [];""" + HELPERS + """
  const seats = [...document.querySelectorAll("#seats .seat, #side-seats .side-list li")].filter(shown);
  const boxes = seats.map((el) => [label(el), box(el)]);
  const center = document.querySelector("#center");
  if (shown(center)) boxes.push(["center", box(center)]);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i], [b, rb] = boxes[j];
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 0.5 && h > 0.5) out.push(`boxes ${a} and ${b} intersect`);
    }
  }
  out.push(...seatsHold(seats));
  for (const sel of ["#results", "#actions", "#side-seats", "#center", "#fair-deal"]) {
    const el = document.querySelector(sel);
    if (el && shown(el) && el.scrollWidth > el.clientWidth + 1) out.push(`${sel} is cut off (${el.scrollWidth} > ${el.clientWidth})`);
  }
  const doc = document.scrollingElement;
  if (doc.scrollWidth > innerWidth) out.push(`the page scrolls sideways (${doc.scrollWidth} > ${innerWidth})`);
  if (own) {
    const me = document.querySelector("#seats .seat.me");
    const parts = me ? [...me.querySelectorAll(".hand .pcard"), ...me.querySelectorAll(".hand-info")] : [];
    if (!me) out.push("no own seat");
    else if (!me.querySelector(".hand .pcard") || !me.querySelector(".hand-info")) out.push("no own cards or total");
    for (const el of parts) {
      const r = box(el);
      const what = `${el.className} "${el.textContent.slice(0, 20)}"`;
      if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) {
        out.push(`${what} is not inside the viewport (${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.right)},${Math.round(r.bottom)})`);
        continue;
      }
      const points = [[(r.left + r.right) / 2, (r.top + r.bottom) / 2], [r.left + 2, r.top + 2], [r.right - 2, r.top + 2],
        [r.left + 2, r.bottom - 2], [r.right - 2, r.bottom - 2]];
      for (const [x, y] of points) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !me.contains(hit)) {
          out.push(`${what} is covered at (${Math.round(x)},${Math.round(y)}) by ${hit ? hit.tagName.toLowerCase() + "#" + hit.id + "." + hit.className : "nothing"}`);
          break;
        }
      }
    }
  }
  return out;
}"""

# What reaches past the right edge (an element, or the text in it), outside any scrolling box: for the failure message.
WIDEST = """[...document.querySelectorAll("body *")].filter((e) => {
    if (e.closest(".visually-hidden") || (e.getBoundingClientRect().right <= innerWidth + 0.5 && e.scrollWidth <= e.clientWidth + 1)) return false;
    for (let p = e; p; p = p.parentElement) if (p !== e && getComputedStyle(p).overflowX !== "visible") return p === document.body;
    return true; })
  .slice(-3).map((e) => `${e.tagName.toLowerCase()}.${e.className} "${e.textContent.trim().slice(0, 30)}"`).join("; ")"""
# The page's width past the viewport, or a box on it that scrolls sideways (a table in a scrolling box counts).
PAGE_WIDTH = """(() => {
  const doc = document.scrollingElement;
  if (doc.scrollWidth > innerWidth) return `the page: ${doc.scrollWidth}`;
  for (const e of document.querySelectorAll("body *")) {
    const x = getComputedStyle(e).overflowX;
    if ((x === "auto" || x === "scroll") && e.scrollWidth > e.clientWidth + 1 && e.getBoundingClientRect().height > 0) {
      return `${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`;
    }
  }
  return null;
})()"""


# Display names as long as they may be (40 characters), one with no space to break it at.
LONG_NAMES = {"alice": "Alice Longbottom-Featherstonehaugh Smyth", "bob": "Wolfeschlegelsteinhausenbergerdorff_III"}


def make_user(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", "a-long-table-password-1",
                                                display_name=LONG_NAMES.get(name, name.capitalize()))


def views(room, users):
    return [(u, snapshot(room, u)["view"]) for u in users]


def drive(room, users, stop, limit: int = 400, decide=None):
    """Every seat plays as the `basic` bot would (or as `decide(view, rules)` says), one command at a time,
    until `stop(view)` holds for one of them: that (user, view) is returned. Side bettors back the first
    challenger with a bet; the host deals the next hand when one ends first."""
    rules = Rules.from_json(room.rules)
    decide = decide or (lambda v, r: bot_decide(v, "basic", r))
    for _ in range(limit):
        seen = views(room, users)
        for u, v in seen:
            if stop(v):
                return u, v
        for u, v in seen:
            legal = v["legal_actions"]
            if "side_bet" in legal and v["hand"] and v["hand"].get("bets"):
                try:
                    services.action_submit(room_id=room.pk, user=u, action="side_bet",
                                           args={"backs": next(iter(v["hand"]["bets"])), "amount": rules.base_stake})
                    break
                except GameError:
                    pass
            decision = decide(v, rules)
            if decision:
                services.action_submit(room_id=room.pk, user=u, action=decision[0], args=decision[1])
                break
        else:
            # The hand ended before `stop` held (the deal decides: a natural may settle it at once): the next one.
            assert seen[0][1]["phase"] in ("waiting", "between_hands"), f"nobody has a move: {seen[0][1]['phase']}"
            services.action_submit(room_id=room.pk, user=users[0], action="start")
    raise AssertionError("the table never got there")


def last_challenger_turn(v) -> bool:
    """The turn of the last challenger in the order (the others have played: their cards and results show)."""
    hand = v.get("hand")
    if v["phase"] != "playing" or not hand or not hand.get("turn") or hand["turn"]["seat"] != v["you"]:
        return False
    challengers = [s for s in hand["order"] if s != v["banker"]]
    return v["you"] == challengers[-1]


def hand_over(v) -> bool:
    return bool(v.get("hand") and v["hand"].get("over"))


def seat_players(settings, monkeypatch, preset, overrides, mains, sides):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # the hand stays on the table once it is over
    monkeypatch.setattr("games.broadcast._send", lambda room_id, message: None)  # the browser resyncs by itself
    users = [make_user(name) for name in NAMES[:mains + sides]]
    room = services.room_create(host=users[0], preset=preset, overrides={**SLOW, **overrides})
    for i, u in enumerate(users):
        if i < mains:
            services.seat_take(room_id=room.pk, user=u, position=i, buy_in=room.buy_in_max)
        else:
            services.seat_take(room_id=room.pk, user=u, role="side", buy_in=room.buy_in_max)
    services.action_submit(room_id=room.pk, user=users[0], action="start")
    return room, users


FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"  # drawn, scrolled


def open_at(page, url: str, size: tuple[int, int], ready: str) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(url)
    page.wait_for_function(f"(() => {{ const v = window.halfpoint && window.halfpoint.state.view; return !!v && ({ready}); }})()")
    page.evaluate(FRAMES)


def player_page(browser, server, user):
    """A browser context logged in as `user` (English) and its page: (context, page)."""
    context = browser.new_context(locale="en-US", bypass_csp=True)
    log_in(context, server, user)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


MY_TURN = "v.phase === 'playing' && v.hand.turn && v.hand.turn.seat === v.you"


def shot(page, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


@pytest.mark.parametrize("case", list(GAMES))
def test_the_table_layout_holds_at_every_screen_size(case, server, browser, settings, monkeypatch):
    preset, overrides, mains, sides = GAMES[case]
    room, users = seat_players(settings, monkeypatch, preset, overrides, mains, sides)
    player, v = drive(room, users, last_challenger_turn)
    context, page = player_page(browser, server, player)
    url = server + room.get_absolute_url()
    problems = {}
    for name, size in VIEWPORTS.items():
        open_at(page, url, size, MY_TURN)
        shot(page, f"{case}-{name}-turn")
        found = page.evaluate(CHECK_TABLE, True)
        if found:
            problems[f"{name} turn"] = found
    for name, size in ROTATIONS.items():  # the phone turned on its side mid-turn, no reload
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.evaluate(FRAMES)
        shot(page, f"{case}-{name}-turn")
        found = page.evaluate(CHECK_TABLE, True)
        if found:
            problems[f"{name} turn"] = found
    drive(room, users, hand_over)
    for name, size in VIEWPORTS.items():
        open_at(page, url, size, "!!v.hand && v.hand.over")
        page.wait_for_selector("#results-table")
        shot(page, f"{case}-{name}-over", full=True)
        found = page.evaluate(CHECK_TABLE, False)
        if found:
            problems[f"{name} over"] = found
    context.close()
    assert not problems, "\n".join(f"{where}: {p}" for where, found in problems.items() for p in found)


def test_no_page_scrolls_sideways(server, browser, settings, monkeypatch):
    """Every page of the site, signed out and in, with a hand played (records, wallet, hand record, chain)."""
    room, users = seat_players(settings, monkeypatch, "ten-half", {}, 4, 0)
    drive(room, users, hand_over)
    host = users[0]
    club = clubs.club_create(owner=host, name="The Long Night Owls of the Harbour Club")
    hand = Hand.objects.get(room=room, number=1)
    context = browser.new_context(locale="en-US", bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    anonymous = {"home": "/", "login": "/accounts/login/", "signup": "/accounts/signup/",
                 "password-reset": "/accounts/password/reset/"}
    signed_in = {"lobby": "/lobby/", "table": room.get_absolute_url(), "room-hands": f"/r/{room.code}/hands/",
                 "records": "/records/", "hand": hand.get_absolute_url(), "wallet": "/wallet/", "profile": "/profile/",
                 "clubs": "/clubs/", "club": club.get_absolute_url(), "verify": "/verify/",
                 "distribution": "/verify/distribution/", "chain": f"/r/{room.code}/chain/"}
    signed_in |= {f"rules-{p}": f"/rules/{p}/" for p in ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")}
    wide = {}
    for pages in (anonymous, signed_in):
        if pages is signed_in:
            log_in(context, server, host)
        for label, path in pages.items():
            for name, (w, h) in VIEWPORTS.items():
                page.set_viewport_size({"width": w, "height": h})
                response = page.goto(server + path)
                assert response.status == 200, (path, response.status)
                if label == "table":
                    page.wait_for_function("!!(window.halfpoint && window.halfpoint.state.view)")
                if label == "hand":
                    page.wait_for_selector("#verify-results li")  # the shuffle check, drawn by the page's script
                width = page.evaluate(PAGE_WIDTH)
                if width is not None:
                    wide.setdefault(path, []).append(f"{name}: {width}: " + page.evaluate(WIDEST))
                if name in ("360x740", "1280x800"):
                    shot(page, f"page-{label}-{name}", full=True)
    context.close()
    assert not wide, wide


# The most cards a hand holds in each game, stacked on the deck's top: cards so small that nobody goes over, so each
# hand that draws reaches its game's limit. Every seat draws in Ten and a Half (five dragons all round); in the
# others only the banker does (the deck holds too few small cards for all), whose own seat is checked: Zhejiang's extended mode ends a
# hand at 9 cards, and Seven and a Half's ½ cards and aces make an exact 7½ with 12.
FRENCH_SMALL = [f"{r}{s}" for r in ("J", "Q", "K") for s in "SHDC"] + [f"A{s}" for s in "SHDC"]
SPANISH_SMALL = [f"{r}{s}" for r in ("J", "N", "K") for s in "OCEB"] + [f"1{s}" for s in "OCEB"]
LONGEST = {  # case: (preset, overrides, the deck's top, every seat draws, the banker's cards at the end)
    "ten-half-five-dragons": ("ten-half", {}, FRENCH_SMALL + [f"2{s}" for s in "SHDC"], True, 5),
    "zhejiang-extended": ("zhejiang-ten-half", {"mode": "extended"}, FRENCH_SMALL, False, 9),
    "seven-half-twelve-cards": ("seven-half", {}, SPANISH_SMALL, False, 12),
}


# The replay's seats (a hand record's page) that something of theirs overflows: a card, the total, the name.
REPLAY_SEATS = """(() => {""" + HELPERS + """
  if (document.querySelectorAll("#replay-seats .seat .pcard").length < 2) return ["no replay seat with cards"];
  return seatsHold([...document.querySelectorAll("#replay-seats .seat")].filter(shown));
})()"""


def own_cards(v) -> int:
    return len(v["hand"]["hands"][v["you"]][0]["cards"]) if v.get("hand") and v["you"] in v["hand"]["hands"] else 0


@pytest.mark.parametrize("case", list(LONGEST))
def test_the_longest_hands_fit_at_every_screen_size(case, server, browser, settings, monkeypatch):
    """The banker's table in the bank's turn and when the hand is over, and the hand's record, with each game's
    longest hands."""
    preset, overrides, top, everyone, most = LONGEST[case]

    def start(run):
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": "ab" * 32, "deck": top,
                                           **({"dice": [1, 1]} if preset == "ten-half" else {})})

    def draws(v) -> bool:
        return everyone or v["you"] == v["banker"]

    def banks_turn(v) -> bool:  # the banker's seat is the widest of one's own: badges and the bank's figures
        hand = v.get("hand")
        return (v["phase"] == "playing" and bool(hand and hand.get("turn")) and hand["turn"]["seat"] == v["you"] == v["banker"]
                and own_cards(v) == most - 1)

    def decide(v, rules):
        legal = v["legal_actions"]
        if "hit" in legal and draws(v):
            return "hit", {}
        if "stand" in legal:
            return "stand", {}
        return bot_decide(v, "basic", rules)

    monkeypatch.setattr("games.services.moves._start_hand", start)
    room, users = seat_players(settings, monkeypatch, preset, overrides, 4, 0)
    player, v = drive(room, users, banks_turn, decide=decide)
    context, page = player_page(browser, server, player)
    url = server + room.get_absolute_url()
    problems = {}
    for name, size in VIEWPORTS.items():
        open_at(page, url, size, MY_TURN)
        shot(page, f"longest-{case}-{name}-turn")
        problems[f"{name} turn"] = page.evaluate(CHECK_TABLE, True)
    drive(room, users, hand_over, decide=decide)
    assert own_cards(snapshot(room, player)["view"]) == most  # the hand reached its game's limit
    for name, size in VIEWPORTS.items():
        open_at(page, url, size, "!!v.hand && v.hand.over")
        page.wait_for_selector("#results-table")
        shot(page, f"longest-{case}-{name}-over", full=True)
        problems[f"{name} over"] = page.evaluate(CHECK_TABLE, False)
    record = server + Hand.objects.get(room=room, number=1).get_absolute_url()
    for name, size in VIEWPORTS.items():
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(record)
        page.wait_for_selector("table.hand-seats")
        page.click("#replay-last")  # the replay's last step: every card dealt
        page.evaluate(FRAMES)
        width = page.evaluate(PAGE_WIDTH)
        problems[f"{name} record"] = ([f"{width}: {page.evaluate(WIDEST)}"] if width else []) + page.evaluate(REPLAY_SEATS)
        if name in ("360x740", "1280x800"):
            shot(page, f"longest-{case}-{name}-record")
    context.close()
    assert not any(problems.values()), "\n".join(f"{where}: {p}" for where, found in problems.items() for p in found)


IN_VIEW = """(sel) => {
  const el = document.querySelector(sel);
  if (!el) return `no ${sel}`;
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    return `${sel} is not in view (${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.right)},${Math.round(r.bottom)})`;
  }
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return hit && el.contains(hit) ? null : `${sel} is covered by ${hit ? hit.tagName.toLowerCase() + "." + hit.className : "nothing"}`;
}"""


def test_the_hosts_start_is_in_view_when_the_table_asks_for_it(server, browser, settings):
    """Before the first hand the status line says "Press Start": a seated host sees Start without scrolling, at every
    size, with the bank's opening (legal too before Start) beside it; a host without a seat finds it under the table."""
    users = [make_user(name) for name in NAMES[:4]]
    room = services.room_create(host=users[0], preset="ten-half", overrides=SLOW)
    for i, u in enumerate(users):
        services.seat_take(room_id=room.pk, user=u, position=i, buy_in=room.buy_in_max)
    context, page = player_page(browser, server, users[0])
    url = server + room.get_absolute_url()
    problems = {}
    for name, size in VIEWPORTS.items():
        open_at(page, url, size, "v.phase === 'waiting'")
        page.wait_for_selector("#actions #host-start")
        shot(page, f"host-start-{name}")
        problems[name] = [p for p in (page.evaluate(IN_VIEW, "#host-start"), page.evaluate(IN_VIEW, "#act-open_bank")) if p]
        assert page.locator("#host-controls #host-start").count() == 0  # one Start, in the controls
    assert not any(problems.values()), problems
    watched = services.room_create(host=users[0], preset="ten-half", overrides=SLOW)  # a host who does not sit
    for i, u in enumerate(users[1:]):
        services.seat_take(room_id=watched.pk, user=u, position=i, buy_in=watched.buy_in_max)
    page.goto(server + watched.get_absolute_url())
    page.wait_for_selector("#host-controls #host-start")
    assert page.locator("#actions #host-start").count() == 0
    page.click("#host-start")  # three seated players: the host starts the table from under it
    page.wait_for_function("window.halfpoint.state.started")
    page.wait_for_selector("#host-start", state="detached")
    context.close()
