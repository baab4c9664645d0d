"""The bank auction (抢庄; house-rules.md "The bank auction", docs/rules.md "The bank auction (bank_auction)").

With ``bank_auction`` on, a bank that is to be opened (the first hand, after an empty bank passes, after a
retirement, a banker who left, the end of a turn of the bank by turns, a Zhejiang step-down) is left vacant
(`vacant`), and the next hand starts with an auction instead of the usual offer (`start`, from
``machine.do_start_hand``). The hand's phase is ``auction``:

1. the hand's seeds are taken first (the usual seed wait, docs/fairness.md) and the deal is sealed, so that the hand's
   stream exists before anything is drawn from it;
2. with ``auction_sees_first_card`` each bidder is dealt its first card face down (its own), in seat order;
3. each bidder (a main seat in the hand whose stack covers the smallest bank) sends ``bid`` ``{"mult": 0..auction_max}``
   (0: no bid) before the deadline (``bank_seconds``; a timeout, or leaving, is no bid);
4. the highest bid wins; a tie goes to the tied bidder the hand's stream ``"auction"`` picks (one uniform draw below
   the number of tied bidders, in seat order); with no bid the usual order names the banker, at x1;
5. the winner opens the bank with the whole stack, and the multiplier (``TableState.bank_mult``) multiplies every
   settlement between the bank and a challenger while that banker holds it (``Table.settle``); a challenger's stake
   is limited to its stack's share (``machine._stake_cover``);
6. betting opens with the banker known, then the rest of the deal (``machine._deal`` keeps the first cards).

The machine calls this module, so this module takes the machine's steps from ``Table.machine`` instead of importing
them (no import cycle).
"""

from .errors import EngineError
from .shuffle import WordStream

STREAM = "auction"  # the label of the tie-break's stream under the hand's deal key (docs/fairness.md)


def vacant(t, position: int | None) -> None:
    """The bank is to be opened: it stays vacant until the next hand's auction. ``position``: where the usual order
    starts from if nobody bids (the last banker's seat; None keeps the one already noted, or the first bank's)."""
    s = t.s
    s.pending = None
    if position is not None:
        s.auction_from = position
    if s.phase != "waiting":
        s.phase = "between_hands"
    t.set_deadline(None, [])
    t.emit("auction_due")


def _blank_hand() -> dict:
    return {"cards": [], "stake": 0, "done": False, "doubled": False, "settled": False, "opened": False,
            "secret": False, "mort": None, "split": False, "outcome": None}


def _players(t) -> tuple[list[dict], list[dict], list[dict]]:
    """(the main seats that play the hand, those away, those whose stack covers no stake)."""
    m = t.machine
    s, r = t.s, t.rules
    mains = [x for x in s.main_seats() if not x["leaving"]]
    away = [x for x in mains if x.get("away")]
    here = [x for x in mains if not x.get("away") and x["stack"] > 0]
    if r.fixed_stake and r.base_stake_rule != "fixed":
        return here, away, []  # the base stake comes from the stacks, so every stack covers it (zhejiang.md)
    playing = [x for x in here if m._default_amount(t, x, r.base_stake) is not None]
    return playing, away, [x for x in here if x not in playing]


def start(t, seed_hex: str, args: dict) -> None:
    """A hand with no banker starts with the auction (``machine.do_start_hand``)."""
    m = t.machine
    s, r = t.s, t.rules
    playing, away, short = _players(t)
    if len(playing) < 2:
        raise EngineError("not_enough_players", "A hand needs a banker and at least one challenger.")
    cover = max(m._bank_cover(t), 1)
    bidders = [x["id"] for x in playing if x["stack"] >= cover]
    if not bidders:
        raise EngineError("not_enough_players", "Nobody at the table can cover the bank.")
    s.hand_no += 1
    m._new_hand(t, seed_hex, args, r.base_stake)
    h = s.hand
    h["ride"] = {}  # a new bank: nobody rides against it (house-rules.md, "Let it ride")
    h["auction"] = {"seats": [x["id"] for x in playing], "bidders": bidders, "bids": {}, "open": False,
                    "from": s.auction_from, "max": r.auction_max, "sees_first_card": r.auction_sees_first_card}
    for x in playing:
        h["hands"][x["id"]] = [_blank_hand()]
    for x in short:
        h["sitting_out"].append(x["id"])
        t.emit("seat_sits_out", seat=x["id"], why="stack_too_small")
    for x in away:
        h["sitting_out"].append(x["id"])
        t.emit("seat_sits_out", seat=x["id"], why="away")
    s.phase = "auction"
    s.pending = None
    t.emit("hand_started", hand_no=s.hand_no, commitment=s.commitment, banker=None, bank=0, base_stake=r.base_stake,
           challengers=[x["id"] for x in playing], auction=True)
    t.emit("auction_started", hand_no=s.hand_no, bidders=bidders, max=r.auction_max,
           sees_first_card=r.auction_sees_first_card)
    if not m._await_seeds(t):
        _open_bids(t)


def _open_bids(t) -> None:
    """Every awaited seed is in (or the wait is over): the deal is sealed, the bidders' first cards dealt when they
    bid after seeing them, and the bids open until ``bank_seconds`` pass."""
    m = t.machine
    s, h = t.s, t.s.hand
    a = h["auction"]
    h["awaiting"] = []
    m._seal_deal(t)
    if t.rules.auction_sees_first_card:
        for seat_id in a["bidders"]:
            t.deal(seat_id, 0)
    a["open"] = True
    for seat_id in a["bidders"]:
        if s.seat(seat_id)["leaving"]:
            a["bids"][seat_id] = 0
            t.emit("bid_made", seat=seat_id, mult=0, left=True)
    left = _undecided(t)
    t.set_deadline(t.rules.bank_seconds, left)
    t.emit("bids_open", seats=a["bidders"], max=a["max"], deadline=s.deadline)
    if not left:
        _close(t)


def _undecided(t) -> list[str]:
    a = t.s.hand["auction"]
    return [x for x in a["bidders"] if x not in a["bids"]]


def do_bid(t, actor: str, args: dict) -> None:
    """``bid`` ``{"mult": n}``: no bid (0) or x1 .. x``auction_max``, once, while the bids are open."""
    s = t.s
    t.seat(actor)
    if s.phase != "auction" or not s.hand["auction"]["open"]:
        raise EngineError("wrong_phase", "Bids for the bank are made in the bank auction, once its cards are dealt.")
    a = s.hand["auction"]
    if actor not in a["bidders"]:
        raise EngineError("not_bidding", "You are not bidding in this auction.")
    if actor in a["bids"]:
        raise EngineError("already_bid", "You have bid already.")
    mult = args.get("mult")
    if isinstance(mult, bool) or not isinstance(mult, int) or mult < 0:
        raise EngineError("bad_amount", f"A bid is a whole number from 0 (no bid) to {a['max']}.")
    if mult > a["max"]:
        raise EngineError("bid_too_high", f"The highest bid is x{a['max']}.")
    _bid(t, actor, mult)


def _bid(t, seat_id: str, mult: int, **why) -> None:
    a = t.s.hand["auction"]
    a["bids"][seat_id] = mult
    t.emit("bid_made", seat=seat_id, mult=mult, **why)
    left = _undecided(t)
    if left:
        t.s.deadline_for = left
    else:
        _close(t)


def timeout(t) -> None:
    """The deadline: of the seed wait (the missing seeds are the server's, then the bids open), or of the bids (every
    bidder who has not bid makes no bid)."""
    m = t.machine
    h = t.s.hand
    a = h["auction"]
    if not a["open"]:
        for seat_id in m._still_awaited(t, h.get("awaiting") or []):
            t.emit("seed_missing", seat=seat_id, hand_no=h["no"])
        _open_bids(t)
        return
    for seat_id in _undecided(t):
        a["bids"][seat_id] = 0
        t.emit("bid_made", seat=seat_id, mult=0, timeout=True)
    _close(t)


def seed_arrived(t) -> None:
    """A seed came, or an awaited seat left, while the deal waits for seeds: the bids open once none is missing."""
    m = t.machine
    h = t.s.hand
    if h["auction"]["open"]:
        return
    h["awaiting"] = m._still_awaited(t, h.get("awaiting") or [])
    if h["awaiting"]:
        t.s.deadline_for = list(h["awaiting"])
    else:
        _open_bids(t)


def left(t, seat_id: str) -> None:
    """A seat in the hand leaves during the auction: it stays in the hand (rules/README.md "Leaving mid-hand"); its
    bid, if it has not made one, is no bid, and a bid it made no longer counts (`_close`)."""
    a = t.s.hand["auction"]
    if not a["open"]:
        seed_arrived(t)
    elif seat_id in a["bidders"] and seat_id not in a["bids"]:
        _bid(t, seat_id, 0, left=True)


def pick(key: bytes, tied: list[str]) -> str:
    """The tied bidder the hand's stream picks: ``tied`` in seat order, one uniform draw below its length from the
    stream ``"auction"`` under the deal key (docs/fairness.md, "Byte level")."""
    return tied[WordStream(key, STREAM).below(len(tied))]


def _close(t) -> None:
    """Every bidder has bid (or the deadline passed): the winner opens the bank, then betting opens."""
    m = t.machine
    s, r, h = t.s, t.rules, t.s.hand
    a = h["auction"]
    counted = {k: v for k, v in a["bids"].items() if not s.seat(k)["leaving"]}  # a seat that left cannot bank
    top = max(counted.values(), default=0)
    if top > 0:
        tied = [k for k in a["bidders"] if counted.get(k) == top]
        winner = pick(bytes.fromhex(h["key"]), tied) if len(tied) > 1 else tied[0]
        by = "tie" if len(tied) > 1 else "bid"
    else:
        tied, winner, by = [], _usual(t), "order"
    mult = max(top, 1)
    banker = s.seat(winner)
    challengers = [s.seat(x) for x in a["seats"] if x != winner]
    if r.fixed_stake:
        base = t.v.hand_base_stake(r, banker["stack"], [x["stack"] for x in challengers])
    else:
        base = r.base_stake
    # No debt at the multiplied amounts: a challenger stakes at most its stack's share (machine._stake_cover). When
    # no challenger could cover the smallest stake at the bid, the multiplier comes down until one can.
    s.bank_mult = mult
    while s.bank_mult > 1 and not any(m._default_amount(t, x, base) is not None for x in challengers):
        s.bank_mult -= 1
    mult = s.bank_mult
    a.update(winner=winner, bid=top, mult=mult, tied=tied, by=by, void=sorted(set(a["bids"]) - set(counted)))
    t.emit("auction_won", seat=winner, mult=mult, bid=top, by=by, tied=tied, bids=dict(a["bids"]),
           bank=banker["stack"])
    m._open_bank(t, winner, banker["stack"])  # the whole stack is the bank (docs/rules.md)
    s.bank_mult = mult
    s.bank_hands = 1  # this hand is the new bank's first
    s.auction_from = None
    h["bank_start"] = s.bank
    h["base"] = base
    _open_betting(t, challengers, base)


def _usual(t) -> str:
    """Nobody bid: the seat the usual order names (the first bank's, or the bank's direction from the last banker's
    seat), among the bidders who are still here; a seat marked `no_bank` (practice) only when no other is left."""
    m = t.machine
    s, r, h = t.s, t.rules, t.s.hand
    a = h["auction"]
    pool = [x for x in a["bidders"] if not s.seat(x)["leaving"]] or list(a["bidders"])
    if a["from"] is not None:
        order = m._candidates(t, a["from"], include_from=True)
    else:
        mains = [s.seat(x) for x in pool]
        host = next((x for x in mains if x["host"]), None)
        if r.first_banker == "host" and host is not None:
            ring = [x["id"] for x in m._ordered_from(mains, host)]
            order = ring if r.host_banks else ring[1:] + ring[:1]
        else:
            order = [x["id"] for x in sorted(mains, key=lambda x: x["seq"])]
    for seat_id in order + pool:
        if seat_id in pool and not s.seat(seat_id).get("no_bank"):
            return seat_id
    return pool[0]


def _open_betting(t, challengers: list[dict], base: int) -> None:
    m = t.machine
    s, r, h = t.s, t.rules, t.s.hand
    for x in challengers:
        if m._default_amount(t, x, base) is None:
            # Its stack does not cover the smallest stake at the bank's multiplier: it sits the hand out, and a first
            # card it was dealt to bid with is set aside (seen by nobody else).
            h["sitting_out"].append(x["id"])
            for card, _vis in h["hands"].pop(x["id"])[0]["cards"]:
                h["set_aside"].append(card)
            t.emit("seat_sits_out", seat=x["id"], why="stack_too_small")
            continue
        h["bets"][x["id"]] = {"amount": base if r.fixed_stake else 0, "confirmed": r.fixed_stake}
    for x in challengers:
        if x["id"] in h["bets"] and x["leaving"]:
            m._default_stake(t, x["id"])  # a seat that left during the auction plays by default
    m._open_side_bets(t)
    s.phase = "betting"
    s.pending = None
    t.emit("betting_opened", banker=s.banker, bank=s.bank, base_stake=base, mult=s.bank_mult,
           challengers=list(h["bets"]))
    m._betting_deadline(t)
    m._maybe_close_betting(t)


def record(h: dict) -> dict:
    """The auction in the hand's record (``last_hand["auction"]``): the bidders in seat order, every bid, the tied
    bidders the stream chose from, the winner, the winning bid and the multiplier the bank plays at."""
    a = h["auction"]
    return {"bidders": list(a["bidders"]), "bids": dict(a["bids"]), "tied": list(a.get("tied", [])),
            "winner": a.get("winner"), "bid": a.get("bid", 0), "mult": a.get("mult", 1), "by": a.get("by"),
            "void": list(a.get("void", [])), "sees_first_card": a["sees_first_card"]}


def view(s, vid: str | None) -> dict | None:
    """house_view's ``auction`` key: during the auction the bidders, the bids made (public once made), the highest bid
    allowed and the deadline; after it, while the same banker holds the bank, the multiplier; between hands with the
    bank vacant, that the next hand starts with the auction."""
    h = s.hand
    if s.phase == "auction":
        a = h["auction"]
        out = {"state": "bidding" if a["open"] else "seeds", "bidders": list(a["bidders"]), "bids": dict(a["bids"]),
               "max": a["max"], "deadline": s.deadline, "sees_first_card": a["sees_first_card"]}
        if vid in a["bidders"] and vid not in a["bids"] and a["open"]:
            out["you_bid"] = True
        return out
    if s.banker is not None:
        out = {"state": "won", "mult": s.bank_mult, "banker": s.banker}
        if h is not None and h.get("auction") and h["auction"].get("winner"):
            out["result"] = {k: h["auction"][k] for k in ("winner", "bid", "mult", "tied", "by", "bids")}
        return out
    if s.phase in ("waiting", "between_hands") and s.pending is None and (s.next_rules or s.rules).bank_auction:
        return {"state": "next"}
    return None
