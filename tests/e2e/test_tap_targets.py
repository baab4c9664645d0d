"""The table on a 360 x 740 phone, measured in Chromium (static/css/table.css, static/js/table.js): every control on it
has a tap area of at least 40 x 40 px, the report flag and the host's Remove on a seat are apart, a long name is cut
short on one line with the whole name in its title, "Empty seat" is readable on the felt (4.5:1), the invite buttons
keep their words on one line at 1280 px, and a spectator is told what place is left at a full table."""

import pytest
from django.contrib.auth import get_user_model

from games import services
from tests.e2e.conftest import PHONE, at_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LONG = "Maximilian Featherstonehaugh-Wolfeschlegel"

# The controls shown on the table smaller than 40 x 40 px: [what, width, height]. A field hidden for screen readers
# only (the invite link's on a phone, clipped) and the check boxes (their labels are the tap area) are left out.
SMALL = """() => [...document.querySelectorAll(".room-page :is(button, a, input, select)")].filter((el) => {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!r.width || !r.height || cs.visibility === "hidden" || el.closest("[hidden], .visually-hidden")) return false;
    if (cs.clip !== "auto" || el.type === "checkbox" || el.type === "radio") return false;
    return r.width < 40 || r.height < 40;
  }).map((el) => [el.id || el.className || el.tagName, Math.round(el.getBoundingClientRect().width),
                  Math.round(el.getBoundingClientRect().height)])"""

# The contrast of the first "Empty seat" against the felt's lighter green under the empty seat's dark veil.
EMPTY_CONTRAST = """() => {
  const el = document.querySelector("#seats .seat.empty .muted");
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const felt = rgb(getComputedStyle(document.documentElement).getPropertyValue("--felt-2").trim()
    .replace(/^#(..)(..)(..)$/, (_, r, g, b) => `${parseInt(r, 16)},${parseInt(g, 16)},${parseInt(b, 16)}`));
  const bg = felt.map((v) => v * 0.82);
  const fg = rgb(getComputedStyle(el).color), a = fg.length > 3 ? fg[3] : 1;
  const mixed = fg.slice(0, 3).map((v, i) => v * a + bg[i] * (1 - a));
  const [hi, lo] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""


def users(*names):
    User = get_user_model()
    return [User.objects.create_user(n, f"{n}@example.com", "a-long-password-1",
                                     display_name=LONG if n == "max" else n.capitalize()) for n in names]


def box(page, selector):
    return page.locator(selector).bounding_box()


def test_the_hosts_table_on_a_phone_has_40_px_controls_and_readable_seats(server, browser, monkeypatch):
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)
    alice, bob, max_ = users("alice", "bob", "max")
    room = services.room_create(host=alice, preset="ten-half")
    for u in (alice, bob, max_):
        services.seat_take(room_id=room.pk, user=u, buy_in=500)
    host = at_table(browser, server, alice, room, ready="!!v")
    page = host.page
    page.wait_for_selector("#seats .seat .kick[data-kick]")
    assert page.evaluate(SMALL) == []
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")

    # The report flag and Remove: each 40 px or more each way, side by side with room between them.
    for seat in page.locator("#seats .seat:has(.kick)").all():
        flag, kick = seat.locator(".report").bounding_box(), seat.locator(".kick").bounding_box()
        for b in (flag, kick):
            assert b["width"] >= 40 and b["height"] >= 40, b
        apart = max(kick["x"] - (flag["x"] + flag["width"]), flag["x"] - (kick["x"] + kick["width"]),
                    kick["y"] - (flag["y"] + flag["height"]), flag["y"] - (kick["y"] + kick["height"]))
        assert apart >= 8, (flag, kick)

    # A long name: one line, cut short, the whole of it in the title; the online dot on its line.
    name = page.locator("#seats .seat .name", has_text="Maximilian")
    assert name.get_attribute("title") == LONG
    assert name.evaluate("(n) => n.scrollWidth > n.clientWidth && getComputedStyle(n).whiteSpace === 'nowrap'")
    dot, label = name.locator("xpath=preceding-sibling::span[contains(@class, 'dot')]").bounding_box(), name.bounding_box()
    assert label["y"] <= dot["y"] + dot["height"] / 2 <= label["y"] + label["height"]

    # The fourth seat is empty: its words readable on the felt.
    assert page.locator("#seats .seat.empty .muted").inner_text() == "Empty seat"
    assert page.evaluate(EMPTY_CONTRAST) >= 4.5

    # On a laptop the invite's buttons keep their words on one line.
    for width in (1280, 1024, 800):
        page.set_viewport_size({"width": width, "height": 900})
        for selector in ("#copy-invite", "#share-invite", "#invite-url", "#menu-button", "#phrases-button"):
            b = box(page, selector)
            assert 40 <= b["height"] < 48, (width, selector, b)
    page.set_viewport_size(PHONE)
    host.context.close()


@pytest.mark.parametrize("side_bets", [True, False])
def test_a_spectator_at_a_full_table_is_told_what_place_is_left(server, browser, monkeypatch, side_bets):
    monkeypatch.setattr("games.broadcast.table_update", lambda *args, **kwargs: None)
    *seated, chen = users("alice", "bob", "dara", "erin", "chen")
    room = services.room_create(host=seated[0], preset="ten-half", overrides={"side_bets_enabled": side_bets})
    for u in seated:
        services.seat_take(room_id=room.pk, user=u, buy_in=500)
    watcher = at_table(browser, server, chen, room, ready="!!v")
    text = watcher.page.locator("#actions").inner_text()
    assert "free seat" not in text and "free seat" not in watcher.page.locator("#status").inner_text()
    if side_bets:
        assert text == "You are watching. Every seat is taken; a side bettor's place is free."
        assert watcher.page.locator("#sit-side").is_visible()
    else:
        assert text == "You are watching. Every place at this table is taken."
        assert watcher.page.locator("#sit-side").count() == 0
    assert watcher.page.evaluate(SMALL) == []
    watcher.context.close()
