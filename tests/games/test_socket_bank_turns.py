"""The bank by turns (`bank_turn_hands`, docs/rules.md) at a live table: four people play the golden script
tests/engine/scripts/ten-half-bank-by-turns.json over their sockets, with the same cards and dice, and get the
same bankers, results and stacks; the ledger is audited after every hand and no bean is made or lost."""

import json
import pathlib

import pytest
from django.db.models import Sum

from games import services
from games.models import Room
from games.services.errors import GameError
from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean, state
from tests.games.sockets import catch_up, close_all, create_room, db, seated_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "engine" / "scripts"
SCRIPT = json.loads((SCRIPTS / "ten-half-bank-by-turns.json").read_text())
EXPECTED = json.loads((SCRIPTS / "ten-half-bank-by-turns.expected.json").read_text())["output"]
NAMES = {"B": "alice", "C1": "bob", "C2": "chen", "C3": "dara"}  # the script's seats, clockwise, as people
DECKS = [SCRIPT["deck"]] + [a[2:] for a in SCRIPT["actions"] if a[:2] == ["system", "next_hand"]]


def beans(users) -> int:
    from wallets.models import Account

    return Account.objects.filter(user__in=users, currency="beans").aggregate(total=Sum("balance"))["total"]


@pytest.fixture
def script_deals(monkeypatch):
    """Every hand starts with the script's top cards and the dice the script's hand rolled."""

    def start(run):
        run.meta["next_hand_at"] = None
        n = run.state.hand_no + 1
        args = {"seed_hex": f"{n:02d}" * 32}
        if n <= len(DECKS):
            args.update(deck=DECKS[n - 1], dice=EXPECTED["hands_played"][n - 1]["dice"])
        run.apply("system", "start_hand", args)

    monkeypatch.setattr("games.services.moves._start_hand", start)


def move(view):
    """The script's players: the base stake, stand on the first card, open an offered bank with 300."""
    legal = view["legal_actions"]
    if "open_bank" in legal and view["pending"]:
        return "open_bank", {"amount": 300}
    if "bet" in legal:
        return "bet", {"amount": view["rules"]["base_stake"]}
    if "stand" in legal:
        return "stand", {}
    return None


async def test_four_people_pass_the_bank_every_three_hands_as_the_golden_script_does(cast, no_resync, script_deals):
    total = await db(beans)(list(cast.values()))
    room, tabs = await seated_table(cast, overrides={"bank_turn_hands": 3}, bank=300)
    players = list(tabs.values())
    seat_of = {name: tabs[name].view["you"] for name in NAMES.values()}
    name_of = {seat_of[person]: script for script, person in NAMES.items()}
    positions = {s["id"]: s["position"] for s in tabs["alice"].view["seats"]}
    assert sorted(seat_of.values(), key=positions.get) == [seat_of[n] for n in NAMES.values()]  # clockwise, as B..C3
    try:
        left_seen = []
        hands = len(EXPECTED["hands_played"])
        for _step in range(300):
            done = len(tabs["alice"].events("hand_over"))
            if done == hands:
                break
            moves = [(tab, move(tab.view)) for tab in players]
            moves = [(tab, m) for tab, m in moves if m is not None]
            assert moves, tabs["alice"].view
            tab, (action, args) = moves[0]
            if action == "bet":
                left_seen.append({t.view["bank_turn_left"] for t in players})
            assert acked(await tab.act(action, **args)), (action, args)
            await catch_up(players, room)
            if len(tabs["alice"].events("hand_over")) > done:
                await db(assert_ledger_clean)()
                await db(assert_holds_match_table)(room)
        assert len(tabs["alice"].events("hand_over")) == hands

        for tab in players:
            started = tab.events("hand_started")[:hands]
            dice = [e["dice"] for e in tab.events("dice_rolled")][:hands]
            settled = tab.events("hand_settled")[:hands]
            played = [{"hand_no": s["hand_no"], "banker": name_of[s["banker"]], "dice": d,
                       "deltas": {name_of[k]: v for k, v in h["deltas"].items()}}
                      for s, d, h in zip(started, dice, settled, strict=True)]
            assert played == EXPECTED["hands_played"]
            turns = [{"seat": name_of[e["seat"]], "hands": e["hands"], "hand_no": e["hand_no"]}
                     for e in tab.events("bank_turn_over")]
            assert turns == EXPECTED["bank_turns"]
        # Every viewer saw the same count: 3 hands left at B's first, ..., 1 at its third, 3 again at C1's first.
        assert all(len(s) == 1 for s in left_seen)
        assert [s.pop() for s in left_seen][::3] == [3, 2, 1, 3, 2, 1, 3]  # one bet a challenger, three a hand

        view = tabs["dara"].view
        stacks = {name_of[s["id"]]: s["stack"] + (view["bank"] if s["id"] == view["banker"] else 0)
                  for s in view["seats"]}
        assert stacks == EXPECTED["stacks"] and view["bank"] == EXPECTED["bank"]
        assert name_of[view["banker"]] == EXPECTED["next_banker"]
    finally:
        await close_all(players)
    # Everyone leaves: what they won and lost is in their wallets, and not a bean more or less in all four.
    for name in NAMES.values():
        await db(services.seat_leave)(room_id=room.pk, user=cast[name])
    await db(assert_ledger_clean)()
    assert await db(beans)(list(cast.values())) == total


async def test_a_rules_change_during_a_hand_waits_for_the_next_and_a_knob_out_of_range_changes_nothing(
        cast, no_resync, script_deals):
    room, tabs = await seated_table(cast, overrides={"bank_turn_hands": 3}, bank=300)
    players = list(tabs.values())
    try:
        for bad in (21, -1, "3", None, 2.5):
            with pytest.raises(GameError) as e:
                await db(services.room_rules_update)(room_id=room.pk, overrides={"bank_turn_hands": bad})
            assert e.value.code == "invalid_rules" and "bank_turn_hands" in e.value.message
        assert (await db(state)(room))["rules"]["bank_turn_hands"] == 3 and (await db(state)(room))["next_rules"] is None
        # Hand 1 is under way: the host turns the rule to one hand; hand 1 still ends only B's first hand of three.
        assert tabs["bob"].view["phase"] == "betting"
        await db(services.room_rules_update)(room_id=room.pk, overrides={"bank_turn_hands": 1})
        await catch_up(players, room)
        assert [e["from_hand"] for e in tabs["bob"].events("rules_changed")] == [2]
        assert tabs["bob"].view["bank_turn_left"] == 3
        for _step in range(40):
            if tabs["bob"].events("hand_over"):
                break
            tab, m = next((t, move(t.view)) for t in players if move(t.view))
            assert acked(await tab.act(m[0], **m[1]))
            await catch_up(players, room)
        assert tabs["bob"].events("hand_over") and not tabs["bob"].events("bank_turn_over")
        assert tabs["bob"].view["banker"] == tabs["alice"].view["you"]
        # Hand 2 plays with one hand a turn: alice has banked two, so the bank passes after it.
        view = tabs["bob"].view
        assert (view["next_rules"] or view["rules"])["bank_turn_hands"] == 1 and view["bank_turn_left"] == 1
    finally:
        await close_all(players)


async def test_creating_a_room_with_a_knob_out_of_range_is_refused_on_its_field(cast):
    for preset, bad in (("ten-half", 21), ("zhejiang-ten-half", -1), ("seven-half", 3)):
        with pytest.raises(GameError) as e:
            await db(create_room)(cast["alice"], preset, overrides={"bank_turn_hands": bad})
        assert e.value.code == "invalid_rules" and e.value.field == "bank_turn_hands"
    assert not await db(Room.objects.exists)()
