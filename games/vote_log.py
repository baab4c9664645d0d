"""The room's votes as its ledger page lists them (templates/games/_votes.html): every vote at the table, oldest
first, with who called it, what for, the answers and what came of it (games/services/votes.py). Reads only."""

from django.utils import timezone

from games.models import RoomVote, Seat


def room_votes(room) -> list[dict]:
    """One line per vote of `room`: its time, kind, caller's and target's names, yes and no counts, voters, result."""
    votes = list(RoomVote.objects.filter(room=room).select_related("user").order_by("opened_at", "pk"))
    targets = {int(v.target[1:]) for v in votes if v.target[1:].isascii() and v.target[1:].isdigit()}
    names = {s.engine_id: s.user.public_name for s in Seat.objects.filter(pk__in=targets).select_related("user")}
    now = timezone.now()
    return [{"at": v.opened_at, "kind": v.kind, "kind_name": v.get_kind_display(), "by": v.user.public_name,
             "target": names.get(v.target, ""), "yes": v.yes, "no": v.no, "voters": len(v.voters),
             "result": v.result(now)} for v in votes]
