"""The verify page (/verify/, static/js/fair.js and fair-report.js in Chromium) on the test files it shares with the
offline verifier (tests/fixtures/verify/, tests/test_verifier.py): one page, every case uploaded in turn, with its
trusted hash typed in the page's box; each good case checks out, each forgery is refused with exactly the checks its
case names, each failing line carrying its check's id and a sentence. Screenshots at 360 and 1280 px."""

import json

import pytest

from tests.e2e.conftest import ARTIFACTS
from tests.verifier_fixtures import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CASES = json.loads((ROOT / "cases.json").read_text())


def upload(page, case) -> tuple[bool, list[str], list[str]]:
    """The verdict, the failing checks' ids and the failing lines' sentences after choosing the case's files."""
    page.set_input_files("#verify-files", [])  # the same file chosen again is a change too
    page.fill("#verify-trust", case["trust"] or "")
    page.evaluate("document.getElementById('verify-files-status').removeAttribute('data-ok')")
    page.set_input_files("#verify-files", [str(ROOT / f) for f in case["files"]])
    page.wait_for_selector("#verify-files-status[data-ok]")
    ok = page.locator("#verify-files-status").get_attribute("data-ok") == "true"
    failing = page.locator("#verify-files-results li[data-ok='false']")
    ids = failing.evaluate_all("(lis) => lis.map((li) => li.dataset.check)")
    return ok, sorted(set(ids)), failing.all_inner_texts()


def test_the_verify_page_gives_every_shared_file_its_verdict_and_names_the_failing_check(server, players):
    player = players(server, "anon")
    page = player.goto("/verify/")
    page.wait_for_load_state("networkidle")
    wrong = {}
    for case in CASES:
        ok, ids, sentences = upload(page, case)
        if ok != (not case["fails"]) or ids != case["fails"]:
            wrong[f"{case['game']}/{case['case']}"] = (ok, ids, case["fails"])
        for sentence in sentences:  # a sentence, not the bare id the page falls back on
            assert sentence.startswith("✗ ") and len(sentence) > 30, (case["case"], sentence)
    assert wrong == {}
    assert player.console_errors == []

    # What a player sees: a forged chain refused, at 360 and 1280 px.
    forged = next(c for c in CASES if c["game"] == "ten-half" and c["case"] == "contiguous-gap")
    upload(page, forged)
    line = page.locator("#verify-files-results li[data-check='contiguous'][data-ok='false']")
    assert "comes after hand 2" in line.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((360, 740), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(ARTIFACTS / f"verify-page-forged-chain-{width}.png"), full_page=True)
    trusted = next(c for c in CASES if c["game"] == "seven-half" and c["case"] == "chain-trusted-page")
    assert upload(page, trusted)[:2] == (True, [])
    page.screenshot(path=str(ARTIFACTS / "verify-page-trusted-page-1280.png"), full_page=True)


def test_a_trusted_hash_that_is_not_one_is_named_on_the_page(server, players):
    page = players(server, "anon").goto("/verify/")
    page.wait_for_load_state("networkidle")
    case = next(c for c in CASES if c["game"] == "ban-luck" and c["case"] == "chain")
    ok, ids, sentences = upload(page, {**case, "trust": "not a hash"})
    assert (ok, ids) == (False, ["trust"]) and "64 hexadecimal digits" in sentences[0]
    assert upload(page, {**case, "trust": None})[:2] == (True, [])
