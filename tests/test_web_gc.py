"""A web process freezes its long-lived objects and keeps full garbage collections rare (config/asgi.py):
those full passes were most of the p99 latency of a busy table (docs/performance.md, "Garbage collection in the
web process")."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import gc, json, os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
before = gc.get_threshold()
import config.asgi
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": gc.get_freeze_count(),
                  "views": "games.views" in sys.modules and "games.consumers" in sys.modules}))
"""


def probe(**env) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                         text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_web_process_freezes_what_lives_for_ever_and_makes_full_passes_rare():
    found = probe()
    assert found["before"][2] == 10  # Python's own default, before the web application loads
    assert found["after"] == [found["before"][0], found["before"][1], 1000]
    assert found["frozen"] > 50_000
    assert found["views"]  # imported before the freeze, so frozen with the rest


def test_the_full_pass_interval_is_a_setting():
    assert probe(WEB_GC_FULL_AFTER="25")["after"][2] == 25
