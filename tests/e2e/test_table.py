"""The live table in a real browser: friends sign up, meet in a Ten and a Half room by its code, bet,
play and settle; a refresh mid-hand; a phone 360 px wide; practice against bots; a side bet; the
connection dropping and coming back. Screenshots of each table at the end of its hand are saved
under test-artifacts/."""

import re

import pytest

from games.models import Hand, Room
from tests.e2e.conftest import play_out

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def record_frames(player) -> list[str]:
    """Every WebSocket frame the player's page receives (across reloads)."""
    frames: list[str] = []
    player.page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    return frames


def start_and_open_bank(host, amount=None):
    host.click_enabled("#host-start")
    host.wait_view("v.legal_actions.includes('open_bank')")
    if amount is not None:
        host.page.fill("#amount-bank", str(amount))
    host.click_enabled("#act-open_bank")


def chip(player, index: int):
    player.click_enabled(f"#actions .chips button:nth-child({index + 1})")


def own_and_hidden_cards(player) -> tuple[list[str], int]:
    """The card codes drawn in the player's own seat, and how many card backs the other seats show."""
    own = player.page.locator(".seat.me .pcard[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    backs = player.page.locator(".seat:not(.me) .pcard.back").count()
    return own, backs


def test_four_friends_sign_up_meet_by_code_and_play_a_hand_of_ten_and_a_half(server, players):
    alice, bob, chen, dara = (players(server, name).signup() for name in ("alice", "bob", "chen", "dara"))
    frames = {p.name: record_frames(p) for p in (alice, bob, chen, dara)}
    code = alice.create_room("ten-half", base_stake=10)
    assert re.fullmatch(r"\d{4}", code)
    assert alice.page.locator("#invite-url").input_value().startswith(server + "/join/")
    for p in (bob, chen, dara):
        p.join(code)

    alice.sit(0, buy_in=1000)
    for position, p in enumerate((bob, chen, dara), start=1):
        p.sit(position, buy_in=800)
    alice.wait_view("v.seats.length === 4")
    start_and_open_bank(alice, 600)

    for p in (bob, chen, dara):
        p.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    chip(bob, 0)
    chip(bob, 1)  # the base stake the box starts with, + 10 + 50
    bob.page.wait_for_function("document.querySelector('#bet-box').value === '70'")
    bob.page.keyboard.press("Enter")  # Enter confirms
    chip(chen, 2)
    chen.click_enabled("#act-confirm")
    chip(dara, 0)
    dara.click_enabled("#act-reset")
    dara.page.wait_for_function("document.querySelector('#bet-box').value === '0'")
    chip(dara, 0)
    dara.page.wait_for_function("document.querySelector('#bet-box').value === '10'")
    dara.click_enabled("#act-confirm")

    # The dice and the order they give, the same for everyone; each sees only their own card.
    for p in (alice, bob, chen, dara):
        p.wait_view("v.phase === 'playing'")
        p.page.wait_for_selector("#dice .die")
        own, backs = own_and_hidden_cards(p)
        assert len(own) == 1 and backs == 3, (p.name, own, backs)
    order = alice.page.locator("#order li").all_inner_texts()
    assert sorted(order) == ["alice", "bob", "chen", "dara"]
    assert bob.page.locator("#order li").all_inner_texts() == order
    dice_total = int(alice.page.locator("#dice").get_attribute("data-total"))
    assert 2 <= dice_total <= 12

    # Whoever acts first uses the keyboard: H hits once (unless that ends the turn), S stands.
    first = next(p for p in (alice, bob, chen, dara) if p.name == order[0])
    first.wait_view("v.hand.turn && v.hand.turn.seat === v.you")
    assert first.page.locator("#status").inner_text().startswith("Your turn")
    assert first.page.locator("#countdown").inner_text().endswith("s")
    first.page.keyboard.press("h")
    first.page.wait_for_function("window.halfpoint.state.view.hand.hands[window.halfpoint.state.view.you][0]"
                                 ".cards.length === 2")
    # The update that drew the card carried the hit's ack: the buttons are free at once, not after the 6 s fallback.
    assert first.page.evaluate("window.halfpoint.state.busy") is None
    if first.my_turn():
        first.page.keyboard.press("s")
    play_out([alice, bob, chen, dara])

    # The reveal and the settlement, seen by everyone.
    for p in (alice, bob, chen, dara):
        p.wait_view("v.hand && v.hand.over")
        p.page.wait_for_selector("#results-table")
        assert p.page.locator(".seat .pcard.back").count() == 0  # every hand is revealed
        rows = p.page.locator("#results-table tbody tr[data-outcome]")
        assert rows.count() == 3
        for outcome in rows.evaluate_all("rs => rs.map(r => r.dataset.outcome)"):
            assert outcome in ("win", "lose", "push", "void")
    view = alice.view()
    assert sum(view["hand"]["deltas"].values()) == 0
    for p in (alice, bob, chen, dara):
        p.screenshot(f"four-friends-{p.name}-end-of-hand")

    # No frame before the reveal carried another player's face-down card.
    hand = Hand.objects.get(room__code=code, number=1)
    seats = {x["name"]: x["id"] for x in view["seats"]}
    for p in (alice, bob, chen, dara):
        others = {c for seat, hs in hand.summary["hands"].items() if seat != seats[p.name] for h in hs
                  for c in h["cards"]}
        before = []
        for text in frames[p.name]:
            if '"hand_over"' in text:
                break
            before.append(text)
        leaked = {c for c in others for text in before if f'"{c}"' in text and '"hand_no":1' in text}
        assert not leaked, (p.name, leaked)

    # The hand's record: every card and action, and the shuffle verified in the browser.
    chen.page.click("#hand-record-link")
    chen.page.wait_for_url(re.compile(r"/hands/[\w-]{22}/$"))
    chen.page.wait_for_selector("#verify-status[data-ok]", timeout=20_000)
    assert chen.page.locator("#verify-status").get_attribute("data-ok") == "true"
    assert chen.page.locator("#verify-dice").get_attribute("data-ok") == "true"
    assert chen.page.locator("#events .card_dealt").count() >= 5
    chen.screenshot("four-friends-hand-record")

    # The room's hands in the table menu, and the records page.
    alice.page.click("#menu-button")
    alice.page.click("#tab-hands")
    alice.page.wait_for_selector(f"#hands-panel a[href='/hands/{hand.key}/']")
    dara.goto("/records/")
    assert dara.page.locator(f"#records tr[data-hand='{hand.pk}']").count() == 1
    for p in (alice, bob, chen, dara):
        assert not p.console_errors, (p.name, p.console_errors)


def test_a_refresh_in_the_middle_of_a_hand_restores_the_table(server, players):
    alice, bob = players(server, "alice").signup(), players(server, "bob").signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(2, buy_in=500)
    start_and_open_bank(alice, 400)
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    chip(bob, 1)
    bob.click_enabled("#act-confirm")
    bob.wait_view("v.phase === 'playing'")
    before = bob.view()
    own_before, backs_before = own_and_hidden_cards(bob)
    order_before = bob.page.locator("#order li").all_inner_texts()

    bob.page.reload()
    bob.wait_connected()
    bob.wait_view("v.phase === 'playing'")
    after = bob.view()
    assert after["hand"]["hands"] == before["hand"]["hands"]
    assert after["hand"]["dice"] == before["hand"]["dice"]
    assert own_and_hidden_cards(bob) == (own_before, backs_before)
    assert bob.page.locator("#order li").all_inner_texts() == order_before
    assert bob.page.locator(".seat.me .seat-bet").inner_text() == "Bet 60 ✓"  # the base stake in the box, + 50
    assert bob.page.locator("#act-stand").is_enabled() == bob.my_turn()

    play_out([alice, bob])
    bob.wait_view("v.hand.over")
    bob.page.wait_for_selector("#results-table")
    bob.screenshot("refresh-bob-end-of-hand")


def test_a_player_on_a_360px_phone_plays_a_full_hand(server, players):
    alice = players(server, "alice").signup()
    phone = players(server, "bob", viewport={"width": 360, "height": 740})
    phone.signup()
    code = alice.create_room("ten-half")
    phone.join(code)
    alice.sit(0)
    phone.sit(None, buy_in=500)
    start_and_open_bank(alice, 400)

    def fits():
        width = phone.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the page is {width} px wide on a 360 px screen"

    phone.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    fits()
    chip(phone, 0)
    chip(phone, 0)
    phone.page.wait_for_function("document.querySelector('#bet-box').value === '30'")  # the base stake + 10 + 10
    phone.click_enabled("#act-confirm")
    phone.wait_view("v.phase === 'playing'")
    fits()
    play_out([alice, phone])
    phone.wait_view("v.hand.over")
    phone.page.wait_for_selector("#results-table")
    fits()
    assert phone.page.locator("#results-table tr[data-outcome]").count() == 1
    assert phone.page.locator("#act-stand").count() == 0
    phone.screenshot("phone-360-end-of-hand")


def test_practice_with_bots_plays_a_hand_for_one_user(server, players):
    mei = players(server, "mei").signup()
    page = mei.goto("/lobby/")
    page.click("button[data-practice='ten-half']")
    page.wait_for_url(re.compile(r"/r/\d{4}/$"))
    mei.wait_connected()
    room = Room.objects.get(host__username="mei")
    assert (room.kind, room.currency) == ("ai", "points")
    # One click seats mei as a challenger; bots fill the other main seats, one of them holds the bank, the first
    # hand is dealt and the bots have bet: mei's stake is the base stake, one Confirm away (tests/e2e/test_practice.py).
    mei.wait_view("v.you && v.seats.filter(s => s.bot).length === 3 && v.banker !== v.you && v.phase === 'betting'")
    mei.click_enabled("#act-confirm")
    mei.wait_view("v.phase === 'playing' || (v.hand && v.hand.over)")
    play_out([mei])  # the bots play their turns by themselves; mei stands at hers
    mei.page.wait_for_selector("#results-table")
    assert mei.page.locator("#results-table tr[data-outcome]").count() == 3
    assert mei.page.locator(".seat .badge", has_text="bot").count() == 3
    mei.screenshot("practice-bots-end-of-hand")
    assert not mei.console_errors, mei.console_errors


def test_a_side_bettor_backs_a_challenger(server, players):
    alice, bob, chen = (players(server, name).signup() for name in ("alice", "bob", "chen"))
    code = alice.create_room("ten-half")
    bob.join(code)
    chen.join(code)
    alice.sit(0)
    bob.sit(1, buy_in=500)
    chen.sit(side=True, buy_in=300)
    start_and_open_bank(alice, 500)
    chen.wait_view("v.phase === 'betting' && v.legal_actions.includes('back')")
    assert chen.page.locator("#actions .chips button").count() == 3
    bob_seat = next(x["id"] for x in chen.view()["seats"] if x["name"] == "bob")
    chen.page.click(f"button[data-back='{bob_seat}']")
    chen.page.wait_for_selector(f"button[data-back='{bob_seat}'][aria-pressed=true]")
    chip(chen, 1)
    chen.page.wait_for_function("document.querySelector('#my-bet').textContent === '50'")
    chen.click_enabled("#act-confirm")
    bob.wait_view("v.legal_actions.includes('bet')")
    chip(bob, 0)
    bob.click_enabled("#act-confirm")
    play_out([alice, bob])
    chen.wait_view("v.hand && v.hand.over")
    side = [r for r in chen.view()["hand"]["results"] if r["kind"] == "side"]
    main = [r for r in chen.view()["hand"]["results"] if r["kind"] == "main"]
    assert side[0]["backs"] == bob_seat and side[0]["outcome"] == main[0]["outcome"]
    chen.page.wait_for_selector(f"#results-table tr[data-bettor='{side[0]['bettor']}']")
    chen.screenshot("side-bet-end-of-hand")


def test_the_table_reconnects_and_resyncs_after_the_server_goes_away(server_control, players, settings, monkeypatch):
    base = server_control.base
    alice, bob = players(base, "alice").signup(), players(base, "bob").signup()
    code = alice.create_room("ten-half")
    bob.join(code)
    alice.sit(0)
    bob.sit(1, buy_in=500)
    start_and_open_bank(alice, 500)
    bob.wait_view("v.phase === 'betting'")
    assert bob.page.locator("#conn-banner").is_hidden()

    server_control.stop()
    bob.page.wait_for_selector("#conn-banner:visible")
    assert "Reconnecting" in bob.page.locator("#conn-banner").inner_text()
    # Meanwhile the table moves on without this browser (bob's bet is placed by the server's side).
    from games import services

    settings.CELERY_TASK_ALWAYS_EAGER = True
    monkeypatch.setattr("games.broadcast._send", lambda room_id, message: None)  # no socket listens here
    room = Room.objects.get(code=code, status="open")
    services.action_submit(room_id=room.pk, user=room.seats.get(user__username="bob").user, action="bet",
                           args={"amount": 30})
    server_control.start()
    bob.page.wait_for_selector("#conn-banner", state="hidden", timeout=30_000)
    bob.wait_view("v.phase === 'playing'")  # the snapshot on reconnect carries what happened
    assert bob.page.locator(".seat.me .seat-bet").inner_text() == "Bet 30 ✓"
    alice.page.wait_for_selector("#conn-banner", state="hidden", timeout=30_000)
    play_out([alice, bob])
    bob.wait_view("v.hand.over")


def test_no_page_makes_a_request_to_another_host(server, players):
    """Every page, with its scripts, styles and socket, talks only to this server (the `players`
    fixture also checks it after every test)."""
    seen: list[str] = []
    alice = players(server, "alice")
    alice.context.on("request", lambda r: seen.append(r.url))
    alice.goto("/")
    alice.goto("/accounts/login/")
    alice.signup()
    code = alice.create_room("seven-half")
    alice.sit(0)
    for path in ("/lobby/", "/records/", "/wallet/", "/profile/", "/rules/ten-half/", "/rules/zhejiang-ten-half/",
                 f"/r/{code}/"):
        alice.goto(path)
        alice.page.wait_for_load_state("networkidle")
    alice.page.click("#menu-button")
    alice.page.click("#tab-hands")
    alice.page.click("#tab-chat")
    alice.page.fill("#chat-input", "hello table")
    alice.page.press("#chat-input", "Enter")
    alice.page.locator("#chat-list li", has_text="hello table").wait_for()
    hosts = {re.sub(r"^[a-z]+://", "", url).split("/")[0] for url in seen}
    assert hosts == {server.split("//")[1]}, hosts
