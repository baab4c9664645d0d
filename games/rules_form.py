"""A room's rule settings as a form generated from the engine's knobs (games/engine/rules.py, KNOBS).

One typed field per knob, labelled and explained by the engine's texts (translated here), the
preset's default in the help text, and validation by the engine itself (`rules_from`): a RulesError
lands on the field of the knob it names, with the engine's message in the reader's language
(games/services/errors.py, `rules_refusal`). Used by the admin (a room's rules, house variants) and by the lobby's create-room form. The result is the
overrides against the preset: only what differs from it.
"""

from django import forms
from django.utils.translation import gettext as _

from games.engine import KNOBS, PRESETS, RulesError, rules_from
from games.pages import class_label, show_value
from games.services.errors import rules_refusal

FIXED = {"game", "deck"}  # decided by the preset: a room cannot change its game or its deck
# A house rule's settings (house-rules.md) and the knob that turns it on: while that knob is off they do nothing, so
# a form that posts them (an unticked box posts false) changes nothing: the room keeps the preset's values.
DEPENDS_ON = {"banker_open_from": "banker_opens", "matta_natural": "matta", "auction_max": "bank_auction",
              "auction_sees_first_card": "bank_auction"}
PAYOUT_PREFIX = "payouts__"


class ChipValuesField(forms.CharField):
    """The chip buttons as "10, 50, 100"."""

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        try:
            chips = [int(part) for part in value.replace(" ", "").split(",") if part]
        except ValueError:
            raise forms.ValidationError(_("Write whole numbers separated by commas, e.g. 10, 50, 100.")) from None
        return chips

    def prepare_value(self, value):
        if isinstance(value, (list, tuple)):
            return ", ".join(map(str, value))
        return value


class RulesForm(forms.Form):
    """`RulesForm(preset, data, initial_rules=...)`; after is_valid(): `overrides` and `rules`."""

    def __init__(self, preset: str, data=None, *, initial_rules: dict | None = None, prefix=None):
        super().__init__(data, prefix=prefix)
        self.preset = preset
        defaults = PRESETS[preset].to_json()
        current = {**defaults, **(initial_rules or {})}
        game = defaults["game"]
        for knob in KNOBS:
            name = knob["name"]
            if name in FIXED:
                continue
            default = knob["defaults"][preset]
            help_text = f"{_(knob['help'])} " + _("Preset: %(value)s.") % {"value": show_value(default)}
            kind = knob["type"]
            if kind == "payouts":
                for cls in knob["classes"][preset]:
                    self.fields[PAYOUT_PREFIX + cls] = forms.IntegerField(
                        label=_("Pays ×N for %(cls)s") % {"cls": class_label(cls)}, initial=current["payouts"].get(cls, 1),
                        help_text=_("Preset: %(value)s.") % {"value": show_value(defaults["payouts"].get(cls, 1))})
                continue
            label = _(knob["label"])
            if kind in ("int", "int?"):
                # No min/max here: the engine judges every value, so the message is the engine's.
                field = forms.IntegerField(label=label, required=kind == "int", help_text=help_text)
            elif kind == "bool":
                field = forms.BooleanField(label=label, required=False, help_text=help_text)
            elif kind == "bool?":
                field = forms.NullBooleanField(label=label, required=False, help_text=help_text,
                                               widget=forms.Select(choices=[("unknown", _("as house rules")),
                                                                            ("true", _("on")), ("false", _("off"))]))
            elif kind == "choice":
                field = forms.ChoiceField(label=label, choices=[(c, c) for c in knob["choices"]], help_text=help_text)
            elif kind == "int-list":
                field = ChipValuesField(label=label, help_text=help_text)
            else:  # a knob type this form does not know yet must not be silently dropped
                raise ValueError(f"unknown knob type {kind!r}")
            field.initial = current[name]
            self.fields[name] = field
        self.game = game
        self.overrides: dict = {}  # after is_valid(): what differs from the preset
        self.attempted: dict = {}  # what clean() asked the engine to accept (valid or not)
        self.rules = None

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        defaults = PRESETS[self.preset].to_json()
        overrides = {}
        payouts = {}
        kinds = {k["name"]: k["type"] for k in KNOBS}
        for name, value in data.items():
            if name.startswith(PAYOUT_PREFIX):
                payouts[name[len(PAYOUT_PREFIX):]] = value
            elif value is None and kinds.get(name) == "int":
                continue  # a field a form lets be empty where the knob cannot be: the preset's value
            elif value != defaults.get(name):
                overrides[name] = value
        if payouts and payouts != defaults["payouts"]:
            overrides["payouts"] = payouts
        for name, master in DEPENDS_ON.items():
            if overrides.get(master, defaults[master]) in (False, "off"):
                overrides.pop(name, None)
        self.attempted = overrides
        try:
            self.rules = rules_from(self.preset, overrides)
        except RulesError as e:
            field = e.knob if e.knob in self.fields else None
            if e.knob == "payouts":  # the hand class's own field when the refusal names one
                named = PAYOUT_PREFIX + str(e.params.get("cls"))
                field = named if named in self.fields else next(
                    (f for f in self.fields if f.startswith(PAYOUT_PREFIX)), None)
            self.add_error(field, rules_refusal(e))
            return data
        self.overrides = overrides
        return data
