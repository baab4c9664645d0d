from django import forms
from django.utils.translation import gettext_lazy as _

from .models import AVATAR_COLOURS, User


class ProfileForm(forms.ModelForm):
    avatar_colour = forms.ChoiceField(label=_("Avatar colour"), choices=AVATAR_COLOURS, widget=forms.RadioSelect)

    class Meta:
        model = User
        fields = ["display_name", "avatar_colour"]
