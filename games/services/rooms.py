"""Rooms: open one (`room_create`, or a practice table dealt at once: `practice_open`, whose click may bring the
player's seed: `check_seed`), who may enter, close it, take a seat away, change its rules, and a seat taken or left
as a command. Above commands.py.
"""

import secrets

from django.db import IntegrityError, transaction
from django.utils.formats import localize
from django.utils.translation import gettext as _

from games.engine import EngineError, RulesError, new_table, rules_from, state_to_json
from games.engine.shuffle import seed_bytes
from games.models import ClubMember, Room, Table
from games.services import moves
from games.services.commands import action_submit
from games.services.due import _bots_due
from games.services.errors import GameError, Result, rules_refused
from games.services.moves import _close, _is_club_member, _leave, _sit
from games.services.run import _locked
from games.services.save import _save
from wallets import services as wallets
from wallets.models import Currency
from wallets.selectors import balances_for

BUY_IN_MOST = 2**31 - 1  # Room's buy-in limits are PositiveIntegerFields: 32 bits on PostgreSQL


def _new_code() -> str:
    return f"{secrets.randbelow(10_000):04d}"


def room_create(
    *,
    host,
    preset: str,
    overrides: dict | None = None,
    currency: str = Currency.BEANS,
    kind: str = Room.Kind.HUMANS,
    buy_in_min: int | None = None,
    buy_in_max: int | None = None,
    bot_level: str = "basic",
    club=None,
    approve_buy_ins: bool = False,
    spectators: str = Room.Spectators.PUBLIC,
) -> Room:
    """Open a room from a preset plus overrides (validated by the engine as a whole). AI rooms are
    practice rooms and always use points: bots' chips come from the house, and beans are only ever
    won from other players (rules/README.md, "Beans and points"; docs/rules.md). `approve_buy_ins`: the host
    approves each buy-in and top-up of the others (games/services/approvals.py); never in a practice room."""
    if getattr(host, "is_banned", False):
        raise GameError("banned", _("Your account is banned."))
    try:
        rules = rules_from(preset, overrides or {})
    except RulesError as e:
        raise rules_refused(e) from None
    if kind not in Room.Kind.values:
        raise GameError("bad_kind", _("A room is for friends or for practice with bots."))
    if kind == Room.Kind.AI:
        currency = Currency.POINTS
        approve_buy_ins = False  # a practice table's bots ask nobody (approvals.py)
    if type(approve_buy_ins) is not bool:
        raise GameError("bad_approval", _("Whether the host approves buy-ins is true or false."))
    if currency not in Currency.values:
        raise GameError("bad_currency", _("A room plays for beans or points."))
    if bot_level not in ("basic", "expert"):
        raise GameError("bad_bot", _("Bots are basic or expert."))
    if spectators not in Room.Spectators.values:  # docs/rules.md, "Spectators"
        raise GameError("bad_spectators", _("Spectators: none, public or TV mode."))
    base = rules.base_stake
    buy_in_min = base * 10 if buy_in_min is None else buy_in_min
    buy_in_max = base * 100 if buy_in_max is None else buy_in_max
    for name, value in (("buy_in_min", buy_in_min), ("buy_in_max", buy_in_max)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise GameError("bad_buy_in", _("Buy-in limits are whole numbers above zero."))
        if value > BUY_IN_MOST:
            raise GameError("bad_buy_in", _("A buy-in limit is at most %(n)s.") % {"n": localize(BUY_IN_MOST)}, field=name)
    if buy_in_min > buy_in_max:
        raise GameError("bad_buy_in", _("The smallest buy-in cannot be above the largest."))
    if buy_in_min < rules.stake_min:
        raise GameError("bad_buy_in", _("The smallest buy-in must cover at least one stake."))
    state = state_to_json(new_table(rules))
    for _attempt in range(50):
        try:
            with transaction.atomic():
                room = Room.objects.create(
                    code=_new_code(), host=host, preset=preset, overrides=overrides or {}, rules=rules.to_json(),
                    currency=currency, kind=kind, bot_level=bot_level, buy_in_min=buy_in_min, buy_in_max=buy_in_max,
                    club=club, approve_buy_ins=approve_buy_ins, spectators=spectators,
                )
                Table.objects.create(room=room, state=state, meta={"started": kind == Room.Kind.AI})
                return room
        except IntegrityError:
            continue  # the code is taken by another open room: draw again
    raise GameError("no_code", _("Every room code is taken; try again in a moment."))


def check_seed(seed) -> None:
    """A player's seed is 64 hexadecimal digits (32 bytes); anything else raises GameError `bad_seed`."""
    try:
        seed_bytes(seed)
    except EngineError:
        raise GameError("bad_seed", _("A seed is 64 hexadecimal digits (32 bytes).")) from None


# The newcomer's buy-in at a practice table, in base stakes (the room page's default, within the room's limits).
PRACTICE_BUY_IN_STAKES = 50


def practice_open(*, user, preset: str, seed: str | None = None, server_seed: str | None = None,
                  await_seed: bool = False) -> Room:
    """Practice in one click: an AI room (points) with the user seated as a challenger beside the bots, a bot
    holding the bank and the first hand dealt, all in one locked transaction. The user's seat is `no_bank`: the
    bank comes to them only as an offer (moves.PRACTICE_BANK_OFFER_AFTER), never by itself (docs/rules.md).
    So that the first decision comes at once, the bots bet the first hand now (they bet at once anyway: their
    stake is the base stake, bots.default_stake) and the user's stake is set to the base stake, one Confirm away.
    With the bank auction on (house-rules.md) no bot opens the bank: the first hand starts with the auction, the bots
    bid at once and the user's first decision is the bid.

    The fair deal (docs/fairness.md, "Who commits what, when"): `server_seed` is the seed whose SHA-256 the lobby
    showed before the browser drew `seed` (games/practice_seeds.py). The table commits to it before the user sits,
    and `seed` comes in with the seat, so the first deal has it. A `seed` without `server_seed` is left out: the
    server would have seen it before choosing its own. `await_seed` (the practice button): when no seed came with
    the click, the first deal waits for the one the table page sends (moves.SEED_WAIT_SECONDS at most).
    Raises GameError (nothing is created) for a malformed seed (`bad_seed`) or when the user cannot buy in."""
    if seed is not None:
        check_seed(seed)
    if server_seed is None:
        seed = None
    with transaction.atomic():
        room = room_create(host=user, preset=preset, kind=Room.Kind.AI)
        run = _locked(room.pk)
        run.apply("system", "commit_seed", {"seed_hex": server_seed or secrets.token_hex(32)})
        base = run.state.rules.base_stake
        available = balances_for(user)[Currency.POINTS]["available"]
        buy_in = min(room.buy_in_max, max(room.buy_in_min, base * PRACTICE_BUY_IN_STAKES), available)
        if buy_in < room.buy_in_min:
            raise GameError("insufficient_funds", _("Practice needs %(n)s points: refill your points in the wallet.")
                            % {"n": localize(room.buy_in_min)})
        try:
            # Position 1, the banker's left: in the games played in seat order the newcomer acts first.
            seat_id = _sit(run, user, role="main", buy_in=buy_in, position=1, seed=seed)  # bots fill the others
        except wallets.WalletError as e:
            raise GameError(e.code, e.message) from None
        run.apply("system", "set_seat", {"seat": seat_id, "no_bank": True})
        if not run.state.rules.bank_auction:  # with the bank auction the first hand starts with it (house-rules.md)
            banker = next(x for x in run.state.main_seats() if x["position"] == 0)
            run.apply(banker["id"], "open_bank", {"amount": banker["stack"]})
        if await_seed and seed is None:
            run.meta["await_seed"] = [seat_id]
        moves._start_hand(run)  # through the module: where tests stack a hand's deck
        run.meta.pop("await_seed", None)  # the first hand's only
        while run.state.phase in ("auction", "betting") and (due := _bots_due(run.state, run.meta)) is not None:
            run.apply(*due)
        hand = run.state.hand
        bet = hand["bets"].get(seat_id) if run.state.phase == "betting" else None
        if bet and not bet["confirmed"] and bet["amount"] == 0 and hand["base"] in run.state.rules.chip_values:
            run.apply(seat_id, "chip", {"amount": hand["base"]})
        _save(run)
    return room


def room_check_access(*, room: Room, user) -> None:
    """Who may enter a room (see the table): any logged-in player who is not banned; nobody once
    it is closed. Raises GameError."""
    if not getattr(user, "is_authenticated", False):
        raise GameError("login_required", _("Log in to join a room."))
    if getattr(user, "is_banned", False) or not user.is_active:
        raise GameError("banned", _("Your account is banned."))
    if not room.is_open:
        raise GameError("room_closed", _("This room is closed."))
    if room.club_id is not None and not _is_club_member(room.club_id, user.pk):
        raise GameError("club_members_only", _("This room is for the members of its club."))


def _is_club_admin(club_id: int, user_id: int) -> bool:
    return ClubMember.objects.filter(club_id=club_id, user_id=user_id, role__in=["owner", "admin"]).exists()


def room_close(*, room_id: int, by) -> None:
    """Close a room (the host, or a moderator): settles and releases everything."""
    with transaction.atomic():
        run = _locked(room_id)
        if not run.room.is_open:
            return
        if by.pk != run.room.host_id and not by.has_perm("games.moderate_room") and not (
                run.room.club_id is not None and _is_club_admin(run.room.club_id, by.pk)):
            raise GameError("not_host", _("Only the host can close the room."))
        _close(run)
        _save(run)


def seat_remove(*, room_id: int, user_id: int, kicked: bool = True) -> bool:
    """Take a user's seat away (a ban, a moderator's kick): they leave now, or after the current hand
    by default actions. A kicked user cannot sit in this room again. False when not seated."""
    with transaction.atomic():
        run = _locked(room_id)
        seat_id = run.meta["users"].get(str(user_id))
        if kicked and user_id not in run.meta["kicked"]:
            run.meta["kicked"].append(user_id)
        if seat_id is None or not run.room.is_open:
            return False
        if not run.state.seat(seat_id)["leaving"]:
            _leave(run, seat_id)
        _save(run)
        return True


def room_rules_update(*, room_id: int, overrides: dict, by=None):
    """Change a room's rules (the host, or a moderator through the admin): validated by the engine as a
    whole, recorded as a `rules_changed` event, and applied from the next hand, never the current one."""
    try:
        rules = rules_from(Room.objects.values_list("preset", flat=True).get(pk=room_id), overrides)
    except RulesError as e:
        raise rules_refused(e, on_field=False) from None
    except Room.DoesNotExist:
        raise GameError("no_room", _("There is no such room.")) from None
    with transaction.atomic():
        run = _locked(room_id)
        if not run.room.is_open:
            raise GameError("room_closed", _("This room is closed."))
        run.apply("system", "set_rules", {"rules": rules.to_json()})
        Room.objects.filter(pk=room_id).update(overrides=overrides, rules=rules.to_json())
        _save(run)
    return rules


def seat_take(*, room_id: int, user, role: str = "main", buy_in: int, position: int | None = None) -> Result:
    """Sit down with a buy-in: a wallet hold in bean rooms, points in point rooms."""
    args = {"role": role, "buy_in": buy_in}
    if position is not None:
        args["position"] = position
    return action_submit(room_id=room_id, user=user, action="sit", args=args)


def seat_leave(*, room_id: int, user) -> Result:
    return action_submit(room_id=room_id, user=user, action="leave")
