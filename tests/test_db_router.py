"""The read replica (config/db_router.py): the pages that only read go to it, every write and the table's locked path
go to the primary, and a browser that has just written reads from the primary for a few seconds.

The replica here is a second connection to the test database (a `replica` alias beside `default`), so what matters
is which connection each query goes through."""

import copy

import pytest
from django.db import connections, router, transaction
from django.http import Http404, HttpResponse
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from config import db_router
from config.db_router import PIN_COOKIE, PIN_SECONDS, REPLICA, reads_from_replica
from games import clubs, services
from games.models import Hand, Table
from tests.games.conftest import make_player

# The replica's connection sees committed rows only.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", REPLICA])


@pytest.fixture(scope="module", autouse=True)
def _replica_alias(django_db_setup):
    """A `replica` alias on the test database, as DATABASE_REPLICA_URL makes one (before the test's database
    checks, which refuse an alias they do not know)."""
    connections.settings[REPLICA] = {**copy.deepcopy(connections["default"].settings_dict), "TEST": {"MIRROR": "default"}}
    yield
    connections[REPLICA].close()
    del connections[REPLICA]
    del connections.settings[REPLICA]


@pytest.fixture(autouse=True)
def _pinning_middleware(settings):
    """Installed by the settings along with a replica."""
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "config.db_router.PrimaryPinMiddleware"]


def queries(alias: str) -> CaptureQueriesContext:
    return CaptureQueriesContext(connections[alias])


def sql(captured: CaptureQueriesContext) -> str:
    return " ".join(q["sql"] for q in captured.captured_queries)


def test_the_records_and_the_club_leaderboard_read_from_the_replica_and_the_session_from_the_primary(client):
    alice = make_player("alice")
    club = clubs.club_create(owner=alice, name="Tuesdays")
    client.force_login(alice)
    with queries("default") as primary, queries(REPLICA) as read:
        assert client.get("/records/").status_code == 200
        assert client.get("/records.csv").status_code == 200
        assert client.get(club.get_absolute_url()).status_code == 200
    assert "games_handseat" in sql(read) and "wallets_entry" in sql(read)
    assert "games_handseat" not in sql(primary) and "wallets_entry" not in sql(primary)
    assert "django_session" in sql(primary) and "django_session" not in sql(read)


def test_a_write_pins_the_browser_to_the_primary_for_a_few_seconds(client, monkeypatch):
    client.force_login(make_player("alice"))
    now = 1_000_000.0
    monkeypatch.setattr(db_router.time, "time", lambda: now)
    response = client.post("/wallet/daily-bonus/")  # a write: the next pages must show it
    assert response.status_code == 302
    assert response.cookies[PIN_COOKIE]["max-age"] == PIN_SECONDS + 1
    with queries(REPLICA) as read:
        assert client.get("/records/").status_code == 200
    assert read.captured_queries == []

    now += PIN_SECONDS + 1.5
    with queries(REPLICA) as read:
        assert client.get("/records/").status_code == 200
    assert "games_handseat" in sql(read)


def test_writes_and_the_tables_locked_path_use_the_primary_inside_a_replica_page(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    alice, bob = make_player("alice"), make_player("bob")
    request = RequestFactory().get("/records/")
    request.user = alice

    @reads_from_replica
    def page(request):
        assert router.db_for_read(Hand) == REPLICA
        assert router.db_for_write(Hand) == "default"
        with transaction.atomic():
            assert router.db_for_read(Table) == "default"  # a check before a write reads what it will write
        room = services.room_create(host=alice, preset="ten-half")
        for user in (alice, bob):
            services.seat_take(room_id=room.pk, user=user, buy_in=1000)
        services.action_submit(room_id=room.pk, user=alice, action="start")
        return HttpResponse()

    with queries("default") as primary, queries(REPLICA) as read:
        page(request)
    assert read.captured_queries == []
    assert "games_table" in sql(primary)
    if connections["default"].vendor == "postgresql":  # SQLite locks by its IMMEDIATE transactions instead
        assert "FOR UPDATE" in sql(primary)


def test_a_page_the_replica_does_not_have_yet_is_read_from_the_primary():
    request = RequestFactory().get("/hands/x/")
    request.user = make_player("alice")
    seen = []

    @reads_from_replica
    def page(request):
        seen.append(router.db_for_read(Hand))
        if seen[-1] == REPLICA:
            raise Http404  # the hand ended a moment ago: not replayed on the replica yet
        return HttpResponse("found")

    assert page(request).content == b"found"
    assert seen == [REPLICA, "default"]


def test_without_a_replica_every_page_reads_from_the_primary(client, monkeypatch):
    monkeypatch.delitem(connections.settings, REPLICA)
    client.force_login(make_player("alice"))
    with queries("default") as primary:
        assert client.get("/records/").status_code == 200
    assert "games_handseat" in sql(primary)
    request = RequestFactory().get("/records/")
    request.user = make_player("bob")
    assert reads_from_replica(lambda request: router.db_for_read(Hand))(request) == "default"
