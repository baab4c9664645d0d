"""House rules to share: a rule set as a short code (docs/api.md, "Rules codes").

A code names a preset and the settings that differ from it, and nothing else: not the room's chips, buy-in limits or
players, which belong to the room the reader makes (they choose them on the code's page). It needs no database, so it
never expires and anyone can check it. Version 1:

    h1.<base64url, no padding: 3 check bytes + the raw DEFLATE of the JSON text>

The JSON text is `["<preset>", {<knob>: <value>, ...}]` with keys sorted and no spaces, so one rule set has one code.
It is compressed with a preset dictionary (`_DICTIONARY_V1`, the knobs' names and values): a code of a few changes is
about 40 characters. The check bytes are the first three of the text's SHA-256: a code copied wrong is refused as such
instead of opening other rules. A code plays the preset as this site has it when it is opened.

`decode` refuses with a `GameError` whose code says what is wrong (`REFUSALS`), checked in this order: too long, not a
code, a version this site does not read, cut short, not the text it was made from (the check), then the rules: an
unknown preset, an unknown setting, a value of the wrong type, a value out of its range, settings the engine refuses
together. A refusal makes nothing.
"""

import base64
import binascii
import hashlib
import json
import re
import zlib
from typing import NamedTuple

from django.utils.translation import gettext as _

from games.engine import KNOBS, PRESETS, RulesError, find_variant, rules_from
from games.pages import knob_label
from games.services import GameError

VERSION = 1
MAX_CODE = 1000  # characters: a rule set with every setting changed makes about 600
MAX_TEXT = 4096  # bytes of JSON a code may unpack to (a small code must not unpack to megabytes)
CHECK_BYTES = 3
REFUSALS = ("code_too_long", "code_garbled", "code_version", "code_truncated", "code_checksum", "unknown_preset",
            "unknown_knob", "bad_value_type", "value_out_of_range", "rules_refused")

# Version 1's compression dictionary: the words a code's text is made of. Decoding a version-1 code needs exactly these
# bytes, so they never change (tests/games/test_rules_codes.py holds their hash); other words go a new version.
_DICTIONARY_V1 = (
    b'"french-52""french-54""spanish-40""keep""max-hands""step-down""dice""seat""fixed""poorest-share"'
    b'"banker-sixtieth""host""first-seated""draw""choose""whole-stack""clockwise""counter-clockwise""classic"'
    b'"extended""off""king-of-coins""ordinary""ten-and-a-half""five-dragons""natural""five-small""five-pictures"'
    b'"heavenly-king""six-small""seven-small""eight-small""nine-small""grand-heavenly-king""five-dragon""ban-ban"'
    b'"five-card-bust""game":"deck":"max_cards":"chip_values":"bank_seconds":"max_main_seats":"max_side_bettors":'
    b'"side_bets_enabled":"banker_policy":"order_policy":"bet_multiple":"min_bet":"max_bet":"stake_third_of_stack":'
    b'"fixed_stake":"base_stake_rule":"base_stake_cap":"first_banker":"host_banks":"bank_open":"rotation":'
    b'"retire_needs_profit":"bank_max_hands":"bank_min_cover":"take_bank_on_target":"banker_forced_draw":'
    b'"banker_stand_on":"mode":"double_once":"escape_penalty":"banker_multiplies":"challenger_min_stand":'
    b'"jackpot_enabled":"house_rules":"double_down":"split":"four_discard":"secret_pair":"mort":"banker_opens":'
    b'"banker_open_from":"free_hand":"matta":"matta_natural":"bank_auction":"auction_max":"auction_sees_first_card":'
    b'"push_cap":"payouts":{"bet_seconds":"act_seconds":"bank_turn_hands":"base_stake":null,false,true,'
    b'["ten-half-auction",{"seven-half-matta",{"ban-luck-opens",{"zhejiang-ten-half",{"ban-luck",{'
    b'"seven-half",{"ten-half",{'
)
_PREFIX = re.compile(r"h(0|[1-9]\d{0,3})\.")  # one way to write each version: no leading zero
_PAYLOAD = re.compile(r"[A-Za-z0-9_-]*")
_KNOBS = {k["name"]: k for k in KNOBS}


class Decoded(NamedTuple):
    preset: str
    overrides: dict  # the settings that differ from the preset's, as the code carries them
    rules: dict  # the whole rule set, as a room made from the code plays it (engine Rules JSON)


def _text(preset: str, overrides: dict) -> bytes:
    return json.dumps([preset, overrides], separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def _check(text: bytes) -> bytes:
    return hashlib.sha256(text).digest()[:CHECK_BYTES]


def changes(preset: str, rules: dict) -> dict:
    """The settings of `rules` that differ from the preset's (the hand classes of payouts one by one)."""
    base = PRESETS[preset].to_json()
    out = {}
    for name in base:  # the rule settings only: a page's context may add keys of its own
        value = rules.get(name, base[name])
        if name == "payouts":
            paid = {cls: mult for cls, mult in (value or {}).items() if base["payouts"].get(cls, 1) != mult}
            if paid:
                out["payouts"] = paid
        elif base.get(name) != (list(value) if isinstance(value, tuple) else value):
            out[name] = value
    return out


def encode(preset: str, overrides: dict) -> str:
    """The code of `preset` with `overrides` (already valid rules: `rules_code`)."""
    text = _text(preset, overrides)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, _DICTIONARY_V1)
    packed = _check(text) + packer.compress(text) + packer.flush()
    return f"h{VERSION}." + base64.urlsafe_b64encode(packed).rstrip(b"=").decode()


def rules_code(preset: str, rules: dict) -> str | None:
    """The code of a room's (or a preset's) rule set `rules`, or None for a rule set too big for a code (a list of
    hundreds of chip buttons): nothing is shared then rather than a code that would be refused."""
    overrides = changes(preset, rules)
    if len(_text(preset, overrides)) > MAX_TEXT:
        return None
    code = encode(preset, overrides)
    return code if len(code) <= MAX_CODE else None


def _refuse(code: str, message, field: str | None = None):
    raise GameError(code, message, field=field)


def _garbled(*_args):
    _refuse("code_garbled", _("This is not a rules code: check that it was copied whole."))


def _unpack(code: str) -> tuple[str, dict]:
    if not isinstance(code, str):
        _garbled()
    if len(code) > MAX_CODE:
        _refuse("code_too_long", _("This rules code is too long to be one of ours."))
    prefix = _PREFIX.match(code)
    if prefix is None or not _PAYLOAD.fullmatch(code, prefix.end()):
        _garbled()
    if int(prefix.group(1)) != VERSION:
        _refuse("code_version", _("This rules code is of a version this site does not read."))
    payload = code[prefix.end():]
    if len(payload) % 4 == 1:  # base64 never ends with one lone character: the rest was cut off
        _refuse("code_truncated", _("This rules code is cut short: check that it was copied whole."))
    try:
        packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        _garbled()
    if len(packed) <= CHECK_BYTES:
        _refuse("code_truncated", _("This rules code is cut short: check that it was copied whole."))
    unpacker = zlib.decompressobj(-15, _DICTIONARY_V1)
    try:
        text = unpacker.decompress(packed[CHECK_BYTES:], MAX_TEXT + 1)
    except zlib.error:
        _garbled()
    if len(text) > MAX_TEXT or unpacker.unconsumed_tail:
        _refuse("code_too_long", _("This rules code is too long to be one of ours."))
    if not unpacker.eof:
        _refuse("code_truncated", _("This rules code is cut short: check that it was copied whole."))
    if unpacker.unused_data or base64.urlsafe_b64encode(packed).rstrip(b"=").decode() != payload:
        _garbled()  # more after the end, or the last character's unused bits set: one rule set has one code
    if _check(text) != packed[:CHECK_BYTES]:
        _refuse("code_checksum", _("This rules code does not match its check: a character was changed on the way."))
    try:
        data = json.loads(text, parse_constant=_garbled)  # NaN, Infinity: not JSON
        # A lone surrogate ("\ud800") is JSON but not text: no page, refusal or database could show or store it.
        json.dumps(data, ensure_ascii=False).encode()
    except (ValueError, RecursionError):  # Unicode errors too; RecursionError: arrays in arrays 4,000 deep
        data = None
    if not (isinstance(data, list) and len(data) == 2 and isinstance(data[0], str) and isinstance(data[1], dict)):
        _garbled()
    return data[0], data[1]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_TYPES = {
    "int": _is_int, "int?": lambda v: v is None or _is_int(v), "bool": lambda v: isinstance(v, bool),
    "bool?": lambda v: v is None or isinstance(v, bool), "choice": lambda v: isinstance(v, str),
    "int-list": lambda v: isinstance(v, list) and all(_is_int(x) for x in v),
    "payouts": lambda v: isinstance(v, dict) and all(_is_int(x) for x in v.values()),
}


def _in_range(knob: dict, value) -> bool:
    """The value's own limits, as the engine's (games/engine/rules.py `validate`) judges each knob alone."""
    kind = knob["type"]
    if kind in ("int", "int?"):
        return value is None or (knob.get("min", value) <= value <= knob.get("max", value))
    if kind == "choice":
        return value in knob["choices"]
    if kind == "int-list":
        return bool(value) and all(knob.get("min", 1) <= x <= knob.get("max", x) for x in value)
    if kind == "payouts":
        return all(1 <= x <= knob.get("max", x) for x in value.values())
    return True


def _value(value) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]


def decode(code: str) -> Decoded:
    """The rules a code carries, checked as a room's would be; `GameError` (one of `REFUSALS`) when refused."""
    preset, overrides = _unpack(code)
    if preset not in PRESETS:
        _refuse("unknown_preset", _("This rules code names a game this site does not have: %(preset)s.")
                % {"preset": preset[:40]}, "preset")
    classes = find_variant(PRESETS[preset].game).payout_classes
    for name, value in sorted(overrides.items()):
        knob = _KNOBS.get(name)
        unknown = [cls for cls in value if cls not in classes] if knob and knob["type"] == "payouts" \
            and isinstance(value, dict) else []
        if knob is None or unknown:
            _refuse("unknown_knob", _("This rules code has a setting this site does not know: %(name)s.")
                    % {"name": (name if knob is None else f"{name}.{unknown[0]}")[:60]}, name)
        if not _TYPES[knob["type"]](value):
            _refuse("bad_value_type", _("%(setting)s: %(value)s is not the kind of value this setting takes.")
                    % {"setting": knob_label(name), "value": _value(value)}, name)
        if not _in_range(knob, value):
            _refuse("value_out_of_range", _("%(setting)s cannot be %(value)s.")
                    % {"setting": knob_label(name), "value": _value(value)}, name)
    try:
        rules = rules_from(preset, overrides)
    except RulesError as e:
        field = e.knob if e.knob in _KNOBS else None
        setting = knob_label(field) if field else e.knob
        _refuse("rules_refused", _("The game does not allow these settings together: see %(setting)s.")
                % {"setting": setting}, field)
    return Decoded(preset, overrides, rules.to_json())
