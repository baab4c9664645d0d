"""What a service answers: `GameError` when it refuses, `Result` when a command was applied.

The bottom layer of games/services: it imports nothing of the package.
"""

from dataclasses import dataclass

from django.utils.formats import localize
from django.utils.translation import gettext as _

from games.engine.errors import RulesError


class GameError(Exception):
    """A refused command: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = str(message)
        self.field = field  # the rule setting at fault, for a form to show the message on its field


def rules_refusal(e: RulesError) -> str:
    """The engine's refusal of a rule set in the reader's language, without the knob: its English template (marked
    with gettext_noop in games/engine/) translated, then filled with its parameters: the numbers written as the
    reader's language writes them (2,147,483,647 · 2.147.483.647), the codes and knob names as they are."""
    params = {k: localize(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in e.params.items()}
    return _(e.template) % params


def rules_refused(e: RulesError, *, on_field: bool = True) -> GameError:
    """A service's refusal of the rules the engine refused: `invalid_rules`, "knob: why" in the reader's language,
    on the knob's field unless `on_field` is false."""
    return GameError(e.code, f"{e.knob}: {rules_refusal(e)}", field=e.knob if on_field else None)


@dataclass
class Result:
    version: int
    duplicate: bool = False
