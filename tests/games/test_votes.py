"""Votes at a table over the socket (docs/protocol.md, "Votes"): a vote to end the room once the host is away passes
by a majority of the players here and closes the room after the hand, the settle-up balanced; a vote to skip an away
player's timers passes when everybody else agrees and the hand no longer waits for that seat; every refusal leaves
the table, the room and the votes as they were."""

import pytest

from games import ledger
from games.models import Room, RoomVote, Table
from games.services.run import _dt
from games.services.votes import HOST_AWAY_SECONDS
from tests.games.conftest import BEANS, acked, assert_ledger_clean, expire, state
from tests.games.sockets import Closed, Tab, catch_up, close_all, db, drain_all, seated_table, sensible_move
from wallets.models import Account

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

ANSWERS = ("error", "vote_opened", "vote_tally", "vote_ended", "vote_anytime")


EXPECT = {"vote_call": "vote_opened", "vote_cast": "vote_tally", "vote_anytime": "vote_anytime"}


async def send(tab: Tab, message: dict) -> dict:
    """Send `message`; its answer: an `error`, or the room's frame that it made (others' frames are passed over)."""
    await tab.send(message)
    while True:
        frame = await tab.reply(*ANSWERS)
        if frame["type"] == "error" or frame["type"] == EXPECT[message["type"]] and (
                frame["type"] != "vote_tally" or frame["by"] == tab.view["you"]):
            return frame


def room_as_is(room) -> tuple:
    """Everything a refused message must leave alone: the table, the room and its votes."""
    t = Table.objects.get(pk=room.pk)
    r = Room.objects.get(pk=room.pk)
    votes = list(RoomVote.objects.filter(room=room).order_by("pk").values_list(
        "kind", "user_id", "seat", "target", "voters", "ballots", "outcome", "decided_at"))
    return t.version, t.state, t.meta, r.status, r.vote_anytime, votes


async def refused(tab: Tab, message: dict, code: str, room, others=()) -> None:
    before = await db(room_as_is)(room)
    frame = await send(tab, message)
    assert frame["type"] == "error" and frame["code"] == code, (message, frame)
    assert frame["message"]
    assert await db(room_as_is)(room) == before, message
    for frames in await drain_all(others):
        assert all(f["type"] not in ANSWERS for f in frames), message


def wallets_total(users) -> int:
    """Every bean of these players: their wallets and their holds at tables."""
    return sum(a.balance for a in Account.objects.filter(user__in=users, currency="beans"))


def wallet_balances(users) -> dict[int, int]:
    return {a.user_id: a.balance for a in Account.objects.filter(user__in=users, currency="beans",
                                                                  kind=Account.Kind.AVAILABLE)}


def hand_over(room) -> bool:
    return state(room)["phase"] not in ("auction", "betting", "playing")


async def test_the_players_end_the_room_of_a_host_gone_for_five_minutes_after_the_hand(cast, clock, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, bob, chen, dara = (tabs[n] for n in ("alice", "bob", "chen", "dara"))
    beans = await db(wallets_total)(list(cast.values()))
    try:
        assert bob.view["phase"] == "betting"
        await alice.close()  # the host's page is gone
        clock.advance(HOST_AWAY_SECONDS - 5)
        await refused(bob, {"type": "vote_call", "kind": "close"}, "host_here", room, (chen, dara))
        clock.advance(6)

        opened = await send(bob, {"type": "vote_call", "kind": "close"})
        seats = {n: tabs[n].view["you"] for n in ("bob", "chen", "dara")}
        assert opened["type"] == "vote_opened" and opened["kind"] == "close"
        assert (opened["seat"], opened["user"], opened["target"]) == (seats["bob"], cast["bob"].pk, None)
        assert opened["voters"] == [seats["bob"], seats["chen"], seats["dara"]]  # the away host is no voter
        assert (opened["yes"], opened["no"], opened["answered"], opened["seconds"]) == (1, 0, [seats["bob"]], 60)
        for tab in (chen, dara):
            assert (await tab.reply("vote_opened"))["vote"] == opened["vote"]
        version = await db(lambda: Table.objects.get(pk=room.pk).version)()

        # dara says no; chen's yes makes two of three.
        tally = await send(dara, {"type": "vote_cast", "vote": opened["vote"], "yes": False})
        assert (tally["type"], tally["yes"], tally["no"]) == ("vote_tally", 1, 1)
        tally = await send(chen, {"type": "vote_cast", "vote": opened["vote"], "yes": True})
        assert (tally["type"], tally["yes"], tally["no"]) == ("vote_tally", 2, 1)
        ended = await chen.reply("vote_ended")
        assert (ended["outcome"], ended["after_hand"]) == ("passed", True)
        assert (await bob.reply("vote_ended"))["outcome"] == "passed"
        vote = await db(RoomVote.objects.get)(pk=opened["vote"])
        assert (vote.outcome, vote.ballots) == ("passed", {seats["bob"]: True, seats["dara"]: False,
                                                           seats["chen"]: True})
        # The hand goes on: the room closes after it, by the same close as the host's.
        t = await db(Table.objects.get)(pk=room.pk)
        # (The clock moved past the betting's deadline: the vote's save woke the table, which timed the betting out.)
        assert t.version > version and t.meta["vote_close"] == vote.pk and t.state["phase"] in ("betting", "playing")
        assert (await db(Room.objects.get)(pk=room.pk)).is_open
        hand = t.state["hand_no"]

        for _step in range(60):
            if not (await db(Room.objects.get)(pk=room.pk)).is_open:
                break
            await catch_up([bob, chen, dara], room)
            moves = [(t, sensible_move(t.view)) for t in (bob, chen, dara)]
            mine = next(((t, m) for t, m in moves if m is not None), None)
            if mine is None:  # the away host's turn: its clock runs out
                await db(expire)(room, clock)
            else:
                assert acked(await mine[0].act(mine[1][0], **mine[1][1])), mine[1]
        closed = await db(Room.objects.get)(pk=room.pk)
        assert closed.status == Room.Status.CLOSED
        t = await db(Table.objects.get)(pk=room.pk)
        assert t.state["hand_no"] == hand and t.state["seats"] == []  # no next hand was dealt
        book = await db(ledger.room_ledger)(closed)
        assert book.balanced and all(p.on_table == 0 and not p.seated for p in book.people)
        assert any(p.net != 0 for p in book.people)  # the hand was played and settled
        assert await db(wallets_total)(list(cast.values())) == beans  # every bean went home
        wallets = await db(wallet_balances)(list(cast.values()))
        assert wallets == {p.user_id: BEANS + p.net for p in book.people}  # each wallet moved by its net
        await db(assert_ledger_clean)()
    finally:
        await close_all(tabs.values())


async def test_a_vote_when_no_hand_is_in_play_closes_at_once_and_the_host_may_allow_votes_any_time(cast, no_resync):
    room, tabs = await seated_table(cast)  # between hands: nobody opened the bank
    alice, bob, chen, dara = (tabs[n] for n in ("alice", "bob", "chen", "dara"))
    try:
        await refused(bob, {"type": "vote_call", "kind": "close"}, "host_here", room, (chen, dara))
        await refused(bob, {"type": "vote_call", "kind": "skip", "seat": dara.view["you"]}, "no_hand", room, (chen,))
        assert await send(alice, {"type": "vote_anytime", "allow": True}) == {
            "type": "vote_anytime", "allow": True, "version": alice.version}
        opened = await send(bob, {"type": "vote_call", "kind": "close"})
        assert len(opened["voters"]) == 4  # the host is here, and votes too: three yes are needed
        for tab, yes in ((alice, True), (chen, True)):
            assert (await send(tab, {"type": "vote_cast", "vote": opened["vote"], "yes": yes}))["type"] == "vote_tally"
        ended = await bob.reply("vote_ended")
        assert (ended["outcome"], ended["after_hand"]) == ("passed", False)
        closed = await db(Room.objects.get)(pk=room.pk)
        assert closed.status == Room.Status.CLOSED
        assert (await db(Table.objects.get)(pk=room.pk)).state["seats"] == []
        with pytest.raises(Closed):  # the pages go to the closed room's page
            await bob.drain()
        book = await db(ledger.room_ledger)(closed)
        assert book.balanced and all(p.on_table == 0 and p.net == 0 for p in book.people)
    finally:
        await close_all(tabs.values())


async def test_enough_noes_fail_a_vote_at_once_and_nothing_changes_at_the_table(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, bob, chen = tabs["alice"], tabs["bob"], tabs["chen"]
    try:
        assert (await send(alice, {"type": "vote_anytime", "allow": True}))["allow"] is True
        before = await db(lambda: Table.objects.get(pk=room.pk))()
        opened = await send(bob, {"type": "vote_call", "kind": "close"})
        await send(alice, {"type": "vote_cast", "vote": opened["vote"], "yes": False})
        await send(chen, {"type": "vote_cast", "vote": opened["vote"], "yes": False})
        ended = await chen.reply("vote_ended")
        assert (ended["outcome"], ended["yes"], ended["no"]) == ("failed", 1, 2)  # dara's yes could not make three
        after = await db(lambda: Table.objects.get(pk=room.pk))()
        assert (after.version, after.state, after.meta) == (before.version, before.state, before.meta)
        # A page that connects while a vote is open is sent it.
        second = await send(chen, {"type": "vote_call", "kind": "close"})
        late = Tab(cast["alice"], room.code)
        try:
            await late.open()
            frames = [f for f in await late.drain() if f["type"] in ANSWERS]
            assert [(f["type"], f["vote"], f["answered"]) for f in frames] == [
                ("vote_opened", second["vote"], [chen.view["you"]])]
        finally:
            await late.close()
    finally:
        await close_all(tabs.values())


async def test_the_players_skip_an_away_players_timers_for_the_rest_of_the_hand(cast, clock, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, bob, chen, dara = (tabs[n] for n in ("alice", "bob", "chen", "dara"))
    try:
        dara_seat = dara.view["you"]
        await dara.close()
        opened = await send(bob, {"type": "vote_call", "kind": "skip", "seat": dara_seat})
        assert opened["target"] == dara_seat and dara_seat not in opened["voters"] and len(opened["voters"]) == 3
        assert (await send(alice, {"type": "vote_cast", "vote": opened["vote"], "yes": True}))["yes"] == 2
        assert (await send(chen, {"type": "vote_cast", "vote": opened["vote"], "yes": True}))["yes"] == 3
        assert (await chen.reply("vote_ended"))["outcome"] == "passed"
        t = await db(Table.objects.get)(pk=room.pk)
        assert t.meta["skip"] == {"hand": t.state["hand_no"], "seats": [dara_seat]}
        await bob.drain()
        await refused(alice, {"type": "vote_call", "kind": "skip", "seat": dara_seat}, "already_skipped", room, (bob,))
        hand = t.state["hand_no"]
        # Nobody moves the clock: the hand never waits for dara.
        for _step in range(60):
            if await db(hand_over)(room) or (await db(state)(room))["hand_no"] > hand:
                break
            await catch_up([alice, bob, chen], room)
            moves = [(t, sensible_move(t.view)) for t in (alice, bob, chen)]
            mine = next(((t, m) for t, m in moves if m is not None), None)
            assert mine is not None, "the table waits for somebody here"
            assert acked(await mine[0].act(mine[1][0], **mine[1][1])), mine[1]
        s = await db(state)(room)
        assert s["hand_no"] > hand or s["phase"] not in ("betting", "playing")
        last = s["last_hand"]
        assert last["hand_no"] == hand and dara_seat in last["deltas"]  # dara played by the timeouts' defaults
        # The next hand waits for dara again, were she dealt in (she sits out: away).
        t = await db(Table.objects.get)(pk=room.pk)
        assert t.meta["skip"]["hand"] == hand
    finally:
        await close_all(tabs.values())


async def test_every_refusal_changes_nothing(people, clock, no_resync):
    room, tabs = await seated_table(people, bank=500, extra=("erin",))
    alice, bob, chen, dara, erin = (tabs[n] for n in ("alice", "bob", "chen", "dara", "erin"))
    others = (chen, dara)
    try:
        close = {"type": "vote_call", "kind": "close"}
        # A spectator calls and answers nothing.
        await refused(erin, close, "not_seated", room, others)
        await refused(erin, {"type": "vote_call", "kind": "skip", "seat": bob.view["you"]}, "not_seated", room, others)
        for kind in ("end", None, 1, ["close"], "", "CLOSE"):
            await refused(bob, {"type": "vote_call", "kind": kind}, "bad_vote_kind", room, others)
        # The host closes the room instead; a host who is here ends it themselves.
        await refused(alice, close, "host_closes", room, others)
        await refused(bob, close, "host_here", room, others)
        # Skipping: nobody else, a present player, a bot-free nonsense seat.
        for seat in (bob.view["you"], "s999", None, 5, ["s1"], ""):
            await refused(bob, {"type": "vote_call", "kind": "skip", "seat": seat}, "bad_seat", room, others)
        await refused(bob, {"type": "vote_call", "kind": "skip", "seat": dara.view["you"]}, "player_here", room, (chen,))
        # The host's setting: the host's, and a boolean.
        await refused(bob, {"type": "vote_anytime", "allow": True}, "not_host", room, others)
        for allow in ("true", 1, None, [True], {}):
            await refused(alice, {"type": "vote_anytime", "allow": allow}, "bad_value", room, others)
        # Answers with no such vote, or no boolean.
        for vote in (999999, "1", None, 1.0, True, 0, -1, 2**63, 10**30):
            await refused(chen, {"type": "vote_cast", "vote": vote, "yes": True}, "no_vote", room, (bob, dara))
        for yes in ("yes", 1, None, [True], 0):
            await refused(chen, {"type": "vote_cast", "vote": 1, "yes": yes}, "bad_ballot", room, (bob, dara))

        await alice.close()
        clock.advance(HOST_AWAY_SECONDS)
        opened = await send(bob, close)
        for tab in (chen, dara, erin):
            await tab.reply("vote_opened")
        vote = opened["vote"]
        # One vote at a time.
        await refused(chen, close, "vote_open", room, (bob, dara))
        # Only the voters answer, once each.
        await refused(erin, {"type": "vote_cast", "vote": vote, "yes": True}, "not_seated", room, (bob, dara))
        await refused(bob, {"type": "vote_cast", "vote": vote, "yes": True}, "already_voted", room, others)
        for yes in ("no", None):
            await refused(chen, {"type": "vote_cast", "vote": vote, "yes": yes}, "bad_ballot", room, (bob, dara))
        back = Tab(people["alice"], room.code)  # the host comes back: seated, but no voter of this vote
        tabs["alice"] = back
        await back.open()
        await back.drain()
        await refused(back, {"type": "vote_cast", "vote": vote, "yes": False}, "not_voter", room, others)
        # Its minute is over: answers come too late.
        clock.advance(61)
        await refused(chen, {"type": "vote_cast", "vote": vote, "yes": True}, "vote_expired", room, (bob, dara))
        found = await db(RoomVote.objects.get)(pk=vote)
        assert (found.outcome, found.result(found.opened_at), found.result(_dt(clock()))) == ("", "open", "expired")
        # One call per player per ten minutes, whatever came of it.
        await refused(bob, close, "vote_wait", room, others)
        await refused(bob, {"type": "vote_call", "kind": "skip", "seat": dara.view["you"]}, "vote_wait", room, others)

        # A decided vote takes no answer.
        assert (await send(back, {"type": "vote_anytime", "allow": True}))["allow"] is True
        second = await send(chen, close)
        for tab in (back, bob):
            await send(tab, {"type": "vote_cast", "vote": second["vote"], "yes": False})
        assert (await dara.reply("vote_ended"))["outcome"] == "failed"
        await bob.drain()
        await refused(dara, {"type": "vote_cast", "vote": second["vote"], "yes": True}, "vote_over", room, (bob,))
        clock.advance(600)
        assert (await send(bob, close))["type"] == "vote_opened"  # ten minutes on, bob may call again
        await dara.drain()
        await chen.drain()

        # A room closed while the sockets are still open (the close is on its way).
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.CLOSED)
        await refused(dara, close, "room_closed", room, (chen,))
        await refused(dara, {"type": "vote_cast", "vote": vote, "yes": True}, "room_closed", room, (chen,))
        await refused(back, {"type": "vote_anytime", "allow": False}, "room_closed", room, (chen,))
    finally:
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.OPEN)
        await close_all(tabs.values())
