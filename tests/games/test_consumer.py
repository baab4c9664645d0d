"""The table socket, /ws/rooms/<code>/ (docs/protocol.md), driven the way a browser drives it: a real
session cookie, the allowed Origin, JSON frames both ways, against config.asgi.application.

- whole hands of every game played by four people over their sockets, the ledger audited after each;
- privacy: 200 random hands where every frame every connection received is checked against the
  unredacted record in the database: no card that is face down and someone else's is ever in one;
- the socket's rules: who may connect, frame size, rate limit, idempotent action ids, malformed
  frames, chat and moderation, presence, refresh, the version rule and the resync.
"""

import asyncio
import bisect
import datetime
import json
import random

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone

from config.asgi import application
from games import broadcast, services
from games.consumers import (
    CLOSE_FORBIDDEN,
    CLOSE_NO_ROOM,
    CLOSE_ROOM_CLOSED,
    CLOSE_TOO_BIG,
    CLOSE_UNAUTHENTICATED,
)
from games.models import Hand, HandEvent, Room, Seat, Table
from tests.games.conftest import (
    acked,
    answers,
    assert_holds_match_table,
    assert_ledger_clean,
    expire,
    make_player,
)

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
WAIT = 10  # seconds for one frame: generous for PostgreSQL + Redis on a busy machine
PRESETS = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")

db = database_sync_to_async


# --- browser tabs ---------------------------------------------------------------------------------------


def session_cookie(user) -> bytes:
    """The cookie a browser holds after logging in."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


def table_version(room) -> int:
    return Table.objects.values_list("version", flat=True).get(pk=room.pk)


class Closed(Exception):
    def __init__(self, code):
        super().__init__(f"the socket was closed with {code}")
        self.code = code


class Tab:
    """One connection of `user` to a room, keeping every frame it received: (raw text, JSON)."""

    def __init__(self, user, code: str, *, cookie: bytes | None = None):
        self.user = user
        self.code = code
        self.cookie = cookie
        self.frames: list[tuple[str, dict]] = []
        self.version = -1  # the newest table version drawn (snapshot or update)
        self.view: dict | None = None
        self.closed: int | None = None
        self.comm: WebsocketCommunicator | None = None
        self.sent = 0

    async def open(self) -> dict:
        """Connect; returns the first frame (the snapshot). Raises Closed when the server closes."""
        if self.cookie is None and self.user is not None:
            self.cookie = await db(session_cookie)(self.user)
        headers = [ORIGIN] + ([(b"cookie", self.cookie)] if self.cookie else [])
        self.comm = WebsocketCommunicator(application, f"/ws/rooms/{self.code}/", headers=headers)
        connected, code = await self.comm.connect(timeout=WAIT)
        if not connected:
            self.closed = code
            raise Closed(code)
        return await self.next()

    async def next(self, timeout: float = WAIT) -> dict:
        out = await self.comm.receive_output(timeout)
        if out["type"] == "websocket.close":
            self.closed = out.get("code", 1000)
            raise Closed(self.closed)
        frame = json.loads(out["text"])
        self.frames.append((out["text"], frame))
        if frame["type"] in ("snapshot", "update") and frame["version"] > self.version:
            self.version = frame["version"]
            self.view = frame["view"]
        return frame

    async def send(self, data) -> None:
        await self.comm.send_to(text_data=data if isinstance(data, str) else json.dumps(data))

    async def reply(self, *kinds: str) -> dict:
        """The next frame of one of `kinds` (the frames on the way are kept)."""
        while True:
            frame = await self.next()
            if frame["type"] in kinds:
                return frame

    async def act(self, action: str, action_id: str | None = None, **args) -> dict:
        """Send one action; return its answer: the update that carries its ack, an `ack` frame, or an error."""
        if action_id is None:
            self.sent += 1
            action_id = f"{self.user.username}-{self.sent}"
        message = {"type": "action", "action": action, "action_id": action_id}
        if args:
            message["args"] = args
        await self.send(message)
        while True:
            frame = await self.next()
            if answers(frame, action_id) or frame.get("code") == "rate_limited":  # dropped unread
                return frame

    async def catch_up(self, version: int) -> None:
        while self.version < version:
            await self.next()

    async def quiet(self) -> bool:
        return await self.comm.receive_nothing(timeout=0.2)

    async def drain(self) -> list[dict]:
        """Everything that arrives until the socket is quiet."""
        frames = []
        while not await self.quiet():
            frames.append(await self.next())
        return frames

    async def close(self) -> None:
        if self.comm is not None and self.closed is None and not self.comm.future.done():
            # Let the consumer's disconnect handler finish, as daphne does (10 s): the communicator's own default
            # cancels it after 1 s, which a busy CI machine passed before the handler sent its presence frame.
            await self.comm.disconnect(timeout=WAIT)
        self.closed = self.closed or 1000

    def of(self, kind: str) -> list[dict]:
        return [f for _text, f in self.frames if f["type"] == kind]

    def events(self, kind: str | None = None) -> list[dict]:
        return [e for f in self.of("update") for e in f["events"] if kind is None or e["type"] == kind]


async def catch_up(tabs, room) -> int:
    """Every open tab has drawn the table's current version; returns it."""
    version = await db(table_version)(room)
    for tab in tabs:
        if tab.closed is None:
            await tab.catch_up(version)
    return version


async def close_all(tabs) -> None:
    for tab in tabs:
        await tab.close()


@pytest.fixture(autouse=True)
def _one_loop_per_test(fresh_layer):
    """Every test here opens sockets: a channel layer of its own loop (tests/conftest.py)."""


@pytest.fixture
def no_resync(settings):
    """The safety-net snapshots (consumers._watch_loop) off, so a test sees exactly the broadcasts."""
    settings.GAMES_RESYNC_SECONDS = 3600


def create_room(host, preset, **kw):
    return services.room_create(host=host, preset=preset, **kw)


async def seated_table(cast, preset="ten-half", *, overrides=None, extra=(), bank=None):
    """A room of `preset` with alice (host), bob, chen and dara connected and seated (1000 beans each)
    and the host's start sent; with `bank`, alice has opened the bank with that amount. Every tab has drawn
    the table's version. Returns (room, {name: tab})."""
    room = await db(create_room)(cast["alice"], preset, overrides=overrides or {}, buy_in_max=3000)
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen", "dara")}
    for name in extra:
        tabs[name] = Tab(cast[name], room.code)
    for tab in tabs.values():
        await tab.open()
    for name in ("alice", "bob", "chen", "dara"):
        frame = await tabs[name].act("sit", buy_in=1000)
        assert acked(frame), frame
    assert acked(await tabs["alice"].act("start"))
    if bank is not None:
        assert acked(await tabs["alice"].act("open_bank", amount=bank))
    await catch_up(tabs.values(), room)
    return room, tabs


def me(view) -> dict | None:
    return next((s for s in view["seats"] if s["id"] == view["you"]), None)


def stake_range(view) -> tuple[int, int, int]:
    """(lowest, highest, step) of a challenger's stake, as the rules allow it for this stack."""
    r, stack = view["rules"], me(view)["stack"]
    low = view["hand"]["base_stake"] if r["fixed_stake"] else (r["min_bet"] or r["base_stake"])
    high = stack // 3 if r["stake_third_of_stack"] else stack
    if r["max_bet"] is not None:
        high = min(high, r["max_bet"])
    return low, high, r["base_stake"] if r["bet_multiple"] else 1


def sensible_move(view) -> tuple[str, dict] | None:
    """A plain player: opens the bank when offered, stakes the least, draws to two cards and stands
    (draws on when the rules forbid standing), declines a bank to take, refills an empty bank."""
    legal = view["legal_actions"]
    stack = me(view)["stack"]
    if "open_bank" in legal and view["pending"]:
        whole = view["rules"]["bank_open"] == "whole-stack"
        return "open_bank", {"amount": stack if whole else stack // 2}
    if "decline_bank" in legal:
        return "decline_bank", {}
    if "refill" in legal:
        return ("refill", {"amount": min(stack, 300)}) if stack else ("pass_bank", {})
    if "bet" in legal:
        return "bet", {"amount": stake_range(view)[0]}
    if "mort_decline" in legal:
        return "mort_decline", {}
    if "hit" in legal or "stand" in legal:
        turn = view["hand"]["turn"]
        cards = view["hand"]["hands"][turn["seat"]][turn["hand"]]["cards"]
        return ("hit", {}) if "stand" not in legal or len(cards) < 2 and "hit" in legal else ("stand", {})
    return None


# --- whole hands of every game --------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
async def test_four_players_play_whole_hands_over_their_sockets_and_every_bean_is_accounted_for(
        cast, no_resync, preset):
    room, tabs = await seated_table(cast, preset)
    players = list(tabs.values())
    hands_seen = 0
    try:
        for _step in range(400):
            if hands_seen == 3:
                break
            # Every decision is a player's own, from the view their socket received: no timeouts.
            moves = [(tab, sensible_move(tab.view)) for tab in players]
            moves = [(tab, move) for tab, move in moves if move is not None]
            assert moves, players[0].view
            tab, (action, args) = moves[0]
            frame = await tab.act(action, **args)
            assert acked(frame), (action, args, frame)
            await catch_up(players, room)
            over = [len(tab.events("hand_over")) for tab in players]
            assert len(set(over)) == 1, over  # everyone saw the same hands end
            if over[0] > hands_seen:
                hands_seen = over[0]
                await db(assert_ledger_clean)()
                await db(assert_holds_match_table)(room)
        assert hands_seen == 3

        for tab in players:
            # Every version reached every player, once, in order: nothing skipped, nothing twice.
            versions = [f["version"] for f in tab.of("update")]
            assert versions == list(range(tab.of("snapshot")[0]["version"] + 1, tab.version + 1))
            settled = tab.events("hand_settled")
            assert len(settled) == 3 and all(sum(e["deltas"].values()) == 0 for e in settled)
        hands = await db(lambda: list(Hand.objects.filter(room=room).order_by("number")))()
        assert [h.number for h in hands][:3] == [1, 2, 3] and all(h.ended_at for h in hands[:3])
        # What the players were shown at the end of each hand is what the record holds.
        shown = [e["deltas"] for e in tabs["bob"].events("hand_settled")]
        assert shown == [h.summary["deltas"] for h in hands[:3]]
    finally:
        await close_all(players)


# --- privacy: 200 random hands --------------------------------------------------------------------------

SCAN = [  # (preset, overrides, hands): 200 hands in all
    ("ten-half", {}, 60),
    ("seven-half", {"house_rules": True}, 50),  # splits, the 4 discard, the secret pair, the Mort
    ("zhejiang-ten-half", {}, 45),
    ("ban-luck", {}, 45),
]
QUIET = {"leave", "retire", "seed_jackpot", "reset", "top_up"}


def random_moves(view, rng) -> list[tuple[str, dict]]:
    """Plausible moves from the view's legal actions, with arguments (a few may still be refused)."""
    legal, seat, hand, r = view["legal_actions"], me(view), view["hand"], view["rules"]
    if seat is None:  # left earlier: sits down again (a new seat)
        return [("sit", {"buy_in": 1000})]
    stack = seat["stack"]
    out: list[tuple[str, dict]] = []
    side = seat["role"] == "side"
    if seat["away"]:  # timed out three hands running: sitting out until back
        out.append(("im_back", {}))
    if "top_up" in legal and stack < 10 * r["base_stake"] and view["banker"] != seat["id"]:
        out.append(("top_up", {"amount": 500}))
    for action in legal:
        if action in QUIET:
            continue
        if action == "bet":
            low, high, step = stake_range(view)
            if high >= low:
                amount = min(high, low + step * rng.randrange(3))
                out.append(("bet", {"amount": amount - (amount - low) % step}))
        elif action == "chip":
            mine = next((b for b in hand["side_bets"] if b["seat"] == seat["id"]), None) if side \
                else hand["bets"][seat["id"]]
            if side and mine["backs"] is None:
                continue
            out.append(("chip", {"amount": rng.choice(r["chip_values"])}))
        elif action == "confirm":
            if side:
                mine = next(b for b in hand["side_bets"] if b["seat"] == seat["id"])
                if mine["backs"] and mine["amount"]:
                    out.append(("confirm", {}))
            else:
                low, high, step = stake_range(view)
                amount = hand["bets"][seat["id"]]["amount"]
                if low <= amount <= high and (amount - low) % step == 0:
                    out.append(("confirm", {}))
        elif action in ("back", "side_bet"):
            challenger = rng.choice(sorted(hand["bets"]))
            if action == "back":
                out.append(("back", {"seat": challenger}))
            elif stack >= r["base_stake"]:
                amount = r["base_stake"] * rng.randint(1, min(3, stack // r["base_stake"]))
                out.append(("side_bet", {"backs": challenger, "amount": amount}))
        elif action == "open_bank":
            whole = r["bank_open"] == "whole-stack"
            out.append(("open_bank", {"amount": stack if whole else max(1, stack // rng.choice((1, 2, 3)))}))
        elif action == "refill":
            if stack:
                out.append(("refill", {"amount": min(stack, rng.choice((100, 300)))}))
        else:  # hit stand double split mort_* take_bank decline_bank pass_bank no_bet
            # Weighted: drawing (towards two figures) and splitting them, the rare move that makes a
            # seat hold two hands, come more often than chance would have them.
            out += [(action, {})] * {"hit": 2, "split": 6}.get(action, 1)
    return out


def card_strings(data, out: set) -> set:
    """Every string in a JSON value, keys included."""
    if isinstance(data, str):
        out.add(data)
    elif isinstance(data, dict):
        for k, v in data.items():
            out.add(k)
            card_strings(v, out)
    elif isinstance(data, list):
        for v in data:
            card_strings(v, out)
    return out


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


async def test_a_split_hand_that_busts_shows_nobody_the_other_hands_face_down_card(cast, no_resync, monkeypatch):
    """Seven and a Half, house rules: two opening figures split; the second hand busts and is turned up
    while the first still holds its face-down jack."""

    def stacked_hand(run):  # the deck's top cards, in dealing order: challenger, bank, then the draws
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": "ab" * 32, "deck": ["JO", "4B", "NC", "2O", "7C"]})

    monkeypatch.setattr(services, "_start_hand", stacked_hand)
    room = await db(create_room)(cast["alice"], "seven-half", overrides={"house_rules": True})
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen")}
    try:
        for tab in tabs.values():
            await tab.open()
        await tabs["alice"].act("sit", buy_in=500)
        await tabs["bob"].act("sit", buy_in=500)
        await tabs["alice"].act("start")
        await catch_up(tabs.values(), room)
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
            assert not [text for text, _f in viewer.frames if '"JO"' in text]
    finally:
        await close_all(tabs.values())


# --- who may connect -------------------------------------------------------------------------------------


async def test_an_anonymous_visitor_is_closed_with_4401(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(None, room.code)
    with pytest.raises(Closed) as closed:
        await tab.open()
    assert closed.value.code == CLOSE_UNAUTHENTICATED and tab.frames == []


async def test_a_room_code_nobody_uses_is_closed_with_4404(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    unused = f"{(int(room.code) + 1) % 10_000:04d}"
    with pytest.raises(Closed) as closed:
        await Tab(cast["bob"], unused).open()
    assert closed.value.code == CLOSE_NO_ROOM


async def test_a_banned_user_gets_an_error_then_4403(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    bob = cast["bob"]
    bob.banned_until = timezone.now() + datetime.timedelta(days=1)
    await db(bob.save)()
    tab = Tab(bob, room.code)
    error = await tab.open()
    assert error["type"] == "error" and error["code"] == "banned"
    with pytest.raises(Closed) as closed:
        await tab.next()
    assert closed.value.code == CLOSE_FORBIDDEN
    assert not [f for _t, f in tab.frames if f["type"] == "snapshot"]


async def test_a_socket_from_another_site_is_refused_at_the_handshake(cast):
    room = await db(create_room)(cast["alice"], "ten-half")
    cookie = await db(session_cookie)(cast["bob"])
    comm = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/",
                                 headers=[(b"origin", b"https://evil.example"), (b"cookie", cookie)])
    connected, _code = await comm.connect(timeout=WAIT)
    assert connected is False


async def test_connecting_sends_a_snapshot_with_the_room_me_view_presence_and_chat(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    await db(services.chat_post)(room_id=room.pk, user=cast["alice"], text="welcome")
    tab = Tab(cast["bob"], room.code)
    try:
        snap = await tab.open()
        assert snap["type"] == "snapshot" and snap["version"] == 0
        assert snap["room"]["code"] == room.code and snap["room"]["started"] is False
        assert snap["me"] == {"user": cast["bob"].pk, "name": "Bob", "seat": None}
        assert snap["view"]["role"] == "spectator" and snap["view"]["legal_actions"] == []
        assert [m["text"] for m in snap["chat"]] == ["welcome"] and snap["presence"] == {}
        assert await tab.quiet()  # and nothing else until something happens
    finally:
        await tab.close()


# --- frames ------------------------------------------------------------------------------------------------


async def test_a_frame_over_16_kib_closes_the_socket_with_1009(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        await bob.send({"type": "chat", "text": "x" * (16 * 1024)})
        with pytest.raises(Closed) as closed:
            await bob.reply("chat")
        assert closed.value.code == CLOSE_TOO_BIG
        assert await db(table_version)(room) == before
        assert "chat" not in [f["type"] for f in await tabs["alice"].drain()]
    finally:
        await close_all(tabs.values())


async def test_just_under_16_kib_is_read(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        padding = 16 * 1024 - len(json.dumps({"type": "ping", "pad": ""}))
        await tab.send(json.dumps({"type": "ping", "pad": "y" * padding}))
        assert (await tab.next())["type"] == "pong"
    finally:
        await tab.close()


async def test_more_than_20_messages_in_a_second_are_refused_and_not_applied(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob = tabs["bob"]
    try:
        # alice opens the bank: bob can bet with chips.
        assert acked(await tabs["alice"].act("open_bank", amount=500))
        before = await catch_up(tabs.values(), room)
        await asyncio.sleep(1.05)  # bob's sit is out of the window
        for _ in range(20):
            await bob.send({"type": "ping"})
        for i in range(5):
            await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": f"burst-{i}"})
        frames = [await bob.next() for _ in range(25)]
        assert [f["type"] for f in frames[:20]] == ["pong"] * 20
        assert [f["code"] for f in frames[20:]] == ["rate_limited"] * 5
        assert await db(table_version)(room) == before
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 0
    finally:
        await close_all(tabs.values())


async def test_the_same_action_id_twice_is_applied_once(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        first = await bob.act("chip", action_id="chip-once", amount=50)
        again = await bob.act("chip", action_id="chip-once", amount=50)
        assert (first["type"], first["ack"]) == ("update", "chip-once")  # applied: the ack rides in the update
        assert again == {"type": "ack", "action_id": "chip-once", "version": first["version"], "duplicate": True}
        assert again["version"] == await db(table_version)(room)
        await catch_up(tabs.values(), room)
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 50  # not 100
        assert first["version"] == before + 1
        assert [f["version"] for f in tabs["chen"].of("update")][-1] == before + 1
        # The same id from someone else is theirs: it applies.
        assert (await tabs["chen"].act("chip", action_id="chip-once", amount=10))["ack"] == "chip-once"
    finally:
        await close_all(tabs.values())


def _drop_next_update(monkeypatch) -> list[int]:
    """The next table update is lost (a channel layer delivers at most once); returns [its version] once dropped."""
    real, dropped = broadcast.table_update, []

    def lossy(*args, **kw):
        if not dropped:
            dropped.append(args[1])
            return None
        return real(*args, **kw)

    monkeypatch.setattr(broadcast, "table_update", lossy)
    return dropped


async def _next_frames(tab, n: int) -> list[dict]:
    """The next `n` frames of `tab`, presence frames left out."""
    frames = []
    while len(frames) < n:
        frame = await tab.next()
        if frame["type"] != "presence":
            frames.append(frame)
    return frames


async def _until_version(room, version: int) -> None:
    for _ in range(500):
        if await db(table_version)(room) >= version:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the table never reached v{version}")


async def test_an_applied_action_is_acked_in_the_senders_own_update_and_nowhere_else(cast, no_resync):
    room, tabs = await seated_table(cast)
    bob, twin = tabs["bob"], Tab(cast["bob"], room.code)  # twin: bob's second tab
    try:
        await tabs["alice"].act("open_bank", amount=500)
        await twin.open()
        await catch_up([*tabs.values(), twin], room)
        seen = len(bob.frames)
        frame = await bob.act("chip", action_id="bob-chip", amount=10)
        version = await db(table_version)(room)
        assert (frame["type"], frame["ack"], frame["version"]) == ("update", "bob-chip", version)
        await catch_up([*tabs.values(), twin], room)
        # One frame answers the action and draws its version: no separate ack.
        assert [f["type"] for _t, f in bob.frames[seen:] if f["type"] != "presence"] == ["update"]
        # The same user's other connection, and everyone else, get that version without the ack.
        same = next(f for f in twin.of("update") if f["version"] == version)
        assert same == {k: v for k, v in frame.items() if k != "ack"}
        for name in ("alice", "chen", "dara"):
            assert "ack" not in next(f for f in tabs[name].of("update") if f["version"] == version), name
    finally:
        await close_all([*tabs.values(), twin])


async def test_actions_sent_back_to_back_are_each_acked_in_their_own_update(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        for n in (1, 2, 3):
            await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": f"pipe-{n}"})
        frames = await _next_frames(bob, 3)
        assert [(f["type"], f.get("ack"), f["version"]) for f in frames] == [
            ("update", "pipe-1", before + 1), ("update", "pipe-2", before + 2), ("update", "pipe-3", before + 3)]
        assert bob.view["hand"]["bets"][bob.view["you"]]["amount"] == 30
        assert await bob.quiet()  # and nothing more: no ack frames after them
    finally:
        await close_all(tabs.values())


async def test_an_action_whose_update_does_not_come_is_acked_before_the_frame_that_draws_it(
        cast, no_resync, monkeypatch):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        # 1. bob's update is lost and he asks for a snapshot: the ack comes first, then the snapshot.
        dropped = _drop_next_update(monkeypatch)
        await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": "lost-1"})
        await _until_version(room, before + 1)
        await bob.send({"type": "snapshot"})
        ack, snap = await _next_frames(bob, 2)
        assert dropped == [before + 1]
        assert ack == {"type": "ack", "action_id": "lost-1", "version": before + 1, "duplicate": False}
        assert (snap["type"], snap["version"]) == ("snapshot", before + 1)
        # 2. Lost again; this time the next update (chen's) is the first frame past it: the ack comes just before.
        dropped = _drop_next_update(monkeypatch)
        await bob.send({"type": "action", "action": "chip", "args": {"amount": 10}, "action_id": "lost-2"})
        await _until_version(room, before + 2)
        chen = await tabs["chen"].act("chip", action_id="chen-chip", amount=10)
        assert chen.get("ack") == "chen-chip", chen
        ack, update = await _next_frames(bob, 2)
        assert dropped == [before + 2]
        assert ack == {"type": "ack", "action_id": "lost-2", "version": before + 2, "duplicate": False}
        assert (update["type"], update["version"]) == ("update", before + 3) and "ack" not in update
        assert await bob.quiet()  # each action acked once
    finally:
        await close_all(tabs.values())


MALFORMED = [
    ("not json", "bad_json"),
    ("[1, 2, 3]", "bad_json"),
    ('"a string"', "bad_json"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"no": "type"}', "unknown_type"),
    ('{"type": "action", "action": "fold", "action_id": "m1"}', "unknown_action"),
    ('{"type": "action", "action": ["bet"], "action_id": "m2"}', "unknown_action"),
    ('{"type": "action", "action": "bet", "args": {"amount": [50]}, "action_id": "m3"}', "bad_amount"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50.0}, "action_id": "m4"}', "bad_amount"),
    ('{"type": "action", "action": "bet", "args": {"amount": true}, "action_id": "m5"}', "bad_amount"),
    ('{"type": "action", "action": "bet", "args": {"amount": "50"}, "action_id": "m6"}', "bad_amount"),
    ('{"type": "action", "action": "kick", "args": {"seat": {"id": "s1"}}, "action_id": "m7"}', "bad_args"),
    ('{"type": "action", "action": "back", "args": {"seat": ["s1"]}, "action_id": "m8"}', "bad_args"),
    ('{"type": "action", "action": "bet", "args": [50], "action_id": "m9"}', "bad_args"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50, "cards": "AS"}, "action_id": "m10"}', "bad_args"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50}, "action_id": 7}', "bad_action_id"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50}, "action_id": "' + "x" * 65 + '"}', "bad_action_id"),
    # A lone surrogate (not UTF-8) quoted back in the error: the answer must still be sent (CI found this once).
    ('{"type": "action", "action": "back", "args": null, "action_id": "\\ud800"}', "bad_action_id"),
    ('{"type": "action", "action": "\\udfff", "action_id": "m14"}', "unknown_action"),
    ('{"type": "action", "action": "start_hand", "args": {}, "action_id": "m11"}', "unknown_action"),
    ('{"type": "action", "action": "timeout", "action_id": "m12"}', "unknown_action"),
    ('{"type": "action", "action": "set_seat", "args": {"seat": "s1"}, "action_id": "m13"}', "unknown_action"),
    ('{"type": "chat", "text": ["hello"]}', "bad_chat"),
    ('{"type": "chat", "text": "   "}', "bad_chat"),
]


async def test_malformed_frames_get_an_error_and_change_nothing(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        state_before = await db(lambda: Table.objects.get(pk=room.pk).state)()
        for text, code in MALFORMED:
            await asyncio.sleep(0.06)  # under the rate limit
            await bob.send(text)
            frame = await bob.reply("error", "ack", "update", "chat")
            assert (frame["type"], frame.get("code")) == ("error", code), text
            assert frame["version"] == before
        await bob.comm.send_to(bytes_data=b'{"type": "ping"}')
        assert (await bob.reply("error", "pong"))["code"] == "bad_frame"
        assert await db(table_version)(room) == before
        assert await db(lambda: Table.objects.get(pk=room.pk).state)() == state_before
        assert not [f for f in await tabs["chen"].drain() if f["type"] != "presence"]  # nobody else heard a thing
        # The socket still works.
        assert acked(await bob.act("bet", amount=20))
    finally:
        await close_all(tabs.values())


async def test_a_refused_action_says_why_and_carries_its_action_id(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    try:
        before = await db(table_version)(room)
        frame = await tabs["bob"].act("hit", action_id="too-early")
        assert frame == {"type": "error", "code": "wrong_phase", "message": frame["message"], "version": before,
                         "action_id": "too-early"}
        frame = await tabs["bob"].act("bet", amount=15)
        assert frame["code"] == "stake_not_multiple"
        frame = await tabs["bob"].act("kick", seat=tabs["chen"].view["you"])
        assert frame["code"] == "not_host"
        assert await db(table_version)(room) == before
    finally:
        await close_all(tabs.values())


# --- chat, moderation, presence ---------------------------------------------------------------------------


async def test_chat_reaches_everyone_in_the_room_and_only_them(cast, no_resync):
    room, tabs = await seated_table(cast)
    other = await db(create_room)(cast["dara"], "ban-luck")
    elsewhere = Tab(cast["dara"], other.code)
    try:
        await elsewhere.open()
        await tabs["bob"].send({"type": "chat", "text": "  good luck, all  "})
        for tab in tabs.values():
            frame = await tab.reply("chat")
            assert frame["message"]["text"] == "good luck, all" and frame["message"]["name"] == "Bob"
            assert frame["message"]["user"] == cast["bob"].pk and frame["version"] == tab.version
        assert await elsewhere.quiet()
        # A new connection finds it in the snapshot's history.
        late = Tab(cast["chen"], room.code)
        snap = await late.open()
        assert [m["text"] for m in snap["chat"]] == ["good luck, all"]
        await late.close()
    finally:
        await close_all([*tabs.values(), elsewhere])


async def test_a_muted_user_cannot_chat(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    bob = cast["bob"]
    bob.muted_until = timezone.now() + datetime.timedelta(hours=1)
    await db(bob.save)()
    tabs = [Tab(bob, room.code), Tab(cast["alice"], room.code)]
    try:
        for tab in tabs:
            await tab.open()
        await tabs[0].send({"type": "chat", "text": "spam"})
        frame = await tabs[0].reply("error", "chat")
        assert (frame["type"], frame["code"]) == ("error", "muted")
        assert await tabs[1].quiet()
        # Muted is not gagged from playing: the socket still takes actions.
        assert acked(await tabs[0].act("sit", buy_in=500))
    finally:
        await close_all(tabs)


async def test_a_mute_given_while_connected_applies_at_once(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        await tab.send({"type": "chat", "text": "hello"})
        assert (await tab.reply("chat", "error"))["type"] == "chat"
        await db(type(cast["bob"]).objects.filter(pk=cast["bob"].pk).update)(
            muted_until=timezone.now() + datetime.timedelta(hours=1))
        await tab.send({"type": "chat", "text": "more spam"})
        frame = await tab.reply("chat", "error")
        assert (frame["type"], frame["code"]) == ("error", "muted")
    finally:
        await tab.close()


async def test_ping_gets_a_pong_with_the_version(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        await tabs["bob"].send({"type": "ping"})
        assert await tabs["bob"].reply("pong") == {"type": "pong", "version": await db(table_version)(room)}
    finally:
        await close_all(tabs.values())


async def test_presence_follows_the_seated_players_connections(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        # Seated after connecting: connected, for everyone who draws the table from a snapshot.
        await tabs["chen"].send({"type": "snapshot"})
        snap = await tabs["chen"].reply("snapshot")
        assert set(snap["presence"].values()) == {True} and len(snap["presence"]) == 4
        seats = {tab.view["you"] for tab in tabs.values()}
        while len({f["seat"] for f in tabs["alice"].of("presence")}) < 4:  # each one's seat came online
            assert (await tabs["alice"].reply("presence"))["connected"] is True
        assert {f["seat"] for f in tabs["alice"].of("presence")} == seats
        bob_seat = tabs["bob"].view["you"]
        await tabs["bob"].close()
        frame = await tabs["alice"].reply("presence")
        assert frame == {"type": "presence", "seat": bob_seat, "connected": False, "version": tabs["alice"].version}
        tabs["bob"] = Tab(cast["bob"], room.code)
        snap = await tabs["bob"].open()
        assert snap["presence"][bob_seat] is True
        frame = await tabs["alice"].reply("presence")
        assert (frame["seat"], frame["connected"]) == (bob_seat, True)
    finally:
        await close_all(tabs.values())


async def test_a_refresh_keeps_the_seat_and_the_snapshot_shows_my_face_down_card(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    try:
        for name in ("bob", "chen", "dara"):
            assert acked(await tabs[name].act("bet", amount=10))
        await catch_up(tabs.values(), room)
        seat = tabs["bob"].view["you"]
        card = tabs["bob"].view["hand"]["hands"][seat][0]["cards"][0]
        assert card["up"] is False  # Ten and a Half: the first card is face down
        assert tabs["chen"].view["hand"]["hands"][seat][0]["cards"] == [{"hidden": True}]

        await tabs["bob"].close()
        tabs["bob"] = Tab(cast["bob"], room.code)
        snap = await tabs["bob"].open()
        assert snap["me"]["seat"] == seat and snap["view"]["you"] == seat and snap["view"]["role"] == "main"
        assert snap["view"]["hand"]["hands"][seat][0]["cards"][0] == card
        assert snap["version"] == await db(table_version)(room)
        seats = await db(lambda: list(Seat.objects.filter(room=room, user=cast["bob"]).values_list("pk", "left_at")))()
        assert len(seats) == 1 and seats[0][1] is None  # the same seat, never left
    finally:
        await close_all(tabs.values())


# --- the version rule ----------------------------------------------------------------------------------------


async def test_every_update_carries_the_next_version_and_a_snapshot_on_request_is_current(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        await tabs["alice"].act("open_bank", amount=500)
        await tabs["bob"].act("bet", amount=10)
        version = await catch_up(tabs.values(), room)
        for tab in tabs.values():
            versions = [f["version"] for f in tab.of("update")]
            assert versions == sorted(set(versions)) and versions[-1] == version
        await tabs["chen"].send({"type": "snapshot"})
        snap = await tabs["chen"].reply("snapshot")
        assert snap["version"] == version and snap["view"] == tabs["chen"].view
    finally:
        await close_all(tabs.values())


async def test_a_lost_update_is_repaired_by_a_snapshot(cast, settings, monkeypatch):
    settings.GAMES_RESYNC_SECONDS = 0.2
    room, tabs = await seated_table(cast)
    try:
        dropped = _drop_next_update(monkeypatch)
        assert acked(await tabs["alice"].act("open_bank", amount=500))
        version = await db(table_version)(room)
        frame = await tabs["chen"].reply("snapshot", "update")
        # Either the watcher's snapshot, or the next update with a gap that the client answers with a snapshot.
        if frame["type"] == "update":
            assert frame["version"] > dropped[0]
            await tabs["chen"].send({"type": "snapshot"})
            frame = await tabs["chen"].reply("snapshot")
        # The snapshot covers the lost version; the versions after it (the wakes that start the hand) may come
        # as updates, when the watcher's pass fell between the commands.
        assert frame["version"] >= dropped[0] and frame["view"]["banker"] == tabs["alice"].view["you"]
        await tabs["chen"].catch_up(version)
        assert tabs["chen"].version == version
        assert dropped[0] not in [f["version"] for f in tabs["chen"].of("update")]
    finally:
        await close_all(tabs.values())


# --- room actions -------------------------------------------------------------------------------------------


async def test_sit_with_a_role_a_buy_in_and_a_position(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    bob, chen, dara = (Tab(cast[name], room.code) for name in ("bob", "chen", "dara"))
    try:
        for tab in (bob, chen, dara):
            await tab.open()
        assert acked(await bob.act("sit", buy_in=700, position=3))
        assert acked(await dara.act("sit", buy_in=200, role="side"))
        await catch_up([bob, chen, dara], room)
        assert (me(bob.view)["position"], me(bob.view)["stack"], bob.view["role"]) == (3, 700, "main")
        assert (me(dara.view)["role"], me(dara.view)["stack"], dara.view["role"]) == ("side", 200, "side")
        assert (await bob.act("sit", buy_in=700))["code"] == "already_seated"
        for args, code in [({"buy_in": 50}, "bad_buy_in"), ({"buy_in": 500, "role": "banker"}, "bad_role"),
                           ({"buy_in": 500, "position": 3}, "seat_taken"),
                           ({"buy_in": 500, "position": 9}, "bad_position"), ({"role": "main"}, "bad_buy_in")]:
            assert (await chen.act("sit", **args))["code"] == code, args
        assert chen.view["you"] is None and len(chen.view["seats"]) == 2
        # Bean holds back the stacks, nothing more.
        await db(assert_holds_match_table)(room)
        await db(assert_ledger_clean)()
    finally:
        await close_all([bob, chen, dara])


async def test_leave_top_up_and_im_back(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        assert (await tab.act("leave"))["code"] == "not_seated"
        await tab.act("sit", buy_in=300)
        assert acked(await tab.act("top_up", amount=200))
        await catch_up([tab], room)
        assert me(tab.view)["stack"] == 500
        assert (await tab.act("top_up", amount=600))["code"] == "bad_amount"  # above the largest buy-in
        assert (await tab.act("im_back"))["code"] == "not_away"
        assert acked(await tab.act("leave"))
        await catch_up([tab], room)
        assert tab.view["you"] is None and tab.view["role"] == "spectator" and tab.view["seats"] == []
        await db(assert_ledger_clean)()
    finally:
        await tab.close()


async def test_host_controls_start_kick_and_close(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        assert (await tabs["alice"].act("start"))["code"] == "wrong_phase"  # the bank is being offered
        dara_seat = tabs["dara"].view["you"]
        assert (await tabs["bob"].act("kick", seat=dara_seat))["code"] == "not_host"
        assert (await tabs["alice"].act("kick", seat="s999999"))["code"] == "not_seated"
        assert (await tabs["alice"].act("kick", seat=tabs["alice"].view["you"]))["code"] == "kick_self"
        assert acked(await tabs["alice"].act("kick", seat=dara_seat))
        await catch_up(tabs.values(), room)
        assert tabs["dara"].view["you"] is None and dara_seat not in {s["id"] for s in tabs["bob"].view["seats"]}
        assert (await tabs["dara"].act("sit", buy_in=500))["code"] == "kicked"

        assert (await tabs["bob"].act("close"))["code"] == "not_host"
        await tabs["alice"].send({"type": "action", "action": "close", "action_id": "bye"})
        for tab in tabs.values():
            with pytest.raises(Closed) as closed:
                while True:
                    await tab.next()
            assert closed.value.code == CLOSE_ROOM_CLOSED
            assert [f["type"] for f in tab.of("closed")] == ["closed"]
            assert tab.frames[-1][1]["type"] == "closed" and tab.frames[-2][1]["type"] in ("update", "ack")
        assert await db(lambda: Room.objects.get(pk=room.pk).status)() == Room.Status.CLOSED
        await db(assert_ledger_clean)()
        with pytest.raises(Closed) as closed:
            await Tab(cast["bob"], room.code).open()
        assert closed.value.code == CLOSE_NO_ROOM  # a closed room is no room to connect to
    finally:
        await close_all(tabs.values())


async def test_when_the_host_leaves_the_next_snapshot_names_the_new_host(cast, no_resync):
    room, tabs = await seated_table(cast)
    try:
        assert acked(await tabs["alice"].act("leave"))
        await catch_up(tabs.values(), room)
        await tabs["chen"].send({"type": "snapshot"})
        snap = await tabs["chen"].reply("snapshot")
        hosts = [s["id"] for s in snap["view"]["seats"] if s["host"]]
        assert hosts == [tabs["bob"].view["you"]]  # bob sat first after alice
        assert snap["room"]["host"] == {"id": cast["bob"].pk, "name": "Bob"}
        assert acked(await tabs["bob"].act("kick", seat=tabs["dara"].view["you"]))
    finally:
        await close_all(tabs.values())
