"""Quick phrases and reactions over the table socket (docs/protocol.md, `phrase`, `react`): one reaches every socket of
the room as codes and ids, stored nowhere; the banker's "Place your bets" is the banker's alone; and every refusal
(a bad code, the rate limit, a spectator, a mute, a challenger's banker phrase, a closed room) changes nothing: not
the table, not the chat, not the limit's count, and nobody else hears of it."""

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone

from games import clubs, moderation, services
from games.models import ChatMessage, Room, Table
from games.services.phrases import PHRASES, REACTIONS, _key
from tests.games.conftest import acked
from tests.games.sockets import Tab, catch_up, close_all, db, drain_all, me, seated_table

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

ANSWERS = ("error", "phrase_said", "reacted")


@pytest.fixture(autouse=True)
def _no_counts():
    """The limit's counts live in the cache, which a flush between tests leaves alone."""
    cache.clear()
    yield
    cache.clear()


class Frozen:
    """The services' clock, standing still but for `advance`: the rate limit's seconds are the test's, whatever time
    the sockets take."""

    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    c = Frozen()
    monkeypatch.setattr("games.services.run._now", c)
    return c


async def send(tab: Tab, message: dict) -> dict:
    """Send `message`; its answer on this socket: an `error`, or the room's `phrase_said` / `reacted`."""
    await tab.send(message)
    return await tab.reply(*ANSWERS)


async def heard(tab: Tab, message: dict, tabs) -> dict:
    """`message` from `tab` is said: its frame reaches `tab` and every other open tab of `tabs`."""
    frame = await send(tab, message)
    assert frame["type"] in ("phrase_said", "reacted") and frame["code"] == message["code"], (message, frame)
    for other in tabs:
        if other is not tab and other.closed is None:
            assert (await other.reply(frame["type"]))["code"] == frame["code"]
    return frame


def room_as_is(room, user) -> tuple:
    """Everything a refused message must leave alone: the table (version, state, meta), the room, the chat and the
    sender's count against the rate limit."""
    t = Table.objects.get(pk=room.pk)
    r = Room.objects.get(pk=room.pk)
    chat = list(ChatMessage.objects.filter(room=room).values_list("pk", flat=True))
    return t.version, t.state, t.meta, r.status, chat, cache.get(_key(room.pk, user.pk))


async def refused(tab: Tab, message: dict, code: str, room, others=()) -> None:
    """`message` from `tab` is refused with `code`, nothing changes, and nobody else hears of it."""
    before = await db(room_as_is)(room, tab.user)
    frame = await send(tab, message)
    assert frame["type"] == "error" and frame["code"] == code, (message, frame)
    assert frame["message"]  # words for a log; the page words the code itself
    assert await db(room_as_is)(room, tab.user) == before, message
    for frames in await drain_all(others):
        assert all(f["type"] not in ANSWERS for f in frames), message


async def test_a_phrase_and_a_reaction_reach_the_whole_room_as_codes_and_are_kept_nowhere(cast, clock, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, bob = tabs["alice"], tabs["bob"]
    try:
        before = await db(room_as_is)(room, cast["chen"])
        bob_seat = bob.view["you"]
        said = await send(bob, {"type": "phrase", "code": "good_luck"})
        assert said == {"type": "phrase_said", "seat": bob_seat, "user": cast["bob"].pk, "code": "good_luck",
                        "version": bob.version}
        for name in ("alice", "chen", "dara"):  # everyone in the room, each at their own version
            assert await tabs[name].reply("phrase_said") == {**said, "version": tabs[name].version}

        clock.advance(2.5)
        reacted = await send(bob, {"type": "react", "code": "laugh"})
        assert reacted == {"type": "reacted", "seat": bob_seat, "user": cast["bob"].pk, "code": "laugh",
                           "version": bob.version}
        for name in ("alice", "chen", "dara"):
            assert (await tabs[name].reply("reacted"))["code"] == "laugh"

        # The banker says the banker's phrase.
        alice_seat = alice.view["you"]
        assert (await send(alice, {"type": "phrase", "code": "place_bets"}))["seat"] == alice_seat
        assert (await bob.reply("phrase_said"))["code"] == "place_bets"

        # Nothing about the table, the room or the chat moved, and a page that connects now is told nothing of them.
        assert (await db(room_as_is)(room, cast["chen"]))[:5] == before[:5]
        late = Tab(cast["chen"], room.code)
        try:
            snapshot = await late.open()
            assert "good_luck" not in str(snapshot) and "laugh" not in str(snapshot)
            assert all(f["type"] not in ANSWERS for f in await late.drain())
        finally:
            await late.close()
    finally:
        await close_all(tabs.values())


async def test_every_phrase_and_reaction_code_is_sent_as_is(cast, clock, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    alice, bob = tabs["alice"], tabs["bob"]
    try:
        for kind, frame_type, codes in (("phrase", "phrase_said", PHRASES), ("react", "reacted", REACTIONS)):
            for code in codes:
                clock.advance(61)  # past the minute's limit each time
                answer = await send(alice, {"type": kind, "code": code})
                assert (answer["type"], answer["code"]) == (frame_type, code)
                assert (await bob.reply(frame_type))["code"] == code
    finally:
        await close_all(tabs.values())


async def test_every_refusal_changes_nothing(people, maud, clock, no_resync):
    room, tabs = await seated_table(people, bank=500, extra=("erin", "frank"))
    alice, bob, chen, erin, frank = (tabs[n] for n in ("alice", "bob", "chen", "erin", "frank"))
    others = (alice, chen)
    try:
        # A code that is no phrase's or no reaction's: unknown, a reaction as a phrase and back, not a text, missing.
        for bad in ("", "GOOD_LUCK", "good luck", "laugh", "<b>hi</b>", "x" * 5000, None, 1, True, ["good_luck"],
                    {"code": "good_luck"}):
            await refused(bob, {"type": "phrase", "code": bad}, "bad_phrase", room, others)
        for bad in ("", "LAUGH", "😂", "good_luck", None, 0, False, ["laugh"], {"code": "laugh"}):
            await refused(bob, {"type": "react", "code": bad}, "bad_reaction", room, others)
        await refused(bob, {"type": "phrase"}, "bad_phrase", room, others)
        await refused(bob, {"type": "react"}, "bad_reaction", room, others)

        # Not seated: a spectator, and a player who left their seat.
        await refused(erin, {"type": "phrase", "code": "good_luck"}, "not_seated", room, others)
        await refused(erin, {"type": "react", "code": "clap"}, "not_seated", room, others)
        assert acked(await frank.act("sit", buy_in=500, role="side"))
        await catch_up(tabs.values(), room)
        await heard(frank, {"type": "react", "code": "wow"}, tabs.values())  # a side bettor is seated
        clock.advance(3)
        assert acked(await frank.act("leave"))
        await catch_up(tabs.values(), room)
        assert me(frank.view) is None
        await refused(frank, {"type": "phrase", "code": "thanks"}, "not_seated", room, others)

        # The banker's phrase from a challenger (alice holds the bank).
        await refused(bob, {"type": "phrase", "code": "place_bets"}, "not_banker", room, others)

        # The rate limit: one every 2 seconds, five a minute, phrases and reactions together.
        await heard(bob, {"type": "phrase", "code": "good_luck"}, tabs.values())
        clock.advance(1.9)
        await refused(bob, {"type": "phrase", "code": "hurry_up"}, "phrase_wait", room, others)
        await refused(bob, {"type": "react", "code": "clap"}, "phrase_wait", room, others)
        for code in ("clap", "wow", "cry", "angry"):
            clock.advance(2.1)
            await heard(bob, {"type": "react", "code": code}, tabs.values())
        clock.advance(10)  # five in the last minute
        await refused(bob, {"type": "react", "code": "laugh"}, "phrase_wait", room, others)
        await refused(bob, {"type": "phrase", "code": "thanks"}, "phrase_wait", room, others)
        # Others are not limited by bob's count, and bob speaks again once the first of his five is a minute old.
        await heard(chen, {"type": "phrase", "code": "nice_hand"}, tabs.values())
        clock.advance(60 - 1.9 - 4 * 2.1 - 10 + 0.1)
        await heard(bob, {"type": "phrase", "code": "thanks"}, tabs.values())

        # Muted: by a moderator, then lifted; banned while the socket is open (its close is on its way).
        clock.advance(61)
        await db(moderation.user_mute)(user=people["chen"], by=maud, reason="spam", duration=timedelta(hours=1))
        await chen.drain()  # the mute's notice
        await refused(chen, {"type": "phrase", "code": "good_luck"}, "muted", room, (alice, bob))
        await refused(chen, {"type": "react", "code": "laugh"}, "muted", room, (alice, bob))
        await db(moderation.user_unmute)(user=people["chen"], by=maud, reason="ok")
        await heard(chen, {"type": "react", "code": "laugh"}, tabs.values())
        await db(get_user_model().objects.filter(pk=people["dara"].pk).update)(
            banned_until=timezone.now() + timedelta(hours=1))
        await refused(tabs["dara"], {"type": "phrase", "code": "good_luck"}, "banned", room, (alice, bob))

        # A room closed while the sockets are still open (the close is on its way).
        clock.advance(61)
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.CLOSED)
        await refused(alice, {"type": "phrase", "code": "place_bets"}, "room_closed", room, (bob, chen))
        await refused(bob, {"type": "react", "code": "clap"}, "room_closed", room, (alice, chen))
    finally:
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.OPEN)
        await close_all(tabs.values())


def club_table(cast):
    """A club room of alice's club: alice and bob, members, seated."""
    club = clubs.club_create(owner=cast["alice"], name="Friday night", open_joining=True)
    clubs.club_join(club=club, user=cast["bob"])
    room = clubs.club_room_create(club=club, by=cast["alice"], preset="ten-half")
    for name in ("alice", "bob"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=1000)
    return club, room


async def test_a_member_muted_in_the_club_says_nothing_in_its_rooms(cast, clock, no_resync):
    club, room = await db(club_table)(cast)
    alice, bob = Tab(cast["alice"], room.code), Tab(cast["bob"], room.code)
    try:
        for tab in (alice, bob):
            await tab.open()
        await db(clubs.club_mute)(club=club, user=cast["bob"], by=cast["alice"], reason="spam")
        await refused(bob, {"type": "phrase", "code": "hurry_up"}, "muted", room, (alice,))
        await refused(bob, {"type": "react", "code": "angry"}, "muted", room, (alice,))
        await heard(alice, {"type": "phrase", "code": "good_luck"}, (alice, bob))
    finally:
        await close_all((alice, bob))
