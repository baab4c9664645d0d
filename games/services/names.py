"""A player's new display name at every table they sit at (the accounts profile calls it after a rename).

Each table changes through its locked path like any command: the engine's `set_seat` renames the seat in the
state, and the version after it, with its `seat_updated` event, reaches every viewer of that table."""

from django.db import transaction

from games.models import Seat
from games.services.errors import GameError
from games.services.run import _locked
from games.services.save import _save


def display_name_sync(*, user) -> list[int]:
    """Rename `user`'s seats to `user.public_name`; returns the rooms whose table changed. A table the seat
    already left, or that already shows the name, is left alone."""
    renamed = []
    name = user.public_name
    for room_id in Seat.objects.filter(user=user, left_at__isnull=True).values_list("room_id", flat=True):
        with transaction.atomic():
            try:
                run = _locked(room_id)
            except GameError:
                continue
            seat_id = run.seat_of(user)
            seat = run.state.seat(seat_id) if seat_id else None
            if seat is None or seat["name"] == name:
                continue
            run.apply("system", "set_seat", {"seat": seat_id, "name": name})
            _save(run)
            renamed.append(room_id)
    return renamed
