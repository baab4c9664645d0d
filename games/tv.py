"""TV mode's cards (docs/rules.md, "Spectators"): what a spectator of a TV-mode room is shown beyond the public view:
each consenting challenger's face-down cards, by hand (a split makes two), as {seat id: [[card code, ...], ...]}.

"One action late": the `tv` frame that follows the update of version v shows each consenting challenger's cards as
they were at version v - 1, the table before the command that made v. So a card dealt by a command is shown from the
next version on, once its owner has had the command after it to act; a spectator relaying cards to a player tells
them nothing the table had not already moved past. Only challengers' cards show: never the banker's (their hidden
card decides how every challenger plays), none while the bank is bid for (the winner's first card becomes the
banker's), never the stock or the shoe, never a card not yet dealt, and nothing of a
hand before it is the current hand (a card of version v - 1 belongs to the hand then under way only).

Consent is per player and per room, from the hand after the answer; a withdrawal hides that player's cards at once
(the next frame leaves them out, and the room's `tv_consent` frame tells the spectators' pages to drop them now).
`Table.meta` keeps, under the table's lock (games/services/save.py, games/services/spectators.py):
- tv: {user id: the first hand their cards show in}, for the players who gave consent;
- tv_lag: {"hand": number, "cards": {seat id: [[card code, ...] per hand]}}, the challengers' cards at the version
  before the current one (while a hand was under way then), whoever consents: the consent is read when a frame is made.
Pure functions of the state and meta: imported by save.py, selectors.py and the spectators' services.
"""

TV = "tv"


def tv_lag(state: dict) -> dict | None:
    """The challengers' face-down cards of `state` (a stored state, JSON), kept for the next version's spectators
    (a face-up card is in everyone's view already); None between hands."""
    hand = state.get("hand")
    if not hand or hand.get("over"):
        return None
    if state.get("phase") == "auction":
        # The bidders' first cards (house-rules.md "The bank auction"): the winner keeps theirs face down as the
        # banker's card, and until the bids close nobody knows who that is.
        return {"hand": hand["no"], "cards": {}}
    banker = state.get("banker")
    cards = {owner: [[code for code, vis in ph["cards"] if vis != "up"] for ph in phs]
             for owner, phs in hand["hands"].items()
             if owner != banker and any(vis != "up" for ph in phs for _code, vis in ph["cards"])}
    return {"hand": hand["no"], "cards": cards}


def tv_shown(meta: dict, state) -> dict[str, list[list[str]]]:
    """The cards a TV-mode spectator is shown with the version whose engine state is `state` (a TableState) and
    whose meta is `meta`: the lagged cards of each challenger whose owner consents for the current hand."""
    lag = meta.get("tv_lag")
    hand = state.hand
    if not lag or hand is None or hand["over"] or hand["no"] != lag["hand"]:
        return {}
    consent = meta.get("tv") or {}
    out = {}
    for seat_id, cards in lag["cards"].items():
        info = (meta.get("seats") or {}).get(seat_id)
        start = consent.get(str(info["user"])) if info else None
        if start is not None and start <= hand["no"] and seat_id != state.banker:
            out[seat_id] = cards
    return out


def tv_frame(version: int, cards: dict) -> dict:
    """The `tv` frame (docs/protocol.md): sent to a TV-mode room's spectators right after the update of `version`."""
    return {"type": "tv", "version": version, "cards": cards}
