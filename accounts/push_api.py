"""The notification endpoints under /api/push/ (docs/api.md, "Notifications"), called by static/js/push.js with the
session and its CSRF token: subscribe a browser, turn one off, read or set which moments to be told of. A refused
request answers 400 with an error code and stores nothing; with push not configured they all answer 404 `push_off`.
"""

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _

from .api import ApiError, endpoint, read_json
from .push import PushError, preferences_for, preferences_update, push_enabled, subscription_delete, subscription_save


def _push_on() -> None:
    if not push_enabled():
        raise ApiError("push_off", _("This site sends no notifications."), 404)


@endpoint("POST")
def subscribe(request: HttpRequest) -> JsonResponse:
    """`POST /api/push/subscribe/` {"subscription": PushSubscription.toJSON(), "kinds"?: {kind: bool}}."""
    _push_on()
    data = read_json(request)
    try:
        subscription_save(user=request.user, subscription=data.get("subscription"), kinds=data.get("kinds"))
    except PushError as e:
        raise ApiError(e.code, e.message) from None
    return JsonResponse({"kinds": preferences_for(request.user)})


@endpoint("POST")
def unsubscribe(request: HttpRequest) -> JsonResponse:
    """`POST /api/push/unsubscribe/` {"endpoint"}: this browser is no longer notified."""
    _push_on()
    try:
        removed = subscription_delete(user=request.user, endpoint=read_json(request).get("endpoint"))
    except PushError as e:
        raise ApiError(e.code, e.message) from None
    return JsonResponse({"removed": removed})


@endpoint("GET", "POST")
def preferences(request: HttpRequest) -> JsonResponse:
    """`GET /api/push/preferences/`, or `POST` {"kinds": {kind: bool}}: the moments to be told of, on every device."""
    _push_on()
    if request.method == "GET":
        return JsonResponse({"kinds": preferences_for(request.user)})
    try:
        kinds = preferences_update(user=request.user, kinds=read_json(request).get("kinds"))
    except PushError as e:
        raise ApiError(e.code, e.message) from None
    return JsonResponse({"kinds": kinds})
