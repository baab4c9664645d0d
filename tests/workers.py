"""pytest-xdist's workers on the services, each with a Redis database of its own (loaded with `-p tests.workers`
before Django reads its settings: docs/testing.md).

pytest-django gives each worker a PostgreSQL test database of its own (`test_test_gw0`, `test_test_gw1`), and the
servers a test starts are handed the worker's (tests/servers.py). Redis has no such naming, and what a test process
keeps there must not meet another's: the cache (allauth's rate limits, the processes' beats, which a test clears),
the channel layer's groups and the Celery broker. So worker gwN takes database N + 1 above REDIS_URL's (the URL's
database 0: gw0 takes 1, gw1 takes 2), before config/settings.py reads REDIS_URL; its children inherit it.
"""

import os
import re

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
_url = os.environ.get("REDIS_URL", "")
if _worker.startswith("gw") and _url and "," not in _url:
    _base = re.match(r"^(redis://[^/]+)(?:/(\d+))?$", _url)
    if _base is None:
        raise RuntimeError(f"REDIS_URL {_url!r}: a pytest-xdist worker needs redis://host:port[/db] to take its own db")
    os.environ["REDIS_URL"] = f"{_base.group(1)}/{int(_base.group(2) or 0) + int(_worker[2:]) + 1}"
