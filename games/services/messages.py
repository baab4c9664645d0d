"""The table socket's messages beyond commands, chat and reports (docs/protocol.md): type -> (the service called
with `room_id`, `user` and these fields of the frame). The consumer calls the service on a database thread; a
refusal is its GameError, sent as an `error` frame; the answers go out as room frames (games/broadcast.py,
`room_frame`). The top layer: above every module whose services it lists.
"""

from games.services.approvals import buy_in_approve, buy_in_refuse
from games.services.clock_ask import clock_ask, clock_dismiss, clock_grant
from games.services.phrases import phrase_send, reaction_send
from games.services.spectators import spectator_remove, spectators_set, tv_consent
from games.services.votes import vote_anytime, vote_call, vote_cast

MESSAGES = {
    "clock_ask": (clock_ask, ()),  # answered by the room's `clock_asked` and `clock_answered` frames
    "clock_grant": (clock_grant, ("seconds",)),
    "clock_dismiss": (clock_dismiss, ()),
    "phrase": (phrase_send, ("code",)),  # answered by the room's `phrase_said` frame
    "react": (reaction_send, ("code",)),  # answered by the room's `reacted` frame
    "buy_in_approve": (buy_in_approve, ("request",)),  # answered by the room's `buy_in_answered` frame
    "buy_in_refuse": (buy_in_refuse, ("request",)),
    "vote_call": (vote_call, ("kind", "seat")),  # answered by the room's `vote_opened`, `vote_tally`, `vote_ended`
    "vote_cast": (vote_cast, ("vote", "yes")),
    "vote_anytime": (vote_anytime, ("allow",)),
    "tv_consent": (tv_consent, ("on",)),  # answered by the room's `tv_consent` frame
    "spectator_remove": (spectator_remove, ("target",)),  # the room's `spectator_removed` and `spectators` frames
    "spectators_set": (spectators_set, ("mode",)),  # the room's `spectators_mode` frame
}
