"""A club in a real browser: alice starts one, bob joins by its link (alice approves him), alice opens a
club room, both play a hand, and the club's leaderboard shows the result."""

import re

import pytest

from games.models import HandSeat, Room
from tests.e2e.conftest import play_out
from tests.e2e.test_table import chip, start_and_open_bank

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_club_is_created_joined_by_link_plays_a_hand_and_ranks_it(server, players):
    alice, bob = players(server, "alice").signup(), players(server, "bob").signup()

    page = alice.goto("/clubs/")
    page.fill("#create-club input[name=name]", "Friday Night")
    page.click("#create-club-submit")
    page.wait_for_url(re.compile(r"/clubs/\d+/$"))
    club_url = page.url
    invite = page.locator("#club-invite-link").input_value()
    assert invite.startswith(server + "/clubs/invite/")

    bob.page.goto(invite)  # not open to all: the link asks the admins
    bob.page.wait_for_url(club_url)
    assert "waiting for an admin" in bob.page.locator("#club-door").inner_text()
    page.reload()
    page.locator("#club-members form[action*='/requests/'] button[value='1']").click()
    page.wait_for_selector("#club-members li:has-text('bob')")

    page.select_option("#club-room-form select[name=game]", "preset:ten-half")
    page.click("#club-room-create")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    alice.wait_connected()
    code = page.locator("#room-code").inner_text()
    assert Room.objects.get(code=code, status="open").club.name == "Friday Night"

    bob.page.goto(club_url)
    bob.page.click(f"#club-rooms a[data-room-code='{code}']")
    bob.page.wait_for_url(re.compile(rf"/r/{code}/$"))
    bob.wait_connected()

    alice.sit(0, buy_in=1000)
    bob.sit(2, buy_in=800)
    start_and_open_bank(alice, 500)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    chip(bob, 1)
    bob.click_enabled("#act-confirm")
    play_out([alice, bob])
    bob.wait_view("v.hand.over")

    nets = {hs.user.username: hs.delta for hs in HandSeat.objects.filter(hand__room__code=code).select_related("user")}
    assert set(nets) == {"alice", "bob"} and sum(nets.values()) == 0
    for player in (alice, bob):
        player.page.goto(club_url + "?period=week")
        board = player.page.locator("#club-leaderboard table[data-currency='beans']")
        shown = dict(zip(board.locator("td:first-child").all_inner_texts(),
                         (int(t.replace("\u2212", "-")) for t in board.locator("td.net").all_inner_texts()), strict=True))
        assert shown == nets, (player.name, shown, nets)
    bob.screenshot("club-leaderboard-after-a-hand")
