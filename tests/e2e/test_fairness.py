"""The fair deal in Chromium (docs/fairness.md): the browser's verifier (static/js/fair.js) gives the documented test
vectors; the table shows the commitment before the first card and it is the one the record names after the hand, with
the seed the player typed in the table menu; the record downloaded from the hand's page checks out on the verify page
with the network off, and a changed copy does not; the distribution report counts the hand. Screenshots at 1280
and 360 px go to test-artifacts/."""

import hashlib
import json
import re

import pytest

from tests.e2e.conftest import ARTIFACTS, play_out
from tests.engine.test_fairness import vectors
from tests.test_verifier import doc_check_vectors

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TYPED = hashlib.sha256(b"bob types his own seed").hexdigest()


def test_the_browsers_verifier_gives_the_documented_vectors(server, players):
    page = players(server, "anon").goto("/verify/")
    got = page.evaluate("""async (vectors) => {
        const f = await import('/static/js/fair.js');
        const v = await import('/static/js/verify.js');
        const out = [];
        for (const x of vectors) {
            if (x.record) { out.push({ chain: await f.chainHash(x.record) }); continue; }
            const made = [];
            for (const s of x.seeds) if (s.by !== 'player') made.push(await f.seatSeed(x.server_seed, s.seat));
            const key = await f.dealKey(x.server_seed, x.hand_no, x.prev, x.seeds);
            out.push({ made, key, order: await v.shuffle(Array.isArray(x.source) ? x.source : v.DECKS[x.source], key, x.label),
                       dice: await v.rollDice(key), commitment: await v.commitmentOf(x.server_seed) });
        }
        return out;
    }""", vectors())
    for v, result in zip(vectors(), got, strict=True):
        if "record" in v:
            assert result == {"chain": v["chain"]}
            continue
        assert result["made"] == [x["seed"] for x in v["seeds"] if x["by"] != "player"], v["name"]
        assert (result["key"], result["order"], result["commitment"]) == (v["deal_key"], v["order"], v["commitment"])
        assert "dice" not in v or result["dice"] == v["dice"]
    # The check vectors: each change of the doc's record, and each chain, fails exactly the checks the doc names.
    checks = doc_check_vectors()
    failed = page.evaluate("""async ({ base, vectors }) => {
        const f = await import('/static/js/fair.js');
        const out = [];
        for (const v of vectors) {
            let files;
            if (v.chain) files = [v.chain];
            else {
                const record = JSON.parse(JSON.stringify(base));
                for (const [path, value] of v.set || []) {
                    let target = record;
                    for (const step of path.slice(0, -1)) target = target[step];
                    target[path[path.length - 1]] = value;
                }
                for (const name of v.drop || []) delete record[name];
                files = [record];
            }
            const r = await f.verifyFiles(files, { trust: f.parseTrust(v.trust) });
            out.push([...new Set(r.groups.flatMap((g) => g.checks.filter((c) => !c.ok).map((c) => c.id)))].sort());
        }
        return out;
    }""", checks)
    assert failed == [sorted(v["fails"]) for v in checks["vectors"]]


def shots(player, name: str) -> None:
    for width, height in ((1280, 900), (360, 740)):
        player.page.set_viewport_size({"width": width, "height": height})
        player.screenshot(f"fairness-{name}-{width}")
    player.page.set_viewport_size({"width": 1280, "height": 900})


def test_the_commitment_read_on_the_table_before_the_first_card_is_the_records(server, players, browser, tmp_path):
    alice, bob = (players(server, name).signup() for name in ("alice", "bob"))
    code = alice.create_room("ten-half", base_stake=10)
    bob.join(code)
    alice.sit(0, buy_in=1000)
    bob.sit(1, buy_in=800)

    # bob types his own seed for the next deal in the table menu.
    bob.page.click("#menu-button")
    bob.page.click("#tab-fair")
    bob.page.fill("#fair-seed-input", TYPED.upper())
    bob.page.click("#fair-seed-use")
    bob.page.wait_for_function(f"document.querySelector('#fair-my-seed').textContent === '{TYPED}'")
    shots(bob, "menu")
    bob.page.click("#menu-close")

    # Before the first card: the table's fair-deal line leads to the commitment in the menu's Fair deal tab, on both
    # tables, and nothing is dealt yet.
    shown = {}
    for p in (alice, bob):
        p.wait_view(f"v.fair_deal && v.fair_deal.open && v.fair_deal.seeds[v.you] === '{TYPED}'" if p is bob
                    else "v.fair_deal && v.fair_deal.open")
        p.page.click("#fair-details")  # the menu's Fair deal tab, drawn by static/js/fair-menu.js once it opens
        line = p.page.locator("#fair-commitment")
        line.wait_for()
        assert line.is_visible() and line.get_attribute("data-hand") == "1"
        shown[p.name] = line.inner_text()
        assert p.view()["hand"] is None and p.page.locator(".seat .pcard").count() == 0
        assert p.page.locator("#fair-copy").is_visible()
        p.page.click("#menu-close")
    assert re.fullmatch(r"[0-9a-f]{64}", shown["alice"]) and shown["bob"] == shown["alice"]
    shots(bob, "table-before-the-first-card")

    alice.click_enabled("#host-start")
    alice.wait_view("v.legal_actions.includes('open_bank')")
    alice.page.fill("#amount-bank", "500")
    alice.click_enabled("#act-open_bank")
    bob.wait_view("v.phase === 'betting' && v.legal_actions.includes('chip')")
    assert bob.page.locator("#fair-commitment").text_content() == shown["bob"]  # still before the first card
    bob.click_enabled("#actions .chips button:nth-child(1)")
    bob.click_enabled("#act-confirm")
    play_out([alice, bob])
    alice_seed = alice.page.evaluate("window.halfpoint.state.seeds[1]")

    # After the hand: the server seed and the link to the check; the record names the commitment shown before.
    bob.wait_view("v.hand && v.hand.over && !!v.seed")
    shots(bob, "table-after-the-hand")
    bob.page.click("#fair-details")
    assert bob.page.locator("#fair-server-seed").text_content() == bob.view()["seed"]  # in the Fair deal tab
    bob.page.click("#menu-close")
    bob.page.click("#fair-verify")
    bob.page.wait_for_url(re.compile(r"/hands/[\w-]{22}/$"))
    bob.page.wait_for_selector("#verify-status[data-ok]", timeout=20_000)
    assert bob.page.locator("#verify-status").get_attribute("data-ok") == "true"
    record = json.loads(bob.page.locator("#verify-data").text_content())
    assert record["commitment"] == shown["bob"] == bob.page.locator("#verify-commitment-value").inner_text()
    seeds = {x["seat"]: x for x in record["seeds"]}
    names = {v: k for k, v in record["names"].items()}
    assert seeds[names["bob"]] == {"seat": names["bob"], "seed": TYPED, "by": "player"}
    assert seeds[names["alice"]] == {"seat": names["alice"], "seed": alice_seed, "by": "player"}
    for check in ("commitment", "seeds", "deck", "dice", "chain"):
        assert bob.page.locator(f"#verify-{check}").get_attribute("data-ok") == "true", check
    shots(bob, "hand")
    with bob.page.expect_download() as download:
        bob.page.click("#verify-download")
    saved = tmp_path / "record.json"
    download.value.save_as(saved)
    assert json.loads(saved.read_text())["chain"] == record["chain"]
    bob.goto(f"/r/{code}/chain/")
    bob.page.wait_for_selector("#chain-status[data-ok='true']")
    shots(bob, "chain")
    bob.goto("/verify/distribution/")  # the first visit asks for the report (this server runs its tasks at once)
    bob.goto("/verify/distribution/")
    bob.page.wait_for_selector("#game-ten-half[data-hands='1']")
    shots(bob, "distribution")

    # The verify page under the site's CSP, the network off once loaded: the record checks out, a changed one not.
    tampered = tmp_path / "tampered.json"
    changed = json.loads(saved.read_text())
    changed["dealt"][0], changed["dealt"][1] = changed["dealt"][1], changed["dealt"][0]
    tampered.write_text(json.dumps(changed))
    context = browser.new_context(viewport={"width": 360, "height": 740}, locale="en-US")
    requests = []
    try:
        page = context.new_page()
        page.goto(server + "/verify/")
        page.wait_for_load_state("networkidle")
        context.on("request", lambda r: requests.append(r.url))
        context.set_offline(True)
        page.set_input_files("#verify-files", str(saved))
        page.wait_for_selector("#verify-files-status[data-ok]")
        assert page.locator("#verify-files-status").get_attribute("data-ok") == "true"
        assert page.locator("#verify-files-results li[data-ok='false']").count() == 0
        assert page.locator("#verify-files-results li[data-ok='true']").count() >= 5
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "fairness-verify-offline-360.png"), full_page=True)
        page.set_input_files("#verify-files", str(tampered))
        page.wait_for_selector("#verify-files-status[data-ok='false']")
        failed = page.locator("#verify-files-results li[data-ok='false']").all_inner_texts()
        assert any("does not deal the cards of this hand" in t for t in failed), failed
        assert any("not to its chain hash: it was changed" in t for t in failed), failed
        page.set_viewport_size({"width": 1280, "height": 900})
        page.screenshot(path=str(ARTIFACTS / "fairness-verify-offline-1280.png"), full_page=True)
        assert requests == []
    finally:
        context.close()
