"""The lobby's forms: create a room (the room form plus one knob form per game), join by code,
practise with bots. The rule set is validated by the engine as a whole (games/rules_form.py), and
its error lands on the field of the knob it names."""

from django import forms
from django.utils.translation import gettext_lazy as _

from games.engine import PRESETS, RulesError, rules_from
from games.game_order import games_in_order, lead_game
from games.models import PRESET_CHOICES, HouseVariant, Room
from games.pages import (
    CHOICE_TEXT,
    CREATE_FORM_INITIAL,
    CREATE_FORM_OPTIONAL,
    KNOB_BY_NAME,
    MAIN_KNOBS,
    class_label,
    knob_help,
    knob_label,
    show_value,
)
from games.rules_form import PAYOUT_PREFIX, RulesForm
from wallets.models import Currency

BOT_LEVELS = [("basic", _("basic")), ("expert", _("expert"))]
# The house rules' settings that take a few values (games/engine/rules.py KNOB_SPECS, validate), as menus.
SMALL_CHOICES = {
    "banker_open_from": lambda: [(n, str(n)) for n in (15, 16, 17)],
    "auction_max": lambda: [(n, f"×{n}") for n in (1, 2, 3, 4)],
    "push_cap": lambda: [(0, show_value(False))] + [(n, f"×{n}") for n in (5, 10, 20)],
}


class RoomForm(forms.Form):
    preset = forms.ChoiceField(label=_("Game"), choices=games_in_order, initial=lead_game)  # the reader's game first
    kind = forms.ChoiceField(label=_("Players"), choices=Room.Kind.choices, initial=Room.Kind.HUMANS,
                             widget=forms.RadioSelect)
    currency = forms.ChoiceField(label=_("Chips"), choices=Currency.choices, initial=Currency.BEANS,
                                 widget=forms.RadioSelect,
                                 help_text=_("Practice rooms with bots always play for points."))
    bot_level = forms.ChoiceField(label=_("Bots"), choices=BOT_LEVELS, initial="basic", required=False)
    variant = forms.ModelChoiceField(
        label=_("House variant"), required=False, empty_label=_("none: the game as set below"),
        queryset=HouseVariant.objects.filter(club__isnull=True, active=True),
        help_text=_("A rule set kept by the moderators; it replaces the game and settings below."))
    spectators = forms.ChoiceField(  # docs/rules.md, "Spectators"
        label=_("Spectators"), choices=Room.Spectators.choices, initial=Room.Spectators.PUBLIC, required=False,
        help_text=_("In TV mode, spectators also see the cards of each player who agrees, one action late."))
    buy_in_min = forms.IntegerField(label=_("Smallest buy-in"), min_value=1, required=False,
                                    help_text=_("Empty: 10 × the base stake."))
    buy_in_max = forms.IntegerField(label=_("Largest buy-in"), min_value=1, required=False,
                                    help_text=_("Empty: 100 × the base stake."))
    approve_buy_ins = forms.BooleanField(
        label=_("I approve each buy-in and top-up"), required=False,
        help_text=_("Nothing is held until you approve; a request waits three minutes."))

    def clean(self):
        data = super().clean()
        low, high = data.get("buy_in_min"), data.get("buy_in_max")
        if low is not None and high is not None and low > high:
            self.add_error("buy_in_min", _("The smallest buy-in cannot be above the largest."))
        return data


class KnobsForm(RulesForm):
    """The main knobs of one game (games/pages.py MAIN_KNOBS), prefixed by the preset's slug
    (`ten-half-base_stake`), with the preset's value and choices in words; the engine judges the whole
    rule set (RulesForm)."""

    def __init__(self, preset: str, data=None):
        super().__init__(preset, data, prefix=preset)
        shown = set(MAIN_KNOBS[preset])
        defaults = PRESETS[preset].to_json()
        for name in list(self.fields):
            knob = "payouts" if name.startswith(PAYOUT_PREFIX) else name
            if knob not in shown:
                del self.fields[name]
                continue
            field = self.fields[name]
            if knob == "payouts":
                cls_name = name[len(PAYOUT_PREFIX):]
                field.label = _("Payout: %(cls)s (net ×)") % {"cls": class_label(cls_name)}
                field.help_text = knob_help("payouts")
                continue
            field.help_text = f"{knob_help(name)} " + str(_("Preset: %(value)s.") % {"value": show_value(defaults[name])})
            if KNOB_BY_NAME[name]["type"] == "choice":
                field.choices = [(c, CHOICE_TEXT.get(c, c)) for c in KNOB_BY_NAME[name]["choices"]]
            if name in CREATE_FORM_INITIAL.get(preset, {}):
                field.initial = CREATE_FORM_INITIAL[preset][name]  # the form's own start (games/pages.py)
            if name in CREATE_FORM_OPTIONAL:
                field.required = False  # left empty: the preset's value (RulesForm.clean)
            if name in SMALL_CHOICES:  # a few values only: a menu, not a number to type on a phone
                field.widget = forms.Select(choices=SMALL_CHOICES[name]())

    def add_error(self, field, error):
        # RulesForm puts a payouts error on the first payout field and an error about a knob that is
        # not shown on the form as a whole: name the hand class's field, or the knob, instead.
        if isinstance(error, str) and field and field.startswith(PAYOUT_PREFIX):
            named = [f for f in self.fields if f.startswith(PAYOUT_PREFIX) and f[len(PAYOUT_PREFIX):] in error]
            field = max(named, key=len) if named else field
        elif isinstance(error, str) and field is None and self.attempted:
            try:
                rules_from(self.preset, self.attempted)
            except RulesError as e:
                if e.knob in KNOB_BY_NAME:
                    # Translators: a rule setting's name, then why the game refuses the value given to it.
                    error = _("%(setting)s: %(message)s") % {"setting": knob_label(e.knob), "message": error}
        super().add_error(field, error)


def knob_forms(data=None, selected: str | None = None) -> dict[str, KnobsForm]:
    """One knob form per game; only the selected game's form is bound to the posted data."""
    return {slug: KnobsForm(slug, data if slug == selected else None) for slug, _name in PRESET_CHOICES}


class JoinForm(forms.Form):
    code = forms.RegexField(label=_("Room code"), regex=r"^\d{4}$", max_length=4,
                            error_messages={"invalid": _("A room code is 4 digits.")},
                            widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off",
                                                          "pattern": r"\d{4}", "placeholder": "1234"}))


class PracticeForm(forms.Form):
    preset = forms.ChoiceField(choices=PRESET_CHOICES, initial="ten-half")
