"""A room's ledger and its settle-up (docs/ledger.md): a night of fifty hands with people sitting down, topping up and
leaving, whose every figure agrees with the hand records, the wallets and the audit; the settle-up that squares the
nets; the page, the CSV, the card and the share links, and who may read them.

The cast: alice hosts and plays all night, bob, chen, dara and erin come and go; gus never came to the room; maud is a
moderator."""

import csv
import hashlib
import io
import os

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import formats, timezone, translation
from PIL import Image

from games import ledger, ledger_shares, services
from games.engine import bot_decide, state_from_json, view
from games.engine.cards import DECKS
from games.ledger import room_ledger
from games.ledger_card import HEIGHT, WIDTH, card_text, font_file
from games.models import Hand, HandSeat, LedgerShare, Seat
from games.roles import MODERATORS, ensure_moderators_group
from games.services.run import _owned
from tests.games.conftest import BEANS, act, assert_holds_match_table, assert_ledger_clean, make_player, table
from wallets.audit import ledger_audit
from wallets.selectors import balances_for

pytestmark = pytest.mark.django_db(transaction=True)

NIGHT = 50


@pytest.fixture(autouse=True)
def _host_deals(_table_settings, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # a finished hand stays until the host deals the next (`night_hand`)


@pytest.fixture
def stacked(monkeypatch):
    """Each hand's first twelve cards in an order made from a hash of the hand's number (a stacked deck, no
    `random`): the deals are the same on every run as far as those cards go."""

    def start(run):
        run.meta["next_hand_at"] = None
        n = run.state.hand_no + 1
        deck = sorted(DECKS[run.state.rules.deck], key=lambda c: hashlib.sha256(f"night {n} {c}".encode()).digest())
        run.apply("system", "start_hand", {"seed_hex": hashlib.sha256(f"night {n}".encode()).hexdigest(),
                                           "deck": deck[:12]})

    monkeypatch.setattr("games.services.moves._start_hand", start)


@pytest.fixture
def people(cast):
    return {**cast, **{name: make_player(name) for name in ("erin", "gus")}}


def browser(user=None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def decide(room) -> bool:
    """Whoever has a decision to make takes it as a basic bot would; False when nobody has one."""
    t = table(room)
    s = state_from_json(t.state)
    for seat_id, info in t.meta["seats"].items():
        decision = bot_decide(view(s, seat_id), "basic", s.rules)
        if decision is not None:
            act(room, type(room.host).objects.get(pk=info["user"]), decision[0], **decision[1])
            return True
    return False


def night_hand(room, host, *, during=None) -> None:
    """The host deals the next hand and everyone plays it out; `during(room)` runs once, after the first move."""
    number = table(room).state["hand_no"] + 1
    while decide(room):  # a bank to open, take or refill between hands
        pass
    act(room, host, "start")
    for step in range(300):
        if Hand.objects.filter(room=room, number=number, ended_at__isnull=False).exists():
            return
        assert decide(room), f"nobody can move in hand {number}"
        if step == 0 and during is not None:
            during(room)
    raise AssertionError(f"hand {number} did not end")


class Night:
    """A room of beans and what the test did in it: each person's buy-ins and top-ups, as the test counts them."""

    def __init__(self, people):
        self.people = people
        self.room = services.room_create(host=people["alice"], preset="ten-half", buy_in_max=5000, overrides={
            "banker_policy": "max-hands", "bank_max_hands": 8})
        self.bought = {name: 0 for name in people}
        self.topped = {name: 0 for name in people}

    def sit(self, name, buy_in):
        services.seat_take(room_id=self.room.pk, user=self.people[name], buy_in=buy_in)
        self.bought[name] += buy_in

    def top_up(self, name, amount):
        act(self.room, self.people[name], "top_up", amount=amount)
        self.topped[name] += amount

    def leave(self, name):
        services.seat_leave(room_id=self.room.pk, user=self.people[name])


def play_night(people) -> Night:
    """Fifty hands at four main seats at most: alice, bob and chen start; dara comes at hand 6; bob tops up before 12;
    chen leaves before 18; erin comes at 24; bob leaves before 30; chen sits again before 33; dara leaves in the middle
    of hand 35; erin tops up before 40. alice, chen and erin are still seated at the end."""
    night = Night(people)
    for name in ("alice", "bob", "chen"):
        night.sit(name, 1000)
    before = {6: lambda: night.sit("dara", 800), 12: lambda: night.top_up("bob", 500),
              18: lambda: night.leave("chen"), 24: lambda: night.sit("erin", 1200),
              30: lambda: night.leave("bob"), 33: lambda: night.sit("chen", 600),
              40: lambda: night.top_up("erin", 300)}
    for n in range(1, NIGHT + 1):
        if n in before:
            before[n]()
        night_hand(night.room, people["alice"], during=(lambda room: night.leave("dara")) if n == 35 else None)
    return night


def hand_deltas(room, user) -> int:
    return sum(HandSeat.objects.filter(hand__room=room, user=user).values_list("delta", flat=True))


@pytest.fixture
def night(people, stacked) -> Night:
    return play_night(people)


# --- a night of fifty hands -----------------------------------------------------------------------------------------


def test_a_nights_ledger_agrees_with_the_hands_the_wallets_and_the_audit(people, night):
    room = night.room
    assert Hand.objects.filter(room=room, ended_at__isnull=False).count() == NIGHT
    with CaptureQueriesContext(connection) as queries:
        book = ledger.room_ledger(room)
    assert len(queries) == 2, [q["sql"] for q in queries]  # aggregated in the database, not hand by hand
    by_name = {p.name: p for p in book.people}
    order = ["Alice", "Bob", "Chen", "Dara", "Erin"]
    assert [p.name for p in book.people] == order  # in the order they first sat down
    seated = {p.user_id for p in book.people if p.seated}
    assert seated == {people[n].pk for n in ("alice", "chen", "erin")}
    owned = _owned(table(room).state)
    seat_of_user = {info["user"]: seat_id for seat_id, info in table(room).meta["seats"].items()}
    for name in ("alice", "bob", "chen", "dara", "erin"):
        user, p = people[name], by_name[name.capitalize()]
        assert (p.bought_in, p.topped_up) == (night.bought[name], night.topped[name]), name
        assert p.on_table == (owned[seat_of_user[user.pk]] if user.pk in seat_of_user else 0), name
        # The net is what the hands moved (the hand records) ...
        assert p.net == hand_deltas(room, user), name
        # ... and what the wallet has gained: nothing else happened to these wallets.
        beans = balances_for(user)["beans"]
        assert beans["available"] + beans["held"] == BEANS + p.net, name
        assert p.taken_away == beans["available"] - (BEANS - p.bought_in - p.topped_up), name
        assert p.hands == HandSeat.objects.filter(hand__room=room, user=user).count() > 0, name
        assert p.banker == sum(HandSeat.objects.filter(hand__room=room, user=user, role="banker")
                               .values_list("delta", flat=True)), name
    assert by_name["Chen"].bought_in == 1600 and by_name["Dara"].taken_away > 0  # two seats; left mid-hand
    assert sum(p.banked for p in book.people) == NIGHT  # every hand had one bank ...
    assert len([p for p in book.people if p.banked]) >= 2  # ... which went round
    assert sum(p.net for p in book.people) == 0 and book.balanced  # no rake in a bean room
    assert_holds_match_table(room)
    assert_ledger_clean()
    audit = ledger_audit()
    assert audit["ok"] and audit["totals"]["beans"]["held"] == book.total("on_table") > 0
    call_command("wallet_audit", stdout=io.StringIO())  # exits 1 on any violation

    answer = browser(people["bob"]).get(reverse("games:room_ledger_csv", args=[room.code]))
    assert answer.status_code == 200 and answer["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(answer.content.decode())))
    assert rows[0] == ["player", "bought_in", "topped_up", "taken_away", "on_table", "net", "hands", "hands_banked",
                       "banker_result"]
    assert rows[1:] == [[p.name, *(str(getattr(p, f)) for f in ("bought_in", "topped_up", "taken_away", "on_table",
                                                                "net", "hands", "banked", "banker"))]
                        for p in book.people]

    data = browser(people["dara"]).get(reverse("games:room_ledger_json", args=[room.code])).json()
    assert data["room"]["status"] == "open" and data["settle"] is None and data["balanced"]
    assert [(p["name"], p["net"], p["on_table"], p["hands"]) for p in data["people"]] == [
        (p.name, p.net, p.on_table, p.hands) for p in book.people]

    # Closing the room sends every stack home: the nets stay, what was on the table is taken away.
    services.room_close(room_id=room.pk, by=people["alice"])
    closed = ledger.room_ledger(type(room).objects.get(pk=room.pk))
    assert [(p.name, p.net) for p in closed.people] == [(p.name, p.net) for p in book.people]
    assert all(p.on_table == 0 and not p.seated for p in closed.people)
    assert closed.total("taken_away") == book.total("taken_away") + book.total("on_table")
    assert_ledger_clean()
    owed = {p.user_id: p.net for p in closed.people}
    transfers = closed.settle_up()
    for t in transfers:
        owed[t.payer.user_id] += t.amount
        owed[t.payee.user_id] -= t.amount
        assert t.amount > 0 and t.payer.net < 0 < t.payee.net
    assert set(owed.values()) == {0}  # squared
    assert len(transfers) < len([p for p in closed.people if p.net])
    page = browser(people["erin"]).get(reverse("games:room_ledger", args=[room.code]) + f"?room={room.pk}")
    text = page.content.decode()
    assert page.status_code == 200 and 'id="settle"' in text and 'id="share-make"' in text
    assert text.count('<li data-from="') == len(transfers)
    for t in transfers:
        assert f'data-from="{t.payer.user_id}" data-to="{t.payee.user_id}" data-amount="{t.amount}"' in text


def test_the_settle_up_pays_the_largest_debt_to_the_largest_credit_first(people):
    room = services.room_create(host=people["alice"], preset="ten-half")

    def person(user_id, name, net):
        return ledger.Person(user_id=user_id, name=name, bot=False, bought_in=1000, topped_up=0, taken_away=1000 + net,
                             on_table=0, seated=False, hands=5, banked=0, banker=0)

    book = ledger.Ledger(room=room, people=[person(1, "Ann", 300), person(2, "Ben", -250), person(3, "Cy", 100),
                                            person(4, "Di", -150), person(5, "Ed", 0)])
    assert [(t.payer.name, t.payee.name, t.amount) for t in book.settle_up()] == [
        ("Ben", "Ann", 250), ("Di", "Cy", 100), ("Di", "Ann", 50)]  # after the first, Cy is owed the most
    assert [p.name for p in book.by_net] == ["Ann", "Cy", "Ed", "Di", "Ben"]
    assert book.balanced
    even = ledger.Ledger(room=room, people=[person(1, "Ann", 0), person(2, "Ben", 0)])
    assert even.settle_up() == []


def test_in_a_practice_room_the_bots_are_people_of_the_ledger_and_the_points_add_up(people):
    mei = people["dara"]
    room = services.practice_open(user=mei, preset="ten-half")
    for number in (1, 2, 3):  # the first is dealt already; mei deals the next (the bots play by themselves)
        if number > 1:
            while decide(room):
                pass
            act(room, mei, "start")
        while not Hand.objects.filter(room=room, number=number, ended_at__isnull=False).exists():
            assert decide(room), f"nobody can move in hand {number}"
    book = ledger.room_ledger(room)
    bots = [p for p in book.people if p.bot]
    assert room.currency == "points" and len(bots) >= 1 and book.people[0].user_id == mei.pk
    assert book.balanced and sum(p.net for p in book.people) == 0
    for p in book.people:
        assert p.net == sum(HandSeat.objects.filter(hand__room=room, user_id=p.user_id).values_list("delta", flat=True))
        assert p.bought_in == sum(Seat.objects.filter(room=room, user_id=p.user_id).values_list("buy_in", flat=True))
    assert_ledger_clean()


# --- who may read it ---------------------------------------------------------------------------------------------------


def ledger_urls(room) -> list[str]:
    return [reverse(f"games:{name}", args=[room.code]) for name in
            ("room_ledger_json", "room_ledger", "room_ledger_csv", "room_settle_png")]


def small_night(people, hands=2):
    """alice banks, bob and chen challenge, for `hands` hands."""
    room = services.room_create(host=people["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=people[name], buy_in=500)
    for _n in range(hands):
        night_hand(room, people["alice"])
    return room


def test_a_stranger_gets_404_on_every_ledger_url_a_player_a_watcher_the_host_and_a_moderator_200(people, stacked):
    room = small_night(people)
    gus, erin = browser(people["gus"]), browser(people["erin"])
    for url in ledger_urls(room):
        assert gus.get(url).status_code == 404, url
        assert browser(people["bob"]).get(url).status_code == 200, url
    erin.get(room.get_absolute_url())  # she comes to the table: a watcher from now on
    ensure_moderators_group(apps)  # a flush between transactional tests removes what migrations created
    maud = make_player("maud")
    maud.groups.add(Group.objects.get(name=MODERATORS))
    for url in ledger_urls(room):
        assert erin.get(url).status_code == 200, url
        assert browser(type(maud).objects.get(pk=maud.pk)).get(url).status_code == 200, url
    services.room_close(room_id=room.pk, by=people["alice"])
    for url in ledger_urls(room):
        assert gus.get(url).status_code == 404, url
        assert browser(people["alice"]).get(url).status_code == 200, url
    assert browser().get(ledger_urls(room)[0]).status_code == 302  # to log in
    # A newer room with the same code does not hide the closed one from its players.
    newer = services.room_create(host=people["gus"], preset="ten-half")
    type(newer).objects.filter(pk=newer.pk).update(code=room.code)
    assert browser(people["bob"]).get(ledger_urls(room)[0]).json()["room"]["id"] == room.pk
    assert browser(people["gus"]).get(ledger_urls(room)[0]).json()["room"]["id"] == newer.pk
    assert browser(people["gus"]).get(ledger_urls(room)[0] + f"?room={room.pk}").status_code == 404


def test_reloading_a_closed_rooms_table_shows_its_players_the_settle_up_and_a_stranger_404(people, stacked):
    room = small_night(people, hands=2)
    table_url = room.get_absolute_url()
    services.room_close(room_id=room.pk, by=people["alice"])
    answer = browser(people["bob"]).get(table_url, follow=True)
    assert answer.redirect_chain == [(reverse("games:room_ledger", args=[room.code]) + f"?room={room.pk}", 302)]
    text = answer.content.decode()
    assert 'id="settle"' in text and "This room has closed" in text
    assert browser(people["gus"]).get(table_url).status_code == 404  # never sat, watched nor hosted here
    assert browser(people["bob"]).get("/r/99999/").status_code == 404


def test_a_share_link_works_without_login_until_its_maker_or_the_host_revokes_it(people, stacked):
    room = small_night(people)
    chen = browser(people["chen"])
    make = reverse("games:room_ledger_share", args=[room.code])
    chen.post(make)
    assert not LedgerShare.objects.exists()  # not while the room is open
    services.room_close(room_id=room.pk, by=people["alice"])
    room.refresh_from_db()
    page = chen.post(make, {"room": room.pk}, follow=True)
    share = LedgerShare.objects.get()
    assert share.created_by == people["chen"] and len(share.token) == 22 and "Share link made" in page.content.decode()
    shared = share.get_absolute_url()
    assert shared in page.content.decode()
    anonymous = Client()
    text = anonymous.get(shared).content.decode()
    card = reverse("games:ledger_shared_png", args=[share.token])
    assert f'<meta property="og:image" content="http://testserver{card}">' in text
    assert 'id="settle"' in text and 'id="shared-by"' in text
    answer = anonymous.get(card)
    assert answer.status_code == 200 and answer["Content-Type"] == "image/png"
    with pytest.raises(services.GameError) as e:  # a watcher who never sat cannot share it
        ledger_shares.ledger_share_create(room=room, by=people["gus"])
    assert e.value.code == "not_a_player"
    with pytest.raises(services.GameError) as e:  # bob sat, but the link is chen's
        ledger_shares.ledger_share_revoke(room=room, token=share.token, by=people["bob"])
    assert e.value.code == "no_share" and LedgerShare.objects.get().revoked_at is None
    page = browser(people["alice"]).post(reverse("games:room_ledger_share_revoke", args=[room.code]),
                                         {"room": room.pk, "token": share.token}, follow=True)
    assert "Share link revoked" in page.content.decode()
    assert anonymous.get(shared).status_code == 404 and anonymous.get(card).status_code == 404
    second = ledger_shares.ledger_share_create(room=room, by=people["chen"])
    ledger_shares.ledger_share_revoke(room=room, token=second.token, by=people["chen"])
    assert anonymous.get(second.get_absolute_url()).status_code == 404


def test_the_card_is_a_png_of_its_size_in_the_viewers_language(people, stacked):
    type(people["chen"]).objects.filter(pk=people["chen"].pk).update(display_name="陈大文")
    room = small_night(people)
    services.room_close(room_id=room.pk, by=people["alice"])
    url = reverse("games:room_settle_png", args=[room.code])
    english = browser(people["bob"]).get(url, HTTP_ACCEPT_LANGUAGE="en")
    chinese = browser(people["bob"]).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    for answer in (english, chinese):
        assert answer.status_code == 200 and answer["Content-Type"] == "image/png"
        assert answer.content.startswith(b"\x89PNG\r\n\x1a\n")
        image = Image.open(io.BytesIO(answer.content))
        image.verify()
        assert (image.format, image.size) == ("PNG", (WIDTH, HEIGHT)) == ("PNG", (1200, 630))
    assert english.content != chinese.content  # the words are the viewer's
    if os.path.exists("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"):
        assert "CJK" in font_file()[0]  # Chinese names are drawn, not boxes


def test_the_card_says_who_pays_whom_the_nights_hours_and_the_biggest_winner(people, stacked):
    room = small_night(people, hands=3)
    services.room_close(room_id=room.pk, by=people["alice"])
    room.refresh_from_db()
    book = room_ledger(room)
    with translation.override("en"):  # whatever an earlier test of this process left active
        text = card_text(book)
    nets = {p.name: p.net for p in book.people}
    assert [value for _name, _net, value in text.nets] == sorted(nets.values(), reverse=True)
    # The transfers square every net: what each pays out and takes in is their net, and nobody pays themself.
    squared = dict.fromkeys(nets, 0)
    for payer, payee, amount in text.transfers:
        assert payer != payee
        squared[payer] -= int(amount.replace(",", ""))
        squared[payee] += int(amount.replace(",", ""))
    assert squared == nets
    assert len(text.transfers) == len(book.settle_up()) < len(nets)
    top = max(nets, key=nets.get)
    if nets[top] > 0:
        assert text.winner == f"Biggest winner: {top}, +{nets[top]:,}"
    else:
        assert text.winner is None
    start, end = timezone.localtime(room.created_at), timezone.localtime(room.closed_at)
    with translation.override("en"):
        assert f"{formats.time_format(start)} to {formats.time_format(end)}" in text.about
    # The picture's alt (and the ledger JSON's `card`) says all of it, in the order drawn.
    said = [text.title, text.code, text.about, *(f"{name} {net}" for name, net, _v in text.nets),
            *(f"{payer} → {payee} {amount}" for payer, payee, amount in text.transfers), *filter(None, [text.winner])]
    places = [text.alt.index(x) for x in said]
    assert places == sorted(places), text.alt


def test_a_card_of_even_nets_has_no_transfers_and_no_winner(people, stacked):
    room = services.room_create(host=people["alice"], preset="ten-half")
    for name in ("alice", "bob"):
        services.seat_take(room_id=room.pk, user=people[name], buy_in=500)
    services.room_close(room_id=room.pk, by=people["alice"])
    room.refresh_from_db()
    with translation.override("en"):
        text = card_text(room_ledger(room))
    assert [net for _name, net, _value in text.nets] == ["0", "0"]
    assert text.transfers == [] and text.winner is None
