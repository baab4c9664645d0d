"""`{% rules_share preset rules as share %}`: what a "Share these rules" control needs (templates/games/_rules_share.html):
share.code, share.url (the code's page, whole), share.qr_url, and the words a share button sends (share.title,
share.text); None for a rule set too big for a code (games/rules_codes.py)."""

from django import template
from django.urls import reverse
from django.utils.translation import gettext as _

from games import rules_codes
from games.pages import PRESET_NAMES

register = template.Library()


@register.simple_tag(takes_context=True)
def rules_share(context, preset: str, rules: dict) -> dict | None:
    code = rules_codes.rules_code(preset, rules)
    if code is None:
        return None
    url = reverse("games:rules_code", kwargs={"code": code})
    request = context.get("request")
    names = {"game": PRESET_NAMES[preset]}
    return {"code": code, "url": request.build_absolute_uri(url) if request is not None else url,
            "qr_url": reverse("games:rules_code_qr", kwargs={"code": code}),
            "title": _("House rules of %(game)s") % names,
            "text": _("Our rules of %(game)s on HalfPoint: open the link to read them in your language and create a "
                      "room with them.") % names}
