"""One immutable, validated rule set (``Rules``), its knobs (``KNOB_SPECS``, ``KNOBS``) and the four presets.

Every knob named in the rules files (``shared/rules/`` of the project's workspace; docs/rules.md) exists
here, with its label and help. A room stores ``Rules.to_json()``; overrides are validated as a whole
(``rules_from``) and an incoherent set raises ``RulesError`` naming the knob. What a game allows beyond the
shared checks is the game's own (``Variant.check_rules``, ``Variant.own_settings``). Knobs that a game does
not use keep their preset value and are ignored by that game.
"""

from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from typing import NamedTuple

from .codec import json_key
from .errors import RulesError, gettext_noop  # gettext_noop marks the knobs' texts and the refusals below
from .variants import VARIANTS

GAMES = tuple(VARIANTS)


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
    bank_turn_hands: int = 0  # house-rules.md, "The bank by turns" (轮庄): 0 is off
    bank_min_cover: int | None = None
    take_bank_on_target: bool = False
    banker_forced_draw: bool = False
    banker_stand_on: int = 16
    # Play.
    mode: str = "classic"
    double_once: bool = False
    escape_penalty: bool = False
    banker_multiplies: bool = False
    challenger_min_stand: int | None = None
    jackpot_enabled: bool = False
    house_rules: bool = False
    double_down: bool | None = None
    split: bool | None = None
    four_discard: bool | None = None
    secret_pair: bool | None = None
    mort: bool | None = None
    # House rules groups add (house-rules.md): each is off by default, so every preset plays as before.
    banker_opens: bool = False  # Chinese Blackjack: the banker opens challengers one by one
    banker_open_from: int = 16
    free_hand: bool = False  # Chinese Blackjack: a two-card 15 may escape
    matta: str = "off"  # Seven and a Half: the wild card
    matta_natural: bool = False
    bank_auction: bool = False  # 抢庄: the bank is bid for whenever it is to be opened
    auction_max: int = 4
    auction_sees_first_card: bool = True  # 看牌抢庄
    push_cap: int = 0  # 推注 (let it ride): 0 is off

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
            raise RulesError("rules", gettext_noop("must be an object"))
        try:
            key = json_key(data)
        except (TypeError, ValueError):  # not plain JSON: validated below, and refused there
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
            raise RulesError(unknown[0], gettext_noop("is not a rule setting"))
        values = dict(data)
        if "chip_values" in values and isinstance(values["chip_values"], list):
            values["chip_values"] = tuple(values["chip_values"])
        rules = cls(**values)
        validate(rules)
        return rules

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


def _preset(game: str, payouts: dict, **settings) -> Rules:
    """A preset: the game with its deck, its payout classes (x1 unless given) and ``settings``."""
    v = VARIANTS[game]
    return Rules(game=game, deck=v.deck, payouts={name: payouts.get(name, 1) for name in v.payout_classes},
                 **settings)


PRESETS: dict[str, Rules] = {
    "ten-half": _preset("ten-half", {"ten-and-a-half": 2, "five-dragons": 2}),
    "seven-half": _preset(
        "seven-half", {"natural": 2}, max_cards=None, bet_seconds=18, act_seconds=22,
        max_main_seats=6, max_side_bettors=0, side_bets_enabled=False, banker_policy="max-hands",
        order_policy="seat", bet_multiple=False,
        first_banker="draw", host_banks=False, bank_open="whole-stack", retire_needs_profit=False,
        bank_max_hands=3, take_bank_on_target=True,
    ),
    "zhejiang-ten-half": _preset(
        "zhejiang-ten-half", {"ten-and-a-half": 2, "five-small": 3, "five-pictures": 4, "heavenly-king": 5,
                              "six-small": 6, "seven-small": 7, "eight-small": 8, "nine-small": 9,
                              "grand-heavenly-king": 10},
        max_side_bettors=0, side_bets_enabled=False, banker_policy="step-down", order_policy="seat",
        bet_multiple=False, fixed_stake=True, base_stake_rule="poorest-share", first_banker="first-seated",
        host_banks=False, bank_open="whole-stack", rotation="counter-clockwise", retire_needs_profit=False,
        double_once=True, escape_penalty=True,
    ),
    "ban-luck": _preset(
        "ban-luck", {"five-dragon": 2, "ban-luck": 2, "ban-ban": 3, "five-card-bust": 2},
        max_main_seats=5, max_side_bettors=0, side_bets_enabled=False, order_policy="seat",
        bet_multiple=False, min_bet=1, max_bet=500, stake_third_of_stack=True, first_banker="host",
        bank_open="whole-stack", retire_needs_profit=False, banker_forced_draw=True, challenger_min_stand=16,
    ),
}
# The presets with the house rules most groups of a country play (house-rules.md; their sources in docs/rules.md):
# each is its game's preset with those knobs on, so the four above stay as they are.
_HOUSE_PRESETS = {
    # 十点半 抢庄 as the Chinese friend-room apps play it: a stake of 1 to 5 base stakes (the apps' 下注 buttons), which
    # only a ride (推注) goes past, up to 10 base stakes.
    "ten-half-auction": ("ten-half", {"bank_auction": True, "push_cap": 10, "max_bet": 50, "chip_values": (10, 20, 50)}),
    "seven-half-matta": ("seven-half", {"matta": "king-of-coins"}),  # Sette e mezzo con la matta
    "ban-luck-opens": ("ban-luck", {"banker_opens": True, "free_hand": True}),  # Ban Luck as Singapore plays it
}
for _slug, (_game, _knobs) in _HOUSE_PRESETS.items():
    PRESETS[_slug] = Rules(**{**PRESETS[_game].to_json(), "chip_values": PRESETS[_game].chip_values, **_knobs})
HOUSE_PRESETS = {slug: game for slug, (game, _knobs) in _HOUSE_PRESETS.items()}  # preset -> the game's own preset


def rules_from(preset: str, overrides: dict | None = None) -> Rules:
    """The preset's rules with ``overrides`` on top, validated as a whole."""
    if preset not in PRESETS:
        raise RulesError("preset", gettext_noop("unknown preset %(preset)r; choose one of %(presets)s"),
                         {"preset": preset, "presets": ", ".join(PRESETS)})
    overrides = dict(overrides or {})
    if "game" in overrides and overrides["game"] != PRESETS[preset].game:
        raise RulesError("game", gettext_noop("is fixed by the preset"))
    base = PRESETS[preset].to_json()
    if "payouts" in overrides and isinstance(overrides["payouts"], dict):
        overrides["payouts"] = {**base["payouts"], **overrides["payouts"]}
    overrides.update(VARIANTS[base["game"]].implied_overrides(overrides, base))
    return Rules.from_json({**base, **overrides})


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Knob(NamedTuple):
    """One rule setting: its name (a ``Rules`` field), type, label and help (English, marked for
    translation), and limits: ``choices`` or ``min``/``max``. Types: int, int?, bool, bool?, choice,
    int-list, payouts (a ``?`` allows empty)."""

    name: str
    type: str
    label: str
    help: str
    limits: dict


# The most any amount of the rules may be (a stake, a chip, a cap, a bank's cover): the largest buy-in a room
# stores (games/models/rooms.py, a PositiveIntegerField), so no amount is beyond what a seat can hold. Paid at a
# multiplier of at most 100 it stays far inside a 64-bit integer, as PostgreSQL's jsonb and orjson read it back.
AMOUNT_MAX = 2_147_483_647

KNOB_SPECS = (
    Knob("game", "choice", gettext_noop("Game"), gettext_noop("Which game the rules are for (fixed by the preset)."),
         {"choices": GAMES}),
    Knob("deck", "choice", gettext_noop("Deck"),
         gettext_noop("The deck: 52 French cards, 54 with jokers, or the 40-card Spanish deck."),
         {"choices": ("french-52", "french-54", "spanish-40")}),
    Knob("max_cards", "int?", gettext_noop("Card limit"), gettext_noop("Most cards a hand may hold (empty: no limit)."),
         {"min": 2, "max": 40}),
    Knob("base_stake", "int", gettext_noop("Base stake"),
         gettext_noop("The room's base stake: the default and minimum stake, and the step of bets."),
         {"min": 1, "max": 10_000_000}),
    Knob("chip_values", "int-list", gettext_noop("Chip buttons"),
         gettext_noop("The chip buttons (+N) used to build a bet, e.g. 10, 50, 100."),
         {"min": 1, "max": AMOUNT_MAX}),
    Knob("bet_seconds", "int", gettext_noop("Seconds to bet"),
         gettext_noop("Seconds to bet before the default stake is placed."), {"min": 3, "max": 600}),
    Knob("act_seconds", "int", gettext_noop("Seconds to act"),
         gettext_noop("Seconds to act before the default action (stand) is taken."), {"min": 3, "max": 600}),
    Knob("bank_seconds", "int", gettext_noop("Seconds for bank decisions"),
         gettext_noop("Seconds for a bank decision (open, refill, take) before the default."), {"min": 3, "max": 600}),
    Knob("max_main_seats", "int", gettext_noop("Main seats"), gettext_noop("Main seats including the banker."),
         {"min": 2, "max": 8}),
    Knob("max_side_bettors", "int", gettext_noop("Side-bettor seats"), gettext_noop("Side-bettor seats."),
         {"min": 0, "max": 8}),
    Knob("side_bets_enabled", "bool", gettext_noop("Side bets"),
         gettext_noop("Whether side bettors may follow a challenger's hand."), {}),
    Knob("banker_policy", "choice", gettext_noop("How the bank moves"),
         gettext_noop("Kept until given up, passed after a number of hands, or stepped down by a banker who loses "
                      "over a hand."),
         {"choices": ("keep", "max-hands", "step-down")}),
    Knob("order_policy", "choice", gettext_noop("Order"),
         gettext_noop("Dice (Ten and a Half) or seat order from the banker's left."), {"choices": ("dice", "seat")}),
    Knob("payouts", "payouts", gettext_noop("Payouts"), gettext_noop("Net multiplier paid per winning hand class."),
         {"min": 1, "max": 100}),
    Knob("bet_multiple", "bool", gettext_noop("Stakes in steps of the base stake"),
         gettext_noop("Stakes must be a multiple of the base stake."), {}),
    Knob("min_bet", "int?", gettext_noop("Smallest stake"), gettext_noop("Smallest stake (empty: the base stake)."),
         {"min": 1, "max": AMOUNT_MAX}),
    Knob("max_bet", "int?", gettext_noop("Largest stake"), gettext_noop("Largest stake (empty: the stack)."),
         {"min": 1, "max": AMOUNT_MAX}),
    Knob("stake_third_of_stack", "bool", gettext_noop("Stake at most a third of the stack"),
         gettext_noop("A stake may be at most a third of the stack (losses up to ×3)."), {}),
    Knob("fixed_stake", "bool", gettext_noop("Fixed stake"),
         gettext_noop("Challengers do not choose: every stake is the base stake."), {}),
    Knob("base_stake_rule", "choice", gettext_noop("Base stake rule"),
         gettext_noop("How a fixed base stake is set each hand (Zhejiang)."),
         {"choices": ("fixed", "poorest-share", "banker-sixtieth")}),
    Knob("base_stake_cap", "int", gettext_noop("Base stake cap"), gettext_noop("Upper limit of a computed base stake."),
         {"min": 1, "max": AMOUNT_MAX}),
    Knob("first_banker", "choice", gettext_noop("First banker"),
         gettext_noop("Who banks first: the host, the first to sit, or a card draw."),
         {"choices": ("host", "first-seated", "draw")}),
    Knob("host_banks", "bool", gettext_noop("Host banks first"),
         gettext_noop("The host banks first (off: the next player does)."), {}),
    Knob("bank_open", "choice", gettext_noop("Opening bank"),
         gettext_noop("The banker chooses the opening bank, or the whole stack is the bank."),
         {"choices": ("choose", "whole-stack")}),
    Knob("rotation", "choice", gettext_noop("Bank direction"), gettext_noop("Direction the bank moves in."),
         {"choices": ("clockwise", "counter-clockwise")}),
    Knob("retire_needs_profit", "bool", gettext_noop("Retiring needs profit"),
         gettext_noop("A banker may retire only once net profit reaches the opening bank."), {}),
    Knob("bank_max_hands", "int?", gettext_noop("Hands per banker"),
         gettext_noop("Most consecutive hands one banker holds."), {"min": 1, "max": 1000}),
    Knob("bank_turn_hands", "int", gettext_noop("Bank by turns (hands)"),
         gettext_noop("The bank passes after this many hands, whatever it holds: it goes back to the banker's stack "
                      "and the next player opens it (0: off; 1 to 20)."), {"min": 0, "max": 20}),
    Knob("bank_min_cover", "int?", gettext_noop("Smallest bank"),
         gettext_noop("The bank must hold at least this to play a hand (empty: 2 × base stake × challengers)."),
         {"min": 1, "max": AMOUNT_MAX}),
    Knob("take_bank_on_target", "bool", gettext_noop("Take the bank on the target"),
         gettext_noop("A challenger who makes the target when the bank does not may take the bank."), {}),
    Knob("banker_forced_draw", "bool", gettext_noop("Forced banker"),
         gettext_noop("The banker draws on 15 or less and stands on 16 or more, automatically."), {}),
    Knob("banker_stand_on", "int", gettext_noop("Forced banker stands on"),
         gettext_noop("The forced banker stands from this total."), {"min": 2, "max": 21}),
    Knob("mode", "choice", gettext_noop("Mode"),
         gettext_noop("Zhejiang classic (5 cards) or extended (9 cards with the six-to-nine-card hands)."),
         {"choices": ("classic", "extended")}),
    Knob("double_once", "bool", gettext_noop("Double once"),
         gettext_noop("A challenger may double once per hand, take one card and end the turn."), {}),
    Knob("escape_penalty", "bool", gettext_noop("Escape penalty"),
         gettext_noop("Leaving mid-hand forfeits the stake (a banker pays every stake)."), {}),
    Knob("banker_multiplies", "bool", gettext_noop("Banker's hands multiply"),
         gettext_noop("House rule: a banker who wins with a special hand is paid that hand's multiplier (off: a "
                      "losing challenger pays the stake)."), {}),
    Knob("challenger_min_stand", "int?", gettext_noop("Challengers stand from"),
         gettext_noop("Challengers may not stand below this total."), {"min": 1, "max": 21}),
    Knob("jackpot_enabled", "bool", gettext_noop("Jackpot"),
         gettext_noop("The host may seed a jackpot that the first natural collects."), {}),
    Knob("house_rules", "bool", gettext_noop("House rules"),
         gettext_noop("Turn on every house rule below that is not set on its own."), {}),
    Knob("double_down", "bool?", gettext_noop("Double down"),
         gettext_noop("House rule: double holding only the first card."), {}),
    Knob("split", "bool?", gettext_noop("Split"), gettext_noop("House rule: split two opening figures."), {}),
    Knob("four_discard", "bool?", gettext_noop("The 4 discard"),
         gettext_noop("House rule: an opening 4 is replaced once."), {}),
    Knob("secret_pair", "bool?", gettext_noop("Secret pair on a 3"),
         gettext_noop("House rule: an opening 3 becomes two secret cards; stand only."), {}),
    Knob("mort", "bool?", gettext_noop("Dead Seven (the Mort)"),
         gettext_noop("House rule: the Dead Seven on an opening 7."), {}),
    # house-rules.md: the rules groups add, each off by default.
    Knob("banker_opens", "bool", gettext_noop("The banker opens hands one by one"),
         gettext_noop("From the total below, the banker may open (settle) any challenger against the bank's hand as "
                      "it stands, draw again, then open the rest."), {}),
    Knob("banker_open_from", "int", gettext_noop("The banker may open from"),
         gettext_noop("Below this total the banker must draw; from it on the banker may open hands (15, 16 or 17)."),
         {"min": 15, "max": 17}),
    Knob("free_hand", "bool", gettext_noop("The free hand (two-card 15)"),
         gettext_noop("Two cards worth exactly 15 may escape: the stake comes back, no win and no loss."), {}),
    Knob("matta", "choice", gettext_noop("The matta (wild card)"),
         gettext_noop("A wild card worth whatever makes its hand best, from ½ to 7 (off, or the king of coins)."),
         {"choices": ("off", "king-of-coins")}),
    Knob("matta_natural", "bool", gettext_noop("A matta 7½ is a natural"),
         gettext_noop("A two-card 7½ made with the matta is paid as a natural."), {}),
    Knob("bank_auction", "bool", gettext_noop("Bid for the bank (抢庄)"),
         gettext_noop("Whenever the bank is to be opened, the players bid for it (no bid, ×1 up to the limit below); "
                      "the winning bid multiplies every settlement while that banker holds the bank."), {}),
    Knob("auction_max", "int", gettext_noop("Highest bid"), gettext_noop("The highest multiplier a bid may name."),
         {"min": 1, "max": 4}),
    Knob("auction_sees_first_card", "bool", gettext_noop("Bid after seeing one's first card"),
         gettext_noop("Each bidder sees their own first card before bidding (看牌抢庄)."), {}),
    Knob("push_cap", "int", gettext_noop("Let it ride (推注)"),
         gettext_noop("A challenger who beat this bank in the previous hand may stake up to that stake plus its win, "
                      "at most this many base stakes (0: off; 5, 10 or 20)."), {"min": 0, "max": 20}),
)


def knobs() -> list[dict]:
    """Every knob with its type, label, help, limits and default per preset, as JSON (for generated forms)."""
    out = []
    for knob in KNOB_SPECS:
        entry = {"name": knob.name, "type": knob.type, "label": knob.label, "help": knob.help,
                 "defaults": {slug: _json_value(getattr(r, knob.name)) for slug, r in PRESETS.items()}}
        for key, value in knob.limits.items():
            entry[key] = list(value) if isinstance(value, tuple) else value
        if knob.type == "payouts":
            entry["classes"] = {slug: list(VARIANTS[r.game].payout_classes) for slug, r in PRESETS.items()}
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
    """Raise RulesError naming the first knob that is wrong or incoherent with the others: each knob's type
    and limits, the game's deck, seats and own constraints (``Variant.check_rules``), the settings only another
    game may turn on (``Variant.own_settings``), then the checks every game shares."""
    for name, kind, _label, _help, limits in KNOB_SPECS:
        v = getattr(r, name)
        if kind in ("int", "int?"):
            if v is None and kind == "int?":
                continue
            if not _is_int(v):
                raise RulesError(name, gettext_noop("must be a whole number"))
            if "min" in limits and v < limits["min"]:
                raise RulesError(name, gettext_noop("must be at least %(min)s"), {"min": limits["min"]})
            if "max" in limits and v > limits["max"]:
                raise RulesError(name, gettext_noop("must be at most %(max)s"), {"max": limits["max"]})
        elif kind in ("bool", "bool?"):
            if not (isinstance(v, bool) or (v is None and kind == "bool?")):
                raise RulesError(name, gettext_noop("must be true or false"))
        elif kind == "choice":
            if v not in limits["choices"]:
                raise RulesError(name, gettext_noop("must be one of %(choices)s"),
                                 {"choices": ", ".join(limits["choices"])})
        elif kind == "int-list":
            if not isinstance(v, tuple) or not v or not all(_is_int(x) and x >= 1 for x in v):
                raise RulesError(name, gettext_noop("must be a non-empty list of positive whole numbers"))
            if max(v) > limits["max"]:
                raise RulesError(name, gettext_noop("must be at most %(max)s each"), {"max": limits["max"]})
        elif kind == "payouts":
            if not isinstance(v, dict):
                raise RulesError(name, gettext_noop("must map hand classes to multipliers"))
            for cls_name, mult in v.items():
                if cls_name not in VARIANTS[r.game].payout_classes:
                    raise RulesError(name, gettext_noop("%(cls)r is not a hand class of %(game)s"),
                                     {"cls": cls_name, "game": r.game})
                if not _is_int(mult) or mult <= 0:
                    raise RulesError(name, gettext_noop("the multiplier of %(cls)s must be a whole number above 0"),
                                     {"cls": cls_name})
                if mult > limits["max"]:
                    raise RulesError(name, gettext_noop("the multiplier of %(cls)s must be at most %(max)s"),
                                     {"cls": cls_name, "max": limits["max"]})
    game = VARIANTS[r.game]
    if r.deck != game.deck:
        raise RulesError("deck", gettext_noop("%(game)s is played with the %(deck)s deck"),
                         {"game": r.game, "deck": game.deck})
    lo, hi = game.main_seats
    if not lo <= r.max_main_seats <= hi:
        raise RulesError("max_main_seats", gettext_noop("%(game)s seats %(low)s to %(high)s main players"),
                         {"game": r.game, "low": lo, "high": hi})
    game.check_rules(r)
    for other in VARIANTS.values():
        if other is not game:
            for setting in other.own_settings:
                if setting.is_on(r):
                    raise RulesError(setting.knob, setting.why)  # marked where it is written
    if r.min_bet is not None and r.max_bet is not None and r.min_bet > r.max_bet:
        raise RulesError("min_bet", gettext_noop("must not be above %(setting)s"), {"setting": "max_bet"})
    if r.max_bet is not None and r.max_bet < r.base_stake:
        raise RulesError("max_bet", gettext_noop("must not be below the base stake (the default stake)"))
    if r.min_bet is not None and r.min_bet > r.base_stake:
        raise RulesError("min_bet", gettext_noop("must not be above the base stake (the default stake)"))
    if r.side_bets_enabled and r.max_side_bettors == 0:
        raise RulesError("max_side_bettors", gettext_noop("must be at least %(min)s when side bets are enabled"),
                         {"min": 1})
    if r.banker_policy == "max-hands" and r.bank_max_hands is None:
        raise RulesError("bank_max_hands", gettext_noop("is needed by the %(policy)s banker policy"),
                         {"policy": "max-hands"})
    if r.push_cap not in (0, 5, 10, 20):
        raise RulesError("push_cap", gettext_noop("must be 0 (off), 5, 10 or 20"))
    if r.first_banker == "draw" and r.bank_open != "whole-stack":
        raise RulesError("first_banker",
                         gettext_noop("a drawn banker opens with the whole stack (%(setting)s %(value)s)"),
                         {"setting": "bank_open", "value": "whole-stack"})
