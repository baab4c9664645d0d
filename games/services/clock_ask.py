"""Asking the host for a longer clock (docs/protocol.md, `clock_ask`): a seated player who needs more time per
decision (a screen reader's, say) asks; the host grants 10, 20 or 30 seconds more on each clock, or dismisses.
Nothing about the game changes but, on a grant, the room's clock from the next hand, through `room_rules_update`
(validated, recorded as `rules_changed`). The top layer: above rooms.py.

An ask waits in `ClockAsk` (pending while `answered_at` is null), so a host who connects later is sent it
(`clock_asks_pending`); every ask and answer is broadcast to the room as a frame of codes (games/broadcast.py).
The host answers every pending ask at once: there is one clock per room.
"""

from datetime import timedelta

from django.db import transaction
from django.utils.translation import gettext as _

from games import broadcast
from games.engine.rules import KNOB_SPECS
from games.models import ClockAsk, Room
from games.services.errors import GameError
from games.services.rooms import room_rules_update
from games.services.run import _dt, _locked, _Run

ASK_WAIT = timedelta(minutes=2)  # between two asks of one player in one room, answered or not
GRANTS = (10, 20, 30)  # the seconds a host may add to each clock
CLOCKS = ("bet_seconds", "act_seconds", "bank_seconds")
MOST = {k.name: k.limits["max"] for k in KNOB_SPECS if k.name in CLOCKS}


def _at_most(rules: dict) -> bool:
    """Every clock of `rules` (the room's, for the next hand) is at its largest: a grant would change nothing."""
    return all(rules[name] >= MOST[name] for name in CLOCKS)


def _open(run: _Run) -> None:
    if not run.room.is_open:
        raise GameError("room_closed", _("This room is closed."))


def clock_ask(*, room_id: int, user) -> ClockAsk:
    """A seated player, not the host, asks for a longer clock. Raises GameError and changes nothing when the room is
    closed, the asker is the host (`host_sets_clock`) or not seated (`not_seated`), asked less than two minutes ago
    (`clock_ask_wait`), or every clock is at its largest (`clock_at_most`)."""
    with transaction.atomic():
        run = _locked(room_id)  # one ask at a time per room: two at once would both pass the wait
        _open(run)
        if user.pk == run.room.host_id:
            raise GameError("host_sets_clock", _("You host this room: there is nobody to ask."))
        seat_id = run.seat_of(user)
        if seat_id is None:
            raise GameError("not_seated", _("Take a seat first."))
        now = _dt(run.now)
        last = ClockAsk.objects.filter(room_id=room_id, user_id=user.pk).order_by("-asked_at").first()
        if last is not None and now - last.asked_at < ASK_WAIT:
            raise GameError("clock_ask_wait", _("You asked less than two minutes ago: the host has your ask."))
        if _at_most(run.room.rules):
            raise GameError("clock_at_most", _("The clock is already as long as it goes."))
        ask = ClockAsk.objects.create(room_id=room_id, user_id=user.pk, seat=seat_id, asked_at=now)
        transaction.on_commit(lambda: broadcast.clock_asked(room_id, seat_id, user.pk))
    return ask


def _host(run: _Run, user) -> None:
    _open(run)
    if user.pk != run.room.host_id:
        raise GameError("not_host", _("Only the host can do that."))


def _pending(run: _Run) -> list[ClockAsk]:
    pending = list(ClockAsk.objects.filter(room_id=run.room.pk, answered_at__isnull=True).order_by("asked_at"))
    if not pending:
        raise GameError("no_clock_ask", _("Nobody is waiting for an answer about the clock."))
    return pending


def _answered(run: _Run, pending: list[ClockAsk], outcome: str, seconds: int | None) -> None:
    ClockAsk.objects.filter(pk__in=[a.pk for a in pending]).update(
        answered_at=_dt(run.now), outcome=outcome, seconds=seconds)
    seats, users, room_id = [a.seat for a in pending], [a.user_id for a in pending], run.room.pk
    transaction.on_commit(lambda: broadcast.clock_answered(room_id, outcome, seconds, seats, users))


def clock_grant(*, room_id: int, user, seconds) -> dict:
    """The host adds `seconds` (10, 20 or 30) to the room's bet, act and bank clocks, each kept to its largest, from
    the next hand, answering every pending ask. Returns the new clocks. Raises GameError and changes nothing when
    the room is closed, the user is not the host (`not_host`), `seconds` is anything else (`bad_seconds`), nobody
    asks (`no_clock_ask`) or every clock is at its largest (`clock_at_most`)."""
    with transaction.atomic():
        run = _locked(room_id)
        _host(run, user)
        if type(seconds) is not int or seconds not in GRANTS:  # not a bool, a float or a text
            raise GameError("bad_seconds", _("Add 10, 20 or 30 seconds."))
        pending = _pending(run)
        rules = run.room.rules
        if _at_most(rules):
            raise GameError("clock_at_most", _("The clock is already as long as it goes."))
        clocks = {name: min(MOST[name], rules[name] + seconds) for name in CLOCKS}
        # The same lock, taken again in this transaction: the rules change and the answer commit together.
        room_rules_update(room_id=room_id, overrides={**run.room.overrides, **clocks}, by=user)
        _answered(run, pending, ClockAsk.Outcome.GRANTED, seconds)
    return clocks


def clock_dismiss(*, room_id: int, user) -> None:
    """The host answers every pending ask with "not now". GameError as `clock_grant` (no `bad_seconds`)."""
    with transaction.atomic():
        run = _locked(room_id)
        _host(run, user)
        _answered(run, _pending(run), ClockAsk.Outcome.DISMISSED, None)


def clock_asks_pending(*, room_id: int, user) -> list[dict]:
    """What a connecting host is sent (as `clock_asked` frames): the room's pending asks, oldest first; nothing for
    anyone else, whose page draws no notice."""
    if not Room.objects.filter(pk=room_id, host_id=user.pk, status=Room.Status.OPEN).exists():
        return []
    rows = ClockAsk.objects.filter(room_id=room_id, answered_at__isnull=True).order_by("asked_at")
    return [{"type": "clock_asked", "seat": seat, "user": user_id} for seat, user_id in rows.values_list("seat", "user_id")]
