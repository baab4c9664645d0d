"""Buy-ins the host approves (docs/protocol.md, "Buy-ins the host approves"). In a room with `approve_buy_ins`, the
`sit` and `top_up` of anybody but the host make a `BuyInRequest` instead of holding beans: checked as the command
would be (and against the wallet), and answered by the host before its deadline, `WAIT` later. `buy_in_approve` runs
the sit or the top-up then, under the table lock, with every check again (the wallet's too); `buy_in_refuse` ends
it; past the deadline it has lapsed by itself, with nothing to run. Nothing is held while a request waits.
Above moves.py and save.py; commands.py asks here (`_asks_host`, `_ask_host`).

The seat a buy-in asks for is fixed when it is asked (the first free one when the player named none) and is not
kept for them: when somebody takes it meanwhile, approving is refused (`seat_taken`) and the host refuses instead.
A top-up is approved between the seat's hands only, as a top-up is made (`in_hand` otherwise: the host approves
after the hand). Every frame is codes, ids, amounts and the asker's public name: the page has the words.
"""

from datetime import timedelta

from django.db import transaction
from django.utils.formats import localize
from django.utils.translation import gettext as _

from games.broadcast import room_frame
from games.engine import Command, EngineError, apply
from games.models import BuyInRequest, Room
from games.services import run as runs
from games.services.errors import GameError
from games.services.moves import _sit, _sit_check, _top_up, _top_up_check
from games.services.run import _dt, _locked, _Run
from games.services.save import _save
from wallets import services as wallets
from wallets.selectors import balances_for

WAIT = timedelta(minutes=3)  # from a request to its deadline
PROBE = "s0"  # a seat id no Seat has (their ids are s<pk>): the engine's check of a buy-in asked for


def _asks_host(run: _Run, user) -> bool:
    """Whether this user's sit or top-up waits for the host: never the host's, never in a practice room."""
    room = run.room
    return room.approve_buy_ins and room.kind == Room.Kind.HUMANS and user.pk != room.host_id


def _pending(room_id: int, now):
    return BuyInRequest.objects.filter(room_id=room_id, outcome="", deadline__gt=now)


def _asked_frame(ask: BuyInRequest, name: str) -> dict:
    return {"type": "buy_in_asked", "request": ask.pk, "user": ask.user_id, "name": name, "kind": ask.kind,
            "amount": ask.amount, "deadline": ask.deadline.timestamp()}


def _ask_host(run: _Run, user, action: str, args: dict) -> BuyInRequest:
    """A `sit` or `top_up` checked as it would run, then kept for the host instead. GameError (nothing changes) for
    what the command refuses, `buy_in_pending` for a second request while one waits, `insufficient_funds`."""
    room, now = run.room, _dt(run.now)
    if _pending(room.pk, now).filter(user_id=user.pk).exists():
        raise GameError("buy_in_pending", _("Your last request is still waiting for the host."))
    fields = {}
    if action == "sit":
        role, amount = args.get("role", "main"), args.get("buy_in")
        position = _sit_check(run, user, role=role, buy_in=amount, position=args.get("position"))
        try:  # the engine's own checks (the seat is free, side bets are on), on a copy of the state
            apply(run.state, Command(actor=PROBE, action="sit", now=run.now, args={
                "name": user.public_name, "stack": amount, "role": role, "position": position, "host": False}))
        except EngineError as e:
            raise GameError(e.code, e.message) from None
        fields = {"role": role, "position": position}
    else:
        seat_id = run.seat_of(user)
        if seat_id is None:
            raise GameError("not_seated", _("You are not seated at this table."))
        amount = args.get("amount")
        _top_up_check(run, seat_id, amount)
        fields = {"seat": seat_id}
    available = balances_for(user)[room.currency]["available"]
    if amount > available:
        raise GameError("insufficient_funds", _("You have %(available)s available; you asked for %(amount)s.")
                        % {"available": localize(available), "amount": localize(amount)})
    ask = BuyInRequest.objects.create(room=room, user=user, kind=action, amount=amount, asked_at=now,
                                      deadline=now + WAIT, **fields)
    frame = _asked_frame(ask, user.public_name)
    transaction.on_commit(lambda: room_frame(room.pk, frame))
    return ask


def _open_to_answer(run: _Run, user, request) -> BuyInRequest:
    """The room's request `request` that the host `user` may answer now (locked with the table)."""
    if not run.room.is_open:
        raise GameError("room_closed", _("This room is closed."))
    if user.pk != run.room.host_id:
        raise GameError("not_host", _("Only the host can do that."))
    ask = None
    if type(request) is int:  # not a bool, a float or a text
        ask = BuyInRequest.objects.filter(pk=request, room_id=run.room.pk).select_related("user").first()
    if ask is None:
        raise GameError("no_buy_in_request", _("There is no such request in this room."))
    if ask.outcome:
        raise GameError("buy_in_answered", _("This request was answered already."))
    if ask.deadline <= _dt(run.now):
        raise GameError("buy_in_lapsed", _("This request waited past its deadline: the player may ask again."))
    return ask


def _answered(run: _Run, ask: BuyInRequest, outcome: str) -> None:
    BuyInRequest.objects.filter(pk=ask.pk).update(outcome=outcome, answered_at=_dt(run.now))
    frame = {"type": "buy_in_answered", "request": ask.pk, "user": ask.user_id, "kind": ask.kind, "outcome": outcome}
    room_id = run.room.pk
    transaction.on_commit(lambda: room_frame(room_id, frame))


def buy_in_approve(*, room_id: int, user, request) -> int:
    """The host approves a request: the sit or top-up runs now, as the player's command would, and the table is
    saved. Returns the table's version. GameError, changing nothing: `room_closed`, `not_host`,
    `no_buy_in_request`, `buy_in_answered`, `buy_in_lapsed`, `seat_taken`, `not_seated` (a top-up's seat was
    left), the sit's or top-up's own refusals (`in_hand`, `bad_amount`, ...) and the wallet's (`insufficient_funds`)."""
    try:
        with transaction.atomic():
            run = _locked(room_id)
            ask = _open_to_answer(run, user, request)
            asker = ask.user
            if ask.kind == BuyInRequest.Kind.SIT:
                if any(s["role"] == ask.role and s["position"] == ask.position for s in run.state.seats):
                    raise GameError("seat_taken", _("Somebody took that seat meanwhile."))
                _sit(run, asker, role=ask.role, buy_in=ask.amount, position=ask.position)
            else:
                if run.seat_of(asker) != ask.seat:
                    raise GameError("not_seated", _("The player left that seat."))
                _top_up(run, ask.seat, ask.amount)
            version = _save(run)
            _answered(run, ask, BuyInRequest.Outcome.APPROVED)  # its frame after the table's update, on commit
            return version
    except EngineError as e:
        raise GameError(e.code, e.message) from None
    except wallets.WalletError as e:
        raise GameError(e.code, e.message) from None


def buy_in_refuse(*, room_id: int, user, request) -> None:
    """The host refuses a request: nothing was held, nothing moves. GameError as `buy_in_approve`'s first five."""
    with transaction.atomic():
        run = _locked(room_id)
        _answered(run, _open_to_answer(run, user, request), BuyInRequest.Outcome.REFUSED)


def buy_in_requests_pending(*, room_id: int, user) -> list[dict]:
    """What a connecting socket is sent (as `buy_in_asked` frames): the host, every request of the room still
    waiting, oldest first; anybody else, their own."""
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN).only("host_id").first()
    if room is None:
        return []
    rows = _pending(room_id, _dt(runs._now())).select_related("user").order_by("asked_at")  # tests move runs._now
    if room.host_id != user.pk:
        rows = rows.filter(user_id=user.pk)
    return [_asked_frame(r, r.user.public_name) for r in rows]
