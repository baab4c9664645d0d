"""Messages of Django and allauth that players read and that our catalogs (locale/) translate in place of theirs.
makemessages finds them here; nothing imports this module. LOCALE_PATHS comes before the apps' own catalogs, so
an entry in ours wins.

- Django 5.2's MinimumLengthValidator asks for "...at least %d character(s)." while its zh_Hans and it catalogs
  translate only "...at least %(min_length)d character(s).": the sign-up's short-password error stayed English.
- allauth's Spanish says usted; HalfPoint speaks to a player with tú (docs/glossary.md).
- Django's Chinese ends a form field's label with an ASCII colon; a Chinese label takes the full-width one.
tests/test_catalogs.py renders these messages in every language."""

from django.utils.translation import gettext_noop, ngettext_lazy

MESSAGES = (
    # django.forms: the suffix of every form field's label; Django's Chinese keeps the ASCII colon
    gettext_noop(":"),
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
    # allauth's account pages and e-mails that speak to the player (its Spanish says usted)
    gettext_noop("You cannot remove your primary email address."),
    gettext_noop("Your primary email address must be verified."),
    gettext_noop("Use your password"),
    gettext_noop("The following email addresses are associated with your account:"),
    gettext_noop("Do you really want to remove the selected email address?"),
    gettext_noop("You are receiving this email because you or someone else tried to signup for an\n"
                 "account using email address:\n\n%(email)s\n\nHowever, an account using that email "
                 "address already exists.  In case you have\nforgotten about this, please use the "
                 "password forgotten procedure to recover\nyour account:\n\n%(password_reset_url)s"),
    gettext_noop("You are receiving this mail because the following change was made to your "
                 "account:"),
    gettext_noop("If you do not recognize this change then please take proper security "
                 "precautions immediately. The change to your account originates from:\n\n- IP "
                 "address: %(ip)s\n- Browser: %(user_agent)s\n- Date: %(timestamp)s"),
    gettext_noop("Your email has been confirmed."),
    gettext_noop("Please Confirm Your Email Address"),
    gettext_noop("This mail can be safely ignored if you did not initiate this action."),
    gettext_noop("Your password has been changed."),
    gettext_noop("You're receiving this email because you or someone else has requested a "
                 "password reset for your user account.\nIt can be safely ignored if you did not "
                 "request a password reset. Click the link below to reset your password."),
    gettext_noop("In case you forgot, your username is %(username)s."),
    gettext_noop("Your password has been reset."),
    gettext_noop("Your password has been set."),
    gettext_noop("You are receiving this email because you, or someone else, tried to access an "
                 "account with email %(email)s. However, we do not have any record of such an "
                 "account in our database."),
    gettext_noop("If it was you, you can sign up for an account using the link below."),
    gettext_noop("Your email address is still pending verification."),
    gettext_noop("Please confirm that <a href=\"mailto:%(email)s\">%(email)s</a> is an email "
                 "address for user %(user_display)s."),
    gettext_noop("You cannot remove your primary email address (%(email)s)."),
    gettext_noop("You currently do not have any email address set up. You should really add an "
                 "email address so you can receive notifications, reset your password, etc."),
    gettext_noop("We have sent an email to you for verification. Follow the link provided to "
                 "finalize the signup process. If you do not see the verification email in your "
                 "main inbox, check your spam folder. Please contact us if you do not receive the "
                 "verification email within a few minutes."),
    gettext_noop("This part of the site requires us to verify that\nyou are who you claim to be. "
                 "For this purpose, we require that you\nverify ownership of your email address. "),
    gettext_noop("We have sent an email to you for\nverification. Please click on the link inside "
                 "that email. If you do not see the verification email in your main inbox, check "
                 "your spam folder. Otherwise\ncontact us if you do not receive it within a few "
                 "minutes."),
)
