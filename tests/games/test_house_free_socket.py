"""The free hand over the socket (house-rules.md "The free hand"; docs/rules.md): a challenger's two-card 15 stays face
down to everyone else until it runs; the run turns those two cards up for every viewer (as a bust's are), and nothing
else: the other challenger's and the banker's cards stay hidden until the hand's reveal."""

import pytest

from tests.games.conftest import acked
from tests.games.sockets import Tab, card_strings, catch_up, close_all, create_room, db, sit_and_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer", "no_resync")]

# Dealing order: the first challenger from the bank's left, the second, the bank; twice. 7 8 (15) | 9 8 (17) | 10 6.
DECK = ["7H", "9H", "10D", "8S", "8H", "6C"]
FREE, OTHER, BANK = {"7H", "8S"}, {"9H", "8H"}, {"10D", "6C"}


def seen(tab, since: int = 0) -> set:
    """Every card code in the frames `tab` received from frame `since` on."""
    out: set = set()
    for _text, frame in tab.frames[since:]:
        card_strings(frame, out)
    return out


async def test_a_run_shows_the_runners_two_cards_to_all_and_no_other_card(cast, monkeypatch):
    def stacked(run):
        run.meta["next_hand_at"] = None
        run.apply("system", "start_hand", {"seed_hex": "cd" * 32, "deck": DECK})

    monkeypatch.setattr("games.services.moves._start_hand", stacked)
    room = await db(create_room)(cast["alice"], "ban-luck", overrides={"free_hand": True})
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen", "dara")}  # dara watches
    try:
        await sit_and_start(tabs, room, ("alice", "bob", "chen"), 900)
        seated = [tabs[n] for n in ("alice", "bob", "chen")]
        for tab in seated:
            if "bet" in tab.view["legal_actions"]:
                assert acked(await tab.act("bet", amount=50))
        await catch_up(tabs.values(), room)
        runner = next(t for t in seated if "escape" in t.view["legal_actions"])
        banker = next(t for t in seated if t.view["role"] == "banker")
        other = next(t for t in seated if t not in (runner, banker))
        seat = runner.view["you"]
        assert [c["card"] for c in runner.view["hand"]["hands"][seat][0]["cards"]] == ["7H", "8S"]
        assert "escape" not in other.view["legal_actions"] and "escape" not in banker.view["legal_actions"]
        for viewer in (other, banker, tabs["dara"]):
            assert viewer.view["hand"]["hands"][seat][0]["cards"] == [{"hidden": True}, {"hidden": True}]
            assert not seen(viewer) & FREE, viewer.user  # no frame so far held the runner's cards
        marks = {name: len(tab.frames) for name, tab in tabs.items()}

        assert acked(await runner.act("escape"))
        await catch_up(tabs.values(), room)
        for viewer in (other, banker, tabs["dara"]):
            cards = viewer.view["hand"]["hands"][seat][0]["cards"]
            assert cards == [{"card": "7H", "up": True}, {"card": "8S", "up": True}], viewer.user
            assert viewer.view["house"]["free_hand"] == {"escaped": [seat], "banker": False}
            assert [e["seat"] for e in viewer.events("free_hand_escaped")] == [seat]
            result = next(r for r in viewer.view["hand"]["results"] if r["bettor"] == seat)
            assert (result["outcome"], result["why"]) == ("void", "free_hand")
        # The run showed the runner's cards and nothing else: the other challenger's stay its own, the bank's hidden.
        assert not seen(banker, marks[next(n for n, t in tabs.items() if t is banker)]) & OTHER
        assert not seen(runner, marks[next(n for n, t in tabs.items() if t is runner)]) & (OTHER | BANK)
        assert not seen(tabs["dara"]) & (OTHER | BANK)
        assert not seen(other) & BANK
        assert not other.view["hand"]["over"] and other.view["hand"]["turn"]["seat"] == other.view["you"]
    finally:
        await close_all(tabs.values())


def test_the_hand_record_page_tells_the_run():
    """games/pages.py `hand_events`: the run and the stakes it gives back, in words (no event name shown raw)."""
    from games.pages import WHY_TEXT, hand_events

    events = [{"type": "hand_started", "data": {"hand_no": 1, "banker": "B", "bank": 3000, "base_stake": 1}},
              {"type": "action", "data": {"seat": "B", "hand": 0, "action": "escape"}},
              {"type": "free_hand_escaped", "data": {"seat": "B", "hand": 0, "banker": True}},
              {"type": "free_hand_escaped", "data": {"seat": "C1", "hand": 0, "banker": False}}]
    lines = [x["text"] for x in hand_events(events, {"B": "Bo", "C1": "Cy"})]
    assert lines[1:] == ["Bo runs with a free hand.", "Every stake not yet settled comes back.",
                         "Cy's stake comes back: no win, no loss."]
    assert str(WHY_TEXT["free_hand"]) == "a free hand (two-card 15), run"
