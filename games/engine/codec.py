"""The JSON codec behind the engine's deep copies of its state and its rules cache key.

The engine imports only the standard library, so the default is `json`. A process that runs many commands
installs a faster codec with the same results at start (`use`): the games app installs orjson
(games/apps.py, games/fields.py), since the standard library's dumps and loads were a tenth of a web
process's time (docs/performance.md, "orjson on the hot path").
"""

import json


def _std_copy(value):
    return json.loads(json.dumps(value))


def _std_key(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


_copy = _std_copy
_key = _std_key


def json_copy(value):
    """A deep copy of a JSON value, and proof that it is plain JSON (a set or an object fails here with a
    TypeError). Keys that are not text become text."""
    return _copy(value)


def json_key(value) -> bytes:
    """A canonical text of a JSON object (keys sorted), for a cache; a TypeError or ValueError for what is
    not plain JSON."""
    return _key(value)


def use(*, copy, key) -> None:
    """Install a codec: `copy` and `key` must give what `json_copy` and `json_key` give by default."""
    global _copy, _key
    _copy, _key = copy, key
