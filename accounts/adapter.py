from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.utils.formats import localize
from django.utils.translation import gettext as _

from accounts.language import for_user
from games import invite

# Set at sign-up, read at the first log-in of the same session (at once, or after the e-mail confirmation).
WELCOME_SESSION_KEY = "welcome_notice"


class AccountAdapter(DefaultAccountAdapter):
    """Account rules on top of allauth: a banned player cannot log in (games/moderation.py bans); an invite opened
    before signing up or logging in is where the player lands after (games/invite.py), unless allauth was given an
    explicit `next`; a new account's first page says what its welcome beans are, once."""

    def pre_login(self, request, user, **kwargs):
        if getattr(user, "is_banned", False):
            messages.error(request, _("This account is banned until %(until)s.") % {"until": user.banned_until})
            return redirect("account_login")
        return super().pre_login(request, user, **kwargs)

    def get_login_redirect_url(self, request):
        return invite.pending_url(request) or super().get_login_redirect_url(request)

    def get_signup_redirect_url(self, request):
        return invite.pending_url(request) or super().get_signup_redirect_url(request)

    def save_user(self, request, user, form, commit=True):
        user = super().save_user(request, user, form, commit=commit)
        request.session[WELCOME_SESSION_KEY] = True
        return user

    def post_login(self, request, user, **kwargs):
        response = super().post_login(request, user, **kwargs)  # the redirect is chosen: the invite is spent
        invite.forget(request)
        if request.session.pop(WELCOME_SESSION_KEY, False) and settings.WELCOME_BEANS > 0:
            messages.info(request, _("Welcome! You have %(beans)s beans to play with friends; practice tables "
                                     "use practice points.") % {"beans": localize(settings.WELCOME_BEANS)},
                          extra_tags="welcome")
        return response

    def send_mail(self, template_prefix, email, context):
        # In the recipient's language (their profile's), not the language of whoever's request sent it.
        with for_user(context.get("user")):
            super().send_mail(template_prefix, email, context)
