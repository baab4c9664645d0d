"""The JSON API's door (docs/api.md): who is asking (a personal token or the session), JSON in and out, errors
with stable codes; and the account endpoints: sign in for a token, sign out, who am I.

Every API view is wrapped by `endpoint`: a request with an `Authorization` header is authenticated by that token
alone and is exempt from CSRF (a browser cannot add the header to a forged request); any other request is the
session's and passes Django's CSRF check on unsafe methods, as a form post does.
"""

import functools
import json
import logging

from allauth.account import app_settings as allauth_settings
from allauth.account.adapter import get_adapter
from allauth.account.utils import has_verified_email
from django.core.exceptions import RequestDataTooBig, ValidationError
from django.http import HttpRequest, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from wallets.selectors import balances_for

from .text import storable_text
from .tokens import NAME_MAX, TokenError, bearer_secret, token_create, token_revoke, token_user

logger = logging.getLogger(__name__)

MAX_BODY = 16 * 1024  # bytes of JSON a request may send, as a socket frame (docs/api.md, "Requests")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class ApiError(Exception):
    """A refused request: the HTTP status and {"error": {"code", "message"[, "field"]}}."""

    def __init__(self, code: str, message, status: int = 400, *, field: str | None = None):
        super().__init__(str(message))
        self.code, self.message, self.status, self.field = code, str(message), status, field

    def response(self) -> JsonResponse:
        error = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        response = JsonResponse({"error": error}, status=self.status)
        if self.status == 401:
            response["WWW-Authenticate"] = 'Bearer realm="api"'
        return response


class _CsrfCheck(CsrfViewMiddleware):
    def _reject(self, request, reason):
        return reason


def _csrf_failure(request: HttpRequest) -> str | None:
    """Why Django's CSRF check refuses this request, or None when it passes."""
    check = _CsrfCheck(lambda _request: None)
    check.process_request(request)
    return check.process_view(request, None, (), {})


def _authenticate(request: HttpRequest) -> None:
    """Set request.user (and request.api_token) from the token, or keep the session's; ApiError when neither."""
    request.api_token = None
    header = request.headers.get("Authorization")
    if header is not None:
        secret = bearer_secret(header)
        found = token_user(secret) if secret else None
        if found is None:
            raise ApiError("bad_token", _("The token is unknown or revoked."), 401)
        request.user, request.api_token = found
    elif not request.user.is_authenticated:
        raise ApiError("login_required", _("Send a token (Authorization: Bearer …) or log in."), 401)
    elif request.method not in SAFE_METHODS and (reason := _csrf_failure(request)):
        raise ApiError("csrf_failed", _("CSRF check failed: %(reason)s") % {"reason": reason}, 403)
    if request.user.is_banned:
        raise ApiError("banned", _("Your account is banned."), 403)


def endpoint(*methods: str, auth: bool = True):
    """An API view: `methods` only, authenticated unless auth=False, ApiError answered as JSON. A bug is
    logged and answered with 500 `server_error`, never with an HTML page."""
    def wrap(view):
        @csrf_exempt  # checked in _authenticate for session requests
        @functools.wraps(view)
        def call(request: HttpRequest, *args, **kwargs):
            try:
                if request.method not in methods:
                    raise ApiError("method_not_allowed", _("Use %(methods)s here.") % {"methods": ", ".join(methods)},
                                   405)
                if auth:
                    _authenticate(request)
                return view(request, *args, **kwargs)
            except ApiError as e:
                return e.response()
            except Exception:
                logger.exception("api: unexpected error on %s %s", request.method, request.path)
                return ApiError("server_error", _("Something went wrong on the server."), 500).response()
        return call
    return wrap


@csrf_exempt  # answers nothing but 404
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any /api/ path that names no endpoint."""
    return ApiError("not_found", _("There is no such API endpoint."), 404).response()


def not_json(constant: str):
    """Python's json reads NaN, Infinity and -Infinity; JSON has none of them, so a text holding one is malformed
    (`json.loads(..., parse_constant=not_json)`, here and for the table socket's frames)."""
    raise ValueError(f"{constant} is not JSON")


def read_json(request: HttpRequest) -> dict:
    """The request's body as a JSON object ({} when empty). NaN and Infinity are not JSON (`bad_json`)."""
    try:
        body = request.body
    except RequestDataTooBig:
        body = None
    if body is None or len(body) > MAX_BODY:
        raise ApiError("too_big", _("A request body is at most 16 KiB of JSON."), 413)
    if not body.strip():
        return {}
    try:
        data = json.loads(body, parse_constant=not_json)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        data = None
    if not isinstance(data, dict):
        raise ApiError("bad_json", _("The body is one JSON object."))
    return data


def text_field(data: dict, name: str, *, default: str | None = None, max_length: int = 200) -> str:
    """A text member of a JSON body: required unless `default` is given."""
    value = data.get(name, default)
    if value is None:
        raise ApiError("bad_field", _("%(name)s is required.") % {"name": name}, field=name)
    if not isinstance(value, str) or len(value) > max_length or not storable_text(value):
        raise ApiError("bad_field", _("%(name)s must be a text of at most %(n)s characters.")
                       % {"name": name, "n": max_length}, field=name)
    return value


def user_json(user) -> dict:
    return {"id": user.pk, "username": user.username, "name": user.public_name}


def _token_json(token) -> dict:
    return {"id": token.pk, "name": token.name, "created_at": token.created_at}


@endpoint("POST", auth=False)
def sign_in(request: HttpRequest) -> JsonResponse:
    """`POST /api/tokens/` {"login", "password", "name"?}: a new token, through the site's login rate limit."""
    data = read_json(request)
    login, password = text_field(data, "login"), text_field(data, "password", max_length=4096)
    # Only the type here (`bad_field`): the name's own rules, its length among them, are token_create's (`bad_name`).
    name = data.get("name", "API")
    if not isinstance(name, str):
        raise ApiError("bad_field", _("%(name)s must be a text of at most %(n)s characters.")
                       % {"name": "name", "n": NAME_MAX}, field="name")
    credentials = {"email" if "@" in login else "username": login, "password": password}
    try:
        user = get_adapter(request).authenticate(request, **credentials)
    except ValidationError:  # allauth's login_failed limit (settings.ACCOUNT_RATE_LIMITS)
        raise ApiError("rate_limited", _("Too many failed sign-ins. Try again later."), 429) from None
    if user is None:
        raise ApiError("bad_credentials", _("The login or the password is wrong."))
    if not user.is_active:  # allauth hands back an inactive user with the right password, to say so
        raise ApiError("inactive", _("This account is inactive."), 403)
    if user.is_banned:
        raise ApiError("banned", _("Your account is banned."), 403)
    if (allauth_settings.EMAIL_VERIFICATION == allauth_settings.EmailVerificationMethod.MANDATORY
            and not has_verified_email(user)):
        raise ApiError("email_unverified", _("Verify your e-mail address first (log in on the site)."), 403)
    try:
        token, secret = token_create(user=user, name=name)
    except TokenError as e:
        raise ApiError(e.code, e.message, field="name" if e.code == "bad_name" else None) from None
    return JsonResponse({"token": secret, **_token_json(token), "user": user_json(user)}, status=201)


@endpoint("DELETE")
def sign_out(request: HttpRequest) -> JsonResponse:
    """`DELETE /api/tokens/current/`: revoke the token this request is authenticated by; answers that token
    (`{"revoked": {"id", "name", "created_at"}}`, the fields sign-in gave), not a count."""
    if request.api_token is None:
        raise ApiError("no_token", _("This request is not authenticated by a token."))
    token_revoke(user=request.user, token_id=request.api_token.pk)
    return JsonResponse({"revoked": _token_json(request.api_token)})


@endpoint("GET")
def me(request: HttpRequest) -> JsonResponse:
    """`GET /api/me/`: who the token or session is, and their balances."""
    return JsonResponse({"user": user_json(request.user), "balances": balances_for(request.user)})
