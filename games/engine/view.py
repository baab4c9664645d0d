"""What one viewer may see (rules/README.md, "Privacy"): the only thing that leaves toward players.

A face-down card is shown to its owner as ``{"card": "9H", "up": false}`` and to everyone else as
``{"hidden": true}``; face-up cards are ``{"card": "9H", "up": true}``. Totals and classes appear only
for hands whose every card the viewer can see. The seed appears only once the hand is over.
"""

from .machine import IN_HAND, Table, _net_profit, may_top_up, play_actions
from .rules import Rules
from .state import TableState, json_copy


def _card(card: list, owner: str, viewer: str | None) -> dict:
    code, vis = card
    if vis == "up":
        return {"card": code, "up": True}
    if owner == viewer:
        return {"card": code, "up": False}
    return {"hidden": True}


def legal_actions(state: TableState, seat_id: str | None) -> list[str]:
    """The actions ``seat_id`` may send now (without arguments); [] for spectators."""
    s = state
    seat = s.seat(seat_id) if seat_id else None
    if seat is None:
        return []
    t = Table(s, 0.0)
    r = s.rules
    out: list[str] = []
    is_banker = s.banker == seat_id
    if s.phase == "betting":
        h = s.hand
        bet = h["bets"].get(seat_id)
        side = h["side"].get(seat_id)
        # With fixed stakes only a rider (house-rules.md "Let it ride") has a stake to choose.
        if bet and not bet["confirmed"] and (not r.fixed_stake or seat_id in (h.get("ride") or {})):
            out += ["chip", "reset", "confirm", "bet"]
        if side and not side["confirmed"]:
            out += ["back", "chip", "reset", "confirm", "side_bet", "no_bet"]
    elif s.phase == "playing":
        out += play_actions(t, seat_id)
    elif s.phase == "auction":
        a = s.hand["auction"]
        if a["open"] and seat_id in a["bidders"] and seat_id not in a["bids"]:
            out.append("bid")  # house-rules.md "The bank auction"
    elif s.phase == "bank_decision" and s.pending and s.pending["seat"] == seat_id:
        kind = s.pending["kind"]
        out += {"open": ["open_bank", "decline_bank"], "take": ["take_bank", "decline_bank"],
                "refill": ["refill", "pass_bank"]}[kind]
    if is_banker and not (r.retire_needs_profit and _net_profit(s) < s.bank_opening) and not s.retire_requested \
            and not s.pending:
        out.append("retire")
    if s.phase in ("waiting", "between_hands"):
        if s.banker is None and not s.pending and seat["role"] == "main" and seat["stack"] > 0 \
                and not (s.next_rules or r).bank_auction:  # with the bank auction, the next hand bids for it
            out.append("open_bank")
        if r.jackpot_enabled and seat["host"]:
            out.append("seed_jackpot")
    if may_top_up(s, seat_id):
        out.append("top_up")
    if not seat["leaving"]:
        out.append("leave")
    return out


def _hand_view(s: TableState, viewer: str | None, evals: dict | None = None) -> dict | None:
    """`evals`: the hands' evaluations already made for another viewer of the same state, by (owner, index)."""
    h = s.hand
    if h is None:
        return None
    from .variants import VARIANTS

    v = VARIANTS[s.rules.game]
    if evals is None:
        evals = {}
    hands = {}
    for owner, phs in h["hands"].items():
        shown = []
        for i, ph in enumerate(phs):
            cards = [_card(c, owner, viewer) for c in ph["cards"]]
            entry = {"cards": cards, "stake": ph["stake"], "done": ph["done"], "doubled": ph["doubled"],
                     "settled": ph["settled"], "outcome": ph["outcome"][0] if ph["outcome"] else None,
                     "mort": ph["mort"], "secret": ph["secret"], "split": ph["split"]}
            if all("card" in c for c in cards):
                shown_ev = evals.get((owner, i))
                if shown_ev is None:
                    ev = v.evaluate([c[0] for c in ph["cards"]], s.rules)
                    shown_ev = evals[(owner, i)] = {"total": v.display_total(ev.total), "class": ev.cls,
                                                    "bust": ev.bust}
                    if s.rules.matta != "off" and (wild := v.matta_value([c[0] for c in ph["cards"]], s.rules)):
                        shown_ev["matta"] = v.display_total(wild)  # the matta's value, shown with the total only
                entry.update(shown_ev)
            shown.append(entry)
        hands[owner] = shown
    return {
        "no": h["no"], "base_stake": h["base"], "dice": h["dice"] if h["order"] else None, "order": h["order"],
        "turn": {"seat": h["turn"][0], "hand": h["turn"][1]} if h["turn"] else None,
        "bets": {k: {"amount": b["amount"], "confirmed": b["confirmed"]} for k, b in h["bets"].items()},
        "side_bets": [{"seat": k, "backs": b["backs"], "amount": b["amount"], "confirmed": b["confirmed"]}
                      for k, b in h["side"].items()],
        "hands": hands, "results": list(h["results"]), "sitting_out": list(h["sitting_out"]),
        "deltas": dict(h["deltas"]) if h["over"] else None, "over": h["over"],
        "commitment": h["commitment"], "seed": h["seed"] if h["over"] else None,
        "dealt": list(h["dealt"]) if h["over"] else None,
    }


def shared_view(state: TableState) -> dict:
    """The parts of every viewer's `view` of `state` that do not depend on the viewer: made once for the
    views of one command (games/frames.py, `update_frames`), and passed to `view` as `shared`."""
    s = state
    return {
        "rules": s.rules.to_json(),
        "net_profit": _net_profit(s) if s.banker else 0,
        "seats": [{"id": x["id"], "name": x["name"], "stack": x["stack"], "bot": x["bot"], "role": x["role"],
                   "position": x["position"], "host": x["host"], "leaving": x["leaving"], "away": x.get("away", False),
                   "banker": x["id"] == s.banker} for x in sorted(s.seats, key=lambda x: (x["role"], x["position"]))],
        "deadline_for": list(s.deadline_for),
        "pending": {"kind": s.pending["kind"], "seat": s.pending["seat"]} if s.pending else None,
        "seed": s.hand["seed"] if s.hand is not None and s.hand["over"] else None,
        # The finished hand's record (every card revealed) until the next hand starts.
        "last_hand": s.last_hand if s.phase not in IN_HAND else None,
        "shoe": {"stock": len(s.shoe["stock"]) + (len(s.hand["stock"]) if s.hand and not s.hand["over"] else 0),
                 "discards": len(s.shoe["discards"])} if s.shoe is not None else None,
        "next_rules": s.next_rules.to_json() if s.next_rules else None,
        "fair_deal": _fair_deal(s),
        "bank_turn_left": bank_turn_left(s),
    }


def bank_turn_left(s: TableState) -> int | None:
    """The hands the banker still plays in this turn of the bank (house-rules.md, "The bank by turns"), the hand
    being played included: 3, 3, 2, 1 over a turn of 3 (between hands, then during each); None with the rule off
    or no banker. Between hands it reads the rules the next hand will play."""
    if s.banker is None:
        return None
    if s.phase in IN_HAND:
        turn = s.rules.bank_turn_hands
        return max(turn - s.bank_hands, 0) + 1 if turn else None
    turn = (s.next_rules or s.rules).bank_turn_hands
    return max(turn - s.bank_hands, 1) if turn else None


def _fair_deal(s: TableState) -> dict | None:
    """The commitment of the coming (or current) deal and the players' own seeds for it (docs/fairness.md): from
    between hands until the deal ``open`` (seeds are taken), then closed with the seeds that went in."""
    h = s.hand
    if s.phase in IN_HAND:
        # Open until the deal is sealed: at the deal, or before the bank auction (house-rules.md, auction.py).
        sealed = "key" in h
        seeds = s.seeds if not sealed else {x["seat"]: x["seed"] for x in h["seeds"] if x["by"] == "player"}
        return {"hand_no": h["no"], "commitment": h["commitment"], "open": not sealed, "seeds": dict(seeds)}
    if s.next_commitment is not None:
        return {"hand_no": s.hand_no + 1, "commitment": s.next_commitment, "open": True, "seeds": dict(s.seeds)}
    return None


def view(state: TableState, viewer: str | None = None, *, detached: bool = True, shared: dict | None = None,
         evals: dict | None = None) -> dict:
    """Everything ``viewer`` (a seat id; None or an unknown id is a spectator) may see, as JSON.
    ``detached=False`` skips the deep copy: the dict then shares lists with the state, and is for
    serializing at once, never for keeping or changing (the live tables' frames, games/frames.py).
    ``shared`` and ``evals``: what the views of other viewers of the same state already made (`shared_view`,
    and the hands' evaluations), for a command that serializes the view of every viewer."""
    s = state
    seat = s.seat(viewer) if viewer else None
    vid = seat["id"] if seat else None
    r: Rules = s.rules
    c = shared if shared is not None else shared_view(s)
    out = {
        "game": r.game, "rules": c["rules"], "phase": s.phase, "hand_no": s.hand_no,
        "you": vid, "role": ("banker" if vid == s.banker else seat["role"]) if seat else "spectator",
        "banker": s.banker, "bank": s.bank, "bank_opening": s.bank_opening, "bank_topups": s.bank_topups,
        "net_profit": c["net_profit"], "bank_hands": s.bank_hands,
        "retire_requested": s.retire_requested, "jackpot": s.jackpot,
        "seats": c["seats"],
        "deadline": s.deadline, "deadline_for": c["deadline_for"],
        "pending": c["pending"],
        "commitment": s.commitment,
        "seed": c["seed"],
        "hand": _hand_view(s, vid, evals),
        "last_hand": c["last_hand"],
        "shoe": c["shoe"],
        "legal_actions": legal_actions(s, vid),
        "next_rules": c["next_rules"],
        "fair_deal": c["fair_deal"],
        "bank_turn_left": c["bank_turn_left"],
        "house": house_view(s, vid),
    }
    return json_copy(out) if detached else out


def house_view(s: TableState, vid: str | None) -> dict:
    """What the house rules that are on (house-rules.md) show this viewer beyond the hand: one key per rule, absent
    while the rule is off or has nothing to show (docs/protocol.md, "The view")."""
    out = {}
    if s.rules.bank_auction or (s.next_rules is not None and s.next_rules.bank_auction):
        auction_view = _auction_view(s, vid)
        if auction_view is not None:
            out["auction"] = auction_view
    if s.rules.push_cap and s.hand is not None and s.phase in IN_HAND and s.hand.get("ride"):
        # house-rules.md "Let it ride" (推注): each riding seat's cap in this hand (public, as the results it follows).
        out["ride"] = dict(s.hand["ride"])
    if s.rules.banker_opens and s.hand is not None and s.phase in IN_HAND:
        out["banker_opens"] = _opens_view(s, vid)
    if s.rules.free_hand and s.hand is not None and s.hand.get("free_hands"):
        # house-rules.md "The free hand": who escaped with one in this hand (public: their results say so too).
        out["free_hand"] = {"escaped": list(s.hand["free_hands"]), "banker": s.banker in s.hand["free_hands"]}
    return out


def _opens_view(s: TableState, vid: str | None) -> dict:
    """house-rules.md "The banker opens hands one by one": the challengers opened, in order (public), and for the
    banker alone, while `open` is legal, the challengers it may open (to anyone else that would tell the banker's
    total had reached `banker_open_from` before the first open turned the banker's cards up)."""
    out = {"from": s.rules.banker_open_from, "opened": list(s.hand.get("opens", ())), "openable": []}
    if vid is not None and vid == s.banker and "open" in play_actions(Table(s, 0.0), vid):
        from .variants import VARIANTS

        out["openable"] = VARIANTS[s.rules.game].openable(Table(s, 0.0))
    return out


def _auction_view(s: TableState, vid: str | None) -> dict | None:
    from .auction import view as auction_view  # house-rules.md "The bank auction" (games/engine/auction.py)

    return auction_view(s, vid)


def redact_event(event: dict, viewer: str | None) -> dict | None:
    """An event as ``viewer`` may see it: a face-down card dealt to someone else loses its rank and suit;
    the seed and dealt list only travel in hand_over, which is sent once the hand is over."""
    if event.get("type") == "card_dealt" and event.get("face") == "down" and event.get("seat") != viewer:
        return {k: v for k, v in event.items() if k != "card"}
    if event.get("type") == "card_discarded" and event.get("seat") != viewer:
        return {k: v for k, v in event.items() if k != "card"}
    return event
