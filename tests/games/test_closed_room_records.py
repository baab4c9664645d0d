"""A closed room's night stays checkable (docs/rules.md, "Who may read a hand record"): once the host closes the room,
its chain (page and file, every page of it), its list of hands and its hand records answer its readers as before, say
the room is closed and keep their links to each other; what a player downloads then passes every check of the offline
verifier (tools/halfpoint_verify.py). A stranger to the room, and an unknown code, get 404 on every URL.

The cast: alice hosts without sitting, bob banks, chen challenges with a seed of his own, dara side-bets on chen;
erin watched from the first hand, frank came after the second; gus never came to the room; maud is a moderator."""

import copy
import hashlib

import pytest
from django.test import Client
from django.urls import resolve, reverse

from games import clubs, hand_records, services
from games.models import Hand, Room
from tests.games.conftest import act, play_out, seat_of, state
from tools import halfpoint_verify

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = 5
PAGE = 2  # hands on a page of the chain here, so that the night takes three pages: [1], [2, 3], [4, 5]


@pytest.fixture(autouse=True)
def _small_pages(_table_settings, settings, monkeypatch):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # a finished hand stays the latest until the host starts the next
    monkeypatch.setattr("games.selectors.CHAIN_PAGE", PAGE)


def browser(user=None, language: str = "en") -> Client:
    c = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        c.force_login(user)
    return c


def hand_of(room, people, n: int) -> Hand:
    """Hand `n` of the night: alice deals, bob (banking) opens the bank on the first, chen stakes 20 with his own seed,
    dara side-bets 20 on chen, everyone stands."""
    alice, bob, chen, dara = (people[name] for name in ("alice", "bob", "chen", "dara"))
    act(room, alice, "start")
    if state(room)["pending"]:
        act(room, bob, "open_bank", amount=300)
    act(room, chen, "bet", amount=20, seed=hashlib.sha256(f"chen's seed {n}".encode()).hexdigest())
    act(room, dara, "side_bet", backs=seat_of(room, chen), amount=20)
    play_out(room)
    found = Hand.objects.get(room=room, number=n)
    assert found.is_over and found.chain
    return found


def night(people, *, club=None) -> tuple[Room, list[Hand]]:
    """alice's room through the services: HANDS hands dealt by the verifiable shuffle, then alice closes it."""
    overrides = {"host_banks": False, "first_banker": "first-seated"}
    room = (clubs.club_room_create(club=club, by=people["alice"], preset="ten-half", overrides=overrides) if club
            else services.room_create(host=people["alice"], preset="ten-half", overrides=overrides))
    if club is None:
        assert browser(people["erin"]).get(room.get_absolute_url()).status_code == 200  # she watches from the start
    services.seat_take(room_id=room.pk, user=people["bob"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["chen"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["dara"], buy_in=500, role="side")
    hands = []
    for n in range(1, HANDS + 1):
        hands.append(hand_of(room, people, n))
        if n == 2 and club is None:
            assert browser(people["frank"]).get(room.get_absolute_url()).status_code == 200  # he comes now
    services.room_close(room_id=room.pk, by=people["alice"])
    room.refresh_from_db()
    assert not room.is_open
    return room, hands


@pytest.fixture
def closed(people):
    return night(people)


def chain_pages(client: Client, room: Room) -> list[dict]:
    """Every page of the room's chain file as a player downloads it: the chain page by the room's code alone and its
    "Download the chain", then each "Older hands" page and its download, until the page without older hands."""
    page = client.get(reverse("games:room_chain", args=[room.code]))
    files = []
    while True:
        assert page.status_code == 200
        answer = client.get(page.context["json_url"])
        assert answer.status_code == 200
        assert answer["Content-Disposition"] == f'attachment; filename="halfpoint-{room.code}-chain.json"'
        files.append(answer.json())
        assert files[-1] == page.context["data"]  # the file is the page's own chain
        if page.context["older_url"] is None:
            return files
        page = client.get(page.context["older_url"])


def record_files(client: Client, pages: list[dict]) -> list[dict]:
    """The record file of every hand the chain lists with a record, each from its own hand's URL."""
    out = []
    for page in pages:
        for row in page["hands"]:
            if row["url"]:
                answer = client.get(reverse("games:hand_json", args=[resolve(row["url"]).kwargs["key"]]))
                assert answer.status_code == 200
                out.append(answer.json())
    return out


def listed(client: Client, room: Room) -> list[int]:
    """The hand numbers the closed room's list of hands shows, over all its pages (each one says the room is closed)."""
    page, numbers = client.get(reverse("games:room_hands", args=[room.code])), []
    while True:
        assert page.status_code == 200 and 'id="room-closed"' in page.content.decode()
        numbers += [h.number for h in page.context["hands"]]
        if page.context["older_url"] is None:
            return numbers
        page = client.get(page.context["older_url"])


def checks(files: list[dict]) -> list[tuple[str, bool, str]]:
    """Every line of the verifier's report on `files` as (title, holds, what): its lines end with (holds, what)."""
    return [(title, line[-2], line[-1]) for title, lines in halfpoint_verify.check_files(files) for line in lines]


def verified(files: list[dict]) -> list[tuple[str, bool, str]]:
    lines = checks(files)
    failed = [(title, what) for title, ok, what in lines if ok is not True]
    assert lines and not failed, failed
    return lines


# --- a player downloads the night and the verifier checks it ---------------------------------------------------------


def test_a_player_downloads_every_page_of_the_closed_rooms_chain_and_its_records_and_every_check_holds(people, closed):
    room, hands = closed
    chen = browser(people["chen"])
    pages = chain_pages(chen, room)
    assert [[row["hand_no"] for row in page["hands"]] for page in pages] == [[4, 5], [2, 3], [1]]
    rows = sorted((row for page in pages for row in page["hands"]), key=lambda r: r["hand_no"])
    assert [(r["hand_no"], r["prev"], r["chain"]) for r in rows] == [(h.number, h.prev_chain, h.chain) for h in hands]
    assert all(r["record"] is not None for r in rows)  # chen sat in every hand
    assert all(a["chain"] == b["prev"] for a, b in zip(rows, rows[1:], strict=False))  # across the pages too
    records = record_files(chen, pages)
    assert [r["hand_no"] for r in records] == [4, 5, 2, 3, 1]
    assert all(any(x["by"] == "player" for x in r["seeds"]) for r in records)  # chen's own seed dealt each hand
    lines = verified(pages + records)
    titles = {title for title, _ok, _what in lines}
    assert {f"room {room.code}, hand {n}" for n in range(1, HANDS + 1)} <= titles
    for n in range(2, HANDS + 1):  # each record's link to the one before, over the pages' seams too
        assert (f"room {room.code}, hand {n}", True, f"its link is the hash of room {room.code}, hand {n - 1}") in lines


def test_the_verifier_still_fails_a_record_of_the_closed_room_that_was_changed(people, closed):
    """The check above could fail: the same files with one dealt card swapped do not pass."""
    room, _hands = closed
    chen = browser(people["chen"])
    pages = chain_pages(chen, room)
    records = record_files(chen, pages)
    changed = copy.deepcopy(records)
    changed[0]["dealt"][0], changed[0]["dealt"][1] = changed[0]["dealt"][1], changed[0]["dealt"][0]
    failed = [(title, what) for title, ok, what in checks(pages + changed) if not ok]
    n = changed[0]["hand_no"]
    assert {title for title, _what in failed} == {f"room {room.code}, hand {n}", f"room {room.code}, hand {n + 1}"}
    assert any("card 1 dealt was" in what for _title, what in failed)  # the hand itself, and the next one's link


# --- who reads the closed room, who gets 404 -----------------------------------------------------------------------


def room_urls(room: Room, hand: Hand) -> list[str]:
    """Every URL of the room's records, by its code alone and with `?room=` naming it."""
    urls = [reverse("games:room_chain", args=[room.code]), reverse("games:room_chain_json", args=[room.code]),
            reverse("games:room_hands", args=[room.code]), reverse("games:room_hand", args=[room.code, hand.number])]
    return [*urls, *(f"{url}?room={room.pk}" for url in urls)]


def hand_urls(hand: Hand) -> list[str]:
    return [hand.get_absolute_url(), reverse("games:hand_json", args=[hand.key])]


@pytest.mark.parametrize("reader", ["alice", "bob", "chen", "dara", "erin", "maud"])
def test_whoever_read_the_room_before_it_closed_reads_it_after(people, maud, closed, reader):
    room, hands = closed
    client = browser(maud if reader == "maud" else people[reader])
    for url in room_urls(room, hands[0]):
        answer = client.get(url)
        assert answer.status_code == (302 if "/hands/1/" in url else 200), url
        if answer.status_code == 302:
            assert answer.url == hands[0].get_absolute_url()
    for hand in hands:
        for url in hand_urls(hand):
            assert client.get(url).status_code == 200, url
    chain = client.get(reverse("games:room_chain_json", args=[room.code]), {"room": room.pk, "upto": HANDS}).json()
    assert all(row["record"] is not None for row in chain["hands"])


def test_who_came_after_the_second_hand_reads_the_chain_and_only_the_hands_from_then_on(people, closed):
    room, hands = closed
    frank = browser(people["frank"])
    pages = chain_pages(frank, room)
    readable = {row["hand_no"] for page in pages for row in page["hands"] if row["record"]}
    assert readable == {3, 4, 5}
    verified(pages + record_files(frank, pages))  # the hands he may not read are checked by their links alone
    assert listed(frank, room) == [5, 4, 3]
    assert frank.get(hands[0].get_absolute_url()).status_code == 404
    assert frank.get(reverse("games:room_hand", args=[room.code, 1])).status_code == 404


def test_a_stranger_gets_404_on_every_url_of_the_closed_room_as_for_an_unknown_code(people, closed):
    room, hands = closed
    gus = browser(people["gus"])
    for url in room_urls(room, hands[0]) + [u for h in hands for u in hand_urls(h)]:
        assert gus.get(url).status_code == 404, url
    unknown = Room.objects.order_by("-pk").first().pk + 1
    for code in ("0000" if room.code != "0000" else "0001", "abcd", "12345", "12"):
        for name in ("room_chain", "room_chain_json", "room_hands"):
            assert browser(people["chen"]).get(reverse(f"games:{name}", args=[code])).status_code == 404, code
        assert browser(people["chen"]).get(reverse("games:room_hand", args=[code, 1])).status_code == 404, code
    for query in (f"?room={unknown}", "?room=-1"):
        assert gus.get(reverse("games:room_chain", args=[room.code]) + query).status_code == 404, query
    assert browser().get(reverse("games:room_chain", args=[room.code])).status_code == 302  # to log in


def test_bad_query_values_change_nothing_and_answer_like_none(people, closed):
    room, _hands = closed
    chen = browser(people["chen"])
    plain = chen.get(reverse("games:room_chain_json", args=[room.code])).json()
    for query in ({"room": "abc"}, {"room": "9" * 30}, {"upto": "x"}, {"upto": "-1"}, {"upto": "9" * 30}):
        answer = chen.get(reverse("games:room_chain_json", args=[room.code]), query)
        assert answer.status_code == 200 and answer.json() == plain, query
        assert chen.get(reverse("games:room_hands", args=[room.code]), query).status_code == 200, query


def test_a_closed_club_room_is_for_its_members_and_not_for_who_left_the_club(people):
    club = clubs.club_create(owner=people["alice"], name="Friday Night")
    for name in ("bob", "chen", "dara", "erin"):
        clubs.request_decide(request=clubs.club_join(club=club, user=people[name]), by=people["alice"], approve=True)
    room, hands = night(people, club=club)
    erin, gus = browser(people["erin"]), browser(people["gus"])  # erin a member who never came; gus an outsider
    for url in room_urls(room, hands[0])[:3]:
        assert erin.get(url).status_code == 200, url
        assert gus.get(url).status_code == 404, url
    clubs.member_leave(club=club, user=people["erin"])
    for url in room_urls(room, hands[0]) + hand_urls(hands[0]):
        assert erin.get(url).status_code == 404, url


# --- what the pages say and link to ----------------------------------------------------------------------------------


def test_the_chain_page_says_the_room_is_closed_and_links_the_settle_up_and_the_hands(people, closed):
    room, hands = closed
    page = browser(people["chen"]).get(reverse("games:room_chain", args=[room.code]))
    html = page.content.decode()
    assert page.context["closed"] and 'id="room-closed"' in html and "This room is closed." in html
    assert [r["hand_no"] for r in page.context["rows"]] == [4, 5]
    assert f'href="{reverse("games:room_ledger", args=[room.code])}?room={room.pk}"' in html
    assert f'href="{reverse("games:room_hands", args=[room.code])}?room={room.pk}"' in html
    assert f'href="{reverse("games:room_chain_json", args=[room.code])}?room={room.pk}"' in html
    assert "Back to the table" not in html
    chinese = browser(people["chen"], "zh-hans").get(reverse("games:room_chain", args=[room.code])).content.decode()
    assert "此房间已关闭。" in chinese and "This room is closed." not in chinese


def test_the_hands_page_of_a_closed_room_lists_the_hands_and_says_it_is_closed(people, closed):
    room, hands = closed
    page = browser(people["chen"]).get(reverse("games:room_hands", args=[room.code]))
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html and 'id="room-closed"' in html
    assert [h.number for h in page.context["hands"]] == [5, 4]  # newest first, a page at a time
    assert page.context["older_url"] == f"{reverse('games:room_hands', args=[room.code])}?room={room.pk}&upto=3"
    assert listed(browser(people["chen"]), room) == [5, 4, 3, 2, 1]
    assert all(h.get_absolute_url() in html for h in hands[3:])
    assert f'href="{reverse("games:room_chain", args=[room.code])}?room={room.pk}"' in html
    spanish = browser(people["chen"], "es").get(reverse("games:room_hands", args=[room.code])).content.decode()
    assert "Esta sala está cerrada." in spanish


def test_a_table_still_on_screen_after_the_close_gets_its_menus_list_and_its_hands_by_number(people):
    room = services.room_create(host=people["alice"], preset="ten-half", overrides={"first_banker": "first-seated",
                                                                                      "host_banks": False})
    services.seat_take(room_id=room.pk, user=people["bob"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["chen"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["dara"], buy_in=500, role="side")
    hand = hand_of(room, people, 1)
    chen = browser(people["chen"])
    client = chen.get(room.get_absolute_url()).context["client"]  # the table page's links, made while it is open
    assert chen.get(client["hands_url"]).status_code == 200
    services.room_close(room_id=room.pk, by=people["alice"])
    newer = services.room_create(host=people["gus"], preset="ten-half")
    Room.objects.filter(pk=newer.pk).update(code=room.code)  # the code has moved on by the time the menu asks
    fragment = chen.get(client["hands_url"]).content.decode()
    assert "<html" not in fragment and hand.get_absolute_url() in fragment  # the menu's list, not a page in it
    answer = chen.get(client["hand_url"].replace("{n}", "1"))
    assert answer.status_code == 302 and answer.url == hand.get_absolute_url()
    assert browser(people["gus"]).get(client["hands_url"]).status_code == 404


def test_a_closed_rooms_hand_page_says_so_and_keeps_its_link_to_the_chain(people, closed):
    room, hands = closed
    chen = browser(people["chen"])
    chain_url = f"{reverse('games:room_chain', args=[room.code])}?room={room.pk}"
    for hand in hands:
        page = chen.get(reverse("games:room_hand", args=[room.code, hand.number]), {"room": room.pk}, follow=True)
        html = page.content.decode()
        assert page.redirect_chain == [(hand.get_absolute_url(), 302)]
        assert 'id="room-closed"' in html and "This room is closed." in html
        assert 'id="hand-chain"' in html and f'href="{chain_url}"' in html
    assert chen.get(chain_url).status_code == 200
    italian = browser(people["chen"], "it").get(hands[0].get_absolute_url()).content.decode()
    assert "Questa stanza è chiusa." in italian and f'href="{chain_url}"' in italian


def test_a_share_link_of_a_closed_rooms_hand_shows_it_closed_without_a_chain_its_viewer_may_not_read(people, closed):
    room, hands = closed
    share = hand_records.hand_share_create(hand=hands[0], by=people["chen"])
    html = browser(people["gus"]).get(share.get_absolute_url()).content.decode()
    assert 'id="room-closed"' in html and 'id="hand-chain"' not in html
    assert reverse("games:room_chain", args=[room.code]) not in html
    assert reverse("games:room_ledger", args=[room.code]) not in html
    html = browser(people["erin"]).get(share.get_absolute_url()).content.decode()  # erin reads the room: she has it
    assert f'href="{reverse("games:room_chain", args=[room.code])}?room={room.pk}"' in html


def test_the_ledger_of_a_closed_room_links_its_hands_and_its_chain(people, closed):
    room, _hands = closed
    html = browser(people["dara"]).get(reverse("games:room_ledger", args=[room.code])).content.decode()
    assert f'href="{reverse("games:room_chain", args=[room.code])}?room={room.pk}"' in html
    assert f'href="{reverse("games:room_hands", args=[room.code])}?room={room.pk}"' in html


def test_an_open_room_keeps_its_table_links_and_no_closed_notice(people):
    room = services.room_create(host=people["alice"], preset="ten-half", overrides={"first_banker": "first-seated",
                                                                                      "host_banks": False})
    services.seat_take(room_id=room.pk, user=people["bob"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["chen"], buy_in=500)
    services.seat_take(room_id=room.pk, user=people["dara"], buy_in=500, role="side")
    hand = hand_of(room, people, 1)
    chen = browser(people["chen"])
    html = chen.get(reverse("games:room_chain", args=[room.code])).content.decode()
    assert 'id="room-closed"' not in html and "Back to the table" in html
    html = chen.get(hand.get_absolute_url()).content.decode()
    assert 'id="room-closed"' not in html and f'href="{reverse("games:room_chain", args=[room.code])}"' in html
    fragment = chen.get(reverse("games:room_hands", args=[room.code])).content.decode()
    assert "<html" not in fragment and hand.get_absolute_url() in fragment  # the table menu's fragment
    # a stranger still reads an open room's chain (the hashes, no record), as anyone who may enter it
    stranger = browser(people["gus"]).get(reverse("games:room_chain_json", args=[room.code])).json()
    assert [row["record"] for row in stranger["hands"]] == [None]


def test_a_newer_room_with_the_same_code_does_not_hide_the_closed_one(people, closed):
    room, hands = closed
    newer = services.room_create(host=people["gus"], preset="ten-half")
    Room.objects.filter(pk=newer.pk).update(code=room.code)
    chen, gus = browser(people["chen"]), browser(people["gus"])
    by_code = chen.get(reverse("games:room_chain", args=[room.code]))
    assert by_code.context["room"].pk == newer.pk and not by_code.context["closed"]  # the code's open room now
    named = chen.get(reverse("games:room_chain", args=[room.code]), {"room": room.pk})
    assert named.context["room"].pk == room.pk and [r["hand_no"] for r in named.context["rows"]] == [4, 5]
    assert gus.get(reverse("games:room_chain", args=[room.code]), {"room": room.pk}).status_code == 404
    html = chen.get(hands[0].get_absolute_url()).content.decode()
    assert f'href="{reverse("games:room_chain", args=[room.code])}?room={room.pk}"' in html
    answer = chen.get(reverse("games:room_hand", args=[room.code, 1]), {"room": room.pk})
    assert answer.status_code == 302 and answer.url == hands[0].get_absolute_url()
