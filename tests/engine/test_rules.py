"""Rules: presets, overrides, validation naming the knob, JSON (rules/README.md "Rule knobs")."""

import json

import pytest

from games.engine import KNOBS, PRESETS, EngineError, Rules, RulesError, rules_from
from games.engine.rules import AMOUNT_MAX, HOUSE_PRESETS

HOUSE_KNOBS = {"banker_opens": False, "banker_open_from": 16, "free_hand": False, "matta": "off", "matta_natural": False,
               "bank_auction": False, "auction_max": 4, "auction_sees_first_card": True, "push_cap": 0}


def test_the_four_games_presets_exist_and_play_without_the_house_rules():
    """The four presets stay as they were: every house rule off (house-rules.md: off by default)."""
    games = {"ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"}
    assert games <= set(PRESETS)
    for slug in games:
        assert PRESETS[slug].game == slug
        assert {k: getattr(PRESETS[slug], k) for k in HOUSE_KNOBS} == HOUSE_KNOBS


def test_the_presets_with_house_rules_are_their_games_preset_with_the_knobs_on():
    assert HOUSE_PRESETS == {"ten-half-auction": "ten-half", "seven-half-matta": "seven-half",
                             "ban-luck-opens": "ban-luck"}
    assert set(PRESETS) == {"ten-half", "seven-half", "zhejiang-ten-half", "ban-luck", *HOUSE_PRESETS}
    turned_on = {"ten-half-auction": {"bank_auction": True, "push_cap": 10, "max_bet": 50, "chip_values": [10, 20, 50]},
                 "seven-half-matta": {"matta": "king-of-coins"},
                 "ban-luck-opens": {"banker_opens": True, "free_hand": True}}
    for slug, game in HOUSE_PRESETS.items():
        assert PRESETS[slug] == rules_from(game, turned_on[slug])  # nothing else differs from the game's preset
        assert rules_from(slug, {}) == PRESETS[slug]


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_rules_round_trip_through_json(slug):
    r = rules_from(slug, {})
    assert Rules.from_json(json.loads(json.dumps(r.to_json()))) == r


def test_rules_read_back_from_the_same_json_are_the_same_object_and_bad_json_is_refused_every_time():
    data = rules_from("ten-half", {"base_stake": 20}).to_json()
    first = Rules.from_json(data)
    reordered = dict(reversed(list(json.loads(json.dumps(data)).items())))
    assert Rules.from_json(reordered) is first  # kept: built and validated once
    data["base_stake"] = 30  # a changed dict is other rules, not the kept ones
    assert Rules.from_json(data).base_stake == 30 and first.base_stake == 20
    for _ in range(2):
        with pytest.raises(RulesError) as e:
            Rules.from_json({**data, "base_stake": 0})
        assert e.value.knob == "base_stake"
    assert Rules.from_json({**data, "base_stake": 1}).base_stake == 1
    with pytest.raises(RulesError):  # true is not mistaken for the 1 kept just before
        Rules.from_json({**data, "base_stake": True})
    with pytest.raises(RulesError):
        Rules.from_json({**data, "chip_values": {1, 2}})  # not JSON: validated, and refused


@pytest.mark.parametrize("overrides,knob", [
    ({"max_cards": 1}, "max_cards"), ({"payouts": {"ordinary": 0}}, "payouts"), ({"base_stake": 0}, "base_stake"),
    ({"deck": "spanish-40"}, "deck"), ({"max_main_seats": 9}, "max_main_seats"), ({"order_policy": "x"}, "order_policy"),
    ({"chip_values": []}, "chip_values"), ({"nonsense": 1}, "nonsense"), ({"max_cards": 6}, "max_cards"),
])
def test_an_incoherent_rule_set_names_the_knob(overrides, knob):
    with pytest.raises(RulesError) as e:
        rules_from("ten-half", overrides)
    assert e.value.knob == knob and e.value.code == "invalid_rules" and isinstance(e.value, EngineError)


# Every amount, count and multiplier has a ceiling: a value past 2**64 would come back from the database as a float,
# and a room made with it could then never seat anyone or be closed.
TOO_BIG = [
    ("ten-half", {"chip_values": [10, AMOUNT_MAX + 1]}, "chip_values"),
    ("ten-half", {"chip_values": [10, 2**64]}, "chip_values"),
    ("ten-half", {"max_bet": AMOUNT_MAX + 1}, "max_bet"), ("ten-half", {"max_bet": 2**64}, "max_bet"),
    ("ten-half", {"min_bet": 2**64}, "min_bet"), ("ten-half", {"bank_min_cover": AMOUNT_MAX + 1}, "bank_min_cover"),
    ("ten-half", {"bank_max_hands": 1001, "banker_policy": "max-hands"}, "bank_max_hands"),
    ("zhejiang-ten-half", {"base_stake_cap": AMOUNT_MAX + 1}, "base_stake_cap"),
    ("zhejiang-ten-half", {"base_stake_cap": 2**64}, "base_stake_cap"),
    ("ten-half", {"payouts": {"ordinary": 101}}, "payouts"), ("ten-half", {"payouts": {"ordinary": 2**64}}, "payouts"),
    ("ten-half", {"base_stake": 10_000_001}, "base_stake"),
]


@pytest.mark.parametrize(("slug", "overrides", "knob"), TOO_BIG, ids=[f"{k}={o[k]}" for _s, o, k in TOO_BIG])
def test_a_value_past_its_knobs_ceiling_is_refused(slug, overrides, knob):
    with pytest.raises(RulesError) as e:
        rules_from(slug, overrides)
    assert e.value.knob == knob


def test_each_ceiling_itself_is_allowed_and_published():
    limits = {k["name"]: k for k in KNOBS}
    for name in ("chip_values", "max_bet", "min_bet", "bank_min_cover", "base_stake_cap"):
        assert limits[name]["max"] == AMOUNT_MAX
    assert limits["payouts"]["max"] == 100 and limits["bank_max_hands"]["max"] == 1000
    assert rules_from("ten-half", {"chip_values": [10, AMOUNT_MAX], "max_bet": AMOUNT_MAX,
                                   "bank_min_cover": AMOUNT_MAX, "payouts": {"ordinary": 100}}).max_bet == AMOUNT_MAX
    assert rules_from("zhejiang-ten-half", {"base_stake_cap": AMOUNT_MAX}).base_stake_cap == AMOUNT_MAX
    assert rules_from("ten-half", {"bank_max_hands": 1000, "banker_policy": "max-hands"}).bank_max_hands == 1000


@pytest.mark.parametrize("slug", ["ten-half", "zhejiang-ten-half", "ban-luck"])
def test_a_card_draw_for_the_first_bank_is_refused_outside_seven_and_a_half(slug):
    # The draw ranks Spanish cards (seven-half.md "Choosing the first bank"): elsewhere it is refused, not a crash.
    with pytest.raises(RulesError) as e:
        rules_from(slug, {"first_banker": "draw", "bank_open": "whole-stack"})
    assert e.value.knob == "first_banker" and "Seven and a Half" in e.value.message
    assert rules_from("seven-half", {"first_banker": "draw"}).first_banker == "draw"


def test_overrides_merge_payouts():
    r = rules_from("ten-half", {"payouts": {"five-dragons": 3}})
    assert r.payout("five-dragons") == 3 and r.payout("ten-and-a-half") == 2


def test_zhejiang_extended_mode_is_an_override():
    r = rules_from("zhejiang-ten-half", {"mode": "extended"})
    assert r.mode == "extended" and r.max_cards == 9


def test_every_knob_is_described_with_a_default_per_preset():
    names = {k["name"] for k in KNOBS}
    from dataclasses import fields

    assert names == {f.name for f in fields(Rules)}
    for k in KNOBS:
        assert k["help"] and set(k["defaults"]) == set(PRESETS)


def test_each_knobs_label_and_help_are_written_once_and_marked_for_translation():
    import ast
    import pathlib

    import games.engine.rules as rules_module

    tree = ast.parse(pathlib.Path(rules_module.__file__).read_text())
    specs = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Knob"]
    assert len(specs) == len(KNOBS)
    for call in specs:
        for text in call.args[2:4]:  # label, help: literal text inside gettext_noop(...), as makemessages reads it
            assert isinstance(text, ast.Call) and text.func.id == "gettext_noop"
            assert all(isinstance(part, ast.Constant) and part.value for part in text.args)
    assert all(k["label"] and k["label"] != k["help"] for k in KNOBS)


def test_preset_values_from_the_rules_files():
    th, sh, zj, bl = (PRESETS[k] for k in ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"))
    assert (th.max_cards, th.bet_seconds, th.act_seconds, th.max_main_seats, th.max_side_bettors) == (5, 15, 20, 4, 8)
    assert (sh.bet_seconds, sh.act_seconds, sh.max_main_seats, sh.side_bets_enabled, sh.bank_max_hands) == (
        18, 22, 6, False, 3)
    assert (zj.max_main_seats, zj.base_stake_rule, zj.base_stake_cap) == (4, "poorest-share", 800_000)
    assert (bl.min_bet, bl.max_bet, bl.max_main_seats, bl.banker_forced_draw) == (1, 500, 5, True)


def test_a_rules_change_applies_from_the_next_hand():
    from .helpers import Game

    g = Game()
    g.start()
    g.do("system", "set_rules", rules=rules_from("ten-half", {"base_stake": 20}).to_json())
    assert g.state.rules.base_stake == 10
    g.play_out()
    g.start(seed="55" * 32)
    assert g.state.rules.base_stake == 20


# Each refusal of the rules is a template marked for translation plus its parameters (numbers, codes, knob names):
# a page translates the template and fills it in (games/services/errors.py rules_refusal); `message` stays the English.
REFUSALS = [
    ("ten-half", {"base_stake": 0}, "base_stake", "must be at least %(min)s", {"min": 1}),
    ("ten-half", {"bet_seconds": 601}, "bet_seconds", "must be at most %(max)s", {"max": 600}),
    ("ten-half", {"base_stake": "ten"}, "base_stake", "must be a whole number", {}),
    ("ten-half", {"chip_values": [10, AMOUNT_MAX + 1]}, "chip_values", "must be at most %(max)s each",
     {"max": AMOUNT_MAX}),
    ("ten-half", {"payouts": {"nine-small": 2}}, "payouts", "%(cls)r is not a hand class of %(game)s",
     {"cls": "nine-small", "game": "ten-half"}),
    ("ten-half", {"payouts": {"ordinary": 101}}, "payouts", "the multiplier of %(cls)s must be at most %(max)s",
     {"cls": "ordinary", "max": 100}),
    ("ten-half", {"max_main_seats": 5}, "max_main_seats", "%(game)s seats %(low)s to %(high)s main players",
     {"game": "ten-half", "low": 2, "high": 4}),
    ("ten-half", {"min_bet": 30, "max_bet": 20}, "min_bet", "must not be above %(setting)s", {"setting": "max_bet"}),
    ("ten-half", {"max_cards": 6}, "max_cards", "%(game)s hands hold at most %(max)s cards",
     {"game": "ten-half", "max": 5}),
    ("ten-half", {"jackpot_enabled": True}, "jackpot_enabled", "the jackpot is a Seven and a Half rule", {}),
    ("zhejiang-ten-half", {"max_cards": 6}, "max_cards", "the %(mode)s mode holds at most %(max)s cards",
     {"mode": "classic", "max": 5}),
    ("seven-half", {"bank_turn_hands": 3}, "bank_turn_hands",
     "Seven and a Half passes the bank by its own limit: set %(setting)s", {"setting": "bank_max_hands"}),
    ("ban-luck", {"push_cap": 10}, "push_cap",
     "let it ride needs base stakes: Chinese Blackjack's stakes are free", {}),
]


@pytest.mark.parametrize(("slug", "overrides", "knob", "template", "params"), REFUSALS,
                         ids=[f"{s}:{k}" for s, _o, k, _t, _p in REFUSALS])
def test_a_refusal_is_a_template_and_its_parameters_and_the_english_message_is_them_filled_in(
        slug, overrides, knob, template, params):
    with pytest.raises(RulesError) as e:
        rules_from(slug, overrides)
    assert (e.value.knob, e.value.template, e.value.params) == (knob, template, params)
    assert e.value.message == f"{knob}: {template % params}"
    assert e.value.to_json() == {"code": "invalid_rules", "message": e.value.message, "knob": knob}


def test_a_refusal_keeps_its_english_message_as_before():
    with pytest.raises(RulesError) as e:
        rules_from("ten-half", {"payouts": {"nine-small": 2}})
    assert e.value.message == "payouts: 'nine-small' is not a hand class of ten-half"
    with pytest.raises(RulesError) as e:
        rules_from("poker")
    assert e.value.message.startswith("preset: unknown preset 'poker'; choose one of ten-half, seven-half")
    assert e.value.params["preset"] == "poker"
    plain = RulesError("rules", "must be an object")  # no parameters: the template is the text
    assert (plain.template, plain.params, plain.message) == ("must be an object", {}, "rules: must be an object")


def test_every_refusal_of_the_rules_is_a_literal_marked_for_translation():
    """makemessages reads gettext_noop("...") in games/engine/ (the engine imports no Django): every RulesError and
    every game's own setting (OwnSetting's why) gives its English as such a literal, its parameters apart."""
    import ast
    import pathlib

    import games.engine as engine
    from games.engine import errors, rules

    assert rules.gettext_noop is errors.gettext_noop  # one marker, importable by rules.py and the variants alike
    calls = []
    for path in pathlib.Path(engine.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text())
        calls += [(path.name, n) for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and getattr(n.func, "id", "") in ("RulesError", "OwnSetting") and path.name != "errors.py"]
    assert len(calls) > 30
    for name, call in calls:
        text = call.args[1]
        if isinstance(text, ast.Attribute) and text.attr == "why":
            continue  # validate() raises a game's own setting's why, marked where it is written
        assert isinstance(text, ast.Call) and getattr(text.func, "id", "") == "gettext_noop", (name, call.lineno)
        assert [type(a) for a in text.args] == [ast.Constant], (name, call.lineno)  # one literal, no f-string
