"""A room's ledger (docs/ledger.md): for each person who sat in it, what they bought in with, topped up, took away and
still have on the table, their net result, the hands they played and the bank's result while they held it; once the
room is closed, the settle-up that squares the nets. Reads only.

Every chip figure comes from the wallets ledger: the entries on the holds behind the room's seats (a seat's hold has
the `seat_ref` "room<room pk>:s<seat pk>", games/wallet_places.py), summed per owner and per kind of transaction: the
buy-in (`hold`), `top_up`, and the `release` that took what was left home when the seat was given up. Hands played and
the banker's result come from the hand records (HandSeat). Two aggregate queries, whatever the number of hands.

A hold is a seat's stack: chips come into it by the buy-in and top-ups, hands move them between the room's holds, and
the release empties it. So for each person net = taken away + on the table − bought in − topped up, which is the sum
of what the hands moved on their holds, and a room's nets add up to zero: nothing leaves the room's holds but to
another of them or home (no rake). `balanced` says so of the figures read.
"""

from dataclasses import dataclass

from django.db.models import Count, Exists, Min, OuterRef, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from games.models import ClubMember, HandSeat, LedgerShare, Room, RoomVisit, Seat, is_room_code
from wallets.models import Account, Entry, Transaction

SHARES_PER_ROOM = 10  # a person's open share links of one room's settle-up


@dataclass(frozen=True)
class Person:
    """One person's line of a room's ledger (a bot in a practice room is one too). Chips are the room's currency."""

    user_id: int
    name: str
    bot: bool
    bought_in: int  # their buy-ins, one per seat they took
    topped_up: int
    taken_away: int  # what their seats' releases gave back to their wallet
    on_table: int  # what the seat they still hold owns (stack, and the bank or a seeded jackpot): its hold's balance
    seated: bool  # they still hold a seat
    hands: int  # finished hands they played (main seat, bank or side bet)
    banked: int  # of which as the banker
    banker: int  # the bank's result in the hands they banked

    @property
    def net(self) -> int:
        return self.taken_away + self.on_table - self.bought_in - self.topped_up


@dataclass(frozen=True)
class Transfer:
    payer: Person
    payee: Person
    amount: int


FIGURES = ("bought_in", "topped_up", "taken_away", "on_table", "net", "hands", "banker")


@dataclass(frozen=True)
class Ledger:
    room: Room
    people: list[Person]  # in the order they first sat down

    def total(self, figure: str) -> int:
        return sum(getattr(p, figure) for p in self.people)

    @property
    def totals(self) -> dict[str, int]:
        return {figure: self.total(figure) for figure in FIGURES}

    @property
    def balanced(self) -> bool:
        """The nets add up to zero: hands moved chips only between the room's seats."""
        return self.total("net") == 0

    @property
    def by_net(self) -> list[Person]:
        """Who is up first, who is down last."""
        return sorted(self.people, key=lambda p: (-p.net, p.name, p.user_id))

    def settle_up(self) -> list[Transfer]:
        """The transfers that square the nets: the largest debt to the largest credit, again and again (each step
        settles at least one person, so there are fewer transfers than people)."""
        owed = {p.user_id: p.net for p in self.people}
        people = {p.user_id: p for p in self.people}
        transfers = []
        while True:
            creditors = sorted((k for k, v in owed.items() if v > 0), key=lambda k: (-owed[k], people[k].name, k))
            debtors = sorted((k for k, v in owed.items() if v < 0), key=lambda k: (owed[k], people[k].name, k))
            if not creditors or not debtors:
                return transfers
            payee, payer = creditors[0], debtors[0]
            amount = min(owed[payee], -owed[payer])
            transfers.append(Transfer(payer=people[payer], payee=people[payee], amount=amount))
            owed[payee] -= amount
            owed[payer] += amount


def room_ledger(room: Room) -> Ledger:
    """The ledger of `room`, open or closed. Two queries."""
    kind = Transaction.Kind
    holds = Seat.objects.filter(room_id=room.pk).values("hold_id")
    rows = (
        Entry.objects.filter(account__in=holds, account__kind=Account.Kind.HOLD,
                             account__seat_ref__startswith=f"room{room.pk}:s")
        .values("account__user_id", "account__user__username", "account__user__display_name",
                "account__user__is_bot")
        .annotate(
            bought_in=Coalesce(Sum("amount", filter=Q(transaction__kind=kind.HOLD)), 0),
            topped_up=Coalesce(Sum("amount", filter=Q(transaction__kind=kind.TOP_UP)), 0),
            released=Coalesce(Sum("amount", filter=Q(transaction__kind=kind.RELEASE)), 0),
            on_table=Coalesce(Sum("amount", filter=Q(account__closed_at__isnull=True)), 0),
            open_seats=Count("account", filter=Q(account__closed_at__isnull=True), distinct=True),
            first_hold=Min("account"),
        )
        .order_by("first_hold")
    )
    played = {
        r["user_id"]: r
        for r in HandSeat.objects.filter(hand__room_id=room.pk, hand__ended_at__isnull=False)
        .values("user_id")
        .annotate(hands=Count("pk"), banked=Count("pk", filter=Q(role="banker")),
                  banker=Coalesce(Sum("delta", filter=Q(role="banker")), 0))
        .order_by()
    }
    people = []
    for r in rows:
        user_id = r["account__user_id"]
        hands = played.get(user_id, {})
        people.append(Person(
            user_id=user_id, name=r["account__user__display_name"] or r["account__user__username"],
            bot=r["account__user__is_bot"], bought_in=r["bought_in"], topped_up=r["topped_up"],
            taken_away=-r["released"], on_table=r["on_table"], seated=r["open_seats"] > 0,
            hands=hands.get("hands", 0), banked=hands.get("banked", 0), banker=hands.get("banker", 0),
        ))
    return Ledger(room=room, people=people)


# --- who may read it --------------------------------------------------------------------------------------------


def rooms_visible_to(user) -> QuerySet[Room]:
    """The rooms whose ledger `user` may read: the readers of the room's hand records (games.selectors.hands_visible_to,
    docs/rules.md "Who may read a hand record"): who sat in it, who came to its table, its host, the members of its
    club, and moderators (the `view_hand` permission)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return Room.objects.none()
    if user.has_perm("games.view_hand"):
        return Room.objects.all()
    sat = Seat.objects.filter(room=OuterRef("pk"), user=user)
    watched = RoomVisit.objects.filter(room=OuterRef("pk"), user=user)
    member = ClubMember.objects.filter(club=OuterRef("club"), user=user)
    return Room.objects.filter(Q(host=user) | Exists(sat) | Exists(watched) | Exists(member))


def room_for(user, code: str, room_id: int | None = None) -> Room | None:
    """The room of `code` whose ledger `user` may read: the one `room_id` names, else the newest (a closed room's code
    may have gone to a newer room since). None when there is none."""
    if not is_room_code(code):
        return None
    rooms = rooms_visible_to(user).filter(code=code)
    if room_id is not None:
        rooms = rooms.filter(pk=room_id)
    return rooms.order_by("-pk").first()


def sat_in(room: Room, user) -> bool:
    """`user` took a seat in `room` at some time (who may share its settle-up)."""
    return Seat.objects.filter(room=room, user_id=user.pk).exists()


def shared(token: str) -> LedgerShare | None:
    """The settle-up share link `token` while it is not revoked, with its room and maker."""
    return LedgerShare.objects.filter(token=token, revoked_at__isnull=True).select_related("room", "created_by").first()


def shares_of(room: Room, user) -> list[LedgerShare]:
    """The open share links of `room` that `user` may see and revoke: their own, and every one for the room's host."""
    links = LedgerShare.objects.filter(room=room, revoked_at__isnull=True)
    if room.host_id != user.pk:
        links = links.filter(created_by_id=user.pk)
    return list(links.select_related("created_by").order_by("pk"))
