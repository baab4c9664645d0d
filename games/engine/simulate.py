"""``simulate(...) -> dict``: many bot hands and the challenger's statistics (the ``simulate`` command).

Every challenger stakes one base stake; stacks and the bank are so large that bank limits never bind,
and the bank stays with one seat (``banker_policy`` "keep", no take-bank, no bank by turns, a fixed base stake), so each
hand measures the game itself. Hand ``i`` is played with the seed ``SHA-256(f"{seed}:{i}")``, hands are
grouped in blocks of ``BLOCK`` (a block is one table, so the Seven and a Half shoe lasts a block), and
all sums are integers: the same seed gives the same numbers with any ``workers``.

Two paths play a hand. The *machine* path drives the real state machine (``apply``) with bots deciding
from ``view``; it serves every game and strategy. The *fast* path (the games whose
``Variant.fast_simulation`` says so: Ten and a Half, Zhejiang and Chinese Blackjack with threshold bots)
deals from the same lazily shuffled deck and calls the same ``Variant.evaluate``, ``special_outcome`` and
``compare``, skipping only the bookkeeping of states, events and views; tests/engine/test_simulate.py
proves it gives the same results as the machine for the same seeds.
"""

import hashlib
import time as _perf  # perf_counter only, for the hands-per-second figure; never read by the rules
from collections import Counter

from .bots import bot_decide
from .cards import DECKS
from .errors import EngineError
from .machine import Command, apply_in_place, new_table
from .rules import PRESETS, rules_from
from .shuffle import HmacKey, LazyDeck, roll_dice
from .variants import VARIANTS
from .view import view

BLOCK = 1000
BIG_STACK = 10**12
BIG_BANK = 10**15
FAST_GAMES = tuple(slug for slug, v in VARIANTS.items() if v.fast_simulation(PRESETS[slug]))  # by their presets


def hand_seed(seed, i: int) -> bytes:
    return hashlib.sha256(f"{seed}:{i}".encode()).digest()


def sim_rules(preset: str, overrides: dict | None):
    # One banker for every hand: the bank by turns changes who banks, never a hand's odds (docs/rules.md).
    extra = {"banker_policy": "keep", "take_bank_on_target": False, "side_bets_enabled": False,
             "max_side_bettors": 0, "bank_turn_hands": 0}
    base = rules_from(preset, overrides or {})
    extra.update(VARIANTS[base.game].simulation_overrides)
    if base.bank_auction:
        # house-rules.md "The bank auction": the bank is put up for auction before every hand (a turn of one hand), so
        # the figure counts what the auction changes: a banker chosen by the bids, its multiplier on each settlement.
        extra["bank_turn_hands"] = 1
    return rules_from(preset, {**(overrides or {}), **extra})


def parse_strategy(strategy: str, v) -> tuple[str, int]:
    """('threshold', units) for basic and threshold:X, ('expert', 0) for expert."""
    if strategy == "basic":
        return "threshold", v.basic_threshold
    if strategy == "expert":
        return "expert", 0
    if strategy.startswith("threshold:"):
        try:
            x = float(strategy.split(":", 1)[1])
        except ValueError:
            raise EngineError("bad_strategy", "threshold:X needs a number, e.g. threshold:7.5") from None
        return "threshold", round(x * v.units)
    raise EngineError("bad_strategy", "The strategy is basic, expert or threshold:X.")


class Tally:
    """Integer sums only, so that blocks add up the same in any order."""

    def __init__(self):
        self.hands = 0
        self.challenger_hands = 0
        self.win = self.push = self.lose = 0
        self.net = 0
        self.staked = 0
        self.classes = Counter()
        self.banker_classes = Counter()

    def add(self, other: "Tally") -> None:
        self.hands += other.hands
        self.challenger_hands += other.challenger_hands
        self.win += other.win
        self.push += other.push
        self.lose += other.lose
        self.net += other.net
        self.staked += other.staked
        self.classes.update(other.classes)
        self.banker_classes.update(other.banker_classes)

    def result(self, outcome: str, stake: int, paid: int, cls: str) -> None:
        self.challenger_hands += 1
        self.staked += stake
        self.classes[cls] += 1
        if outcome == "win":
            self.win += 1
            self.net += paid
        elif outcome == "lose":
            self.lose += 1
            self.net -= paid
        else:
            self.push += 1


# -- the fast path -------------------------------------------------------------------------------------

def _fast_block(rules, seats: int, threshold: int, seed, start: int, count: int) -> Tally:
    v = VARIANTS[rules.game]
    evaluate, compare = v.evaluate, v.compare
    deck_cards = DECKS[rules.deck]
    stake = rules.base_stake
    max_cards = rules.max_cards
    target = v.target
    # The bank plays the basic bot's rule, or the forced banker's (fast_simulation asks for it in Chinese Blackjack).
    banker_limit = rules.banker_stand_on if rules.banker_forced_draw else v.basic_threshold
    dice_order = rules.order_policy == "dice"
    specials = v.special_ranks
    add_up = v.points_add_up
    bust_at_once = v.bust_settles_at_once
    min_stand = rules.challenger_min_stand or 0
    tally = Tally()
    classes, banker_classes = tally.classes, tally.banker_classes
    win = push = lose = net = 0
    # Seat 0 is the banker; seat order from its left is 1..K-1, then the bank (machine.close_betting).
    seat_order = list(range(1, seats)) + [0]
    # ten-half.md "Order: the dice": the order for each dice total, counted from the banker as 1.
    dice_orders = {t: [(t - 1 + k) % seats for k in range(seats)] for t in range(2, 13)}
    points = {c: v.points(c) for c in deck_cards}
    for i in range(start, start + count):
        mac = HmacKey(hand_seed(seed, i))  # the dice and the deck share one keyed HMAC
        order = dice_orders[sum(roll_dice(mac))] if dice_order else seat_order
        draw = LazyDeck(deck_cards, mac).draw
        hands = [None] * seats
        for s in order:
            hands[s] = [draw()]
        for _ in range(v.initial_cards - 1):
            for s in order:
                hands[s].append(draw())
        settled = {}
        if specials:
            # As Variant.after_deal: specials are settled before anyone draws (ban-luck.md "Deal and specials").
            b = evaluate(hands[0], rules)
            for s in order:
                if s == 0:
                    continue
                c = evaluate(hands[s], rules)
                outcome = v.special_outcome(c, b)
                if outcome is not None:
                    settled[s] = (*outcome, c.cls)
        for s in order:
            if s in settled:
                continue
            cards = hands[s]
            if s == 0:
                if len(settled) == seats - 1:
                    break  # every challenger settled: the bank does not play
                limit = banker_limit
            else:
                limit = threshold if threshold > min_stand else min_stand
            # The basic bot's rule (bots.bot_decide) within the variant's turn end (Variant.turn_over).
            if not add_up:
                # Chinese Blackjack: an ace counts by the hand's size, and 21 does not end the turn.
                while True:
                    e = evaluate(cards, rules)
                    if e.bust or e.n >= max_cards or e.total >= limit:
                        break
                    cards.append(draw())
                if bust_at_once and s != 0 and e.bust:
                    settled[s] = ("lose", e.mult, e.cls)  # as Variant.after_draw
            else:
                # The ½ games' totals are the sum of Variant.points, so the running total needs no
                # re-evaluation per card; the final hand is evaluated below with Variant.evaluate.
                total = points[cards[0]]
                n = 1
                while total < limit and total < target and n < max_cards:
                    card = draw()
                    cards.append(card)
                    total += points[card]
                    n += 1
        b = evaluate(hands[0], rules)
        banker_classes[b.cls] += 1
        for s in order:
            if s == 0:
                continue
            if s in settled:
                outcome, mult, cls = settled[s]
            else:
                c = evaluate(hands[s], rules)
                outcome, mult = compare(c, b, rules)
                cls = c.cls
            classes[cls] += 1
            if outcome == "win":
                win += 1
                net += stake * mult
            elif outcome == "lose":
                lose += 1
                net -= stake * mult
            else:
                push += 1
    tally.hands = count
    tally.challenger_hands = count * (seats - 1)
    tally.staked = stake * tally.challenger_hands
    tally.win, tally.push, tally.lose, tally.net = win, push, lose, net
    return tally


# -- the machine path ----------------------------------------------------------------------------------

def _decide(view_dict, rules, kind, threshold, v):
    if kind == "expert" or view_dict["you"] == view_dict["banker"] or "escape" in view_dict["legal_actions"]:
        return bot_decide(view_dict, "expert" if kind == "expert" else "basic", rules)
    legal = view_dict["legal_actions"]
    if view_dict["phase"] == "playing" and ("hit" in legal or "stand" in legal):
        h = view_dict["hand"]
        cards = [c["card"] for c in h["hands"][view_dict["you"]][h["turn"]["hand"]]["cards"]]
        total = v.evaluate(cards, rules).total
        if "hit" in legal and (total < threshold or "stand" not in legal):
            return "hit", {}
        if "stand" in legal:
            return "stand", {}
    return bot_decide(view_dict, "basic", rules)


def machine_table(rules, seats: int):
    state = new_table(rules)
    now = 0.0
    for k in range(seats):
        args = {"name": f"P{k}", "stack": BIG_BANK if k == 0 or rules.bank_auction else BIG_STACK, "position": k,
                "bot": "basic"}
        if k == 0 and not rules.bank_auction:  # with the bank auction every seat may win the bank: none holds it
            args["banker"] = True
        apply_in_place(state, Command(f"P{k}", "sit", args, now))
    return state


def play_machine_hand(state, rules, seed_i: bytes, kind: str, threshold: int) -> list[dict]:
    v = VARIANTS[rules.game]
    events = apply_in_place(state, Command("system", "start_hand", {"seed_hex": seed_i.hex()}, 0.0))
    for _ in range(10_000):
        if state.phase not in ("auction", "betting", "playing"):
            break
        who = state.deadline_for[0]
        decision = _decide(view(state, who), rules, kind, threshold, v)
        if decision is None:
            events += apply_in_place(state, Command("system", "timeout", {}, 0.0))
        else:
            events += apply_in_place(state, Command(who, decision[0], decision[1], 0.0))
    return events


def _machine_block(rules, seats: int, kind: str, threshold: int, seed, start: int, count: int) -> Tally:
    state = machine_table(rules, seats)
    tally = Tally()
    for i in range(start, start + count):
        play_machine_hand(state, rules, hand_seed(seed, i), kind, threshold)
        last = state.last_hand
        tally.hands += 1
        tally.banker_classes[last["hands"][last["banker"]][0]["class"]] += 1
        for r in last["results"]:
            if r["kind"] != "main":
                continue
            cls = last["hands"][r["bettor"]][r["hand"]]["class"]
            # A stake against a bank won at auction risks the multiplier times it: that is what is staked.
            tally.result(r["outcome"], r["stake"] * r.get("bank_mult", 1), r["paid"], cls)
        if rules.bank_auction:
            if min(x["stack"] for x in state.seats) + state.bank < BIG_BANK // 2:
                raise EngineError("bank_too_small", "A simulated stack ran low.")
        elif state.bank < BIG_BANK // 2:  # never: bank limits must not bind
            raise EngineError("bank_too_small", "The simulated bank ran low.")
    return tally


def _run_block(job) -> Tally:
    preset, overrides, seats, strategy, seed, start, count, engine = job
    rules = sim_rules(preset, overrides)
    v = VARIANTS[rules.game]
    kind, threshold = parse_strategy(strategy, v)
    if engine == "fast":
        return _fast_block(rules, seats, threshold, seed, start, count)
    return _machine_block(rules, seats, kind, threshold, seed, start, count)


def fast_path_applies(rules, strategy: str) -> bool:
    """The fast path plays threshold bots in the games whose hand flow it reproduces: one base stake a hand, so
    not with let it ride (house-rules.md, `push_cap`), whose stakes follow the previous hand."""
    return strategy != "expert" and VARIANTS[rules.game].fast_simulation(rules) and not rules.push_cap \
        and not rules.bank_auction  # the bank auction's hands are the machine's (house-rules.md)


def simulate(preset: str, hands: int, seed=0, *, rules: dict | None = None, strategy: str = "basic",
             seats: int | None = None, workers: int = 1, engine: str = "auto", pool=None) -> dict:
    """Play ``hands`` bot hands and report the challenger's rates, net per stake and hand classes."""
    r = sim_rules(preset, rules)
    v = VARIANTS[r.game]
    parse_strategy(strategy, v)
    seats = seats or r.max_main_seats
    if not 2 <= seats <= r.max_main_seats:
        raise EngineError("bad_seats", f"{preset} seats 2 to {r.max_main_seats} (the banker included).")
    if hands < 1:
        raise EngineError("bad_hands", "Simulate at least one hand.")
    if engine == "auto":
        engine = "fast" if fast_path_applies(r, strategy) else "machine"
    elif engine == "fast" and not fast_path_applies(r, strategy):
        raise EngineError("no_fast_path", "The fast path plays threshold bots in ten-half, zhejiang and ban-luck.")
    jobs = [(preset, rules, seats, strategy, seed, b, min(BLOCK, hands - b), engine) for b in range(0, hands, BLOCK)]
    started = _perf.perf_counter()
    total = Tally()
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as p:
            for t in p.map(_run_block, jobs, chunksize=1):
                total.add(t)
    else:
        for job in jobs:
            total.add(_run_block(job))
    elapsed = max(_perf.perf_counter() - started, 1e-9)
    n = max(total.challenger_hands, 1)
    return {
        "preset": preset, "hands": total.hands, "seats": seats, "strategy": strategy, "engine": engine,
        "workers": workers,
        "challenger": {"hands": total.challenger_hands, "win": total.win / n, "push": total.push / n,
                       "lose": total.lose / n, "net_per_stake": total.net / max(total.staked, 1),
                       # in base stakes, per challenger hand: they differ from 1 and net_per_stake when stakes vary
                       # (let it ride), where the banker's edge per unit staked alone does not tell the bank's take
                       "stake_per_hand": total.staked / n / r.base_stake, "net_per_hand": total.net / n / r.base_stake},
        "classes": {k: c / n for k, c in sorted(total.classes.items())},
        "banker_classes": {k: c / max(total.hands, 1) for k, c in sorted(total.banker_classes.items())},
        "hands_per_second": total.hands / elapsed,
    }
