from django import forms
from django.utils.translation import gettext_lazy as _

from .models import AVATAR_COLOURS, DECK_ART, User


class ProfileForm(forms.ModelForm):
    avatar_colour = forms.ChoiceField(label=_("Avatar colour"), choices=AVATAR_COLOURS, widget=forms.RadioSelect)
    # Not required: a post without it (or with the empty choice) follows the page's language.
    deck_art = forms.ChoiceField(
        label=_("Seven and a Half cards"), choices=DECK_ART, required=False, widget=forms.RadioSelect,
        help_text=_("How the cards of the Spanish-suited deck are drawn for you; their names follow your language. "
                    "French cards stay French."))

    class Meta:
        model = User
        fields = ["display_name", "avatar_colour", "deck_art", "screen_reader"]
        labels = {"screen_reader": _("Screen reader mode at the table")}
        help_texts = {"screen_reader": _("The table told as a document, with announcements and one-key commands; "
                                         "V turns it on or off at the table.")}
