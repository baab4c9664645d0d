"""Practice in one click (services.practice_open): the newcomer is dealt into a hand as a challenger with a bot
holding the bank, and the bank comes to them only as an offer after PRACTICE_BANK_OFFER_AFTER hands, which they
may decline (docs/rules.md, "Live tables")."""

import pytest
from django.urls import reverse

from games import services
from games.engine import PRESETS
from games.engine.cards import DECKS, rank
from games.models import Hand, Room
from games.services.moves import PRACTICE_BANK_OFFER_AFTER
from games.services.rooms import PRACTICE_BUY_IN_STAKES
from tests.games.conftest import act, assert_holds_match_table, assert_ledger_clean, seat_of, state, table
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
