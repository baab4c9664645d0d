"""Buy-ins the host approves, over the table socket (docs/protocol.md, "Buy-ins the host approves"): in a room with
`approve_buy_ins`, a player's `sit` or `top_up` holds nothing and waits for the host (also one who connects later);
an approval sits or tops up with the beans held then; a refusal, a lapse and every refused message change nothing:
not the table, not the requests, not a wallet, not the ledger."""

import pytest
from django.urls import reverse

from games.models import BuyInRequest, Room, Table
from games.services.approvals import WAIT
from tests.games.conftest import BEANS, acked
from tests.games.sockets import Tab, close_all, create_room, db, drain_all, me
from wallets.models import Account, Transaction
from wallets.selectors import balances_for

# Every test opens sockets: a channel layer of its own event loop (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_layer")]

ANSWERS = ("error", "buy_in_asked", "buy_in_answered")


async def frame(tab: Tab, kind: str, n: int = 1, user=None) -> dict:
    """The `n`th frame of `kind` about `user` (the socket's own by default) this socket received (it may have come
    before the ack it waited for)."""
    uid = (user or tab.user).pk
    while len([f for f in tab.of(kind) if f["user"] == uid]) < n:
        await tab.next()
    return [f for f in tab.of(kind) if f["user"] == uid][n - 1]


async def send(tab: Tab, message: dict) -> dict:
    """Send `message`; its answer on this socket: an `error`, or the room's `buy_in_answered`."""
    await tab.send(message)
    return await tab.reply("error", "buy_in_answered")


def as_is(*rooms) -> tuple:
    """What a refused message must leave alone: each table (version, state, meta), the requests, every wallet and
    hold, the ledger."""
    tables = [Table.objects.filter(pk=r.pk).values_list("version", "state", "meta").get() for r in rooms]
    asks = list(BuyInRequest.objects.order_by("pk").values_list("pk", "outcome", "answered_at"))
    accounts = list(Account.objects.order_by("pk").values_list("pk", "balance"))
    return tables, asks, accounts, Transaction.objects.count()


async def refused(tab: Tab, message: dict, code: str, rooms, others=()) -> None:
    """`message` from `tab` is refused with `code`, nothing changes, and nobody else hears of it."""
    await drain_all((tab, *others))  # what came before
    before = await db(as_is)(*rooms)
    if message.get("type") == "action":
        answer = await tab.act(message["action"], **message.get("args", {}))
    else:
        await tab.send(message)
        answer = await tab.reply(*ANSWERS)
    assert answer["type"] == "error" and answer["code"] == code, (message, answer)
    assert answer["message"]
    assert await db(as_is)(*rooms) == before, message
    for frames in await drain_all(others):
        assert all(f["type"] not in ANSWERS[1:] for f in frames), message


def sit(buy_in, **args) -> dict:
    return {"type": "action", "action": "sit", "args": {"buy_in": buy_in, **args}}


def approving_room(host, **kw):
    return create_room(host, "ten-half", approve_buy_ins=True, buy_in_max=3000, **kw)


def beans(user) -> dict:
    return balances_for(user)["beans"]


async def opened(cast, room, names) -> dict:
    tabs = {name: Tab(cast[name], room.code) for name in names}
    for tab in tabs.values():
        await tab.open()
    return tabs


async def test_a_buy_in_waits_for_the_host_who_approves_it_and_a_top_up_refused_holds_nothing(cast, no_resync):
    room = await db(approving_room)(cast["alice"])
    tabs = await opened(cast, room, ("alice", "bob", "chen"))
    alice, bob, chen = tabs["alice"], tabs["bob"], tabs["chen"]
    try:
        # The host sits at once: nobody approves the host.
        assert acked(await alice.act("sit", buy_in=1000))
        assert me(alice.view)["stack"] == 1000
        ledger = await db(Transaction.objects.count)()

        assert acked(await bob.act("sit", buy_in=800))
        asked = await frame(bob, "buy_in_asked")
        ask = await db(BuyInRequest.objects.get)(room=room, user=cast["bob"])
        assert asked == {"type": "buy_in_asked", "request": ask.pk, "user": cast["bob"].pk, "name": "Bob",
                         "kind": "sit", "amount": 800, "deadline": ask.deadline.timestamp(), "version": asked["version"]}
        assert ask.deadline - ask.asked_at == WAIT and (ask.role, ask.position) == ("main", 1)
        for tab in (alice, chen):
            assert (await frame(tab, "buy_in_asked", user=cast["bob"]))["request"] == ask.pk
        # Nothing is held, nothing moved: bob is not at the table.
        assert await db(beans)(cast["bob"]) == {"available": BEANS, "held": 0}
        assert await db(Transaction.objects.count)() == ledger
        assert me(bob.view) is None

        # The host connecting again is sent the request; bob, his own; chen, nothing.
        for name in ("alice", "bob", "chen"):
            again = Tab(cast[name], room.code)
            try:
                snapshot = await again.open()
                sent = [f for f in await again.drain() if f["type"] == "buy_in_asked"]
                assert sent == ([] if name == "chen" else [{**asked, "version": snapshot["version"]}]), name
            finally:
                await again.close()

        answered = await send(alice, {"type": "buy_in_approve", "request": ask.pk})
        assert answered == {"type": "buy_in_answered", "request": ask.pk, "user": cast["bob"].pk, "kind": "sit",
                            "outcome": "approved", "version": answered["version"]}
        assert (await frame(bob, "buy_in_answered"))["outcome"] == "approved"
        # The table's update (bob's seat_joined) comes first, then the answer.
        order = [f["type"] if f["type"] != "update" or not any(e["type"] == "seat_joined" and e["name"] == "Bob" for e in f["events"])
                 else "joined" for _text, f in alice.frames]
        assert order.index("joined") < order.index("buy_in_answered")
        while me(bob.view) is None:
            await bob.next()
        assert (me(bob.view)["stack"], me(bob.view)["position"]) == (800, 1)
        assert await db(beans)(cast["bob"]) == {"available": BEANS - 800, "held": 800}
        assert await db(Transaction.objects.count)() == ledger + 1

        # A top-up waits too; refused, it holds nothing.
        assert acked(await bob.act("top_up", amount=300))
        top = await frame(bob, "buy_in_asked", 2)
        assert (top["kind"], top["amount"]) == ("top_up", 300)
        before = await db(as_is)(room)
        answered = await send(alice, {"type": "buy_in_refuse", "request": top["request"]})
        assert (answered["kind"], answered["outcome"]) == ("top_up", "refused")
        assert (await frame(bob, "buy_in_answered", 2))["outcome"] == "refused"
        tables, asks, accounts, count = await db(as_is)(room)
        assert (tables, accounts, count) == (before[0], before[2], before[3])
        assert asks[-1][1] == "refused"
        assert await db(beans)(cast["bob"]) == {"available": BEANS - 800, "held": 800}

        # Approved, a top-up between hands is held then.
        assert acked(await bob.act("top_up", amount=200))
        top = await frame(bob, "buy_in_asked", 3)
        assert (await send(alice, {"type": "buy_in_approve", "request": top["request"]}))["outcome"] == "approved"
        while me(bob.view)["stack"] != 1000:
            await bob.next()
        assert await db(beans)(cast["bob"]) == {"available": BEANS - 1000, "held": 1000}
    finally:
        await close_all(tabs.values())


async def test_every_refusal_changes_nothing(people, clock, no_resync):
    room = await db(approving_room)(people["alice"])
    other = await db(approving_room)(people["erin"])
    rooms = (room, other)
    tabs = await opened(people, room, ("alice", "bob", "chen", "dara"))
    alice, bob, chen, dara = (tabs[n] for n in ("alice", "bob", "chen", "dara"))
    erin = Tab(people["erin"], other.code)
    frank = Tab(people["frank"], other.code)
    try:
        await erin.open()
        await frank.open()
        assert acked(await alice.act("sit", buy_in=1000))
        assert acked(await erin.act("sit", buy_in=1000))

        # What a sit or top-up refuses, it refuses when asked: no request is kept.
        await refused(bob, sit(5), "bad_buy_in", rooms, (alice,))
        await refused(bob, sit(500, position=0), "seat_taken", rooms, (alice,))
        await refused(bob, sit(500, role="side", position=9), "bad_position", rooms, (alice,))
        await refused(bob, {"type": "action", "action": "top_up", "args": {"amount": 100}}, "not_seated", rooms, (alice,))
        await db(Account.objects.filter(user=people["dara"], currency="beans", kind="available").update)(balance=400)
        await refused(dara, sit(500), "insufficient_funds", rooms, (alice,))
        await db(Account.objects.filter(user=people["dara"], currency="beans", kind="available").update)(balance=BEANS)

        assert acked(await bob.act("sit", buy_in=2000, position=2))
        ask = (await frame(bob, "buy_in_asked"))["request"]
        # One request at a time per player.
        await refused(bob, sit(600), "buy_in_pending", rooms, (alice,))
        # Another room's request.
        assert acked(await frank.act("sit", buy_in=700))
        elsewhere = (await frame(frank, "buy_in_asked"))["request"]

        for kind in ("buy_in_approve", "buy_in_refuse"):
            # Only the host answers.
            for tab in (bob, chen):
                await refused(tab, {"type": kind, "request": ask}, "not_host", rooms, (alice,))
            # Unknown, another room's, or no id at all.
            for request in (ask + 1000, elsewhere, str(ask), float(ask), True, None, [ask], {"id": ask}):
                await refused(alice, {"type": kind, "request": request}, "no_buy_in_request", rooms, (bob,))
            await refused(alice, {"type": kind}, "no_buy_in_request", rooms, (bob,))

        # The seat asked for was taken meanwhile (chen asked for it too, and was approved first).
        assert acked(await chen.act("sit", buy_in=500, position=2))
        chens = (await frame(chen, "buy_in_asked"))["request"]
        assert (await send(alice, {"type": "buy_in_approve", "request": chens}))["outcome"] == "approved"
        await refused(alice, {"type": "buy_in_approve", "request": ask}, "seat_taken", rooms, (bob,))
        await refused(alice, {"type": "buy_in_approve", "request": chens}, "buy_in_answered", rooms, (bob,))
        await refused(alice, {"type": "buy_in_refuse", "request": chens}, "buy_in_answered", rooms, (bob,))
        assert (await send(alice, {"type": "buy_in_refuse", "request": ask}))["outcome"] == "refused"
        await refused(alice, {"type": "buy_in_approve", "request": ask}, "buy_in_answered", rooms, (bob,))

        # More than the wallet holds at approval time: dara's beans went to another table meanwhile.
        assert acked(await dara.act("sit", buy_in=3000))
        daras = (await frame(dara, "buy_in_asked"))["request"]
        await db(Account.objects.filter(user=people["dara"], currency="beans", kind="available").update)(balance=2999)
        await refused(alice, {"type": "buy_in_approve", "request": daras}, "insufficient_funds", rooms, (bob,))
        await db(Account.objects.filter(user=people["dara"], currency="beans", kind="available").update)(balance=BEANS)

        # Past the deadline the request has lapsed: neither answer, and the player may ask again.
        clock.advance(WAIT.total_seconds() + 1)
        await refused(alice, {"type": "buy_in_approve", "request": daras}, "buy_in_lapsed", rooms, (bob,))
        await refused(alice, {"type": "buy_in_refuse", "request": daras}, "buy_in_lapsed", rooms, (bob,))
        again = Tab(people["alice"], room.code)
        try:
            await again.open()
            assert not [f for f in await again.drain() if f["type"] == "buy_in_asked"]
        finally:
            await again.close()
        assert acked(await dara.act("sit", buy_in=1000))
        daras = (await frame(dara, "buy_in_asked", 2))["request"]

        # A room closed while the sockets are still open (the close is on its way).
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.CLOSED)
        for kind in ("buy_in_approve", "buy_in_refuse"):
            await refused(alice, {"type": kind, "request": daras}, "room_closed", rooms, (bob,))
        await refused(bob, sit(500), "room_closed", rooms, (alice,))
    finally:
        await db(Room.objects.filter(pk=room.pk).update)(status=Room.Status.OPEN)
        await close_all([*tabs.values(), erin, frank])


def test_a_practice_room_never_asks_and_the_setting_is_checked(cast):
    from games.services import GameError

    practice = create_room(cast["alice"], "ten-half", kind=Room.Kind.AI, approve_buy_ins=True)
    assert practice.approve_buy_ins is False
    assert create_room(cast["alice"], "ten-half").approve_buy_ins is False
    for bad in ("yes", 1, None, [True]):
        with pytest.raises(GameError) as e:
            create_room(cast["bob"], "ten-half", approve_buy_ins=bad)
        assert e.value.code == "bad_approval"
    assert Room.objects.filter(host=cast["bob"]).count() == 0


def test_the_lobby_and_the_api_make_a_room_whose_host_approves_and_its_page_says_so(client, cast):
    from tests.api.conftest import call, token_of
    from tests.games.test_pages import create_post, ten_half_defaults

    client.force_login(cast["alice"])
    page = client.post("/lobby/create/", {**create_post(), **ten_half_defaults(), "approve_buy_ins": "on"})
    room = Room.objects.get(host=cast["alice"])
    assert page.status_code == 302 and room.approve_buy_ins is True
    shown = client.get(room.get_absolute_url()).content.decode()
    assert 'id="approve-buy-ins"' in shown and "The host approves each buy-in and top-up." in shown
    client.post("/lobby/create/", {**create_post(), **ten_half_defaults()})
    plain = Room.objects.filter(host=cast["alice"]).exclude(pk=room.pk).get()
    assert plain.approve_buy_ins is False
    assert 'id="approve-buy-ins"' not in client.get(plain.get_absolute_url()).content.decode()
    client.logout()  # an invite opened without a session says so too
    invite = client.get(reverse("games:invite", kwargs={"token": room.invite_token})).content.decode()
    assert 'id="invite-approval"' in invite and "The host approves each buy-in and top-up." in invite
    plain_invite = client.get(reverse("games:invite", kwargs={"token": plain.invite_token})).content.decode()
    assert 'id="invite-offer"' in plain_invite and 'id="invite-approval"' not in plain_invite

    token = token_of(cast["bob"])
    status, made = call(client, "POST", "/api/rooms/", token=token, body={"preset": "ten-half", "approve_buy_ins": True})
    assert status == 201 and made["approve_buy_ins"] is True
    assert Room.objects.get(code=made["code"], status="open").approve_buy_ins is True
    for bad in ("true", 1, None, [True]):
        status, answer = call(client, "POST", "/api/rooms/", token=token, body={"preset": "ten-half", "approve_buy_ins": bad})
        assert status == 400 and answer["error"]["code"] == "bad_approval", answer
    assert Room.objects.filter(host=cast["bob"]).count() == 1


def test_the_admin_lists_the_requests_read_only_and_shows_the_rooms_setting(admin_client, cast):
    from django.utils import timezone

    room = create_room(cast["alice"], "ten-half", approve_buy_ins=True)
    now = timezone.now()
    ask = BuyInRequest.objects.create(room=room, user=cast["bob"], kind="sit", amount=700, role="main", position=1,
                                      asked_at=now, deadline=now + WAIT)
    listed = admin_client.get("/admin/games/buyinrequest/")
    assert listed.status_code == 200 and room.code in listed.content.decode()
    assert admin_client.get("/admin/games/buyinrequest/add/").status_code == 403
    assert admin_client.post(f"/admin/games/buyinrequest/{ask.pk}/delete/").status_code == 403
    assert BuyInRequest.objects.filter(pk=ask.pk, outcome="").exists()
    page = admin_client.get(f"/admin/games/room/{room.pk}/change/").content.decode()
    assert "the host approves buy-ins" in page.lower()
