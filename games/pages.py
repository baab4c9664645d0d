"""Read-only helpers for the pages (games/views.py): knob labels, the rules of a room as a table,
a finished hand's events as sentences, the user's rooms and records. Nothing here writes.

A knob's label and help are defined once, in the engine (games/engine/rules.py, ``KNOB_SPECS``, marked
there for translation); they are translated here when shown.
"""

import csv
import io

from django.db.models import Q, Sum
from django.urls import reverse
from django.utils.formats import localize
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from games import selectors
from games.engine import KNOBS, PRESETS, RulesError, find_variant, rules_from
from games.engine.rules import HOUSE_PRESETS
from games.game_order import games_in_order
from games.models import PRESET_CHOICES, Hand, HandSeat, Room, Seat

KNOB_BY_NAME = {k["name"]: k for k in KNOBS}
PRESET_NAMES = dict(PRESET_CHOICES)

CHOICE_TEXT = {
    "french-52": gettext_lazy("52 French cards"), "french-54": gettext_lazy("54 cards with jokers"),
    "spanish-40": gettext_lazy("40 Spanish cards"),
    "keep": gettext_lazy("kept until given up"), "max-hands": gettext_lazy("passed after a number of hands"),
    "step-down": gettext_lazy("a losing banker steps down"),
    "dice": gettext_lazy("dice"), "seat": gettext_lazy("seat order"),
    "fixed": gettext_lazy("fixed"), "poorest-share": gettext_lazy("share of the poorest stack"),
    "banker-sixtieth": gettext_lazy("a sixtieth of the banker's chips"),
    "host": gettext_lazy("the host"), "first-seated": gettext_lazy("the first to sit"), "draw": gettext_lazy("a card draw"),
    "choose": gettext_lazy("chosen by the banker"), "whole-stack": gettext_lazy("the whole stack"),
    "clockwise": gettext_lazy("clockwise"), "counter-clockwise": gettext_lazy("counter-clockwise"),
    "classic": gettext_lazy("classic"), "extended": gettext_lazy("extended"),
    "off": gettext_lazy("off"), "king-of-coins": gettext_lazy("the king of coins"),  # the matta
}

CLASS_TEXT = {
    "ordinary": gettext_lazy("ordinary"), "bust": gettext_lazy("bust"),
    "ten-and-a-half": gettext_lazy("ten and a half"), "five-dragons": gettext_lazy("five dragons"),
    "seven-and-a-half": gettext_lazy("seven and a half"), "natural": gettext_lazy("natural"),
    "five-small": gettext_lazy("five small"), "five-pictures": gettext_lazy("five pictures"),
    "heavenly-king": gettext_lazy("heavenly king"), "six-small": gettext_lazy("six small"),
    "seven-small": gettext_lazy("seven small"), "eight-small": gettext_lazy("eight small"),
    "nine-small": gettext_lazy("nine small"), "grand-heavenly-king": gettext_lazy("grand heavenly king"),
    "five-dragon": gettext_lazy("Five Dragon"), "ban-luck": gettext_lazy("Ban-Luck"), "ban-ban": gettext_lazy("Ban-Ban"),
    "five-card-bust": gettext_lazy("five-card bust"),
}

# The knobs the lobby's create form shows per game (the rest keep the preset's values).
MAIN_KNOBS = {
    "ten-half": ["base_stake", "chip_values", "max_main_seats", "side_bets_enabled", "max_side_bettors", "host_banks",
                 "retire_needs_profit", "bank_turn_hands", "bet_seconds", "act_seconds", "payouts"],
    "seven-half": ["base_stake", "chip_values", "max_main_seats", "bank_max_hands", "take_bank_on_target",
                   "house_rules", "jackpot_enabled", "bet_seconds", "act_seconds", "payouts"],
    "zhejiang-ten-half": ["base_stake_rule", "base_stake", "base_stake_cap", "mode", "max_main_seats", "double_once",
                          "escape_penalty", "banker_multiplies", "bank_turn_hands", "bet_seconds", "act_seconds",
                          "payouts"],
    "ban-luck": ["base_stake", "min_bet", "max_bet", "chip_values", "max_main_seats", "banker_forced_draw",
                 "bank_turn_hands", "banker_opens", "banker_open_from", "free_hand", "bet_seconds", "act_seconds",
                 "payouts"],
}
# The house rules (house-rules.md) each game offers, on its form after the bank's knobs.
for _game, _knobs in {"ten-half": ["bank_auction", "auction_max", "auction_sees_first_card", "push_cap"],
                      "zhejiang-ten-half": ["bank_auction", "auction_max", "auction_sees_first_card", "push_cap"],
                      "seven-half": ["matta", "matta_natural"]}.items():
    _at = MAIN_KNOBS[_game].index("bet_seconds")
    MAIN_KNOBS[_game][_at:_at] = _knobs
# A preset with house rules on shows its game's knobs.
MAIN_KNOBS.update({slug: MAIN_KNOBS[game] for slug, game in HOUSE_PRESETS.items()})

# What the lobby's create form starts with where it differs from the preset (docs/rules.md, "The bank by turns"):
# in the two Chinese games a friends' room passes the bank every 5 hands unless its host changes it, while the
# presets, practice and the engine keep 0 (off).
CREATE_FORM_INITIAL = {
    "ten-half": {"bank_turn_hands": 5},
    "zhejiang-ten-half": {"bank_turn_hands": 5},
    # The friend-room apps put the bank up for auction every hand (每局抢庄): a turn of one hand, then a new auction.
    "ten-half-auction": {"bank_turn_hands": 1},
}
# Knobs the create form may leave empty, as a form made before they were on it does: the room gets the preset's value.
CREATE_FORM_OPTIONAL = frozenset({"bank_turn_hands", "banker_open_from", "matta", "auction_max", "push_cap"})


def _takes_bank_turns(preset: str) -> bool:
    """Whether the game lets a room pass the bank by turns (Seven and a Half refuses it: its own limit does)."""
    try:
        rules_from(preset, {"bank_turn_hands": 1})
    except RulesError:
        return False
    return True


BANK_TURN_PRESETS = frozenset(slug for slug in PRESETS if _takes_bank_turns(slug))

# The house rules (house-rules.md), each explained with a worked example (templates/games/rules/house/<knob>.html):
# the knob and the value that turns it on. A game offers those its rules accept (the engine decides).
HOUSE_RULES = {"banker_opens": True, "free_hand": True, "matta": "king-of-coins", "bank_auction": True, "push_cap": 10}


def _offers(preset: str, knob: str) -> bool:
    try:
        rules_from(preset, {knob: HOUSE_RULES[knob]})
    except RulesError:
        return False
    return True


HOUSE_OFFERED = {slug: tuple(k for k in HOUSE_RULES if _offers(slug, k)) for slug in PRESETS}


def house_rule_on(rules: dict, knob: str) -> bool:
    value = rules.get(knob)
    return bool(value) and value != "off"


def house_rules(preset: str, rules: dict) -> list[dict]:
    """The house rules the game offers, each on or off in `rules`, with the other presets that play with it on. The
    game's rules page explains each (templates/games/rules.html), a room's rules tab those on (games/_rules.html)."""
    out = []
    for knob in HOUSE_OFFERED[preset]:
        presets = [(slug, PRESET_NAMES[slug]) for slug, game in HOUSE_PRESETS.items()
                   if slug != preset and game == HOUSE_PRESETS.get(preset, preset)
                   and house_rule_on(PRESETS[slug].to_json(), knob)]
        out.append({"knob": knob, "on": house_rule_on(rules, knob), "label": knob_label(knob), "presets": presets,
                    "template": f"games/rules/house/{knob}.html"})
    return out


def knob_label(name: str) -> str:
    return _(KNOB_BY_NAME[name]["label"])


def knob_help(name: str) -> str:
    return _(KNOB_BY_NAME[name]["help"])


def class_label(cls_name: str) -> str:
    return str(CLASS_TEXT.get(cls_name, cls_name))


def show_total(total) -> str:
    """10.5 -> "10½", 0.5 -> "½", 7 -> "7"."""
    if isinstance(total, float) and total % 1:
        whole = int(total)
        return f"{whole}½" if whole else "½"
    return "" if total is None else str(int(total) if isinstance(total, float) else total)


def amount(value) -> str:
    """A whole number as the reader's language writes it (12,345 · 12.345); anything else as it is."""
    return localize(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def signed(paid: int, outcome: str) -> str:
    """What a settled bet paid, with its sign: +1,200 for a win, −1,200 for a loss, 0."""
    return f"+{amount(paid)}" if outcome == "win" and paid else f"−{amount(paid)}" if paid else "0"


def show_value(value) -> str:
    """A knob's value for people."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)  # as the create form takes a list: 1,000 would read as two numbers
    if isinstance(value, str):
        return str(CHOICE_TEXT.get(value, value))
    return amount(value)


def rules_rows(preset: str, rules: dict) -> list[dict]:
    """Every knob of the rule set as a row: label, value, the preset's default, whether the room
    changed it. Payouts become one row per hand class."""
    base = PRESETS[preset].to_json()
    rows = []
    for knob in KNOBS:
        name = knob["name"]
        if name == "game":
            continue
        if name == "payouts":
            for cls_name in find_variant(rules["game"]).payout_classes:
                value, default = rules["payouts"].get(cls_name, 1), base["payouts"].get(cls_name, 1)
                rows.append({"name": f"payouts.{cls_name}",
                             "label": _("Payout: %(cls)s") % {"cls": class_label(cls_name)},
                             "value": f"×{value}", "default": f"×{default}", "changed": value != default,
                             "help": knob_help(name)})
            continue
        value, default = rules.get(name), base.get(name)
        rows.append({"name": name, "label": knob_label(name), "value": show_value(value), "default": show_value(default),
                     "changed": value != default, "help": knob_help(name)})
    return rows


def rules_context(preset: str, rules: dict) -> dict:
    """The rules of a room (its rules tab) or of a preset (the game's rules page)."""
    rows = rules_rows(preset, rules)
    return {"preset": preset, "preset_name": PRESET_NAMES[preset], "rule_rows": rows,
            "overrides": [r for r in rows if r["changed"]],
            "rules_template": f"games/rules/{HOUSE_PRESETS.get(preset, preset)}.html",  # a house preset: its game's
            "bank_turns": preset in BANK_TURN_PRESETS, "bank_turn_hands": rules.get("bank_turn_hands") or 0,
            "house_rules": house_rules(preset, rules), "house_rules_on": any(house_rule_on(rules, k) for k in HOUSE_RULES),
            "the_rules": {**rules, "natural_pays": rules.get("payouts", {}).get("natural", 1)}}


def my_rooms(user) -> list[dict]:
    """The open rooms the user sits in or hosts, newest first."""
    seated = {s.room_id: s for s in Seat.objects.filter(user=user, left_at__isnull=True, room__status=Room.Status.OPEN)}
    rooms = (Room.objects.filter(status=Room.Status.OPEN).filter(Q(pk__in=list(seated)) | Q(host=user))
             .select_related("host").order_by("-pk")[:50])
    return [{"room": r, "seat": seated.get(r.pk), "is_host": r.host_id == user.pk} for r in rooms]


def records_filters(user) -> dict:
    """The choices of the records page's filters: the rooms and games the user has played, the games in the
    reader's order."""
    rows = HandSeat.objects.filter(user=user, hand__ended_at__isnull=False)
    codes = sorted(set(rows.values_list("hand__room__code", flat=True)))
    games = set(rows.values_list("hand__room__preset", flat=True))
    return {"codes": codes, "games": [(slug, name) for slug, name in games_in_order() if slug in games]}


def records_totals(rows) -> list[dict]:
    """Net result per currency of a records query (beans and points never add up together)."""
    totals = rows.values("hand__room__currency").annotate(net=Sum("delta")).order_by("hand__room__currency")
    return [{"currency": t["hand__room__currency"], "net": t["net"] or 0} for t in totals]


CSV_HEADER = ["hand_id", "room", "game", "hand", "ended_at", "role", "chips", "net", "url"]


def records_csv(rows, base_url: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for row in rows:
        hand = row.hand
        writer.writerow([hand.pk, hand.room.code, hand.room.preset, hand.number,
                         hand.ended_at.isoformat() if hand.ended_at else "", row.role, hand.room.currency, row.delta,
                         base_url + hand.get_absolute_url()])
    return out.getvalue()


def room_hands(room: Room, user, limit: int = 50) -> list[Hand]:
    """A room's finished hands whose record `user` may read, newest first (an unfinished hand has no record yet)."""
    return list(selectors.hands_visible_to(user).filter(room=room).order_by("-number")[:limit])


# --- a finished hand, event by event -------------------------------------------------------------------

OUTCOME_TEXT = {"win": gettext_lazy("win"), "lose": gettext_lazy("lose"), "push": gettext_lazy("push"),
                "void": gettext_lazy("void")}
WHY_TEXT = {"bank_empty": gettext_lazy("the bank was empty"), "backed_hand_void": gettext_lazy("the backed hand was void"),
            "escaped": gettext_lazy("left mid-hand"), "banker_escaped": gettext_lazy("the banker left mid-hand"),
            "bust": gettext_lazy("bust"), "special": gettext_lazy("a special hand, paid at once"),
            "banker_special": gettext_lazy("the banker's special hand"), "mort": gettext_lazy("the Mort"),
            "natural": gettext_lazy("natural"),
            "free_hand": gettext_lazy("a free hand (two-card 15), run"),  # house-rules.md "The free hand"
            "opened": gettext_lazy("opened by the banker")}  # house-rules.md "The banker opens hands one by one"
ACTION_TEXT = {"hit": gettext_lazy("hits"), "stand": gettext_lazy("stands"), "double": gettext_lazy("doubles"),
               "split": gettext_lazy("splits"), "mort_accept": gettext_lazy("accepts the Mort"),
               "mort_decline": gettext_lazy("declines the Mort"), "escape": gettext_lazy("runs with a free hand")}


# The house rules' events (house-rules.md), in the words of their table modules (static/js/house-*.js): each one's
# line from (its data, the seat namer, the hand's banker).
HOUSE_SILENT = {"bids_open", "betting_opened"}


def _worth(total, cls) -> str:
    """A hand's worth as house-open.js words it: its class when special, else its total."""
    return str(class_label(cls)) if cls and cls not in ("ordinary", "bust") else show_total(total)


def _bid(mult) -> str:
    return pgettext("a bid for the bank (抢庄)", "×%(n)s") % {"n": mult}


def _bid_made(d, n, _banker) -> str:
    p = {"name": n(d.get("seat")), "bid": _bid(d.get("mult"))}
    if d.get("mult"):
        return _("%(name)s bids %(bid)s for the bank.") % p
    if d.get("timeout"):
        return _("%(name)s makes no bid (time ran out).") % p
    if d.get("left"):
        return _("%(name)s left: no bid.") % p
    return _("%(name)s makes no bid.") % p


def _auction_won(d, n, _banker) -> str:
    p = {"name": n(d.get("seat")), "mult": d.get("mult"), "bid": d.get("bid"), "bank": amount(d.get("bank")),
         "names": ", ".join(n(s) for s in d.get("tied") or [])}
    if d.get("by") == "order":
        text = _("Nobody bid: %(name)s banks %(bank)s in the usual order, at ×1.") % p
    elif d.get("by") == "tie":
        text = _("%(names)s tied at ×%(bid)s; the hand's shuffle picks %(name)s, who banks %(bank)s.") % p
    else:
        text = _("%(name)s wins the bank with ×%(bid)s and banks %(bank)s.") % p
    if (d.get("mult") or 1) > 1:
        text += " " + _("Every stake against this bank counts ×%(mult)s, win or lose, while %(name)s holds it.") % p
    if (d.get("mult") or 0) < (d.get("bid") or 0):
        text += " " + _("The bid was lowered to ×%(mult)s: no challenger's stack could cover a stake at ×%(bid)s.") % p
    return text


def _auction_started(d, _n, _banker) -> str:
    text = _("Each player may bid ×1 to ×%(max)s for the bank, or make no bid.") % {"max": d.get("max")}
    if d.get("sees_first_card"):
        text += " " + _("Each bidder sees their own first card before bidding.")
    return text


def _matta_valued(d, n, banker) -> str:
    p = {"name": n(d.get("seat")), "value": show_total(d.get("value"))}
    if d.get("seat") == banker:
        return _("The bank's matta (the king of coins) counts as %(value)s.") % p
    return _("%(name)s's matta (the king of coins) counts as %(value)s.") % p


HOUSE_EVENTS = {
    "auction_started": _auction_started,
    "bid_made": _bid_made,
    "auction_won": _auction_won,
    "bank_opened": lambda d, n, b: _("%(name)s opens the bank with %(amount)s.") % {  # after auction_won, in the hand
        "name": n(d.get("seat")), "amount": amount(d.get("amount"))},
    "auction_due": lambda d, n, b: _("The bank will be bid for at the start of the next hand."),
    "hand_opened": lambda d, n, b: _("%(banker)s opens %(name)s's hand: it is settled now against the bank's %(bank)s.") % {
        "banker": n(d.get("by")), "name": n(d.get("seat")), "bank": _worth(d.get("banker_total"), d.get("banker_class"))},
    "matta_valued": _matta_valued,
    "ride_offered": lambda d, n, b: _("%(name)s won the last hand and may let it ride, up to %(cap)s.") % {
        "name": n(d.get("seat")), "cap": amount(d.get("cap"))},
    "ride_taken": lambda d, n, b: _("%(name)s lets it ride: %(amount)s.") % {
        "name": n(d.get("seat")), "amount": amount(d.get("amount"))},
}


def hand_events(events: list[dict], names: dict[str, str]) -> list[dict]:
    """The events of one hand, from its start to its end, as {"type", "text", "cards", "minor"} lines.
    Cards are codes; the template draws them. Only for a finished hand (every card is public then)."""
    def n(seat_id) -> str:
        return names.get(seat_id, seat_id or "?")

    lines = []
    started = False
    banker, opened = None, {}
    for e in events:
        d = e["data"]
        t = e["type"]
        if t == "hand_started":
            started = True
            banker = d.get("banker")
        if not started:
            continue
        if t in HOUSE_SILENT or (t == "action" and d.get("action") == "open"):
            continue  # the table's feed says nothing of these either (static/js/house-*.js): the next line tells it
        text, cards, minor = None, [], False
        if t == "hand_started" and not d.get("banker") and d.get("auction"):
            text = _("Hand %(n)s starts with the bank auction: the bank goes to the highest bid.") % {"n": d.get("hand_no")}
        elif t == "hand_started":
            text = _("Hand %(n)s starts: %(banker)s banks %(bank)s, base stake %(base)s.") % {
                "n": d.get("hand_no"), "banker": n(d.get("banker")), "bank": amount(d.get("bank")), "base": amount(d.get("base_stake"))}
        elif t in HOUSE_EVENTS:
            if t == "auction_won":
                banker = d.get("seat")
            elif t == "hand_opened":
                opened[d.get("seat")] = d
            text = HOUSE_EVENTS[t](d, n, banker)
        elif t == "seat_sits_out":
            text = _("%(name)s sits this hand out.") % {"name": n(d.get("seat"))}
        elif t in ("bet_confirmed", "bet_defaulted"):
            text = (_("%(name)s stakes %(amount)s.") if t == "bet_confirmed"
                    else _("%(name)s stakes %(amount)s by default (time ran out).")) % {
                "name": n(d.get("seat")), "amount": amount(d.get("amount"))}
        elif t == "bet_changed":
            text, minor = _("%(name)s's bet: %(amount)s") % {"name": n(d.get("seat")), "amount": amount(d.get("amount"))}, True
        elif t == "side_bet_confirmed":
            text = _("%(name)s side-bets %(amount)s on %(backs)s.") % {
                "name": n(d.get("seat")), "amount": amount(d.get("amount")), "backs": n(d.get("backs"))}
        elif t == "side_bet_skipped":
            text = _("%(name)s places no side bet.") % {"name": n(d.get("seat"))}
        elif t == "side_bet_changed":
            text, minor = _("%(name)s backs %(backs)s.") % {"name": n(d.get("seat")), "backs": n(d.get("backs"))}, True
        elif t == "dice_rolled":
            dice = d.get("dice") or []
            text = _("Dice: %(dice)s = %(total)s.") % {"dice": " + ".join(map(str, dice)), "total": d.get("total")}
        elif t == "betting_closed":
            text = _("Betting closed. Order: %(order)s.") % {"order": ", ".join(n(s) for s in d.get("order", []))}
        elif t == "card_dealt":
            text = (_("%(name)s receives a card face down.") if d.get("face") == "down"
                    else _("%(name)s receives a card face up.")) % {"name": n(d.get("seat"))}
            cards = [d["card"]] if d.get("card") else []
        elif t == "card_discarded":
            text = _("%(name)s discards a card.") % {"name": n(d.get("seat"))}
            cards = [d["card"]] if d.get("card") else []
        elif t == "turn_started":
            text, minor = _("%(name)s's turn.") % {"name": n(d.get("seat"))}, True
        elif t == "action":
            text = _("%(name)s %(action)s.") % {"name": n(d.get("seat")),
                                                "action": ACTION_TEXT.get(d.get("action"), d.get("action"))}
        elif t == "stake_doubled":
            text = _("%(name)s's stake is now %(stake)s.") % {"name": n(d.get("seat")), "stake": amount(d.get("stake"))}
        elif t == "hand_split":
            text = _("%(name)s splits into two hands.") % {"name": n(d.get("seat"))}
        elif t == "shoe_reshuffled":
            text = ngettext("The discards are shuffled into a new stock of %(n)s card.",
                            "The discards are shuffled into a new stock of %(n)s cards.", d.get("cards") or 0) % {
                "n": d.get("cards")}
        elif t == "seat_leaving":
            text = _("%(name)s leaves after this hand.") % {"name": n(d.get("seat"))}
        elif t == "seat_escaped":
            text = _("%(name)s escapes mid-hand.") % {"name": n(d.get("seat"))}
        elif t == "free_hand_escaped":  # after the action's "runs with a free hand" (house-rules.md "The free hand")
            text = (_("Every stake not yet settled comes back.") if d.get("banker")
                    else _("%(name)s's stake comes back: no win, no loss.") % {"name": n(d.get("seat"))})
        elif t == "hand_revealed":
            text = _("Every hand is revealed.")
        elif t == "bet_settled":
            who = n(d.get("bettor"))
            if d.get("kind") == "side":
                who = _("%(name)s (side bet on %(backs)s)") % {"name": who, "backs": n(d.get("backs"))}
            text = _("%(who)s: %(outcome)s ×%(mult)s, %(amount)s.") % {
                "who": who, "outcome": OUTCOME_TEXT.get(d.get("outcome"), d.get("outcome")),
                "mult": d.get("multiplier", 0), "amount": signed(d.get("paid", 0), d.get("outcome"))}
            if d.get("why") == "opened" and d.get("bettor") in opened:
                at = opened[d.get("bettor")]
                text += " " + _("Opened: %(hand)s against the bank's %(bank)s.") % {
                    "hand": _worth(at.get("total"), at.get("class")),
                    "bank": _worth(at.get("banker_total"), at.get("banker_class"))}
        elif t == "hand_settled":
            text = _("Settled: the bank holds %(bank)s.") % {"bank": amount(d.get("bank"))}
        elif t == "jackpot_won":
            text = _("%(name)s wins the jackpot.") % {"name": n(d.get("seat"))}
        elif t == "hand_voided":  # games/engine/void.py
            text = _("The room closed before anyone staked: the hand is voided, and no chip moved.")
        elif t == "hand_over":
            text = _("The hand is over; the seed is revealed.")
        elif t == "hand_shown":
            text = _("%(name)s shows the hand.") % {"name": n(d.get("seat"))}
        else:
            text, minor = t.replace("_", " "), True
        lines.append({"type": t, "text": text, "cards": cards, "minor": minor, "seat": d.get("seat")})
        if t == "hand_over":
            break
    return lines


def hand_page(record: dict) -> dict:
    """The context of a hand record page, from selectors.hand_record."""
    hand, summary = record["hand"], record["summary"]
    names = {p.seat_id: p.user.public_name for p in record["players"]}
    over = next((e["data"] for e in record["events"] if e["type"] == "hand_over"), {})
    summary_hands = summary.get("hands", {})
    for seat_id in list(summary_hands) + list(summary.get("deltas", {})):
        names.setdefault(seat_id, seat_id)
    results = []
    for r in summary.get("results", []):
        paid = r.get("paid", 0)
        results.append({**r, "name": names.get(r["bettor"], r["bettor"]), "backs_name": names.get(r.get("backs"), ""),
                        "why_text": WHY_TEXT.get(r.get("why", ""), ""),
                         "outcome_text": OUTCOME_TEXT.get(r["outcome"], r["outcome"]),
                         "signed": signed(paid, r["outcome"])})
    seats = []
    for seat_id in summary.get("order", []):
        for i, h in enumerate(summary_hands.get(seat_id, [])):
            seats.append({"seat": seat_id, "name": names.get(seat_id, seat_id), "index": i, "cards": h["cards"],
                          "total": show_total(h.get("total")), "class": h.get("class", ""),
                          "class_label": class_label(h.get("class", "")), "bust": h.get("bust"),
                          "stake": h.get("stake"), "banker": seat_id == summary.get("banker"),
                          "delta": summary.get("deltas", {}).get(seat_id, 0)})
    verify = {
        "commitment": hand.commitment, "seed": hand.seed or summary.get("seed", ""),
        "dealt": over.get("dealt", summary.get("dealt", [])), "deck": over.get("deck") or hand.rules.get("deck"),
        "source": over.get("source"), "reshuffles": over.get("reshuffles", summary.get("reshuffles", [])),
        "dice": summary.get("dice"), "stacked": bool(summary.get("stacked")), "game": hand.rules.get("game"),
    }
    return {
        "hand": hand, "room": hand.room, "lines": hand_events(record["events"], names), "results": results,
        "events": [e["data"] for e in record["events"]],  # hand.js tells them as the table's feed does (static/js/feed.js)
        "seats": seats, "deltas": [{"name": names.get(k, k), "delta": v} for k, v in summary.get("deltas", {}).items()],
        "verify": verify, "players": record["players"], "dice": summary.get("dice"),
        "order_names": [names.get(s, s) for s in summary.get("order", [])],
        "room_url": reverse("games:room", kwargs={"code": hand.room.code}) if hand.room.is_open else None,
    }
