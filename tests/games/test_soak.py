"""Soak: 10,000 hands of random play across many tables of all four games on PostgreSQL + Redis,
with random joins, leaves, kicks, top-ups, refreshes, bank passes and timeouts.

- Most tables are driven through the services the sockets call (services.action_submit, and
  services.table_wake for timeouts, bots and the next hand): the real row locks, ledger and broadcasts,
  from SOAK_WORKERS driver processes at once (as several daphne processes would), so wallets shared by
  players seated at several tables are locked from different processes. One table of each game is also
  played to WebSocket tabs (every seated player and a spectator) that reconnect and ask for snapshots at
  random; every frame they receive is scanned.
- Privacy: every update the server broadcasts, at any table, is turned into each viewer's frame by the
  code the sockets' frames come from (games.frames.update_frames) and scanned, as are the snapshots of random
  refreshes and every real socket frame: no face-down card of another seat, no discarded card of another seat and no
  card of the stock is ever in one.
- Beans: wallet_audit is clean after every 100 hands and at the end; every hold equals what its seat
  owns; once every room is closed, the players hold exactly the beans they were given.
- Votes (games/services/votes.py): at the unwatched tables the players now and then call a vote to end the room or
  to skip an away seat's timers and answer it at random; a room voted closed is replaced by a new one of its game.
- TV mode (docs/rules.md, "Spectators"): a share of the tables (soak.TV), three of them watched, whose players give and
  withdraw consent at random; every `tv` frame, broadcast or received by a socket, shows only face-down cards of the
  version before, each its own seat's, and (as it is made) only those of a challenger whose owner consents.
- House rules (house-rules.md): a quarter of the tables play with some on (soak.HOUSE: the bank auction, the matta,
  the banker's opens and the free hand, letting it ride), two of them watched over sockets; the random players bid,
  open, escape and ride, the practice room's bots too, and the hands each of those tables played are printed.
- Host-approved buy-ins: four tables ask the host for every buy-in and top-up (soak.APPROVING); the hosts approve or
  refuse some requests and leave the others to lapse, and the audits above hold through all of it.

The choices come from random.Random(SOAK_SEED); the deal is the server's. SOAK_HANDS shortens a run
while working on it. The figures (hands, seconds, hands/s, commands) are printed (-s).
"""

import asyncio
import contextlib
import random
import threading
import time

import pytest
from django.db import connections

from games import broadcast, tasks
from games.models import Hand
from tests.games.conftest import assert_ledger_clean, make_player
from tests.games.soak import (
    AUDIT_EVERY,
    BEANS,
    HANDS,
    HOUSE,
    PLAYERS,
    ROOMS,
    SEED,
    WATCHED,
    WORKERS,
    Live,
    Privacy,
    SharedClock,
    Soak,
    audit_all,
    beans_of_players,
    close_everything,
    open_rooms,
    open_tab,
    reply,
    seat_first_players,
    start_drivers,
    sync_tabs,
    wake_when_due,
    watch_frames,
    watched_step,
)
from tests.games.sockets import Closed, db, hang_up
from wallets.models import Account

pytestmark = [pytest.mark.services, pytest.mark.soak, pytest.mark.django_db(transaction=True)]


async def test_soak_ten_thousand_hands_of_random_play_keep_every_bean_and_every_secret(settings, monkeypatch,
                                                                                      fresh_layer):
    # The safety net of production, quicker: a group message the channel layer lost is repaired by a snapshot.
    settings.GAMES_RESYNC_SECONDS = 2
    # A pause between hands, as in production: with none, a practice table where the bots and a forced-draw
    # banker need nobody (Chinese Blackjack, a human banker) would deal hand after hand in one eager wake.
    settings.GAMES_NEXT_HAND_SECONDS = 2
    clock = SharedClock()
    monkeypatch.setattr("games.services.run._now", clock)
    monkeypatch.setattr(tasks, "schedule_wake", wake_when_due)
    started = time.monotonic()
    players = await db(lambda: [make_player(f"soak{i:02d}") for i in range(PLAYERS)])()
    rooms = await db(open_rooms)(players)
    lives = [Live(room, preset, kind, watched=i in WATCHED) for i, (room, preset, kind) in enumerate(rooms)]
    watched = [live for live in lives if live.watched]
    unwatched = [live for live in lives if not live.watched]
    privacy = Privacy({live.room.pk for live in watched})
    monkeypatch.setattr(broadcast, "table_update", privacy)
    # The watched tables are driven here, by the event loop that reads their sockets; the others by the drivers.
    here = Soak(random.Random(f"{SEED}:0"), clock, players)
    loop = asyncio.get_running_loop()
    drivers = []
    audits = 0
    audit_seconds = 0.0
    figures = []
    try:
        for live in watched:
            live.spectator = await open_tab(live, await db(make_player)(f"watcher{live.room.pk}"))
        await db(seat_first_players)(here, lives)
        await db(connections.close_all)()  # the drivers open their own
        fork = threading.Thread(target=lambda: drivers.extend(
            start_drivers([unwatched[w::WORKERS] for w in range(WORKERS)], players, privacy, clock)))
        fork.start()
        fork.join()
        target = 0
        while privacy.hands < HANDS:
            target = min(target + AUDIT_EVERY, HANDS)
            for _process, conn in drivers:
                conn.send(target)
            while privacy.hands < target:
                await watched_step(here, here.rng.choice(watched), privacy)
            for process, conn in drivers:
                await loop.run_in_executor(None, reply, process, conn)
            # Every driver is between commands: the ledger is read at rest.
            t0 = time.monotonic()
            await db(audit_all)(lives)
            audit_seconds += time.monotonic() - t0
            audits += 1
        played = privacy.hands
        playing_seconds = time.monotonic() - started
        for process, conn in drivers:
            conn.send(None)
            figures.append((await loop.run_in_executor(None, reply, process, conn))[1])

        for live in watched:
            await sync_tabs(live)
            await watch_frames(live, privacy)
        await db(close_everything)(lives)
        for live in watched:
            for tab in [*live.tabs.values(), live.spectator]:
                with contextlib.suppress(Closed):
                    while True:
                        await tab.next()  # the last update, "closed", then the close itself (4410)
            await watch_frames(live, privacy)
        await db(assert_ledger_clean)()
        house_hands = await db(lambda: {f"{ROOMS[i][0]} {ROOMS[i][1]}": Hand.objects.filter(
            room_id=lives[i].room.pk, ended_at__isnull=False).count() for i in sorted(HOUSE)})()
        # Every room is closed: every hold went home, and beans only ever moved between the players.
        assert await db(lambda: Account.objects.filter(kind="hold").exclude(balance=0).count())() == 0
        assert await db(beans_of_players)(players) == PLAYERS * BEANS
    finally:
        for process, conn in drivers:
            if process.is_alive():
                with contextlib.suppress(OSError):
                    conn.send(None)
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
        for live in watched:
            for tab in [*live.tabs.values(), live.spectator, *live.closed_tabs]:
                if tab is not None:
                    await hang_up(tab)

    seconds = time.monotonic() - started
    commands = sum((f["commands"] for f in figures), here.commands)
    refused = sum((f["refused"] for f in figures), here.refused)
    events = sum((f["events"] for f in figures), here.events)
    snapshots = here.snapshots + sum(f["snapshots"] for f in figures)
    frames = privacy.frames + sum(f["frames"] for f in figures)
    guarded = privacy.guarded + sum(f["guarded"] for f in figures)
    versions = privacy.versions + sum(f["versions"] for f in figures)
    tv_frames = privacy.tv_frames + sum(f["tv_frames"] for f in figures)
    socket_frames = sum(len(t.frames) for live in watched for t in [*live.tabs.values(), live.spectator])
    print(f"\nsoak: {played} hands on {len(lives)} tables ({WORKERS} driver processes + the sockets' event loop) "
          f"in {playing_seconds:.1f} s ({played / playing_seconds:.1f} hands/s), {seconds:.1f} s in all; "
          f"{audits} ledger audits ({audit_seconds:.1f} s); {sum(commands.values())} commands accepted, "
          f"{sum(refused.values())} refused; {versions} versions committed, {frames} frames scanned ({guarded} "
          f"with something hidden from their viewer), {socket_frames} of them socket frames; "
          f"{privacy.socket_hands} hands at the watched tables; {snapshots} refresh snapshots")
    print(f"soak TV mode: {tv_frames} tv frames with cards, every one checked; {events['tv_consent']} consents")
    print(f"soak house-rule tables: {sum(house_hands.values())} hands ({house_hands})")
    print(f"soak events: {dict(events.most_common())}")
    print(f"soak commands: {dict(commands.most_common())}")
    print(f"soak refusals: {dict(refused.most_common())}")
    assert played >= HANDS and audits >= HANDS // AUDIT_EVERY
    assert guarded > frames // 4  # the scan had something to find
    assert privacy.socket_hands >= HANDS // 50 and socket_frames > HANDS // 10
    assert events["timeout"] and events["late_timeout"] and events["join"] and events["leave"]
    assert events["refresh"] and events["reconnect"] and events["snapshot_request"]
    assert events["buy_in_approve"] and events["buy_in_refuse"]  # soak.APPROVING: the hosts answered requests
    assert commands["retire"] + commands["pass_bank"] + commands["take_bank"] > 0  # the bank moved on
    assert sum(house_hands.values()) > 0 and commands["bid"] > 0  # the house rules were played
    assert events["vote_called"] > 0  # the players voted at some tables (games/services/votes.py)
    assert events["tv_consent"] and tv_frames  # TV mode was played and its cards were shown (and checked)
