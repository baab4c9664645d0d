"""The rules codes in the JSON API (docs/api.md, "Rules codes"): make the code of a rule set, and read one. The codes
are games/rules_codes.py's; a code the decoder refuses answers 400 with the decoder's code (`code_version`,
`unknown_knob`, ...)."""

from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.api import ApiError, endpoint, read_json
from games import rules_codes, services
from games.engine import PRESETS, RulesError, rules_from
from games.services.errors import rules_refusal


def _answer(request: HttpRequest, code: str, found: rules_codes.Decoded) -> JsonResponse:
    return JsonResponse({
        "code": code, "version": rules_codes.VERSION, "preset": found.preset, "changes": found.overrides,
        "rules": found.rules,
        "page_url": request.build_absolute_uri(reverse("games:rules_code", kwargs={"code": code})),
        "qr_url": request.build_absolute_uri(reverse("games:rules_code_qr", kwargs={"code": code})),
    })


@endpoint("GET")
def rules_code(request: HttpRequest, code: str) -> JsonResponse:
    """`GET /api/rules/codes/<code>/`: the rules a code carries, or the decoder's refusal."""
    try:
        found = rules_codes.decode(code)
    except services.GameError as e:
        raise ApiError(e.code, e.message, field=e.field) from None
    return _answer(request, code, found)


@endpoint("POST")
def rules_codes_make(request: HttpRequest) -> JsonResponse:
    """`POST /api/rules/codes/` {"preset", "rules"}: the code of the preset with those settings (checked as a room's)."""
    data = read_json(request)
    preset, overrides = data.get("preset"), data.get("rules", {})
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ApiError("bad_field", _("preset is one of %(presets)s.") % {"presets": ", ".join(PRESETS)},
                       field="preset")
    if not isinstance(overrides, dict):
        raise ApiError("bad_field", _("rules is an object of rule settings."), field="rules")
    try:
        rules = rules_from(preset, overrides).to_json()
    except RulesError as e:
        raise ApiError(e.code, f"{e.knob}: {rules_refusal(e)}", field=e.knob) from None
    code = rules_codes.rules_code(preset, rules)
    if code is None:
        raise ApiError("code_too_long", _("These rules are too long for a rules code."), field="rules")
    return _answer(request, code, rules_codes.decode(code))
