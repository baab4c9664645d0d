"""One immutable, validated rule set (``Rules``), its knobs (``KNOBS``) and the four presets.

Every knob named in /work/shared/rules/ exists here. A room stores ``Rules.to_json()``; overrides are
validated as a whole (``rules_from``) and an incoherent set raises ``RulesError`` naming the knob.
Knobs that a game does not use keep their preset value and are ignored by that game.
"""

from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property

import orjson

from .errors import RulesError

GAMES = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")

# Hand classes whose multiplier a room may change, per game (rules files, "Hand classes").
PAYOUT_CLASSES = {
    "ten-half": ("ordinary", "ten-and-a-half", "five-dragons"),
    "seven-half": ("ordinary", "seven-and-a-half", "natural"),
    "zhejiang-ten-half": ("ordinary", "ten-and-a-half", "five-small", "five-pictures", "heavenly-king",
                          "six-small", "seven-small", "eight-small", "nine-small", "grand-heavenly-king"),
    "ban-luck": ("ordinary", "five-dragon", "ban-luck", "ban-ban", "five-card-bust"),
}

# Which deck and how many main seats each game can be played with (rules files, "Table" and "Cards").
_GAME_DECK = {"ten-half": "french-52", "seven-half": "spanish-40", "zhejiang-ten-half": "french-54",
              "ban-luck": "french-52"}
_GAME_SEATS = {"ten-half": (2, 4), "seven-half": (2, 8), "zhejiang-ten-half": (2, 4), "ban-luck": (2, 7)}


_FROM_JSON: dict[bytes, "Rules"] = {}  # JSON text (keys sorted) -> the Rules made from it (`Rules.from_json`)
_FROM_JSON_KEPT = 512


@dataclass(frozen=True)
class Rules:
    game: str = "ten-half"
    deck: str = "french-52"
    max_cards: int | None = 5
    base_stake: int = 10
    chip_values: tuple = (10, 50, 100)
    bet_seconds: int = 15
    act_seconds: int = 20
    bank_seconds: int = 20
    max_main_seats: int = 4
    max_side_bettors: int = 8
    side_bets_enabled: bool = True
    banker_policy: str = "keep"
    order_policy: str = "dice"
    payouts: dict = field(default_factory=dict)
    # Betting.
    bet_multiple: bool = True
    min_bet: int | None = None
    max_bet: int | None = None
    stake_third_of_stack: bool = False
    fixed_stake: bool = False
    base_stake_rule: str = "fixed"
    base_stake_cap: int = 800_000
    # The bank.
    first_banker: str = "host"
    host_banks: bool = True
    bank_open: str = "choose"
    rotation: str = "clockwise"
    retire_needs_profit: bool = True
    bank_max_hands: int | None = None
    bank_min_cover: int | None = None
    take_bank_on_target: bool = False
    banker_forced_draw: bool = False
    banker_stand_on: int = 16
    # Play.
    mode: str = "classic"
    double_once: bool = False
    escape_penalty: bool = False
    challenger_min_stand: int | None = None
    jackpot_enabled: bool = False
    house_rules: bool = False
    double_down: bool | None = None
    split: bool | None = None
    four_discard: bool | None = None
    secret_pair: bool | None = None
    mort: bool | None = None

    def __hash__(self):
        return hash(repr(sorted(self.to_json().items())))

    def to_json(self) -> dict:
        data = dict(self._json)
        data["chip_values"] = list(self.chip_values)
        data["payouts"] = dict(self.payouts)
        return data

    @cached_property
    def _json(self) -> dict:
        # Rules are frozen, so their JSON is computed once (views ask for it on every command).
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Rules":
        """The rules a room stored (validated). Every command of a table reads the same rules back, so the
        `Rules` made from one JSON text is kept and given again: building and validating them, and their JSON
        for each view, was about 3 % of a web process (docs/performance.md). Rules are immutable."""
        if not isinstance(data, dict):
            raise RulesError("rules", "must be an object")
        try:
            key = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # not plain JSON (orjson's JSONEncodeError): validated below, and refused there
            return cls._from_json(data)
        rules = _FROM_JSON.get(key)
        if rules is None:
            rules = cls._from_json(data)
            if len(_FROM_JSON) >= _FROM_JSON_KEPT:
                _FROM_JSON.clear()
            _FROM_JSON[key] = rules
        return rules

    @classmethod
    def _from_json(cls, data: dict) -> "Rules":
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RulesError(unknown[0], "is not a rule setting")
        values = dict(data)
        if "chip_values" in values and isinstance(values["chip_values"], list):
            values["chip_values"] = tuple(values["chip_values"])
        rules = cls(**values)
        validate(rules)
        return rules

    @classmethod
    def knobs(cls) -> list[dict]:
        return knobs()

    # House rules (seven-half.md, "House rules mode"): each toggle is on when set, or when unset and
    # house_rules is on.
    def house(self, name: str) -> bool:
        value = getattr(self, name)
        return self.house_rules if value is None else value

    def payout(self, cls_name: str) -> int:
        return self.payouts.get(cls_name, 1)

    @property
    def stake_min(self) -> int:
        return self.min_bet if self.min_bet is not None else self.base_stake


def _payouts(game: str, **special) -> dict:
    return {name: special.get(name.replace("-", "_"), 1) for name in PAYOUT_CLASSES[game]}


PRESETS: dict[str, Rules] = {
    "ten-half": Rules(
        payouts=_payouts("ten-half", ten_and_a_half=2, five_dragons=2),
    ),
    "seven-half": Rules(
        game="seven-half", deck="spanish-40", max_cards=None, bet_seconds=18, act_seconds=22,
        max_main_seats=6, max_side_bettors=0, side_bets_enabled=False, banker_policy="max-hands",
        order_policy="seat", payouts=_payouts("seven-half", natural=2), bet_multiple=False,
        first_banker="draw", host_banks=False, bank_open="whole-stack", retire_needs_profit=False,
        bank_max_hands=3, take_bank_on_target=True,
    ),
    "zhejiang-ten-half": Rules(
        game="zhejiang-ten-half", deck="french-54", max_side_bettors=0, side_bets_enabled=False,
        banker_policy="step-down", order_policy="seat",
        payouts=_payouts("zhejiang-ten-half", ten_and_a_half=2, five_small=3, five_pictures=4, heavenly_king=5,
                         six_small=6, seven_small=7, eight_small=8, nine_small=9, grand_heavenly_king=10),
        bet_multiple=False, fixed_stake=True, base_stake_rule="poorest-share", first_banker="first-seated",
        host_banks=False, bank_open="whole-stack", rotation="counter-clockwise", retire_needs_profit=False,
        double_once=True, escape_penalty=True,
    ),
    "ban-luck": Rules(
        game="ban-luck", max_main_seats=5, max_side_bettors=0, side_bets_enabled=False, order_policy="seat",
        payouts=_payouts("ban-luck", five_dragon=2, ban_luck=2, ban_ban=3, five_card_bust=2),
        bet_multiple=False, min_bet=1, max_bet=500, stake_third_of_stack=True, first_banker="host",
        bank_open="whole-stack", retire_needs_profit=False, banker_forced_draw=True, challenger_min_stand=16,
    ),
}

# Zhejiang extended mode (zhejiang.md): 9 cards and the six-to-nine-card hands. Setting {"mode": "extended"}
# alone also moves max_cards to 9 unless max_cards is given too.
_MODE_MAX_CARDS = {"classic": 5, "extended": 9}


def rules_from(preset: str, overrides: dict | None = None) -> Rules:
    """The preset's rules with ``overrides`` on top, validated as a whole."""
    if preset not in PRESETS:
        raise RulesError("preset", f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    overrides = dict(overrides or {})
    if "game" in overrides and overrides["game"] != PRESETS[preset].game:
        raise RulesError("game", "is fixed by the preset")
    base = PRESETS[preset].to_json()
    if "payouts" in overrides and isinstance(overrides["payouts"], dict):
        overrides["payouts"] = {**base["payouts"], **overrides["payouts"]}
    if base["game"] == "zhejiang-ten-half" and "mode" in overrides and "max_cards" not in overrides:
        overrides["max_cards"] = _MODE_MAX_CARDS.get(overrides["mode"], base["max_cards"])
    return Rules.from_json({**base, **overrides})


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# name, type, help, extra (choices / min / max). Types: int, int?, bool, bool?, choice, int-list, payouts.
_KNOB_SPECS = [
    ("game", "choice", "Which game the rules are for (fixed by the preset).", {"choices": GAMES}),
    ("deck", "choice", "The deck: 52 French cards, 54 with jokers, or the 40-card Spanish deck.",
     {"choices": ("french-52", "french-54", "spanish-40")}),
    ("max_cards", "int?", "Most cards a hand may hold (empty: no limit).", {"min": 2, "max": 40}),
    ("base_stake", "int", "The room's base stake: the default and minimum stake, and the step of bets.",
     {"min": 1, "max": 10_000_000}),
    ("chip_values", "int-list", "The chip buttons (+N) used to build a bet.", {"min": 1}),
    ("bet_seconds", "int", "Seconds to bet before the default stake is placed.", {"min": 3, "max": 600}),
    ("act_seconds", "int", "Seconds to act before the default action (stand) is taken.", {"min": 3, "max": 600}),
    ("bank_seconds", "int", "Seconds for a bank decision (open, refill, take) before the default.",
     {"min": 3, "max": 600}),
    ("max_main_seats", "int", "Main seats including the banker.", {"min": 2, "max": 8}),
    ("max_side_bettors", "int", "Side-bettor seats.", {"min": 0, "max": 8}),
    ("side_bets_enabled", "bool", "Whether side bettors may follow a challenger's hand.", {}),
    ("banker_policy", "choice", "How the bank moves: kept until given up, passed after bank_max_hands, "
     "or stepped down by a banker who loses over a hand.", {"choices": ("keep", "max-hands", "step-down")}),
    ("order_policy", "choice", "Dice (Ten and a Half) or seat order from the banker's left.",
     {"choices": ("dice", "seat")}),
    ("payouts", "payouts", "Net multiplier paid per winning hand class.", {"min": 1, "max": 100}),
    ("bet_multiple", "bool", "Stakes must be a multiple of the base stake.", {}),
    ("min_bet", "int?", "Smallest stake (empty: the base stake).", {"min": 1}),
    ("max_bet", "int?", "Largest stake (empty: the stack).", {"min": 1}),
    ("stake_third_of_stack", "bool", "A stake may be at most a third of the stack (losses up to x3).", {}),
    ("fixed_stake", "bool", "Challengers do not choose: every stake is the base stake.", {}),
    ("base_stake_rule", "choice", "How a fixed base stake is set each hand (Zhejiang).",
     {"choices": ("fixed", "poorest-share", "banker-sixtieth")}),
    ("base_stake_cap", "int", "Upper limit of a computed base stake.", {"min": 1}),
    ("first_banker", "choice", "Who banks first: the host, the first to sit, or a card draw.",
     {"choices": ("host", "first-seated", "draw")}),
    ("host_banks", "bool", "The host banks first (off: the next player does).", {}),
    ("bank_open", "choice", "The banker chooses the opening bank, or the whole stack is the bank.",
     {"choices": ("choose", "whole-stack")}),
    ("rotation", "choice", "Direction the bank moves in.", {"choices": ("clockwise", "counter-clockwise")}),
    ("retire_needs_profit", "bool", "A banker may retire only once net profit reaches the opening bank.", {}),
    ("bank_max_hands", "int?", "Most consecutive hands one banker holds (max-hands policy).", {"min": 1}),
    ("bank_min_cover", "int?", "Smallest bank that may bank (empty: 2 x base stake x challengers).", {"min": 1}),
    ("take_bank_on_target", "bool", "A challenger who makes the target when the bank does not may take the bank.",
     {}),
    ("banker_forced_draw", "bool", "The banker draws on 15 or less and stands on 16 or more, automatically.", {}),
    ("banker_stand_on", "int", "The forced banker stands from this total.", {"min": 2, "max": 21}),
    ("mode", "choice", "Zhejiang classic (5 cards) or extended (9 cards with the six-to-nine-card hands).",
     {"choices": ("classic", "extended")}),
    ("double_once", "bool", "A challenger may double once per hand, take one card and end the turn.", {}),
    ("escape_penalty", "bool", "Leaving mid-hand forfeits the stake (a banker pays every stake).", {}),
    ("challenger_min_stand", "int?", "Challengers may not stand below this total.", {"min": 1, "max": 21}),
    ("jackpot_enabled", "bool", "The host may seed a jackpot that the first natural collects.", {}),
    ("house_rules", "bool", "Turn on every house rule below that is not set on its own.", {}),
    ("double_down", "bool?", "House rule: double holding only the first card.", {}),
    ("split", "bool?", "House rule: split two opening figures.", {}),
    ("four_discard", "bool?", "House rule: an opening 4 is replaced once.", {}),
    ("secret_pair", "bool?", "House rule: an opening 3 becomes two secret cards; stand only.", {}),
    ("mort", "bool?", "House rule: the Dead Seven on an opening 7.", {}),
]


def knobs() -> list[dict]:
    """Every knob with its type, help, limits and default per preset (for a generated admin form)."""
    out = []
    for name, kind, help_text, extra in _KNOB_SPECS:
        entry = {"name": name, "type": kind, "help": help_text,
                 "defaults": {slug: _json_value(getattr(r, name)) for slug, r in PRESETS.items()}}
        for key, value in extra.items():
            entry[key] = list(value) if isinstance(value, tuple) else value
        if kind == "payouts":
            entry["classes"] = {slug: list(PAYOUT_CLASSES[r.game]) for slug, r in PRESETS.items()}
        out.append(entry)
    return out


def _json_value(v):
    if isinstance(v, tuple):
        return list(v)
    if isinstance(v, dict):
        return dict(v)
    return v


KNOBS = knobs()


def validate(r: Rules) -> None:
    """Raise RulesError naming the first knob that is wrong or incoherent with the others."""
    for name, kind, _help, extra in _KNOB_SPECS:
        v = getattr(r, name)
        if kind in ("int", "int?"):
            if v is None and kind == "int?":
                continue
            if not _is_int(v):
                raise RulesError(name, "must be a whole number")
            if "min" in extra and v < extra["min"]:
                raise RulesError(name, f"must be at least {extra['min']}")
            if "max" in extra and v > extra["max"]:
                raise RulesError(name, f"must be at most {extra['max']}")
        elif kind in ("bool", "bool?"):
            if not (isinstance(v, bool) or (v is None and kind == "bool?")):
                raise RulesError(name, "must be true or false")
        elif kind == "choice":
            if v not in extra["choices"]:
                raise RulesError(name, f"must be one of {', '.join(extra['choices'])}")
        elif kind == "int-list":
            if not isinstance(v, tuple) or not v or not all(_is_int(x) and x >= 1 for x in v):
                raise RulesError(name, "must be a non-empty list of positive whole numbers")
        elif kind == "payouts":
            if not isinstance(v, dict):
                raise RulesError(name, "must map hand classes to multipliers")
            for cls_name, mult in v.items():
                if cls_name not in PAYOUT_CLASSES.get(r.game, ()):
                    raise RulesError(name, f"{cls_name!r} is not a hand class of {r.game}")
                if not _is_int(mult) or mult <= 0:
                    raise RulesError(name, f"the multiplier of {cls_name} must be a whole number above 0")
    if r.deck != _GAME_DECK[r.game]:
        raise RulesError("deck", f"{r.game} is played with the {_GAME_DECK[r.game]} deck")
    lo, hi = _GAME_SEATS[r.game]
    if not lo <= r.max_main_seats <= hi:
        raise RulesError("max_main_seats", f"{r.game} seats {lo} to {hi} main players")
    if r.game == "seven-half":
        if r.max_cards is not None and r.max_cards < 2:
            raise RulesError("max_cards", "must be at least 2")
    elif r.max_cards is None:
        raise RulesError("max_cards", f"{r.game} needs a card limit")
    if r.game == "zhejiang-ten-half":
        want = _MODE_MAX_CARDS[r.mode]
        if r.max_cards != want:
            raise RulesError("max_cards", f"the {r.mode} mode holds at most {want} cards")
    elif r.game != "seven-half" and r.max_cards > 5:
        raise RulesError("max_cards", f"{r.game} hands hold at most 5 cards")
    if r.game == "ban-luck" and r.max_cards != 5:
        raise RulesError("max_cards", "Chinese Blackjack's Five Dragon needs exactly 5 cards")
    if r.min_bet is not None and r.max_bet is not None and r.min_bet > r.max_bet:
        raise RulesError("min_bet", "must not be above max_bet")
    if r.max_bet is not None and r.max_bet < r.base_stake:
        raise RulesError("max_bet", "must not be below the base stake (the default stake)")
    if r.min_bet is not None and r.min_bet > r.base_stake:
        raise RulesError("min_bet", "must not be above the base stake (the default stake)")
    if r.side_bets_enabled and r.max_side_bettors == 0:
        raise RulesError("max_side_bettors", "must be at least 1 when side bets are enabled")
    if r.banker_policy == "max-hands" and r.bank_max_hands is None:
        raise RulesError("bank_max_hands", "is needed by the max-hands banker policy")
    if r.order_policy == "dice" and r.game != "ten-half":
        raise RulesError("order_policy", "the dice order is part of Ten and a Half only")
    if r.first_banker == "draw" and r.bank_open != "whole-stack":
        raise RulesError("first_banker", "a drawn banker opens with the whole stack (bank_open whole-stack)")
    if r.challenger_min_stand is not None and r.game != "ban-luck":
        raise RulesError("challenger_min_stand", "is a Chinese Blackjack rule")
    if r.banker_forced_draw and r.game != "ban-luck":
        raise RulesError("banker_forced_draw", "is a Chinese Blackjack rule")
    if r.jackpot_enabled and r.game != "seven-half":
        raise RulesError("jackpot_enabled", "the jackpot is a Seven and a Half rule")
    for name in ("house_rules", "double_down", "split", "four_discard", "secret_pair", "mort"):
        if getattr(r, name) and r.game != "seven-half":
            raise RulesError(name, "is a Seven and a Half house rule")
    if r.double_once and r.game != "zhejiang-ten-half":
        raise RulesError("double_once", "is a Zhejiang rule (Seven and a Half has double_down)")
    if r.stake_third_of_stack and r.game != "ban-luck":
        raise RulesError("stake_third_of_stack", "is a Chinese Blackjack rule")
    if r.game == "ban-luck" and not r.stake_third_of_stack:
        # rules/README.md "No debt": a x3 loss must be covered when betting.
        raise RulesError("stake_third_of_stack", "Chinese Blackjack losses reach x3: the stake must stay a third")


def with_changes(r: Rules, **changes) -> Rules:
    new = replace(r, **changes)
    validate(new)
    return new
