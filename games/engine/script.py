"""``run_script(data) -> dict``: play a scripted hand (the ``play_script`` management command).

The script format is in docs/engine.md ("Scripts"). Seats are listed clockwise and their names are
their seat ids. ``deck`` stacks the top of the deck in dealing order; ``dice`` fixes the roll. Betting
actions come first; the first other action (or the end) closes betting with the timeout defaults.
Bots and forced plays act by themselves; when the actions run out, every remaining turn times out.
``["system", "next_hand", card, ...]`` plays the hand out and deals the next one (its top cards given);
the output is the last hand's.
"""

import hashlib
import json

from .bots import bot_decide
from .errors import EngineError
from .machine import Command, apply, new_table
from .rules import rules_from
from .state import TableState
from .view import view

BETTING_WORDS = {"bet", "side_bet", "chip", "reset", "confirm", "no_bet", "back"}
# A bank decision comes between hands: sent while a hand is on the table, it plays that hand out first.
BANK_WORDS = {"open_bank", "take_bank", "decline_bank", "refill", "pass_bank"}


class ScriptError(EngineError):
    def __init__(self, message: str):
        super().__init__("bad_script", message)


def _seed_for(data: dict) -> str:
    if isinstance(data.get("seed"), str):
        return data["seed"]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class _Runner:
    def __init__(self, rules):
        self.rules = rules
        self.state: TableState = new_table(rules)
        self.events: list[dict] = []
        self.bots: dict[str, str] = {}
        self.now = 0.0

    def do(self, actor: str, action: str, args: dict | None = None) -> None:
        self.now += 1.0
        self.state, events = apply(self.state, Command(actor, action, args or {}, self.now))
        self.events += events

    def run_bots(self) -> None:
        """Let bots act while one of them is expected to (a bot's turn, a bot's bet or bank decision)."""
        for _ in range(1000):
            s = self.state
            for seat_id in list(s.deadline_for):
                level = self.bots.get(seat_id)
                if level:
                    decision = bot_decide(view(s, seat_id), level, s.rules)
                    if decision:
                        self.do(seat_id, *decision)
                        break
            else:
                return

    def finish_hand(self) -> None:
        """Play the hand out: bots act, and every other bet or turn left times out."""
        for _ in range(10_000):
            phase = self.state.phase
            if phase not in ("auction", "betting", "playing"):
                return
            self.run_bots()
            if self.state.phase == phase:
                self.do("system", "timeout")


def _parse_action(entry) -> tuple[str, str, dict]:
    if not isinstance(entry, list) or len(entry) < 2 or not all(isinstance(x, (str, int)) for x in entry):
        raise ScriptError(f"An action is [seat, word, ...]: {entry!r}")
    seat, word, rest = str(entry[0]), str(entry[1]), entry[2:]
    try:
        if word in ("bet", "chip"):
            return seat, word, {"amount": rest[0]}
        if word == "side_bet":
            return seat, word, {"backs": rest[0], "amount": rest[1]}
        if word in ("back", "open"):  # the side bettor's backed seat; the challenger the banker opens
            return seat, word, {"seat": rest[0]}
        if word in ("open_bank", "refill", "top_up", "seed_jackpot"):
            return seat, word, {"amount": rest[0]}
        if word == "next_hand":
            return seat, word, {"deck": list(rest)}
        if word == "bid":  # house-rules.md "The bank auction": [seat, "bid", multiplier], 0 for no bid
            return seat, word, {"mult": rest[0]}
    except IndexError:
        raise ScriptError(f"The action {word!r} needs more arguments: {entry!r}") from None
    return seat, word, {}


def run_script(data: dict) -> dict:
    """Play the script's hand; return the result, or raise EngineError (bad_script for a malformed file)."""
    if not isinstance(data, dict):
        raise ScriptError("A script is a JSON object.")
    preset = data.get("preset")
    if not isinstance(preset, str):
        raise ScriptError("The script needs a preset.")
    rules = rules_from(preset, data.get("rules") or {})
    seats = data.get("seats")
    if not isinstance(seats, list) or not seats:
        raise ScriptError("The script needs seats.")
    run = _Runner(rules)
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict) or not isinstance(seat.get("name"), str):
            raise ScriptError(f"Seat {i} needs a name.")
        args = {"name": seat["name"], "stack": seat.get("stack", 0), "position": i, "bot": seat.get("bot"),
                "host": bool(seat.get("host", False))}
        if seat.get("banker"):
            args["banker"] = True
            if "bank" in seat:
                args["bank"] = seat["bank"]
        run.do(seat["name"], "sit", args)
        if seat.get("bot"):
            run.bots[seat["name"]] = seat["bot"]
    for i, seat in enumerate(data.get("side_bettors") or []):
        if not isinstance(seat, dict) or not isinstance(seat.get("name"), str):
            raise ScriptError(f"Side bettor {i} needs a name.")
        run.do(seat["name"], "sit", {"name": seat["name"], "stack": seat.get("stack", 0), "role": "side",
                                     "position": i, "bot": seat.get("bot")})
        if seat.get("bot"):
            run.bots[seat["name"]] = seat["bot"]
    start = {"seed_hex": _seed_for(data)}
    if data.get("deck") is not None:
        start["deck"] = data["deck"]
    if data.get("dice") is not None:
        dice = data["dice"]
        if not (isinstance(dice, list) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
            raise ScriptError("dice are two numbers from 1 to 6.")
        start["dice"] = dice
    run.do("system", "start_hand", start)
    if run.state.phase == "bank_decision":
        # No seat was marked as the banker and this game lets the banker choose: the first one offered
        # opens with their whole stack, then the hand starts.
        offered = run.state.pending["seat"]
        run.do(offered, "open_bank", {"amount": run.state.seat(offered)["stack"]})
        run.do("system", "start_hand", start)
    actions = data.get("actions") or []
    if not isinstance(actions, list):
        raise ScriptError("actions is a list.")
    for entry in actions:
        seat, word, args = _parse_action(entry)
        if word in BANK_WORDS and run.state.phase in ("auction", "betting", "playing"):
            run.finish_hand()
        if run.state.phase == "auction" and word not in ("bid", "timeout", "leave"):
            run.run_bots()  # the bank auction closes before betting: bots bid, the others time out (no bid)
            if run.state.phase == "auction":
                run.do("system", "timeout")
        if run.state.phase == "betting" and word not in BETTING_WORDS:
            run.run_bots()
            if run.state.phase == "betting":
                run.do("system", "timeout")
        if run.state.phase == "playing":
            run.run_bots()
        if word == "next_hand":
            # The hand on the table is played out; the next one's seed is SHA-256 of "{seed}:{hand number}".
            run.finish_hand()
            seed = hashlib.sha256(f"{start['seed_hex']}:{run.state.hand_no + 1}".encode()).hexdigest()
            run.do("system", "start_hand", {"seed_hex": seed, **args} if args["deck"] else {"seed_hex": seed})
        elif word == "timeout":
            s = run.state
            if s.phase not in ("auction", "playing", "betting", "bank_decision"):
                raise EngineError("wrong_phase", "No deadline is running.")
            if seat not in s.deadline_for:
                raise EngineError("not_your_turn", f"It is not {seat}'s turn.")
            run.do("system", "timeout")
        else:
            run.do(seat, word, args)
    run.finish_hand()
    return _output(run)


def _output(run: _Runner) -> dict:
    s = run.state
    last = s.last_hand
    if last is None:
        raise EngineError("no_hand", "The hand did not finish.")
    overs = [i for i, e in enumerate(run.events) if e["type"] == "hand_over"]
    events = run.events[overs[-2] + 1:] if len(overs) > 1 else run.events  # the last hand's, from its start
    settled = next(e for e in events if e["type"] == "hand_settled")
    banker = last["banker"]
    stacks = dict(settled["stacks"])
    stacks[banker] = stacks.get(banker, 0) + settled["bank"]
    matta = s.rules.matta != "off"  # house-rules.md "The matta": a hand holding it shows the value it took

    def one(p: dict) -> dict:
        out = {"cards": p["cards"], "total": p["total"], "class": p["class"], "bust": p["bust"], "stake": p["stake"]}
        if matta and p.get("matta") is not None:
            out["matta"] = p["matta"]
        return out

    hands = {}
    for seat, phs in last["hands"].items():
        first = one(phs[0])
        if len(phs) > 1:
            first["hands"] = [one(p) for p in phs]
        hands[seat] = first
    results = [{k: r[k] for k in ("bettor", "kind", "backs", "stake", "outcome", "multiplier", "bank_mult", "due",
                                  "paid") if k in r} for r in last["results"]]
    out = {
        "order": last["order"], "dice": last["dice"], "banker": banker, "hands": hands, "results": results,
        "bank": settled["bank"], "stacks": stacks, "deltas": last["deltas"],
        "commitment": last["commitment"], "seed": last["seed"],
        "next_banker": s.banker, "phase_after": s.phase,
    }
    for e in events:
        if e["type"] == "jackpot_won":
            out["jackpot_won"] = {"seat": e["seat"], "amount": e["amount"]}
        if e["type"] == "bank_draw":
            out["bank_draw"] = {"cards": e["cards"], "winner": e["winner"]}
    if s.pending:
        out["pending"] = {"kind": s.pending["kind"], "seat": s.pending["seat"]}
    if s.rules.bank_auction:
        # house-rules.md "The bank auction": every auction of the script, and the multiplier the bank plays at after it.
        out["auctions"] = [{"hand_no": e["hand_no"], **{k: v for k, v in x.items() if k != "type"}}
                           for e, x in _auctions(run.events)]
        out["bank_mult"] = s.bank_mult
    if s.rules.banker_opens:
        # house-rules.md "The banker opens": each open in order, with the banker's hand it was settled against.
        opened = {r["bettor"]: r for r in last["results"] if r.get("why") == "opened"}
        out["opens"] = [{**{k: e[k] for k in ("seat", "banker_cards", "banker_total")},
                         **{k: opened[e["seat"]][k] for k in ("outcome", "multiplier", "paid")}}
                        for e in events if e["type"] == "hand_opened"]
    if s.rules.push_cap:
        # Let it ride (house-rules.md) follows one hand into the next: each hand's banker, stakes and deltas, and every
        # ride offered or taken, with its hand.
        stakes, rides = [], []
        for e in run.events:
            if e["type"] == "hand_started":
                stakes.append({"hand_no": e["hand_no"], "banker": e["banker"], "base_stake": e["base_stake"]})
            elif e["type"] == "auction_won":
                stakes[-1]["banker"] = e["seat"]  # a hand that began with the bank auction: its winner banks it
            elif e["type"] == "betting_closed":
                stakes[-1]["stakes"] = e["stakes"]
            elif e["type"] == "hand_settled":
                stakes[-1]["deltas"] = e["deltas"]
            elif e["type"] in ("ride_offered", "ride_taken"):
                rides.append({"hand_no": stakes[-1]["hand_no"], **e})
        out["stakes_played"] = stakes
        out["rides"] = rides
    if s.rules.bank_turn_hands:
        # The bank by turns is about every hand of the script, not the last one alone: each hand's banker, dice and
        # deltas, and every turn that ended.
        played = []
        for e in run.events:
            if e["type"] == "hand_started":
                played.append({"hand_no": e["hand_no"], "banker": e["banker"]})
            elif e["type"] == "auction_won":
                played[-1]["banker"] = e["seat"]  # a hand that began with the bank auction (house-rules.md)
            elif e["type"] == "dice_rolled":
                played[-1]["dice"] = e["dice"]
            elif e["type"] == "hand_settled":
                played[-1]["deltas"] = e["deltas"]
        out["hands_played"] = played
        out["bank_turns"] = [{k: e[k] for k in ("seat", "hands", "hand_no")}
                             for e in run.events if e["type"] == "bank_turn_over"]
    return out


def _auctions(events: list[dict]):
    """(hand_started, auction_won) for each auction among ``events``."""
    started = None
    for e in events:
        if e["type"] == "hand_started":
            started = e
        elif e["type"] == "auction_won":
            yield started, e


def run_script_safe(data) -> tuple[dict, int]:
    """(output, exit status): 0 with the result, 2 with {"error": {...}} for anything refused."""
    try:
        return run_script(data), 0
    except EngineError as e:
        return {"error": {"code": e.code, "message": e.message}}, 2
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        return {"error": {"code": "bad_script", "message": f"The script is malformed: {e}"}}, 2
