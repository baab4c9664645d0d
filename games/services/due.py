"""What is due at a table, and when: a bot's turn (`_bots_due`), whether the next hand can start, and the
table's next wake time (`_wake_at`). Reads a run, changes nothing. Above run.py.
"""

from django.conf import settings

from games.engine import bot_decide, view
from games.engine.machine import IN_HAND
from games.services.run import _Run


def away_release_seconds() -> float:
    """How long a seat stays away before it is released (settings.GAMES_AWAY_RELEASE_MINUTES)."""
    return settings.GAMES_AWAY_RELEASE_MINUTES * 60


def _bots_due(run_state, meta: dict) -> tuple[str, str, dict] | None:
    """The first bot that has something to do now: (seat id, action, args)."""
    for seat_id, info in meta["seats"].items():
        if not info["bot"]:
            continue
        if run_state.seat(seat_id) is None:
            continue
        v = view(run_state, seat_id)
        if not v["legal_actions"]:
            continue
        decision = bot_decide(v, info["bot"], run_state.rules)
        if decision is not None:
            return seat_id, decision[0], decision[1]
    return None


def _can_start(run: _Run) -> bool:
    s = run.state
    humans = [x for x in s.main_seats() if not run.meta["seats"].get(x["id"], {}).get("bot")
              and not x.get("away") and not x["leaving"]]
    # A banker who put the whole stack in the bank has a stack of 0 and still plays (whole-stack banks).
    mains = [x for x in s.main_seats() if not x["leaving"] and not x.get("away")
             and (x["stack"] > 0 or x["id"] == s.banker and s.bank > 0)]
    return bool(humans) and len(mains) >= 2


def _next_hand_at(run: _Run) -> float | None:
    s, meta = run.state, run.meta
    if not meta["started"] or s.phase not in ("waiting", "between_hands") or s.pending is not None:
        return None
    if not _can_start(run) or meta.get("start_refused"):
        return None
    if meta["next_hand_at"] is not None:
        return meta["next_hand_at"]
    # Players get GAMES_NEXT_HAND_SECONDS to read a hand's results, even when a bank decision came first.
    return max(run.now + settings.GAMES_BOT_SECONDS, meta["hand_over_at"] + settings.GAMES_NEXT_HAND_SECONDS)


def _skipped(run: _Run) -> bool:
    """The clock waits only for seats whose timers a vote skips in this hand (services/votes.py): time is up now."""
    s, skip = run.state, run.meta.get("skip")
    return bool(skip and s.deadline is not None and s.deadline_for and skip["hand"] == s.hand_no
                and set(s.deadline_for) <= set(skip["seats"]))


def _wake_at(run: _Run) -> float | None:
    times = []
    if _skipped(run) or run.meta.get("vote_close") and run.state.phase not in IN_HAND:
        times.append(run.now)  # a vote's work is due at once (moves.py, `_due`)
    if _bots_due(run.state, run.meta) is not None:
        times.append(run.now + settings.GAMES_BOT_SECONDS)
    if run.state.deadline is not None:
        times.append(run.state.deadline)
    if run.meta["next_hand_at"] is not None:
        times.append(run.meta["next_hand_at"])
    release = away_release_seconds()
    for seat_id, since in run.meta["away"].items():
        # Only what _due would release: a seat already leaving after the hand keeps its past release time,
        # which would pull every later wake to "now, nothing due" and leave the hand's deadlines to the sweeper.
        seat = run.state.seat(seat_id)
        if seat is not None and not seat["leaving"]:
            times.append(since + release)
    return min(times) if times else None

