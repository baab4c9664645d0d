"""Pages: parse the request, call a service or a selector, render. The live table itself is driven
by the socket (games/consumers.py); these pages carry no card that the viewer may not see: the
room page holds no cards at all, and a hand's record exists only once the hand is over, for those who may read it
(selectors.hands_visible_to; anyone else gets 404, as for a record that does not exist)."""

import time
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.db_router import reads_from_replica
from games import (
    distribution,
    hand_records,
    ledger,
    ledger_views,
    pages,
    practice_seeds,
    selectors,
    services,
    spectator_views,
)
from games.engine import PRESETS
from games.forms import JoinForm, KnobsForm, PracticeForm, RoomForm, knob_forms
from games.game_order import game_order, games_in_order, lead_game
from games.invite import offer as invite_offer
from games.models import PRESET_CHOICES, Hand, Room, is_room_code
from games.rules_form import RulesForm
from games.stats import RUNNING_SECONDS, rules_key, running
from games.tasks import distribution_refresh, rules_stats
from wallets.models import Currency
from wallets.selectors import balances_for


def _lobby(request: HttpRequest, *, room_form=None, knobs=None, join_form=None, status: int = 200) -> HttpResponse:
    # The games in the reader's order, their game first and chosen unless the link names one (games/game_order.py).
    games = games_in_order()
    preset = request.GET.get("preset") if request.GET.get("preset") in PRESETS else lead_game()
    room_form = room_form or RoomForm(initial={"preset": preset})
    selected = room_form["preset"].value() or lead_game()
    knobs = knobs or knob_forms()
    return render(request, "games/lobby.html", {
        "balances": balances_for(request.user),
        "room_form": room_form,
        "knob_forms": [(slug, name, knobs[slug]) for slug, name in games],
        "selected_preset": selected,
        "join_form": join_form or JoinForm(),
        "my_rooms": pages.my_rooms(request.user),
        "presets": games,
        "practice_commitment": practice_seeds.practice_commitment(request.session),
    }, status=status)


@login_required
@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    return _lobby(request)


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    """The create-room form: room settings plus the chosen game's knobs, checked by the engine."""
    room_form = RoomForm(request.POST)
    preset = request.POST.get("preset") if request.POST.get("preset") in PRESETS else None
    # A game's knobs are posted only when its fieldset was shown (the others are disabled); without
    # them the room takes the preset as it is.
    shown = preset is not None and request.POST.get(f"{preset}-shown") == "1"
    knobs = knob_forms(request.POST if shown else None, preset)
    knob_form = knobs.get(preset) if preset else None
    if not room_form.is_valid() or (shown and not knob_form.is_valid()):
        return _lobby(request, room_form=room_form, knobs=knobs, status=400)
    data = room_form.cleaned_data
    preset, overrides = data["preset"], knob_form.overrides if shown else {}
    if data.get("variant") is not None:
        preset, overrides = data["variant"].preset, data["variant"].overrides
    try:
        room = services.room_create(
            host=request.user, preset=preset, overrides=overrides,
            currency=data["currency"],
            kind=data["kind"], buy_in_min=data["buy_in_min"], buy_in_max=data["buy_in_max"],
            bot_level=data["bot_level"] or "basic", approve_buy_ins=data["approve_buy_ins"],
            spectators=data.get("spectators") or Room.Spectators.PUBLIC,
        )
    except services.GameError as e:
        field = e.field or ("buy_in_min" if e.code == "bad_buy_in" else None)
        room_form.add_error(field, e.message)
        return _lobby(request, room_form=room_form, knobs=knobs, status=400)
    return redirect(room)


@login_required
@require_GET
def join(request: HttpRequest) -> HttpResponse:
    """Join with a 4-digit code: the room's page, or the lobby with the error on the code field."""
    form = JoinForm(request.GET)
    if form.is_valid():
        found = selectors.open_room_by_code(form.cleaned_data["code"])
        if found is not None:
            return redirect(found)
        form.add_error("code", _("No open room has this code."))
    return _lobby(request, join_form=form, status=400)


@login_required
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    """Practice with bots in one click: an AI room (points) of the chosen game where the user is already
    seated as a challenger, a bot holds the bank and the first hand is dealt (services.practice_open)."""
    form = PracticeForm(request.POST)
    preset = form.cleaned_data["preset"] if form.is_valid() else "ten-half"
    # The browser's seed for the first deal, drawn after the lobby showed the commitment it brings back
    # (games/practice_seeds.py): a malformed one is refused (bad_seed) before anything is taken or created.
    seed = request.POST.get("seed") or None
    try:
        if seed is not None:
            services.check_seed(seed)
        server_seed = practice_seeds.take_practice_seed(request.session, request.POST.get("commitment"))
        room = services.practice_open(user=request.user, preset=preset, seed=seed, server_seed=server_seed,
                                      await_seed=True)
    except services.GameError as e:
        messages.error(request, e.message)
        return redirect("games:lobby")
    return redirect(room)


def _open_room(code: str) -> Room:
    found = selectors.open_room_by_code(code)
    if found is None:
        raise Http404(_("No open room has this code."))
    return found


def room(request: HttpRequest, code: str) -> HttpResponse:
    """The table page of an open room, by its 4-digit code. A visitor without a session gets the room's invite
    (games/invite.py: who invites to what, sign-up and log-in, and back here after). A room that has closed since
    (a reload after the host closed it) sends whoever may read its ledger to the settle-up."""
    if not request.user.is_authenticated:
        return invite_offer(request, code=code)
    try:
        found = _open_room(code)
    except Http404:
        closed = ledger.room_for(request.user, code)
        if closed is None or closed.is_open:
            raise
        messages.info(request, _("This room has closed. Here is how the night ended."))
        return redirect(reverse("games:room_ledger", kwargs={"code": code}) + f"?room={closed.pk}")
    try:
        services.room_check_access(room=found, user=request.user)
    except services.GameError as e:
        messages.error(request, e.message)
        return redirect("games:lobby")
    try:  # spectators by consent: a room may have none (games/spectator_views.py)
        services.watch_check(room=found, user=request.user)
    except services.GameError as e:
        return spectator_views.watch_refused(request, found, e)
    hand_records.room_visit_record(room=found, user=request.user)  # a watcher from now on: the room's next hands
    info = selectors.room_info(found)
    info["invite_absolute"] = request.build_absolute_uri(info["invite_url"])
    rules = found.rules
    buy_in_default = min(found.buy_in_max, max(found.buy_in_min, rules["base_stake"] * 50))
    return render(request, "games/room.html", {
        "room": found, "info": info, "buy_in_default": buy_in_default,
        "client": {
            "code": found.code, "room_id": found.pk, "kind": found.kind, "currency": found.currency,
            "buy_in_min": found.buy_in_min, "buy_in_max": found.buy_in_max, "buy_in_default": buy_in_default,
            "user": request.user.pk,
            "host": found.host_id, "preset": found.preset, "server_now": time.time(),
            # The screen-reader mode (static/js/blind.js): on for this player, and where the menu and V keep it.
            "screen_reader": request.user.screen_reader, "screen_reader_url": _url("screen_reader"),
            # The menu's list and a hand by number, of this room even once it has closed and its code moved on.
            "hands_url": _url("games:room_hands", code=found.code) + f"?room={found.pk}&menu=1",
            "hand_url": _url("games:room_hand", code=found.code, number=0).replace("/0/", "/{n}/")
            + f"?room={found.pk}",
            "lobby_url": _url("games:lobby"), "verify_url": _url("games:verify"),
        },
        "balances": balances_for(request.user),
        "hands": pages.room_hands(found, request.user, limit=20),
        **pages.rules_context(found.preset, rules),
    })


def _url(name: str, **kwargs) -> str:
    return reverse(name, kwargs=kwargs or None)


def _records_room(request: HttpRequest, code: str) -> Room:
    """The room whose chain or hands the user asks for (`?room=<id>` names a closed one), for its readers only
    (hand_records.records_room): 404 for anyone else, as for a code no room has."""
    found = hand_records.records_room(request.user, code, ledger_views.room_id(request))
    if found is None:
        raise Http404(_("There is no such room."))
    return found


def _records_url(name: str, found: Room, **params) -> str:
    """A URL of `found`'s chain, hands or ledger: `?room=<id>` names a closed room, whose code a newer room may hold."""
    query = {"room": found.pk, **params} if not found.is_open else params
    return _url(name, code=found.code) + ("?" + urlencode(query) if query else "")


def _closed_links(found: Room) -> dict:
    """What a closed room's pages link to besides themselves (an open room's table links to them instead)."""
    if found.is_open:
        return {"closed": False}
    return {"closed": True, "ledger_url": _records_url("games:room_ledger", found),
            "chain_url": _records_url("games:room_chain", found), "hands_url": _records_url("games:room_hands", found)}


@login_required
def room_hands(request: HttpRequest, code: str) -> HttpResponse:
    """The room's finished hands that the user may read: the fragment the table's menu shows (`?menu=1`, or any
    request while the room is open: a table still on screen asks for it after the room closed too); else, once it is
    closed, a page of them, CHAIN_PAGE at a time up to hand `?upto=` (the newest first). 404 for whoever may not read
    the room's chain (hand_records.room_records_readable), like its page and socket."""
    found = _records_room(request, code)
    if found.is_open or request.GET.get("menu") == "1":
        return render(request, "games/_room_hands.html", {"hands": pages.room_hands(found, request.user)})
    value = request.GET.get("upto", "")
    hands = selectors.hands_visible_to(request.user).filter(room=found)
    if value.isascii() and value.isdigit() and len(value) < 10:
        hands = hands.filter(number__lte=int(value))
    hands = list(hands.order_by("-number")[:selectors.CHAIN_PAGE + 1])
    older = hands[selectors.CHAIN_PAGE] if len(hands) > selectors.CHAIN_PAGE else None
    return render(request, "games/room_hands.html", {
        "room": found, "hands": hands[:selectors.CHAIN_PAGE], **_closed_links(found),
        "older_url": _records_url("games:room_hands", found, upto=older.number) if older else None,
    })


@login_required
def room_hand(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """Hand `number` of a room: its record page, for those who may read it (the table links here by hand number,
    which the live view knows; the record's own URL has the hand's key). `?room=<id>` names a closed room."""
    found = get_object_or_404(selectors.hands_visible_to(request.user), room=_records_room(request, code),
                              number=number)
    return redirect(found)


def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: the room's page, or for a visitor without a session the room's invite (games/invite.py)."""
    found = Room.objects.filter(invite_token=token, status=Room.Status.OPEN).select_related("host").first()
    if found is None:
        raise Http404(_("This invitation is no longer valid."))
    if not request.user.is_authenticated:
        return invite_offer(request, room=found)
    return redirect(found)


def _records_query(request: HttpRequest):
    room_code = request.GET.get("room") or None
    if room_code is not None and not is_room_code(room_code):
        room_code = None  # no room has it: the filter is dropped, as an unknown game's is
    game = request.GET.get("game") or None
    if game not in PRESETS:
        game = None
    return selectors.hands_for(request.user, room_code=room_code, game=game), room_code, game


@login_required
@reads_from_replica
def records(request: HttpRequest) -> HttpResponse:
    rows, room_code, game = _records_query(request)
    return render(request, "games/records.html", {
        "rows": rows.select_related("hand__room")[:200], "count": rows.count(),
        "totals": [{**t, "currency_name": Currency(t["currency"]).label} for t in pages.records_totals(rows)],
        "room_code": room_code or "", "game": game or "", "csv_query": request.GET.urlencode(),
        **pages.records_filters(request.user),
    })


@login_required
@reads_from_replica
def records_csv(request: HttpRequest) -> HttpResponse:
    rows, _room_code, _game = _records_query(request)
    base = request.build_absolute_uri("/").rstrip("/")
    response = HttpResponse(pages.records_csv(rows.select_related("hand__room")[:10_000], base),
                            content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="halfpoint-hands.csv"'
    return response


def _readable(request: HttpRequest, key: str) -> Hand:
    """The hand `key` when the user may read its record. A hand still being played has none yet (its events hold
    face-down cards): 404 like a hand that is not theirs or does not exist."""
    found = Hand.objects.select_related("room").filter(key=key).first()
    if found is None or not selectors.hand_visible_to(found, request.user):
        raise Http404(_("There is no such hand record."))
    return found


def _hand_page(request: HttpRequest, found: Hand, *, json_url: str, **extra) -> HttpResponse:
    record = selectors.hand_export(found)
    seed_rows = [{**x, "name": record["names"].get(x["seat"], x["seat"])} for x in record["seeds"] or []]
    page = pages.hand_page(selectors.hand_record(found))
    totals = hand_records.hand_totals(found.rules, page["events"])  # the replay's totals (static/js/replay.js)
    room = found.room
    links = {"closed": not room.is_open}
    if hand_records.room_records_readable(room, request.user):  # not every reader a share link brings
        links = {**_closed_links(room), "chain_url": _records_url("games:room_chain", room)}
    return render(request, "games/hand.html", {**page, **extra, **links, "record": record, "seed_rows": seed_rows,
                                               "json_url": json_url, "totals": totals})


def _download(data: dict, filename: str) -> JsonResponse:
    """A JSON file to save (the offline verifier reads it: docs/fairness.md)."""
    response = JsonResponse(data, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _hand_file(found: Hand) -> JsonResponse:
    return _download(selectors.hand_export(found), f"halfpoint-{found.room.code}-hand-{found.number}.json")


@login_required
@require_GET
@reads_from_replica
def hand(request: HttpRequest, key: str) -> HttpResponse:
    """A finished hand's full record, with the share links the user made of it."""
    found = _readable(request, key)
    shares = [{"token": s.token, "url": request.build_absolute_uri(s.get_absolute_url())}
              for s in selectors.hand_shares(found, request.user)]
    return _hand_page(request, found, shares=shares, json_url=_url("games:hand_json", key=key))


@login_required
@require_GET
@reads_from_replica
def hand_json(request: HttpRequest, key: str) -> JsonResponse:
    """The hand's record file, for the same readers as its page."""
    return _hand_file(_readable(request, key))


@login_required
@require_POST
def hand_share(request: HttpRequest, key: str) -> HttpResponse:
    """Make a share link of the hand (the hand page's button), then back to the page that lists it."""
    found = _readable(request, key)
    try:
        hand_records.hand_share_create(hand=found, by=request.user)
    except services.GameError as e:
        messages.error(request, e.message)
    else:
        messages.success(request, _("Share link made: anyone logged in who has it can read this hand until you "
                                    "revoke it."))
    return redirect(found)


@login_required
@require_POST
def hand_share_revoke(request: HttpRequest, key: str) -> HttpResponse:
    """Revoke one of the user's share links of the hand (the posted `token`)."""
    found = _readable(request, key)
    try:
        hand_records.hand_share_revoke(hand=found, token=request.POST.get("token", ""), by=request.user)
    except services.GameError as e:
        messages.error(request, e.message)
    else:
        messages.success(request, _("Share link revoked: it leads nowhere now."))
    return redirect(found)


@login_required
@require_GET
@reads_from_replica
def hand_shared(request: HttpRequest, token: str) -> HttpResponse:
    """A hand through a share link: for anyone logged in while the link is not revoked and its maker may still
    read the hand (a link is never wider than its maker's own access)."""
    share = _shared(token)
    return _hand_page(request, share.hand, shared_by=share.created_by,
                      json_url=_url("games:hand_shared_json", token=token))


def _shared(token: str):
    share = selectors.hand_shared(token)
    if share is None or not selectors.hand_visible_to(share.hand, share.created_by):
        raise Http404(_("This share link is revoked or was never made."))
    return share


@login_required
@require_GET
@reads_from_replica
def hand_shared_json(request: HttpRequest, token: str) -> JsonResponse:
    """The record file of a hand shared by link, for the same readers as the shared page."""
    return _hand_file(_shared(token).hand)


def _chain(request: HttpRequest, code: str) -> tuple[Room, dict]:
    """The room and one page of its chain file. A room's chain is for the readers of the room (whoever may enter it
    while it is open, the readers of its hand records once it is closed: hand_records.records_room), as its list of
    hands is; 404 for anyone else."""
    found = _records_room(request, code)
    value = request.GET.get("upto", "")
    rows = selectors.room_chain(found, request.user, upto=int(value) if value.isascii() and value.isdigit() and len(value) < 10
                               else None)
    return found, {"format": selectors.CHAIN_FORMAT, "room": found.code, "hands": rows}


@login_required
@require_GET
@reads_from_replica
def room_chain(request: HttpRequest, code: str) -> HttpResponse:
    """The room's hash chain, checked in the browser (static/js/chain.js), with its file for the offline verifier."""
    found, data = _chain(request, code)
    rows = data["hands"]
    upto = {"upto": rows[-1]["hand_no"]} if rows and "upto" in request.GET else {}
    return render(request, "games/chain.html", {
        "room": found, "rows": rows, "data": data, **_closed_links(found),
        "json_url": _records_url("games:room_chain_json", found, **upto),
        "older_url": _records_url("games:room_chain", found, upto=rows[0]["hand_no"] - 1)
        if rows and rows[0]["hand_no"] > 1 else None,
    })


@login_required
@require_GET
@reads_from_replica
def room_chain_json(request: HttpRequest, code: str) -> JsonResponse:
    """The chain file of a room (one page of it, as `room_chain` shows)."""
    found, data = _chain(request, code)
    return _download(data, f"halfpoint-{found.code}-chain.json")


@require_GET
@reads_from_replica
def distribution_view(request: HttpRequest) -> HttpResponse:
    """The public distribution report: first cards and first two-card classes against an honest shuffle, per game
    (games/distribution.py). Before the first refresh the page asks for one (at most one a while)."""
    found = distribution.distribution_report()
    if found is None and cache.add(distribution.CACHE_KEY + ":asked", True, 600):
        distribution_refresh.delay()
    names, order = dict(PRESET_CHOICES), game_order()
    if found is not None:  # the games in the reader's order (games/game_order.py)
        found["games"] = sorted(found["games"], key=lambda g: order.index(g["game"]) if g["game"] in order else len(order))
    for game in (found or {}).get("games", []):
        game["name"] = names.get(game["game"], game["game"])
        for row in game["classes"]:
            row["label"] = pages.class_label(row["class"])
    return render(request, "games/distribution.html", {"report": found, "alarm": distribution.ALARM})


@require_GET
def verify(request: HttpRequest) -> HttpResponse:
    """Check a downloaded record or chain file in this browser: the page asks nothing of the server once loaded."""
    return render(request, "games/verify.html")


@reads_from_replica
def rules(request: HttpRequest, preset: str) -> HttpResponse:
    """A game's rules and its preset's settings (linked from the create form)."""
    if preset not in PRESETS:
        raise Http404(_("There is no such game."))
    return render(request, "games/rules.html", pages.rules_context(preset, PRESETS[preset].to_json()))


@login_required
@require_http_methods(["GET", "POST"])
@reads_from_replica
def rules_stats_view(request: HttpRequest) -> JsonResponse:
    """`GET|POST /rules/stats/?preset=P` with the rules form's fields (games/rules_form.py): what the rule set
    does to the game (games/stats.py). Answers {"status": "invalid", "errors": {...}} or {"status": "running",
    "progress": 0..1} or {"status": "done", "progress": 1, "result": {...}}; the page polls until done
    (static/js/rules-stats.js)."""
    preset = request.GET.get("preset", "")
    if preset not in PRESETS:
        return JsonResponse({"status": "invalid", "errors": {"preset": ["Unknown game."]}}, status=400)
    data = request.POST or None
    if request.GET.get("form") == "lobby":
        # The lobby's create-room form shows a game's main knobs only (games/forms.py KnobsForm), and
        # posts them only while that game is chosen; without them the room takes the preset as it is.
        form = KnobsForm(preset, data if data and data.get(f"{preset}-shown") == "1" else None)
    else:
        form = RulesForm(preset, data, prefix=request.GET.get("prefix") or None)
    if form.is_bound and not form.is_valid():
        return JsonResponse({"status": "invalid", "errors": form.errors.get_json_data()}, status=400)
    overrides = form.overrides if form.is_bound else {}
    rules = form.rules.to_json() if form.rules is not None else PRESETS[preset].to_json()
    key = rules_key(preset, rules)
    found = cache.get(key)
    if found is not None:
        return JsonResponse(found)
    # One simulation per rule set: only the request that sets the marker starts the task.
    if cache.add(key, running(0.0), RUNNING_SECONDS):  # expires unless the worker's progress renews it
        rules_stats.delay(key, preset, overrides)
    return JsonResponse(cache.get(key) or {"status": "running", "progress": 0.0})
