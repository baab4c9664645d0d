"""The wallet page's history: one line per movement, in words (wallets/selectors.py `history_for`,
wallets/views.py `describe`; the room and hand words come from games/wallet_places.py)."""

import re

import pytest
from django.urls import reverse

from games import services as games
from games.models import Hand
from tests.games.conftest import act, bet_all, make_player, play_out, state, ten_half_table
from wallets import services
from wallets.selectors import history_for

from .conftest import key

pytestmark = pytest.mark.django_db(transaction=True)  # the tables wake on commit


@pytest.fixture
def cast(settings):
    settings.WELCOME_BEANS = 10_000
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.GAMES_BOT_SECONDS = 0
    settings.GAMES_NEXT_HAND_SECONDS = 0
    return {name: make_player(name) for name in ("alice", "bob", "chen", "dara")}


def rows(page: str) -> list[str]:
    """The history table's rows as text without their time, tags stripped, spaces collapsed."""
    body = page.split('<table class="ledger">', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    body = re.sub(r"<time[^>]*>[^<]*</time>", "", body)  # each line's time, checked once below
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in body.split("</tr>") if "<td" in row]


def test_a_table_session_reads_as_buy_in_top_up_hand_and_cash_out(client, cast, settings):
    room = games.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen", "dara"):
        games.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    bob = cast["bob"]
    act(room, bob, "top_up", amount=100)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=500)
    bet_all(room, cast, amount=20)
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # stay between hands after this one: bob cashes out at once
    play_out(room)
    hand = Hand.objects.get(room=room, number=1)
    won = [m for m in history_for(bob) if m.kind == "settle"]
    assert len(won) == 1 and won[0].available == 0
    result = won[0].on_tables
    games.seat_leave(room_id=room.pk, user=bob)

    client.force_login(bob)
    page = client.get(reverse("wallets:wallet")).content.decode()
    code = room.code
    sign = "+" if result > 0 else "\u2212" if result < 0 else ""  # the minus sign, as on every page
    lines = rows(page)
    assert lines[0] == f"Left the table, room {code} +{600 + result} beans −{600 + result} beans"
    assert lines[1] == f"Hand 1 in room {code} {sign}{abs(result)} beans"
    assert lines[2] == f"Top-up, room {code} −100 beans +100 beans"
    assert lines[3] == f"Buy-in, room {code} −500 beans +500 beans"
    assert any(line == "Welcome gift +10,000 beans" for line in lines[4:])
    # One row per movement: the buy-in's two ledger entries are one line, and no internal reference shows.
    assert len([line for line in lines if "Buy-in" in line]) == 1
    assert f"room{room.pk}:s" not in page and f"{room.pk}:1<" not in page
    # The time in UTC, labelled, until static/js/format.js shows it in the browser's time zone.
    assert re.search(r'<span class="when"><time datetime="\d{4}-\d\d-\d\dT[^"]+\+00:00" data-local="datetime">[^<]+ UTC</time>', page)
    # The hand's line links to its record.
    assert f'href="{reverse("games:hand", kwargs={"key": hand.key})}"' in page


def test_a_seat_still_at_the_table_shows_its_room(client, cast):
    room = ten_half_table(cast, buy_in=500)
    assert state(room)["phase"] == "betting"
    client.force_login(cast["chen"])
    page = client.get(reverse("wallets:wallet")).content.decode()
    on_tables = page.split("On tables now", 1)[1].split("</ul>", 1)[0]
    assert f"Room {room.code}: 500 beans" in on_tables and "room" + str(room.pk) not in on_tables


def test_references_nothing_names_still_read_as_words(client, alice, bob, admin_user, settings):
    a = services.hold_create(user=alice, currency="beans", amount=400, seat_ref="elsewhere:1", idempotency_key=key())
    b = services.hold_create(user=bob, currency="beans", amount=400, seat_ref="elsewhere:2", idempotency_key=key())
    services.hand_settle(currency="beans", movements={a.pk: -30, b.pk: 30}, idempotency_key=key(),
                         memo="internal memo", hand_ref="not-a-hand")
    services.hold_release(hold=a, idempotency_key=key())
    services.adjustment_create(user=alice, currency="beans", amount=5, reason="Refund for a lost hand",
                               by=admin_user, idempotency_key=key())
    client.force_login(alice)
    lines = rows(client.get(reverse("wallets:wallet")).content.decode())
    assert lines[0] == "Adjustment: Refund for a lost hand +5 beans"
    assert lines[1] == "Left the table +370 beans −370 beans"
    assert lines[2] == "A hand −30 beans"
    assert lines[3] == "Buy-in −400 beans +400 beans"
    page = client.get(reverse("wallets:wallet")).content.decode()
    assert "elsewhere:1" not in page and "not-a-hand" not in page and "internal memo" not in page
    # With no namer configured at all, the page still renders its words.
    settings.WALLETS_PLACES = None
    assert rows(client.get(reverse("wallets:wallet")).content.decode())[1] == "Left the table +370 beans −370 beans"


def test_the_limit_counts_movements_not_entries(alice):
    for _ in range(3):
        hold = services.hold_create(user=alice, currency="beans", amount=10, seat_ref=f"x:{key()}",
                                    idempotency_key=key())
        services.hold_release(hold=hold, idempotency_key=key())
    history = history_for(alice, limit=4)
    assert [m.kind for m in history] == ["release", "hold", "release", "hold"]
    assert [(m.available, m.on_tables) for m in history] == [(10, -10), (-10, 10)] * 2


def test_a_release_for_being_away_says_so_and_other_releases_say_the_player_left():
    from types import SimpleNamespace

    from wallets.models import Transaction
    from wallets.views import describe

    def line(memo: str, room: str | None) -> str:
        movement = SimpleNamespace(kind=Transaction.Kind.RELEASE, memo=memo, place={"room": room} if room else {})
        return describe(movement)

    away = services.release_memo("room5:s12", "away")
    assert services.release_reason(away) == "away" and services.release_reason("Left room5:s12") == ""
    assert line(away, "2106") == "Left after being away, room 2106"
    assert line(services.release_memo("room5:s12"), "2106") == "Left the table, room 2106"
    assert line(away, None) == "Left after being away"
