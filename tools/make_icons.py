"""Draw HalfPoint's app icons, static/icons/*.png, from one SVG with Debian's Chromium (Playwright, a test dependency):

    .venv/bin/python tools/make_icons.py

The PNGs are committed; run this again only to change the mark. The mark is a ten-and-a-half card ("10½") on a
second card, on the table's felt, in the colours of static/css/site.css. The "any" icons are a rounded square with
the mark filling it; the maskable one and the Apple touch icon fill the whole square and keep the mark inside the
central circle of 80% of the width, the part every launcher's mask leaves visible.
"""

import struct
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS_DIR = Path(__file__).resolve().parent.parent / "static" / "icons"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

# file: (pixels, full_bleed). The names and sizes are the ones config/pwa.py lists.
ICONS = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "icon-maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),
}

# site.css: --felt, --felt-2, --accent, --ink, and the red of .pcard.red.
FELT, FELT_2, ACCENT, INK, RED = "#0f5132", "#14633f", "#f3a712", "#1d2433", "#c0262d"

# Every point of the mark lies within 232 units of the centre of the 512-unit square (the cards' far corners):
# scaled by 0.8 that is 186, inside the maskable safe circle of radius 204.8.
MARK = f"""
<g transform="translate(284 262) rotate(12)">
  <rect x="-118" y="-165" width="236" height="330" rx="24" fill="{ACCENT}"/>
</g>
<g transform="translate(236 262) rotate(-8)">
  <rect x="-118" y="-165" width="236" height="330" rx="24" fill="#fff" stroke="{INK}" stroke-opacity=".18" stroke-width="4"/>
  <path d="M-84 -138 l16 24 l-16 24 l-16 -24 z" fill="{RED}"/>
  <path d="M84 90 l16 24 l-16 24 l-16 -24 z" fill="{RED}"/>
  <text y="36" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" letter-spacing="-4">
    <tspan font-size="100" fill="{INK}">10</tspan><tspan font-size="88" fill="{RED}">½</tspan>
  </text>
</g>"""


def svg(pixels: int, full_bleed: bool) -> str:
    felt = f"""<defs><radialGradient id="felt" cx="50%" cy="40%" r="70%">
      <stop offset="0" stop-color="{FELT_2}"/><stop offset="1" stop-color="{FELT}"/></radialGradient></defs>"""
    if full_bleed:
        background = '<rect width="512" height="512" fill="url(#felt)"/>'
        mark = f'<g transform="translate(256 256) scale(.8) translate(-256 -256)">{MARK}</g>'
    else:
        background, mark = '<rect width="512" height="512" rx="112" fill="url(#felt)"/>', MARK
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{pixels}" height="{pixels}" viewBox="0 0 512 512">'
            f"{felt}{background}{mark}</svg>")


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def main() -> None:
    ICONS_DIR.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for name, (pixels, full_bleed) in ICONS.items():
            page = browser.new_page(viewport={"width": pixels, "height": pixels}, device_scale_factor=1)
            page.set_content(f"<style>html, body {{ margin: 0; background: transparent; }} svg {{ display: block; }}</style>"
                             f"{svg(pixels, full_bleed)}")
            data = page.screenshot(clip={"x": 0, "y": 0, "width": pixels, "height": pixels}, omit_background=True)
            assert png_size(data) == (pixels, pixels), (name, png_size(data))
            (ICONS_DIR / name).write_bytes(data)
            print(f"{name}: {pixels}x{pixels}, {len(data)} bytes")
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
