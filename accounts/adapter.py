from allauth.account.adapter import DefaultAccountAdapter
from django.contrib import messages
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from accounts.language import for_user


class AccountAdapter(DefaultAccountAdapter):
    """Account rules on top of allauth: a banned player cannot log in (games/moderation.py bans)."""

    def pre_login(self, request, user, **kwargs):
        if getattr(user, "is_banned", False):
            messages.error(request, _("This account is banned until %(until)s.") % {"until": user.banned_until})
            return redirect("account_login")
        return super().pre_login(request, user, **kwargs)

    def send_mail(self, template_prefix, email, context):
        # In the recipient's language (their profile's), not the language of whoever's request sent it.
        with for_user(context.get("user")):
            super().send_mail(template_prefix, email, context)
