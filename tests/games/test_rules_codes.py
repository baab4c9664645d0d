"""The rules code (games/rules_codes.py, docs/api.md "Rules codes"): every rule set a room may have comes back from its
code as it was, one rule set has one code, and each kind of bad code is refused with its own code: too long, not a
code, an unknown version, cut short, a failed check, an unknown game, an unknown setting, a value of the wrong type, a
value out of range, settings the engine refuses together."""

import base64
import hashlib
import json
import zlib

import pytest

from games import rules_codes
from games.engine import KNOBS, PRESETS, RulesError, rules_from
from games.rules_codes import MAX_CODE, decode, encode, rules_code
from games.services import GameError


def pack(text: bytes, *, version: int = 1, check: bytes | None = None) -> str:
    """A code of any text, made as the encoder makes one (the check right unless `check` is given)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, rules_codes._DICTIONARY_V1)
    packed = (check or hashlib.sha256(text).digest()[:3]) + packer.compress(text) + packer.flush()
    return f"h{version}." + base64.urlsafe_b64encode(packed).rstrip(b"=").decode()


def of(preset, changes: dict) -> str:
    """A code of `preset` with `changes`, whatever they are (the encoder's own format, the check right)."""
    return pack(json.dumps([preset, changes], separators=(",", ":"), sort_keys=True).encode())


def refusal(code) -> GameError:
    with pytest.raises(GameError) as caught:
        decode(code)
    return caught.value


def alternatives(knob: dict) -> list:
    """Values of a knob besides its defaults: its limits, each choice, on and off, empty where it may be."""
    kind = knob["type"]
    if kind in ("int", "int?"):
        low = knob.get("min", 1)
        values = [low, knob.get("max", low * 1000), (low + knob.get("max", low * 1000)) // 2]
        return values + [None] if kind == "int?" else values
    if kind == "bool":
        return [True, False]
    if kind == "bool?":
        return [None, True, False]
    if kind == "choice":
        return list(knob["choices"])
    if kind == "int-list":
        return [[5, 25, 125], [1]]
    return []


def accepted(preset: str, changes: dict) -> dict | None:
    try:
        return rules_from(preset, changes).to_json()
    except RulesError:
        return None


def test_every_preset_as_it_is_makes_a_short_code_that_opens_the_preset():
    for preset, rules in PRESETS.items():
        code = rules_code(preset, rules.to_json())
        assert code.startswith("h1.") and len(code) < 24, code
        found = decode(code)
        assert (found.preset, found.overrides, found.rules) == (preset, {}, rules.to_json())


def test_every_setting_a_room_may_change_comes_back_from_its_code_as_it_was():
    tried = 0
    for preset in PRESETS:
        classes = list(PRESETS[preset].payouts)
        for knob in KNOBS:
            values = alternatives(knob)
            if knob["type"] == "payouts":
                values = [{cls: 7} for cls in classes]
            for value in values:
                rules = accepted(preset, {knob["name"]: value})
                if rules is None:
                    continue
                code = rules_code(preset, rules)
                found = decode(code)
                assert found.rules == rules, (preset, knob["name"], value)
                assert found.preset == preset
                assert rules_code(preset, found.rules) == code  # one rule set, one code
                tried += 1
    assert tried > 300


def test_a_code_carries_only_the_settings_that_differ_from_the_preset():
    rules = rules_from("ten-half", {"base_stake": 20, "bank_turn_hands": 5, "payouts": {"five-dragons": 3}}).to_json()
    code = rules_code("ten-half", rules)
    assert decode(code).overrides == {"base_stake": 20, "bank_turn_hands": 5, "payouts": {"five-dragons": 3}}
    assert len(code) < 50, code
    # A value set to the preset's own is no change: the same code as without it.
    assert rules_code("ten-half", rules_from("ten-half", {"base_stake": 20, "bank_turn_hands": 5, "max_cards": 5,
                                                           "payouts": {"five-dragons": 3}}).to_json()) == code


def test_the_largest_rule_set_still_fits_in_a_code():
    for preset in PRESETS:
        changes: dict = {}
        for knob in KNOBS:
            for value in reversed(alternatives(knob)):
                if value != PRESETS[preset].to_json()[knob["name"]] and accepted(preset, {**changes, knob["name"]: value}):
                    changes[knob["name"]] = value
                    break
        changes["payouts"] = {cls: 9 for cls in PRESETS[preset].payouts}
        rules = rules_from(preset, changes).to_json()
        code = rules_code(preset, rules)
        assert code is not None and len(code) < MAX_CODE // 2, (preset, len(code or ""))
        assert decode(code).rules == rules


def test_a_rule_set_too_big_for_a_code_makes_none_rather_than_one_that_would_be_refused():
    for chips in ([i * 7919 % 99991 + 1 for i in range(600)], list(range(1, 5000))):  # too long packed; unpacked
        assert rules_code("ten-half", rules_from("ten-half", {"chip_values": chips}).to_json()) is None


def test_the_dictionary_of_version_1_never_changes():
    # Every code of version 1 is unpacked with these bytes: other words need a new version.
    assert hashlib.sha256(rules_codes._DICTIONARY_V1).hexdigest()[:16] == "91de0c0a2f65ce2d"


# --- Refusals, each with its own code --------------------------------------------------------------------------

GOOD = of("ten-half", {"base_stake": 20})


def test_a_code_too_long_is_refused_before_it_is_read():
    assert refusal("h1." + "A" * MAX_CODE).code == "code_too_long"
    assert refusal(GOOD + "A" * MAX_CODE).code == "code_too_long"


def test_a_small_code_that_unpacks_to_more_than_a_rule_set_is_refused():
    bomb = of("ten-half", {"x": "y" * 50_000})
    assert len(bomb) < MAX_CODE
    assert refusal(bomb).code == "code_too_long"


@pytest.mark.parametrize("text", [
    "", "hello", "h1", "1.abc", "H1." + GOOD[3:], "h1-" + GOOD[3:], "h1." + GOOD[3:] + "=", "h1.ab$cd",
    "h1." + GOOD[3:] + " ", "h1.ab/cd", "h.abcd", "hx." + GOOD[3:], " " + GOOD, "h01." + GOOD[3:], "h+1." + GOOD[3:],
])
def test_text_that_is_not_a_code_is_refused_as_garbled(text):
    assert refusal(text).code == "code_garbled"


def test_a_code_of_anything_but_text_is_refused():
    for value in (None, 12, ["h1.abc"], b"h1.abc"):
        assert refusal(value).code == "code_garbled"


def test_bytes_that_are_not_a_compressed_text_are_refused_as_garbled():
    not_deflate = "h1." + base64.urlsafe_b64encode(b"\x00\x01\x02" + b"\xff" * 12).rstrip(b"=").decode()
    assert refusal(not_deflate).code == "code_garbled"
    trailing = "h1." + base64.urlsafe_b64encode(base64.urlsafe_b64decode(GOOD[3:] + "==") + b"more").rstrip(b"=").decode()
    assert refusal(trailing).code == "code_garbled"


@pytest.mark.parametrize("text", [b"", b"{}", b'"ten-half"', b'["ten-half"]', b'["ten-half",{},1]', b'[1,{}]',
                                  b'["ten-half",[]]', b'["ten-half",{"base_stake":NaN}]', b"[\"ten-half\",{",
                                  b'["ten-half",{"base_stake":Infinity}]', "[\"十点半\",{}".encode(), b"\xff\xfe",
                                  b"[" * 2000 + b"]" * 2000, b'["ten-half",' + b"[" * 1900 + b"]" * 1900 + b"]"])
def test_a_checked_text_that_is_not_a_game_and_its_changes_is_refused_as_garbled(text):
    assert refusal(pack(text)).code == "code_garbled"


@pytest.mark.parametrize("version", [0, 2, 9, 10, 1000])
def test_a_version_this_site_does_not_read_is_refused_as_such(version):
    found = refusal(pack(json.dumps(["ten-half", {}]).encode(), version=version))
    assert found.code == "code_version"


def test_a_code_cut_short_anywhere_is_refused_as_cut_short():
    code = rules_code("ban-luck", rules_from("ban-luck", {"banker_opens": True, "free_hand": True, "max_bet": 300,
                                                          "chip_values": [5, 20, 100]}).to_json())
    for end in range(len("h1."), len(code)):
        assert refusal(code[:end]).code == "code_truncated", end


def test_a_code_whose_check_does_not_match_is_refused_as_such():
    text = json.dumps(["ten-half", {"base_stake": 20}], separators=(",", ":")).encode()
    assert refusal(pack(text, check=b"\x00\x00\x00")).code == "code_checksum"
    # A changed character is refused, mostly by the check; the only ones that open change nothing the text is made
    # of (the bits after the end of the compressed stream), and open the same rules.
    changed = []
    for at in range(3, len(GOOD)):
        for c in "AQgw_":
            text = GOOD[:at] + c + GOOD[at + 1:]
            if text != GOOD:
                try:
                    assert decode(text) == decode(GOOD)
                    changed.append("the same rules")
                except GameError as e:
                    changed.append(e.code)
    assert set(changed) <= {"code_checksum", "code_garbled", "code_truncated", "the same rules"}
    assert changed.count("code_checksum") > len(changed) / 2


def test_a_game_this_site_does_not_have_is_refused():
    for preset in ("poker", "Ten-Half", "", "ten_half"):
        found = refusal(of(preset, {}))
        assert (found.code, found.field) == ("unknown_preset", "preset")


@pytest.mark.parametrize("changes, field", [
    ({"jokers_wild": True}, "jokers_wild"), ({"Base_stake": 20}, "Base_stake"), ({"": 1}, ""),
    ({"payouts": {"royal-flush": 2}}, "payouts"), ({"payouts": {"natural": 2}}, "payouts"),  # Seven and a Half's class
])
def test_a_setting_this_site_does_not_know_is_refused(changes, field):
    found = refusal(of("ten-half", changes))
    assert (found.code, found.field) == ("unknown_knob", field)


@pytest.mark.parametrize("changes", [
    {"base_stake": "20"}, {"base_stake": True}, {"base_stake": 2.5}, {"base_stake": None}, {"base_stake": [20]},
    {"max_cards": "none"}, {"side_bets_enabled": 1}, {"side_bets_enabled": "true"}, {"double_down": 0},
    {"order_policy": 1}, {"order_policy": None}, {"chip_values": "10,50"}, {"chip_values": [10, "50"]},
    {"chip_values": [10, True]}, {"chip_values": {"a": 1}}, {"payouts": {"five-dragons": "2"}}, {"payouts": [2]},
    {"payouts": {"five-dragons": 2.0}},
])
def test_a_value_of_the_wrong_type_is_refused(changes):
    found = refusal(of("ten-half", changes))
    assert (found.code, found.field) == ("bad_value_type", next(iter(changes)))


@pytest.mark.parametrize("changes", [
    {"base_stake": 0}, {"base_stake": -10}, {"base_stake": 10_000_001}, {"bet_seconds": 601}, {"bet_seconds": 2},
    {"max_cards": 1}, {"max_main_seats": 9}, {"order_policy": "random"}, {"deck": "tarot-78"}, {"chip_values": []},
    {"chip_values": [0, 10]}, {"payouts": {"five-dragons": 0}}, {"bank_turn_hands": 21}, {"auction_max": 5},
    {"chip_values": [10, 2**31]}, {"payouts": {"five-dragons": 101}}, {"max_bet": 2**64}, {"bank_max_hands": 1001},
])
def test_a_value_out_of_its_range_is_refused(changes):
    found = refusal(of("ten-half", changes))
    assert (found.code, found.field) == ("value_out_of_range", next(iter(changes)))


@pytest.mark.parametrize("preset, changes, field", [
    ("ten-half", {"matta": "king-of-coins"}, "matta"),  # Seven and a Half's own setting
    ("ten-half", {"game": "seven-half"}, "game"),  # the preset decides the game
    ("ten-half", {"deck": "spanish-40"}, "deck"),
    ("ten-half", {"first_banker": "draw"}, "first_banker"),  # a drawn banker opens with the whole stack
    ("ten-half", {"max_bet": 5}, "max_bet"),  # below the base stake
    ("ten-half", {"push_cap": 7}, "push_cap"),
    ("ten-half", {"side_bets_enabled": True, "max_side_bettors": 0}, "max_side_bettors"),
    ("seven-half", {"bank_max_hands": None}, "bank_max_hands"),  # its banker policy needs one
])
def test_settings_the_engine_refuses_together_are_refused(preset, changes, field):
    found = refusal(of(preset, changes))
    assert (found.code, found.field) == ("rules_refused", field)


def test_every_refusal_is_one_of_the_documented_codes_and_says_it_in_words():
    refused = [refusal(c) for c in ("h1." + "A" * MAX_CODE, "x", pack(b"[]", version=2), GOOD[:-2],
                                    pack(b'["ten-half",{}]', check=b"abc"), of("poker", {}), of("ten-half", {"x": 1}),
                                    of("ten-half", {"base_stake": "1"}), of("ten-half", {"base_stake": 0}),
                                    of("ten-half", {"matta": "king-of-coins"}))]
    assert [e.code for e in refused] == list(rules_codes.REFUSALS)
    assert len({e.message for e in refused}) == len(refused)  # each its own sentence


def test_the_encoder_and_the_decoder_agree_on_the_format():
    assert encode("ten-half", {"base_stake": 20}) == GOOD
    assert decode(GOOD).overrides == {"base_stake": 20}
