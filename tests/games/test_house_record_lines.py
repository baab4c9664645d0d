"""A hand record page's own lines (games/pages.py hand_events, before hand.js tells the events again) give every house
rule's events and actions in words, as the table's feed does (static/js/house-*.js): no event shows as its bare
name. Each hand is a golden script played at a live table (tests/games/script_sockets.py), its page read by a player."""

import html
import re

import pytest
from django.test import Client

from games.models import Hand
from tests.games.script_sockets import SCRIPTS, LiveScript, load, patch_deals
from tests.games.sockets import db

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer", "no_resync")]

# script -> lines its last hand's page must show (names are the script's seat names)
CASES = {
    "house-auction-tie": [
        "Hand 1 starts with the bank auction: the bank goes to the highest bid.",
        "Each player may bid ×1 to ×4 for the bank, or make no bid. Each bidder sees their own first card before bidding.",
        "A bids ×1 for the bank.", "B bids ×3 for the bank.", "D makes no bid.",
        "B, C tied at ×3; the hand's shuffle picks C, who banks 1,000. Every stake against this bank counts ×3, win or "
        "lose, while C holds it.",
        "C opens the bank with 1,000.",
    ],
    "house-auction-no-bid": ["C makes no bid.", "Nobody bid: C banks 1,000 in the usual order, at ×1."],
    "house-banker-opens-one-then-hit-then-stand": [
        "B opens C1's hand: it is settled now against the bank's 16.",
        "C1: win ×1, +100. Opened: 17 against the bank's 16.",
    ],
    "house-free-hand-banker-escapes": ["Every stake not yet settled comes back."],
    "house-auction-multiplied-settlement": [],  # no event of it shows as its bare name
    "house-auction-after-bank-turn": [],
    "house-banker-opens-two-then-bust": [],
    "house-ride-zhejiang": [],
    "house-free-hand-challenger-escapes": ["C1 runs with a free hand.", "C1's stake comes back: no win, no loss."],
    "house-matta-bank": ["The bank's matta (the king of coins) counts as 3."],
    "house-matta-alone": ["C1's matta (the king of coins) counts as ½."],
    "house-ride-win-then-ride": ["Hand 2 starts: B banks 500, base stake 10.",
                                "C1 won the last hand and may let it ride, up to 40.", "C1 lets it ride: 30."],
}


@pytest.fixture
def stacked(monkeypatch, settings):
    return patch_deals(monkeypatch, settings)


def page_lines(user, hand: Hand) -> list[tuple[str, str]]:
    """(class, text) of each server-rendered event line of the hand's record page, and ("results", text) of its
    settlement table."""
    c = Client()
    c.force_login(user)
    response = c.get(hand.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    results = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.split('id="settlement"', 1)[1].split("</tbody>", 1)[0])).split())
    events = page.split('<ol class="events" id="events">', 1)[1].split("</ol>", 1)[0]
    return [(cls.split()[0], " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split()))
            for cls, text in re.findall(r'<li class="([^"]*)">(.*?)</li>', events, re.S)] + [("results", results)]


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_house_rules_hand_page_tells_its_events_in_words(name, stacked, clock):
    data, _expected = load(SCRIPTS / f"{name}.json")
    live = LiveScript(data, stacked, clock)
    try:
        _out, status = await live.play()
        assert status == 0
        reader = live.users[data["seats"][0]["name"]]

        def read():
            hands = list(Hand.objects.filter(room=live.room).order_by("number"))
            return [line for hand in hands for line in page_lines(reader, hand)]

        lines = await db(read)()
    finally:
        await live.close()
    texts = [text for _cls, text in lines]
    bare = [(cls, text) for cls, text in lines if text == cls.replace("_", " ") or text.endswith(" ?") or "?" in
            text.split()]
    assert not bare, bare
    if name.startswith("house-banker-opens"):  # the results table says why
        assert any("(opened by the banker)" in text for cls, text in lines if cls == "results"), lines
    for want in CASES[name]:
        assert want in texts, (want, "\n".join(texts))
