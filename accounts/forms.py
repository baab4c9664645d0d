from django import forms

from .models import AVATAR_COLOURS, User


class ProfileForm(forms.ModelForm):
    avatar_colour = forms.ChoiceField(choices=AVATAR_COLOURS, widget=forms.RadioSelect)

    class Meta:
        model = User
        fields = ["display_name", "avatar_colour"]
