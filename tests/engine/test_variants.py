"""Each game carries its own differences (docs/engine.md, "Variants"): it declares its deck, seats and
payout classes, validates its own rule constraints, and the shared machine never asks which game it is."""

import ast
import pathlib

import pytest

from games.engine import KNOBS, PRESETS, VARIANTS, RulesError, rules_from
from games.engine.cards import DECKS
from games.engine.variants import Variant

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_each_game_declares_its_deck_seats_and_payout_classes(slug):
    v = VARIANTS[slug]
    declared = type(v).__dict__
    assert {"slug", "deck", "main_seats", "payout_classes"} <= set(declared)
    assert v.slug == slug and v.deck in DECKS
    lo, hi = v.main_seats
    assert 2 <= lo <= hi <= 8
    assert v.payout_classes and len(set(v.payout_classes)) == len(v.payout_classes)


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_the_preset_plays_the_games_deck_and_pays_its_classes(slug):
    r = PRESETS[slug]
    v = VARIANTS[r.game]
    assert r.deck == v.deck and list(r.payouts) == list(v.payout_classes)
    assert v.main_seats[0] <= r.max_main_seats <= v.main_seats[1]
    payouts = next(k for k in KNOBS if k["name"] == "payouts")
    assert payouts["classes"][slug] == list(v.payout_classes)


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_another_games_deck_or_too_many_seats_is_refused_with_the_games_own_figures(slug):
    v = VARIANTS[slug]
    other = next(d for d in DECKS if d != v.deck)
    with pytest.raises(RulesError) as e:
        rules_from(slug, {"deck": other})
    assert e.value.knob == "deck" and v.deck in e.value.message
    if v.main_seats[1] < 8:
        with pytest.raises(RulesError) as e:
            rules_from(slug, {"max_main_seats": v.main_seats[1] + 1})
        assert e.value.knob == "max_main_seats" and f"{v.main_seats[0]} to {v.main_seats[1]}" in e.value.message


def _on(setting):
    return setting.on if setting.on is not None else 16 if setting.knob == "challenger_min_stand" else True


@pytest.mark.parametrize("owner", sorted(VARIANTS))
def test_a_games_own_settings_are_refused_by_every_other_game_with_the_owners_reason(owner):
    assert VARIANTS[owner].own_settings, "each game has settings of its own"
    for setting in VARIANTS[owner].own_settings:
        for slug in VARIANTS:
            overrides = {setting.knob: _on(setting)}
            if slug == owner:
                assert setting.is_on(rules_from(slug, overrides))
                continue
            with pytest.raises(RulesError) as e:
                rules_from(slug, overrides)
            assert (e.value.knob, e.value.message) == (setting.knob, f"{setting.knob}: {setting.why}")


@pytest.mark.parametrize("slug,overrides,knob,message", [
    ("ten-half", {"max_cards": None}, "max_cards", "ten-half needs a card limit"),
    ("ten-half", {"max_cards": 6}, "max_cards", "ten-half hands hold at most 5 cards"),
    ("zhejiang-ten-half", {"max_cards": 9}, "max_cards", "the classic mode holds at most 5 cards"),
    ("zhejiang-ten-half", {"mode": "extended", "max_cards": 5}, "max_cards", "the extended mode holds at most 9 cards"),
    ("ban-luck", {"max_cards": 4}, "max_cards", "Chinese Blackjack's Five Dragon needs exactly 5 cards"),
    ("ban-luck", {"stake_third_of_stack": False}, "stake_third_of_stack", "Chinese Blackjack losses reach x3"),
])
def test_each_game_checks_its_own_constraints(slug, overrides, knob, message):
    with pytest.raises(RulesError) as e:
        rules_from(slug, overrides)
    assert e.value.knob == knob and message in e.value.message


def test_seven_and_a_half_plays_without_a_card_limit_and_zhejiangs_mode_sets_its_own():
    assert rules_from("seven-half", {"max_cards": None}).max_cards is None
    assert rules_from("seven-half", {"max_cards": 3}).max_cards == 3
    assert rules_from("zhejiang-ten-half", {"mode": "extended"}).max_cards == 9
    assert rules_from("ten-half", {"mode": "extended"}).max_cards == 5  # a knob another game ignores


def test_only_the_shoe_game_keeps_a_shoe_and_only_it_must_cover_the_table():
    assert [s for s, v in VARIANTS.items() if v.shoe] == ["seven-half"]
    assert [s for s, v in VARIANTS.items() if v.covers_table] == ["seven-half"]
    r = PRESETS["seven-half"]
    assert VARIANTS["seven-half"].smallest_bank(r, 3) == 2 * r.base_stake * 3
    assert Variant().smallest_bank(r, 3) == 1


def _is_game(node) -> bool:
    """``x.game``, ``game`` or ``x["game"]``."""
    return (isinstance(node, ast.Attribute) and node.attr == "game" or isinstance(node, ast.Name) and node.id == "game"
            or isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "game")


def _game_tests(path: pathlib.Path) -> list[str]:
    """The comparisons of a game name with a game's slug in one module, as file:line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            slugs = {c.value for x in sides for c in ast.walk(x) if isinstance(c, ast.Constant)}
            if any(_is_game(x) for x in sides) and slugs & set(VARIANTS):
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_shared_engine_never_asks_which_game_it_is():
    shared = list(ENGINE.glob("*.py"))
    assert shared and [line for p in shared for line in _game_tests(p)] == []
