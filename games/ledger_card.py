"""The settle-up card: a PNG drawn by the server (Pillow) that chats show beside a share link (og:image), in the
language of the request: the room's code, its game, the day and hours of the night, each person's net, the transfers
that square the nets and the biggest winner (docs/ledger.md).

Names may be in any script. The card is drawn in Noto Sans CJK SC (Debian's fonts-noto-cjk: Chinese, Japanese and
Korean, and Latin letters too) when fontconfig finds it or it is at Debian's path; else in DejaVu Sans (Latin, Greek,
Cyrillic: Chinese names come out as boxes); else in Pillow's own font.
"""

import functools
import io
import os
import subprocess
from dataclasses import dataclass

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
ROWS_TOP, ROWS_BOTTOM = 196, HEIGHT - 72  # the people's lines go between these
GUTTER = 48  # between the nets and the transfers
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


@dataclass(frozen=True)
class CardText:
    """What the card says, in the active language: drawn by `settle_card`, read by its tests."""

    title: str
    code: str
    about: str  # the game, the day, the night's start and end, the currency
    nets: list[tuple[str, str, int]]  # (name, signed net, net) from the top winner down
    transfers: list[tuple[str, str, str]]  # (payer, payee, amount): who pays whom to square the nets
    winner: str | None  # "Biggest winner: …", or None when nobody is up

    @property
    def alt(self) -> str:
        """The card's words as one text, its lines in the order drawn: the picture's `alt` on the ledger pages and
        `card` in the ledger's JSON, so a screen reader and a program read what the picture shows."""
        nets = ", ".join(f"{name} {shown}" for name, shown, _net in self.nets) or _("Nobody sat here.")
        pays = ", ".join(f"{payer} → {payee} {amount}" for payer, payee, amount in self.transfers) \
            or _("Everyone is even.")
        return ". ".join(x for x in (self.title, self.code, self.about, nets, pays, self.winner) if x) + "."


def card_text(ledger: Ledger) -> CardText:
    room = ledger.room
    start = timezone.localtime(room.created_at)
    end = timezone.localtime(room.closed_at or timezone.now())
    hours = _("%(start)s to %(end)s") % {"start": formats.time_format(start), "end": formats.time_format(end)}
    about = " · ".join([str(dict(PRESET_CHOICES).get(room.preset, room.preset)), formats.date_format(start.date()),
                        hours, _("Nets in %(currency)s") % {"currency": Currency(room.currency).label}])
    people = ledger.by_net
    top = people[0] if people and people[0].net > 0 else None
    return CardText(
        title=_("Settle up") if not room.is_open else _("The ledger so far"),
        code=_("Room %(code)s") % {"code": room.code},
        about=about,
        nets=[(p.name, signed(p.net), p.net) for p in people],
        transfers=[(t.payer.name, t.payee.name, formats.number_format(t.amount, force_grouping=True))
                   for t in ledger.settle_up()],
        winner=_("Biggest winner: %(name)s, %(net)s") % {"name": top.name, "net": signed(top.net)} if top else None,
    )


def _rows(count: int) -> tuple[int, int]:
    """(rows shown, row height) for `count` lines in a column: as tall as fits, down to ROW_LEAST, then "and N more"."""
    fits = (ROWS_BOTTOM - ROWS_TOP) // ROW_LEAST
    shown = count if count <= fits else fits - 1
    lines = shown + (count > shown)
    return shown, max(ROW_LEAST, min(ROW_MOST, (ROWS_BOTTOM - ROWS_TOP) // max(lines, 1)))


def _more(draw, x: int, y: int, hidden: int, font) -> None:
    if hidden > 0:
        draw.text((x, y), ngettext("and %(n)s more", "and %(n)s more", hidden) % {"n": hidden}, font=font, fill=MUTED)


def settle_card(ledger: Ledger) -> bytes:
    """The card of `ledger`'s room as PNG bytes, WIDTH x HEIGHT, in the active language: the nets on the left, the
    transfers that square them on the right, the biggest winner at the foot."""
    text = card_text(ledger)
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    inner = WIDTH - 2 * MARGIN

    code_font, title_font = _font(40, True), _font(56, True)
    code_width = draw.textlength(text.code, font=code_font)
    draw.text((MARGIN, 44), _fit(draw, text.title, title_font, int(inner - code_width - 24)), font=title_font,
              fill=ACCENT)
    draw.text((WIDTH - MARGIN - code_width, 58), text.code, font=code_font, fill=INK)
    draw.text((MARGIN, 124), _fit(draw, text.about, _font(28), inner), font=_font(28), fill=MUTED)
    draw.line([(MARGIN, ROWS_TOP - 16), (WIDTH - MARGIN, ROWS_TOP - 16)], fill=FELT_LINE, width=2)

    column = (inner - GUTTER) // 2
    shown, row = _rows(len(text.nets))
    name_font, net_font = _font(int(row * 0.6)), _font(int(row * 0.6), True)
    y = ROWS_TOP
    for name, net, value in text.nets[:shown]:
        net_width = draw.textlength(net, font=net_font)
        draw.text((MARGIN, y), _fit(draw, name, name_font, int(column - net_width - 24)), font=name_font, fill=INK)
        draw.text((MARGIN + column - net_width, y), net, font=net_font,
                  fill=UP if value > 0 else DOWN if value < 0 else MUTED)
        y += row
    _more(draw, MARGIN, y, len(text.nets) - shown, name_font)
    if not text.nets:
        draw.text((MARGIN, y), _("Nobody sat here."), font=name_font, fill=MUTED)

    right = MARGIN + column + GUTTER
    draw.line([(right - GUTTER // 2, ROWS_TOP), (right - GUTTER // 2, ROWS_BOTTOM)], fill=FELT_LINE, width=2)
    shown, row = _rows(len(text.transfers))
    pay_font, amount_font = _font(int(row * 0.5)), _font(int(row * 0.5), True)
    y = ROWS_TOP
    for payer, payee, amount in text.transfers[:shown]:
        amount_width = draw.textlength(amount, font=amount_font)
        pair = _fit(draw, f"{payer} → {payee}", pay_font, int(column - amount_width - 24))
        draw.text((right, y), pair, font=pay_font, fill=INK)
        draw.text((WIDTH - MARGIN - amount_width, y), amount, font=amount_font, fill=ACCENT)
        y += row
    _more(draw, right, y, len(text.transfers) - shown, pay_font)
    if text.nets and not text.transfers:
        draw.text((right, y), _fit(draw, _("Everyone is even."), pay_font, column), font=pay_font, fill=MUTED)

    brand = _font(26, True)
    brand_width = draw.textlength("HalfPoint", font=brand)
    if text.winner:
        draw.text((MARGIN, HEIGHT - 50), _fit(draw, text.winner, _font(28, True), int(inner - brand_width - 32)),
                  font=_font(28, True), fill=ACCENT)
    draw.text((WIDTH - MARGIN - brand_width, HEIGHT - 48), "HalfPoint", font=brand, fill=MUTED)

    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
