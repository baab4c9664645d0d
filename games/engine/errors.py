"""Typed errors of the engine: a stable snake_case ``code`` for programs, a sentence for people."""


def gettext_noop(text: str) -> str:
    """Marks an English text for translation where it is written (Django's makemessages looks for this name): a
    knob's label and help (games/engine/rules.py), a refusal of the rules (``RulesError``, the variants' ``why``).
    The engine stays free of Django, so the text itself is returned; the pages translate it when they show it
    (games/pages.py, games/services/errors.py)."""
    return text


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
    """An incoherent rule set; ``knob`` names the setting at fault. ``template`` is the refusal in English, marked
    with ``gettext_noop`` so that a page can translate it, and ``params`` fills its ``%(name)s`` placeholders
    (numbers, codes and knob names: data, never words to translate). ``message`` is the English sentence,
    "knob: template % params"."""

    def __init__(self, knob: str, template: str, params: dict | None = None):
        self.template = template
        self.params = dict(params or {})
        super().__init__("invalid_rules", f"{knob}: {template % self.params}")
        self.knob = knob

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "knob": self.knob}
