"""Every house rule's golden scripts (tests/engine/scripts/house-*.json, house-rules.md) played at a live table, over
real sockets, give what play_script gives: the same results, stacks, bankers and cards (the whole .expected.json), or
the same refusal, over a socket, which changes nothing. The ledger is audited after every hand and no bean is made or
lost: once the room closes, each player's beans moved by exactly what their seat won or lost. The scripts are found
when the tests are collected, so a script added later is played too; a few of the other golden scripts keep the
runner itself honest (tests/games/script_sockets.py says how a script's steps become a live table's)."""

import pytest

from tests.games.script_sockets import LiveScript, load, patch_deals, script_paths

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer", "no_resync")]

# The runner's own checks: the bank by turns (seven hands, bank decisions), a bot at every seat but one, a side
# bettor, the first bank offered and drawn, and refusals (an action out of turn, a deck the game does not have).
OTHERS = ["ten-half-bank-by-turns", "bots-play-every-seat", "ten-half-dice-and-side-bet", "error-not-your-turn",
          "error-card-not-in-deck", "seven-half-take-bank-in-seat-order"]
CASES = script_paths() + [p for name in OTHERS for p in script_paths(f"{name}.json")]


@pytest.fixture(autouse=True)
def _quick_commits():
    from django.db import connection
    from django.db.backends.signals import connection_created

    def quick(sender, connection, **kw):
        if connection.vendor == "sqlite":
            connection.cursor().execute("PRAGMA synchronous=OFF")

    connection_created.connect(quick)
    if connection.connection is not None:
        quick(None, connection)
    yield
    connection_created.disconnect(quick)


@pytest.fixture
def stacked(monkeypatch, settings):
    return patch_deals(monkeypatch, settings)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
async def test_a_golden_script_over_the_sockets_gives_what_play_script_gives(path, stacked, clock):
    data, expected = load(path)
    live = LiveScript(data, stacked, clock)
    try:
        out, status = await live.play()
        if status == 0:
            await live.check_sockets()
        if expected["status"] == 2:
            assert status == 2 and out["error"]["code"] == expected["output"]["error"]["code"], out
            assert live.refused_over_socket, "the refusal came from no socket"
        else:
            assert status == 0, out
            assert out == expected["output"]
        assert not live.deals.unasked, f"the table started hands the script did not ask for: {live.deals.unasked}"
    finally:
        await live.close()
