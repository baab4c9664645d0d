"""Every write to a room and its table (DESIGN.md, "The spine").

One command, from a player, a timeout, a bot or the host, goes the same way (`run._locked` then `save._save`):
1. lock the Table row (select_for_update, store.py): one writer per table across every daphne and Celery
   process; wallets are locked after it, in primary-key order (wallets/services.py);
2. check, then `engine.apply` (`run._Run.apply`; pure: a refused command raises EngineError and changes nothing);
3. move chips in the ledger so that every hold equals what its seat owns in the engine
   (stack, plus the bank for the banker, plus a seeded jackpot), one transaction per command (`save._move_chips`);
4. save the state with version + 1, the events, the hand record (save.py, through store.py);
5. on commit: one group message to the room (games/broadcast.py; each consumer sends its viewer's frame)
   and one Celery task at the next moment something is due (`save._arm` sends `wake_armed`, games/tasks.py
   receives it: the services never import the tasks that call them).

The modules, in layers: each imports only modules listed before it.
- errors.py    GameError, Result
- store.py     the row lock, the state's UPDATE, the events' INSERT: the only SQL
- run.py       the locked run (`_locked`, `_Run`), the time it reads (`_now`), what each seat owns; Table.meta
- presence.py  presence_set, process_beat: each seat owner's open sockets, on any process; the seats with none
- watchers.py  watch_beat: who watches a room without a seat, kept by each process in memory and the cache
- due.py       what is due and when: a bot's turn, the next hand, the next wake time
- save.py      the write of a run: ledger, hand record, row; broadcast and wake on commit
- moves.py     seats, bots, top-ups, the host's start, sit-out and close, absent seats away, the one thing due now
- clock.py     table_wake, sweep (games/tasks.py runs them)
- approvals.py buy_in_approve, buy_in_refuse, buy_in_requests_pending: buy-ins and top-ups the host approves
- commands.py  action_submit
- rooms.py     room_create, practice_open, check_seed, room_check_access, room_close, seat_remove, room_rules_update, seat_take, seat_leave
- chat.py      chat_post
- names.py     display_name_sync (a renamed player's seats)
- clock_ask.py clock_ask, clock_grant, clock_dismiss, clock_asks_pending: asking the host for a longer clock
- phrases.py   phrase_send, reaction_send: quick phrases and reactions, as room frames of codes, stored nowhere
- votes.py     vote_call, vote_cast, vote_anytime, votes_open: a vote to end the room, or to skip an away player's timers
- spectators.py watch_check, watch_open, watch_close, spectator_remove, spectators_set, tv_consent: who may watch,
               who watches, TV mode's consent (games/tv.py has its cards)
- messages.py  MESSAGES: the socket's other message types and the service each calls
Callers use this package's names (`services.action_submit`, `from games.services import GameError`). Tests
move the time at games.services.run._now and stack a hand's deck at games.services.moves._start_hand.
"""

from games.services.approvals import buy_in_approve, buy_in_refuse, buy_in_requests_pending
from games.services.chat import chat_post
from games.services.clock import sweep, table_wake
from games.services.clock_ask import clock_ask, clock_asks_pending, clock_dismiss, clock_grant
from games.services.commands import (
    ACTIONS_PER_USER,
    ARG_TYPES,
    PLAYER_ACTIONS,
    ROOM_ACTIONS,
    action_submit,
    storable_text,
)
from games.services.due import away_release_seconds
from games.services.errors import GameError, Result
from games.services.messages import MESSAGES
from games.services.names import display_name_sync
from games.services.presence import PROCESS_BEAT, presence_set, process_beat
from games.services.rooms import (
    check_seed,
    practice_open,
    room_check_access,
    room_close,
    room_create,
    room_rules_update,
    seat_leave,
    seat_remove,
    seat_take,
)
from games.services.save import RELEASE_AWAY
from games.services.spectators import (
    spectator_remove,
    spectators_set,
    tv_consent,
    watch_check,
    watch_close,
    watch_open,
)
from games.services.votes import vote_anytime, vote_call, vote_cast, votes_open
from games.services.watchers import watch_beat

__all__ = [
    "ACTIONS_PER_USER", "ARG_TYPES", "MESSAGES", "PLAYER_ACTIONS", "PROCESS_BEAT", "RELEASE_AWAY", "ROOM_ACTIONS",
    "GameError", "Result", "action_submit", "away_release_seconds", "buy_in_approve", "buy_in_refuse",
    "buy_in_requests_pending", "chat_post", "check_seed", "clock_ask", "clock_asks_pending", "clock_dismiss",
    "clock_grant", "display_name_sync", "practice_open", "presence_set", "process_beat", "room_check_access",
    "room_close", "room_create", "room_rules_update", "seat_leave", "seat_remove", "seat_take", "spectator_remove",
    "spectators_set", "storable_text", "sweep", "table_wake", "tv_consent", "vote_anytime", "vote_call", "vote_cast",
    "votes_open", "watch_beat", "watch_check", "watch_close", "watch_open",
]
