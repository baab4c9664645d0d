"""What a service answers: `GameError` when it refuses, `Result` when a command was applied.

The bottom layer of games/services: it imports nothing of the package.
"""

from dataclasses import dataclass


class GameError(Exception):
    """A refused command: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = str(message)
        self.field = field  # the rule setting at fault, for a form to show the message on its field


@dataclass
class Result:
    version: int
    duplicate: bool = False
