"""Text no column can keep: a NUL (PostgreSQL refuses it in text and jsonb, and psycopg before the query is sent) or a
lone surrogate (not UTF-8; only a JSON body can carry one, a form's bad bytes decode to U+FFFD). Typed into a form, a
URL or a JSON body, it is refused like any other bad value and
changes nothing; on PostgreSQL each of these was a server error, on SQLite most were stored. The CI's services lane
runs this file on PostgreSQL too."""

import json

import pytest
from django.urls import reverse

from accounts.models import PushSubscription
from games import clubs, hand_records, services
from games.ledger_shares import ledger_share_create
from games.models import ClubMember, Hand, HandShare, HouseVariant, LedgerShare, ModerationLog, Room
from tests.games.conftest import browser
from tests.games.test_hand_records import open_room, play_hand

pytestmark = pytest.mark.django_db(transaction=True)

NUL = "a\x00b"


@pytest.fixture
def club(cast):
    found = clubs.club_create(owner=cast["alice"], name="Friday Night")
    for name in ("bob", "chen"):
        clubs.request_decide(request=clubs.club_join(club=found, user=cast[name]), by=cast["alice"], approve=True)
    return found


def test_a_club_rule_set_named_with_nul_is_refused_and_a_plain_name_is_saved(cast, club, server_errors):
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    refused = browser(cast["alice"]).post(f"/clubs/{club.pk}/rules/", {"room": room.pk, "name": NUL})
    assert refused.status_code < 500 and server_errors == []
    assert not HouseVariant.objects.filter(club=club).exists()
    saved = browser(cast["alice"]).post(f"/clubs/{club.pk}/rules/", {"room": room.pk, "name": "Fridays"})
    assert saved.status_code == 302 and HouseVariant.objects.get(club=club).name == "Fridays"


@pytest.mark.parametrize("do", ["mute", "remove"])
def test_a_club_moderation_reason_with_nul_is_refused_and_logs_nothing(cast, club, server_errors, do):
    answer = browser(cast["alice"]).post(f"/clubs/{club.pk}/members/{cast['chen'].pk}/", {"do": do, "reason": NUL})
    assert answer.status_code < 500 and server_errors == []
    assert not ModerationLog.objects.exists()
    assert ClubMember.objects.filter(club=club, user=cast["chen"], muted_until__isnull=True).exists()


def test_a_share_link_revoked_by_a_token_with_nul_stays_open(cast, server_errors):
    play_hand(open_room(cast), cast)
    hand = Hand.objects.filter(ended_at__isnull=False).get()
    share = hand_records.hand_share_create(hand=hand, by=cast["chen"])
    url = reverse("games:hand_share_revoke", args=[hand.key])
    assert browser(cast["chen"]).post(url, {"token": NUL}).status_code < 500 and server_errors == []
    assert HandShare.objects.get(pk=share.pk).revoked_at is None
    assert browser(cast["chen"]).post(url, {"token": share.token}).status_code == 302
    assert HandShare.objects.get(pk=share.pk).revoked_at is not None


def test_a_ledger_share_revoked_by_a_token_with_nul_stays_open(cast, server_errors):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    services.room_close(room_id=room.pk, by=cast["alice"])
    room = Room.objects.get(pk=room.pk)
    share = ledger_share_create(room=room, by=cast["bob"])
    url = reverse("games:room_ledger_share_revoke", args=[room.code]) + f"?room={room.pk}"
    assert browser(cast["bob"]).post(url, {"token": NUL}).status_code < 500 and server_errors == []
    assert LedgerShare.objects.get(pk=share.pk).revoked_at is None


@pytest.mark.parametrize("path", ["/records/", "/records.csv"])
def test_the_records_filtered_by_a_room_code_with_nul_drop_the_filter(cast, server_errors, path):
    assert browser(cast["bob"]).get(path, {"room": NUL}).status_code == 200 and server_errors == []


@pytest.mark.parametrize(("method", "path"), [("post", "/r/%00%00%00%00/sit/"), ("get", "/clubs/invite/a%00b/")])
def test_a_code_or_token_with_nul_in_the_path_is_not_found(cast, server_errors, method, path):
    answer = getattr(browser(cast["dara"]), method)(path, {"buy_in": "500"} if method == "post" else None)
    assert answer.status_code == 404 and server_errors == []


@pytest.fixture
def vapid(settings):
    from tests.pushservice import vapid_pair

    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = vapid_pair()
    settings.VAPID_SUBJECT = "mailto:ops@halfpoint.example"
    settings.PUSH_SERVICE_HOSTS = ["127.0.0.1", "fcm.googleapis.com"]


@pytest.mark.parametrize("tail", ["\x00", "\ud800"], ids=["nul", "surrogate"])
def test_a_push_endpoint_with_nul_is_refused_on_subscribe_and_unsubscribe(cast, vapid, server_errors, tail):
    from tests.pushservice import Browser

    subscription = Browser("https://fcm.googleapis.com/fcm/send/abc").subscription()
    good = dict(subscription)
    subscription["endpoint"] += tail
    for path, body in (("/api/push/subscribe/", {"subscription": subscription}),
                       ("/api/push/unsubscribe/", {"endpoint": subscription["endpoint"]})):
        answer = browser(cast["bob"]).post(path, json.dumps(body), content_type="application/json")
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_endpoint", path
    assert server_errors == [] and not PushSubscription.objects.exists()
    made = browser(cast["bob"]).post("/api/push/subscribe/", json.dumps({"subscription": good}),
                                     content_type="application/json")
    assert made.status_code in (200, 201) and PushSubscription.objects.count() == 1
