"""Production settings pass Django's deployment checklist, and with them the app serves its own static files and
its security headers."""

import os
import re
import subprocess
import sys
import urllib.request

import pytest

from tests.servers import ROOT, child_env, daphne

PRODUCTION = {"DEBUG": "0", "SECRET_KEY": "k" * 20 + "-production-secret-" + "x9Q#" * 10}


def test_check_deploy_is_clean_with_production_settings():
    env = dict(os.environ, **PRODUCTION, ALLOWED_HOSTS="halfpoint.example",
               DATABASE_URL="sqlite:////tmp/halfpoint-deploy-check.sqlite3")
    r = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "System check identified no issues" in r.stdout


def test_production_settings_refuse_the_development_secret_key():
    env = dict(os.environ, DEBUG="0", SECRET_KEY="", ALLOWED_HOSTS="halfpoint.example")
    r = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "SECRET_KEY must be set" in r.stderr


@pytest.mark.django_db(transaction=True)
def test_with_debug_off_the_app_serves_its_static_files_and_security_headers(tmp_path):
    # Plain HTTP straight to daphne: no proxy here to say the request came over HTTPS.
    env = {**PRODUCTION, "STATIC_ROOT": str(tmp_path / "static"), "SECURE_SSL_REDIRECT": "0"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT,
                   env=child_env(**env), check=True)
    with daphne(**env) as base:
        page = urllib.request.urlopen(base + "/")
        html = page.read().decode()
        csp = dict(d.strip().split(" ", 1) for d in page.headers["Content-Security-Policy"].split(";"))
        assert csp["script-src"] == csp["style-src"] == csp["connect-src"] == "'self'"  # nothing inline
        assert csp["frame-ancestors"] == "'none'" and page.headers["X-Frame-Options"] == "DENY"
        assert page.headers["Referrer-Policy"] == "same-origin"
        assert "camera=()" in page.headers["Permissions-Policy"]
        css = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', html).group(1)  # collected, hashed
        static = urllib.request.urlopen(urllib.request.Request(base + css, headers={"Accept-Encoding": "gzip"}))
        assert static.headers["Cache-Control"] == "max-age=315360000, public, immutable"
        assert static.headers["Content-Encoding"] == "gzip"
