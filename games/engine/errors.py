"""Typed errors of the engine: a stable snake_case ``code`` for programs, a sentence for people."""


class EngineError(Exception):
    """A command or a rule set the engine refuses. The input state is never changed."""

    code = "engine_error"

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class RulesError(EngineError):
    """An incoherent rule set; ``knob`` names the setting at fault."""

    def __init__(self, knob: str, message: str):
        super().__init__("invalid_rules", f"{knob}: {message}")
        self.knob = knob

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "knob": self.knob}
