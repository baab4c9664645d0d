"""Spectators by consent (docs/rules.md, "Spectators"; docs/protocol.md, "Spectators and TV mode"): who may watch a
room without a seat (`watch_check`), who watches now (`watch_open`, `watch_close`, the room's `spectators` frame),
the host removing a spectator (`spectator_remove`), the room's setting (`spectators_set`) and each seated player's
answer to TV mode (`tv_consent`). The top layer, beside clock_ask.py: above run.py, presence.py and rooms.py.

Who watches is kept in `Table.meta` under the table's row lock, like the seats' sockets (presence.py):
- watchers: {socket: [user id, process]}, the open sockets of users without a seat (a socket of a process that died
  counts as closed, as for the seats);
- watch_removed: the user ids the host removed as spectators: they cannot watch this room again while it is open
  (they may still take a seat, when the host lets them: a seat is the host's to remove, `kick`).
The host watches whatever the setting: the host's page is where the setting is changed and spectators removed.
"""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import broadcast
from games.models import Room, Table, TvConsent
from games.services import presence
from games.services.errors import GameError
from games.services.run import _locked, _meta_defaults, _Run
from games.services.store import _lock_table_row

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


def _watching(meta: dict) -> list[int]:
    """The users watching without a seat, by their sockets of live processes, in the order they came."""
    sockets = meta.get("watchers") or {}
    alive = presence._alive({p for _u, p in sockets.values()})
    seated = meta["users"]
    out: list[int] = []
    for user_id, process in sockets.values():
        if process in alive and str(user_id) not in seated and user_id not in out:
            out.append(user_id)
    return out


def _spectators_frame(users: list[int]) -> dict:
    names = {u.pk: u.public_name for u in User.objects.filter(pk__in=users).only("pk", "username", "display_name")}
    return {"type": "spectators", "count": len(users), "users": [{"id": u, "name": names.get(u, "")} for u in users]}


def _watch_write(room_id: int, change) -> tuple[list[int], bool]:
    """Apply `change(meta)` to the table's meta under its lock; broadcast the `spectators` frame on commit when the
    watching users changed. Returns who watches now, and whether that changed."""
    with transaction.atomic():
        table = _lock_table_row(room_id)
        if table is None:
            return [], False
        meta = _meta_defaults(table.meta)
        before = _watching(meta)
        change(meta)
        # The sockets of processes that died are dropped as they are found, as presence.py does for the seats.
        sockets = meta.get("watchers") or {}
        alive = presence._alive({p for _u, p in sockets.values()})
        meta["watchers"] = {k: v for k, v in sockets.items() if v[1] in alive}
        Table.objects.filter(pk=room_id).update(meta=meta)
        now = _watching(meta)
        if now != before:
            frame = _spectators_frame(now)
            transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))
        return now, now != before


def watch_open(*, room_id: int, user, socket: str) -> list[dict]:
    """One of `user`'s sockets opened on the room, or its user stood up (games/consumers.py). Returns the frames that
    socket alone is sent: who watches (`spectators`), and, for a seated player of a TV-mode room who has not
    answered yet, the ask (`tv_ask`). Locks the table row for a user without a seat only; no version."""
    meta = _meta_defaults(Table.objects.values_list("meta", flat=True).filter(pk=room_id).first() or {})
    seated = str(user.pk) in meta["users"]
    if seated:  # a seat's socket is its presence (presence.py), nothing to write here
        now, changed = _watching(meta), False
    else:
        def add(meta: dict) -> None:
            meta.setdefault("watchers", {})[socket] = [user.pk, presence.PROCESS]

        presence.process_beat()
        now, changed = _watch_write(room_id, add)
    # Nobody watching: the page's count is 0 already; a change reaches this socket with the room's frame.
    frames = [_spectators_frame(now)] if now and not changed else []
    if seated:
        frames += tv_asks(room_id=room_id, user=user)
    return frames


def watch_close(*, room_id: int, user, socket: str) -> None:
    """One of `user`'s sockets closed, or its user sat down: it no longer counts as watching."""
    def drop(meta: dict) -> None:
        (meta.get("watchers") or {}).pop(socket, None)
    meta = Table.objects.values_list("meta", flat=True).filter(pk=room_id).first() or {}
    if socket in (meta.get("watchers") or {}):  # a seat's socket was never a watcher's: no lock
        _watch_write(room_id, drop)


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
    with transaction.atomic():
        run = _locked(room_id)
        _host(run, user)
        if type(target) is not int:
            raise GameError("bad_user", _("Name a spectator by their user id."))
        if target == user.pk:
            raise GameError("remove_self", _("You host this room: you cannot remove yourself."))
        if str(target) in run.meta["users"]:
            raise GameError("seated", _("This player has a seat: remove the seat instead."))
        if target not in _watching(run.meta):
            raise GameError("not_watching", _("Nobody of that id is watching."))
        run.meta["watch_removed"] = [*run.meta.get("watch_removed", []), target]
        run.meta["watchers"] = {k: v for k, v in run.meta["watchers"].items() if v[0] != target}
        Table.objects.filter(pk=room_id).update(meta=run.meta)
        frame = _spectators_frame(_watching(run.meta))
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
