import uuid

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from .models import Currency


class AdjustmentForm(forms.Form):
    """A moderator adjustment. The hidden key is made when the form is shown, so a form
    submitted twice (double click, browser resubmit) adjusts once."""

    username = forms.CharField(label=_("Player username"), max_length=150)
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    amount = forms.IntegerField(label=_("Amount"), help_text=_("Positive to add, negative to remove."))
    reason = forms.CharField(label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 3}))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=100)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("idempotency_key", f"adjustment:{uuid.uuid4()}")
        super().__init__(*args, **kwargs)

    def clean_username(self):
        username = self.cleaned_data["username"]
        try:
            self.cleaned_data["user"] = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise forms.ValidationError(_("No player with that username.")) from None
        return username

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError(_("The amount cannot be zero."))
        return amount

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("An adjustment needs a reason."))
        return reason

    def clean_idempotency_key(self):
        key = self.cleaned_data["idempotency_key"]
        if not key.startswith("adjustment:"):
            raise forms.ValidationError(_("Invalid form; reload the page."))
        return key
