"""Messages of Django and allauth that players read and that our catalogs (locale/) translate in place of theirs.
makemessages finds them here; nothing imports this module. LOCALE_PATHS comes before the apps' own catalogs, so
an entry in ours wins.

- Django 5.2's MinimumLengthValidator asks for "...at least %d character(s)." while its zh_Hans and it catalogs
  translate only "...at least %(min_length)d character(s).": the sign-up's short-password error stayed English.
- allauth's Spanish says usted; HalfPoint speaks to a player with tú (docs/glossary.md).
tests/test_catalogs.py renders these messages in every language."""

from django.utils.translation import gettext_noop, ngettext_lazy

MESSAGES = (
    # django.contrib.auth.password_validation.MinimumLengthValidator.get_error_message
    ngettext_lazy("This password is too short. It must contain at least %d character.",
                  "This password is too short. It must contain at least %d characters.", "min_length"),
    # the password validators' help texts under the sign-up form (Django's Spanish says "su contraseña")
    ngettext_lazy("Your password must contain at least %(min_length)d character.",
                  "Your password must contain at least %(min_length)d characters.", "min_length"),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("Your password can’t be entirely numeric."),
    # allauth.account.adapter.DefaultAccountAdapter.error_messages, the forms and the account pages
    gettext_noop("The username and/or password you specified are not correct."),
    gettext_noop("The email address and/or password you specified are not correct."),
    gettext_noop("Too many failed login attempts. Try again later."),
    gettext_noop("Please type your current password."),
    gettext_noop("Username can not be used. Please use other username."),
    gettext_noop("Forgot your password?"),
    gettext_noop("Are you sure you want to sign out?"),
    gettext_noop("You have signed out."),
    gettext_noop("Successfully signed in as %(name)s."),
    gettext_noop("Already have an account? Then please %(link)ssign in%(end_link)s."),
    gettext_noop("Please contact us if you have any trouble resetting your password."),
    gettext_noop("Your password is now changed."),
    gettext_noop("You are already logged in as %(user_display)s."),
    gettext_noop("Verify Your Email Address"),
    gettext_noop("Forgotten your password? Enter your email address below, and we'll send you an email allowing you "
                 "to reset it."),
    gettext_noop("We have sent you an email. If you have not received it please check your spam folder. Otherwise "
                 "contact us if you do not receive it in a few minutes."),
)
