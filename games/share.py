"""Sharing into a chat (docs/ledger.md, "Sharing into a chat"): the words a room's invite and a closed room's settle-up
go out with (the share sheet's title and text, static/js/share.js) and the Open Graph preview a chat draws from the
link (templates/_og.html), in the language of the person who shares.

A chat app fetches the link's page itself, with no cookie and whatever Accept-Language its crawler sends, so a shared
link carries the sharer's language (`?lang=`): it wins for a visitor with no language of their own (no session, no
language cookie), as a chat's crawler is and a friend opening the link the first time; anyone who chose a language
keeps it. The words say what is shared and nothing private: who invites to which game and room, or that a night's
settle-up is behind the link; no seat, card, balance or net.
"""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpRequest
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from games.models import PRESET_CHOICES, Room

# og:locale is language_TERRITORY; the site's languages as the people it is written for read them.
OG_LOCALES = {"en": "en_US", "zh-hans": "zh_CN", "it": "it_IT", "es": "es_ES"}
LANGUAGES = frozenset(code for code, _name in settings.LANGUAGES)


def og_locale() -> str:
    """og:locale of the active language."""
    return OG_LOCALES.get(translation.get_language() or "", "en_US")


def link_language(request: HttpRequest) -> str | None:
    """Activate the language a shared link names (`?lang=`) when the visitor has none of their own: not logged in and
    no language cookie. Returns the code it activated, else None (no such parameter, a language the site does not
    offer, or a visitor who chose theirs), and then nothing changes."""
    code = request.GET.get("lang", "")
    user = getattr(request, "user", None)
    if code not in LANGUAGES or (user is not None and user.is_authenticated) \
            or settings.LANGUAGE_COOKIE_NAME in request.COOKIES:
        return None
    translation.activate(code)
    request.LANGUAGE_CODE = code
    return code


def in_language(url: str, code: str | None = None) -> str:
    """`url` with `lang=` set to `code` (the active language by default), its other parameters kept."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"]
    query.append(("lang", code or translation.get_language() or settings.LANGUAGE_CODE))
    return urlunsplit(parts._replace(query=urlencode(query)))


def _game(room: Room) -> str:
    return str(dict(PRESET_CHOICES).get(room.preset, room.preset))


def invite_words(room: Room) -> dict[str, str]:
    """The title and text of `room`'s invite, as the invite page says them (games/invite.py): its host, game and
    code."""
    names = {"name": room.host.public_name, "game": _game(room), "code": room.code}
    return {"title": _("%(name)s invites you to play %(game)s") % names,
            "text": _("%(name)s invites you to play %(game)s in room %(code)s on HalfPoint. Play money, in the "
                      "browser: open the link to take a seat.") % names}


def settle_words(room: Room) -> dict[str, str]:
    """The title and text of `room`'s settle-up: which night it was; the figures are on the card and the page."""
    day = formats.date_format(timezone.localtime(room.closed_at or room.created_at).date())
    names = {"game": _game(room), "code": room.code, "day": day}
    return {"title": _("Room %(code)s: settle up") % names,
            "text": _("How the night of %(game)s in room %(code)s ended on %(day)s: each player's net, and who pays "
                      "whom.") % names}
