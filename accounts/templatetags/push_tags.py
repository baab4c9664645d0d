"""Notifications in templates: `{% push_public_key as key %}`, the site's VAPID public key when notifications are set
up, else "" (the page then offers none; static/js/push.js reads it from a data-key attribute), and
`{% push_kinds user as kinds %}`, the profile's toggles."""

from django import template
from django.conf import settings

from accounts.models import PushPreferences
from accounts.push import KINDS, preferences_for, push_enabled

register = template.Library()


@register.simple_tag
def push_public_key() -> str:
    return settings.VAPID_PUBLIC_KEY if push_enabled() else ""


@register.simple_tag
def push_kinds(user) -> list[dict]:
    """The profile's toggles: each kind of notification (accounts.push.KINDS), its label and whether it is on."""
    on = preferences_for(user)
    return [{"kind": kind, "label": PushPreferences._meta.get_field(kind).verbose_name, "on": on[kind]}
            for kind in KINDS]
