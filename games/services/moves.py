"""The moves of a locked run, before it is saved: taking and leaving seats, bots, top-ups, the host's start
and close, and the one thing the clock finds due now (`_due`). Above due.py; nothing here writes the row.

Tests stack a hand's deck by replacing `_start_hand` here (games.services.moves._start_hand): every hand,
the host's first and the clock's next, starts through it.
"""

import logging
import secrets

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.formats import localize
from django.utils.translation import gettext as _

from games.engine import EngineError
from games.engine.machine import IN_HAND
from games.engine.void import voidable
from games.models import ClubMember, Room, Seat
from games.services.due import _bots_due, _can_start, _skipped, away_release_seconds
from games.services.errors import GameError
from games.services.presence import _absent
from games.services.run import _Run
from games.services.save import _away_mark
from wallets import services as wallets
from wallets.models import Account

logger = logging.getLogger(__name__)

BOT_NAMES = ("Ada", "Bao", "Cai", "Dee", "Eli", "Fei", "Gus", "Hui")


def _is_club_member(club_id: int, user_id: int) -> bool:
    return ClubMember.objects.filter(club_id=club_id, user_id=user_id).exists()



def _sit_check(run: _Run, user, *, role: str, buy_in, position=None, bot: str = "") -> int:
    """The service's checks of a seat taken (the engine checks the rest): the position it takes."""
    room, state, meta = run.room, run.state, run.meta
    if run.seat_of(user) is not None:
        raise GameError("already_seated", _("You are already seated at this table."))
    if user.pk in meta["kicked"]:
        raise GameError("kicked", _("The host removed you from this room."))
    if getattr(user, "is_banned", False):
        raise GameError("banned", _("Your account is banned."))
    if room.club_id is not None and not bot and not _is_club_member(room.club_id, user.pk):
        raise GameError("club_members_only", _("This room is for the members of its club."))
    if role not in Seat.Role.values:
        raise GameError("bad_role", _("A seat is a main seat or a side-bettor seat."))
    if room.kind == Room.Kind.AI and role == Seat.Role.SIDE:
        raise GameError("side_bets_disabled", _("Practice rooms have no side bettors."))
    if isinstance(buy_in, bool) or not isinstance(buy_in, int) or not room.buy_in_min <= buy_in <= room.buy_in_max:
        raise GameError("bad_buy_in", _("The buy-in is between %(low)s and %(high)s.")
                        % {"low": localize(room.buy_in_min), "high": localize(room.buy_in_max)})
    r = state.rules
    limit = r.max_main_seats if role == "main" else r.max_side_bettors
    taken = {x["position"] for x in state.seats if x["role"] == role}
    if position is None:
        free = [p for p in range(limit) if p not in taken]
        if not free:
            raise GameError("table_full", _("Every seat is taken."))
        position = free[0]
    elif not 0 <= position < limit:
        raise GameError("bad_position", _("There is no such seat."))
    return position


def _sit(run: _Run, user, *, role: str, buy_in, position=None, bot: str = "", seed: str | None = None) -> str:
    room, meta = run.room, run.meta
    position = _sit_check(run, user, role=role, buy_in=buy_in, position=position, bot=bot)
    seat = Seat.objects.create(room=room, user=user, role=role, position=position, bot=bot, buy_in=buy_in)
    seat_id = seat.engine_id
    if bot:
        wallets.bot_float_grant(user=user, currency=room.currency, amount=buy_in,
                                idempotency_key=f"bot-float:{seat.seat_ref}")
    hold = wallets.hold_create(user=user, currency=room.currency, amount=buy_in, seat_ref=seat.seat_ref,
                               idempotency_key=f"sit:{seat.seat_ref}")
    Seat.objects.filter(pk=seat.pk).update(hold=hold)
    meta["users"][str(user.pk)] = seat_id
    meta["seats"][seat_id] = {"user": user.pk, "hold": hold.pk, "bot": bot or None, "role": role}
    run.chips_in[seat_id] = buy_in
    run.apply(seat_id, "sit", {"name": user.public_name, "stack": buy_in, "role": role, "position": position,
                               "bot": bot or None, "host": user.pk == room.host_id, **({"seed": seed} if seed else {})})
    if room.kind == Room.Kind.AI and not bot:
        _fill_with_bots(run)
    return seat_id


def _fill_with_bots(run: _Run) -> None:
    """AI rooms: bots take every empty main seat (rules: "the empty main seats are filled by bots")."""
    room, state = run.room, run.state
    seated_users = {info["user"] for info in run.meta["seats"].values()}
    free = state.rules.max_main_seats - len(state.main_seats())
    if free <= 0:
        return
    User = get_user_model()
    for name in BOT_NAMES:
        if free <= 0:
            break
        bot_user, _created = User.objects.get_or_create(
            username=f"bot-{name.lower()}",
            defaults={"is_bot": True, "is_active": False, "display_name": name, "password": "!"},
        )
        if bot_user.pk in seated_users or not bot_user.is_bot:
            continue
        _sit(run, bot_user, role="main", buy_in=room.buy_in_max, bot=room.bot_level)
        free -= 1


def _leave(run: _Run, seat_id: str, *, away_minutes: int | None = None) -> None:
    """Leave now, or after the current hand (defaults meanwhile; Zhejiang: the escape penalty). `away_minutes`:
    the room releases a seat away that long (its seat_left says so, and its ledger release: save.RELEASE_AWAY)."""
    info = run.meta["seats"][seat_id]
    run.apply(seat_id, "leave", None if away_minutes is None else {"why": "away", "minutes": away_minutes})
    room = run.room
    if info["user"] == room.host_id and not info["bot"]:
        _pass_host(run, seat_id)
    if room.kind == Room.Kind.AI and not info["bot"]:
        humans = [s for s, i in run.meta["seats"].items() if not i["bot"] and s != seat_id
                  and run.state.seat(s) is not None and not run.state.seat(s)["leaving"]]
        if not humans:
            # The last human left a practice room: the bots go too, after the hand (docs/rules.md).
            for s, i in list(run.meta["seats"].items()):
                if i["bot"] and run.state.seat(s) is not None and not run.state.seat(s)["leaving"]:
                    run.apply(s, "leave")


def _pass_host(run: _Run, leaving: str) -> None:
    """The host role passes to the longest-seated human still at the table."""
    candidates = [
        (s["seq"], s["id"]) for s in run.state.seats
        if s["id"] != leaving and not s["leaving"] and not run.meta["seats"][s["id"]]["bot"]
    ]
    if not candidates:
        return
    _seq, new = min(candidates)
    new_user = run.meta["seats"][new]["user"]
    Room.objects.filter(pk=run.room.pk).update(host_id=new_user)
    run.room.host_id = new_user
    if run.state.seat(leaving) is not None:
        run.apply("system", "set_seat", {"seat": leaving, "host": False})
    run.apply("system", "set_seat", {"seat": new, "host": True})


def _top_up_check(run: _Run, seat_id: str, amount) -> None:
    """The service's checks of a top-up (the engine refuses one in a hand)."""
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise GameError("bad_amount", _("A top-up is a whole number above zero."))
    owned = run.owned_before.get(seat_id, 0)
    if owned + amount > run.room.buy_in_max:
        raise GameError("bad_amount", _("Your chips at this table can be at most %(high)s.")
                        % {"high": localize(run.room.buy_in_max)})


def _top_up(run: _Run, seat_id: str, amount) -> None:
    _top_up_check(run, seat_id, amount)
    info = run.meta["seats"][seat_id]
    run.apply(seat_id, "top_up", {"amount": amount})  # refused in a hand: before any chip moves
    hold = Account(pk=info["hold"], user_id=info["user"], currency=run.room.currency, kind=Account.Kind.HOLD)
    wallets.hold_top_up(hold=hold, amount=amount, idempotency_key=f"topup:room{run.room.pk}:v{run.table.version + 1}")
    run.chips_in[seat_id] = run.chips_in.get(seat_id, 0) + amount


def _start(run: _Run) -> None:
    """The host starts play; from then on hands follow one another by themselves."""
    run.meta["started"] = True
    if run.state.phase in IN_HAND or run.state.pending is not None:
        raise GameError("wrong_phase", _("A hand is already under way."))
    if _sit_out_absent(run) and not _can_start(run):
        return  # those gone sit out now; the next hand starts once enough players are here
    _start_hand(run)


# A socket closed and opened again within this many seconds (a refresh, a network blip) is no absence.
ABSENT_GRACE_SECONDS = 10.0


def _sit_out_absent(run: _Run) -> bool:
    """Before a hand starts: every human seat whose owner has no open socket (presence.py) is marked away once it has
    played a hand that way (the last hand ended while it was gone, and it was in it) or has been gone longer than
    ABSENT_GRACE_SECONDS. So a seat with nobody at it plays at most one hand by default actions, the one under way
    or else the next (docs/rules.md, "Away"). True when a seat was marked."""
    absent = _absent(run)
    if not absent:
        return False
    s, meta = run.state, run.meta
    last = s.last_hand or {}
    played = set(last.get("deltas", {})) | set(last.get("order", []))
    marked = False
    for seat_id, since in absent.items():
        seat, info = s.seat(seat_id), meta["seats"].get(seat_id)
        if seat is None or info is None or info["bot"] or seat.get("away") or seat["leaving"]:
            continue
        if (seat_id in played and since <= meta["hand_over_at"]) or run.now - since >= ABSENT_GRACE_SECONDS:
            _away_mark(run, seat_id, "disconnected")
            marked = True
    return marked


def _sit_out(run: _Run, host, target) -> None:
    """The host sits a player out between hands: away from the next hand on, as if gone (docs/rules.md, "Away");
    the player sits back in with `im_back`. Checked before anything changes."""
    info = run.meta["seats"].get(target) if isinstance(target, str) else None
    seat = run.state.seat(target) if info is not None else None
    if seat is None:
        raise GameError("bad_seat", _("Nobody sits there."))
    if info["user"] == host.pk:
        raise GameError("sit_out_self", _("You can sit out only another player."))
    if info["bot"]:
        raise GameError("sit_out_bot", _("Bots play every hand."))
    if run.state.phase in IN_HAND:
        raise GameError("wrong_phase", _("Sit a player out between hands."))
    if seat["leaving"]:
        raise GameError("already_leaving", _("That player leaves after this hand."))
    if seat.get("away"):
        raise GameError("already_away", _("That player already sits out."))
    if run.state.banker == target:
        # ten-half.md "The bank between hands": a banker who is away keeps the bank and plays by timeouts.
        raise GameError("sit_out_banker", _("The banker keeps the bank: sit them out once it has moved on."))
    _away_mark(run, target, "host")


def _start_hand(run: _Run) -> None:
    run.meta["next_hand_at"] = None
    if run.room.kind == Room.Kind.AI:
        _refresh_bots(run)
        if _practice_bank_offer(run):
            return  # the hand starts once the newcomer took or declined the bank
    # The hand takes the seed committed between hands (save.py, `_commit_next_seed`); this one only when none is.
    args = {"seed_hex": secrets.token_hex(32)}
    wait = _seed_wait(run)
    if wait is not None:
        args["seed_wait"] = wait
    run.apply("system", "start_hand", args)


# The longest a deal waits for an awaited seat's own seed (docs/fairness.md, "Who commits what, when"): an open
# table page sends it at once (static/js/table.js, `offerSeed`), so the wait is a round trip unless something is wrong.
SEED_WAIT_SECONDS = 5


def _seed_wait(run: _Run) -> dict | None:
    """The seats whose own seed the hand's deal waits for: each human seat whose page sends seeds (one came from it at
    this table: meta["seeders"], save.py) and is open now (presence.py), and the practice newcomer whose click brought
    none (meta["await_seed"], rooms.practice_open). Bots, scripts and seats with no page open are never waited for."""
    meta = run.meta
    seeders = [x for x in meta.get("seeders", {}) if meta["sockets"].get(x)]
    absent = _absent(run) if seeders else {}
    seats = [x for x in seeders if x not in absent]
    seats += [x for x in meta.get("await_seed", []) if x not in seats]
    return {"seconds": SEED_WAIT_SECONDS, "seats": seats} if seats else None


# A practice room offers the bank to its player after this many hands with a bot banker, and again after as many
# more each time they decline (docs/rules.md, "Live tables"): never forced, a bot keeps it meanwhile.
PRACTICE_BANK_OFFER_AFTER = 5


def _practice_bank_offer(run: _Run) -> bool:
    """Offer a bot's bank to the practice room's player (a `no_bank` seat) when its turn has come: True if offered."""
    s, meta = run.state, run.meta
    if s.banker is None or s.pending is not None or not (meta["seats"].get(s.banker) or {}).get("bot"):
        return False
    if s.hand_no < meta.get("bank_offered_at", 0) + PRACTICE_BANK_OFFER_AFTER:
        return False
    player = next((x for x in sorted(s.main_seats(), key=lambda x: x["seq"]) if x.get("no_bank") and not x["leaving"]
                   and not x.get("away") and x["stack"] > 0 and not meta["seats"][x["id"]]["bot"]), None)
    if player is None:
        return False
    meta["bank_offered_at"] = s.hand_no
    run.apply("system", "offer_bank", {"seat": player["id"]})
    return True


def _refresh_bots(run: _Run) -> None:
    """A bot that can no longer cover a stake gives its seat to a fresh bot."""
    floor = max(run.state.rules.stake_min * 3, 1)
    broke = [s for s, i in run.meta["seats"].items() if i["bot"] and run.state.seat(s) is not None
             and run.state.seat(s)["stack"] < floor and run.state.banker != s]
    for seat_id in broke:
        run.apply(seat_id, "leave")
    if broke:
        _fill_with_bots(run)


def _close(run: _Run) -> None:
    """Close the room: a hand nobody has staked on yet is voided (engine/void.py), any other is settled by default
    actions; every stack goes home."""
    if voidable(run.state):
        run.apply("system", "void_hand")
    for _step in range(1000):
        if run.state.phase in IN_HAND or run.state.phase == "bank_decision":
            run.apply("system", "timeout")
        else:
            break
    for seat in list(run.state.seats):
        if run.state.seat(seat["id"]) is not None:
            run.apply(seat["id"], "leave")
    if run.state.seats:
        raise RuntimeError(f"room {run.room.pk} could not be emptied")
    run.meta["started"] = False
    Room.objects.filter(pk=run.room.pk).update(status=Room.Status.CLOSED, closed_at=timezone.now())
    run.room.status = Room.Status.CLOSED



def _back_from_away(run: _Run, seat_id: str) -> None:
    """The seat's owner sent a command: here, whatever their sockets say; an away seat plays from the next hand."""
    run.meta["absent"].pop(seat_id, None)
    if seat_id in (run.meta.get("skip") or {}).get("seats", ()):
        run.meta["skip"]["seats"].remove(seat_id)  # back: the clock waits for them again (services/votes.py)
    if seat_id in run.meta["away"]:
        del run.meta["away"][seat_id]
        run.meta["streak"][seat_id] = 0
        run.apply("system", "set_seat", {"seat": seat_id, "away": False})
        Seat.objects.filter(pk=int(seat_id[1:])).update(away=False)



def _due(run: _Run) -> str:
    s, meta, now = run.state, run.meta, run.now
    if meta.get("vote_close") and s.phase not in IN_HAND:
        meta.pop("vote_close")
        _close(run)  # the players voted to end the room after this hand (services/votes.py)
        return "vote_close"
    bot = _bots_due(s, meta)
    if bot is not None:
        seat_id, action, args = bot
        try:
            run.apply(seat_id, action, args)
            return f"bot:{action}"
        except EngineError as e:
            # A bot decides from its own view, so this is a bug; the deadline still moves the table on.
            logger.error("bot %s at room %s refused: %s %s -> %s", seat_id, run.room.pk, action, args, e.code)
    if s.deadline is not None and (now >= s.deadline or _skipped(run)):
        # A seed that did not come in time is no move the player missed: it counts for no away streak.
        waited = s.phase in ("auction", "betting") and s.hand.get("awaiting")
        for seat_id in [] if waited else s.deadline_for:
            info = meta["seats"].get(seat_id)
            if info and not info["bot"] and seat_id not in meta["timed"]:
                meta["timed"].append(seat_id)
        run.apply("system", "timeout")
        return "timeout"
    if meta["next_hand_at"] is not None and now >= meta["next_hand_at"]:
        if s.phase in ("waiting", "between_hands") and s.pending is None and _can_start(run):
            if _sit_out_absent(run) and not _can_start(run):
                meta["next_hand_at"] = None  # nobody left to play with: none until somebody is back
                return "sat_out"
            try:
                _start_hand(run)
            except EngineError as e:
                # The engine's own reason (no challenger who can cover a stake, an empty bank): no new time
                # until something happens at the table (`_next_hand_at`), or the wake would come back for ever.
                meta["next_hand_at"] = None
                meta["start_refused"] = e.code
                return "no_hand"
            return "hand"
        meta["next_hand_at"] = None
        return "no_hand"
    release = away_release_seconds()
    for seat_id, since in list(meta["away"].items()):
        if now >= since + release and s.seat(seat_id) is not None and not s.seat(seat_id)["leaving"]:
            _leave(run, seat_id, away_minutes=int((now - since) // 60))
            return "released"
    return "nothing"

