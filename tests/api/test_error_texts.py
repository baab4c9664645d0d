"""static/js/errors.js has the player's words for every refusal docs/protocol.md ("Errors", "By message") says a message
may get, the house rules' included (house-rules.md): no refusal reaches a player as "Refused (code)"."""

import re
from pathlib import Path

import pytest

from tests.api.test_protocol_errors import documented

pytestmark = pytest.mark.django_db  # tests/api/conftest.py clears the cache, kept in the database

ERRORS_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "errors.js"
ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"

# The refusals the house rules added to the engine (the banker's opens, the free hand, the bank auction, let it ride).
HOUSE_CODES = {"must_hit_below_open_from", "bad_seat", "not_openable", "free_hand_off", "not_a_free_hand",
               "escape_too_late", "not_bidding", "already_bid", "bid_too_high", "stake_above_cover", "above_ride_cap",
               "bank_auction"}


def worded() -> set[str]:
    js = ERRORS_JS.read_text()
    return set(re.findall(r"^\s+(\w+): gettext\(", js, re.M)) | set(re.findall(r'code === "(\w+)"', js))


def test_every_refusal_the_protocol_lists_has_words_in_errors_js():
    common, rows = documented()
    codes = common.union(*rows.values()) - {"seed"}  # `seed`: an argument the intro names, not a code
    assert not codes - worded(), sorted(codes - worded())


def test_the_house_rules_refusals_are_raised_documented_and_worded():
    raised = set()
    for path in ENGINE.rglob("*.py"):
        raised |= set(re.findall(r'EngineError\(\s*"(\w+)"', path.read_text()))
    assert HOUSE_CODES <= raised, HOUSE_CODES - raised
    _common, rows = documented()
    listed = set().union(*rows.values())
    assert HOUSE_CODES <= listed, HOUSE_CODES - listed
    assert HOUSE_CODES <= worded(), HOUSE_CODES - worded()
    for action in ("open", "escape", "bid"):
        assert action in rows, action
