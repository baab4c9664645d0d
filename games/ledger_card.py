"""The settle-up card: a PNG drawn by the server (Pillow) that chats show beside a share link (og:image), in the
language of the request: the room's code, its game, the day, and each person's net (docs/ledger.md).

Names may be in any script. The card is drawn in Noto Sans CJK SC (Debian's fonts-noto-cjk: Chinese, Japanese and
Korean, and Latin letters too) when fontconfig finds it or it is at Debian's path; else in DejaVu Sans (Latin, Greek,
Cyrillic: Chinese names come out as boxes); else in Pillow's own font.
"""

import functools
import io
import os
import subprocess

from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from PIL import Image, ImageDraw, ImageFont

from accounts.templatetags.formats import signed
from games.ledger import Ledger
from games.models import PRESET_CHOICES
from wallets.models import Currency

WIDTH, HEIGHT = 1200, 630  # what chats expect of an og:image (1.91:1)
MARGIN = 56
ROWS_TOP, ROWS_BOTTOM = 196, HEIGHT - 64  # the people's lines go between these
ROW_MOST, ROW_LEAST = 64, 30  # a line's height: as tall as fits, down to this; then "and N more"

FELT, FELT_LINE, INK, MUTED = (15, 81, 50), (40, 110, 78), (255, 255, 255), (196, 220, 205)
ACCENT, UP, DOWN = (243, 167, 18), (143, 227, 168), (255, 160, 160)

DEBIAN_FONTS = {  # (file, face index): the Simplified Chinese face of the collection, then DejaVu
    False: [("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
            ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0)],
    True: [("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 2),
           ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 0)],
}


@functools.cache
def font_file(bold: bool = False) -> tuple[str, int] | None:
    """The font the card is drawn in, as (file, face index), or None for Pillow's own. Looked up once per process."""
    try:
        found = subprocess.run(
            ["fc-match", "-f", "%{file}\t%{index}\t%{family}", f"Noto Sans CJK SC:{'bold' if bold else 'regular'}"],
            capture_output=True, text=True, timeout=5, check=False).stdout
        path, index, family = found.split("\t", 2)
        if "CJK" in family and os.path.isfile(path):  # fontconfig answers with some font whatever is installed
            return path, int(index)
    except (OSError, ValueError, subprocess.SubprocessError):
        pass  # no fontconfig: the known paths
    return next(((path, index) for path, index in DEBIAN_FONTS[bold] if os.path.isfile(path)), None)


@functools.lru_cache(maxsize=32)
def _font(size: int, bold: bool = False):
    found = font_file(bold)
    if found is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(found[0], size, index=found[1])


def _fit(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> str:
    """`text`, cut with an ellipsis where it would be wider than `width`."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def settle_card(ledger: Ledger) -> bytes:
    """The card of `ledger`'s room as PNG bytes, WIDTH x HEIGHT, in the active language."""
    room = ledger.room
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    inner = WIDTH - 2 * MARGIN

    title = _("Settle up") if not room.is_open else _("The ledger so far")
    code = _("Room %(code)s") % {"code": room.code}
    code_font, title_font = _font(40, True), _font(56, True)
    code_width = draw.textlength(code, font=code_font)
    draw.text((MARGIN, 44), _fit(draw, title, title_font, int(inner - code_width - 24)), font=title_font, fill=ACCENT)
    draw.text((WIDTH - MARGIN - code_width, 58), code, font=code_font, fill=INK)
    day = timezone.localtime(room.closed_at or room.created_at).date()
    about = " · ".join([str(dict(PRESET_CHOICES).get(room.preset, room.preset)), formats.date_format(day),
                        _("Nets in %(currency)s") % {"currency": Currency(room.currency).label}])
    draw.text((MARGIN, 124), _fit(draw, about, _font(30), inner), font=_font(30), fill=MUTED)
    draw.line([(MARGIN, ROWS_TOP - 16), (WIDTH - MARGIN, ROWS_TOP - 16)], fill=FELT_LINE, width=2)

    people = ledger.by_net
    fits = (ROWS_BOTTOM - ROWS_TOP) // ROW_LEAST
    shown = people if len(people) <= fits else people[:fits - 1]
    lines = len(shown) + (len(people) > len(shown))
    row = max(ROW_LEAST, min(ROW_MOST, (ROWS_BOTTOM - ROWS_TOP) // max(lines, 1)))
    size = int(row * 0.6)
    name_font, net_font = _font(size), _font(size, True)
    y = ROWS_TOP
    for person in shown:
        net = signed(person.net)
        net_width = draw.textlength(net, font=net_font)
        draw.text((MARGIN, y), _fit(draw, person.name, name_font, int(inner - net_width - 32)), font=name_font,
                  fill=INK)
        draw.text((WIDTH - MARGIN - net_width, y), net, font=net_font,
                  fill=UP if person.net > 0 else DOWN if person.net < 0 else MUTED)
        y += row
    if len(people) > len(shown):
        more = len(people) - len(shown)
        draw.text((MARGIN, y), ngettext("and %(n)s more", "and %(n)s more", more) % {"n": more}, font=name_font,
                  fill=MUTED)
    if not people:
        draw.text((MARGIN, y), _("Nobody sat here."), font=name_font, fill=MUTED)
    brand = _font(26, True)
    draw.text((WIDTH - MARGIN - draw.textlength("HalfPoint", font=brand), HEIGHT - 48), "HalfPoint", font=brand,
              fill=MUTED)

    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
