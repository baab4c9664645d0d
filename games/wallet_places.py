"""What the wallet page calls the ledger's seat and hand references (settings.WALLETS_PLACES).

The ledger does not know the games (an import contract): it stores a hold's `seat_ref` (Seat.seat_ref,
"room<room pk>:s<seat pk>") and a hand settlement's `hand_ref` ("<room pk>:<hand number>") as opaque
strings, and asks this function, by its dotted path in the settings, for the words around them."""

import re

from django.urls import reverse

from .models import Hand, Room

_SEAT_REF = re.compile(r"^room(\d+):s\d+$")
_HAND_REF = re.compile(r"^(\d+):(\d+)$")


def wallet_places(*, seat_refs: set[str], hand_refs: set[str]) -> dict[str, dict]:
    """{ref: {"room": code, "hand": number, "url": the hand record}} for the references that name a room
    (hands: also the number, and the record once it is over); references of another shape are left out."""
    seat_rooms = {ref: int(m[1]) for ref in seat_refs if (m := _SEAT_REF.match(ref))}
    hand_keys = {ref: (int(m[1]), int(m[2])) for ref in hand_refs if (m := _HAND_REF.match(ref))}
    room_ids = set(seat_rooms.values()) | {room_id for room_id, _n in hand_keys.values()}
    if not room_ids:
        return {}
    codes = dict(Room.objects.filter(pk__in=room_ids).values_list("pk", "code"))
    records = {}
    if hand_keys:
        numbers = {number for _r, number in hand_keys.values()}
        for room_id, number, key in Hand.objects.filter(
            room_id__in=room_ids, number__in=numbers, ended_at__isnull=False
        ).values_list("room_id", "number", "key"):
            records[(room_id, number)] = reverse("games:hand", kwargs={"key": key})
    places = {ref: {"room": codes[room_id]} for ref, room_id in seat_rooms.items() if room_id in codes}
    for ref, (room_id, number) in hand_keys.items():
        if room_id in codes:
            places[ref] = {"room": codes[room_id], "hand": number or None, "url": records.get((room_id, number))}
    return places
