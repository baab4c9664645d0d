"""Spectators by consent over the table socket (docs/protocol.md, "Spectators and TV mode"): TV mode shows a spectator
the face-down cards of the challengers who agree, one action late and from the hand after their answer; a withdrawal
hides them at once; the host counts, removes and shuts out spectators; every refusal changes nothing."""

import traceback

import pytest
from django.db import connection
from django.db.models import QuerySet

from games import services
from games.models import Room, Table, TvConsent
from games.services import watchers
from tests.games.conftest import acked, make_player
from tests.games.sockets import Closed, Tab, catch_up, close_all, db, seated_table, sensible_move

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

ANSWERS = ("error", "tv_consent", "spectator_removed", "spectators_mode")


def room_as_is(room) -> tuple:
    """Everything a refused message must leave alone: the table, the room's setting, the answers."""
    t = Table.objects.get(pk=room.pk)
    r = Room.objects.get(pk=room.pk)
    answers = list(TvConsent.objects.filter(room=room).order_by("pk").values_list("user_id", "given", "from_hand"))
    return t.version, t.state, t.meta, r.spectators, r.status, answers


async def refused(tab: Tab, message: dict, code: str, room) -> None:
    before = await db(room_as_is)(room)
    await tab.send(message)
    frame = await tab.reply(*ANSWERS)
    assert frame["type"] == "error" and frame["code"] == code, (message, frame)
    assert frame["message"]
    assert await db(room_as_is)(room) == before, message


async def answered(tab: Tab, message: dict) -> dict:
    """Send `message`; its answer: an error, or the room's frame about this tab's user (others' frames skipped)."""
    await tab.send(message)
    while True:
        frame = await tab.reply(*ANSWERS)
        if frame["type"] in ("error", "spectators_mode") or frame.get("user") == tab.user.pk:
            return frame


async def tv_room(cast, spectators="tv"):
    finn = await db(make_player)("finn")
    cast = {**cast, "finn": finn}
    room, tabs = await seated_table(cast, extra=("finn",), bank=500)
    await db(Room.objects.filter(pk=room.pk).update)(spectators=spectators)
    return room, tabs


async def play_to_next_hand(tabs: dict, room) -> None:
    hand = tabs["alice"].view["hand_no"]
    for _step in range(200):
        if all(t.view["hand_no"] > hand and t.view["phase"] == "betting" for t in tabs.values()):
            return
        moves = [(t, sensible_move(t.view)) for t in tabs.values() if t.view["you"]]
        tab, (action, args) = next((t, m) for t, m in moves if m is not None)
        assert acked(await tab.act(action, **args)), (action, args)
        await catch_up(tabs.values(), room)
    raise AssertionError("the next hand did not come")


def own_down(tab: Tab) -> dict[int, tuple[int, list[list[str]]]]:
    """version -> (hand number, the tab's own face-down cards by hand) from the tab's own updates."""
    out = {}
    for _text, f in tab.frames:
        if f["type"] in ("update", "snapshot") and f.get("view") and f["view"]["hand"]:
            hands = f["view"]["hand"]["hands"].get(f["view"]["you"], [])
            out[f["version"]] = (f["view"]["hand"]["no"],
                                 [[c["card"] for c in h["cards"] if c.get("up") is False] for h in hands])
    return out


async def test_tv_mode_shows_consenting_challengers_cards_one_action_late_from_the_next_hand(cast, no_resync):
    room, tabs = await tv_room(cast)
    bob, chen, finn = tabs["bob"], tabs["chen"], tabs["finn"]
    try:
        bob_seat, chen_seat = bob.view["you"], chen.view["you"]
        await bob.send({"type": "tv_consent", "on": True})
        given = await bob.reply(*ANSWERS)
        hand = bob.view["hand_no"]
        assert given == {"type": "tv_consent", "seat": bob_seat, "user": cast["bob"].pk, "on": True,
                         "from_hand": hand + 1, "version": bob.version}
        assert (await finn.reply("tv_consent"))["seat"] == bob_seat  # the spectators hear it
        assert (await answered(chen, {"type": "tv_consent", "on": False}))["on"] is False
        await play_to_next_hand(tabs, room)
        await play_to_next_hand(tabs, room)
        await catch_up(tabs.values(), room)

        bob_down = own_down(bob)
        shown = [f for _t, f in finn.frames if f["type"] == "tv"]
        assert shown
        seen_bob = 0
        for f in shown:
            assert chen_seat not in f["cards"]  # refused: never shown
            if bob_seat in f["cards"]:
                number, before = bob_down[f["version"] - 1]  # as bob's own page showed them one version earlier
                assert number > hand and f["cards"][bob_seat] == before, f
                seen_bob += 1
        assert seen_bob >= 2
        # The card bob was dealt at a version is in no spectator's frame of that version.
        for version, (number, cards) in bob_down.items():
            newer = {c for h in cards for c in h} - {c for h in bob_down.get(version - 1, (0, []))[1] for c in h}
            for text, f in finn.frames:
                if f.get("version") == version and bob_down.get(version - 1, (None,))[0] == number:
                    assert not any(c in text for c in newer if f"\"{c}\"" in text), (version, text)

        # A withdrawal hides bob's cards at once: no later frame shows them.
        assert (await answered(bob, {"type": "tv_consent", "on": False}))["on"] is False
        assert (await finn.reply("tv_consent"))["on"] is False
        mark = len(finn.frames)
        await play_to_next_hand(tabs, room)
        await catch_up(tabs.values(), room)
        later = [f for _t, f in finn.frames[mark:] if f["type"] == "tv"]
        assert later and all(bob_seat not in f["cards"] for f in later)
        assert not any(f["type"] == "tv" for tab in (bob, chen, tabs["alice"]) for _t, f in tab.frames)
    finally:
        await close_all(tabs.values())


async def test_public_rooms_send_no_tv_frame_even_to_consenting_players_spectators(cast, no_resync):
    room, tabs = await tv_room(cast, spectators="public")
    try:
        await refused(tabs["bob"], {"type": "tv_consent", "on": True}, "no_tv", room)
        await play_to_next_hand(tabs, room)
        assert not [f for _t, f in tabs["finn"].frames if f["type"] == "tv"]
    finally:
        await close_all(tabs.values())


async def test_every_refusal_of_a_consent_changes_nothing(cast, no_resync):
    room, tabs = await tv_room(cast)
    bob, finn = tabs["bob"], tabs["finn"]
    try:
        for bad in ("yes", 1, 0, None, [], {"on": True}):
            await refused(bob, {"type": "tv_consent", "on": bad}, "bad_consent", room)
        await refused(bob, {"type": "tv_consent"}, "bad_consent", room)
        await refused(finn, {"type": "tv_consent", "on": True}, "not_seated", room)
        assert (await answered(bob, {"type": "tv_consent", "on": True}))["type"] == "tv_consent"
        await refused(bob, {"type": "tv_consent", "on": True}, "consent_given", room)  # a page that is behind
        assert (await answered(bob, {"type": "tv_consent", "on": False}))["on"] is False
        await refused(bob, {"type": "tv_consent", "on": False}, "consent_not_given", room)
    finally:
        await close_all(tabs.values())


async def test_a_seated_player_is_asked_once(cast, no_resync):
    room, tabs = await tv_room(cast)
    try:
        again = Tab(cast["bob"], room.code, cookie=tabs["bob"].cookie)
        await again.open()
        assert (await again.reply("tv_ask", "update"))["type"] == "tv_ask"
        await again.send({"type": "tv_consent", "on": False})
        assert (await again.reply(*ANSWERS))["type"] == "tv_consent"
        await again.close()
        once_more = Tab(cast["bob"], room.code, cookie=tabs["bob"].cookie)
        await once_more.open()
        assert not [f for f in await once_more.drain() if f["type"] == "tv_ask"]
        await once_more.close()
    finally:
        await close_all(tabs.values())


async def test_spectators_are_counted_and_the_host_removes_one_for_the_night(cast, no_resync):
    room, tabs = await tv_room(cast)
    alice, bob, finn = tabs["alice"], tabs["bob"], tabs["finn"]
    gus = await db(make_player)("gus")
    try:
        gus_tab = Tab(gus, room.code)
        await gus_tab.open()
        count = await alice.reply("spectators")
        while count["count"] < 2:  # finn's coming, before the seats were taken
            count = await alice.reply("spectators")
        assert count["count"] == 2 and [u["id"] for u in count["users"]] == [finn.user.pk, gus.pk]
        assert [u["name"] for u in count["users"]] == [finn.user.public_name, gus.public_name]

        for bad in ("finn", True, 1.5, None):
            await refused(alice, {"type": "spectator_remove", "target": bad}, "bad_user", room)
        await refused(bob, {"type": "spectator_remove", "target": gus.pk}, "not_host", room)
        await refused(alice, {"type": "spectator_remove", "target": cast["alice"].pk}, "remove_self", room)
        await refused(alice, {"type": "spectator_remove", "target": cast["bob"].pk}, "seated", room)
        await refused(alice, {"type": "spectator_remove", "target": 999999}, "not_watching", room)

        await alice.send({"type": "spectator_remove", "target": gus.pk})
        assert (await alice.reply("spectator_removed"))["user"] == gus.pk
        assert (await alice.reply("spectators"))["count"] == 1
        with pytest.raises(Closed) as closed:
            await gus_tab.reply("nothing")
        assert closed.value.code == 4403
        assert [f for _t, f in gus_tab.frames if f["type"] == "error"][-1]["code"] == "spectator_removed"
        back = Tab(gus, room.code)
        with pytest.raises(Closed):  # not tonight: refused at once
            await back.open()
            await back.next()
        assert back.closed == 4403 and back.frames[-1][1]["code"] == "spectator_removed"
        assert not finn.closed
    finally:
        await close_all([*tabs.values(), gus_tab])


async def test_no_spectators_shuts_out_everyone_without_a_seat_but_the_host(cast, no_resync):
    room, tabs = await tv_room(cast, spectators="public")
    alice, bob, finn = tabs["alice"], tabs["bob"], tabs["finn"]
    try:
        for bad in ("all", "", None, 3, ["none"]):
            await refused(alice, {"type": "spectators_set", "mode": bad}, "bad_spectators", room)
        await refused(bob, {"type": "spectators_set", "mode": "none"}, "not_host", room)
        await alice.send({"type": "spectators_set", "mode": "none"})
        assert (await alice.reply("spectators_mode"))["mode"] == "none"
        with pytest.raises(Closed):
            await finn.reply("nothing")
        assert finn.closed == 4403 and finn.frames[-1][1]["code"] == "no_spectators"
        assert (await db(Room.objects.get)(pk=room.pk)).spectators == "none"

        again = Tab(finn.user, room.code)
        with pytest.raises(Closed):
            await again.open()
            await again.next()
        assert again.closed == 4403 and again.frames[-1][1]["code"] == "no_spectators"

        # A player who stands up is a spectator from then on: shut out too, once the seat is gone (after the hand).
        assert acked(await bob.act("leave"))
        seated = [alice, tabs["chen"], tabs["dara"]]
        for _step in range(200):
            if bob.closed:
                break
            moves = [(t, sensible_move(t.view)) for t in (bob, *seated)]
            tab, (action, args) = next((t, m) for t, m in moves if m is not None)
            try:
                await tab.act(action, **args)
                await catch_up([t for t in (bob, *seated) if not t.closed], room)
            except Closed:
                assert bob.closed and not any(t.closed for t in seated)
        assert bob.closed == 4403 and [f for _t, f in bob.frames if f["type"] == "error"][-1]["code"] == "no_spectators"
        assert not alice.closed and not tabs["chen"].closed
    finally:
        await close_all(tabs.values())


async def test_a_removed_spectator_who_sits_and_stands_up_again_is_shut_out(cast, no_resync):
    room, tabs = await tv_room(cast, spectators="public")
    alice, finn = tabs["alice"], tabs["finn"]
    try:
        await alice.send({"type": "spectator_remove", "target": finn.user.pk})
        assert (await alice.reply("spectator_removed"))["user"] == finn.user.pk
        with pytest.raises(Closed):
            await finn.reply("nothing")
        # A seat is the host's to refuse (kick): a removed spectator may still sit, and play, but not watch again.
        assert (await db(services.seat_take)(room_id=room.pk, user=finn.user, role="side", buy_in=500)).version
        again = Tab(finn.user, room.code)
        await again.open()
        assert again.view["you"] is not None
        await again.act("leave")
        seated = [alice, tabs["bob"], tabs["chen"], tabs["dara"]]
        for _step in range(200):
            if again.closed or not again.view["you"]:
                break
            moves = [(t, sensible_move(t.view)) for t in (again, *seated)]
            tab, (action, args) = next((t, m) for t, m in moves if m is not None)
            try:
                await tab.act(action, **args)
                await catch_up([t for t in (again, *seated) if not t.closed], room)
            except Closed:
                assert again.closed and not any(t.closed for t in seated)
        if not again.closed:
            with pytest.raises(Closed):  # the update without the seat drew, then the refusal
                await again.drain()
        assert again.closed == 4403
        assert [f for _t, f in again.frames if f["type"] == "error"][-1]["code"] == "spectator_removed"
    finally:
        await close_all([*tabs.values()])


async def test_spectators_come_and_go_without_a_write_of_the_table_and_the_count_goes_out_on_a_change(cast, no_resync,
                                                                                                        monkeypatch):
    room, tabs = await tv_room(cast, spectators="public")
    alice, finn = tabs["alice"], tabs["finn"]
    gus = await db(make_player)("gus")
    table_writes = []
    real_update, real_lock = QuerySet.update, QuerySet.select_for_update

    def update(qs, **kwargs):
        if qs.model is Table:
            table_writes.append(kwargs)
        return real_update(qs, **kwargs)

    def select_for_update(qs, *args, **kwargs):
        if qs.model is Table:
            table_writes.append("lock")
        return real_lock(qs, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "update", update)
    monkeypatch.setattr(QuerySet, "select_for_update", select_for_update)
    try:
        await alice.drain()
        mark = len(alice.of("spectators"))
        before = await db(room_as_is)(room)
        one, two = Tab(gus, room.code), Tab(gus, room.code)
        await one.open()
        assert [u["id"] for u in (await alice.reply("spectators"))["users"]] == [finn.user.pk, gus.pk]
        await two.open()  # gus's second tab: the same users watch, no frame
        await two.close()
        await one.close()
        assert (await alice.reply("spectators"))["users"] == [{"id": finn.user.pk, "name": finn.user.public_name}]
        assert await alice.quiet()
        assert len(alice.of("spectators")) == mark + 2
        assert table_writes == [] and await db(room_as_is)(room) == before
        assert "watchers" not in (await db(Table.objects.get)(pk=room.pk)).meta
    finally:
        await close_all(tabs.values())


class _CheckedLock:
    """watchers.py's lock, recording every acquire made inside a transaction of the acquiring thread."""

    def __init__(self, lock, inside: list):
        self.lock, self.inside = lock, inside

    def __enter__(self):
        if connection.in_atomic_block:
            self.inside.append("".join(traceback.format_stack(limit=6)))
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


async def test_the_spectators_lock_is_never_taken_inside_a_transaction(cast, no_resync, monkeypatch):
    """watchers.py writes the cache holding its lock; on the defaults that cache is a table of the SQLite file whose
    one write lock a table's transaction holds, so a transaction that waited for the lock deadlocked with it until
    SQLite's timeout. A spectator's paths are walked: open, count, removal refused and done, the beat, close."""
    inside = []
    monkeypatch.setattr(watchers, "_lock", _CheckedLock(watchers._lock, inside))
    room, tabs = await tv_room(cast, spectators="public")
    alice = tabs["alice"]
    gus = await db(make_player)("gus")
    try:
        gus_tab = Tab(gus, room.code)
        await gus_tab.open()
        await refused(alice, {"type": "spectator_remove", "target": 999999}, "not_watching", room)
        await alice.send({"type": "spectator_remove", "target": gus.pk})
        assert (await alice.reply("spectator_removed"))["user"] == gus.pk
        with pytest.raises(Closed):
            await gus_tab.reply("nothing")
        await db(watchers.watch_beat)()
        assert inside == [], inside[0]
    finally:
        await close_all([*tabs.values(), gus_tab])
    assert inside == [], inside[0]
