"""Buy-ins the host approves, in real browsers on 360 x 740 phones (static/js/buy-in-approval.js): a player's buy-in
waits for the host (the player reads that it waits, and that nothing is held), the host approves it from the notice
and the player sits with the beans held; a top-up the host refuses holds nothing, and the player is told. Screenshots
go to /tmp/shots-approve/ (and the host's notice at 1280 px too)."""

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import BuyInRequest
from tests.e2e.conftest import phone_table
from wallets.models import Transaction
from wallets.selectors import balances_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots-approve")


def shot(page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_host_approves_a_buy_in_and_refuses_a_top_up(server, browser, here):
    User = get_user_model()
    alice = User.objects.create_user("alice", "alice@example.com", "a-long-password-1", display_name="Alice")
    bob = User.objects.create_user("bob", "bob@example.com", "a-long-password-1", display_name="Bob")
    room = services.room_create(host=alice, preset="ten-half", approve_buy_ins=True)
    services.seat_take(room_id=room.pk, user=alice, buy_in=1000)  # the host sits at once
    host, hp = phone_table(browser, server, alice, room, "en-US")
    player, pp = phone_table(browser, server, bob, room, "en-US")
    host.wait_view("!!v.you")
    beans = balances_for(bob)["beans"]
    ledger = Transaction.objects.count()

    # Bob asks to sit: his page says it waits for the host, and nothing is held.
    pp.locator("button[data-sit]").first.click()
    pp.fill("#sit-buy-in", "800")
    pp.click("#sit-confirm")
    wait = pp.locator("#buy-in-wait")
    wait.wait_for()
    assert wait.get_attribute("role") == "status"
    assert wait.locator("p").first.inner_text() == "Waiting for the host to approve your buy-in of 800."
    # Three minutes, as the page's estimate of the server's clock counts them (it may be a second or two out).
    assert re.fullmatch(r"Nothing is held until then\. Time left: (2:5\d|3:0\d)\.", wait.locator("p").nth(1).inner_text())
    shot(pp, "player-waiting-360")
    assert balances_for(bob)["beans"] == beans and Transaction.objects.count() == ledger
    assert pp.locator("#buy-in-notice").count() == 0  # the list is the host's

    # The host's notice: who, how much, the time left, Approve and Refuse, on the screen.
    notice = hp.locator("#buy-in-notice")
    notice.wait_for()
    assert notice.get_attribute("role") == "alert"
    assert re.fullmatch(r"Bob asks to buy in for 800 \((2:5\d|3:0\d) left\)\.", notice.locator("p").inner_text())
    assert notice.locator("button").all_inner_texts() == ["Approve", "Refuse"]
    for b in notice.locator("button").all():
        box = b.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360 and box["height"] >= 28
    shot(hp, "host-notice-360")
    hp.set_viewport_size({"width": 1280, "height": 900})
    shot(hp, "host-notice-1280")
    hp.set_viewport_size({"width": 360, "height": 740})

    notice.locator("[data-approve]").click()
    notice.wait_for(state="detached")
    pp.wait_for_function("document.querySelector('#toast').textContent === 'The host approved your buy-in.'")
    player.wait_view("!!v.you && v.seats.find((s) => s.id === v.you).stack === 800")
    assert pp.locator("#buy-in-wait").count() == 0
    assert balances_for(bob)["beans"] == {"available": beans["available"] - 800, "held": 800}
    assert Transaction.objects.count() == ledger + 1
    shot(pp, "player-seated-360")

    # A top-up waits too; the host refuses it: nothing is held, nothing moved, and Bob is told.
    pp.fill("#amount-topup", "200")
    pp.click("#act-top_up")
    pp.locator("#buy-in-wait").wait_for()
    assert pp.locator("#buy-in-wait p").first.inner_text() == "Waiting for the host to approve your top-up of 200."
    notice.wait_for()
    assert notice.locator("p").inner_text().startswith("Bob asks to top up 200 (")
    notice.locator("[data-refuse]").click()
    notice.wait_for(state="detached")
    pp.wait_for_function("document.querySelector('#toast').textContent.startsWith('The host refused')")
    assert pp.locator("#toast").inner_text() == "The host refused your top-up: nothing was held."
    pp.locator("#buy-in-wait").wait_for(state="detached")
    shot(pp, "player-refused-360")
    assert balances_for(bob)["beans"] == {"available": beans["available"] - 800, "held": 800}
    assert Transaction.objects.count() == ledger + 1
    assert player.page.evaluate("(() => { const v = window.halfpoint.state.view; return v.seats.find((s) => s.id === v.you).stack; })()") == 800
    assert list(BuyInRequest.objects.order_by("pk").values_list("kind", "outcome")) == [
        ("sit", "approved"), ("top_up", "refused")]
    errors = [e for p in (host, player) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors


def test_the_lobby_offers_the_setting_for_friends_rooms_only(server, browser):
    from tests.e2e.conftest import PHONE, Player, log_in

    alice = get_user_model().objects.create_user("alice", "alice@example.com", "a-long-password-1", display_name="Alice")
    context = browser.new_context(viewport=PHONE, bypass_csp=True, locale="en-US")
    player = Player(context, server, "alice", [])
    log_in(context, server, alice)
    page = player.goto("/lobby/")
    field = page.locator("#approve-buy-ins-field")
    page.check("#create-form input[name=kind][value=humans]")
    assert field.is_visible()
    assert field.locator("label").inner_text().strip() == "I approve each buy-in and top-up"
    field.scroll_into_view_if_needed()
    SHOTS.mkdir(exist_ok=True)
    field.locator("xpath=..").screenshot(path=str(SHOTS / "lobby-setting-360.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    field.locator("xpath=..").screenshot(path=str(SHOTS / "lobby-setting-1280.png"))
    page.set_viewport_size(PHONE)
    page.check("#create-form input[name=kind][value=ai]")
    assert not field.is_visible()
    page.check("#create-form input[name=kind][value=humans]")
    page.check("#create-form input[name=approve_buy_ins]")
    page.click("#create-submit")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    from games.models import Room
    assert Room.objects.get(host=alice).approve_buy_ins is True
    assert not player.console_errors, player.console_errors


def test_a_request_waiting_on_connecting_is_shown_and_lapses_by_itself(server, browser, here):
    from datetime import timedelta

    from django.utils import timezone

    User = get_user_model()
    alice = User.objects.create_user("alice", "alice@example.com", "a-long-password-1", display_name="Alice")
    bob = User.objects.create_user("bob", "bob@example.com", "a-long-password-1", display_name="Bob")
    room = services.room_create(host=alice, preset="ten-half", approve_buy_ins=True)
    services.seat_take(room_id=room.pk, user=alice, buy_in=1000)
    now = timezone.now()  # a request made before the pages open, its deadline a few seconds away
    BuyInRequest.objects.create(room=room, user=bob, kind="sit", amount=600, role="main", position=1, asked_at=now,
                                deadline=now + timedelta(seconds=25))
    host, hp = phone_table(browser, server, alice, room, "en-US")
    player, pp = phone_table(browser, server, bob, room, "en-US")
    notice, wait = hp.locator("#buy-in-notice"), pp.locator("#buy-in-wait")
    notice.wait_for()
    wait.wait_for()
    assert re.fullmatch(r"Bob asks to buy in for 600 \(0:\d\d left\)\.", notice.locator("p").inner_text())
    assert wait.locator("p").first.inner_text() == "Waiting for the host to approve your buy-in of 600."
    # The deadline passes: both pages drop it, the player is told, and nothing was ever held.
    pp.wait_for_function("document.querySelector('#toast').textContent.startsWith('The host did not answer')",
                         timeout=45_000)
    assert pp.locator("#toast").inner_text() == "The host did not answer in time: nothing was held. You may ask again."
    wait.wait_for(state="detached")
    notice.wait_for(state="detached")
    assert balances_for(bob)["beans"]["held"] == 0
    assert BuyInRequest.objects.get().outcome == ""
    errors = [e for p in (host, player) for e in p.console_errors if "navigator.vibrate" not in e]
    assert not errors, errors
