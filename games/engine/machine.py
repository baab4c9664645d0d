"""The hand machine shared by every game: ``apply(state, command) -> (state, events)``.

One command is checked, then done, on a copy of the state, so a refused command (an ``EngineError``)
leaves the caller's state untouched. The flow follows rules/README.md "Phases of one hand"; each game
only plugs in its hooks (games/engine/variants/), so nothing here asks which game it is. Chips enter or
leave the table only by ``sit``, ``leave`` and ``top_up`` (their events' ``chips_in``/``chips_out``);
every other command moves them between stacks, the bank and the jackpot (settlement: ``Table.settle``),
so the sum of the three is conserved.
"""

import importlib
from dataclasses import dataclass, field

from . import auction, void
from .cards import DECKS, canonical_sorted
from .errors import EngineError
from .rules import Rules, validate
from .shuffle import ZERO_CHAIN, chain_hash, commitment, deal_key, roll_dice, seat_seed, seed_bytes, shuffle
from .state import TableState, copy_state
from .variants import VARIANTS
from .variants.base import LOSE, PUSH, VOID, WIN

# "auction": house-rules.md "The bank auction" (games/engine/auction.py), a hand whose bank is bid for first.
IN_HAND = ("auction", "betting", "playing")


@dataclass
class Command:
    actor: str
    action: str
    args: dict = field(default_factory=dict)
    now: float = 0.0


def new_table(rules: Rules) -> TableState:
    validate(rules)
    return TableState(rules=rules)


def _command(command) -> Command:
    if isinstance(command, Command):
        return command
    if isinstance(command, dict):
        return Command(actor=str(command.get("actor", "")), action=str(command.get("action", "")),
                       args=dict(command.get("args") or {}), now=float(command.get("now") or 0.0))
    raise EngineError("bad_command", "A command is an object with actor, action, args and now.")


def apply(state: TableState, command) -> tuple[TableState, list[dict]]:
    """Apply one command to a copy of ``state``; return the new state and the events it caused."""
    cmd = _command(command)
    handler = HANDLERS.get(cmd.action)
    if handler is None:
        raise EngineError("unknown_action", f"There is no action called {cmd.action!r}.")
    if not isinstance(cmd.args, dict):
        raise EngineError("bad_command", "The arguments of a command are an object.")
    s = copy_state(state)
    t = Table(s, cmd.now)
    handler(t, cmd.actor, cmd.args)
    return s, t.events


def apply_in_place(state: TableState, command) -> list[dict]:
    """Like ``apply`` but changes ``state`` itself (for simulations that own their state). A refused
    command may leave the state half changed, so only use it with commands known to be legal."""
    cmd = _command(command)
    handler = HANDLERS.get(cmd.action)
    if handler is None:
        raise EngineError("unknown_action", f"There is no action called {cmd.action!r}.")
    t = Table(state, cmd.now)
    handler(t, cmd.actor, cmd.args)
    return t.events


class Table:
    """One command's working context: the state being changed, the time, the events emitted."""

    def __init__(self, s: TableState, now: float):
        self.s = s
        self.now = now
        self.events: list[dict] = []
        self.rules = s.rules
        self.v = VARIANTS[s.rules.game]

    @property
    def hand(self) -> dict:
        return self.s.hand

    @property
    def machine(self):
        """This module: the bank auction (auction.py) plays a hand with the machine's own steps, and imports from here
        nothing, since this module calls it (the import contracts allow no cycle)."""
        return importlib.import_module(__name__)

    def emit(self, type_: str, **data) -> None:
        data["type"] = type_
        self.events.append(data)

    def seat(self, seat_id: str) -> dict:
        seat = self.s.seat(seat_id)
        if seat is None:
            raise EngineError("not_seated", "You are not seated at this table.")
        return seat

    def stack(self, seat_id: str) -> int:
        return self.s.seat(seat_id)["stack"]

    def committed(self, seat_id: str) -> int:
        """The stakes a seat has riding on the current hand (what its stack must cover)."""
        h = self.s.hand
        total = sum(ph["stake"] for ph in h["hands"].get(seat_id, ()) if not ph["settled"])
        side = h["side"].get(seat_id)
        if side and side["confirmed"]:
            total += side["amount"]
        return total

    def eval(self, seat_id: str, index: int = 0):
        return self.v.evaluate([c[0] for c in self.s.hand["hands"][seat_id][index]["cards"]], self.rules)

    # -- cards -------------------------------------------------------------------------------------
    def next_card(self) -> str | None:
        h = self.s.hand
        if not h["stock"] and self.s.shoe is not None and self.s.shoe["discards"]:
            # seven-half.md "Cards": when the stock runs out, even mid-hand, the discards become a new stock.
            h["labels"] += 1
            label = str(h["labels"])
            source = canonical_sorted(self.s.shoe["discards"], self.s.rules.deck)
            self.s.shoe["discards"] = []
            h["stock"] = shuffle(source, bytes.fromhex(h["key"]), label)
            h["reshuffles"].append({"label": label, "source": source, "at": len(h["dealt"])})
            self.emit("shoe_reshuffled", cards=len(source), label=label)
        if not h["stock"]:
            return None
        card = h["stock"].pop(0)
        h["dealt"].append(card)
        return card

    def deal(self, seat_id: str, index: int, vis: str | None = None) -> str | None:
        """Deal one card to a hand, face down ('own') or up, as the variant says unless ``vis`` is given."""
        ph = self.s.hand["hands"][seat_id][index]
        if vis is None:
            vis = self.v.visibility(ph, seat_id == self.s.banker, ph["opened"], self.rules)
        card = self.next_card()
        if card is None:
            return None
        ph["cards"].append([card, vis])
        # The event carries the card; redact_event() strips it for anyone but its owner while it is down.
        self.emit("card_dealt", seat=seat_id, hand=index, card=card, face="up" if vis == "up" else "down")
        return card

    def discard(self, seat_id: str, index: int, position: int) -> str:
        ph = self.s.hand["hands"][seat_id][index]
        card, vis = ph["cards"].pop(position)
        self.s.hand["set_aside"].append(card)
        self.emit("card_discarded", seat=seat_id, hand=index, card=card)
        return card

    def reveal(self, seat_id: str, index: int | None = None) -> None:
        shown = []
        for i, ph in enumerate(self.s.hand["hands"][seat_id]):
            if index is None or i == index:
                for c in ph["cards"]:
                    c[1] = "up"
                shown.append([c[0] for c in ph["cards"]])
        # Only the hands turned up: the other hand of a split may still hold a face-down card.
        self.emit("hand_shown", seat=seat_id, hand=index, cards=shown)

    # -- chips ----------------------------------------------------------------------------------------
    def settle(self, bettor: str, kind: str, backs: str, index: int, stake: int, outcome: str, mult: int,
               why: str = "") -> dict:
        """Settle one bet against the finite bank (rules/README.md, "Bank limits")."""
        s, h = self.s, self.s.hand
        if h["bank_empty"] and outcome in (WIN, LOSE):
            outcome, why = VOID, "bank_empty"
        due = stake * mult if outcome in (WIN, LOSE) else 0
        # house-rules.md "The bank auction": the winning bid multiplies every settlement between the bank and a
        # challenger while its banker holds the bank; the bank limits and the no-debt cap below apply to the product.
        bank_mult = s.bank_mult if kind == "main" and outcome in (WIN, LOSE) else 1
        due *= bank_mult
        paid = 0
        seat = s.seat(bettor)
        if outcome == WIN:
            paid = min(due, s.bank)  # the winner gets what is left, no sharing with later winners
            s.bank -= paid
            seat["stack"] += paid
        elif outcome == LOSE:
            paid = min(due, seat["stack"])  # rules/README.md "No debt": never more than the stack
            seat["stack"] -= paid
            s.bank += paid
        sign = 1 if outcome == WIN else -1
        if paid:
            h["deltas"][bettor] = h["deltas"].get(bettor, 0) + sign * paid
            h["deltas"][s.banker] = h["deltas"].get(s.banker, 0) - sign * paid
        result = {"bettor": bettor, "kind": kind, "backs": backs, "hand": index, "stake": stake,
                  "outcome": outcome, "multiplier": mult if outcome in (WIN, LOSE) else 0, "due": due, "paid": paid}
        if why:
            result["why"] = why
        if bank_mult > 1:
            result["bank_mult"] = bank_mult
        h["results"].append(result)
        self.emit("bet_settled", **result)
        if outcome == WIN and s.bank == 0:
            h["bank_empty"] = True  # every bet not yet settled is now void
        return result

    def settle_hand_now(self, seat_id: str, index: int, outcome: str, mult: int, why: str) -> None:
        """Settle a challenger's hand before the reveal (a bust in Seven and a Half, a special...)."""
        ph = self.s.hand["hands"][seat_id][index]
        ph["settled"] = True
        ph["done"] = True
        result = self.settle(seat_id, "main", seat_id, index, ph["stake"], outcome, mult, why)
        ph["outcome"] = [result["outcome"], mult]

    def set_deadline(self, seconds: int | None, who: list[str]) -> None:
        self.s.deadline = None if seconds is None else self.now + seconds
        self.s.deadline_for = list(who)


# ---------------------------------------------------------------------------------------------------
# Seats (rules/README.md "Between hands" and "Leaving mid-hand")

def _int_arg(args: dict, name: str, minimum: int = 1) -> int:
    value = args.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError("bad_amount", f"The {name} must be a whole number.")
    if value < minimum:
        raise EngineError("bad_amount", f"The {name} must be at least {minimum}.")
    return value


def in_hand(s: TableState, seat_id: str) -> bool:
    h = s.hand
    if s.phase not in IN_HAND or h is None:
        return False
    return seat_id in h["bets"] or seat_id in h["hands"] or seat_id == s.banker or (
        seat_id in h["side"] and h["side"][seat_id]["confirmed"] and h["side"][seat_id]["amount"] > 0)


def may_top_up(s: TableState, seat_id: str) -> bool:
    """Top-ups are between hands (docs/rules.md): not for a seat in the hand, nor for a side bettor still
    choosing its side bet, which would stake chips brought in during the hand."""
    return not in_hand(s, seat_id) and not (s.phase == "betting" and seat_id in s.hand["side"])


def do_sit(t: Table, actor: str, args: dict) -> None:
    s, r = t.s, t.rules
    if not actor or actor == "system":
        raise EngineError("bad_seat", "A seat needs an id.")
    if s.seat(actor) is not None:
        raise EngineError("already_seated", "You are already seated at this table.")
    role = args.get("role", "main")
    if role not in ("main", "side"):
        raise EngineError("bad_role", "A seat is a main seat or a side-bettor seat.")
    stack = _int_arg(args, "stack", 0) if "stack" in args else 0
    bot = args.get("bot")
    if bot not in (None, "basic", "expert"):
        raise EngineError("bad_bot", "A bot level is basic or expert.")
    if role == "main":
        taken = {x["position"] for x in s.main_seats()}
        limit = r.max_main_seats
    else:
        if not r.side_bets_enabled:
            raise EngineError("side_bets_disabled", "This room has no side bets.")
        taken = {x["position"] for x in s.side_seats()}
        limit = r.max_side_bettors
    if len(taken) >= limit:
        raise EngineError("table_full", f"Every {'main' if role == 'main' else 'side-bettor'} seat is taken.")
    position = args.get("position")
    if position is None:
        position = min(p for p in range(limit + len(taken) + 1) if p not in taken)
    elif isinstance(position, bool) or not isinstance(position, int) or position < 0:
        raise EngineError("bad_position", "A position is a whole number from 0.")
    elif position in taken:
        raise EngineError("seat_taken", "That seat is taken.")
    s.seq += 1
    seat = {"id": actor, "name": str(args.get("name") or actor), "stack": stack, "bot": bot, "role": role,
            "position": position, "host": bool(args.get("host", False)), "leaving": False,
            "declined_take": False, "seq": s.seq, "away": False}
    s.seats.append(seat)
    t.emit("seat_joined", seat=actor, name=seat["name"], role=role, position=position, bot=bot, stack=stack,
           chips_in=stack)
    if "seed" in args:
        _take_seed(t, actor, args["seed"], quiet=True)
    if args.get("banker") and role == "main" and s.banker is None and s.phase not in IN_HAND:
        amount = args.get("bank", stack)
        if r.bank_open == "whole-stack":
            amount = stack
        _open_bank(t, actor, _int_arg({"bank": amount}, "bank"))


# Why the room took a seat away (`leave` from the room with `why`): the seat_left event says so.
LEAVE_WHY = ("away",)


def do_leave(t: Table, actor: str, args: dict) -> None:
    """``why`` and ``minutes``: the room releases a seat away for that long (docs/rules.md, "Away"); the
    seat_left event carries both, also when the seat leaves only after the hand it is in."""
    s = t.s
    seat = t.seat(actor)
    if "why" in args:
        if args["why"] not in LEAVE_WHY:
            raise EngineError("bad_command", f"why is one of {', '.join(LEAVE_WHY)}.")
        seat["release"] = {"why": args["why"], "minutes": _int_arg(args, "minutes", 0)}
    if in_hand(s, actor):
        if seat["leaving"]:
            raise EngineError("already_leaving", "You are already leaving after this hand.")
        seat["leaving"] = True
        t.emit("seat_leaving", seat=actor)
        if t.rules.escape_penalty and s.phase == "playing":
            _escape(t, actor)
            return
        if s.phase == "betting":
            if actor in s.hand["bets"] and not s.hand["bets"][actor]["confirmed"]:
                _default_stake(t, actor)
            side = s.hand["side"].get(actor)
            if side and not side["confirmed"]:
                del s.hand["side"][actor]
            _maybe_close_betting(t)
        elif s.phase == "playing":
            advance(t)
        elif s.phase == "auction":
            auction.left(t, actor)
        return
    _remove_seat(t, actor)
    if s.phase in ("waiting", "between_hands", "bank_decision") and s.banker is None and s.pending is None:
        s.phase = "waiting"


def _remove_seat(t: Table, seat_id: str) -> None:
    s = t.s
    seat = s.seat(seat_id)
    if s.banker == seat_id:
        _close_bank(t, "left")
        _next_banker(t, seat["position"])
    if s.pending and s.pending["seat"] == seat_id:
        _pending_next(t)
    elif s.pending:
        s.pending["queue"] = [x for x in s.pending["queue"] if x != seat_id]
    if s.hand is not None and s.hand.get("side", {}).get(seat_id) and s.phase == "betting":
        del s.hand["side"][seat_id]
    s.seeds.pop(seat_id, None)
    if s.jackpot_owner == seat_id:
        # An uncollected jackpot goes home with the host who seeded it (docs/rules.md).
        seat["stack"] += s.jackpot
        t.emit("jackpot_returned", seat=seat_id, amount=s.jackpot)
        s.jackpot, s.jackpot_owner = 0, None
    s.seats.remove(seat)
    t.emit("seat_left", seat=seat_id, stack=seat["stack"], chips_out=seat["stack"], **seat.get("release", {}))


def do_top_up(t: Table, actor: str, args: dict) -> None:
    s = t.s
    seat = t.seat(actor)
    amount = _int_arg(args, "amount")
    if not may_top_up(s, actor):
        raise EngineError("in_hand", "Top up between hands.")
    if s.banker == actor and t.rules.bank_open == "whole-stack":
        # The whole stack is the bank: a top-up goes into it and never counts as profit.
        s.bank += amount
        s.bank_topups += amount
        t.emit("stack_topped_up", seat=actor, amount=amount, chips_in=amount, into="bank")
        if s.pending and s.pending["kind"] == "refill":
            s.pending = None
            t.set_deadline(None, [])
            s.phase = "between_hands"
        return
    seat["stack"] += amount
    t.emit("stack_topped_up", seat=actor, amount=amount, chips_in=amount, into="stack")


# Why the room marks a seat away (docs/rules.md, "Away"): hands played by timeouts, no open connection, the host.
AWAY_WHY = ("timeouts", "disconnected", "host")


def do_set_seat(t: Table, actor: str, args: dict) -> None:
    """The room marks a seat away (it sits out of the next hands, no default bets; ``why``: one of AWAY_WHY) or
    back, moves the host role, or marks a seat `no_bank`: the bank never moves to it by itself, only by an offer
    it accepts (`offer_bank`; practice rooms, docs/rules.md). Away seats still finish a hand they are in by
    timeouts."""
    if actor != "system":
        raise EngineError("not_allowed", "Only the room changes a seat's status.")
    seat = t.seat(str(args.get("seat", "")))
    why = args.get("why")
    if why is not None and (why not in AWAY_WHY or args.get("away") is not True):
        raise EngineError("bad_command", f"why goes with away: true, and is one of {', '.join(AWAY_WHY)}.")
    changed = {}
    for name in ("away", "host", "no_bank"):
        if name in args:
            if not isinstance(args[name], bool):
                raise EngineError("bad_command", f"{name} is true or false.")
            if seat.get(name) != args[name]:
                seat[name] = changed[name] = args[name]
    if "name" in args:  # the player renamed themselves (games/services/names.py)
        if not isinstance(args["name"], str) or not 1 <= len(args["name"]) <= 150:
            raise EngineError("bad_command", "name is a text of 1 to 150 characters.")
        if seat["name"] != args["name"]:
            seat["name"] = changed["name"] = args["name"]
    if changed:
        if why is not None and "away" in changed:
            changed["why"] = why
        t.emit("seat_updated", seat=seat["id"], **changed)


def do_set_rules(t: Table, actor: str, args: dict) -> None:
    """A room's rules change applies from the next hand (rules/README.md, "frozen" once started)."""
    if actor != "system":
        raise EngineError("not_allowed", "Only the room can change its rules.")
    new = Rules.from_json(args.get("rules", {}))
    if new.game != t.rules.game:
        raise EngineError("invalid_rules", "game: a table keeps its game")
    t.s.next_rules = new
    t.emit("rules_changed", rules=new.to_json(), from_hand=t.s.hand_no + 1)


# ---------------------------------------------------------------------------------------------------
# The bank between hands

def _open_bank(t: Table, seat_id: str, amount: int) -> None:
    s = t.s
    seat = s.seat(seat_id)
    if amount > seat["stack"] or amount <= 0:
        raise EngineError("bad_amount", "The opening bank must be between 1 and your stack.")
    if t.rules.bank_open == "whole-stack" and amount != seat["stack"]:
        raise EngineError("bad_amount", "In this game the whole stack is the bank.")
    seat["stack"] -= amount
    s.banker = seat_id
    s.bank = amount
    s.bank_opening = amount
    s.bank_topups = 0
    s.bank_hands = 0
    s.bank_mult = 1  # an auction's multiplier is set by auction.py after this
    s.retire_requested = False
    s.pending = None
    s.phase = "between_hands"
    t.set_deadline(None, [])
    t.emit("bank_opened", seat=seat_id, amount=amount)


def _close_bank(t: Table, why: str) -> None:
    s = t.s
    old = s.banker
    s.seat(old)["stack"] += s.bank
    t.emit("bank_closed", seat=old, returned=s.bank, why=why)
    s.bank = 0
    s.banker = None
    s.bank_opening = s.bank_topups = s.bank_hands = 0
    s.bank_mult = 1
    s.retire_requested = False


def _candidates(t: Table, position: int | None, include_from: bool = False) -> list[str]:
    """Main seats in the bank's direction from ``position`` (the old banker's place), excluding it."""
    mains = [x for x in t.s.main_seats() if not x["leaving"] and not x.get("away") and not x.get("no_bank")]
    if not mains:
        return []
    if position is None:
        return [x["id"] for x in sorted(mains, key=lambda x: x["seq"])]
    ordered = sorted(mains, key=lambda x: x["position"])
    if t.rules.rotation == "counter-clockwise":
        ordered.reverse()
        after = [x for x in ordered if x["position"] < position] + [x for x in ordered if x["position"] >= position]
    else:
        after = [x for x in ordered if x["position"] > position] + [x for x in ordered if x["position"] <= position]
    return [x["id"] for x in after if include_from or x["position"] != position]


def _bank_cover(t: Table) -> int:
    """The smallest bank that may bank: the room's ``bank_min_cover``, else the game's (Variant.smallest_bank)."""
    r = t.rules
    if r.bank_min_cover is not None:
        return r.bank_min_cover
    challengers = max(1, len([x for x in t.s.main_seats() if x["id"] != t.s.banker]))
    return t.v.smallest_bank(r, challengers)


def _next_banker(t: Table, position: int | None, cover: int = 1, keep: str | None = None) -> None:
    """Offer or give the bank to the next player from ``position`` (rules files, "Moving the bank"), or with the bank
    auction on (house-rules.md), leave it to the next hand's auction."""
    s = t.s
    if keep is None and (s.next_rules or t.rules).bank_auction:
        auction.vacant(t, position)
        return
    queue = [c for c in _candidates(t, position) if s.seat(c)["stack"] >= max(cover, 1)]
    if keep is not None:
        queue = [c for c in queue if c != keep]
    if not queue:
        s.pending = None
        if keep is not None:
            return
        s.phase = "waiting"
        t.set_deadline(None, [])
        t.emit("bank_vacant")
        return
    if keep is not None:
        _close_bank(t, "rotation")
    if t.rules.bank_open == "whole-stack":
        _open_bank(t, queue[0], s.seat(queue[0])["stack"])
        return
    _offer(t, "open", queue)


def _offer(t: Table, kind: str, queue: list[str]) -> None:
    s = t.s
    s.pending = {"kind": kind, "seat": queue[0], "queue": queue[1:]}
    s.phase = "bank_decision"
    t.set_deadline(t.rules.bank_seconds, [queue[0]])
    t.emit("bank_offered", kind=kind, seat=queue[0])


def _pending_next(t: Table) -> None:
    s = t.s
    p = s.pending
    queue = [c for c in p["queue"] if s.seat(c) is not None]
    if p["kind"] == "take":
        if queue:
            _offer_take(t, queue)
        else:
            s.pending = None
            s.phase = "between_hands"
            t.set_deadline(None, [])
            _bank_checks(t)
        return
    if queue:
        _offer(t, p["kind"] if p["kind"] == "open" else "open", queue)
    else:
        s.pending = None
        s.phase = "waiting"
        t.set_deadline(None, [])
        t.emit("bank_vacant")


def do_open_bank(t: Table, actor: str, args: dict) -> None:
    s = t.s
    t.seat(actor)
    amount = args.get("amount", s.seat(actor)["stack"] if t.rules.bank_open == "whole-stack" else None)
    amount = _int_arg({"amount": amount}, "amount")
    if s.pending and s.pending["kind"] == "open":
        if s.pending["seat"] != actor:
            raise EngineError("not_your_turn", "The bank is offered to another player.")
    elif s.banker is not None or s.phase in IN_HAND or s.pending:
        raise EngineError("wrong_phase", "The bank is not open for taking now.")
    elif (s.next_rules or t.rules).bank_auction:
        raise EngineError("bank_auction", "The bank is bid for at the start of the next hand.")
    if s.seat(actor)["role"] != "main":
        raise EngineError("not_seated", "Only a main seat can hold the bank.")
    _open_bank(t, actor, amount)


def do_offer_bank(t: Table, actor: str, args: dict) -> None:
    """The room offers the bank to one main seat between hands (practice rooms, docs/rules.md): the seat takes
    it with its whole stack (`take_bank`) or declines (`decline_bank`, or the timeout), and then the banker keeps it."""
    s = t.s
    if actor != "system":
        raise EngineError("not_allowed", "Only the room offers the bank.")
    if s.phase not in ("waiting", "between_hands") or s.pending is not None or s.banker is None:
        raise EngineError("wrong_phase", "The bank is offered between hands, while someone holds it.")
    seat = t.seat(str(args.get("seat", "")))
    if seat["role"] != "main" or seat["id"] == s.banker or seat["leaving"] or seat.get("away") or seat["stack"] <= 0:
        raise EngineError("bad_seat", "The bank is offered to a seated challenger with chips.")
    _offer(t, "take", [seat["id"]])


def do_decline_bank(t: Table, actor: str, args: dict) -> None:
    s = t.s
    if not s.pending or s.pending["kind"] not in ("open", "take"):
        raise EngineError("wrong_phase", "Nothing is offered to you.")
    if s.pending["seat"] != actor:
        raise EngineError("not_your_turn", "The bank is offered to another player.")
    if s.pending["kind"] == "take":
        # seven-half.md: a player who has declined once must take it the next time.
        s.seat(actor)["declined_take"] = True
    t.emit("bank_declined", seat=actor, kind=s.pending["kind"])
    _pending_next(t)


def do_take_bank(t: Table, actor: str, args: dict) -> None:
    s = t.s
    if not s.pending or s.pending["kind"] != "take":
        if s.banker is None and s.phase in ("waiting", "between_hands") and not s.pending:
            do_open_bank(t, actor, args)
            return
        raise EngineError("wrong_phase", "The bank is not offered to you.")
    if s.pending["seat"] != actor:
        raise EngineError("not_your_turn", "The bank is offered to another player.")
    _take(t, actor)


def _take(t: Table, seat_id: str) -> None:
    s = t.s
    s.seat(seat_id)["declined_take"] = False
    _close_bank(t, "taken")
    t.emit("bank_taken", seat=seat_id)
    _open_bank(t, seat_id, s.seat(seat_id)["stack"])


def do_refill(t: Table, actor: str, args: dict) -> None:
    s = t.s
    if s.banker != actor:
        raise EngineError("not_banker", "Only the banker can refill the bank.")
    if s.phase in IN_HAND:
        raise EngineError("wrong_phase", "The bank is refilled between hands.")
    amount = _int_arg(args, "amount")
    seat = s.seat(actor)
    if amount > seat["stack"]:
        raise EngineError("bad_amount", "You cannot refill with more than your stack.")
    seat["stack"] -= amount
    s.bank += amount
    s.bank_topups += amount  # ten-half.md: top-ups never count as profit
    t.emit("bank_refilled", seat=actor, amount=amount, bank=s.bank)
    if s.pending and s.pending["kind"] == "refill":
        s.pending = None
        s.phase = "between_hands"
        t.set_deadline(None, [])


def do_pass_bank(t: Table, actor: str, args: dict) -> None:
    s = t.s
    if s.banker != actor:
        raise EngineError("not_banker", "Only the banker can pass the bank.")
    if not s.pending or s.pending["kind"] != "refill":
        raise EngineError("wrong_phase", "The bank can be passed when it is empty; otherwise retire.")
    position = s.seat(actor)["position"]
    s.pending = None
    _close_bank(t, "passed")
    t.emit("bank_passed", seat=actor)
    _next_banker(t, position)


def _net_profit(s: TableState) -> int:
    return s.bank - s.bank_opening - s.bank_topups


def do_retire(t: Table, actor: str, args: dict) -> None:
    s = t.s
    if s.banker != actor:
        raise EngineError("not_banker", "Only the banker can retire from the bank.")
    if t.rules.retire_needs_profit and _net_profit(s) < s.bank_opening:
        raise EngineError("retire_not_allowed",
                          "You may retire once the bank's net profit is at least the opening bank.")
    if s.phase in IN_HAND:
        s.retire_requested = True  # ten-half.md: retirement takes effect after the current hand
        t.emit("bank_retire_requested", seat=actor)
        return
    if s.pending:
        raise EngineError("wrong_phase", "Finish the bank decision first.")
    position = s.seat(actor)["position"]
    _close_bank(t, "retired")
    _next_banker(t, position)


def do_seed_jackpot(t: Table, actor: str, args: dict) -> None:
    s = t.s
    seat = t.seat(actor)
    if not t.rules.jackpot_enabled:
        raise EngineError("jackpot_disabled", "This room has no jackpot.")
    if not seat["host"]:
        raise EngineError("not_host", "Only the host seeds the jackpot.")
    if s.phase in IN_HAND:
        raise EngineError("wrong_phase", "The jackpot is seeded between hands.")
    amount = _int_arg(args, "amount")
    if amount > seat["stack"]:
        raise EngineError("bad_amount", "You cannot seed more than your stack.")
    seat["stack"] -= amount
    s.jackpot += amount
    s.jackpot_owner = actor  # the seeder owns the jackpot until a natural collects it
    t.emit("jackpot_seeded", seat=actor, amount=amount, jackpot=s.jackpot)


def _after_hand_bank(t: Table) -> None:
    """rules/README.md "Between hands": leavers go, then retirement, step-down, take offers, refills, rotation."""
    s, r, h = t.s, t.rules, t.s.hand
    banker = s.banker
    for seat in [x for x in s.seats if x["leaving"]]:
        _remove_seat(t, seat["id"])
    if s.banker is None:
        if s.pending is None and s.phase != "waiting":
            _next_banker(t, None)
        return
    if s.banker != banker:
        return  # the banker left and the bank has already moved on: the hand's results were not theirs
    banker_pos = s.seat(s.banker)["position"]
    if s.retire_requested:
        _close_bank(t, "retired")
        _next_banker(t, banker_pos)
        return
    if r.banker_policy == "step-down" and h["deltas"].get(s.banker, 0) < 0:
        # zhejiang.md: a banker who lost chips over the hand steps down; the bank moves on.
        t.emit("banker_steps_down", seat=s.banker)
        _close_bank(t, "stepped_down")
        _next_banker(t, banker_pos)
        return
    if r.take_bank_on_target and not h["bank_empty"]:
        b = t.eval(s.banker)
        if b.total != t.v.target:
            # The hand's order is seat order from the bank (order_policy seat), the order of the offers.
            takers = [x for x in h["order"] if x != s.banker and s.seat(x) is not None
                      and not s.seat(x).get("no_bank")
                      and any(t.v.evaluate([c[0] for c in ph["cards"]], r).total == t.v.target
                              for ph in h["hands"][x])]
            if takers:
                _offer_take(t, takers)
                return
    _bank_checks(t)


def _offer_take(t: Table, queue: list[str]) -> None:
    """seven-half.md "Moving the bank": the offer goes to each taker in turn; one who declined once takes it
    when the offer reaches them, never ahead of an earlier seat."""
    if t.s.seat(queue[0])["declined_take"]:
        _take(t, queue[0])
    else:
        _offer(t, "take", queue)


def _bank_checks(t: Table) -> None:
    s, r = t.s, t.rules
    if s.banker is None:
        return
    pos = s.seat(s.banker)["position"]
    if r.bank_turn_hands and s.bank_hands >= r.bank_turn_hands:
        _end_bank_turn(t)
        return
    if s.bank <= 0:
        # rules/README.md "Bank limits": an empty bank ends the round: refill, or give it up.
        _offer(t, "refill", [s.banker])
        return
    if r.banker_policy == "max-hands" and s.bank_hands >= r.bank_max_hands:
        t.emit("bank_term_over", seat=s.banker, hands=s.bank_hands)
        _next_banker(t, pos, cover=_bank_cover(t), keep=s.banker)
        return
    if t.v.covers_table and s.bank < _bank_cover(t):
        t.emit("bank_cannot_cover", seat=s.banker, bank=s.bank, cover=_bank_cover(t))
        _next_banker(t, pos, cover=_bank_cover(t), keep=s.banker)


def _end_bank_turn(t: Table) -> None:
    """house-rules.md "The bank by turns" (轮庄): after `bank_turn_hands` hands the banker kept, whatever the bank
    holds, it closes as if the banker retired: back to the banker's stack (beans stay in the seat's hold, as for a
    retirement), then on in the bank's direction from the banker's seat. The turn ends with the hand that reaches
    the count, so a bank emptied in that hand is not offered for a refill: it passes. A banker who is away is
    passed over like any away seat (`_candidates`). The hand's rules judge the count, so a change of the knob
    during a hand counts from the next (docs/rules.md, "The bank by turns")."""
    s = t.s
    position = s.seat(s.banker)["position"]
    t.emit("bank_turn_over", seat=s.banker, hands=s.bank_hands, hand_no=s.hand_no)
    _close_bank(t, "rotation")
    # The bank is offered in the usual order; with the bank auction on (house-rules.md, `bank_auction`) it is put up
    # for auction at the next hand instead (`_next_banker`, auction.vacant).
    _next_banker(t, position)


def _first_banker(t: Table, seed: bytes) -> None:
    s, r = t.s, t.rules
    mains = [x for x in s.main_seats() if x["stack"] > 0 and not x["leaving"] and not x.get("away")]
    if len(mains) < 2:
        raise EngineError("not_enough_players", "A hand needs a banker and at least one challenger.")
    if any(x.get("no_bank") for x in mains):
        mains = [x for x in mains if not x.get("no_bank")]  # they bank only by an offer they accept
        if not mains:
            raise EngineError("not_enough_players", "Nobody at the table takes the bank.")
    if r.first_banker == "draw":
        # seven-half.md "Choosing the first bank": one card each from a deck shuffled by this hand's seed
        # (stream "draw"); 1-7 by number, then jack, knight, king; ties by suit: cups, coins, clubs, swords.
        deck = shuffle(DECKS[r.deck], seed, "draw")
        draws = {x["id"]: deck[i] for i, x in enumerate(mains)}
        winner = max(draws, key=lambda k: _draw_rank(draws[k]))
        t.emit("bank_draw", cards=draws, winner=winner)
        _open_bank(t, winner, s.seat(winner)["stack"])
        return
    host = next((x for x in mains if x["host"]), None)
    by_seq = sorted(mains, key=lambda x: x["seq"])
    if r.first_banker == "host" and host is not None:
        # ten-half.md: the host banks first unless host_banks is off, then the next player does.
        first = host if r.host_banks else next(x for x in _ordered_from(mains, host) if x is not host)
    else:
        first = by_seq[0]
    if r.bank_open == "whole-stack":
        _open_bank(t, first["id"], first["stack"])
        return
    others = [c for c in _candidates(t, first["position"]) if s.seat(c)["stack"] > 0]
    _offer(t, "open", [first["id"], *others])


def _ordered_from(mains, start):
    ordered = sorted(mains, key=lambda x: x["position"])
    i = ordered.index(start)
    return ordered[i:] + ordered[:i]


_DRAW_RANK = {r: i for i, r in enumerate(("1", "2", "3", "4", "5", "6", "7", "J", "N", "K"))}
_DRAW_SUIT = {s: i for i, s in enumerate(("E", "B", "O", "C"))}  # swords lowest ... cups highest


def _draw_rank(code: str) -> tuple[int, int]:
    return _DRAW_RANK[code[:-1]], _DRAW_SUIT[code[-1]]


# ---------------------------------------------------------------------------------------------------
# Betting (rules/README.md "Betting")

def _stake_cover(t: Table, seat: dict) -> int:
    """rules/README.md "No debt": the largest stake the seat's stack covers (a third of it in Chinese Blackjack; for a
    challenger against a bank won at auction, house-rules.md, its multiplier's share)."""
    cover = seat["stack"] // 3 if t.rules.stake_third_of_stack else seat["stack"]
    return cover // _bank_mult(t, seat)


def _bank_mult(t: Table, seat: dict) -> int:
    """The bank auction's multiplier on this seat's stake: the bank's, for a challenger (side bets are not multiplied)."""
    return t.s.bank_mult if seat["role"] == "main" else 1


def _room_max(t: Table, seat: dict, base: int) -> int | None:
    """The usual largest stake the room sets, no-debt aside: `max_bet`, or for a challenger in a game with
    fixed stakes the hand's base stake; None: the stack (Ten and a Half)."""
    r = t.rules
    high = r.max_bet
    if r.fixed_stake and seat["role"] == "main":
        high = base if high is None else min(high, base)
    return high


def _ride(t: Table, seat_id: str) -> int | None:
    """house-rules.md "Let it ride" (推注): the largest stake the seat may ride to in this hand's betting (set at the
    hand's start, `_ride_offers`), or None."""
    h = t.s.hand
    if t.s.phase != "betting" or h is None:
        return None
    return (h.get("ride") or {}).get(seat_id)


def _stake_limits(t: Table, seat: dict, base: int) -> tuple[int, int]:
    r = t.rules
    low = base if r.fixed_stake else r.stake_min
    cover = _stake_cover(t, seat)  # ban-luck.md: a loss can cost three times the stake
    room = _room_max(t, seat, base)
    high = cover if room is None else min(cover, room)
    ride = _ride(t, seat["id"])
    if ride is not None:
        high = max(high, min(ride, cover))  # a ride lifts the room's largest stake, never the no-debt limit
    return low, high


def _check_stake(t: Table, seat: dict, amount, base: int) -> int:
    r = t.rules
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise EngineError("bad_amount", "A stake is a whole number of chips above zero.")
    low = base if r.fixed_stake else r.stake_min
    if amount < low:
        raise EngineError("bad_amount", f"The stake must be at least {low}.")
    if r.bet_multiple and amount % r.base_stake:
        raise EngineError("stake_not_multiple", f"Stakes are multiples of the base stake ({r.base_stake}).")
    room = _room_max(t, seat, base)
    if room is not None and amount > room:
        ride = _ride(t, seat["id"])
        if ride is None:
            raise EngineError("bad_amount", f"The stake must be at most {room}.")
        if amount > max(ride, room):
            raise EngineError("above_ride_cap", f"Letting it ride, the stake may be at most {max(ride, room)}.")
    if r.stake_third_of_stack and amount * 3 > seat["stack"]:
        raise EngineError("stake_above_third", "The stake may be at most a third of your stack.")
    if _bank_mult(t, seat) > 1 and amount > _stake_cover(t, seat):
        raise EngineError("stake_above_cover", f"The bank plays at ×{_bank_mult(t, seat)}: your stake may be at most "
                                               f"{_stake_cover(t, seat)}.")
    if amount > seat["stack"]:
        raise EngineError("bad_amount", "The stake cannot be more than your stack.")
    return amount


def _default_amount(t: Table, seat: dict, base: int) -> int | None:
    """The timeout stake: the room's base stake, lowered to what the stack allows (None: cannot play); in a
    game whose stake stays (``Variant.stake_stays``), the seat's stake of the previous hand while it is allowed."""
    low, high = _stake_limits(t, seat, base)
    if t.v.stake_stays:
        last = _last_stake(t.s, seat["id"])
        if low <= last <= high and not (t.rules.bet_multiple and last % t.rules.base_stake):
            return last
    amount = min(max(base, low), high)
    if t.rules.bet_multiple:
        amount -= amount % t.rules.base_stake
    return amount if amount >= low and amount > 0 else None


def _last_stake(s: TableState, seat_id: str) -> int:
    """The seat's stake in the previous hand (its first hand's), 0 when it did not challenge in it."""
    hands = (s.last_hand or {}).get("hands", {}).get(seat_id)
    return hands[0]["stake"] if hands else 0


def do_start_hand(t: Table, actor: str, args: dict) -> None:
    s = t.s
    if actor != "system":
        raise EngineError("not_allowed", "Only the table starts a hand.")
    if s.phase not in ("waiting", "between_hands"):
        raise EngineError("wrong_phase", "A hand can start only between hands.")
    # The server seed committed between hands (docs/fairness.md); ``seed_hex`` when none is (scripts, tests).
    seed_hex = s.next_seed or args.get("seed_hex")
    seed = seed_bytes(seed_hex)
    if s.next_rules is not None:
        s.rules = s.next_rules
        s.next_rules = None
        t.rules = s.rules
    r = t.rules
    if s.banker is None and r.bank_auction:
        auction.start(t, seed_hex, args)  # house-rules.md "The bank auction": the hand starts with it
        return
    if s.banker is None:
        _first_banker(t, seed)
        if s.banker is None:
            return  # the bank is offered first; the hand starts once it is open
    if s.bank <= 0:
        raise EngineError("bank_empty", "The bank is empty: refill it or pass it.")
    playing = [x for x in s.main_seats() if x["id"] != s.banker and not x["leaving"]]
    away = [x for x in playing if x.get("away")]
    playing = [x for x in playing if not x.get("away")]
    if not playing:
        raise EngineError("not_enough_players", "A hand needs at least one challenger.")
    if r.fixed_stake:
        base = t.v.hand_base_stake(r, s.bank + s.seat(s.banker)["stack"], [x["stack"] for x in playing])
    else:
        base = r.base_stake
    challengers = [x for x in playing if _default_amount(t, x, base) is not None]
    if not challengers:
        raise EngineError("not_enough_players", "A hand needs at least one challenger who can stake.")
    rides = _ride_offers(t, challengers, base)  # from the previous hand, before this one replaces it
    s.hand_no += 1
    s.bank_hands += 1
    _new_hand(t, seed_hex, args, base)
    h = s.hand
    for x in playing:
        if x not in challengers:
            h["sitting_out"].append(x["id"])
            t.emit("seat_sits_out", seat=x["id"], why="stack_too_small")
    for x in away:
        h["sitting_out"].append(x["id"])
        t.emit("seat_sits_out", seat=x["id"], why="away")
    h["ride"] = {k: v["cap"] for k, v in rides.items()}
    for x in challengers:
        # A rider in a game with fixed stakes chooses a stake from the base stake up to the ride (house-rules.md).
        riding = x["id"] in rides and min(rides[x["id"]]["cap"], _stake_cover(t, x)) > base
        h["bets"][x["id"]] = {"amount": base if r.fixed_stake else 0, "confirmed": r.fixed_stake and not riding}
    _open_side_bets(t)
    s.phase = "betting"
    s.pending = None
    t.emit("hand_started", hand_no=s.hand_no, commitment=s.commitment, banker=s.banker, bank=s.bank,
           base_stake=base, challengers=[x["id"] for x in challengers])
    for seat_id, ride in rides.items():
        t.emit("ride_offered", seat=seat_id, **ride)
    _betting_deadline(t)
    _maybe_close_betting(t)


def _new_hand(t: Table, seed_hex: str, args: dict, base: int) -> None:
    """The new hand's record (``s.hand``): its deck (the stock shuffled at the deal, `_seal_deal`), the seed it
    commits to and the seats' seed wait. `hand_no` is already counted."""
    s, r = t.s, t.rules
    if t.v.shoe:
        if s.shoe is None:
            s.shoe = {"stock": list(DECKS[r.deck]), "discards": []}
        # The shoe's stock persists but is put in this hand's seed order, so revealing the seed afterwards
        # never tells anyone the next hand's cards (docs/rules.md, "The shoe").
        source = canonical_sorted(s.shoe["stock"], r.deck)
        s.shoe["stock"] = []
    else:
        source = list(DECKS[r.deck])
    top = _top_cards(source, args.get("deck") or [])
    wait = _seed_wait_arg(args.get("seed_wait"))
    s.commitment = commitment(seed_hex)
    s.next_seed = s.next_commitment = None
    # The stock is shuffled at the deal, once the players' seeds are in (`_seal_deal`).
    s.hand = {
        "no": s.hand_no, "seed": seed_hex, "commitment": s.commitment, "source": source, "stacked": bool(top),
        "stock": list(source), "top": top, "dealt": [], "labels": 0, "reshuffles": [], "set_aside": [],
        "dice": args.get("dice"), "order": [], "base": base, "bank_start": s.bank,
        "bets": {}, "side": {}, "side_order": [], "hands": {}, "turn": None,
        "results": [], "deltas": {}, "bank_empty": False, "over": False, "sitting_out": [],
    }
    h = s.hand
    if wait is not None:
        h["seed_wait"], h["awaiting"] = wait, []


def _open_side_bets(t: Table) -> None:
    """Betting opens: every side seat with chips that is here may back a challenger."""
    s, h = t.s, t.s.hand
    if t.rules.side_bets_enabled:
        for x in s.side_seats():
            if x["stack"] > 0 and not x["leaving"] and not x.get("away"):
                h["side"][x["id"]] = {"backs": None, "amount": 0, "confirmed": False}


def _ride_offers(t: Table, challengers: list[dict], base: int) -> dict:
    """house-rules.md "Let it ride" (推注): the challengers who may ride in the hand about to start, each with
    ``cap`` (the largest stake the ride allows), ``stake`` and ``win`` (their stake and what they were paid in the
    previous hand). A challenger rides who won the previous hand (every hand of theirs in it: a push, a loss, a void
    or sitting it out ends the ride) against the same bank: the same banker, whose bank was neither closed and
    reopened (`_open_bank` restarts ``bank_hands``) nor emptied (an empty bank ends the round: rules/README.md "Bank
    limits") since. The cap is the previous stake plus its win, at most ``push_cap`` x this hand's base stake, down
    to a multiple of the base stake where stakes are; a ride to the base stake or less is none (docs/rules.md)."""
    s, r = t.s, t.rules
    last, prev = s.last_hand, s.hand
    if not r.push_cap or s.bank_hands < 1 or last is None or prev is None or prev.get("bank_empty") \
            or last.get("banker") != s.banker:
        return {}
    rides = {}
    for x in challengers:
        mine = [res for res in last["results"] if res["kind"] == "main" and res["bettor"] == x["id"]]
        if not mine or any(res["outcome"] != WIN for res in mine):
            continue
        stake, win = sum(res["stake"] for res in mine), sum(res["paid"] for res in mine)
        cap = min(stake + win, r.push_cap * base)
        if r.bet_multiple:
            cap -= cap % r.base_stake
        if cap > base:
            rides[x["id"]] = {"cap": cap, "stake": stake, "win": win}
    return rides


def _top_cards(source: list[str], top) -> list[str]:
    """The top of a deck stacked by a script or a test, checked against the hand's cards."""
    if not isinstance(top, list) or not all(isinstance(c, str) for c in top):
        raise EngineError("bad_deck", "The deck is a list of card codes.")
    remaining = list(source)
    for c in top:
        if c not in remaining:
            if c in source:
                raise EngineError("bad_deck", f"The card {c} is listed twice.")
            raise EngineError("bad_deck", f"The card {c} is not in this game's deck.")
        remaining.remove(c)
    return list(top)


def _seed_wait_arg(wait) -> dict | None:
    """``start_hand``'s ``seed_wait``: ``{"seconds": n, "seats": [seat ids]}``, the seats whose own seed the deal
    waits for, n seconds at most (the services name the seats whose browser sends seeds; docs/fairness.md). None
    (scripts, simulations): the deal never waits."""
    if wait is None:
        return None
    if not isinstance(wait, dict) or set(wait) != {"seconds", "seats"}:
        raise EngineError("bad_command", "seed_wait is an object with seconds and seats.")
    seconds, seats = wait["seconds"], wait["seats"]
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds <= 3600:
        raise EngineError("bad_command", "seed_wait's seconds are a number above zero.")
    if not isinstance(seats, list) or not all(isinstance(x, str) for x in seats):
        raise EngineError("bad_command", "seed_wait's seats are a list of seat ids.")
    return {"seconds": seconds, "seats": list(seats)}


def _await_seeds(t: Table) -> bool:
    """Betting has closed: when the hand waits for seeds (``seed_wait``), the awaited seats that play in it and have
    sent no seed yet hold the deal back until theirs come (`_take_seed`) or the deadline passes (`do_timeout`).
    Once per hand. True while the deal waits."""
    h = t.s.hand
    wait = h.get("seed_wait")
    if not wait:
        return False
    h["seed_wait"] = None
    h["awaiting"] = _still_awaited(t, wait["seats"])
    if not h["awaiting"]:
        return False
    t.set_deadline(wait["seconds"], h["awaiting"])
    for seat_id in h["awaiting"]:
        t.emit("seed_awaited", seat=seat_id, hand_no=h["no"])
    return True


def _still_awaited(t: Table, seats: list[str]) -> list[str]:
    """Of ``seats``, those in the hand (a stake, the bank, a side bet), not leaving, whose seed is not in."""
    s, h = t.s, t.s.hand
    playing = set(h["bets"]) | set(h["side"]) | {s.banker} | set((h.get("auction") or {}).get("seats", ()))
    out = []
    for seat_id in seats:
        seat = s.seat(seat_id)
        if seat is not None and seat_id in playing and not seat["leaving"] and seat_id not in s.seeds:
            out.append(seat_id)
    return out


def _awaited_arrived(t: Table) -> None:
    """A seed came, or an awaited seat left: the deal goes ahead once no awaited seed is missing."""
    h = t.s.hand
    h["awaiting"] = _still_awaited(t, h["awaiting"])
    if h["awaiting"]:
        t.s.deadline_for = list(h["awaiting"])
    else:
        _deal(t)


def _seal_deal(t: Table) -> None:
    """Betting closes: every seat's seed in seat order (a player's own, else the one the server seed fixes), the
    deal key, and the stock in its order (a stacked ``top`` first, the rest shuffled). docs/fairness.md."""
    s, h = t.s, t.s.hand
    server = seed_bytes(h["seed"])
    seeds = []
    for x in s.main_seats() + s.side_seats():
        own = s.seeds.get(x["id"])
        if own is not None:
            seeds.append({"seat": x["id"], "seed": own, "by": "player"})
        else:
            seeds.append({"seat": x["id"], "seed": seat_seed(server, x["id"]), "by": "bot" if x["bot"] else "server"})
    s.seeds = {}
    h["seeds"] = seeds
    h["prev"] = s.chain or ZERO_CHAIN
    key = deal_key(server, h["no"], h["prev"], seeds)
    h["key"] = key.hex()
    remaining = list(h["stock"])
    for c in h["top"]:
        remaining.remove(c)
    h["stock"] = h["top"] + shuffle(remaining, key, "0")


def _betting_deadline(t: Table) -> None:
    h = t.s.hand
    who = [k for k, b in h["bets"].items() if not b["confirmed"]]
    who += [k for k, b in h["side"].items() if not b["confirmed"]]
    t.set_deadline(t.rules.bet_seconds, who)


def _maybe_close_betting(t: Table) -> None:
    h = t.s.hand
    if h.get("awaiting"):
        _awaited_arrived(t)  # every bet is in already: the deal waits only for seeds
    elif all(b["confirmed"] for b in h["bets"].values()) and all(b["confirmed"] for b in h["side"].values()):
        close_betting(t)
    else:
        t.s.deadline_for = [k for k, b in list(h["bets"].items()) + list(h["side"].items()) if not b["confirmed"]]


def _betting_seat(t: Table, actor: str, args: dict) -> tuple[dict, dict, bool]:
    """The seat, its bet and whether it is a side bet; a ``seed`` that comes with the action is taken first."""
    s = t.s
    seat = t.seat(actor)
    if s.phase != "betting":
        raise EngineError("wrong_phase", "Bets are placed in the betting phase.")
    h = s.hand
    if actor == s.banker:
        raise EngineError("banker_does_not_bet", "The bank does not bet.")
    if actor in h["bets"]:
        bet, side = h["bets"][actor], False
    elif actor in h["side"]:
        bet, side = h["side"][actor], True
    else:
        raise EngineError("not_in_hand", "You are not in this hand.")
    if bet["confirmed"]:
        raise EngineError("bet_locked", "A confirmed bet cannot change.")
    if not side and t.rules.fixed_stake and _ride(t, actor) is None:
        raise EngineError("fixed_stake", "Every stake is the base stake in this game.")
    if "seed" in args and "key" not in h:  # a hand that began with the bank auction took its seeds before it
        _take_seed(t, actor, args["seed"])
    return seat, bet, side


def do_chip(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    amount = args.get("amount")
    if amount not in t.rules.chip_values or isinstance(amount, bool):
        raise EngineError("bad_amount", f"The chips are {', '.join(map(str, t.rules.chip_values))}.")
    if side and bet["backs"] is None:
        raise EngineError("choose_challenger", "First choose the challenger you back.")
    new = bet["amount"] + amount
    low, high = _stake_limits(t, seat, t.s.hand["base"])
    if new > high:
        if t.rules.stake_third_of_stack and new <= seat["stack"]:
            raise EngineError("stake_above_third", "The stake may be at most a third of your stack.")
        if not side and _ride(t, actor) is not None and new <= _stake_cover(t, seat):
            raise EngineError("above_ride_cap", f"Letting it ride, the stake may be at most {high}.")
        raise EngineError("bad_amount", f"The stake cannot be more than {high}.")
    bet["amount"] = new
    t.emit("bet_changed", seat=actor, amount=new)


def do_reset(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    bet["amount"] = 0
    t.emit("bet_changed", seat=actor, amount=0)


def do_confirm(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    if side:
        _confirm_side(t, actor, bet["backs"], bet["amount"])
        return
    _check_stake(t, seat, bet["amount"], t.s.hand["base"])
    bet["confirmed"] = True
    t.s.hand.setdefault("staked", []).append(actor)  # by its player: the hand is no longer voidable (void.py)
    t.emit("bet_confirmed", seat=actor, amount=bet["amount"])
    _ride_taken(t, seat, bet["amount"])
    _maybe_close_betting(t)


def do_bet(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    if side:
        raise EngineError("side_bettor", "A side bettor bets with side_bet on a challenger.")
    bet["amount"] = _check_stake(t, seat, args.get("amount"), t.s.hand["base"])
    bet["confirmed"] = True
    t.s.hand.setdefault("staked", []).append(actor)  # by its player: the hand is no longer voidable (void.py)
    t.emit("bet_confirmed", seat=actor, amount=bet["amount"])
    _ride_taken(t, seat, bet["amount"])
    _maybe_close_betting(t)


def _ride_taken(t: Table, seat: dict, amount: int) -> None:
    """house-rules.md "Let it ride": a confirmed stake above what the seat could stake without its ride."""
    ride = _ride(t, seat["id"])
    room = _room_max(t, seat, t.s.hand["base"])
    if ride is not None and room is not None and amount > min(room, _stake_cover(t, seat)):
        t.emit("ride_taken", seat=seat["id"], amount=amount, cap=ride)


def _check_backs(t: Table, backs) -> str:
    s = t.s
    if backs == s.banker:
        raise EngineError("side_bet_on_banker", "Side bets follow a challenger, never the banker.")
    if backs not in s.hand["bets"]:
        raise EngineError("bad_target", "Choose a challenger who plays this hand.")
    return backs


def do_back(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    if not side:
        raise EngineError("not_side_bettor", "Only side bettors choose a challenger to back.")
    bet["backs"] = _check_backs(t, args.get("seat"))
    t.emit("side_bet_changed", seat=actor, backs=bet["backs"], amount=bet["amount"])


def do_side_bet(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    if not side:
        raise EngineError("not_side_bettor", "Only side bettors place side bets.")
    _confirm_side(t, actor, args.get("backs", args.get("seat")), args.get("amount"))


def _confirm_side(t: Table, actor: str, backs, amount) -> None:
    h = t.s.hand
    backs = _check_backs(t, backs)
    seat = t.s.seat(actor)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise EngineError("bad_amount", "A side bet is a whole number of chips above zero.")
    if t.rules.bet_multiple and amount % t.rules.base_stake:
        raise EngineError("stake_not_multiple", f"Bets are multiples of the base stake ({t.rules.base_stake}).")
    if amount > seat["stack"]:
        raise EngineError("bad_amount", "The side bet cannot be more than your stack.")
    h["side"][actor] = {"backs": backs, "amount": amount, "confirmed": True}
    h["side_order"].append(actor)  # side bets settle in the order they were confirmed
    t.emit("side_bet_confirmed", seat=actor, backs=backs, amount=amount)
    _maybe_close_betting(t)


def do_no_bet(t: Table, actor: str, args: dict) -> None:
    seat, bet, side = _betting_seat(t, actor, args)
    if not side:
        raise EngineError("must_bet", "Challengers must stake; the timeout places the default stake.")
    del t.s.hand["side"][actor]
    t.emit("side_bet_skipped", seat=actor)
    _maybe_close_betting(t)


def _default_stake(t: Table, seat_id: str) -> None:
    h = t.s.hand
    amount = _default_amount(t, t.s.seat(seat_id), h["base"])
    h["bets"][seat_id] = {"amount": amount, "confirmed": True}
    t.emit("bet_defaulted", seat=seat_id, amount=amount)


def close_betting(t: Table) -> None:
    """Betting closes: defaults, then the deal, unless it waits for seeds first (rules/README.md "Phases", steps 1-3;
    docs/fairness.md)."""
    h = t.s.hand
    for seat_id, bet in h["bets"].items():
        if not bet["confirmed"]:
            _default_stake(t, seat_id)
    for seat_id in [k for k, b in h["side"].items() if not b["confirmed"]]:
        del h["side"][seat_id]  # an unconfirmed side bettor does not bet this hand
        t.emit("side_bet_skipped", seat=seat_id)
    h["side_order"] = [x for x in h["side_order"] if x in h["side"]]
    if not _await_seeds(t):
        _deal(t)


def _deal(t: Table) -> None:
    """Every bet is in, and every awaited seed (or the wait's deadline): the deal key, the order, the cards."""
    s, r, h = t.s, t.rules, t.s.hand
    if h.get("awaiting"):
        h["awaiting"] = []
    if "key" not in h:  # a hand that began with the bank auction was sealed before it (auction.py)
        _seal_deal(t)
    mains = [x for x in s.main_seats() if x["id"] in h["bets"] or x["id"] == s.banker]
    ids = [x["id"] for x in mains]
    b = ids.index(s.banker)
    if r.order_policy == "dice":
        # ten-half.md "Order: the dice": count clockwise from the banker (=1) over the occupied main seats.
        dice = h["dice"] or roll_dice(bytes.fromhex(h["key"]))
        h["dice"] = list(dice)
        first = (b + sum(dice) - 1) % len(ids)
        order = ids[first:] + ids[:first]
        t.emit("dice_rolled", dice=h["dice"], total=sum(dice))
    else:
        order = ids[b + 1:] + ids[:b] + [s.banker]  # seat order from the banker's left, the bank last
    h["order"] = order
    # house-rules.md "The bank auction": the first cards the bidders saw before bidding stay theirs.
    before = {k: phs[0]["cards"] for k, phs in h["hands"].items()}
    for seat_id in order:
        stake = h["bets"][seat_id]["amount"] if seat_id != s.banker else 0
        h["hands"][seat_id] = [{"cards": before.get(seat_id, []), "stake": stake, "done": False, "doubled": False,
                                "settled": False, "opened": False, "secret": False, "mort": None, "split": False,
                                "outcome": None}]
    s.phase = "playing"
    t.emit("betting_closed", stakes={k: v["amount"] for k, v in h["bets"].items()},
           side_bets=[{"seat": k, "backs": h["side"][k]["backs"], "amount": h["side"][k]["amount"]}
                      for k in h["side_order"]], order=order)
    for k in range(t.v.initial_cards):
        for seat_id in order:
            if len(h["hands"][seat_id][0]["cards"]) <= k:
                t.deal(seat_id, 0)
    if r.escape_penalty:
        for seat_id in order:
            if s.seat(seat_id)["leaving"]:
                _escape(t, seat_id)
                if h["over"]:
                    return
    t.v.after_deal(t)
    advance(t)


# ---------------------------------------------------------------------------------------------------
# Play (rules/README.md "Play")

def _next_turn(t: Table):
    s, h = t.s, t.s.hand
    for seat_id in h["order"]:
        for i, ph in enumerate(h["hands"][seat_id]):
            if ph["done"] or ph["settled"]:
                continue
            if seat_id == s.banker and all(
                    p["settled"] for k in h["order"] if k != s.banker for p in h["hands"][k]):
                ph["done"] = True  # nothing left to play for: every challenger is already settled
                continue
            return seat_id, i
    return None


def _forced_banker(t: Table, seat_id: str) -> bool:
    # house-rules.md "The banker opens hands one by one": a banker who may open is never played by the forced rule.
    return seat_id == t.s.banker and t.rules.banker_forced_draw and not t.rules.banker_opens


def advance(t: Table) -> None:
    """Move to the next turn; play the turns nobody decides (a seat that left, a forced banker)."""
    s, h = t.s, t.s.hand
    while not h["over"]:
        if h["bank_empty"]:
            finish_hand(t)
            return
        nxt = _next_turn(t)
        if nxt is None:
            finish_hand(t)
            return
        seat_id, i = nxt
        ph = h["hands"][seat_id][i]
        if not ph["opened"]:
            ph["opened"] = True
            h["turn"] = [seat_id, i]
            t.emit("turn_started", seat=seat_id, hand=i)
            t.v.on_turn_start(t, seat_id, i, ph)
            _check_over(t, seat_id, i)
            continue
        h["turn"] = [seat_id, i]
        if _forced_banker(t, seat_id):
            if _free_hand_open(t, seat_id, i) and not s.seat(seat_id)["leaving"]:
                # house-rules.md "The free hand": the banker chooses to escape, or to play by the forced rule, first.
                t.set_deadline(t.rules.act_seconds, [seat_id])
                return
            # ban-luck.md "The banker's turn": draws on 15 or less, stands on 16 or more.
            ev = t.eval(seat_id, i)
            _play(t, seat_id, i, "hit" if ev.total < t.rules.banker_stand_on else "stand", {})
            continue
        if s.seat(seat_id)["leaving"]:
            if ph["mort"] == "offered":
                # A seat that left declines the Mort, as a timeout does; only then can it stand.
                _play(t, seat_id, i, "mort_decline", {})
                continue
            ev = t.eval(seat_id, i)
            _play(t, seat_id, i, t.v.default_action(ph, ev, t.rules), {})
            continue
        t.set_deadline(t.rules.act_seconds, [seat_id])
        return


def _check_over(t: Table, seat_id: str, i: int) -> None:
    ph = t.s.hand["hands"][seat_id][i]
    if not ph["done"] and not ph["settled"] and ph["mort"] != "offered":
        ev = t.eval(seat_id, i)
        if t.v.turn_over(ph, ev, t.rules):
            ph["done"] = True


def play_actions(t: Table, seat_id: str) -> list[str]:
    s, h = t.s, t.s.hand
    if s.phase != "playing" or h["turn"] is None or h["turn"][0] != seat_id:
        return []
    i = h["turn"][1]
    ph = h["hands"][seat_id][i]
    if ph["done"] or ph["settled"]:
        return []
    ev = t.eval(seat_id, i)
    if ph["mort"] == "offered":
        return ["mort_accept", "mort_decline"]
    if _forced_banker(t, seat_id) and _free_hand_open(t, seat_id, i):
        # house-rules.md "The free hand": the forced banker's one choice, to escape or to play by the forced rule.
        return [t.v.default_action(ph, ev, t.rules), "escape"]
    actions = []
    if not ph["secret"]:
        actions.append("hit")
    if t.v.can_stand(ph, ev, t.rules) and not _forced_banker(t, seat_id):
        actions.append("stand")
    if not _forced_banker(t, seat_id):
        actions += t.v.extra_actions(t, seat_id, ph, ev)
    return actions


def _play(t: Table, seat_id: str, i: int, action: str, args: dict, timeout: bool = False) -> None:
    """``timeout``: the default action of an expired deadline; its event says so, so that the player learns why."""
    h = t.s.hand
    ph = h["hands"][seat_id][i]
    legal = play_actions(t, seat_id) if not _forced_banker(t, seat_id) or _free_hand_open(t, seat_id, i) \
        else ["hit", "stand"]
    if action not in legal:
        if action == "stand" and "hit" in legal:
            if seat_id == t.s.banker and t.rules.banker_opens:
                raise EngineError("must_hit_below_open_from",
                                  f"Below {t.rules.banker_open_from} the banker must draw another card.")
            raise EngineError("must_hit_below_16", "Below 16 you must draw another card.")
        raise EngineError("illegal_action", f"You cannot {action.replace('_', ' ')} now.")
    if timeout:
        t.emit("action", seat=seat_id, hand=i, action=action, timeout=True)
    else:
        t.emit("action", seat=seat_id, hand=i, action=action)
    if action == "hit":
        card = t.deal(seat_id, i)
        if card is None:
            ph["done"] = True  # docs/rules.md: no card left anywhere counts as reaching the card limit
        else:
            ev = t.eval(seat_id, i)
            t.v.after_draw(t, seat_id, i, ph, ev)
    elif action == "stand":
        ph["done"] = True
    elif action == "double":
        # Zhejiang 加注 / Seven and a Half double down: twice the stake, exactly one more card, turn over.
        ph["stake"] *= 2
        ph["doubled"] = True
        t.emit("stake_doubled", seat=seat_id, hand=i, stake=ph["stake"])
        if t.deal(seat_id, i) is not None:
            t.v.after_draw(t, seat_id, i, ph, t.eval(seat_id, i))
        ph["done"] = True
    elif not t.v.act(t, seat_id, i, ph, action, args):
        raise EngineError("illegal_action", f"You cannot {action} now.")
    _check_over(t, seat_id, i)


def _turn_of(t: Table, actor: str) -> int:
    s = t.s
    if s.phase != "playing":
        raise EngineError("wrong_phase", "Nobody is playing a hand now.")
    t.seat(actor)
    turn = s.hand["turn"]
    if turn is None or turn[0] != actor:
        raise EngineError("not_your_turn", "It is not your turn.")
    return turn[1]


def _play_handler(action: str):
    def handler(t: Table, actor: str, args: dict) -> None:
        i = _turn_of(t, actor)
        _play(t, actor, i, action, args)
        advance(t)
    handler.__name__ = f"do_{action}"
    return handler


def _free_hand_open(t: Table, seat_id: str, i: int) -> bool:
    """house-rules.md "The free hand": the hand on turn may escape now (the variant's ``may_escape``; the knob is
    refused outside Chinese Blackjack)."""
    return t.rules.free_hand and t.v.may_escape(t, seat_id, t.s.hand["hands"][seat_id][i])


def do_escape(t: Table, actor: str, args: dict) -> None:
    """house-rules.md "The free hand": a two-card 15 escapes at its holder's first decision, a challenger's stake
    back or, for the banker, every stake not yet settled (BanLuck.free_hand_escape). Not the leaver's `_escape`."""
    if not t.rules.free_hand:
        raise EngineError("free_hand_off", "This room plays without the free hand.")
    i = _turn_of(t, actor)
    if "escape" not in play_actions(t, actor):
        ph = t.s.hand["hands"][actor][i]
        if not t.v.free_hand([c[0] for c in ph["cards"][:2]], t.rules):
            raise EngineError("not_a_free_hand", "Only two cards worth exactly 15 may escape.")
        raise EngineError("escape_too_late", "A free hand escapes at its first decision, before any card or open.")
    _play(t, actor, i, "escape", args)
    advance(t)


def _escape(t: Table, seat_id: str) -> None:
    """zhejiang.md "Leaving during a hand": a challenger forfeits the stake at once; a banker pays
    every challenger their stake and the hand ends."""
    s, h = t.s, t.s.hand
    t.emit("seat_escaped", seat=seat_id)
    if seat_id == s.banker:
        for k in h["order"]:
            if k == s.banker:
                continue
            for i, ph in enumerate(h["hands"][k]):
                if not ph["settled"]:
                    t.settle_hand_now(k, i, WIN, 1, "banker_escaped")
        h["hands"][seat_id][0]["done"] = True
        finish_hand(t)
        return
    for i, ph in enumerate(h["hands"].get(seat_id, ())):
        if not ph["settled"]:
            t.settle_hand_now(seat_id, i, LOSE, 1, "escaped")
    if s.phase == "playing" and h["turn"] and h["turn"][0] == seat_id:
        advance(t)


def do_timeout(t: Table, actor: str, args: dict) -> None:
    """The default for whoever the deadline belongs to (rules/README.md, "Phases"; ban-luck.md: hit below 16)."""
    s = t.s
    if actor != "system":
        raise EngineError("not_allowed", "Only the table applies timeouts.")
    if s.phase == "betting" and s.hand.get("awaiting"):
        # The wait for seeds is over: the seats whose seed did not come get the one the server seed fixes.
        for seat_id in _still_awaited(t, s.hand["awaiting"]):
            t.emit("seed_missing", seat=seat_id, hand_no=s.hand["no"])
        _deal(t)
    elif s.phase == "auction":
        auction.timeout(t)
    elif s.phase == "betting":
        close_betting(t)
    elif s.phase == "playing":
        seat_id, i = s.hand["turn"]
        ph = s.hand["hands"][seat_id][i]
        if ph["mort"] == "offered":
            _play(t, seat_id, i, "mort_decline", {}, timeout=True)  # a Mort not taken in time is declined, then stand
            if not ph["done"]:
                _play(t, seat_id, i, "stand", {}, timeout=True)
        else:
            _play(t, seat_id, i, t.v.default_action(ph, t.eval(seat_id, i), t.rules), {}, timeout=True)
        advance(t)
    elif s.phase == "bank_decision":
        p = s.pending
        if p["kind"] == "refill":
            do_pass_bank(t, p["seat"], {})
        else:
            do_decline_bank(t, p["seat"], {})
    else:
        raise EngineError("wrong_phase", "No deadline is running.")


# ---------------------------------------------------------------------------------------------------
# Reveal and settle (rules/README.md "Phases", steps 5-7)

def finish_hand(t: Table) -> None:
    s, r, h = t.s, t.rules, t.s.hand
    h["turn"] = None
    for seat_id in h["order"]:
        for ph in h["hands"][seat_id]:
            for c in ph["cards"]:
                c[1] = "up"
    t.emit("hand_revealed", order=h["order"], hands={
        k: [{"cards": [c[0] for c in ph["cards"]], **_summary(t, ph)} for ph in h["hands"][k]] for k in h["order"]})
    banker_eval = t.eval(s.banker)
    for seat_id in h["order"]:
        if seat_id == s.banker:
            continue
        for i, ph in enumerate(h["hands"][seat_id]):
            if ph["settled"]:
                continue
            outcome, mult = t.v.compare(t.eval(seat_id, i), banker_eval, r)
            ph["settled"] = True
            res = t.settle(seat_id, "main", seat_id, i, ph["stake"], outcome, mult)
            ph["outcome"] = [res["outcome"], mult]
    for bettor in h["side_order"]:
        side = h["side"][bettor]
        backed = h["hands"][side["backs"]][0]  # a side bet follows the backed seat's first hand
        outcome, mult = backed["outcome"] or [VOID, 0]
        why = "" if outcome != VOID else "backed_hand_void"
        t.settle(bettor, "side", side["backs"], 0, side["amount"], outcome if outcome != PUSH else PUSH, mult, why)
    t.v.after_settlement(t)
    deltas = {k: v for k, v in h["deltas"].items()}
    for seat_id in list(h["bets"]) + [s.banker] + h["side_order"]:
        deltas.setdefault(seat_id, 0)
    t.emit("hand_settled", results=h["results"], deltas=deltas, bank=s.bank,
           stacks={x["id"]: x["stack"] for x in s.seats})
    if s.shoe is not None:
        # seven-half.md: used cards go to the discards; the unused stock stays in the shoe.
        s.shoe["discards"] += [c[0] for k in h["order"] for ph in h["hands"][k] for c in ph["cards"]]
        s.shoe["discards"] += h["set_aside"]
        s.shoe["stock"] = h["stock"]
        h["stock"] = []
    h["over"] = True
    s.phase = "between_hands"
    t.set_deadline(None, [])
    s.last_hand = {
        "hand_no": h["no"], "commitment": h["commitment"], "seed": h["seed"], "dice": h["dice"], "order": h["order"],
        "hands": {k: [{"cards": [c[0] for c in ph["cards"]], "stake": ph["stake"], **_summary(t, ph)}
                      for ph in h["hands"][k]] for k in h["order"]},
        "results": h["results"], "deltas": deltas, "dealt": h["dealt"], "reshuffles": h["reshuffles"],
        "source": h["source"] if s.shoe is not None else r.deck, "stacked": h["stacked"], "banker": s.banker,
        "seeds": h["seeds"], "prev": h["prev"],
    }
    if h.get("auction"):
        s.last_hand["auction"] = auction.record(h)  # not in the chain hash; its banker and results are
    s.last_hand["chain"] = s.chain = chain_hash(s.last_hand)
    t.emit("hand_over", hand_no=h["no"], seed=h["seed"], commitment=h["commitment"], dealt=h["dealt"],
           deck=r.deck, source=s.last_hand["source"], reshuffles=h["reshuffles"],
           seeds=h["seeds"], prev=h["prev"], chain=s.chain)
    _after_hand_bank(t)


# ---------------------------------------------------------------------------------------------------
# Seeds (docs/fairness.md): the server commits the next hand's seed between hands; each seat may add its own
# until the deal.

def do_commit_seed(t: Table, actor: str, args: dict) -> None:
    """The server's seed for the next hand, committed before any player's seed for that hand is taken."""
    s = t.s
    if actor != "system":
        raise EngineError("not_allowed", "Only the table commits a seed.")
    if s.phase in IN_HAND:
        raise EngineError("wrong_phase", "The next hand's seed is committed between hands.")
    if s.next_seed is not None:
        raise EngineError("already_committed", "The next hand's seed is committed already.")
    seed_hex = args.get("seed_hex")
    s.next_commitment = commitment(seed_hex)
    s.next_seed = seed_hex
    t.emit("seed_committed", hand_no=s.hand_no + 1, commitment=s.next_commitment)


def do_seed(t: Table, actor: str, args: dict) -> None:
    t.seat(actor)
    _take_seed(t, actor, args.get("seed"))


def _take_seed(t: Table, actor: str, seed_hex, quiet: bool = False) -> None:
    """A seat's own seed for the coming deal: the current hand's while betting, else the next hand's once its
    server seed is committed. ``quiet`` (a seed sent with ``sit``): a seed that comes before any commitment is
    left out instead of refusing the command; a malformed one is always refused."""
    s = t.s
    seed = seed_bytes(seed_hex).hex()  # lowercase, as the deal key reads it
    if s.phase in ("auction", "betting") and "key" not in s.hand:
        hand_no = s.hand_no
    elif s.phase in IN_HAND:  # dealt, or sealed before the bank auction (auction.py)
        if quiet:
            return
        raise EngineError("seed_too_late", "The cards of this hand are dealt: send your seed for the next hand.")
    elif s.next_commitment is not None:
        hand_no = s.hand_no + 1
    elif quiet:
        return
    else:
        raise EngineError("no_commitment", "No seed is committed for the next hand yet: send yours once it is.")
    s.seeds[actor] = seed
    t.emit("seed_received", seat=actor, hand_no=hand_no, seed=seed)
    if s.phase == "betting" and s.hand.get("awaiting"):
        _awaited_arrived(t)
    elif s.phase == "auction":
        auction.seed_arrived(t)


def _summary(t: Table, ph: dict) -> dict:
    cards = [c[0] for c in ph["cards"]]
    ev = t.v.evaluate(cards, t.rules)
    out = {"total": t.v.display_total(ev.total), "class": ev.cls, "bust": ev.bust}
    if t.rules.matta != "off" and (wild := t.v.matta_value(cards, t.rules)) is not None:
        out["matta"] = t.v.display_total(wild)  # house-rules.md "The matta": the value it took, in points
    return out


HANDLERS = {
    "sit": do_sit, "leave": do_leave, "set_seat": do_set_seat, "top_up": do_top_up, "set_rules": do_set_rules,
    "start_hand": do_start_hand, "timeout": do_timeout,
    "chip": do_chip, "reset": do_reset, "confirm": do_confirm, "bet": do_bet,
    "back": do_back, "side_bet": do_side_bet, "no_bet": do_no_bet,
    "hit": _play_handler("hit"), "stand": _play_handler("stand"), "double": _play_handler("double"),
    "split": _play_handler("split"), "mort_accept": _play_handler("mort_accept"),
    "mort_decline": _play_handler("mort_decline"), "open": _play_handler("open"), "escape": do_escape,
    "open_bank": do_open_bank, "refill": do_refill, "pass_bank": do_pass_bank, "retire": do_retire,
    "take_bank": do_take_bank, "decline_bank": do_decline_bank, "offer_bank": do_offer_bank, "seed_jackpot": do_seed_jackpot,
    "commit_seed": do_commit_seed, "seed": do_seed,
    "bid": lambda t, actor, args: auction.do_bid(t, actor, args), "void_hand": void.do_void_hand,
}
