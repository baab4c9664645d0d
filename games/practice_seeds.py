"""The server seed of a player's next practice table, committed on the lobby page before the browser draws the seed it
sends with the practice click (docs/fairness.md, "Who commits what, when").

The seed waits in the player's session (stored on the server, never in the cookie) until a practice click uses it,
once: the lobby shows its SHA-256 in each practice form, and the click brings that commitment back with the browser's
seed. A click whose commitment is not the session's (a lobby page older than the last practice table, another tab)
gets no server seed here, and its browser seed is left out of the deal: the server would have seen it first.
"""

import secrets

from games.engine.shuffle import commitment

SESSION_KEY = "practice_server_seed"


def practice_commitment(session) -> str:
    """The SHA-256 of the next practice table's server seed, drawn now unless one is waiting already."""
    seed = session.get(SESSION_KEY)
    if not isinstance(seed, str):
        seed = session[SESSION_KEY] = secrets.token_hex(32)
    return commitment(seed)


def take_practice_seed(session, shown) -> str | None:
    """The server seed whose commitment the practice form brought (`shown`), taken out of the session; None when
    the form brought another one, or none."""
    seed = session.get(SESSION_KEY)
    if not isinstance(seed, str) or not isinstance(shown, str):
        return None
    if commitment(seed) != shown.strip().lower():
        return None
    del session[SESSION_KEY]
    return seed
