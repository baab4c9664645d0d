"""The banker opens hands one by one (house-rules.md, `banker_opens`), over real sockets: the banker's cards stay down
until the first open, an opened challenger's cards turn up for everyone, and an unopened challenger's stay with its
owner in every frame every connection received."""

import pytest

from tests.games.conftest import acked
from tests.games.sockets import Tab, card_strings, catch_up, close_all, create_room, db, sit_and_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

# Dealt in order: the first challenger, the second, the bank; twice; then the bank's draw.
DECK = ["10S", "9H", "8D", "7S", "9D", "8C", "4H"]


def seen(tab, since: int = 0) -> set:
    out = set()
    for _text, frame in tab.frames[since:]:
        card_strings(frame, out)
    return out


async def test_an_open_shows_the_opened_hand_and_the_bank_and_nothing_else(cast, no_resync, monkeypatch):
    def stacked_hand(run):
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": "cd" * 32, "deck": DECK})

    monkeypatch.setattr("games.services.moves._start_hand", stacked_hand)
    room = await db(create_room)(cast["alice"], "ban-luck-opens", buy_in_max=3000)
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen", "dara")}  # dara watches
    try:
        await sit_and_start(tabs, room, ("alice", "bob", "chen"), 900)
        players = [tabs[n] for n in ("alice", "bob", "chen")]
        banker = next(t for t in players if t.view["role"] == "banker")
        for tab in players:
            if tab is not banker:
                assert acked(await tab.act("bet", amount=10))
        await catch_up(tabs.values(), room)
        first, second = (next(t for t in players if t.view["you"] == seat)
                         for seat in banker.view["hand"]["order"][:2])
        for tab in (first, second):
            assert acked(await tab.act("stand"))
        await catch_up(tabs.values(), room)
        assert banker.view["hand"]["turn"]["seat"] == banker.view["you"]
        assert "open" in banker.view["legal_actions"]
        assert acked(await banker.act("hit"))  # 20, face down: nobody opened yet
        await catch_up(tabs.values(), room)
        for tab in (first, second, tabs["dara"]):
            assert not {"8D", "8C", "4H"} & seen(tab), tab.user
            assert tab.view["house"]["banker_opens"]["openable"] == []  # the banker's list is the banker's
        assert banker.view["house"]["banker_opens"]["openable"] == [first.view["you"], second.view["you"]]
        before = {name: len(tab.frames) for name, tab in tabs.items()}
        assert acked(await banker.act("open", seat=first.view["you"]))
        await catch_up(tabs.values(), room)
        for name, tab in tabs.items():
            if tab is not banker:
                assert {"8D", "8C", "4H"} <= seen(tab, before[name]), name  # the bank's cards at the first open
            if tab is not first:
                assert {"10S", "7S"} <= seen(tab, before[name]), name  # the opened hand is public
            if tab is not second:
                assert not {"9H", "9D"} & seen(tab), name  # the unopened hand stays with its owner
        settled = [e for e in tabs["dara"].events("bet_settled") if e["why"] == "opened"]
        assert [(e["bettor"], e["outcome"]) for e in settled] == [(first.view["you"], "lose")]  # 17 against 20
        assert tabs["dara"].view["house"]["banker_opens"]["opened"] == [first.view["you"]]
        assert acked(await banker.act("stand"))
        await catch_up(tabs.values(), room)
        [done] = tabs["dara"].events("hand_settled")
        assert [(r["bettor"], r["outcome"], r.get("why")) for r in done["results"]] == [
            (first.view["you"], "lose", "opened"), (second.view["you"], "lose", None)]  # 18 against 20
    finally:
        await close_all(tabs.values())
