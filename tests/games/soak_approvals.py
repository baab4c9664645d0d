"""The soak's rooms whose host approves buy-ins (games/services/approvals.py): a helper of tests/games/soak.py.
Their players' sits and top-ups wait as requests; now and then the host answers one, approving most and refusing
some, and the rest lapse as the soak's clock passes their deadlines. The soak's audits then check that an approval
held exactly the beans its seat owns, and that a refused or lapsed request held nothing."""

from games import services
from games.models import BuyInRequest, Room
from games.services import run as services_run

APPROVE = 0.8  # of the answers; the others refuse


def answer(soak, live) -> str | None:
    """The room's host answers one waiting request, or nothing when none waits (or the host is no soak player)."""
    room = Room.objects.only("host_id").get(pk=live.room.pk)
    host = soak.by_id.get(room.host_id)
    waiting = sorted(BuyInRequest.objects.filter(
        room_id=room.pk, outcome="", deadline__gt=services_run._dt(soak.clock())).values_list("pk", flat=True))
    if not waiting or host is None:
        return None
    call = services.buy_in_approve if soak.rng.random() < APPROVE else services.buy_in_refuse
    try:
        call(room_id=room.pk, user=host, request=soak.rng.choice(waiting))
    except services.GameError as e:  # a seat taken meanwhile, a top-up in a hand, a wallet short of beans
        soak.refused[e.code] += 1
    else:
        soak.events[call.__name__] += 1
    return "answer"
