"""The soak's tables, random players, driver processes and privacy scan: helpers of tests/games/test_soak.py, whose
docstring says what the soak plays and checks. SOAK_HANDS, SOAK_SEED and SOAK_WORKERS set a run's size."""

import faulthandler
import json
import multiprocessing
import os
import random
import signal
import tempfile
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field

from django.db import connections
from django.db.models import Sum

from games import broadcast, selectors, services, tasks
from games.engine import state_to_json, view
from games.engine.rules import HOUSE_PRESETS
from games.frames import update_frames
from games.models import Room, Table
from games.services import run as services_run
from tests.games.conftest import assert_holds_match_table, assert_ledger_clean, expire
from tests.games.soak_approvals import answer
from tests.games.sockets import Tab, card_strings, db, random_moves, stake_range
from wallets.models import Account

HANDS = int(os.environ.get("SOAK_HANDS", "10000"))
SEED = int(os.environ.get("SOAK_SEED", "20240808"))
WORKERS = int(os.environ.get("SOAK_WORKERS", "3"))  # driver processes, each with its own tables and connection
AUDIT_EVERY = 100
PLAYERS = 40
BEANS = 10_000  # tests/games/conftest.py: every player's welcome grant
# (preset, overrides, kind): six rooms of each game, one of them a practice room with bots. A quarter of the rooms play
# house rules (house-rules.md): each preset with house rules, Zhejiang letting it ride and with its bank bid for, and
# a practice room whose bot banker opens hands one by one.
ROOMS = [
    ("ten-half", {}, "humans"), ("ten-half", {"base_stake": 20}, "humans"), ("ten-half", {}, "humans"),
    ("ten-half", {"max_side_bettors": 2}, "humans"), ("ten-half-auction", {}, "humans"),
    ("ten-half", {"max_main_seats": 2}, "ai"),
    ("seven-half", {}, "humans"), ("seven-half", {"house_rules": True}, "humans"),
    ("seven-half", {"jackpot_enabled": True}, "humans"), ("seven-half", {"house_rules": True}, "humans"),
    ("seven-half-matta", {}, "humans"), ("seven-half", {"max_main_seats": 2}, "ai"),
    ("zhejiang-ten-half", {}, "humans"), ("zhejiang-ten-half", {"mode": "extended"}, "humans"),
    ("zhejiang-ten-half", {}, "humans"), ("zhejiang-ten-half", {"push_cap": 10}, "humans"),
    ("zhejiang-ten-half", {"bank_auction": True, "bank_turn_hands": 3}, "humans"),
    ("zhejiang-ten-half", {"max_main_seats": 2}, "ai"),
    ("ban-luck", {}, "humans"), ("ban-luck", {}, "humans"), ("ban-luck", {}, "humans"),
    ("ban-luck-opens", {}, "humans"), ("ban-luck-opens", {"banker_open_from": 17, "max_main_seats": 2}, "ai"),
    ("ban-luck", {"max_main_seats": 2}, "ai"),
]
# Indexes in ROOMS whose host approves every buy-in and top-up (tests/games/soak_approvals.py).
APPROVING = {1, 8, 13, 19}
# Indexes in ROOMS also played to real sockets: one table of each game, and the bank auction's and the banker's opens.
WATCHED = {0, 4, 7, 12, 18, 21}
# TV mode (docs/rules.md, "Spectators"): a share of the tables, three of them watched by a spectator socket; their
# players give and withdraw consent at random (`Soak.step`), and every `tv` frame is checked (`Privacy.check_tv`).
TV = {0, 2, 7, 12, 15, 18, 21}
HOUSE_KNOBS = {"bank_auction", "push_cap", "matta", "banker_opens", "free_hand"}
HOUSE = {i for i, (preset, overrides, _kind) in enumerate(ROOMS) if preset in HOUSE_PRESETS or HOUSE_KNOBS & set(overrides)}
# Whole bets and stands come more often than chance would have them: a hand of chip, chip, reset... is
# a fine thing to do now and then, but 10,000 hands have to fit in CI's time.
WEIGHTS = {"bet": 4, "stand": 2, "side_bet": 2, "chip": 0.5, "reset": 0.5}


# --- what may not be seen ---------------------------------------------------------------------------------


@dataclass
class Secrets:
    """What is hidden at one table version: face-down cards and cards set aside, by seat; the stock."""

    down: dict = field(default_factory=dict)
    aside: dict = field(default_factory=dict)
    stock: frozenset = frozenset()
    users: dict = field(default_factory=dict)  # user id (str) -> seat id
    # Seven and a Half draws for the first bank from a deck of its own, in the open (a bank_draw event):
    # those card codes may be in that version's frames, whatever the hand's deck holds.
    public: frozenset = frozenset()

    def hidden_from(self, seat_id: str | None) -> set:
        out = set(self.stock)
        for seat, cards in [*self.down.items(), *self.aside.items()]:
            if seat != seat_id:
                out |= cards
        return out - self.public


class Privacy:
    """Wraps broadcast.table_update: every broadcast is scanned for every viewer, and what was hidden at
    each version of a watched table is kept for the scan of its sockets' frames."""

    def __init__(self, watched_rooms: set[int]):
        self.watched = watched_rooms
        self.kept: dict[tuple[int, int], Secrets] = {}
        self.aside: dict[int, dict[str, set]] = {}  # room -> seat -> cards set aside in the current hand
        self.frames = 0  # these counters are each process's own
        self.tv_frames = 0  # tv frames with a card in them
        self.before: dict[int, Secrets] = {}  # room -> the secrets of its previous version
        self.guarded = 0  # frames scanned while something was hidden from their viewer
        self.socket_hands = 0
        self.versions = 0
        self.all_hands = multiprocessing.get_context("fork").Value("q", 0)  # every process's hands
        self.real = broadcast.table_update
        self.lock = threading.Lock()  # the sockets' thread and the event loop

    @property
    def hands(self) -> int:
        return self.all_hands.value

    def __call__(self, room_id, version, state, events, users, *rest):
        if room_id in self.watched:
            # Through Redis to the tabs. The other tables have no sockets: their frames are made here.
            self.real(room_id, version, state, events, users, *rest)
        aside = self.aside.setdefault(room_id, {})  # a table is driven by one process
        over = 0
        for e in events:
            if e["type"] in ("hand_started", "hand_over"):
                aside.clear()
            elif e["type"] == "card_discarded":
                aside.setdefault(e["seat"], set()).add(e["card"])
            over += e["type"] == "hand_over"
        if over:
            with self.all_hands.get_lock():
                self.all_hands.value += over
        with self.lock:
            self.versions += 1
            if room_id in self.watched:
                self.socket_hands += over
        secrets = secrets_of(state_to_json(state), aside, users)
        secrets.public = frozenset(c for e in events if e["type"] == "bank_draw" for c in e["cards"].values())
        watch = rest[-1] if rest and isinstance(rest[-1], dict) else None
        before, self.before[room_id] = self.before.get(room_id, Secrets()), secrets
        if watch is not None and watch.get("tv") is not None:
            meta = Table.objects.values_list("meta", flat=True).get(pk=room_id)
            consent = {seat for seat, info in meta["seats"].items()
                       if (meta.get("tv") or {}).get(str(info["user"]), 10**9) <= (state.hand or {}).get("no", -1)}
            self.check_tv(watch["tv"], before, consent - {state.banker}, f"room {room_id} v{version}")
        if room_id in self.watched:
            self.kept[(room_id, version)] = secrets
        for key, text in update_frames(version, state, events, sorted(set(users.values())), True).items():
            seat_id = key or None
            self.check(json.loads(text), secrets.hidden_from(seat_id), f"room {room_id} v{version} seat {seat_id}")

    def check(self, frame: dict, hidden: set, where: str) -> None:
        leaked = hidden & card_strings(frame, set())
        assert not leaked, f"{where}: {sorted(leaked)} in {str(frame)[:2000]}"
        with self.lock:
            self.frames += 1
            self.guarded += bool(hidden)

    def check_tv(self, frame: dict, before: Secrets, consent: set | None, where: str) -> None:
        """A `tv` frame shows only face-down cards of the version before (`before`), each its own seat's, and, when
        `consent` is given (the seats whose owner consents for this hand), only those seats'."""
        assert frame["type"] == "tv", where
        for seat, hands in frame["cards"].items():
            cards = {c for h in hands for c in h}
            assert cards <= before.down.get(seat, set()), f"{where}: tv {seat} {sorted(cards)} not down a version ago"
            assert consent is None or seat in consent, f"{where}: tv cards of {seat}, whose owner does not consent"
            with self.lock:
                self.tv_frames += bool(cards)

    def secrets_at(self, room_id: int, version: int) -> Secrets:
        return self.kept.get((room_id, version), Secrets())


def secrets_of(state: dict, aside: dict, users: dict) -> Secrets:
    h = state.get("hand")
    if not h or h["over"]:
        return Secrets(users=dict(users))
    down = {}
    for owner, hands in h["hands"].items():
        cards = {code for ph in hands for code, vis in ph["cards"] if vis != "up"}
        if cards:
            down[owner] = cards
    return Secrets(down=down, aside={s: set(c) for s, c in aside.items()}, stock=frozenset(h["stock"]),
                   users=dict(users))


# --- the house rules' moves ---------------------------------------------------------------------------------


HOUSE_ARGS = {"open", "bid"}


def house_moves(v: dict, rng: random.Random) -> list[tuple[str, dict]]:
    """The house rules' moves with the arguments random_moves does not give (house-rules.md): the banker opens one of
    the challengers it may open, a bidder bids from no bid to the highest allowed, a rider stakes up to the ride."""
    legal, house, out = v["legal_actions"], v.get("house") or {}, []
    openable = (house.get("banker_opens") or {}).get("openable") or []
    if "open" in legal and openable:
        out.append(("open", {"seat": rng.choice(openable)}))
    if "bid" in legal:
        out.append(("bid", {"mult": rng.randint(0, (house.get("auction") or {}).get("max", 1))}))
    cap = (house.get("ride") or {}).get(v["you"])
    if "bet" in legal and cap:
        low, _high, step = stake_range(v)
        if cap >= low:
            out.append(("bet", {"amount": low + step * rng.randint(0, (cap - low) // step)}))
    return out


# --- the tables ---------------------------------------------------------------------------------------------


@dataclass
class Live:
    room: Room
    preset: str
    kind: str
    watched: bool
    tabs: dict = field(default_factory=dict)  # user id -> Tab (watched tables)
    spectator: Tab | None = None
    closed_tabs: list = field(default_factory=list)


class Soak:
    """The random players. Every method here is synchronous (one database thread); the test awaits it."""

    def __init__(self, rng: random.Random, clock, players: list):
        self.rng = rng
        self.clock = clock
        self.players = players
        self.by_id = {p.pk: p for p in players}
        self.commands = Counter()  # action -> accepted
        self.refused = Counter()  # error code -> count
        self.events = Counter()  # join, leave, kick, refresh, timeout ...
        self.snapshots = 0

    def table(self, live: Live) -> Table:
        return Table.objects.get(pk=live.room.pk)

    def submit(self, live: Live, user, action: str, args: dict | None = None) -> bool:
        try:
            services.action_submit(room_id=live.room.pk, user=user, action=action, args=args or {},
                                   action_id=f"{action}-{self.rng.getrandbits(40):x}")
        except services.GameError as e:
            self.refused[e.code] += 1
            if e.code == "room_closed":
                self.reopen(live)
            return False
        self.commands[action] += 1
        return True

    def reopen(self, live: Live) -> None:
        """The players voted the room closed (`vote`): a new room of the same game takes its place at this table."""
        live.room = services.room_create(host=self.rng.choice(self.players), preset=live.preset,
                                         overrides=live.room.overrides, kind=live.kind)
        self.events["vote_reopened"] += 1

    def vote(self, live: Live, table: Table, humans: dict) -> str:
        """A vote at the table (games/services/votes.py): now and then the host allows a vote to end the room at any
        time (the soak's tables have no sockets, so no host is ever away); a seated player calls one to end the room or
        to skip an away seat's timers; the other voters answer yes or no at random."""
        rng, room_id = self.rng, live.room.pk
        host = next((u for u in humans.values() if u.pk == live.room.host_id), None)
        if host is not None and rng.random() < 0.3:
            services.vote_anytime(room_id=room_id, user=host, allow=rng.random() < 0.7)
        seat, user = rng.choice(sorted(humans.items()))
        kind = rng.choice(("close", "skip"))
        away = sorted(table.meta.get("away", {})) or sorted(humans)
        try:
            vote = services.vote_call(room_id=room_id, user=user, kind=kind, seat=rng.choice(away))
        except services.GameError as e:
            self.refused[e.code] += 1
            return "vote"
        self.events["vote_called"] += 1
        for voter in vote.voters[1:]:
            try:
                vote = services.vote_cast(room_id=room_id, user=humans[voter], vote=vote.pk, yes=rng.random() < 0.6)
            except services.GameError as e:
                self.refused[e.code] += 1  # decided already
        if vote.outcome:
            self.events[f"vote_{kind}_{vote.outcome}"] += 1
        return "vote"

    def humans(self, table: Table) -> dict[str, object]:
        """Seat id -> user, for the seated people (not bots)."""
        return {seat: self.by_id[info["user"]] for seat, info in table.meta.get("seats", {}).items()
                if not info["bot"] and info["user"] in self.by_id}

    def join(self, live: Live, table: Table, user=None) -> object | None:
        seated = {info["user"] for info in table.meta.get("seats", {}).values()}
        free = [p for p in self.players if p.pk not in seated and p.pk not in table.meta.get("kicked", [])]
        if user is None:
            if not free:
                return None
            user = self.rng.choice(free)
        room = live.room
        role = "side" if live.preset == "ten-half" and live.kind == "humans" and self.rng.random() < 0.2 else "main"
        buy_in = self.rng.randint(room.buy_in_min, room.buy_in_max)
        if self.submit(live, user, "sit", {"role": role, "buy_in": buy_in}):
            self.events["join"] += 1
            return user
        return None

    def timeout(self, live: Live) -> None:
        expire(live.room, self.clock)
        self.events["timeout"] += 1

    def refresh(self, live: Live, table: Table, privacy: Privacy) -> None:
        """A reload of the page: the snapshot a new connection gets, scanned for what it may not show."""
        users = list(self.humans(table).values()) or self.players[:1]
        user = self.rng.choice(users)
        frame = selectors.snapshot(live.room, user)
        state = frame["view"]
        secrets = secrets_of(Table.objects.get(pk=live.room.pk).state, privacy.aside.get(live.room.pk, {}), {})
        privacy.check(frame, secrets.hidden_from(frame["me"]["seat"]), f"snapshot of room {live.room.pk}")
        assert state["you"] == frame["me"]["seat"]
        self.snapshots += 1

    def step(self, live: Live, privacy: Privacy) -> str:
        """One random thing at one table. Returns what it was (for the watched tables' bookkeeping)."""
        rng = self.rng
        table = self.table(live)
        state = table.state
        humans = self.humans(table)
        roll = rng.random()
        if state["deadline"] is not None and state["deadline"] <= self.clock():
            # The clock moved on (a timeout at another table): this table's timer fired meanwhile.
            services.table_wake(room_id=live.room.pk)
            self.events["late_timeout"] += 1
            return "late_timeout"
        if live.room.approve_buy_ins and rng.random() < 0.3 and (answered := answer(self, live)):
            return answered
        if live.kind == "humans" and (len(humans) < 2 and roll < 0.5 or roll < 0.006):
            user = self.join(live, table)
            return f"join:{user.pk}" if user else "nothing"
        if live.kind == "humans" and humans and roll < 0.012:
            seat, user = rng.choice(sorted(humans.items()))
            if self.submit(live, user, "leave"):
                self.events["leave"] += 1
            return "leave"
        if live.kind == "humans" and len(humans) > 2 and roll < 0.013:
            host = next((u for u in humans.values() if u.pk == live.room.host_id), None)
            others = [s for s, u in humans.items() if u.pk != live.room.host_id]
            if host and others and self.submit(live, host, "kick", {"seat": rng.choice(sorted(others))}):
                self.events["kick"] += 1
            return "kick"
        if live.kind == "humans" and not live.watched and len(humans) > 1 and rng.random() < 0.015:
            return self.vote(live, table, humans)
        if live.room.spectators == "tv" and humans and rng.random() < 0.04:
            # A player gives or withdraws consent to TV mode (a refusal: the answer was theirs already).
            user = rng.choice(sorted(humans.values(), key=lambda u: u.pk))
            try:
                services.tv_consent(room_id=live.room.pk, user=user, on=rng.random() < 0.7)
                self.events["tv_consent"] += 1
            except services.GameError:
                pass
            return "tv_consent"
        if roll < 0.03:
            self.refresh(live, table, privacy)
            self.events["refresh"] += 1
            return "refresh"
        if not table.meta.get("started"):
            host = self.by_id.get(live.room.host_id)
            if host is not None and self.submit(live, host, "start"):
                return "start"
        parsed = selectors.state_at(live.room.pk, table.version, state)
        # The seats that have something to decide (a deadline runs for them, a bank is offered to them);
        # now and then everybody (the banker who retires, a player back from away, a vacant bank).
        focus = set(state["deadline_for"]) | ({state["pending"]["seat"]} if state["pending"] else set())
        if not focus or roll < 0.08:
            focus = set(humans)
        moves, weights = [], []
        for seat in sorted(focus & set(humans)):
            user = humans[seat]
            v = view(parsed, seat)
            plain = [m for m in random_moves(v, rng) if m[0] not in HOUSE_ARGS]  # those take arguments: house_moves
            for action, args in [*plain, *house_moves(v, rng)]:
                moves.append((user, action, args))
                weights.append(WEIGHTS.get(action, 1))
            legal = v["legal_actions"]
            if "retire" in legal and rng.random() < 0.05:
                moves.append((user, "retire", {}))  # the bank passes on
                weights.append(1)
            if "seed_jackpot" in legal and rng.random() < 0.1:
                moves.append((user, "seed_jackpot", {"amount": v["rules"]["base_stake"]}))
                weights.append(1)
        if state["deadline"] is not None and (not moves or roll < 0.1):
            self.timeout(live)
            return "timeout"
        next_hand_at = table.meta.get("next_hand_at")
        if next_hand_at is not None and (not moves or roll < 0.5):
            # The pause to read the results is over: the table's clock starts the next hand.
            self.clock.advance(max(0.0, next_hand_at - self.clock()) + 0.01)
            services.table_wake(room_id=live.room.pk)
            return "next_hand"
        if moves:
            user, action, args = rng.choices(moves, weights)[0]
            self.submit(live, user, action, args)
            return action
        if state["deadline"] is None and live.kind == "humans":
            # Nothing to decide and nothing running: between hands with too few players, or a bank to open.
            self.join(live, table)
            return "join"
        if live.kind == "ai" and not humans:
            return "empty"
        services.table_wake(room_id=live.room.pk)
        return "wake"


# --- the sockets of the watched tables -----------------------------------------------------------------------


async def watch_frames(live: Live, privacy: Privacy) -> int:
    """Scan every frame the watched table's tabs received since the last call; returns how many."""
    scanned = 0
    for tab in [*live.tabs.values(), live.spectator, *live.closed_tabs]:
        start = getattr(tab, "scanned", 0)
        for text, frame in tab.frames[start:]:
            secrets = privacy.secrets_at(live.room.pk, frame["version"])
            if frame["type"] == "tv":  # TV mode: one version late (consent is checked as the frame is made)
                privacy.check_tv(frame, privacy.secrets_at(live.room.pk, frame["version"] - 1), None, str(tab.user))
                scanned += 1
                continue
            if frame["type"] == "snapshot":
                seat = frame["me"]["seat"]
            else:
                seat = secrets.users.get(str(tab.user.pk))
            privacy.check(frame, secrets.hidden_from(seat), f"{tab.user} socket frame {text[:200]}")
            scanned += 1
        tab.scanned = len(tab.frames)
    live.closed_tabs = [t for t in live.closed_tabs if t.scanned < len(t.frames)]
    return scanned


async def open_tab(live: Live, user, cookie=None) -> Tab:
    tab = Tab(user, live.room.code, cookie=cookie)
    await tab.open()
    return tab


async def sync_tabs(live: Live) -> None:
    version = await db(lambda: Table.objects.values_list("version", flat=True).get(pk=live.room.pk))()
    for tab in [*live.tabs.values(), live.spectator]:
        try:
            while tab.version < version:
                await tab.next(timeout=30)  # patient: three drivers and PostgreSQL share two cores
        except TimeoutError:
            raise AssertionError(f"{tab.user} at room {live.room.pk} drew v{tab.version}, the table is at v{version}; "
                                 f"last frames: {[(f['type'], f.get('version')) for _t, f in tab.frames[-8:]]}; "
                                 f"socket task done: {tab.comm.future.done()}") from None


async def watched_step(soak: Soak, live: Live, privacy: Privacy) -> None:
    rng = soak.rng
    if rng.random() < 0.01 and live.tabs:
        # A refresh: the old tab goes, a new one connects with the same cookie.
        uid = rng.choice(sorted(live.tabs))
        old = live.tabs[uid]
        await old.close()
        live.closed_tabs.append(old)
        live.tabs[uid] = await open_tab(live, old.user, old.cookie)
        soak.events["reconnect"] += 1
    elif rng.random() < 0.03 and live.tabs:
        tab = live.tabs[rng.choice(sorted(live.tabs))]
        await tab.send({"type": "snapshot"})
        await tab.reply("snapshot", "error")
        soak.events["snapshot_request"] += 1
    table = await db(soak.table)(live)
    seated = {info["user"] for info in table.meta.get("seats", {}).values() if not info["bot"]}
    for uid in seated - set(live.tabs):
        # Somebody sat down (or will): a browser has the room open before the player sits.
        live.tabs[uid] = await open_tab(live, soak.by_id[uid])
    did = await db(soak.step)(live, privacy)
    if did.startswith("join:"):
        uid = int(did.split(":")[1])
        if uid not in live.tabs:
            live.tabs[uid] = await open_tab(live, soak.by_id[uid])
    await sync_tabs(live)
    await watch_frames(live, privacy)


# --- the soak ------------------------------------------------------------------------------------------------


def open_rooms(players) -> list[tuple[Room, str, str]]:
    rooms = []
    for i, (preset, overrides, kind) in enumerate(ROOMS):
        host = players[i % len(players)]
        room = services.room_create(host=host, preset=preset, overrides=overrides, kind=kind,
                                    approve_buy_ins=i in APPROVING,
                                    spectators="tv" if i in TV else "public")
        rooms.append((room, preset, kind))
    return rooms


def seat_first_players(soak: Soak, lives: list[Live]) -> None:
    for live in lives:
        table = soak.table(live)
        soak.join(live, table, soak.by_id[live.room.host_id])
        if live.kind == "humans":
            for _ in range(soak.rng.randint(1, 2)):
                soak.join(live, soak.table(live))


def audit_all(lives: list[Live]) -> None:
    assert_ledger_clean()
    for live in lives:
        assert_holds_match_table(live.room)


def close_everything(lives: list[Live]) -> None:
    """Every open room: the tables' own, and those a driver opened after a vote closed one (`Soak.reopen`)."""
    for room in Room.objects.filter(status=Room.Status.OPEN).select_related("host").order_by("pk"):
        services.room_close(room_id=room.pk, by=room.host)


def beans_of_players(players) -> int:
    return Account.objects.filter(user__in=players, currency="beans").aggregate(total=Sum("balance"))["total"]


def wake_when_due(room_id: int, version: int, wake_at) -> None:
    """The Celery task with its ETA: what is due now (a bot's move) runs at once, as in eager mode; what is
    due later (a deadline, the next hand) waits for the table's clock, which the players move."""
    if wake_at.timestamp() <= services_run._now():
        tasks._run_inline(room_id, version)


class SharedClock:
    """The services' clock (tests/games/conftest.py, Clock), moved by every driver process: it never goes back."""

    def __init__(self):
        self.offset = multiprocessing.get_context("fork").Value("d", 0.0)

    def __call__(self) -> float:
        return time.time() + self.offset.value

    def advance(self, seconds: float) -> None:
        with self.offset.get_lock():
            self.offset.value += seconds


def worker_round(soak: Soak, lives: list[Live], privacy: Privacy, target: int) -> None:
    """Steps at random tables of one driver until `target` hands were played in all."""
    while privacy.hands < target:
        live = soak.rng.choice(lives)
        for _ in range(soak.rng.randint(5, 20)):
            if privacy.hands >= target:
                break
            soak.step(live, privacy)


def driver(conn, w: int, lives: list[Live], players: list, privacy: Privacy, clock: SharedClock) -> None:
    """A driver process (forked: it has the test's settings and patches). Plays its tables round after round,
    each until the target hands it receives, and sends back "done"; then its figures, or a traceback."""
    # A driver that stops answering is asked for its threads' stacks (`reply`): they go to this file.
    stacks = open(stack_file(os.getpid()), "w")  # noqa: SIM115 (open for the process's life)
    faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True)
    try:
        soak = Soak(random.Random(f"{SEED}:{w}"), clock, players)
        while (target := conn.recv()) is not None:
            worker_round(soak, lives, privacy, target)
            conn.send(("done", None))
        conn.send(("figures", {"commands": soak.commands, "refused": soak.refused, "events": soak.events,
                               "snapshots": soak.snapshots, "frames": privacy.frames, "guarded": privacy.guarded,
                               "tv_frames": privacy.tv_frames,
                               "versions": privacy.versions}))
    except BaseException:
        conn.send(("error", traceback.format_exc()))
    finally:
        connections.close_all()
        faulthandler.unregister(signal.SIGUSR1)
        stacks.close()
        os.unlink(stacks.name)


def what_it_waits_for(process) -> str:
    """The stacks of a driver that hangs, and what every database session of the test waits for."""
    stacks = "(no stacks: the driver is gone)"
    if process.is_alive():
        os.kill(process.pid, signal.SIGUSR1)
        time.sleep(2)
        with open(stack_file(process.pid)) as f:
            stacks = f.read()
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pid, state, wait_event_type, wait_event, pg_blocking_pids(pid), "
                       "now() - xact_start, left(query, 300) FROM pg_stat_activity WHERE datname = current_database()")
        sessions = "\n".join(map(str, cursor.fetchall()))
    connections.close_all()
    return f"driver pid {process.pid} stacks:\n{stacks}\ndatabase sessions:\n{sessions}"


def start_drivers(shares, players, privacy, clock) -> list:
    """Fork the drivers from a thread of its own: it has no database connection and no event loop."""
    ctx = multiprocessing.get_context("fork")
    drivers = []
    for w, share in enumerate(shares, start=1):
        ours, theirs = ctx.Pipe()
        process = ctx.Process(target=driver, args=(theirs, w, share, players, privacy, clock), daemon=True)
        process.start()
        drivers.append((process, ours))
    return drivers


def stack_file(pid: int) -> str:
    return os.path.join(tempfile.gettempdir(), f"soak-driver-{pid}.stack")


def reply(process, conn, timeout: float = 600) -> tuple[str, object]:
    if not conn.poll(timeout):
        raise AssertionError(f"a driver said nothing for {timeout} s:\n{what_it_waits_for(process)}")
    kind, payload = conn.recv()
    if kind == "error":
        raise AssertionError(f"a driver failed:\n{payload}")
    return kind, payload
