"""Who else may read a hand record: the visits that make a user a watcher of a room, and the share links a reader
of a hand makes and revokes (docs/rules.md, "Who may read a hand record"; the rule itself is
games.selectors.hands_visible_to). Who may read a room's chain and list of hands, open or closed (`records_room`).
Also what the record page's replay needs besides the record: each hand's value as it grew.
"""

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.text import storable_text
from games import ledger, selectors
from games.engine.errors import RulesError
from games.engine.rules import Rules
from games.engine.variants import VARIANTS
from games.models import Hand, HandShare, Room, RoomVisit, is_room_code
from games.services import GameError, room_check_access

SHARES_PER_HAND = 10  # a reader's open share links of one hand: enough to give out, few enough to keep track of


def room_visit_record(*, room: Room, user) -> None:
    """`user` came to `room`'s table: one row per user and room, keeping the first time (a later visit changes
    nothing, and two at once do not clash)."""
    RoomVisit.objects.bulk_create([RoomVisit(room=room, user=user)], ignore_conflicts=True)


def room_records_readable(room: Room, user) -> bool:
    """`user` may read `room`'s chain and list of hands (each hand's record still only for its readers,
    selectors.hands_visible_to). While the room is open: whoever may enter it, as its table (room_check_access).
    Once it is closed, nobody enters: the readers of its ledger, who are the readers of its hand records
    (ledger.rooms_visible_to: who sat in it or came to its table, its host, its club's members, moderators)."""
    if not room.is_open:
        return ledger.rooms_visible_to(user).filter(pk=room.pk).exists()
    try:
        room_check_access(room=room, user=user)
    except GameError:
        return False
    return True


def records_room(user, code: str, room_id: int | None = None) -> Room | None:
    """The room of `code` whose chain and hands `user` asks for, or None (the pages' 404): the open room of that code
    when `user` may read it and `room_id` does not name another; else a closed room of that code that `user` may read,
    the one `room_id` names or the newest (a closed room's code may have gone to a newer room since, as for its
    ledger: ledger.room_for)."""
    if not is_room_code(code):
        return None
    found = selectors.open_room_by_code(code)
    if found is not None and room_id in (None, found.pk) and room_records_readable(found, user):
        return found
    closed = ledger.room_for(user, code, room_id)
    return closed if closed is not None and not closed.is_open else None


def hand_share_create(*, hand: Hand, by) -> HandShare:
    """A new share link of `hand`, made by a user who may read it. Raises GameError (and makes nothing) for
    anyone else, for a hand still being played, and past SHARES_PER_HAND open links of the same maker."""
    if not selectors.hand_visible_to(hand, by):
        raise GameError("no_hand", _("There is no such hand record."))
    # A soft limit: two requests at the same moment may both pass it, which costs one link too many.
    if len(selectors.hand_shares(hand, by)) >= SHARES_PER_HAND:
        raise GameError("too_many_shares", _("You have %(n)s share links of this hand already: revoke one first.")
                        % {"n": SHARES_PER_HAND})
    return HandShare.objects.create(hand=hand, created_by=by)


def hand_share_revoke(*, hand: Hand, token: str, by) -> None:
    """Revoke one of `by`'s open share links of `hand`: from now on it leads nowhere. Raises GameError (and
    changes nothing) for a link that is not theirs, not of this hand, or already revoked."""
    revoked = storable_text(token) and (
        HandShare.objects.filter(hand=hand, created_by=by, token=token, revoked_at__isnull=True)
        .update(revoked_at=timezone.now()))
    if not revoked:
        raise GameError("no_share", _("This share link is not one of yours, or it is already revoked."))


def hand_totals(rules: dict, events: list[dict]) -> dict[str, dict]:
    """What every hand of a finished hand's `events` was worth after each card that reached or left it, keyed by its
    cards in order ("AS 10H"): {total, class, bust} and `matta`, the matta's value, when the hand holds it (house-rules.md),
    as the engine counts them, so that the hand page's replay
    (static/js/replay.js) shows each hand's total at each step without counting four games itself. It names only
    cards the record shows already. Empty for rules this engine no longer reads."""
    try:
        parsed = Rules.from_json(rules)
    except (RulesError, TypeError):
        return {}
    variant = VARIANTS.get(parsed.game)
    if variant is None:
        return {}
    out: dict[str, dict] = {}
    hands: dict[str, list[list[str]]] = {}

    def count(cards: list[str]) -> None:
        if cards:
            ev = variant.evaluate(cards, parsed)
            out[" ".join(cards)] = {"total": variant.display_total(ev.total), "class": ev.cls, "bust": ev.bust}
            if parsed.matta != "off" and (wild := variant.matta_value(cards, parsed)) is not None:
                out[" ".join(cards)]["matta"] = variant.display_total(wild)  # the value the matta took (docs/rules.md)

    for e in events:
        kind, seat, index = e.get("type"), e.get("seat"), e.get("hand") or 0
        if kind == "hand_started":
            hands = {}
        if kind not in ("card_dealt", "card_discarded", "action") or not isinstance(index, int):
            continue
        lists = hands.setdefault(seat, [])
        while len(lists) <= index:
            lists.append([])
        cards = lists[index]
        if kind == "card_dealt" and e.get("card"):
            cards.append(e["card"])
        elif kind == "card_discarded" and e.get("card") in cards:
            cards.remove(e["card"])
        elif kind == "action" and e.get("action") == "split" and cards:
            lists.insert(index + 1, [cards.pop()])  # seven-half.md: the second card becomes a hand of its own
            count(lists[index + 1])
        count(cards)
    return out
