"""A player's command (`action_submit`): checked, applied once per client action id, saved. Above moves.py;
rooms.py and chat.py build on it.
"""

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.text import storable_text
from games.engine import EngineError
from games.engine.shuffle import seed_bytes
from games.models import Room
from games.services.approvals import _ask_host, _asks_host
from games.services.errors import GameError, Result
from games.services.moves import _back_from_away, _close, _leave, _sit, _sit_out, _start, _top_up
from games.services.run import _locked, _Run
from games.services.save import _save
from wallets import services as wallets

# Action ids remembered per room (a retried action is applied once): each user's last ACTIONS_PER_USER,
# at most RECENT_ACTIONS in all. The list is part of the meta every command reads and writes: 200 entries of
# every user were 10 KB of JSON a command at a busy table, where a client has one action in flight at a time.
RECENT_ACTIONS = 200
ACTIONS_PER_USER = 8

# What a player may send as arguments: name -> type. Anything else is refused before the engine
# sees it, so a hostile frame (a list where a seat id goes, a float amount) is a clear error. A `seed` is
# the player's 32 bytes for the coming deal as 64 hex digits (docs/fairness.md), anything else `bad_seed`.
ARG_TYPES = {"amount": int, "seat": str, "backs": str, "position": int, "role": str, "buy_in": int, "seed": str,
             "mult": int}  # mult: a bid in the bank auction (house-rules.md)
# Engine commands a player sends for their own seat.
PLAYER_ACTIONS = {
    "chip", "reset", "confirm", "bet", "back", "side_bet", "no_bet", "hit", "stand", "double", "split",
    "mort_accept", "mort_decline", "open_bank", "refill", "pass_bank", "retire", "take_bank", "decline_bank",
    "seed_jackpot", "seed", "escape",  # escape: the free hand (house-rules.md)
    "open",  # the banker opens a challenger's hand (house-rules.md "The banker opens hands one by one")
    "bid",  # the bank auction (house-rules.md)
}
# Commands of the room (seats and host controls), handled here around the engine.
ROOM_ACTIONS = {"sit", "leave", "top_up", "im_back", "start", "kick", "sit_out", "close"}


def _clean_args(args) -> dict:
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise GameError("bad_args", _("The arguments of a command are an object."))
    out = {}
    for name, value in args.items():
        kind = ARG_TYPES.get(name)
        if kind is None:
            raise GameError("bad_args", _("Unknown argument %(name)s.") % {"name": str(name)[:40]})
        if name == "seed":
            try:
                seed_bytes(value)
            except EngineError:
                raise GameError("bad_seed", _("A seed is 64 hexadecimal digits (32 bytes).")) from None
        elif kind is int and (isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**12):
            raise GameError("bad_amount", _("%(name)s must be a whole number.") % {"name": name})
        elif kind is str and (not isinstance(value, str) or len(value) > 40):
            raise GameError("bad_args", _("%(name)s must be a short text.") % {"name": name})
        out[name] = value
    return out


def action_submit(*, room_id: int, user, action: str, args: dict | None = None, action_id: str = "") -> Result:
    """Apply one command from `user` to the room's table. The same (user, action_id) twice is
    applied once: the second call returns the first one's version with duplicate=True.
    Raises GameError with the engine's code and message when the command is refused.
    Locks: the table row, then the wallets the command moves (wallets/services.py)."""
    if not isinstance(action, str):
        raise GameError("unknown_action", _("The frame names no action: \"action\" must be a text such as \"bet\"."))
    if action not in PLAYER_ACTIONS and action not in ROOM_ACTIONS:
        raise GameError("unknown_action", _("There is no action called %(action)s.") % {"action": action[:40]})
    if not isinstance(action_id, str) or len(action_id) > 64 or not storable_text(action_id):
        raise GameError("bad_action_id", _("An action id is a text of at most 64 characters."))
    args = _clean_args(args)
    try:
        with transaction.atomic():
            run = _locked(room_id)
            if not run.room.is_open:
                raise GameError("room_closed", _("This room is closed."))
            if action_id:
                for uid, aid, version in run.meta["actions"]:
                    if uid == user.pk and aid == action_id:
                        return Result(version=version, duplicate=True)
            if action in ROOM_ACTIONS:
                _room_action(run, user, action, args)
            else:
                seat_id = run.seat_of(user)
                if seat_id is None:
                    raise GameError("not_seated", _("Take a seat first."))
                if action == "seed":
                    # The page sends a seed by itself for a seat with no bet to make (docs/fairness.md): no sign
                    # that anybody is there, so an away seat stays away and a timed-out one is not "acted".
                    run.apply(seat_id, action, args)
                else:
                    _back_from_away(run, seat_id)
                    run.apply(seat_id, action, args)
                    if seat_id not in run.meta["acted"]:
                        run.meta["acted"].append(seat_id)
            if action_id:
                run.meta["actions"] = _remember(run.meta["actions"], user.pk, action_id, run.table.version + 1)
            return Result(version=_save(run))
    except EngineError as e:
        raise GameError(e.code, e.message) from None
    except wallets.WalletError as e:
        raise GameError(e.code, e.message) from None


def _remember(actions: list, user_id: int, action_id: str, version: int) -> list:
    """The recent action ids with this one added: the user's oldest goes beyond ACTIONS_PER_USER."""
    mine = [i for i, (uid, _aid, _v) in enumerate(actions) if uid == user_id]
    drop = set(mine[:len(mine) - (ACTIONS_PER_USER - 1)]) if len(mine) >= ACTIONS_PER_USER else set()
    kept = [a for i, a in enumerate(actions) if i not in drop]
    return [*kept[-(RECENT_ACTIONS - 1):], [user_id, action_id, version]]


def _room_action(run: _Run, user, action: str, args: dict) -> None:
    if action in ("sit", "top_up") and _asks_host(run, user):  # the host approves it first (approvals.py)
        _ask_host(run, user, action, args)
        return
    if action == "sit":
        _sit(run, user, role=args.get("role", "main"), buy_in=args.get("buy_in"), position=args.get("position"),
             seed=args.get("seed"))
        return
    seat_id = run.seat_of(user)
    if action in ("leave", "top_up", "im_back"):
        if seat_id is None:
            raise GameError("not_seated", _("You are not seated at this table."))
        if action == "leave":
            _leave(run, seat_id)
        elif action == "top_up":
            _top_up(run, seat_id, args.get("amount"))
        else:
            if seat_id not in run.meta["away"]:
                raise GameError("not_away", _("You are not away."))
            _back_from_away(run, seat_id)
        return
    if user.pk != run.room.host_id:
        raise GameError("not_host", _("Only the host can do that."))
    if action == "start":
        _start(run)
    elif action == "kick":
        target = args.get("seat")
        info = run.meta["seats"].get(target) if isinstance(target, str) else None
        if info is None:
            raise GameError("not_seated", _("Nobody sits there."))
        if info["user"] == user.pk:
            raise GameError("kick_self", _("Leave instead of kicking yourself."))
        if run.room.kind == Room.Kind.AI and info["bot"]:
            raise GameError("kick_bot", _("Bots keep their seats in a practice room."))
        run.meta["kicked"].append(info["user"])
        seat = run.state.seat(target)
        if not seat["leaving"]:
            _leave(run, target)
    elif action == "sit_out":
        _sit_out(run, user, args.get("seat"))
    elif action == "close":
        _close(run)
