"""Numbers and times as the reader's language writes them (`{% load formats %}`).

Plain `{{ n }}` already groups thousands (settings.USE_THOUSAND_SEPARATOR); these cover what it does not: a result
with its sign, and a moment shown in the viewer's own time zone. The server cannot know that zone, so it writes UTC,
labelled, inside a <time> element that static/js/format.js rewrites in the browser's zone and the page's language;
without scripts the UTC text stays.
"""

import datetime

from django import template
from django.utils import timezone
from django.utils.formats import date_format, number_format
from django.utils.html import format_html

register = template.Library()

STYLES = {"datetime": "SHORT_DATETIME_FORMAT", "time": "TIME_FORMAT"}


@register.filter
def signed(value) -> str:
    """+1,200, −1,200 (a minus sign, as static/js/format.js writes it) or 0, grouped in the current language;
    anything but a number as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "" if value is None else str(value)
    text = number_format(abs(value), use_l10n=True, force_grouping=True)
    return f"+{text}" if value > 0 else f"\u2212{text}" if value < 0 else text


@register.filter
def local_time(value, style: str = "datetime") -> str:
    """`value` (an aware datetime) as <time datetime="ISO" data-local="style">UTC text</time>; style is
    "datetime" (the date and the time) or "time"."""
    if not isinstance(value, datetime.datetime):
        return ""
    style = style if style in STYLES else "datetime"
    utc = timezone.localtime(value, datetime.UTC).replace(microsecond=0)
    return format_html('<time datetime="{}" data-local="{}">{} UTC</time>', utc.isoformat(), style,
                       date_format(utc, STYLES[style], use_l10n=True))
