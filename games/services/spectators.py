"""Spectators by consent (docs/rules.md, "Spectators"; docs/protocol.md, "Spectators and TV mode"): who may watch a
room without a seat (`watch_check`), who watches now (`watch_open`, `watch_close`, the room's `spectators` frame),
the host removing a spectator (`spectator_remove`), the room's setting (`spectators_set`) and each seated player's
answer to TV mode (`tv_consent`). The top layer, beside clock_ask.py: above run.py, watchers.py and rooms.py.

Who watches is counted by each web process in memory and published in the cache (watchers.py), never in the table
row. `Table.meta["watch_removed"]`, written by the host's command under the table's lock, keeps the user ids the host
removed as spectators: they cannot watch this room again while it is open (they may still take a seat, when the host
lets them: a seat is the host's to remove, `kick`).
The host watches whatever the setting: the host's page is where the setting is changed and spectators removed.
"""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import broadcast
from games.models import Room, Table, TvConsent
from games.services import watchers
from games.services.errors import GameError
from games.services.run import _locked, _meta_defaults, _Run

MODES = tuple(Room.Spectators.values)


def _watch_refusal(room: Room, user, meta: dict) -> GameError | None:
    if str(user.pk) in (meta.get("users") or {}) or user.pk == room.host_id:
        return None
    if user.pk in (meta.get("watch_removed") or []):
        return GameError("spectator_removed", _("The host asked you not to watch this room."))
    if room.spectators == Room.Spectators.NONE:
        return GameError("no_spectators", _("This room has no spectators: take a seat to watch."))
    return None


def watch_check(*, room: Room, user) -> None:
    """May `user` watch `room`'s table (after `room_check_access`)? A seated player and the host always; anyone else
    unless the room has no spectators (`no_spectators`) or the host removed them (`spectator_removed`). Raises
    GameError."""
    meta = Table.objects.values_list("meta", flat=True).get(pk=room.pk)
    refusal = _watch_refusal(room, user, meta or {})
    if refusal is not None:
        raise refusal


def _watching(room_id: int, meta: dict, users: set[int] | None = None) -> list[int]:
    """The users watching without a seat, by user id: those of the room's spectators' slots (`users`, or read now:
    watchers.py) who are not seated and were not removed by the host."""
    seated, removed = meta.get("users") or {}, set(meta.get("watch_removed") or ())
    found = watchers.watching(room_id) if users is None else users
    return sorted(u for u in found if str(u) not in seated and u not in removed)


def _spectators_frame(users: list[int]) -> dict:
    names = {u.pk: u.public_name for u in User.objects.filter(pk__in=users).only("pk", "username", "display_name")}
    return {"type": "spectators", "count": len(users), "users": [{"id": u, "name": names.get(u, "")} for u in users]}


def _meta(room_id: int) -> dict:
    """The table's meta as committed, read without a lock."""
    return _meta_defaults(Table.objects.values_list("meta", flat=True).filter(pk=room_id).first() or {})


def _changed(room_id: int, user, change: tuple[set[int], set[int]] | None) -> tuple[list[int], bool]:
    """Who watches after `change` (watchers.py's users before and after), and whether that differs from before; the
    room's `spectators` frame goes out when it does. Before the change, `user` counts as without a seat: a socket
    whose user sat down is the change that takes them out."""
    if change is None:
        return [], False
    meta = _meta(room_id)
    seated = {k: v for k, v in meta["users"].items() if k != str(user.pk)}
    before = _watching(room_id, {**meta, "users": seated}, change[0])
    now = _watching(room_id, meta, change[1])
    if now != before:
        broadcast.room_frame(room_id, _spectators_frame(now))
    return now, now != before


def watch_open(*, room_id: int, user, socket: str) -> list[dict]:
    """One of `user`'s sockets opened on the room, or its user stood up (games/watching.py). Returns the frames that
    socket alone is sent: who watches (`spectators`), and, for a seated player of a TV-mode room who has not
    answered yet, the ask (`tv_ask`). A socket without a seat counts in this process's spectators (watchers.py):
    no lock, no write of the table."""
    meta = _meta(room_id)
    seated = str(user.pk) in meta["users"]
    if seated:  # a seat's socket is its presence (presence.py), nothing to count here
        now, changed = _watching(room_id, meta), False
    else:
        now, changed = _changed(room_id, user, watchers.watch_add(room_id, socket, user.pk))
    # Nobody watching: the page's count is 0 already; a change reaches this socket with the room's frame.
    frames = [_spectators_frame(now)] if now and not changed else []
    if seated:
        frames += tv_asks(room_id=room_id, user=user)
    return frames


def watch_close(*, room_id: int, user, socket: str) -> None:
    """One of `user`'s sockets closed, or its user sat down: it no longer counts as watching. A seat's socket was
    never a spectator's: nothing read, nothing written."""
    _changed(room_id, user, watchers.watch_drop(room_id, socket))


def tv_asks(*, room_id: int, user) -> list[dict]:
    """The ask a seated player of a TV-mode room gets once: until they answer (`tv_consent`)."""
    room = Room.objects.filter(pk=room_id, spectators=Room.Spectators.TV, status=Room.Status.OPEN).first()
    if room is None or TvConsent.objects.filter(room=room, user=user).exists():
        return []
    return [{"type": "tv_ask"}]


def _open(run: _Run) -> None:
    if not run.room.is_open:
        raise GameError("room_closed", _("This room is closed."))


def _host(run: _Run, user) -> None:
    _open(run)
    if user.pk != run.room.host_id:
        raise GameError("not_host", _("Only the host can do that."))


def spectator_remove(*, room_id: int, user, target) -> None:
    """The host removes a spectator: every socket of theirs on the room closes (4403, `spectator_removed`), and they
    cannot watch again while the room is open. Raises GameError and changes nothing when the room is closed, the user
    is not the host (`not_host`), `target` is not a user id (`bad_user`), is the host (`remove_self`), seated
    (`seated`: a seat is removed with `kick`) or not watching (`not_watching`)."""
    # Who watches is read before the table's lock: watchers.py writes the cache while holding its own lock, and on
    # the embedded defaults the cache is a table of the same SQLite file, whose one write lock the table's
    # transaction holds. Taking watchers' lock inside that transaction waited on a thread that waited on it, until
    # SQLite's 20 s timeout. The slots are read without a lock anyway; the host's removal itself is under the lock.
    found = watchers.watching(room_id)
    with transaction.atomic():
        run = _locked(room_id)
        _host(run, user)
        if type(target) is not int:
            raise GameError("bad_user", _("Name a spectator by their user id."))
        if target == user.pk:
            raise GameError("remove_self", _("You host this room: you cannot remove yourself."))
        if str(target) in run.meta["users"]:
            raise GameError("seated", _("This player has a seat: remove the seat instead."))
        if target not in _watching(room_id, run.meta, found):
            raise GameError("not_watching", _("Nobody of that id is watching."))
        # Their sockets close on the room's frame, each dropping out of its process's spectators (watchers.py); the
        # count leaves them out from now on.
        run.meta["watch_removed"] = [*run.meta.get("watch_removed", []), target]
        Table.objects.filter(pk=room_id).update(meta=run.meta)
        frame = _spectators_frame(_watching(room_id, run.meta, found))
        transaction.on_commit(lambda: broadcast.room_frame(room_id, {"type": "spectator_removed", "user": target}))
        transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))


def spectators_set(*, room_id: int, user, mode) -> None:
    """The host, or a moderator (`moderate_room`, through the admin), sets who may watch (`mode`: none, public or
    tv), from now on. With `none`, the sockets of users without a seat, but the host's, close (4403,
    `no_spectators`). Leaving TV mode hides its cards at once. Raises GameError and changes nothing when the room is
    closed, the user is neither (`not_host`) or `mode` is anything else (`bad_spectators`)."""
    with transaction.atomic():
        run = _locked(room_id)
        _open(run)
        if user.pk != run.room.host_id and not user.has_perm("games.moderate_room"):
            raise GameError("not_host", _("Only the host can do that."))
        if mode not in MODES:
            raise GameError("bad_spectators", _("Spectators: none, public or TV mode."))
        Room.objects.filter(pk=room_id).update(spectators=mode)
        if mode != Room.Spectators.TV:
            run.meta["tv_lag"] = None
            Table.objects.filter(pk=room_id).update(meta=run.meta)
        host = run.room.host_id
        transaction.on_commit(lambda: broadcast.room_frame(room_id, {"type": "spectators_mode", "mode": mode,
                                                                     "host": host}))


def tv_consent(*, room_id: int, user, on) -> dict:
    """A seated player of a TV-mode room answers: `on` true shows their cards to the spectators, one action late,
    from the next hand; false refuses, or withdraws a consent at once (the spectators' pages drop their cards on the
    room's `tv_consent` frame, and no later frame has them). Returns that frame. Raises GameError and changes nothing
    when the room is closed, not in TV mode (`no_tv`), the user has no seat (`not_seated`), `on` is not true or false
    (`bad_consent`), or the answer is already theirs (`consent_given`, `consent_not_given`: a page that is behind)."""
    with transaction.atomic():
        run = _locked(room_id)
        _open(run)
        if run.room.spectators != Room.Spectators.TV:
            raise GameError("no_tv", _("This room is not in TV mode."))
        seat_id = run.seat_of(user)
        if seat_id is None:
            raise GameError("not_seated", _("Take a seat first."))
        if type(on) is not bool:
            raise GameError("bad_consent", _("Answer yes or no."))
        consents = dict(run.meta.get("tv") or {})
        key = str(user.pk)
        answered = TvConsent.objects.filter(room_id=room_id, user=user).first()
        if on and key in consents:
            raise GameError("consent_given", _("Your cards are already shown, one action late."))
        if not on and answered is not None and not answered.given:
            raise GameError("consent_not_given", _("Your cards are not shown."))
        from_hand = run.state.hand_no + 1  # the next hand dealt: never the one under way
        if on:
            consents[key] = from_hand
        else:
            consents.pop(key, None)
        run.meta["tv"] = consents
        Table.objects.filter(pk=room_id).update(meta=run.meta)
        TvConsent.objects.update_or_create(room_id=room_id, user=user, defaults={
            "given": on, "from_hand": from_hand if on else 0, "answered_at": timezone.now()})
        frame = {"type": "tv_consent", "seat": seat_id, "user": user.pk, "on": on, "from_hand": from_hand if on else None}
        transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))
    return frame
