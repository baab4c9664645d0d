"""The bank by turns (`bank_turn_hands`, docs/rules.md) with bots at a live table: in a practice room whose host
turns it on, the bank passes between the bots every two hands, each bot opening the bank offered to it; the
newcomer's `no_bank` seat is passed over, and the ledger stays clean."""

import pytest

from games import services
from tests.games.conftest import act, assert_holds_match_table, assert_ledger_clean, seat_of, state, table
from tests.games.test_practice import low_cards, play_my_part  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("preset", ["ten-half", "zhejiang-ten-half", "ban-luck"])
def test_bots_pass_the_bank_every_two_hands_and_open_the_bank_offered_to_them(cast, preset, low_cards):  # noqa: F811
    room = services.practice_open(user=cast["alice"], preset=preset)
    services.room_rules_update(room_id=room.pk, overrides={"bank_turn_hands": 2})  # from the next hand, hand 2
    me = seat_of(room, cast["alice"])
    bots = {seat for seat, info in table(room).meta["seats"].items() if info["bot"]}
    bankers = {}
    for _ in range(300):
        s = state(room)
        if s["hand_no"] > 8:
            break
        if s["phase"] in ("betting", "playing"):
            bankers[s["hand_no"]] = s["banker"]
        if s["phase"] == "bank_decision" and s["pending"]["seat"] == me:
            act(room, cast["alice"], "decline_bank")  # the practice room's own offer (docs/rules.md): not taken
            continue
        play_my_part(room, cast["alice"])
    assert set(bankers) >= set(range(1, 9)), bankers
    assert set(bankers.values()) <= bots and me not in bankers.values()
    # Hand 1 was dealt before the rule; hand 2 plays with it and ends the first banker's turn (two hands held).
    assert bankers[1] == bankers[2] != bankers[3] == bankers[4] != bankers[5] == bankers[6] != bankers[7] == bankers[8]
    assert len({bankers[n] for n in range(1, 9)}) >= 3  # the bank went round the bots
    assert_holds_match_table(room)
    assert_ledger_clean()
