"""docs/protocol.md, "Errors": each action is refused only with the codes its row of "By message" lists (every action,
from every seat and from a user without one, with wrong and right arguments, in each phase of a hand of every game),
and a refused `action_id` is not remembered: sent again, the action is judged again."""

import re
from pathlib import Path

import pytest
from django.db import transaction

from games import services
from games.engine import state_from_json, view
from games.models import Table
from tests.games.conftest import acked, make_player, seat_of
from tests.games.sockets import catch_up, close_all, db, seated_table, sensible_move

pytestmark = pytest.mark.django_db(transaction=True)

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def documented() -> tuple[set[str], dict[str, set[str]]]:
    """(the codes any action may answer, {message: the codes of its row}) as docs/protocol.md lists them."""
    text = PROTOCOL.read_text()
    section = text[text.index("### By message"):]
    intro, table = section.split("| message | codes |", 1)
    common = set(re.findall(r"`(\w+)`", intro)) - {"action"}
    rows = {}
    for line in table.split("\n\n", 1)[0].splitlines()[2:]:
        names, codes = line.strip("|").split("|")
        for name in re.findall(r"`(\w+)`", names):
            rows[name] = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", codes)))
    return common, rows


# No amount, none at all, chips of the ten-half games, a stake that is no multiple of the base stake, one over a third
# of a 1000 stack, and one over everything.
AMOUNTS = [{}, *({"amount": a} for a in (0, 10, 20, 25, 50, 500, 10**6))]


def variants(action: str, seats: list[str]) -> list[dict]:
    """Arguments to try: none, wrong ones and right ones."""
    targets = [*seats, "s0"]
    if action in ("chip", "bet", "refill", "open_bank", "take_bank", "seed_jackpot", "top_up"):
        return AMOUNTS
    if action in ("back", "kick", "open"):
        return [{}, *({"seat": s} for s in targets)]
    if action == "bid":  # the bank auction (house-rules.md): no number, below zero, no bid, a bid, above auction_max
        return [{}, *({"mult": m} for m in ("x", -1, 0, 1, 99))]
    if action == "side_bet":
        return [{}, *({"backs": s, "amount": a} for s in targets for a in (0, 20))]
    if action == "sit":
        return [{"buy_in": b, "role": r} for b in (None, 1, 1000, 10**7) for r in ("main", "side", "host")] + [
            {"buy_in": 1000, "position": 0}, {"buy_in": 1000, "position": 99}]
    return [{}]


class _Undo(Exception):
    """Rolls back an action that was applied: the probe leaves the table as it found it."""


def refusal(room, user, action: str, args: dict) -> str | None:
    try:
        with transaction.atomic():
            services.action_submit(room_id=room.pk, user=user, action=action,
                                   args={k: v for k, v in args.items() if v is not None})
            raise _Undo
    except _Undo:
        return None
    except services.GameError as e:
        return e.code


def probe(room, people: list, seen: dict[str, set[str]]) -> None:
    """Every action from every person with every variant of its arguments; the refusals' codes into `seen`."""
    seats = list(Table.objects.get(pk=room.pk).meta["users"].values())
    for action in sorted(services.PLAYER_ACTIONS | services.ROOM_ACTIONS):
        for args in variants(action, seats):
            for user in people:
                code = refusal(room, user, action, args)
                if code is not None:
                    seen.setdefault(action, set()).add(code)


def move(room, users: dict[str, object]) -> bool:
    """One plain move of whoever has one (tests/games/sockets.py sensible_move; a side bettor skips)."""
    table = Table.objects.get(pk=room.pk)
    state = state_from_json(table.state)
    for seat_id, user in users.items():
        v = view(state, seat_id)
        chosen = ("no_bet", {}) if "no_bet" in v["legal_actions"] else ("bid", {"mult": 1}) \
            if "bid" in v["legal_actions"] else sensible_move(v)
        if chosen is not None:
            services.action_submit(room_id=room.pk, user=user, action=chosen[0], args=chosen[1])
            return True
    return False


GAMES = [("ten-half", {}), ("seven-half", {"house_rules": True, "jackpot_enabled": True}),
         ("zhejiang-ten-half", {}), ("ban-luck", {}),
         # the house rules' actions (house-rules.md): the banker's `open`, the free hand's `escape`, the auction's `bid`
         ("ban-luck-opens", {}), ("ten-half-auction", {})]


@pytest.mark.parametrize(("preset", "overrides"), GAMES, ids=[g for g, _o in GAMES])
def test_every_refusal_of_every_action_is_a_code_its_row_lists(cast, settings, clock, preset, overrides):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # the finished hand stays on the table
    alice, bob, chen, dara = (cast[n] for n in ("alice", "bob", "chen", "dara"))
    erin = make_player("erin")
    room = services.room_create(host=alice, preset=preset, overrides=overrides, buy_in_max=3000)
    side = room.rules["side_bets_enabled"]
    for user in (alice, bob, chen):
        services.seat_take(room_id=room.pk, user=user, buy_in=1000)
    services.seat_take(room_id=room.pk, user=dara, buy_in=1000, role="side" if side else "main")
    people = [alice, bob, chen, dara, erin]
    users = {seat_of(room, u): u for u in people[:4]}
    seen: dict[str, set[str]] = {}
    probe(room, people, seen)  # waiting
    services.action_submit(room_id=room.pk, user=alice, action="start")
    moments = set()  # each phase once, and betting again once someone has confirmed (a locked bet)
    for _step in range(60):
        state = Table.objects.get(pk=room.pk).state
        moment = (state["phase"], state["phase"] == "betting" and any(
            b["confirmed"] for b in [*state["hand"]["bets"].values(), *state["hand"]["side"].values()]))
        if moment not in moments:
            moments.add(moment)
            probe(room, people, seen)
        if state["phase"] == "between_hands" and ("playing", False) not in moments:
            # The deal settled the hand at once (a banker's Ban Ban or Ban Luck): on to the next hand.
            clock.advance(settings.GAMES_NEXT_HAND_SECONDS + 1)
            services.table_wake(room_id=room.pk)
            continue
        if state["phase"] == "between_hands" or not move(room, users):
            break
    phases = {phase for phase, _locked in moments}
    assert {"playing", "between_hands"} <= phases, phases  # betting too, where stakes are not fixed

    common, rows = documented()
    assert set(rows) >= services.PLAYER_ACTIONS | services.ROOM_ACTIONS
    undocumented = {action: codes - rows[action] - common for action, codes in seen.items()
                    if codes - rows[action] - common}
    assert not undocumented, undocumented
    if preset == "ten-half":  # the examples docs/protocol.md names, and a locked bet
        assert {"not_your_turn"} <= seen["open_bank"] and {"bad_amount"} <= seen["confirm"]
        assert {"bet_locked", "choose_challenger"} <= seen["chip"]
    if preset == "ban-luck-opens":  # the banker's open and the free hand's run, refused at least as the row says
        assert {"not_your_turn", "illegal_action"} <= seen["open"] and "escape" in seen, seen.get("open")
    if preset == "ten-half-auction":
        assert {"bad_amount", "bid_too_high", "not_bidding"} <= seen["bid"] and "bank_auction" in seen["take_bank"], seen.get("bid")


@pytest.mark.usefixtures("fresh_layer")
async def test_a_refused_action_id_is_judged_again_when_sent_again(cast, no_resync):
    room, tabs = await seated_table(cast)  # the bank is offered to alice: no betting yet
    bob = tabs["bob"]
    try:
        refused = await bob.act("bet", action_id="b-1", amount=20)
        assert (refused["type"], refused["code"], refused["action_id"]) == ("error", "wrong_phase", "b-1")
        version = refused["version"]
        assert acked(await tabs["alice"].act("open_bank", amount=500))
        await catch_up(tabs.values(), room)
        assert bob.view["phase"] == "betting"

        applied = await bob.act("bet", action_id="b-1", amount=20)  # the same id: applied now
        assert applied["type"] == "update" and applied["ack"] == "b-1" and applied["version"] > version
        again = await bob.act("bet", action_id="b-1", amount=20)  # and now remembered
        assert again == {"type": "ack", "action_id": "b-1", "version": applied["version"], "duplicate": True}
        table = await db(Table.objects.get)(pk=room.pk)
        assert table.state["hand"]["bets"][bob.view["you"]] == {"amount": 20, "confirmed": True}
    finally:
        await close_all(tabs.values())
