"""The engine's JSON codec: the standard library by default, orjson once the games app is ready
(games/engine/codec.py). Both must give the same copies, so a state means the same thing in every process."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import fields
from games.engine import codec

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_orjson_copies_and_keys_equal_the_standard_librarys(value):
    assert fields.json_copy(value) == codec._std_copy(value) == value
    if isinstance(value, dict):
        assert json.loads(fields.json_key(value)) == json.loads(codec._std_key(value))


def test_the_games_app_installs_orjson_and_the_copy_refuses_what_is_not_json():
    assert codec._copy is fields.json_copy
    with pytest.raises(TypeError):
        codec.json_copy({"seats": {1, 2}})
    with pytest.raises(TypeError):
        codec._std_copy({"seats": {1, 2}})


def test_integer_keys_become_text_with_either_codec():
    assert fields.json_copy({1: "a"}) == codec._std_copy({1: "a"}) == {"1": "a"}
