"""`POST /api/rooms/<code>/seat/` (docs/api.md): take a seat without the socket. In a room without spectators
(docs/rules.md, "Spectators") the socket refuses whoever has no seat, so a client sits here first, then connects;
in any other room it is the socket's `sit` action by another way."""

from django.http import HttpRequest, JsonResponse

from accounts.api import endpoint, read_json
from games import api, services


@endpoint("POST")
def room_seat(request: HttpRequest, code: str) -> JsonResponse:
    """{"buy_in": n, "role": "main" | "side", "position": n (optional)}: 201 with the room's configuration (its
    `me.seat` the new seat), or the refusal of the socket's `sit` (docs/protocol.md, "Errors")."""
    found = api._entered(request, code)
    data = read_json(request)
    role, position = data.get("role", "main"), data.get("position")
    try:
        services.seat_take(room_id=found.pk, user=request.user, role=role, buy_in=data.get("buy_in"),
                           position=position)
    except services.GameError as e:
        raise api._refused(e) from None
    return JsonResponse(api._room_config(request, found), status=201)
