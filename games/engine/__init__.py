"""HalfPoint's rules engine: pure, deterministic, no I/O (docs/engine.md, docs/rules.md).

``apply(state, command) -> (state, events)`` is the whole machine; ``view(state, viewer)`` is the only
thing that may leave toward a player. Time (``Command.now``) and randomness (the server's seed through
``commit_seed`` or ``start_hand``, the players' through ``seed``) come in as arguments.
"""

from .bots import bot_decide
from .errors import EngineError, RulesError
from .machine import Command, apply, apply_in_place, new_table
from .rules import KNOBS, PRESETS, Rules, knobs, rules_from
from .shuffle import commitment, shuffle, verify
from .state import TableState, state_from_json, state_to_json
from .variants import VARIANTS, find_variant
from .view import legal_actions, redact_event, shared_view, view

__all__ = [
    "KNOBS", "PRESETS", "VARIANTS", "Command", "EngineError", "Rules", "RulesError", "TableState", "apply",
    "apply_in_place", "bot_decide", "commitment", "find_variant", "knobs", "legal_actions", "new_table",
    "redact_event", "rules_from", "shared_view", "shuffle", "state_from_json", "state_to_json", "verify", "view",
]
