"""Practice in one click (services.practice_open): the newcomer is dealt into a hand as a challenger with a bot
holding the bank, and the bank comes to them only as an offer after PRACTICE_BANK_OFFER_AFTER hands, which they
may decline (docs/rules.md, "Live tables"). The click brings the browser's seed, drawn after the lobby showed the
commitment to the table's server seed, so the first deal has it; without it the deal waits for the table page's
(docs/fairness.md)."""

import hashlib
import re

import pytest
from django.urls import reverse

from games import services
from games.engine import PRESETS, verify
from games.engine.cards import DECKS, rank
from games.engine.shuffle import ZERO_CHAIN, commitment
from games.models import Hand, HandEvent, Room
from games.practice_seeds import SESSION_KEY
from games.services.moves import PRACTICE_BANK_OFFER_AFTER, SEED_WAIT_SECONDS
from games.services.rooms import PRACTICE_BUY_IN_STAKES
from tests.games.conftest import act, assert_holds_match_table, assert_ledger_clean, expire, seat_of, state, table
from wallets.selectors import balances_for

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = ["ten-half", "seven-half", "zhejiang-ten-half", "ban-luck"]


@pytest.fixture
def alice_client(client, cast):
    client.force_login(cast["alice"])
    return client


def is_bot(room, seat_id) -> bool:
    return bool(table(room).meta["seats"][seat_id]["bot"])


def play_my_part(room, user) -> None:
    """The newcomer's next decision: confirm the preset stake (bet the base stake from the second hand on), or
    stand (hit while standing is refused)."""
    s, me = state(room), seat_of(room, user)
    if s["phase"] == "betting" and me in s["deadline_for"]:
        if s["hand"]["bets"][me]["amount"]:
            act(room, user, "confirm")
        else:
            act(room, user, "bet", amount=s["hand"]["base"])
    elif s["phase"] == "playing" and s["hand"]["turn"] and s["hand"]["turn"][0] == me:
        try:
            act(room, user, "stand")
        except services.GameError:
            act(room, user, "hit")
    else:
        raise AssertionError(f"nothing for the newcomer to do: {s['phase']}, waiting for {s['deadline_for']}")


@pytest.fixture
def low_cards(monkeypatch):
    """Every hand dealt from the deck's twos to fives: no opening hand settles at once (Ban Luck's naturals end a
    hand at the deal, and a shuffled deck does that in about one hand in twelve)."""

    def start(run):
        run.meta["next_hand_at"] = None
        deck = [c for c in DECKS[run.state.rules.deck] if rank(c) in ("2", "3", "4", "5")]
        run.apply("system", "start_hand", {"seed_hex": "cd" * 32, "deck": deck})

    monkeypatch.setattr("games.services.moves._start_hand", start)


@pytest.mark.parametrize("preset", GAMES)
def test_practice_seats_the_user_as_a_challenger_against_a_bot_bank_in_a_dealt_hand(cast, preset, low_cards):
    room = services.practice_open(user=cast["alice"], preset=preset)
    s, me = state(room), seat_of(room, cast["alice"])
    assert (room.kind, room.currency, room.preset, room.host_id) == ("ai", "points", preset, cast["alice"].pk)
    seats = {x["id"]: x for x in s["seats"]}
    assert len(seats) == PRESETS[preset].max_main_seats and sum(1 for x in seats.values() if x["bot"]) == len(seats) - 1
    assert seats[me]["position"] == 1 and seats[me]["no_bank"] is True
    assert s["banker"] != me and is_bot(room, s["banker"]) and seats[s["banker"]]["position"] == 0
    assert s["hand_no"] == 1 and Hand.objects.filter(room=room, number=1).exists()
    base = s["hand"]["base"]
    if PRESETS[preset].fixed_stake:  # Zhejiang: no stake to choose, the newcomer plays first (the banker's left)
        assert s["phase"] == "playing" and s["hand"]["turn"][0] == me
    else:  # the bots have bet; the newcomer's stake is the base stake, one Confirm away
        assert s["phase"] == "betting" and s["deadline_for"] == [me]
        assert s["hand"]["bets"][me] == {"amount": base, "confirmed": False}
        act(room, cast["alice"], "confirm")
        s = state(room)
        assert s["phase"] == "playing" and s["hand"]["bets"][me] == {"amount": base, "confirmed": True}
        if PRESETS[preset].order_policy == "seat":
            assert s["hand"]["order"][0] == me
    buy_in = min(room.buy_in_max, PRESETS[preset].base_stake * PRACTICE_BUY_IN_STAKES)
    assert balances_for(cast["alice"])["points"]["held"] == buy_in
    assert balances_for(cast["alice"])["beans"]["held"] == 0
    assert_holds_match_table(room)
    assert_ledger_clean()


@pytest.mark.parametrize("preset", GAMES)
def test_the_bank_is_offered_after_some_hands_and_declining_keeps_a_bot_banker(cast, preset):
    room = services.practice_open(user=cast["alice"], preset=preset)
    me = seat_of(room, cast["alice"])
    for _ in range(200):
        s = state(room)
        if s["phase"] == "bank_decision" and s["pending"]["seat"] == me:
            break
        # Until the offer the bank stays with the bots, whatever the game's rules move it on.
        assert s["banker"] != me and is_bot(room, s["banker"]), s
        play_my_part(room, cast["alice"])
    else:
        raise AssertionError("the bank was never offered")
    assert s["pending"]["kind"] == "take" and s["hand_no"] == PRACTICE_BANK_OFFER_AFTER
    assert s["hand"]["over"] and s["deadline_for"] == [me]
    act(room, cast["alice"], "decline_bank")
    s = state(room)
    # The bots keep the bank and play goes on: the next hand is dealt (eager tasks, no pause between hands here).
    assert s["banker"] != me and is_bot(room, s["banker"])
    assert s["pending"] is None and s["hand_no"] == PRACTICE_BANK_OFFER_AFTER + 1
    assert s["phase"] in ("betting", "playing")
    assert_holds_match_table(room)
    assert_ledger_clean()


def test_the_offer_comes_again_later_and_taking_it_makes_the_newcomer_the_banker(cast, clock, settings):
    # A pause between hands, as in production: once the newcomer holds a forced-draw bank, nobody decides anything
    # and without a pause the hands would follow one another for ever inside this test's eager wakes.
    settings.GAMES_NEXT_HAND_SECONDS = 60
    room = services.practice_open(user=cast["alice"], preset="ban-luck")
    me = seat_of(room, cast["alice"])
    offers = []
    for _ in range(400):
        s = state(room)
        if s["phase"] == "between_hands" and s["pending"] is None:
            clock.advance(61)
            services.table_wake(room_id=room.pk)
            continue
        if s["phase"] == "bank_decision" and s["pending"]["seat"] == me:
            offers.append(s["hand_no"])
            if len(offers) == 2:
                break
            # Nobody answers: the timer declines for the newcomer, and the bots keep the bank.
            clock.advance(s["deadline"] - clock() + 0.01)
            services.table_wake(room_id=room.pk)
            assert state(room)["banker"] != me
            continue
        play_my_part(room, cast["alice"])
    assert offers == [PRACTICE_BANK_OFFER_AFTER, 2 * PRACTICE_BANK_OFFER_AFTER]
    act(room, cast["alice"], "take_bank")  # the results were read before the offer: the next hand starts at once
    s = state(room)
    seat = next(x for x in s["seats"] if x["id"] == me)
    assert s["banker"] == me and s["bank"] > 0 and seat["stack"] == 0  # Chinese Blackjack: the whole stack is the bank
    assert s["hand_no"] == 2 * PRACTICE_BANK_OFFER_AFTER + 1 and me not in s["hand"]["bets"]
    assert_holds_match_table(room)
    assert_ledger_clean()


def test_nobody_but_the_room_offers_the_bank(cast):
    room = services.practice_open(user=cast["alice"], preset="ten-half")
    with pytest.raises(services.GameError) as e:
        act(room, cast["alice"], "offer_bank", seat=seat_of(room, cast["alice"]))
    assert e.value.code == "unknown_action"


def test_practice_without_enough_points_is_refused_and_creates_nothing(cast, settings):
    user = cast["alice"]
    room = services.practice_open(user=user, preset="ten-half")  # 500 points on the table
    services.room_close(room_id=room.pk, by=user)
    points = balances_for(user)["points"]["available"]
    # Hold all but 99 points (the smallest buy-in is 100) at another room's table.
    other = services.room_create(host=cast["bob"], preset="ten-half", currency="points", buy_in_max=100_000)
    services.seat_take(room_id=other.pk, user=user, buy_in=points - 99)
    with pytest.raises(services.GameError) as e:
        services.practice_open(user=user, preset="ban-luck")
    assert e.value.code == "insufficient_funds" and "100" in e.value.message
    assert not Room.objects.filter(kind="ai", status="open").exists()
    assert_ledger_clean()


def test_the_practice_button_deals_the_user_in(alice_client, cast):
    page = alice_client.post(reverse("games:practice"), {"preset": "ban-luck"})
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302 and page["Location"] == room.get_absolute_url()
    assert seat_of(room, cast["alice"]) is not None and state(room)["phase"] == "betting"


# --- the player's seed in the first deal (docs/fairness.md, "Who commits what, when") ----------------------------

MINE = hashlib.sha256(b"mei's seed").hexdigest()
SERVER = hashlib.sha256(b"the lobby's server seed").hexdigest()
BAD_SEEDS = ["ab" * 31, "ab" * 33, "zz" * 32, "ab " * 21 + "a", "é" * 64]


def connect(room, user, socket="tab-1"):
    services.presence_set(room_id=room.pk, user=user, connected=True, socket=socket)


def seeds_of(hand: Hand) -> dict:
    return {x["seat"]: x for x in hand.summary["seeds"]}


def finish_hand(room, user, number: int) -> Hand:
    for _ in range(30):
        hand = Hand.objects.filter(room=room, number=number, ended_at__isnull=False).first()
        if hand is not None:
            return hand
        play_my_part(room, user)
    raise AssertionError(f"hand {number} never ended")


@pytest.mark.parametrize("preset", GAMES)
def test_the_seed_of_the_practice_click_is_in_the_first_deal(cast, preset):
    room = services.practice_open(user=cast["alice"], preset=preset, seed=MINE, server_seed=SERVER, await_seed=True)
    s, me = state(room), seat_of(room, cast["alice"])
    assert s["commitment"] == commitment(SERVER)  # the one the lobby showed before the browser drew its seed
    if PRESETS[preset].fixed_stake:  # dealt already, with the seed: the first decision did not wait
        assert s["phase"] == "playing" and s["hand"]["turn"][0] == me
        assert {x["seat"]: x["seed"] for x in s["hand"]["seeds"] if x["by"] == "player"} == {me: MINE}
    else:
        assert s["phase"] == "betting" and s["seeds"] == {me: MINE} and s["deadline_for"] == [me]
    hand = finish_hand(room, cast["alice"], 1)
    assert seeds_of(hand)[me] == {"seat": me, "seed": MINE, "by": "player"}
    assert {x["by"] for seat, x in seeds_of(hand).items() if seat != me} == {"bot"}
    r = hand.summary
    assert verify(hand.commitment, hand.seed, r["dealt"], deck=PRESETS[preset].deck, seeds=r["seeds"], hand_no=1,
                  prev=ZERO_CHAIN)
    assert not HandEvent.objects.filter(hand=hand, type__in=["seed_awaited", "seed_missing"]).exists()


@pytest.mark.parametrize("preset", ["zhejiang-ten-half", "ten-half"])
def test_without_the_click_seed_the_first_deal_waits_for_the_page_and_deals_with_its_seed(cast, clock, preset):
    room = services.practice_open(user=cast["alice"], preset=preset, await_seed=True)
    me = seat_of(room, cast["alice"])
    if not PRESETS[preset].fixed_stake:
        act(room, cast["alice"], "confirm")  # a confirm without a seed: the deal waits for it
    s = state(room)
    assert s["phase"] == "betting" and s["hand"]["awaiting"] == [me] and s["deadline_for"] == [me]
    assert s["deadline"] == pytest.approx(clock() + SEED_WAIT_SECONDS, abs=2)
    assert s["hand"]["dealt"] == []
    act(room, cast["alice"], "seed", seed=MINE)  # what the table page sends by itself (table.js, offerSeed)
    s = state(room)
    assert s["phase"] == "playing" and s["hand"]["awaiting"] == []
    hand = finish_hand(room, cast["alice"], 1)
    assert seeds_of(hand)[me] == {"seat": me, "seed": MINE, "by": "player"}


def test_after_the_deadline_the_first_deal_is_the_servers_and_the_record_says_whose_seed_was_missing(cast, clock):
    room = services.practice_open(user=cast["alice"], preset="zhejiang-ten-half", await_seed=True)
    me = seat_of(room, cast["alice"])
    assert state(room)["hand"]["awaiting"] == [me]
    assert expire(room, clock) == "timeout"
    s = state(room)
    assert s["phase"] == "playing" and me not in table(room).meta["timed"]  # a missing seed is no missed move
    hand = Hand.objects.get(room=room, number=1)
    missing = HandEvent.objects.get(hand=hand, type="seed_missing")
    assert missing.data == {"type": "seed_missing", "seat": me, "hand_no": 1}
    hand = finish_hand(room, cast["alice"], 1)
    assert seeds_of(hand)[me]["by"] == "server"  # a human seat whose seed did not come


def test_a_click_seed_without_the_lobbys_server_seed_is_left_out(cast):
    room = services.practice_open(user=cast["alice"], preset="zhejiang-ten-half", seed=MINE, await_seed=True)
    s, me = state(room), seat_of(room, cast["alice"])
    assert s["seeds"] == {} and s["hand"]["awaiting"] == [me]  # the server saw it before choosing its seed


@pytest.mark.parametrize("bad", BAD_SEEDS, ids=repr)
def test_a_malformed_click_seed_is_refused_and_creates_nothing(cast, bad):
    with pytest.raises(services.GameError) as e:
        services.practice_open(user=cast["alice"], preset="ten-half", seed=bad, server_seed=SERVER)
    assert e.value.code == "bad_seed"
    assert not Room.objects.exists() and balances_for(cast["alice"])["points"]["held"] == 0
    assert_ledger_clean()


def test_a_seat_whose_page_sends_seeds_is_waited_for_while_its_page_is_open(cast, clock):
    room = services.practice_open(user=cast["alice"], preset="ten-half", seed=MINE, server_seed=SERVER)
    me = seat_of(room, cast["alice"])
    connect(room, cast["alice"])
    finish_hand(room, cast["alice"], 1)  # the next one starts at once (no pause between hands here)
    s = state(room)
    assert s["hand_no"] == 2 and s["phase"] == "betting"
    act(room, cast["alice"], "bet", amount=s["hand"]["base"])  # no seed with it
    s = state(room)
    assert s["phase"] == "betting" and s["hand"]["awaiting"] == [me]  # only the human: bots are never waited for
    act(room, cast["alice"], "seed", seed=MINE)
    assert state(room)["phase"] == "playing"
    services.presence_set(room_id=room.pk, user=cast["alice"], connected=False, socket="tab-1")
    finish_hand(room, cast["alice"], 2)
    s = state(room)
    assert s["hand_no"] == 3
    act(room, cast["alice"], "bet", amount=s["hand"]["base"])
    assert state(room)["phase"] == "playing"  # no page open: nothing would send it, so nothing waits


def test_a_table_without_pages_never_waits(cast):
    # Humans who never opened the table (scripts, these tests): the deal is as it always was.
    room = services.practice_open(user=cast["alice"], preset="ten-half")
    act(room, cast["alice"], "confirm")
    assert state(room)["phase"] == "playing" and "awaiting" not in state(room)["hand"]


# --- the practice button: the lobby's commitment and the browser's seed ------------------------------------------


def lobby_commitment(client) -> str:
    html = client.get(reverse("games:lobby")).content.decode()
    found = set(re.findall(r'name="commitment" value="([0-9a-f]{64})"', html))
    assert len(found) == 1, found
    return found.pop()


def test_the_lobby_commits_the_practice_server_seed_until_a_click_uses_it(alice_client):
    shown = lobby_commitment(alice_client)
    assert lobby_commitment(alice_client) == shown  # the same seed until it is used
    assert shown == commitment(alice_client.session[SESSION_KEY])
    html = alice_client.get(reverse("games:lobby")).content.decode()
    assert f'id="practice-commitment" title="{shown}"' in html


def test_the_practice_button_deals_the_browsers_seed_under_the_lobbys_commitment(alice_client, cast):
    shown = lobby_commitment(alice_client)
    page = alice_client.post(reverse("games:practice"), {"preset": "zhejiang-ten-half", "commitment": shown,
                                                         "seed": MINE.upper()})
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302 and page["Location"] == room.get_absolute_url()
    s, me = state(room), seat_of(room, cast["alice"])
    assert s["commitment"] == shown and s["phase"] == "playing"
    assert {x["seat"]: x["seed"] for x in s["hand"]["seeds"] if x["by"] == "player"} == {me: MINE}
    assert SESSION_KEY not in alice_client.session and lobby_commitment(alice_client) != shown  # used once


@pytest.mark.parametrize("bad", BAD_SEEDS, ids=repr)
def test_the_practice_button_refuses_a_malformed_seed_and_changes_nothing(alice_client, cast, bad):
    shown = lobby_commitment(alice_client)
    page = alice_client.post(reverse("games:practice"), {"preset": "ten-half", "commitment": shown, "seed": bad},
                             follow=True)
    assert page.redirect_chain == [(reverse("games:lobby"), 302)]
    assert "A seed is 64 hexadecimal digits (32 bytes)." in page.content.decode()
    assert not Room.objects.exists() and balances_for(cast["alice"])["points"]["held"] == 0
    assert lobby_commitment(alice_client) == shown  # the lobby's server seed is still the next table's


@pytest.mark.parametrize("commitment_sent", ["", "00" * 32, "stale"], ids=repr)
def test_a_click_with_another_commitment_leaves_its_seed_out_and_the_deal_waits_for_the_page(alice_client, cast,
                                                                                           commitment_sent):
    lobby_commitment(alice_client)
    post = {"preset": "zhejiang-ten-half", "seed": MINE}
    if commitment_sent:
        post["commitment"] = commitment_sent
    alice_client.post(reverse("games:practice"), post)
    room = Room.objects.get(host=cast["alice"])
    s, me = state(room), seat_of(room, cast["alice"])
    assert s["seeds"] == {} and s["phase"] == "betting" and s["hand"]["awaiting"] == [me]


def test_a_click_without_a_seed_deals_once_the_page_sends_one(alice_client, cast):
    # A page whose script did not run sends no seed: the table's own page sends one as it opens.
    alice_client.post(reverse("games:practice"), {"preset": "zhejiang-ten-half"})
    room = Room.objects.get(host=cast["alice"])
    me = seat_of(room, cast["alice"])
    assert state(room)["hand"]["awaiting"] == [me]
    act(room, cast["alice"], "seed", seed=MINE)
    assert state(room)["phase"] == "playing"
