"""Web Push notifications (accounts/push.py, accounts/push_api.py, games/notify.py): a browser's subscription stored
through the endpoints, refused whole when any part is wrong; a player told of their turn only while no page of
theirs is in view, of a new hand only while they have no page of the room open, of a club's new room only when they
want it; what reaches the push service (encrypted to the browser's keys, in the player's language, signed with the
site's VAPID key); a gone subscription deleted; and a table's command costing the same queries with notifications."""

import json
import time

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from accounts.models import PushPreferences, PushSubscription
from accounts.push import preferences_for, preferences_update, subscription_save
from games import clubs, notify, services
from games.models import Seat
from tests.games.conftest import act, bet_all, state, ten_half_table, user_of
from tests.games.sockets import Tab, create_room, db
from tests.pushservice import Browser, b64, vapid_claims, vapid_pair

pytestmark = pytest.mark.django_db(transaction=True)  # the checks are queued on commit
SUBJECT = "mailto:ops@halfpoint.example"


@pytest.fixture
def vapid(settings):
    """Push set up, with the local push service allowed; the public key."""
    private, public = vapid_pair()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY, settings.VAPID_SUBJECT = private, public, SUBJECT
    settings.PUSH_SERVICE_HOSTS = ["127.0.0.1", "fcm.googleapis.com"]
    return public


def subscribe(user, service, **kinds) -> Browser:
    browser = Browser(service.endpoint(user.username))
    subscription_save(user=user, subscription=browser.subscription(), kinds=kinds)
    return browser


def message(browser: Browser, received) -> dict:
    _path, _headers, body = received
    return browser.decrypt(body)


# --- what is sent, and when ---------------------------------------------------------------------------------------


def test_a_players_turn_reaches_their_browser_encrypted_signed_and_in_their_language(cast, vapid, service):
    bob = cast["bob"]
    bob.language = "it"
    bob.save(update_fields=["language"])
    browser = subscribe(bob, service)
    room = ten_half_table(cast)  # the first hand is dealt: bob must bet, and no page of his is in view
    [(path, headers, body)] = service.wait("bob")
    with translation.override("it"):
        title, text = translation.gettext("Room %(code)s") % {"code": room.code}, translation.gettext(notify.YOUR_TURN)
    assert title != f"Room {room.code}"  # Italian, not the English default
    assert browser.decrypt(body) == {"title": title, "body": text, "url": f"/r/{room.code}/", "tag": f"room-{room.pk}"}
    assert headers["content-encoding"] == "aes128gcm"
    claims = vapid_claims(headers["authorization"], vapid)
    assert claims["aud"] == service.url and claims["sub"] == SUBJECT and claims["exp"] > time.time()
    assert 0 < int(headers["ttl"]) <= state(room)["rules"]["bet_seconds"]  # worth nothing once the bet is over
    assert headers["topic"] == f"room{room.pk}"
    assert PushSubscription.objects.get(user=bob).last_used_at is not None


def test_no_notification_while_a_page_of_the_player_is_in_view(cast, vapid, service):
    subscribe(cast["bob"], service)
    subscribe(cast["chen"], service)
    notify.visibility_set(user_id=cast["bob"].pk, channel="bob-tab", visible=True)
    ten_half_table(cast)
    service.wait("chen")  # chen's page is not in view: told
    assert service.to("bob") == []


def test_a_page_hidden_again_or_closed_counts_as_not_in_view(cast, vapid):
    bob = cast["bob"].pk
    notify.visibility_set(user_id=bob, channel="tab-1", visible=True)
    notify.visibility_set(user_id=bob, channel="tab-2", visible=True)
    notify.visibility_set(user_id=bob, channel="tab-1", visible=False)
    assert notify.user_visible(bob)
    notify.visibility_set(user_id=bob, channel="tab-2", visible=False)
    assert not notify.user_visible(bob)


@pytest.mark.usefixtures("fresh_layer")
async def test_the_socket_keeps_whether_its_page_is_in_view_until_it_closes(cast, vapid):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    await tab.open()
    await tab.send({"type": "visibility", "visible": "yes"})
    assert (await tab.reply("error"))["code"] == "bad_visibility"
    await tab.send({"type": "visibility", "visible": True})
    await tab.send({"type": "ping"})
    await tab.reply("pong")  # the frames before it were handled
    assert await db(notify.user_visible)(cast["bob"].pk)
    await tab.close()
    assert not await db(notify.user_visible)(cast["bob"].pk)


def test_a_player_who_acted_before_the_check_is_not_told(cast, vapid, service):
    room = ten_half_table(cast)
    subscribe(cast["bob"], service)
    deadline = state(room)["deadline"]
    act(room, cast["bob"], "bet", amount=20)  # bob confirmed his bet within the grace
    sent = notify.push_check(room_id=room.pk, deadline=deadline, waiting=[cast["bob"].pk], hand_no=None, dealt=[])
    assert sent == {} and service.to("bob") == []
    # The same check for chen, who has not bet yet, does tell her: the check itself works.
    subscribe(cast["chen"], service)
    assert notify.push_check(room_id=room.pk, deadline=deadline, waiting=[cast["chen"].pk], hand_no=None,
                             dealt=[]) == {cast["chen"].pk: "your_turn"}


def test_a_player_with_your_turn_off_is_not_told(cast, vapid, service):
    subscribe(cast["bob"], service, your_turn=False)
    subscribe(cast["chen"], service)
    ten_half_table(cast)
    service.wait("chen")
    assert service.to("bob") == []


def test_a_new_hand_is_told_to_a_player_with_no_page_of_the_room_open(cast, vapid, service):
    bob = subscribe(cast["bob"], service, next_hand=True)
    chen = subscribe(cast["chen"], service, next_hand=True)
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen", "dara"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    Seat.objects.filter(room=room, user=cast["chen"]).update(connected=True)  # chen has the room open, hidden
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=500)
    assert message(bob, service.wait("bob")[0])["body"] == translation.gettext(notify.NEXT_HAND)
    assert message(chen, service.wait("chen")[0])["body"] == translation.gettext(notify.YOUR_TURN)


@pytest.mark.parametrize(("status", "kept"), [(410, False), (404, False), (500, True)])
def test_a_subscription_the_push_service_says_is_gone_is_deleted(cast, vapid, service, status, kept):
    service.status = status
    subscribe(cast["bob"], service)
    ten_half_table(cast)
    service.wait("bob")
    assert PushSubscription.objects.filter(user=cast["bob"]).exists() is kept


def test_a_new_club_room_is_told_to_the_members_who_want_it(cast, vapid, service):
    club = clubs.club_create(owner=cast["alice"], name="Friday Night", members_create_rooms=True)
    for name in ("bob", "chen"):
        clubs.request_decide(request=clubs.club_join(club=club, user=cast[name]), by=cast["alice"], approve=True)
    bob = subscribe(cast["bob"], service, club_room=True)
    subscribe(cast["chen"], service)  # club_room is off by default
    subscribe(cast["dara"], service, club_room=True)  # not a member
    subscribe(cast["alice"], service, club_room=True)  # the host: she opened it
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    got = message(bob, service.wait("bob")[0])
    assert got["url"] == f"/r/{room.code}/" and "Friday Night" in got["body"] and "Alice" in got["body"]
    assert [r[0] for r in service.received] == ["/push/bob"]


def test_without_vapid_keys_nothing_is_queued(cast, settings, monkeypatch):
    queued = []
    monkeypatch.setattr(notify, "_queue", lambda task, countdown, **kwargs: queued.append(kwargs))
    subscription_save(user=cast["bob"], subscription=Browser("https://fcm.googleapis.com/fcm/send/x").subscription())
    ten_half_table(cast)
    assert queued == []
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = vapid_pair()
    settings.VAPID_SUBJECT = SUBJECT
    room = ten_half_table(cast)  # the same moments, push set up: queued
    assert queued and all(q["room_id"] == room.pk for q in queued)


def test_a_command_costs_the_same_queries_with_notifications_on(cast, settings, monkeypatch, service):
    """The commit path only queues the check (a broker message, no query); the worker reads. Measured as in
    production, with tasks queued rather than run inline: the table's wake and the check are both caught."""
    queued = []

    def first_stand(room) -> int:
        bet_all(room, cast)
        user = user_of(room, state(room)["hand"]["turn"][0])
        settings.CELERY_TASK_ALWAYS_EAGER = False
        try:
            with monkeypatch.context() as queue:
                queue.setattr("games.tasks.schedule_wake", lambda room_id, version, wake_at: None)
                queue.setattr(notify.push_check, "apply_async",
                              lambda kwargs, countdown: queued.append((kwargs, countdown)))
                with CaptureQueriesContext(connection) as queries:
                    act(room, user, "stand")  # the next challenger's turn starts
        finally:
            settings.CELERY_TASK_ALWAYS_EAGER = True
        return len(queries)

    without = first_stand(ten_half_table(cast))
    assert queued == []
    room = ten_half_table(cast)
    private, public = vapid_pair()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY, settings.VAPID_SUBJECT = private, public, SUBJECT
    settings.PUSH_SERVICE_HOSTS = ["127.0.0.1"]
    for name in ("bob", "chen", "dara"):
        subscribe(cast[name], service)
    with_push = first_stand(room)
    assert with_push == without
    [(check, countdown)] = queued
    turn = state(room)["hand"]["turn"][0]
    assert check["room_id"] == room.pk and check["waiting"] == [user_of(room, turn).pk]
    assert countdown == notify.PUSH_GRACE_SECONDS


# --- the endpoints ------------------------------------------------------------------------------------------------


def post(client, name: str, body) -> tuple[int, dict]:
    response = client.post(reverse(f"api:{name}"), json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


@pytest.fixture
def bob_client(cast):
    c = Client()
    c.force_login(cast["bob"])
    return c


def test_subscribe_stores_the_browser_and_turns_the_kinds_on(cast, vapid, service, bob_client):
    browser = Browser(service.endpoint("bob"))
    status, answer = post(bob_client, "push_subscribe", {"subscription": browser.subscription(),
                                                         "kinds": {"next_hand": True}})
    assert (status, answer) == (200, {"kinds": {"your_turn": True, "next_hand": True, "club_room": False, "night_again": True}})
    sub = PushSubscription.objects.get()
    assert (sub.user, sub.endpoint, sub.p256dh, sub.auth) == (
        cast["bob"], browser.endpoint, browser.subscription()["keys"]["p256dh"], b64(browser.auth))


def test_subscribing_again_refreshes_the_keys_and_follows_the_account_logged_in(cast, vapid, service, bob_client):
    browser = Browser(service.endpoint("shared-laptop"))
    post(bob_client, "push_subscribe", {"subscription": browser.subscription()})
    chen = Client()
    chen.force_login(cast["chen"])
    renewed = Browser(browser.endpoint)
    assert post(chen, "push_subscribe", {"subscription": renewed.subscription()})[0] == 200
    sub = PushSubscription.objects.get()
    assert sub.user == cast["chen"] and sub.p256dh == renewed.subscription()["keys"]["p256dh"]


GOOD = Browser("https://fcm.googleapis.com/fcm/send/abc").subscription()


@pytest.mark.parametrize(("body", "code"), [
    ({}, "bad_subscription"),
    ({"subscription": {"endpoint": GOOD["endpoint"]}}, "bad_subscription"),
    ({"subscription": {**GOOD, "endpoint": "http://fcm.googleapis.com/fcm/send/abc"}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "endpoint": "https://intranet.example/admin"}}, "bad_endpoint"),
    # A listed host on another port is another server there, not the push service.
    ({"subscription": {**GOOD, "endpoint": "https://fcm.googleapis.com:8443/fcm/send/abc"}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "endpoint": "https://fcm.googleapis.com:80/fcm/send/abc"}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "endpoint": "https://fcm.googleapis.com:99999/fcm/send/abc"}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "endpoint": "https://fcm.googleapis.com:x/fcm/send/abc"}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "endpoint": "https://fcm.googleapis.com/" + "x" * 1000}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "endpoint": ["https://fcm.googleapis.com/"]}}, "bad_endpoint"),
    ({"subscription": {**GOOD, "keys": {**GOOD["keys"], "p256dh": b64(b"\x04" + bytes(64))}}}, "bad_subscription"),
    ({"subscription": {**GOOD, "keys": {**GOOD["keys"], "p256dh": "not base64!"}}}, "bad_subscription"),
    ({"subscription": {**GOOD, "keys": {**GOOD["keys"], "auth": b64(bytes(15))}}}, "bad_subscription"),
    ({"subscription": GOOD, "kinds": {"invite": True}}, "bad_kinds"),
    ({"subscription": GOOD, "kinds": {"your_turn": 1}}, "bad_kinds"),
    ({"subscription": GOOD, "kinds": ["your_turn"]}, "bad_kinds"),
])
def test_a_bad_subscription_is_refused_with_its_code_and_stores_nothing(cast, vapid, bob_client, body, code):
    status, answer = post(bob_client, "push_subscribe", body)
    assert (status, answer["error"]["code"]) == (400, code)
    assert not PushSubscription.objects.exists() and not PushPreferences.objects.exists()


def test_turning_one_browser_off_is_one_call_and_leaves_the_others(cast, vapid, service, bob_client):
    phone, laptop = Browser(service.endpoint("phone")), Browser(service.endpoint("laptop"))
    for b in (phone, laptop):
        post(bob_client, "push_subscribe", {"subscription": b.subscription()})
    subscribe(cast["chen"], service)
    assert post(bob_client, "push_unsubscribe", {"endpoint": phone.endpoint}) == (200, {"removed": 1})
    assert post(bob_client, "push_unsubscribe", {"endpoint": service.endpoint("chen")}) == (200, {"removed": 0})
    assert sorted(PushSubscription.objects.values_list("endpoint", flat=True)) == sorted(
        [laptop.endpoint, service.endpoint("chen")])
    assert post(bob_client, "push_unsubscribe", {"endpoint": 7})[1]["error"]["code"] == "bad_endpoint"


def test_preferences_are_read_and_set_per_kind(cast, vapid, bob_client):
    assert bob_client.get(reverse("api:push_preferences")).json() == {
        "kinds": {"your_turn": True, "next_hand": False, "club_room": False, "night_again": True}}
    assert post(bob_client, "push_preferences", {"kinds": {"your_turn": False, "club_room": True, "night_again": False}}) == (
        200, {"kinds": {"your_turn": False, "next_hand": False, "club_room": True, "night_again": False}})
    assert post(bob_client, "push_preferences", {"kinds": {"your_turn": "no"}})[1]["error"]["code"] == "bad_kinds"
    assert preferences_for(cast["bob"]) == {"your_turn": False, "next_hand": False, "club_room": True, "night_again": False}


def test_a_session_post_without_its_csrf_token_is_refused(cast, vapid, service):
    c = Client(enforce_csrf_checks=True)
    c.force_login(cast["bob"])
    status, answer = post(c, "push_subscribe", {"subscription": Browser(service.endpoint("bob")).subscription()})
    assert (status, answer["error"]["code"]) == (403, "csrf_failed")
    assert not PushSubscription.objects.exists()


def test_without_vapid_keys_the_endpoints_answer_push_off(cast, bob_client):
    assert post(bob_client, "push_subscribe", {"subscription": GOOD})[1]["error"]["code"] == "push_off"
    assert bob_client.get(reverse("api:push_preferences")).status_code == 404
    assert not PushSubscription.objects.exists()


# --- the pages ----------------------------------------------------------------------------------------------------


def test_the_table_and_the_profile_offer_notifications_only_when_push_is_set_up(cast, settings, bob_client):
    room = ten_half_table(cast)
    pages = (reverse("games:room", kwargs={"code": room.code}), reverse("profile"))
    for page in pages:
        html = bob_client.get(page).content.decode()
        assert "push-offer" not in html and "push-settings" not in html and "push.js" not in html
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = vapid_pair()
    settings.VAPID_SUBJECT = SUBJECT
    preferences_update(user=cast["bob"], kinds={"club_room": True})
    table, profile = (bob_client.get(page).content.decode() for page in pages)
    assert 'id="push-offer"' in table and f'data-key="{settings.VAPID_PUBLIC_KEY}"' in table
    assert f'data-key="{settings.VAPID_PUBLIC_KEY}"' in profile and "js/push.js" in profile
    assert 'data-kind="club_room" id="push-kind-club_room" checked' in profile
    assert 'data-kind="next_hand" id="push-kind-next_hand">' in profile
