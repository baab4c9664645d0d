"""The load generator behind `python manage.py loadtest`: live tables played by bot-like clients over real sockets
(docs/performance.md has the figures and the commands that made them). The product never imports it.

Setup, in the command's process, through the ORM and HTTP (setup.py):
- a pool of accounts `loadtest-00000`, `loadtest-00001`, ... (4 a table), created when missing, their
  practice points refilled;
- each account logged in over HTTP through allauth's login form, which gives a real session cookie.
  Every login costs the server one full password hash, so a session that an earlier run's login created is
  reused while it is valid (`--fresh-logins` logs everyone in again). allauth allows 30 logins a minute per
  address: logins come from many loopback addresses (127.x.y.z), as players would come from many machines;
- N rooms (practice points, long turn timers so that no timeout races a client's command), and rooms
  an interrupted earlier run left open are closed first. The rooms are closed at the end.

Play, in `--workers` processes (runner.py; asyncio and websockets' Sans-I/O protocol, sockets.py; no Django
there): every user's socket connects with its cookie, sits, the host starts; at a common start time every table
plays hands with the engine's basic bot deciding from the client's own view (players.py), paced so that a table
sends R commands a second on average (`--rate max`: as soon as a client has something to do). The latency of a
command is the time from sending it to the moment the last of the table's seats has received a frame with the
version its ack carries, or newer. Commands sent in the measured window count; the run then waits at most
GRACE_SECONDS for their updates, and any update never seen is reported as lost (report.py). The servers'
processes are watched meanwhile (processes.py).

`--reconnect` (benchmarks/nodes.py, which kills a server mid-run): a dropped socket opens again through the same
address, every seat looks again twice a second, and each table reports when it lost a socket and when it next had
a command acked; a snapshot older than what the seat had seen counts as a regression.

`--bare` drives benchmarks/bare_asgi.py instead: the same clients and pacing against a relay with no
game behind it (each seat sends in turn; the relay broadcasts to the table's group), the baseline.
"""


class LoadTestError(Exception):
    pass
