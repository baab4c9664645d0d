"""Notifications in a real browser (static/js/push.js, static/js/socket.js, games/notify.py): the table offers them
only after a hand the player played there has finished; the offer subscribes through the page's own code; a turn
that comes while the table is in view sends nothing, one that comes while it is hidden reaches the push service,
encrypted to the browser's keys, in the player's language; the profile's toggles and its one-click "off". Without
VAPID keys the table offers nothing.

Headless Chromium reaches no real push service, so the page's PushManager is stood in for by an init script whose
subscription names a push service this test runs (tests/pushservice.py) and carries keys this test made; everything
else is the site's real path: the service worker, the subscribe endpoint, the socket's visibility messages and the
check, run inline (the server runs Celery eagerly). Screenshots of the offer and the profile at 360 and 1280 px."""

import json
import time

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from accounts.models import PushPreferences, PushSubscription
from games import notify
from games.models import Room
from tests.e2e.conftest import play_out
from tests.e2e.test_cues import STAND_INS, hide
from tests.e2e.test_table import chip, start_and_open_bank
from tests.pushservice import Browser, vapid_claims

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# The browser's PushManager, answering with the test's subscription; kept over reloads as a real one is.
PUSH_MANAGER = """
(() => {
  const subscription = %s;
  const made = () => ({
    endpoint: subscription.endpoint, expirationTime: null, toJSON: () => subscription,
    unsubscribe: async () => { localStorage.removeItem("test.subscribed"); return true; },
  });
  PushManager.prototype.subscribe = async function () {
    localStorage.setItem("test.subscribed", "1");
    return made();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem("test.subscribed") ? made() : null;
  };
})();
"""



def wait_until(predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def bet_and_play(alice, bob):
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    bob.click_enabled("#act-reset")  # the box starts at the previous stake: from nothing, one chip
    chip(bob, 0)
    bob.page.wait_for_function("document.querySelector('#bet-box').value === '10'")
    bob.click_enabled("#act-confirm")
    play_out([alice, bob])
    bob.wait_view("v.hand.over")


@pytest.mark.services  # on PostgreSQL and Redis, as in production (.ci/run's second pass)
def test_the_offer_after_a_hand_subscribes_and_a_hidden_table_gets_its_turn(push_server, service, players):
    base, vapid_public = push_server
    phone = Browser(service.endpoint("bob-phone"))
    alice = players(base, "alice").signup()
    bob = players(base, "bob", viewport={"width": 360, "height": 740})
    bob.context.grant_permissions(["notifications"], origin=base)
    bob.context.add_init_script(STAND_INS + PUSH_MANAGER % json.dumps(phone.subscription()))
    bob.signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(None, buy_in=500)
    user = get_user_model().objects.get(username="bob")
    wait_until(lambda: notify.user_visible(user.pk))  # the socket said its page is in view
    offer = bob.page.locator("#push-offer")
    assert offer.is_hidden()  # never on page load

    start_and_open_bank(alice, 400)
    bob.wait_view("v.phase === 'betting'")
    assert offer.is_hidden()  # nor during the hand
    bet_and_play(alice, bob)
    offer.wait_for(state="visible")
    assert offer.get_attribute("data-key") == vapid_public
    assert "turn" in offer.inner_text()
    bob.screenshot("push-offer-table-360")
    bob.page.set_viewport_size({"width": 1280, "height": 800})
    bob.screenshot("push-offer-table-1280")

    bob.page.click("#push-offer-yes")
    bob.page.wait_for_function("document.querySelector('#push-offer-status').textContent !== ''")
    wait_until(lambda: PushSubscription.objects.filter(user=user).exists())
    sub = PushSubscription.objects.get(user=user)
    assert (sub.endpoint, sub.p256dh, sub.auth) == (phone.endpoint, phone.subscription()["keys"]["p256dh"],
                                                     phone.subscription()["keys"]["auth"])
    get_user_model().objects.filter(pk=user.pk).update(language="it")

    # A hand while the table is in view: bob's bet and his turn come, and nothing is sent.
    alice.click_enabled("#host-start")
    bet_and_play(alice, bob)
    assert service.to("bob-phone") == []

    # The table hidden: the next hand's bet waits for bob, and his browser is told.
    hide(bob, True)
    wait_until(lambda: not notify.user_visible(user.pk))
    alice.click_enabled("#host-start")
    [(path, headers, body)] = service.wait("bob-phone")
    assert headers["content-encoding"] == "aes128gcm"
    assert vapid_claims(headers["authorization"], vapid_public)["aud"] == service.url
    room_pk = Room.objects.get(code=code, status=Room.Status.OPEN).pk
    with translation.override("it"):
        expected = {"title": translation.gettext("Room %(code)s") % {"code": code},
                    "body": translation.gettext(notify.YOUR_TURN), "url": f"/r/{code}/", "tag": f"room-{room_pk}"}
    assert expected["title"] == f"Stanza {code}"
    assert phone.decrypt(body) == expected
    assert not bob.console_errors, bob.console_errors


def test_the_profile_sets_each_kind_and_turns_this_browser_off(push_server, service, players):
    base, _public = push_server
    laptop = Browser(service.endpoint("bob-laptop"))
    bob = players(base, "bob", viewport={"width": 360, "height": 740})
    bob.context.grant_permissions(["notifications"], origin=base)
    bob.context.add_init_script(PUSH_MANAGER % json.dumps(laptop.subscription()))
    bob.signup()
    user = get_user_model().objects.get(username="bob")
    page = bob.goto("/profile/")
    page.wait_for_selector("#push-on", state="visible")
    assert page.is_checked("#push-kind-your_turn") and not page.is_checked("#push-kind-club_room")
    page.click("#push-on")
    page.wait_for_selector("#push-off", state="visible")
    wait_until(lambda: PushSubscription.objects.filter(user=user, endpoint=laptop.endpoint).exists())
    page.check("#push-kind-club_room")
    wait_until(lambda: PushPreferences.objects.filter(user=user, club_room=True).exists())
    page.reload()
    page.wait_for_selector("#push-off", state="visible")
    assert page.is_checked("#push-kind-club_room")
    bob.screenshot("push-profile-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    bob.screenshot("push-profile-1280")
    page.click("#push-off")
    page.wait_for_selector("#push-on", state="visible")
    wait_until(lambda: not PushSubscription.objects.filter(user=user).exists())
    assert not bob.console_errors, bob.console_errors


def test_without_vapid_keys_the_table_offers_nothing(server, players):
    alice = players(server, "alice").signup()
    bob = players(server, "bob")
    bob.context.grant_permissions(["notifications"], origin=server)
    bob.signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(None, buy_in=500)
    start_and_open_bank(alice, 400)
    bet_and_play(alice, bob)
    bob.page.wait_for_selector("#results-table")
    assert bob.page.locator("#push-offer").count() == 0
    assert not bob.console_errors, bob.console_errors
