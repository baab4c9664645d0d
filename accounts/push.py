"""Web Push: the browsers that asked to be notified (PushSubscription), what each player wants to hear of
(PushPreferences, KINDS), and the sending itself, done by a Celery worker (games/notify.py decides when).

A message is JSON {title, body, url, tag}, written on the server in the player's saved language and encrypted to
the browser's keys (RFC 8291, aes128gcm), signed with the site's VAPID key (RFC 8292); static/js/sw-push.js shows
it. Nothing is set up unless settings.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT all are (`push_enabled`).
"""

import base64
import ipaddress
import json
import logging
import re
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import PushPreferences, PushSubscription
from .text import storable_text

logger = logging.getLogger(__name__)

# The moments a player may be notified of, each on or off (PushPreferences has one field for each). The one
# invitation is to play a closed night again (games/nights.py): a room's invite is otherwise a link.
KINDS = ("your_turn", "next_hand", "club_room", "night_again")
DEVICES_MAX = 10  # subscriptions kept per player: a newer one pushes the least recently used out
SEND_TIMEOUT = 10  # seconds to wait for a push service
GONE = (404, 410)  # the push service's answer for a subscription that no longer exists (RFC 8030, 7.3)
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")


class PushError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def push_enabled() -> bool:
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY and settings.VAPID_SUBJECT)


# --- subscriptions and preferences (the endpoints of accounts/push_api.py) ---------------------------------------

def _b64url(value, size: int) -> bytes | None:
    """`value` decoded from base64url (padding optional) when it is exactly `size` bytes, else None."""
    if not isinstance(value, str) or len(value) > 2 * size:
        return None
    text = value.rstrip("=")
    if not _BASE64URL.fullmatch(text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        return None
    return raw if len(raw) == size else None


def _host_allowed(host: str) -> bool:
    for allowed in settings.PUSH_SERVICE_HOSTS:
        if host == allowed or allowed.startswith(".") and host.endswith(allowed):
            return True
    return False


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _clean_endpoint(endpoint) -> str:
    if not isinstance(endpoint, str) or not 0 < len(endpoint) <= 1000 or not storable_text(endpoint):
        raise PushError("bad_endpoint", _("The subscription's endpoint is missing or too long."))
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
        port = parts.port  # a port out of range or not a number is a ValueError
    except ValueError:
        raise PushError("bad_endpoint", _("The subscription's endpoint is not a URL.")) from None
    # Push services speak HTTPS; plain HTTP only to a listed service on this machine (a local one, in tests).
    if not (parts.scheme == "https" or parts.scheme == "http" and _loopback(host)) or parts.username is not None:
        raise PushError("bad_endpoint", _("The subscription's endpoint is not an HTTPS URL."))
    # A listed service on another port is another server on that host, not the push service the list names.
    if not _host_allowed(host) or parts.scheme == "https" and port not in (None, 443):
        raise PushError("bad_endpoint", _("This push service is not one the site sends to."))
    return endpoint


def clean_subscription(data) -> tuple[str, str, str]:
    """(endpoint, p256dh, auth) of a browser's PushSubscription.toJSON(), or PushError."""
    if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
        raise PushError("bad_subscription", _("Send the browser's subscription: its endpoint and keys."))
    endpoint = _clean_endpoint(data.get("endpoint"))
    p256dh, auth = data["keys"].get("p256dh"), data["keys"].get("auth")
    point = _b64url(p256dh, 65)
    try:
        # Checked on the curve now: a key no message can be encrypted to would fail every send.
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point or b"")
    except ValueError:
        raise PushError("bad_subscription", _("The subscription's public key is not a P-256 key.")) from None
    if _b64url(auth, 16) is None:
        raise PushError("bad_subscription", _("The subscription's auth secret is not 16 bytes."))
    return endpoint, p256dh.rstrip("="), auth.rstrip("=")


def clean_kinds(data) -> dict[str, bool]:
    """The kinds a request turns on or off: {kind: bool} with known kinds only, or PushError."""
    if not isinstance(data, dict) or any(k not in KINDS or not isinstance(v, bool) for k, v in data.items()):
        raise PushError("bad_kinds", _("Kinds are an object of %(kinds)s, each true or false.")
                        % {"kinds": ", ".join(KINDS)})
    return data


def preferences_for(user) -> dict[str, bool]:
    found = PushPreferences.objects.filter(user=user).first() or PushPreferences(user=user)
    return {kind: getattr(found, kind) for kind in KINDS}


def preferences_update(*, user, kinds: dict[str, bool]) -> dict[str, bool]:
    """Turn the given kinds on or off (the others stay); returns them all."""
    kinds = clean_kinds(kinds)
    if kinds:
        with transaction.atomic():
            prefs, _created = PushPreferences.objects.select_for_update().get_or_create(user=user)
            for kind, on in kinds.items():
                setattr(prefs, kind, on)
            prefs.save()
    return preferences_for(user)


def subscription_save(*, user, subscription, kinds=None) -> PushSubscription:
    """Store this browser's subscription for `user` (again: a refreshed key replaces the old one, and a browser that
    another account subscribed before now notifies this one) and set `kinds`. Everything is checked first: a bad
    part stores nothing."""
    endpoint, p256dh, auth = clean_subscription(subscription)
    kinds = clean_kinds({} if kinds is None else kinds)
    with transaction.atomic():
        sub, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth})
        # A player has a handful of devices: beyond that, the ones least recently notified go.
        keep = list(PushSubscription.objects.filter(user=user)
                    .order_by(F("last_used_at").desc(nulls_last=True), "-pk")
                    .values_list("pk", flat=True)[:DEVICES_MAX])
        PushSubscription.objects.filter(user=user).exclude(pk__in=[sub.pk, *keep]).delete()
        preferences_update(user=user, kinds=kinds)
    return sub


def subscription_delete(*, user, endpoint) -> int:
    """Turn notifications off for one browser of `user`; returns how many subscriptions went (0 or 1)."""
    if not isinstance(endpoint, str) or len(endpoint) > 1000 or not storable_text(endpoint):
        raise PushError("bad_endpoint", _("The subscription's endpoint is missing or too long."))
    deleted, _by_model = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted


def users_wanting(kind: str, user_ids) -> set[int]:
    """Those of `user_ids` with a subscription and `kind` on (a player without a preferences row has the defaults)."""
    default = PushPreferences._meta.get_field(kind).default
    with_devices = set(PushSubscription.objects.filter(user_id__in=list(user_ids))
                       .values_list("user_id", flat=True).distinct())
    if not with_devices:
        return set()
    said = dict(PushPreferences.objects.filter(user_id__in=with_devices).values_list("user_id", kind))
    return {uid for uid in with_devices if said.get(uid, default)}


# --- sending (Celery only: games/notify.py) -----------------------------------------------------------------------

def push_send(*, user, payload: dict, topic: str, ttl: int) -> int:
    """Send `payload` to every browser of `user`; returns how many push services took it. A subscription the push
    service says is gone (404, 410) is deleted; any other failure is logged and the next browser is tried.
    `topic` (RFC 8030, 5.4): a newer message of the same topic replaces one still waiting in the push service;
    `ttl`: seconds it may wait there for a device that is offline (after that it is worth nothing)."""
    from pywebpush import WebPushException, webpush  # only a worker sends: the web processes never load it

    data = json.dumps(payload, ensure_ascii=False)
    sent = 0
    for sub in PushSubscription.objects.filter(user=user):
        try:
            webpush(subscription_info={"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}},
                    data=data, vapid_private_key=settings.VAPID_PRIVATE_KEY,
                    vapid_claims={"sub": settings.VAPID_SUBJECT},  # a new dict each time: webpush adds aud and exp
                    content_encoding="aes128gcm", ttl=max(0, int(ttl)), timeout=SEND_TIMEOUT,
                    headers={"Topic": topic, "Urgency": "high"})
        except WebPushException as e:
            status = getattr(e.response, "status_code", None)
            if status in GONE:
                sub.delete()
            else:
                logger.warning("push to user %s (%s) failed: %s", user.pk, urlsplit(sub.endpoint).hostname, e)
            continue
        except Exception:  # the push service unreachable, a timeout: the next moment will try again
            logger.warning("push to user %s (%s) failed", user.pk, urlsplit(sub.endpoint).hostname, exc_info=True)
            continue
        PushSubscription.objects.filter(pk=sub.pk).update(last_used_at=timezone.now())
        sent += 1
    return sent
