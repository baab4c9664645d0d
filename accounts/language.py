"""The language a user reads the site in: the browser's Accept-Language on a first visit (Django's LocaleMiddleware),
then the choice made in the language menu, kept in the language cookie and, for a logged-in user, on the profile,
so that it follows them to every device and into the e-mails they are sent."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.i18n import set_language as django_set_language

CODES = frozenset(code for code, _name in settings.LANGUAGES)


def user_language(user) -> str | None:
    """The language saved on `user`'s profile, when it is one the site offers."""
    code = getattr(user, "language", "") or ""
    return code if code in CODES else None


class UserLanguageMiddleware:
    """After authentication: a logged-in user's saved language wins over the cookie and the browser, and the
    cookie is brought in line so that the pages served before the next login (and the JS catalog) agree."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        code = user_language(user) if user is not None and user.is_authenticated else None
        if code and code != getattr(request, "LANGUAGE_CODE", None):
            translation.activate(code)
            request.LANGUAGE_CODE = code
        response = self.get_response(request)
        if code and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != code:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, code, max_age=settings.LANGUAGE_COOKIE_AGE,
                                path=settings.LANGUAGE_COOKIE_PATH, samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                                secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY)
        return response


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's `set_language` (the cookie, then back to `next`), and the choice saved on a logged-in user's
    profile. An unknown language changes nothing: Django's view ignores it, and so does the profile."""
    response = django_set_language(request)
    code = request.POST.get("language", "")
    user = request.user
    if request.method == "POST" and code in CODES and user.is_authenticated and user.language != code:
        user.language = code
        user.save(update_fields=["language"])
    return response


def for_user(user):
    """`with for_user(user):` renders in `user`'s language (an e-mail to them), else the current one."""
    code = user_language(user)
    return translation.override(code) if code else translation.override(translation.get_language())
