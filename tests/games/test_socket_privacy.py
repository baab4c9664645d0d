"""Privacy over the socket: 200 random hands where every frame every connection received is checked against
the unredacted record in the database: no card that is face down and someone else's is ever in one."""

import bisect
import json
import random

import pytest

from games.models import HandEvent, Seat
from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean, expire, make_player
from tests.games.sockets import (
    Tab,
    card_strings,
    catch_up,
    close_all,
    create_room,
    db,
    me,
    random_moves,
    seated_table,
    sit_and_start,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

SCAN = [  # (preset, overrides, hands): 200 hands in all
    ("ten-half", {}, 60),
    ("seven-half", {"house_rules": True}, 50),  # splits, the 4 discard, the secret pair, the Mort
    ("zhejiang-ten-half", {}, 45),
    ("ban-luck", {}, 45),
]


class Record:
    """From the unredacted HandEvent rows: after each table version, which cards are face down (by seat)
    and which user holds which seat. Worked out from the deal and the reveals only, never from what a
    reveal event says it shows."""

    def __init__(self, room):
        seat_user = dict(Seat.objects.filter(room=room).values_list("pk", "user_id"))
        down: dict[str, dict[str, object]] = {}  # seat -> {card: hand index, or "aside" once discarded}
        users: dict[int, str] = {}
        self.versions: list[int] = [-1]
        self.states: list[tuple[dict, dict]] = [({}, {})]
        self.dealt_down = 0
        events = HandEvent.objects.filter(room=room).order_by("version", "seq").values_list("version", "data")
        for version, e in events:
            kind = e["type"]
            if kind == "seat_joined":
                users[seat_user[int(e["seat"][1:])]] = e["seat"]
            elif kind == "seat_left":
                users = {u: s for u, s in users.items() if s != e["seat"]}
            elif kind == "hand_started" or kind == "hand_over":
                down = {}  # a new deck; and once a hand is over, every card of it may be seen
            elif kind == "card_dealt" and e["face"] == "down":
                down.setdefault(e["seat"], {})[e["card"]] = e["hand"]
                self.dealt_down += 1
            elif kind == "card_discarded" and e["card"] in down.get(e["seat"], {}):
                down[e["seat"]][e["card"]] = "aside"  # set aside unseen: shown by nothing but hand_over
            elif kind == "action" and e["action"] == "split":
                cards = down.get(e["seat"], {})
                for card, index in cards.items():
                    if isinstance(index, int) and index > e["hand"]:
                        cards[card] = index + 1
            elif kind == "hand_shown":
                cards = down.get(e["seat"], {})
                for card in [c for c, index in cards.items() if index != "aside"
                             and (e["hand"] is None or index == e["hand"])]:
                    del cards[card]
            elif kind == "hand_revealed":
                for cards in down.values():
                    for card in [c for c, index in cards.items() if index != "aside"]:
                        del cards[card]
            if version != self.versions[-1]:
                self.versions.append(version)
                self.states.append(({}, {}))
            self.states[-1] = ({s: set(c) for s, c in down.items() if c}, dict(users))

    def at(self, version: int) -> tuple[dict, dict]:
        return self.states[bisect.bisect_right(self.versions, version) - 1]

    def hidden_from(self, user_id: int, version: int) -> tuple[set, set]:
        """(cards `user_id` may not see at `version`, the user's own face-down cards)."""
        down, users = self.at(version)
        mine = users.get(user_id)
        others = set().union(*[cards for seat, cards in down.items() if seat != mine])
        return others, set(down.get(mine, ()))


@pytest.mark.parametrize(("preset", "overrides", "hands"), SCAN, ids=[p for p, _o, _h in SCAN])
async def test_privacy_no_frame_ever_holds_a_card_its_viewer_may_not_see(cast, clock, preset, overrides, hands):
    rng = random.Random(f"privacy {preset}")
    erin = await db(make_player)("erin")  # side bettor (Ten and a Half has side bets)
    finn = await db(make_player)("finn")  # spectator: connected, never seated
    cast = {**cast, "erin": erin, "finn": finn}
    extra = ("erin", "finn") if preset == "ten-half" else ("finn",)
    room, tabs = await seated_table(cast, preset, overrides=overrides, extra=extra)
    if preset == "ten-half":
        assert acked(await tabs["erin"].act("sit", role="side", buy_in=1000))
    players = [tabs[n] for n in ("alice", "bob", "chen", "dara", "erin") if n in tabs]
    every_tab = list(tabs.values())  # grows with reconnections: their frames are checked too
    try:
        for _step in range(hands * 40):
            if len(tabs["finn"].events("hand_over")) >= hands:
                break
            moves = [(tab, m) for tab in players for m in random_moves(tab.view, rng)]
            deadline = tabs["finn"].view["deadline"]
            if deadline is not None and (not moves or rng.random() < 0.08):
                await db(expire)(room, clock)  # a timeout: the default action
            elif moves:
                tab, (action, args) = rng.choice(moves)
                await tab.act(action, **args)  # a refusal (error frame) is fine: it is scanned too
            else:  # nothing due and nobody to act: the host starts play again
                assert acked(await tabs["alice"].act("start")), tabs["finn"].view
            await catch_up(every_tab, room)
            if rng.random() < 0.01:  # a challenger leaves, mid-hand or not (and sits again later)
                tab = tabs[rng.choice(["bob", "chen", "dara"])]
                if tab.view["you"] and not me(tab.view)["leaving"]:
                    await tab.act("leave")
                    await catch_up(every_tab, room)
            if rng.random() < 0.06:  # a snapshot asked for at a random moment
                tab = tabs[rng.choice(sorted(tabs))]
                await tab.send({"type": "snapshot"})
                await tab.reply("snapshot", "error")  # the error: rate_limited, at times
            if rng.random() < 0.01:  # a refresh: the old tab goes, a new one connects
                name = rng.choice(["bob", "chen", "dara"])
                await tabs[name].close()
                tabs[name] = Tab(cast[name], room.code, cookie=tabs[name].cookie)
                await tabs[name].open()
                every_tab.append(tabs[name])
                players = [tabs[n] for n in ("alice", "bob", "chen", "dara", "erin") if n in tabs]
                await catch_up(every_tab, room)
        assert len(tabs["finn"].events("hand_over")) >= hands
    finally:
        await close_all(every_tab)

    record = await db(Record)(room)
    checked = guarded = own_seen = 0
    for tab in every_tab:
        for text, frame in tab.frames:
            others, mine = record.hidden_from(tab.user.pk, frame["version"])
            leaked = others & card_strings(frame, set())
            assert not leaked, f"{tab.user} saw {sorted(leaked)} at v{frame['version']}: {text[:2000]}"
            checked += 1
            guarded += bool(others)
            own_seen += bool(mine & card_strings(frame, set()))
    # The scan had something to find: face-down cards in play in many frames, owners seeing their own.
    assert record.dealt_down > hands and guarded > checked // 4 and own_seen > hands // 2, (checked, guarded, own_seen)

    # Side bettors and spectators: every card they were ever shown was face up (or hidden).
    for name in ("erin", "finn"):
        for tab in [t for t in every_tab if t.user.username == name]:
            for _text, frame in tab.frames:
                if frame.get("view") and frame["view"]["hand"]:
                    for seat_hands in frame["view"]["hand"]["hands"].values():
                        for h in seat_hands:
                            assert all(c.get("up") is True or c == {"hidden": True} for c in h["cards"]), h

    await db(assert_ledger_clean)()
    await db(assert_holds_match_table)(room)


def without_bank_draws(text: str) -> str:
    frame = json.loads(text)
    frame["events"] = [e for e in frame.get("events") or [] if e.get("type") != "bank_draw"]
    return json.dumps(frame)


async def test_a_split_hand_that_busts_shows_nobody_the_other_hands_face_down_card(cast, no_resync, monkeypatch):
    """Seven and a Half, house rules: two opening figures split; the second hand busts and is turned up
    while the first still holds its face-down jack."""

    def stacked_hand(run):  # the deck's top cards, in dealing order: challenger, bank, then the draws
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": "ab" * 32, "deck": ["JO", "4B", "NC", "2O", "7C"]})

    monkeypatch.setattr("games.services.moves._start_hand", stacked_hand)
    room = await db(create_room)(cast["alice"], "seven-half", overrides={"house_rules": True})
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen")}
    try:
        await sit_and_start(tabs, room, ("alice", "bob"), 500)
        challenger = next(t for t in (tabs["alice"], tabs["bob"]) if t.view["role"] == "main")
        banker = next(t for t in (tabs["alice"], tabs["bob"]) if t.view["role"] == "banker")
        seat = challenger.view["you"]
        for action in ("bet", "hit", "split", "stand", "hit", "hit"):
            frame = await challenger.act(action, **({"amount": 10} if action == "bet" else {}))
            assert acked(frame), (action, frame)
        await catch_up(tabs.values(), room)
        assert challenger.view["hand"]["hands"][seat][0]["cards"] == [{"card": "JO", "up": False}]
        for viewer in (banker, tabs["chen"]):
            shown = [e for e in viewer.events("hand_shown") if e["seat"] == seat]
            assert [(e["hand"], e["cards"]) for e in shown] == [(1, [["NC", "2O", "7C"]])]
            assert viewer.view["hand"]["hands"][seat][0]["cards"] == [{"hidden": True}]
            assert not viewer.view["hand"]["over"]
            # The first bank's card draw is public and from a deck of its own (a random seed): a jack drawn there
            # is not the challenger's.
            assert not [text for text, _f in viewer.frames if '"JO"' in without_bank_draws(text)]
    finally:
        await close_all(tabs.values())
