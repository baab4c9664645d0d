"""Rooms, their live table and the record of every hand.

- `Room`: what the host created (code, invite link, preset and rules, beans or points, humans or AI).
- `Table`: the live engine state of a room (one row, the lock every command takes), its version and
  the next moment something is due (`wake_at`: a deadline, a bot's turn, the next hand).
- `Seat`: a user (or a bot account) at the table, with the wallet hold behind its stack.
- `Hand`, `HandEvent`, `HandSeat`: the record of each hand (frozen rules, shuffle commitment, seed
  revealed afterwards, the room's hash chain, every event in order, each seat's net result), read by its
  unguessable `key`.
- `HandShare`, `RoomVisit`: who else may read a hand record: a share link, the users who came to the room
  (docs/rules.md, "Who may read a hand record").
- `LedgerShare`: a link to a closed room's settle-up (docs/ledger.md).
- `ChatMessage`: the room's chat.
- `ClockAsk`: a seated player's ask for a longer clock, pending until the host answers.
- `NightLink`: a room opened as the same night again from a closed one (games/nights.py).
- `BuyInRequest`: a buy-in or top-up waiting for the host's approval (rooms that ask for it).
- `RoomVote`: a vote at a table (ending the room, skipping an away player's timers), with its ballots.
- `TvConsent`: a seated player's answer to TV mode (spectators see their cards one action late).

One module per part: rooms.py, clubs.py, hands.py, moderation.py, clock_asks.py, buy_in_requests.py, votes.py; import
them from here.

Writes go through games.services only. `Table.state` holds secrets (the stock, face-down cards):
it never leaves the server except through `engine.view`.
"""

from games.models.buy_in_requests import BuyInRequest
from games.models.clock_asks import ClockAsk
from games.models.clubs import Club, ClubJoinRequest, ClubMember
from games.models.hands import Hand, HandEvent, HandSeat, HandShare, LedgerShare, RoomVisit, ShareLink
from games.models.moderation import ChatMessage, HouseVariant, ModerationLog, Report
from games.models.nights import NightLink
from games.models.rooms import PRESET_CHOICES, GameSetting, Room, Seat, Table, is_room_code, new_invite_token
from games.models.spectators import TvConsent
from games.models.votes import RoomVote

__all__ = [
    "PRESET_CHOICES", "BuyInRequest", "ChatMessage", "ClockAsk", "Club", "ClubJoinRequest", "ClubMember",
    "GameSetting", "Hand", "HandEvent", "HandSeat", "HandShare", "HouseVariant", "LedgerShare", "ModerationLog",
    "NightLink", "Report", "Room", "RoomVisit", "RoomVote", "Seat", "ShareLink", "Table", "TvConsent",
    "is_room_code",
    "new_invite_token",
]
