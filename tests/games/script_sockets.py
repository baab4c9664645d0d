"""A golden script (tests/engine/scripts/, docs/engine.md "Scripts") played at a live table: a real room with the
script's preset and rules, a real user in each of its seats (a bot user where the script has a bot), each action sent
over that seat's WebSocket, and each `system` action done by the service the table's timer uses (services.table_wake:
a timeout, the next hand). Helpers of tests/games/test_socket_house_scripts.py.

What the engine's script runner (games/engine/script.py, `run_script`) does by itself, the live table does here the
way it does in play, step for step:
- the script's seats sit in its order and at its positions, with its stacks as their buy-ins; the seat marked
  `banker` opens the bank before the host starts (the host is the seat marked `host`, or else a user who does not
  play); a first bank offered instead is opened by the offered seat with its whole stack, as the runner does;
- every hand starts with the script's seed (the first hand's, then SHA-256 of "{seed}:{hand number}"), committed
  between hands as the table always commits the next hand's seed, and with the script's top cards and dice:
  `stacked_deals` replaces games.services.moves._start_hand and games.services.save._commit_next_seed;
- a hand starts only when the script asks for it (the pause between hands is an hour, which the test's clock skips
  at `next_hand`); betting closes, and every turn left times out, by the table's deadline (`expire`);
- bots play by themselves, as soon as they have something to do (Celery eager), where the runner lets them act
  before the next scripted action: the same moves;
- nobody goes away for timing out (three hands in a row would mark a seat away at a live table; a script's seats
  play every hand).

The result is made from the table as it is saved (its state and the events stored for it) by the runner's own
`_output`, with the seat ids turned back into the script's names: it is compared whole with the .expected.json.
"""

import asyncio
import hashlib
import json
import pathlib
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import transaction

from games import services
from games.engine import EngineError, state_from_json
from games.engine import script as engine_script
from games.models import HandEvent, Table
from games.services import moves
from games.services.run import _locked
from games.services.save import _save
from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean, expire, state
from tests.games.sockets import Tab, catch_up, close_all, db

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "engine" / "scripts"
NEXT_HAND_PAUSE = 3600.0  # seconds between hands at the script's table: a hand starts when the script says


def script_paths(pattern: str = "house-*.json") -> list[pathlib.Path]:
    return sorted(p for p in SCRIPTS.glob(pattern) if not p.name.endswith(".expected.json"))


def load(path: pathlib.Path) -> tuple[dict, dict]:
    """(the script, its .expected.json)."""
    return json.loads(path.read_text()), json.loads(path.with_name(path.stem + ".expected.json").read_text())


class Refused(Exception):
    def __init__(self, code: str, message: str = ""):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


# --- the script's deals ------------------------------------------------------------------------------------------


@dataclass
class Deals:
    """The seed, top cards and dice of each hand the script plays (hand number -> start_hand's arguments); a hand
    the script did not ask for is not started, and is noted in `unasked`."""

    seed: str
    starts: dict = field(default_factory=dict)
    unasked: list = field(default_factory=list)

    def seed_for(self, hand_no: int) -> str:
        return self.seed if hand_no == 1 else hashlib.sha256(f"{self.seed}:{hand_no}".encode()).hexdigest()


class StackedDeals:
    """The patches of `stacked_deals` read the script being played from here (one at a time)."""

    deals: Deals | None = None

    def start_hand(self, run) -> None:
        run.meta["next_hand_at"] = None
        n = run.state.hand_no + 1
        if self.deals is None or n not in self.deals.starts:
            if self.deals is not None:
                self.deals.unasked.append(n)
            return
        run.apply("system", "start_hand", {"seed_hex": self.deals.seed_for(n), **self.deals.starts[n]})

    def commit_next_seed(self, run) -> None:
        s = run.state
        if s.seats and s.next_seed is None and s.phase not in ("auction", "betting", "playing") \
                and self.deals is not None:
            run.apply("system", "commit_seed", {"seed_hex": self.deals.seed_for(s.hand_no + 1)})


def patch_deals(monkeypatch, settings) -> StackedDeals:
    stacked = StackedDeals()
    monkeypatch.setattr("games.services.moves._start_hand", stacked.start_hand)
    monkeypatch.setattr("games.services.save._commit_next_seed", stacked.commit_next_seed)
    monkeypatch.setattr("games.services.save.AWAY_AFTER_HANDS", 10**6)
    settings.GAMES_NEXT_HAND_SECONDS = NEXT_HAND_PAUSE
    return stacked


# --- the table ---------------------------------------------------------------------------------------------------


def _user(name: str, display: str, *, bot: bool = False):
    User = get_user_model()
    if bot:
        return User.objects.create(username=name, is_bot=True, is_active=False, display_name=display, password="!")
    return User.objects.create_user(name, f"{name}@example.com", "pw-long-enough-1", display_name=display)


def _beans(users) -> dict[int, int]:
    from wallets.models import Account

    out = {u.pk: 0 for u in users}
    for uid, balance in Account.objects.filter(user__in=users, currency="beans", kind="available").values_list(
            "user_id", "balance"):
        out[uid] += balance
    return out


def _direct(room_id: int, fn) -> None:
    """A command the room makes itself (a bot's seat, a bot's own explicit move), locked and saved as any other."""
    with transaction.atomic():
        run = _locked(room_id)
        try:
            fn(run)
        except EngineError as e:
            raise Refused(e.code, e.message) from None
        except services.GameError as e:
            raise Refused(e.code, e.message) from None
        _save(run)


def _fingerprint(room_id: int):
    """What a refused action must leave as it was: the table row and every account's balance."""
    from wallets.models import Account

    return (Table.objects.filter(pk=room_id).values_list("version", "state", "meta").get(),
            list(Account.objects.order_by("pk").values_list("pk", "balance")))


def _rename(value, names: dict):
    """`value` with every live seat id (a whole string, or a key) turned into the script's name for it."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): _rename(v, names) for k, v in value.items()}
    return value


class _Played:
    """What the runner's `_output` reads: the state and the events."""

    def __init__(self, state, events):
        self.state = state
        self.events = events


class LiveScript:
    """One script at a live table. `play()` returns the output (as play_script prints it: the result, or
    {"error": ...}) and the status (0 or 2)."""

    def __init__(self, data: dict, stacked: StackedDeals, clock):
        self.data = data
        self.clock = clock
        self.deals = Deals(seed=engine_script._seed_for(data))
        stacked.deals = self.deals
        first = {}
        if data.get("deck") is not None:
            first["deck"] = data["deck"]
        if data.get("dice") is not None:
            first["dice"] = data["dice"]
        self.deals.starts[1] = first
        self.seats = list(data["seats"]) + [{**x, "role": "side"} for x in data.get("side_bettors") or []]
        self.users: dict[str, object] = {}  # script name -> user
        self.tabs: dict[str, Tab] = {}  # script name -> tab (people; and the host who does not play: "")
        self.seat_ids: dict[str, str] = {}  # script name -> live seat id
        self.room = None
        self.buy_ins: dict[int, int] = {}
        self.beans_before: dict[int, int] = {}
        self.audits = 0
        self.refused_over_socket: str | None = None  # the action a seat's socket was refused

    # -- setting up --

    def _make_people(self) -> None:
        for i, seat in enumerate(self.seats):
            bot = bool(seat.get("bot"))
            self.users[seat["name"]] = _user(f"{'bot' if bot else 'seat'}{i}", seat["name"], bot=bot)
        hosts = [x["name"] for x in self.data["seats"] if x.get("host")]
        self.host = self.users[hosts[0]] if hosts else _user("dealer", "Dealer")
        people = [*self.users.values(), self.host]
        self.beans_before = _beans(people)

    async def setup(self) -> None:
        await db(self._make_people)()
        stacks = [x.get("stack", 0) for x in self.seats]
        try:
            self.room = await db(services.room_create)(
                host=self.host, preset=self.data["preset"], overrides=self.data.get("rules") or {},
                buy_in_min=max(1, min(stacks)), buy_in_max=max(stacks))
        except services.GameError as e:
            raise Refused(e.code, e.message) from None
        for seat in self.seats:
            if not seat.get("bot"):
                self.tabs[seat["name"]] = Tab(self.users[seat["name"]], self.room.code)
        if not any(x.get("host") for x in self.data["seats"]):
            self.tabs[""] = Tab(self.host, self.room.code)
        await asyncio.gather(*(tab.open() for tab in self.tabs.values()))
        positions = {"main": 0, "side": 0}
        for seat in self.seats:
            role = seat.get("role", "main")
            position, positions[role] = positions[role], positions[role] + 1
            user, stack = self.users[seat["name"]], seat.get("stack", 0)
            if seat.get("bot"):
                await db(_direct)(self.room.pk, lambda run, u=user, s=stack, p=position, b=seat["bot"], r=role:
                                  moves._sit(run, u, role=r, buy_in=s, position=p, bot=b))
            else:
                await self.send(seat["name"], "sit", {"buy_in": stack, "position": position, "role": role})
            self.buy_ins[user.pk] = stack
        table = await db(Table.objects.get)(pk=self.room.pk)
        self.seat_ids = {name: table.meta["users"][str(u.pk)] for name, u in self.users.items()}
        self.names = {v: k for k, v in self.seat_ids.items()}
        banker = next((x for x in self.data["seats"] if x.get("banker")), None)
        if banker is not None:
            rules = table.state["rules"]
            amount = banker.get("stack", 0) if rules["bank_open"] == "whole-stack" else \
                banker.get("bank", banker.get("stack", 0))
            await self.send(banker["name"], "open_bank", {"amount": amount})
        await self.send(self._host_name(), "start", {})
        s = await self.state()
        if s["phase"] == "bank_decision":
            # As the runner: the first one offered the bank opens it with their whole stack (a bot did already).
            offered = self.names[s["pending"]["seat"]]
            stack = next(x["stack"] for x in s["seats"] if x["id"] == s["pending"]["seat"])
            await self.send(offered, "open_bank", {"amount": stack})
        await self.sync()

    def _host_name(self) -> str:
        return next((x["name"] for x in self.data["seats"] if x.get("host")), "")

    # -- the table's moves --

    async def state(self) -> dict:
        return await db(state)(self.room)

    async def sync(self) -> None:
        await catch_up(self.tabs.values(), self.room)

    async def send(self, name: str, action: str, args: dict) -> None:
        """The seat's own action over its socket (a bot's, straight to the table); a refusal raises Refused once
        checked to have changed nothing."""
        if name not in self.tabs:
            seat_id = self.seat_ids[name]
            await db(_direct)(self.room.pk, lambda run: run.apply(seat_id, action, args))
            await self.sync()
            return
        before = await db(_fingerprint)(self.room.pk)
        frame = await self.tabs[name].act(action, **args)
        if not acked(frame):
            assert frame["type"] == "error", frame
            assert await db(_fingerprint)(self.room.pk) == before, f"{action} was refused and changed the table"
            self.refused_over_socket = action
            raise Refused(frame["code"], frame.get("message", ""))
        await self.sync()

    async def timeout(self) -> None:
        """The deadline passes: the table's timer applies the defaults (services.table_wake)."""
        did = await db(expire)(self.room, self.clock)
        assert did in ("timeout", "hand"), did
        await self.sync()

    async def finish_hand(self) -> None:
        """Play the hand out: the bots have acted; every bet or turn left times out."""
        for _ in range(200):
            if (await self.state())["phase"] not in ("auction", "betting", "playing"):
                return
            await self.timeout()
        raise AssertionError("the hand did not end")

    async def next_hand(self, deck: list) -> None:
        await self.finish_hand()
        s = await self.state()
        if s["phase"] not in ("waiting", "between_hands"):
            raise Refused("wrong_phase", "A hand can start only between hands.")
        n = s["hand_no"] + 1
        self.deals.starts[n] = {"deck": deck} if deck else {}
        table = await db(Table.objects.get)(pk=self.room.pk)
        at = table.meta.get("next_hand_at")
        assert at is not None, f"no next hand is due: {table.meta.get('start_refused')}"
        self.clock.advance(max(0.0, at - self.clock()) + 0.01)
        await db(services.table_wake)(room_id=self.room.pk)
        await self.sync()
        s = await self.state()
        if s["hand_no"] < n and s["phase"] != "bank_decision":
            refused = (await db(Table.objects.get)(pk=self.room.pk)).meta.get("start_refused")
            raise Refused(refused or "no_hand", "the next hand did not start")

    def hands_over(self) -> int:
        return max(len(tab.events("hand_over")) for tab in self.tabs.values())

    async def step(self, entry) -> None:
        """One scripted action, after what the runner does before it (engine/script.py, `run_script`); the ledger is
        audited after each hand that ended."""
        over = self.hands_over()
        name, word, args = engine_script._parse_action(entry)
        phase = (await self.state())["phase"]
        if word in engine_script.BANK_WORDS and phase in ("auction", "betting", "playing"):
            await self.finish_hand()
            phase = (await self.state())["phase"]
        if phase == "auction" and word not in ("bid", "timeout", "leave"):
            await self.timeout()  # the bank auction closes before betting (the bots have bid), as the runner does
            phase = (await self.state())["phase"]
        if phase == "betting" and word not in engine_script.BETTING_WORDS:
            await self.timeout()
        if word == "next_hand":
            await self.next_hand(args["deck"])
        elif word == "timeout":
            s = await self.state()
            if s["phase"] not in ("auction", "playing", "betting", "bank_decision"):
                raise Refused("wrong_phase", "No deadline is running.")
            if self.seat_ids.get(name) not in s["deadline_for"]:
                raise Refused("not_your_turn", f"It is not {name}'s turn.")
            await self.timeout()
        else:
            assert name in self.seat_ids, f"{entry}: only a seat's action can go over a socket"
            await self.send(name, word, _rename(args, self.seat_ids))
        if self.hands_over() > over:
            await self.audit()

    async def audit(self) -> None:
        await db(assert_ledger_clean)()
        await db(assert_holds_match_table)(self.room)
        self.audits += 1

    # -- the result --

    def _output(self) -> tuple[dict, int]:
        table = Table.objects.get(pk=self.room.pk)
        events = list(HandEvent.objects.filter(room_id=self.room.pk).order_by("version", "seq")
                      .values_list("data", flat=True))
        try:
            out = engine_script._output(_Played(state_from_json(table.state), events))
        except EngineError as e:
            return {"error": {"code": e.code, "message": e.message}}, 2
        return _rename(out, self.names), 0

    async def play(self) -> tuple[dict, int]:
        try:
            await self.setup()
            for entry in self.data.get("actions") or []:
                await self.step(entry)
            await self.finish_hand()
            await self.audit()
        except Refused as e:
            return {"error": {"code": e.code, "message": e.message}}, 2
        return await db(self._output)()

    async def check_sockets(self) -> None:
        """Every tab drew the table's last version, and the hand record every viewer holds is the table's."""
        table = await db(Table.objects.get)(pk=self.room.pk)
        settled = [e for e in await db(lambda: list(HandEvent.objects.filter(room_id=self.room.pk, type="hand_settled")
                                                    .order_by("version", "seq").values_list("data", flat=True)))()]
        for name, tab in self.tabs.items():
            assert tab.version == table.version, name
            assert tab.events("hand_settled") == settled, name
            if table.state["phase"] not in ("betting", "playing"):
                assert tab.view["last_hand"] == table.state["last_hand"], name
            assert {x["id"]: x["stack"] for x in tab.view["seats"]} == \
                {x["id"]: x["stack"] for x in table.state["seats"]}, name
            assert tab.view["bank"] == table.state["bank"], name

    async def close(self) -> None:
        """Everybody goes home: the room closes (a hand under way is played out by the defaults). Every player's beans
        moved by exactly what their seat won or lost, the bots' by what they won or lost on their float."""
        await close_all(self.tabs.values())
        if self.room is None:
            return
        await db(services.room_close)(room_id=self.room.pk, by=self.host)
        await db(assert_ledger_clean)()
        left = await db(lambda: {e["seat"]: e["chips_out"] for e in HandEvent.objects.filter(
            room_id=self.room.pk, type="seat_left").values_list("data", flat=True)})()
        people = [*self.users.values(), self.host]
        after = await db(_beans)(people)
        for name, user in self.users.items():
            if name not in self.seat_ids:
                continue
            out = left[self.seat_ids[name]]
            float_in = self.buy_ins[user.pk] if user.is_bot else 0
            assert after[user.pk] - self.beans_before[user.pk] == out - self.buy_ins[user.pk] + float_in, name
