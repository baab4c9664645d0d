"""Privacy in every spectators setting (docs/rules.md, "Spectators"): random hands in TV mode where players give,
refuse and withdraw consent as they play, with every frame of every connection checked against the unredacted record
(tests/games/test_socket_privacy.py's `Record`): a `tv` frame holds only the face-down cards of a challenger who
consents for that hand, as they were one version earlier; no other frame of a spectator holds any face-down card; no
seated player ever gets a `tv` frame. Public rooms are scanned by test_socket_privacy.py; a room without spectators
lets none connect (tests/games/test_spectators.py)."""

import random

import pytest

from tests.games.conftest import acked, assert_holds_match_table, assert_ledger_clean, expire, make_player
from tests.games.sockets import Tab, card_strings, catch_up, close_all, create_room, db, random_moves, sit_and_start
from tests.games.test_socket_privacy import Record

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

SCAN = [("ten-half", {}, 25), ("ban-luck", {"banker_opens": True}, 20)]


@pytest.mark.parametrize(("preset", "overrides", "hands"), SCAN, ids=[p for p, _o, _h in SCAN])
async def test_tv_frames_hold_only_consenting_challengers_cards_one_version_late(cast, clock, preset, overrides, hands):
    rng = random.Random(f"tv privacy {preset}")
    finn = await db(make_player)("finn")
    room = await db(create_room)(cast["alice"], preset, overrides=overrides, buy_in_max=3000, spectators="tv")
    tabs = {name: Tab(user, room.code) for name, user in {**cast, "finn": finn}.items()}
    players = [tabs[n] for n in ("alice", "bob", "chen", "dara")]
    try:
        await sit_and_start(tabs, room, ("alice", "bob", "chen", "dara"), 1000)
        # Every player agrees at first, so the scan has consenting cards to check from the second hand on whatever
        # the deals; the walk then gives, refuses and withdraws at random.
        for tab in players:
            await tab.send({"type": "tv_consent", "on": True})
            frame = await tab.reply("tv_consent", "error")
            while frame["type"] == "tv_consent" and frame["user"] != tab.user.pk:  # an earlier player's answer
                frame = await tab.reply("tv_consent", "error")
            assert frame["type"] == "tv_consent", frame
        for _step in range(hands * 40):
            if len(tabs["finn"].events("hand_over")) >= hands:
                break
            if rng.random() < 0.05:  # a player answers TV mode, or changes their mind, at any moment
                tab = rng.choice(players)
                await tab.send({"type": "tv_consent", "on": rng.random() < 0.7})
                await tab.reply("tv_consent", "error")  # an error: the answer was theirs already
            moves = [(tab, m) for tab in players for m in random_moves(tab.view, rng)]
            if tabs["finn"].view["deadline"] is not None and (not moves or rng.random() < 0.08):
                await db(expire)(room, clock)
            elif moves:
                tab, (action, args) = rng.choice(moves)
                await tab.act(action, **args)
            else:
                assert acked(await tabs["alice"].act("start")), tabs["finn"].view
            await catch_up(tabs.values(), room)
        await catch_up(tabs.values(), room)
        for tab in tabs.values():
            await tab.drain()
        assert len(tabs["finn"].events("hand_over")) >= hands, [
            (text[:300]) for tab in players for text, frame in tab.frames[-3:] if frame["type"] == "error"]
    finally:
        await close_all(tabs.values())

    record = await db(Record)(room)
    # Seated players: what test_socket_privacy.py checks, and never a tv frame while seated (before they sat they
    # watched, and a spectator's tv frame was theirs).
    for name in ("alice", "bob", "chen", "dara"):
        for text, frame in tabs[name].frames:
            seated = record.at(frame["version"])[1].get(tabs[name].user.pk)
            assert frame["type"] != "tv" or (seated is None and not frame["cards"]), (name, frame)
            others, _mine = record.hidden_from(tabs[name].user.pk, frame["version"])
            assert not others & card_strings(frame, set()), f"{name} at v{frame['version']}: {text[:1000]}"

    # The spectator: consent as the frames told it, in order; the hand and the banker from the last update.
    consent: dict[str, int] = {}  # seat -> the first hand shown
    hand_no, banker = None, None
    shown = tv_frames = 0
    for text, frame in tabs["finn"].frames:
        kind = frame["type"]
        if kind == "tv_consent":
            if frame["on"]:
                consent[frame["seat"]] = frame["from_hand"]
            else:
                consent.pop(frame["seat"], None)
            continue
        if kind != "tv":
            others, _mine = record.hidden_from(finn.pk, frame["version"])
            assert not others & card_strings(frame, set()), f"finn at v{frame['version']}: {text[:1000]}"
            if frame.get("view"):
                hand = frame["view"]["hand"]
                hand_no = hand["no"] if hand and not hand["over"] else None
                banker = frame["view"]["banker"]
            continue
        tv_frames += 1
        down_before, _users = record.at(frame["version"] - 1)
        for seat, hands_ in frame["cards"].items():
            assert hand_no is not None and seat != banker, frame
            assert seat in consent and consent[seat] <= hand_no, (frame, consent, hand_no)
            cards = {c for h in hands_ for c in h}
            assert cards and cards <= down_before.get(seat, set()), (frame, down_before)
            shown += 1
    assert tv_frames > hands and shown > hands // 2, (tv_frames, shown)  # the scan had something to find

    await db(assert_ledger_clean)()
    await db(assert_holds_match_table)(room)


def test_nothing_is_shown_while_the_bank_is_bid_for(cast):
    """With the bank auction each bidder holds a face-down first card while the bids are open, and the winner keeps
    theirs as the banker's card: no `tv` frame shows any of them, in any version of the auction."""
    from games import selectors, services
    from games.models import Room
    from tests.games.conftest import act, seat_of, state

    finn = make_player("finn")
    room = services.room_create(host=cast["alice"], preset="ten-half-auction", spectators="tv")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
        services.tv_consent(room_id=room.pk, user=cast[name], on=True)  # counts from the first hand

    def shown() -> dict:
        return selectors.snapshot(Room.objects.get(pk=room.pk), finn)["tv"]["cards"]

    act(room, cast["alice"], "start")
    first = {seat_of(room, cast[n]): state(room)["hand"]["hands"][seat_of(room, cast[n])][0]["cards"]
             for n in ("alice", "bob", "chen")}
    assert state(room)["phase"] == "auction"
    assert all(cards and all(vis != "up" for _c, vis in cards) for cards in first.values())  # dealt face down
    seen = [shown()]
    act(room, cast["alice"], "bid", mult=0)
    seen.append(shown())
    act(room, cast["chen"], "bid", mult=0)
    seen.append(shown())
    act(room, cast["bob"], "bid", mult=3)
    bob = seat_of(room, cast["bob"])
    assert state(room)["banker"] == bob and state(room)["phase"] == "betting"
    seen.append(shown())
    assert seen == [{}, {}, {}, {}]
    # The challengers' cards show from the next versions on, the banker's never: the frames do show what TV shows.
    act(room, cast["alice"], "bet", amount=20)
    act(room, cast["chen"], "bet", amount=20)
    later = shown()
    assert bob not in later
    assert later, "TV mode shows the consenting challengers' cards once the bank is taken"
