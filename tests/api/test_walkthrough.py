"""docs/api.md walked as a stranger's client would, against a real daphne process: HTTP with a token only (no
session cookie, no HTML), then the table socket with the token in its Authorization header and no Origin. Four
users sign in for tokens, one creates a room, the others join it by code, they play a hand, and each reads their
records and the hand's record; a user who never came to the room gets 404 for it."""

import contextlib
import json
import urllib.error
import urllib.request

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from websockets.sync.client import connect

from games.models import Room
from tests.games.conftest import make_player
from tests.games.processes import (
    Player,
    assert_hand_over_and_settled,
    assert_private_cards,
    play_out,
    sit_and_deal,
)

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pw-long-enough-1"


def api(base: str, method: str, path: str, *, token: str | None = None, body: dict | None = None):
    """One request as any HTTP client sends it: (status, the JSON answer). No cookie jar: no session."""
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            assert "Set-Cookie" not in response.headers, response.headers
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def signed_up(name: str):
    """A user whose password the server can check: the test process hashes with MD5 (tests/conftest.py), which the
    daphne process does not accept."""
    user = make_player(name)
    hasher = PBKDF2PasswordHasher()
    user.password = hasher.encode(PASSWORD, hasher.salt())
    user.save(update_fields=["password"])
    return user


class TokenPlayer(Player):
    """A Player (tests/games/processes.py) whose socket sends the token and neither a cookie nor an Origin."""

    def __init__(self, name: str, token: str):  # not Player's: that one logs in for a session cookie
        self.user, self.token = name, token
        self.ws = None
        self._sockets = contextlib.ExitStack()
        self.frames = []
        self.reset()

    def connect(self, socket_url: str) -> dict:
        self.reset()
        self.close()
        self.ws = self._sockets.enter_context(connect(socket_url, open_timeout=10, close_timeout=2,
                                                      additional_headers={"Authorization": f"Bearer {self.token}"}))
        self.snapshot = self.next(lambda f: f["type"] == "snapshot", what="the snapshot")
        return self.snapshot


def test_a_client_written_from_the_docs_plays_a_hand_and_reads_its_record(web):
    names = ("alice", "bob", "chen", "dara")
    for name in (*names, "erin"):
        signed_up(name)
    tokens = {}
    for name in (*names, "erin"):  # "Authentication": sign in with a username or an e-mail address
        login = f"{name}@example.com" if name in ("alice", "erin") else name
        status, answer = api(web.base, "POST", "/api/tokens/", body={"login": login, "password": PASSWORD,
                                                                    "name": "walkthrough"})
        assert status == 201, answer
        tokens[name] = answer["token"]

    status, room = api(web.base, "POST", "/api/rooms/", token=tokens["alice"], body={"preset": "ten-half"})
    assert status == 201, room
    configs = {"alice": room}
    for name in names[1:]:  # "Join a room by code"
        status, configs[name] = api(web.base, "GET", f"/api/rooms/{room['code']}/", token=tokens[name])
        assert status == 200 and configs[name]["me"]["seat"] is None, configs[name]
    assert room["socket_url"] == web.base.replace("http://", "ws://") + f"/ws/rooms/{room['code']}/"

    players = [TokenPlayer(name, tokens[name]) for name in names]
    try:
        for p in players:
            snapshot = p.connect(configs[p.user]["socket_url"])
            assert snapshot["me"]["user"] == configs[p.user]["me"]["user"]
        table = Room.objects.get(code=room["code"], status="open")
        sit_and_deal(players, table)
        for p in players:
            assert_private_cards(p)
        play_out(players, table)
        assert_hand_over_and_settled(players, table)
        last_hand = players[0].view["last_hand"]
    finally:
        for p in players:
            p.close()

    status, config = api(web.base, "GET", f"/api/rooms/{room['code']}/", token=tokens["bob"])
    assert {s["id"] for s in config["seats"]} == {p.seat for p in players}
    assert config["me"]["seat"] == players[1].seat
    keys = set()
    for p in players:  # "Records" and "A hand record"
        status, records = api(web.base, "GET", "/api/records/", token=tokens[p.user])
        assert status == 200 and records["count"] == 1, records
        (row,) = records["records"]
        assert (row["room"], row["number"], row["seat"], row["net"]) == (
            room["code"], 1, p.seat, last_hand["deltas"][p.seat])
        status, record = api(web.base, "GET", row["url"], token=tokens[p.user])
        assert status == 200 and record["seed"] == last_hand["seed"], record
        assert {pl["seat"]: pl["net"] for pl in record["players"]} == last_hand["deltas"]
        assert record["events"][-1]["type"] == "hand_over"
        keys.add(row["key"])
    (key,) = keys
    status, answer = api(web.base, "GET", f"/api/hands/{key}/", token=tokens["erin"])
    assert (status, answer["error"]["code"]) == (404, "no_hand")
    status, answer = api(web.base, "GET", f"/api/hands/{key}/")
    assert (status, answer["error"]["code"]) == (401, "login_required")
    assert "Traceback" not in web.log(), web.log()
