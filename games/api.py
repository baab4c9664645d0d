"""The games' JSON endpoints (docs/api.md): the games and their knobs, the user's rooms, create a room, join one by
code (its configuration and socket URL), the room's hand records, the user's records and one hand record. Parse and
answer only: rooms are made by games.services (the lobby form's service), every read is a selector, and a hand
record is shown only to whom `selectors.hands_visible_to` allows (404 for anyone else).
"""

from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.api import ApiError, endpoint, read_json, text_field
from games import hand_records, pages, selectors, services
from games.engine import KNOBS, PRESETS
from games.models import PRESET_CHOICES, Hand, HouseVariant, Room, Seat, Table, is_room_code

RECORDS_LIMIT = 200  # records a page, at most

# A refusal's HTTP status when it is not 400 (docs/api.md, "Errors").
_STATUS = {"banned": 403, "club_members_only": 403, "no_code": 503}


def _refused(e: services.GameError) -> ApiError:
    return ApiError(e.code, e.message, _STATUS.get(e.code, 400), field=e.field)


def _open_room(code: str) -> Room:
    found = selectors.open_room_by_code(code)
    if found is None:
        raise ApiError("no_room", _("No open room has this code."), 404)
    return found


def _room_summary(room: Room, *, seat: Seat | None, is_host: bool) -> dict:
    return {"code": room.code, "preset": room.preset, "currency": room.currency, "kind": room.kind,
            "status": room.status, "host": {"id": room.host_id, "name": room.host.public_name}, "is_host": is_host,
            "seat": seat.engine_id if seat is not None else None, "url": reverse("api:room", args=[room.code])}


def _room_config(request: HttpRequest, room: Room) -> dict:
    """What a client needs to sit at the room's table: the rules, the seats, the socket URL, the user's seat."""
    table = Table.objects.only("version", "meta").get(pk=room.pk)
    seats = Seat.objects.filter(room=room, left_at__isnull=True).select_related("user").order_by("role", "position")
    scheme = "wss" if request.is_secure() else "ws"
    info = selectors.room_info(room, started=table.meta.get("started", False))
    return {
        **info,
        "invite_url": request.build_absolute_uri(info["invite_url"]),
        "page_url": request.build_absolute_uri(room.get_absolute_url()),
        "socket_url": f"{scheme}://{request.get_host()}/ws/rooms/{room.code}/",
        "hands_url": reverse("api:room_hands", args=[room.code]),
        "rules": room.rules,
        "vote_anytime": room.vote_anytime,  # the players may vote to end the room at any time (docs/protocol.md)
        "version": table.version,
        "seats": [{"id": s.engine_id, "user": s.user_id, "name": s.user.public_name, "role": s.role,
                   "position": s.position, "bot": s.bot or None, "connected": s.connected, "away": s.away}
                  for s in seats],
        "me": {"user": request.user.pk, "seat": (table.meta.get("users") or {}).get(str(request.user.pk))},
    }


def _hand_summary(hand: Hand, room: Room) -> dict:
    return {"key": hand.key, "room": room.code, "preset": room.preset, "number": hand.number,
            "ended_at": hand.ended_at, "url": reverse("api:hand", args=[hand.key])}


@endpoint("GET")
def games(request: HttpRequest) -> JsonResponse:
    """`GET /api/games/`: each game (preset) with its rules, every knob with its type and limits, and the house
    variants the lobby offers."""
    variants = HouseVariant.objects.filter(club__isnull=True, active=True)
    return JsonResponse({"presets": [{"id": slug, "name": str(name), "rules": PRESETS[slug].to_json()}
                                     for slug, name in PRESET_CHOICES],
                         "knobs": KNOBS,
                         "variants": [{"id": v.pk, "name": v.name, "description": v.description, "preset": v.preset,
                                       "rules": v.overrides} for v in variants]})


def _room_create(request: HttpRequest) -> JsonResponse:
    data = read_json(request)
    preset = data.get("preset")
    overrides = data.get("rules", {})
    variant_id = data.get("variant")
    if variant_id is not None:
        variant = (HouseVariant.objects.filter(pk=variant_id, club__isnull=True, active=True).first()
                   if isinstance(variant_id, int) and not isinstance(variant_id, bool) else None)
        if variant is None:
            raise ApiError("bad_field", _("There is no such house variant."), field="variant")
        preset, overrides = variant.preset, variant.overrides
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ApiError("bad_field", _("preset is one of %(presets)s.") % {"presets": ", ".join(PRESETS)},
                       field="preset")
    if not isinstance(overrides, dict):
        raise ApiError("bad_field", _("rules is an object of rule settings."), field="rules")
    try:
        room = services.room_create(
            host=request.user, preset=preset, overrides=overrides,
            currency=text_field(data, "currency", default="beans", max_length=10),
            kind=text_field(data, "kind", default=Room.Kind.HUMANS, max_length=10),
            buy_in_min=data.get("buy_in_min"), buy_in_max=data.get("buy_in_max"),
            bot_level=text_field(data, "bot_level", default="basic", max_length=10),
            approve_buy_ins=data.get("approve_buy_ins", False),
            spectators=text_field(data, "spectators", default=Room.Spectators.PUBLIC, max_length=10),
        )
    except services.GameError as e:
        raise _refused(e) from None
    return JsonResponse(_room_config(request, room), status=201)


@endpoint("GET", "POST")
def rooms(request: HttpRequest) -> JsonResponse:
    """`GET /api/rooms/`: the open rooms the user sits in or hosts. `POST /api/rooms/`: create one, as the lobby's
    form does (games.services.room_create; the engine checks the rules as a whole)."""
    if request.method == "POST":
        return _room_create(request)
    return JsonResponse({"rooms": [_room_summary(r["room"], seat=r["seat"], is_host=r["is_host"])
                                   for r in pages.my_rooms(request.user)]})


def _entered(request: HttpRequest, code: str) -> Room:
    """The open room `code`, if the user may enter it (as its page and socket check)."""
    found = _open_room(code)
    try:
        services.room_check_access(room=found, user=request.user)
    except services.GameError as e:
        raise _refused(e) from None
    return found


@endpoint("GET")
def room(request: HttpRequest, code: str) -> JsonResponse:
    """`GET /api/rooms/<code>/`: join by code. The room's configuration; from now on the user watches the room, as
    after opening its page (their hand records follow from that: games/hand_records.py)."""
    found = _entered(request, code)
    try:  # who may not watch (docs/rules.md, "Spectators") gets what they need to sit, and watches nothing
        services.watch_check(room=found, user=request.user)
        hand_records.room_visit_record(room=found, user=request.user)
    except services.GameError:
        pass
    return JsonResponse(_room_config(request, found))


@endpoint("GET")
def room_hands(request: HttpRequest, code: str) -> JsonResponse:
    """`GET /api/rooms/<code>/hands/`: the room's finished hands whose record the user may read, newest first."""
    found = _entered(request, code)
    return JsonResponse({"hands": [_hand_summary(h, found) for h in pages.room_hands(found, request.user)]})


def _int_param(request: HttpRequest, name: str, default: int, low: int, high: int) -> int:
    raw = request.GET.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise ApiError("bad_field", _("%(name)s is a whole number from %(low)s to %(high)s.")
                       % {"name": name, "low": low, "high": high}, field=name)
    return int(raw)


@endpoint("GET")
def records(request: HttpRequest) -> JsonResponse:
    """`GET /api/records/?room=&preset=&limit=&offset=`: the user's finished hands, newest first, with the net
    result of each and the totals per currency (the records page)."""
    game = request.GET.get("preset") or None
    if game is not None and game not in PRESETS:
        raise ApiError("bad_field", _("preset is one of %(presets)s.") % {"presets": ", ".join(PRESETS)},
                       field="preset")
    room_code = request.GET.get("room") or None
    if room_code is not None and not is_room_code(room_code):
        raise ApiError("bad_field", _("A room code is 4 digits."), field="room")
    limit = _int_param(request, "limit", 50, 1, RECORDS_LIMIT)
    offset = _int_param(request, "offset", 0, 0, 10**9)
    rows = selectors.hands_for(request.user, room_code=room_code, game=game)
    return JsonResponse({
        "count": rows.count(), "totals": pages.records_totals(rows),
        "records": [{**_hand_summary(row.hand, row.hand.room), "seat": row.seat_id, "role": row.role,
                     "currency": row.hand.room.currency, "net": row.delta}
                    for row in rows[offset:offset + limit]],
    })


@endpoint("GET")
def hand(request: HttpRequest, key: str) -> JsonResponse:
    """`GET /api/hands/<key>/`: a finished hand's whole record (every card, the seed), for those who may read it."""
    found = Hand.objects.select_related("room").filter(key=key).first()
    visible = found is not None and selectors.hand_visible_to(found, request.user)
    record = selectors.hand_record(found) if visible else None
    if record is None:
        raise ApiError("no_hand", _("There is no such hand record."), 404)
    return JsonResponse({
        **_hand_summary(found, found.room), "currency": found.room.currency, "started_at": found.started_at,
        "rules": found.rules, "commitment": found.commitment, "seed": found.seed,
        "page_url": request.build_absolute_uri(found.get_absolute_url()),
        "players": [{"user": p.user_id, "name": p.user.public_name, "seat": p.seat_id, "role": p.role, "net": p.delta}
                    for p in record["players"]],
        "summary": record["summary"], "events": record["events"],
    })
