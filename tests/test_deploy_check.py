"""Production settings pass Django's deployment checklist."""

import os
import subprocess
import sys

from tests.servers import ROOT


def test_check_deploy_is_clean_with_production_settings():
    env = dict(os.environ, DEBUG="0", SECRET_KEY="k" * 20 + "-production-secret-" + "x9Q#" * 10,
               ALLOWED_HOSTS="halfpoint.example", DATABASE_URL="sqlite:////tmp/halfpoint-deploy-check.sqlite3")
    r = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "System check identified no issues" in r.stdout


def test_production_settings_refuse_the_development_secret_key():
    env = dict(os.environ, DEBUG="0", SECRET_KEY="", ALLOWED_HOSTS="halfpoint.example")
    r = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "SECRET_KEY must be set" in r.stderr
