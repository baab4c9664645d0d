"""Bots: they decide from ``view(state, seat)`` only (rules/README.md, "Privacy").

``basic`` stands from a fixed threshold per game (``Variant.basic_threshold``). ``expert`` computes the
expected value of each legal action for its own hand: the unseen cards are every card of the deck
that its view does not show, the opponent's final hand is estimated by letting it draw from those
cards by the basic rule, and each action's value is the probability-weighted payoff from the game's
own comparison (``Variant.compare``), hitting recursively while that is worth more (docs/engine.md).
"""

from functools import lru_cache

from .bots_open import opener_action
from .cards import DECKS
from .rules import Rules
from .variants import VARIANTS


def _mine(view: dict) -> tuple[list[str], int, dict] | None:
    h = view.get("hand")
    if not h or not h.get("turn") or h["turn"]["seat"] != view["you"]:
        return None
    i = h["turn"]["hand"]
    ph = h["hands"][view["you"]][i]
    return [c["card"] for c in ph["cards"]], i, ph


def default_stake(view: dict, rules: Rules) -> int:
    me = next(x for x in view["seats"] if x["id"] == view["you"])
    base = view["hand"]["base_stake"]
    high = me["stack"] // 3 if rules.stake_third_of_stack else me["stack"]
    # house-rules.md "The bank auction": against a bank won at xN the stake is at most the stack's Nth.
    high //= ((view.get("house") or {}).get("auction") or {}).get("mult", 1) if me["role"] == "main" else 1
    if rules.max_bet is not None:
        high = min(high, rules.max_bet)
    amount = min(max(base, rules.stake_min), high)
    if rules.bet_multiple:
        amount -= amount % rules.base_stake
    return amount


def ride_stake(view: dict, rules: Rules) -> int | None:
    """house-rules.md "Let it ride": a bot with a ride always lets it ride, to the largest stake the ride and its
    stack allow (stakes are set before any card, so no hand tells it better; docs/rules.md). None: no ride."""
    cap = (view.get("house") or {}).get("ride", {}).get(view["you"])
    if cap is None:
        return None
    me = next(x for x in view["seats"] if x["id"] == view["you"])
    amount = min(cap, me["stack"] // 3 if rules.stake_third_of_stack else me["stack"])
    if rules.bet_multiple:
        amount -= amount % rules.base_stake
    return max(amount, default_stake(view, rules))


def auction_bid(view: dict, rules: Rules) -> int:
    """house-rules.md "The bank auction": the bot's bid, higher with a better first card (its own, when the bidders see
    it). The bank's edge is the ½ it wins ties with and the challengers who bust first, so any card helps it; a first
    card of 9 or 10 (little room to be beaten, ten-half.md) bids the most, 7 or 8 two, a picture's ½ (a 10½ one card
    away) or 5 and 6 one, a small card none. Without a card seen the bot bids x1."""
    h = view.get("hand") or {}
    mine = [c["card"] for c in (h.get("hands", {}).get(view["you"]) or [{"cards": []}])[0]["cards"] if "card" in c]
    if not mine:
        return min(1, rules.auction_max)
    points = VARIANTS[rules.game].points(mine[0])
    units = VARIANTS[rules.game].units
    value = points / units
    bid = 4 if value >= 9 else 2 if value >= 7 else 1 if value >= 5 or value < 1 else 0
    return min(bid, rules.auction_max)


def bot_decide(view: dict, level: str, rules: Rules) -> tuple[str, dict] | None:
    """The bot's next command for the seat ``view["you"]`` as (action, args), or None when it has none."""
    legal = view.get("legal_actions", [])
    if not legal:
        return None
    if view["phase"] == "playing":
        return _play(view, level, rules, legal)  # before the seat lookup: most views are another seat's turn
    me = next((x for x in view["seats"] if x["id"] == view.get("you")), None)
    if me is None:
        return None
    if view["phase"] == "auction":
        return ("bid", {"mult": auction_bid(view, rules)}) if "bid" in legal else None
    if view["phase"] == "betting":
        if "bet" in legal:
            return "bet", {"amount": ride_stake(view, rules) or default_stake(view, rules)}
        if "no_bet" in legal:
            return "no_bet", {}  # bots do not side bet
        return None
    if view["phase"] == "bank_decision":
        if "open_bank" in legal:
            return "open_bank", {"amount": me["stack"]}
        if "take_bank" in legal:
            return "take_bank", {}
        if "refill" in legal:
            return ("refill", {"amount": me["stack"]}) if me["stack"] > 0 else ("pass_bank", {})
    return None


def _play(view: dict, level: str, rules: Rules, legal: list[str]) -> tuple[str, dict] | None:
    """The playing phase: an action only on this seat's own turn (`_mine`), so a seat that is not at the table,
    whose turn it never is, gets None here as before the seat lookup above."""
    mine = _mine(view)
    if mine is None:
        return None
    cards, _, ph = mine
    v = VARIANTS[rules.game]
    if "escape" in legal:
        # house-rules.md "The free hand": playing on from a two-card 15 loses in expectation, for a challenger (who
        # must draw) and for the banker (every hand left holds 16 or more), so both levels escape (docs/rules.md).
        return "escape", {}
    if rules.banker_opens and view["you"] == view["banker"]:
        return opener_action(view, rules, cards, legal)  # house-rules.md "The banker opens" (bots_open.py)
    if level == "expert":
        return expert_action(view, rules, cards, legal), {}
    if "mort_decline" in legal:
        return "mort_decline", {}
    total = v.evaluate(cards, rules).total
    if "hit" in legal and (total < v.basic_threshold or "stand" not in legal):
        return "hit", {}
    return ("stand", {}) if "stand" in legal else ("hit", {})


# -- expert ------------------------------------------------------------------------------------------

def _unseen(view: dict, rules: Rules, own: list[str]) -> list[str]:
    """Every card of the deck that this view does not show (for the shoe, also minus the discards'
    count is unknown by card, so the whole deck minus what is visible is used)."""
    seen = set(own)
    h = view["hand"] or {}
    for phs in h.get("hands", {}).values():
        for ph in phs:
            for c in ph["cards"]:
                if "card" in c:
                    seen.add(c["card"])
    return [c for c in DECKS[rules.deck] if c not in seen]


def _buckets(v, cards: list[str]) -> tuple[tuple[str, float], ...]:
    """Group unseen cards by what matters to the hand (points, and picture/ace-ness), with weights."""
    groups: dict[tuple, list[str]] = {}
    for c in cards:
        key = (v.points(c), c[0] == "A", c in ("BJ", "RJ") or c[0] in "JQKN")
        groups.setdefault(key, []).append(c)
    n = len(cards)
    return tuple((g[0], len(g) / n) for g in groups.values())


def expert_action(view: dict, rules: Rules, cards: list[str], legal: list[str]) -> str:
    v = VARIANTS[rules.game]
    is_banker = view["you"] == view["banker"]
    pool = _buckets(v, _unseen(view, rules, cards))
    if not pool:
        return "stand" if "stand" in legal else legal[0]
    opponents = _opponents(view, rules, is_banker)
    if not opponents:
        return "stand" if "stand" in legal else legal[0]
    evaluator = _Evaluator(v, rules, pool, opponents, is_banker)
    options = {}
    cards = sorted(cards)
    if "stand" in legal:
        options["stand"] = evaluator.stand(tuple(cards))
    if "hit" in legal:
        options["hit"] = evaluator.hit(tuple(cards))
    if "double" in legal:
        options["double"] = 2 * sum(p * evaluator.stand(tuple(cards) + (c,)) for c, p in pool)
    if "mort_accept" in legal:
        options["mort_accept"] = sum(
            p * (evaluator.stand(tuple(cards) + (c,)) if v.evaluate(list(cards) + [c], rules).total == v.target
                 else -1.0) for c, p in pool)
        options["mort_decline"] = max(evaluator.stand(tuple(cards)), evaluator.hit(tuple(cards)))
    if not options:
        return legal[0]
    return max(options, key=options.get)


def _opponents(view, rules, is_banker):
    """(known cards, hidden count, still to play, weight) for each hand the bot's hand is compared with."""
    h = view["hand"]
    out = []
    if is_banker:
        for seat, phs in h["hands"].items():
            if seat == view["you"]:
                continue
            for ph in phs:
                if ph["settled"]:
                    continue
                known = tuple(c["card"] for c in ph["cards"] if "card" in c)
                hidden = sum(1 for c in ph["cards"] if "hidden" in c)
                out.append((known, hidden, not ph["done"], ph["stake"] or 1))
    else:
        ph = h["hands"][view["banker"]][0]
        known = tuple(c["card"] for c in ph["cards"] if "card" in c)
        hidden = sum(1 for c in ph["cards"] if "hidden" in c)
        out.append((known, hidden, True, 1))
    return out


class _Evaluator:
    def __init__(self, v, rules, pool, opponents, is_banker):
        self.v, self.rules, self.pool, self.is_banker = v, rules, pool, is_banker
        self.dists = [(self._final(tuple(sorted(k)), hidden, plays), w) for k, hidden, plays, w in opponents]
        self.stand = lru_cache(maxsize=None)(self._stand)
        self.hit = lru_cache(maxsize=None)(self._hit)

    def _final(self, known, hidden, plays):
        """Distribution of the opponent's final hand as [(Eval, p)]: hidden cards drawn from the pool, then
        (if it still plays) draws by the basic threshold (the forced rule for a Chinese Blackjack banker),
        up to the card limit. Cards are drawn with replacement from the unseen pool (a close, fast
        approximation); partial hands are memoised as sorted card tuples and finals merged by value."""
        v, rules, pool = self.v, self.rules, self.pool
        limit = rules.max_cards or 12
        stand_from = rules.banker_stand_on if rules.banker_forced_draw and not self.is_banker else v.basic_threshold
        memo: dict = {}

        def walk(hand, to_draw):
            key = (hand, to_draw)
            if key in memo:
                return memo[key]
            out: dict = {}
            if to_draw:
                nexts = [(tuple(sorted(hand + (c,))), q, to_draw - 1) for c, q in pool]
            else:
                ev = v.evaluate(list(hand), rules)
                if not plays or ev.bust or ev.total >= stand_from or len(hand) >= limit:
                    memo[key] = {ev: 1.0}
                    return memo[key]
                nexts = [(tuple(sorted(hand + (c,))), q, 0) for c, q in pool]
            for nh, q, d in nexts:
                for e, p in walk(nh, d).items():
                    out[e] = out.get(e, 0.0) + q * p
            memo[key] = out
            return out

        return list(walk(tuple(sorted(known)), hidden).items())

    def _stand(self, cards) -> float:
        v, rules = self.v, self.rules
        mine = v.evaluate(list(cards), rules)
        total = 0.0
        for dist, w in self.dists:
            for other, p in dist:
                if self.is_banker:
                    outcome, mult = v.compare(other, mine, rules)
                    sign = -1 if outcome == "win" else 1 if outcome == "lose" else 0
                else:
                    outcome, mult = v.compare(mine, other, rules)
                    sign = 1 if outcome == "win" else -1 if outcome == "lose" else 0
                total += w * p * sign * mult
        return total

    def _hit(self, cards) -> float:
        v, rules = self.v, self.rules
        value = 0.0
        for c, p in self.pool:
            new = tuple(sorted(cards + (c,)))  # a hand's value does not depend on the order of its cards
            ev = v.evaluate(list(new), rules)
            limit = rules.max_cards or 12
            if ev.bust or len(new) >= limit or ev.total >= v.target:
                value += p * self.stand(new)
            else:
                value += p * max(self.stand(new), self.hit(new))
        return value
