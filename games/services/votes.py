"""Votes at a table (docs/protocol.md, "Votes"): a seated player calls a vote, the seated players at the table answer
yes or no within VOTE_SECONDS. The top layer, beside clock_ask.py: above moves.py, save.py and presence.py.

- `close` (解散房间): the room ends after the current hand (at once when no hand is in play) and goes to its
  settle-up, through the host's own close (moves.py, `_close`). It may be called once the host has been away for
  HOST_AWAY_SECONDS (no open socket, or sitting out: presence.py; a host with no seat is not at the table), or at
  any time when the host allows it (`Room.vote_anytime`, set by `vote_anytime`). The host closes the room instead.
  It passes with more than half of the voters.
- `skip`: an away player's timers (a seat sitting out, or whose owner has no open socket) are skipped for the rest
  of the hand: every decision the clock waits for from that seat alone is taken at once, as its timeout would take
  it (moves.py, `_due`; due.py, `_skipped`). It passes when every voter (every player here but that one) says yes.

The voters are fixed at the call: the caller and every other human seat whose owner is at the table now (not away,
a socket open). An absent player cannot answer within a minute, and counting them would make every absence a no.
A vote fails as soon as enough noes make passing impossible; a vote still open when its time is over has expired
(`RoomVote.result`): nothing writes it, the pages count the time down themselves and a late answer is refused.
One call per player per CALL_WAIT in a room, whatever came of it. Every call, answer and outcome is a room frame
of codes (games/broadcast.py, `room_frame`); every vote stays as a `RoomVote` (the room's ledger page lists them).
"""

from datetime import timedelta

from django.db import transaction
from django.utils.translation import gettext as _

from games import broadcast
from games.engine.machine import IN_HAND
from games.models import Room, RoomVote
from games.services import run as runs
from games.services.errors import GameError
from games.services.moves import _close
from games.services.presence import _absent
from games.services.run import _dt, _locked, _Run
from games.services.save import _save

VOTE_SECONDS = 60
CALL_WAIT = timedelta(minutes=10)  # between two calls of one player in one room
HOST_AWAY_SECONDS = 5 * 60  # how long the host is gone before the players may vote to end the room


def _open(run: _Run) -> None:
    if not run.room.is_open:
        raise GameError("room_closed", _("This room is closed."))


def _open_vote(run: _Run) -> RoomVote | None:
    return RoomVote.objects.filter(room_id=run.room.pk, outcome="", ends_at__gt=_dt(run.now)).first()


def _here(run: _Run) -> list[str]:
    """The human seats whose owner is at the table now: not leaving, not away, a socket open (presence.py)."""
    absent = _absent(run)
    seats = sorted(run.state.seats, key=lambda x: x["seq"])
    return [x["id"] for x in seats if not (run.meta["seats"].get(x["id"]) or {"bot": True})["bot"]
            and not x["leaving"] and not x.get("away") and x["id"] not in absent]


def _away(run: _Run, seat_id: str) -> float | None:
    """Since when the seat's owner has been away (sitting out, or no socket open), or None when they are here."""
    times = [t for t in (_absent(run).get(seat_id), run.meta["away"].get(seat_id)) if t is not None]
    return min(times) if times else None


def _host_away(run: _Run) -> bool:
    seat_id = run.meta["users"].get(str(run.room.host_id))
    if seat_id is None:
        return True  # the host holds no seat: nobody hosts at the table
    since = _away(run, seat_id)
    return since is not None and run.now - since >= HOST_AWAY_SECONDS


def _frame(vote: RoomVote, kind: str, now: float, **extra) -> dict:
    return {"type": kind, "vote": vote.pk, "kind": vote.kind, "seat": vote.seat, "user": vote.user_id,
            "target": vote.target or None, "voters": vote.voters, "answered": list(vote.ballots), "yes": vote.yes,
            "no": vote.no, "seconds": max(0, round(vote.ends_at.timestamp() - now)), **extra}


def vote_call(*, room_id: int, user, kind, seat=None) -> RoomVote:
    """A seated player calls a vote of `kind` ("close", or "skip" with the away `seat`), answering yes themselves.
    Raises GameError and changes nothing when the room is closed (`room_closed`), the kind is unknown
    (`bad_vote_kind`), the caller is not seated (`not_seated`), a vote is open (`vote_open`), the caller called one
    less than CALL_WAIT ago (`vote_wait`); for `close`, when the caller hosts (`host_closes`) or the host is here and
    does not allow it (`host_here`); for `skip`, when no hand is in play (`no_hand`), `seat` is no other human seat
    (`bad_seat`), is not away (`player_here`), or its timers are already skipped (`already_skipped`)."""
    with transaction.atomic():
        run = _locked(room_id)  # one call at a time per room: two at once would both find none open
        _open(run)
        if kind not in RoomVote.Kind.values:
            raise GameError("bad_vote_kind", _("A vote ends the room or skips an away player's timers."))
        me = run.seat_of(user)
        if me is None:
            raise GameError("not_seated", _("Take a seat first."))
        if _open_vote(run) is not None:
            raise GameError("vote_open", _("A vote is under way: answer it first."))
        last = RoomVote.objects.filter(room_id=room_id, user_id=user.pk).order_by("-opened_at").first()
        if last is not None and _dt(run.now) - last.opened_at < CALL_WAIT:
            raise GameError("vote_wait", _("You called a vote less than ten minutes ago."))
        voters = [me, *[x for x in _here(run) if x != me]]
        target = ""
        if kind == RoomVote.Kind.CLOSE:
            if user.pk == run.room.host_id:
                raise GameError("host_closes", _("You host this room: close it from the menu."))
            if not run.room.vote_anytime and not _host_away(run):
                raise GameError("host_here", _("The host is here: ask them to end the room."))
        else:
            target = _skip_target(run, me, seat)
            voters = [x for x in voters if x != target]
        vote = RoomVote.objects.create(
            room_id=room_id, kind=kind, user_id=user.pk, seat=me, target=target, hand_no=run.state.hand_no,
            voters=voters, ballots={me: True}, opened_at=_dt(run.now), ends_at=_dt(run.now + VOTE_SECONDS))
        frame = _frame(vote, "vote_opened", run.now)
        transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))
        _decide(run, vote)
    return vote


def _skip_target(run: _Run, me: str, seat) -> str:
    if run.state.phase not in IN_HAND:
        raise GameError("no_hand", _("No hand is in play."))
    info = run.meta["seats"].get(seat) if isinstance(seat, str) else None
    if info is None or info["bot"] or seat == me or run.state.seat(seat) is None:
        raise GameError("bad_seat", _("Choose another player at the table."))
    if _away(run, seat) is None:
        raise GameError("player_here", _("That player is here."))
    skip = run.meta.get("skip") or {}
    if skip.get("hand") == run.state.hand_no and seat in skip.get("seats", []):
        raise GameError("already_skipped", _("That player's timers are already skipped in this hand."))
    return seat


def vote_cast(*, room_id: int, user, vote, yes) -> RoomVote:
    """A voter answers the open vote `vote` (its id) with `yes` (true or false). Raises GameError and changes nothing
    when `yes` is no boolean (`bad_ballot`), the room is closed (`room_closed`), the user is not seated
    (`not_seated`), there is no such vote in the room (`no_vote`), it is decided (`vote_over`) or its time is over
    (`vote_expired`), the user's seat may not answer it (`not_voter`) or answered already (`already_voted`)."""
    if type(yes) is not bool:  # not 1, "yes" or null
        raise GameError("bad_ballot", _("Answer a vote with yes or no."))
    with transaction.atomic():
        run = _locked(room_id)
        _open(run)
        me = run.seat_of(user)
        if me is None:
            raise GameError("not_seated", _("Take a seat first."))
        # An id is a positive 64-bit integer: a larger number would overflow the query, not find nothing.
        found = RoomVote.objects.filter(pk=vote, room_id=room_id).first() if type(vote) is int and 0 < vote < 2**63 \
            else None
        if found is None:
            raise GameError("no_vote", _("There is no such vote."))
        if found.outcome:
            raise GameError("vote_over", _("That vote is decided."))
        if run.now >= found.ends_at.timestamp():
            raise GameError("vote_expired", _("That vote's time is over."))
        if me not in found.voters:
            raise GameError("not_voter", _("You may not answer this vote."))
        if me in found.ballots:
            raise GameError("already_voted", _("You answered this vote already."))
        found.ballots[me] = yes
        RoomVote.objects.filter(pk=found.pk).update(ballots=found.ballots)
        frame = _frame(found, "vote_tally", run.now, by=me)
        transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))
        _decide(run, found)
    return found


def _decide(run: _Run, vote: RoomVote) -> None:
    """Pass or fail the vote once its answers decide it; then a passed vote does what it says."""
    voters = len(vote.voters)
    need = voters // 2 + 1 if vote.kind == RoomVote.Kind.CLOSE else voters
    if vote.yes >= need:
        outcome = RoomVote.Outcome.PASSED
    elif voters - vote.no < need:
        outcome = RoomVote.Outcome.FAILED
    else:
        return
    vote.outcome = outcome
    RoomVote.objects.filter(pk=vote.pk).update(outcome=outcome, decided_at=_dt(run.now))
    passed = outcome == RoomVote.Outcome.PASSED
    after_hand = passed and vote.kind == RoomVote.Kind.CLOSE and run.state.phase in IN_HAND
    frame = _frame(vote, "vote_ended", run.now, outcome=outcome, after_hand=after_hand)
    room_id = run.room.pk
    # Before the table's update: a room closed at once closes its sockets, and the pages hear the outcome first.
    transaction.on_commit(lambda: broadcast.room_frame(room_id, frame))
    if passed:
        _carry_out(run, vote)


def _carry_out(run: _Run, vote: RoomVote) -> None:
    """A passed vote's effect, saved as the table's next version."""
    s = run.state
    if vote.kind == RoomVote.Kind.CLOSE:
        if s.phase in IN_HAND:
            run.meta["vote_close"] = vote.pk  # the clock closes the room once the hand is over (moves.py, `_due`)
        else:
            _close(run)
        _save(run)
        return
    if s.phase in IN_HAND and s.hand_no == vote.hand_no:
        skip = run.meta.get("skip") or {}
        seats = skip.get("seats", []) if skip.get("hand") == s.hand_no else []
        run.meta["skip"] = {"hand": s.hand_no, "seats": [*seats, vote.target]}
        _save(run)  # its wake comes at once when the clock waits for that seat alone (due.py, `_wake_at`)


def vote_anytime(*, room_id: int, user, allow) -> None:
    """The host lets the players call a vote to end the room at any time (`allow` true), or only once the host is away
    (false). Raises GameError and changes nothing when the room is closed, the user is not the host (`not_host`) or
    `allow` is no boolean (`bad_value`)."""
    with transaction.atomic():
        run = _locked(room_id)
        _open(run)
        if user.pk != run.room.host_id:
            raise GameError("not_host", _("Only the host can do that."))
        if type(allow) is not bool:
            raise GameError("bad_value", _("Say yes or no."))
        Room.objects.filter(pk=room_id).update(vote_anytime=allow)
        transaction.on_commit(lambda: broadcast.room_frame(room_id, {"type": "vote_anytime", "allow": allow}))


def votes_open(*, room_id: int, user) -> list[dict]:
    """What a connecting page is sent: the room's open vote, as a `vote_opened` frame (the host's setting is in the
    page: templates/games/room.html)."""
    now = runs._now()
    vote = RoomVote.objects.filter(room_id=room_id, room__status=Room.Status.OPEN, outcome="",
                                   ends_at__gt=_dt(now)).first()
    return [] if vote is None else [_frame(vote, "vote_opened", now)]
