"""Frames the socket refuses: a malformed frame and a refused action get an error frame that says why (with
the action's id) and change nothing."""

import asyncio
import json

import pytest

from games.models import Table
from tests.games.conftest import acked
from tests.games.sockets import (
    Tab,
    close_all,
    create_room,
    db,
    seated_table,
    table_version,
)

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

MALFORMED = [
    ("not json", "bad_json"),
    ("[1, 2, 3]", "bad_json"),
    ('"a string"', "bad_json"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"no": "type"}', "unknown_type"),
    ('{"type": "action", "action": "fold", "action_id": "m1"}', "unknown_action"),
    ('{"type": "action", "action": ["bet"], "action_id": "m2"}', "unknown_action"),
    ('{"type": "action", "action": "bet", "args": {"amount": [50]}, "action_id": "m3"}', "bad_amount"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50.0}, "action_id": "m4"}', "bad_amount"),
    ('{"type": "action", "action": "bet", "args": {"amount": true}, "action_id": "m5"}', "bad_amount"),
    ('{"type": "action", "action": "bet", "args": {"amount": "50"}, "action_id": "m6"}', "bad_amount"),
    ('{"type": "action", "action": "kick", "args": {"seat": {"id": "s1"}}, "action_id": "m7"}', "bad_args"),
    ('{"type": "action", "action": "back", "args": {"seat": ["s1"]}, "action_id": "m8"}', "bad_args"),
    ('{"type": "action", "action": "bet", "args": [50], "action_id": "m9"}', "bad_args"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50, "cards": "AS"}, "action_id": "m10"}', "bad_args"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50}, "action_id": 7}', "bad_action_id"),
    ('{"type": "action", "action": "bet", "args": {"amount": 50}, "action_id": "' + "x" * 65 + '"}', "bad_action_id"),
    # A lone surrogate (not UTF-8) quoted back in the error: the answer must still be sent (CI found this once).
    ('{"type": "action", "action": "back", "args": null, "action_id": "\\ud800"}', "bad_action_id"),
    ('{"type": "action", "action": "\\udfff", "action_id": "m14"}', "unknown_action"),
    ('{"type": "action", "action": "start_hand", "args": {}, "action_id": "m11"}', "unknown_action"),
    ('{"type": "action", "action": "timeout", "action_id": "m12"}', "unknown_action"),
    ('{"type": "action", "action": "set_seat", "args": {"seat": "s1"}, "action_id": "m13"}', "unknown_action"),
    # NaN and the infinities are not JSON, though Python's json reads them: malformed, not a wrong amount.
    ('{"type": "action", "action": "bet", "args": {"amount": NaN}, "action_id": "m15"}', "bad_json"),
    ('{"type": "action", "action": "bet", "args": {"amount": Infinity}, "action_id": "m16"}', "bad_json"),
    ('{"type": "action", "action": "bet", "args": {"amount": -Infinity}, "action_id": "m17"}', "bad_json"),
    ('{"type": "ping", "at": NaN}', "bad_json"),
    ('{"type": "action", "action_id": "m18"}', "unknown_action"),
    ('{"type": "chat", "text": ["hello"]}', "bad_chat"),
    ('{"type": "chat", "text": "   "}', "bad_chat"),
]


async def test_malformed_frames_get_an_error_and_change_nothing(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        before = await db(table_version)(room)
        state_before = await db(lambda: Table.objects.get(pk=room.pk).state)()
        for text, code in MALFORMED:
            await asyncio.sleep(0.06)  # under the rate limit
            await bob.send(text)
            frame = await bob.reply("error", "ack", "update", "chat")
            assert (frame["type"], frame.get("code")) == ("error", code), text
            assert frame["version"] == before
        await bob.comm.send_to(bytes_data=b'{"type": "ping"}')
        assert (await bob.reply("error", "pong"))["code"] == "bad_frame"
        assert await db(table_version)(room) == before
        assert await db(lambda: Table.objects.get(pk=room.pk).state)() == state_before
        assert not [f for f in await tabs["chen"].drain() if f["type"] != "presence"]  # nobody else heard a thing
        # The socket still works.
        assert acked(await bob.act("bet", amount=20))
    finally:
        await close_all(tabs.values())


async def test_a_refused_action_says_why_and_carries_its_action_id(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    try:
        before = await db(table_version)(room)
        frame = await tabs["bob"].act("hit", action_id="too-early")
        assert frame == {"type": "error", "code": "wrong_phase", "message": frame["message"], "version": before,
                         "action_id": "too-early"}
        frame = await tabs["bob"].act("bet", amount=15)
        assert frame["code"] == "stake_not_multiple"
        frame = await tabs["bob"].act("kick", seat=tabs["chen"].view["you"])
        assert frame["code"] == "not_host"
        assert await db(table_version)(room) == before
    finally:
        await close_all(tabs.values())


async def test_an_action_frame_without_an_action_name_says_what_is_missing(cast, no_resync):
    room = await db(create_room)(cast["alice"], "ten-half")
    tab = Tab(cast["bob"], room.code)
    try:
        await tab.open()
        for text in ('{"type": "action", "action_id": "nameless"}',
                     '{"type": "action", "action": null, "action_id": "nameless"}',
                     '{"type": "action", "action": ["bet"], "action_id": "nameless"}'):
            await tab.send(text)
            frame = await tab.reply("error")
            assert frame == {"type": "error", "code": "unknown_action", "version": tab.version, "action_id": "nameless",
                             "message": 'The frame names no action: "action" must be a text such as "bet".'}, text
    finally:
        await tab.close()


async def test_since_a_version_the_table_has_not_reached_is_bad_version_and_changes_nothing(cast, no_resync):
    room, tabs = await seated_table(cast, bank=500)
    bob = tabs["bob"]
    try:
        now = await db(table_version)(room)
        state_before = await db(lambda: Table.objects.get(pk=room.pk).state)()
        for beyond in (now + 1, now + 1000, 2**63, 10**30):
            await asyncio.sleep(0.06)  # under the rate limit
            await bob.send({"type": "since", "version": beyond})
            frame = await bob.next()
            assert frame == {"type": "error", "code": "bad_version", "message": frame["message"], "version": now}, beyond
            assert str(now) in frame["message"]
        # Malformed versions are bad_version too; the current one is answered by nothing, as nothing is missing.
        for bad in (-1, "3", 2.0, True, None, [now], 1e400):
            await asyncio.sleep(0.06)
            await bob.send(json.dumps({"type": "since", "version": bad}).replace('"version": Infinity', '"version": 1e400'))
            assert (await bob.next())["code"] == "bad_version", bad
        await bob.send({"type": "since", "version": now})
        assert await bob.quiet()
        assert await db(table_version)(room) == now
        assert await db(lambda: Table.objects.get(pk=room.pk).state)() == state_before
        assert not [f for f in await tabs["chen"].drain() if f["type"] != "presence"]
        # The socket still works: a version it was sent is answered again.
        await bob.send({"type": "since", "version": now - 1})
        assert (await bob.next())["version"] == now
    finally:
        await close_all(tabs.values())
