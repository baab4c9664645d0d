"""Whole hands of every game played by four people over their sockets (docs/protocol.md), the ledger
audited after each hand and every version seen by every player once, in order."""

import pytest

from games.models import Hand
from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean
from tests.games.sockets import (
    catch_up,
    close_all,
    db,
    seated_table,
    sensible_move,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

PRESETS = ("ten-half", "seven-half", "zhejiang-ten-half", "ban-luck")


@pytest.mark.parametrize("preset", PRESETS)
async def test_four_players_play_whole_hands_over_their_sockets_and_every_bean_is_accounted_for(
        cast, no_resync, preset):
    room, tabs = await seated_table(cast, preset)
    players = list(tabs.values())
    hands_seen = 0
    try:
        for _step in range(400):
            if hands_seen == 3:
                break
            # Every decision is a player's own, from the view their socket received: no timeouts.
            moves = [(tab, sensible_move(tab.view)) for tab in players]
            moves = [(tab, move) for tab, move in moves if move is not None]
            assert moves, players[0].view
            tab, (action, args) = moves[0]
            frame = await tab.act(action, **args)
            assert acked(frame), (action, args, frame)
            await catch_up(players, room)
            over = [len(tab.events("hand_over")) for tab in players]
            assert len(set(over)) == 1, over  # everyone saw the same hands end
            if over[0] > hands_seen:
                hands_seen = over[0]
                await db(assert_ledger_clean)()
                await db(assert_holds_match_table)(room)
        assert hands_seen == 3

        for tab in players:
            # Every version reached every player, once, in order: nothing skipped, nothing twice.
            versions = [f["version"] for f in tab.of("update")]
            assert versions == list(range(tab.of("snapshot")[0]["version"] + 1, tab.version + 1))
            settled = tab.events("hand_settled")
            assert len(settled) == 3 and all(sum(e["deltas"].values()) == 0 for e in settled)
        hands = await db(lambda: list(Hand.objects.filter(room=room).order_by("number")))()
        assert [h.number for h in hands][:3] == [1, 2, 3] and all(h.ended_at for h in hands[:3])
        # What the players were shown at the end of each hand is what the record holds.
        shown = [e["deltas"] for e in tabs["bob"].events("hand_settled")]
        assert shown == [h.summary["deltas"] for h in hands[:3]]
    finally:
        await close_all(players)
