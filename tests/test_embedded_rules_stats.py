"""`make run` with the embedded defaults (SQLite, the in-memory channel layer, Celery's broker in a SQLite file, the
cache in a database table): the lobby's rules statistics, simulated by the worker, reach the page in the web
process, and the banner names the port actually served (HALFPOINT_PORT).

Runs in the pass without DATABASE_URL and REDIS_URL, like tests/test_embedded_stack.py, whose stack it starts.
"""

import os
import re
import time

import pytest

from tests.test_embedded_stack import DEMO_LOGIN, MakeRun, fresh_clone

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL")),
                       reason="tests the embedded default: the pass without DATABASE_URL and REDIS_URL"),
    pytest.mark.e2e,
]

CHROMIUM = "/usr/bin/chromium"


def test_make_run_shows_the_lobby_rules_statistics_finish_and_names_its_port(tmp_path):
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import ARGS

    stack = MakeRun(fresh_clone(tmp_path), tmp_path / "make-run.log")
    try:
        stack.wait_ready()
        banner = re.search(r"HalfPoint on (http://\S+)", stack.text())
        assert banner and banner.group(1) == f"http://127.0.0.1:{stack.port}", stack.text()[:2000]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            try:
                page = browser.new_page()
                page.set_default_timeout(15_000)
                page.goto(stack.base + "/accounts/login/")
                page.fill("input[name=login]", DEMO_LOGIN["login"])
                page.fill("input[name=password]", DEMO_LOGIN["password"])
                page.locator("form[action*=login] [type=submit]").click()
                page.wait_for_url(lambda url: "/accounts/login/" not in url)
                polls = []
                page.on("response", lambda r: polls.append(r) if "/rules/stats/" in r.url else None)
                started = time.monotonic()
                page.goto(stack.base + "/lobby/")
                box = page.locator("#rules-stats")
                box.get_by_text("Simulating hands").wait_for()
                # The worker simulates 20,000 hands in blocks; the page polls twice a second until they are done.
                box.get_by_text("Banker's edge").wait_for(timeout=120_000)
                assert "simulated hands" in box.inner_text()
                progress = [r.json().get("progress") for r in polls if r.ok and r.request.method == "POST"]
                assert progress[-1] == 1.0 and len(progress) >= 2, progress
                print(f"rules statistics done in {time.monotonic() - started:.1f}s after {len(progress)} polls")
            finally:
                browser.close()
        stack.assert_alive()
    finally:
        stack.stop()
