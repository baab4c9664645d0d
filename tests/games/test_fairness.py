"""The fair deal at a live table (docs/fairness.md): the server commits the next hand's seed between hands, a player's
seed comes with the bet (or alone) after that and before the deal, a malformed one is refused; each stored hand is
chained to the one before; a reader downloads the record file, and the offline verifier checks it and catches a
changed one.

The cast: alice hosts and banks, bob and chen challenge; erin is a stranger to the room."""

import copy
import hashlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games import hand_records, selectors, services
from games.engine import verify
from games.engine.shuffle import ZERO_CHAIN, commitment
from games.models import Hand, Table
from tests.games.conftest import act, make_player, play_out, seat_of, state
from tests.games.sockets import Tab, catch_up, close_all, db

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "halfpoint_verify.py"
BOBS = hashlib.sha256(b"bob's seed").hexdigest()
CHENS = hashlib.sha256(b"chen's seed").hexdigest()
BAD_SEEDS = ["ab" * 31, "ab" * 33, "zz" * 32, ["ab" * 32], 7, ""]


@pytest.fixture(autouse=True)
def _one_hand_at_a_time(_table_settings, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600  # a finished hand stays the latest until the host starts the next


def browser(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def seated(cast):
    """alice, bob and chen sit in alice's Ten and a Half room; alice starts and opens the bank: betting."""
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob", "chen"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=300)
    assert state(room)["phase"] == "betting"
    return room


def next_hand(room, cast, *, bob_seed=BOBS) -> Hand:
    """The current betting with bob's seed on his bet (none from chen), played out by standing."""
    act(room, cast["bob"], "bet", amount=20, **({"seed": bob_seed} if bob_seed else {}))
    act(room, cast["chen"], "bet", amount=20)
    play_out(room)
    return Hand.objects.filter(room=room).order_by("-number").first()


def again(room, cast) -> None:
    act(room, cast["alice"], "start")


# --- the services -----------------------------------------------------------------------------------------------


def test_the_next_hands_seed_is_committed_as_soon_as_a_seat_is_taken_and_again_after_each_hand(cast):
    room = services.room_create(host=cast["alice"], preset="ten-half")
    assert state(room)["next_commitment"] is None
    services.seat_take(room_id=room.pk, user=cast["alice"], buy_in=500)
    first = state(room)["next_commitment"]
    assert first and state(room)["next_seed"] and commitment(state(room)["next_seed"]) == first
    services.seat_take(room_id=room.pk, user=cast["bob"], buy_in=500)
    services.seat_take(room_id=room.pk, user=cast["chen"], buy_in=500)
    assert state(room)["next_commitment"] == first  # once, until a hand uses it
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=300)
    assert state(room)["commitment"] == first and state(room)["next_commitment"] is None  # betting: nothing more
    hand = next_hand(room, cast)
    assert hand.commitment == first and hand.seed == state(room)["last_hand"]["seed"]
    assert state(room)["next_commitment"] not in (None, first)


def test_a_seed_sent_with_the_bet_after_the_commitment_deals_the_hand(cast):
    room = seated(cast)
    shown = state(room)["commitment"]
    hand = next_hand(room, cast)
    seeds = {x["seat"]: x for x in hand.summary["seeds"]}
    assert seeds[seat_of(room, cast["bob"])] == {"seat": seat_of(room, cast["bob"]), "seed": BOBS, "by": "player"}
    assert seeds[seat_of(room, cast["chen"])]["by"] == seeds[seat_of(room, cast["alice"])]["by"] == "server"
    s = hand.summary
    assert hand.commitment == shown == commitment(hand.seed)
    assert verify(shown, hand.seed, s["dealt"], deck="french-52", seeds=s["seeds"], hand_no=1, prev=ZERO_CHAIN)
    assert not verify(shown, hand.seed, s["dealt"], deck="french-52")  # without the player's seed: another deck


def test_a_seed_sent_alone_between_hands_counts_for_the_next_hand(cast):
    room = seated(cast)
    next_hand(room, cast)
    act(room, cast["chen"], "seed", seed=CHENS)
    again(room, cast)
    hand = next_hand(room, cast, bob_seed=None)
    by = {x["seat"]: (x["by"], x["seed"]) for x in hand.summary["seeds"]}
    assert by[seat_of(room, cast["chen"])] == ("player", CHENS) and by[seat_of(room, cast["bob"])][0] == "server"


@pytest.mark.parametrize("bad", BAD_SEEDS, ids=repr)
def test_a_malformed_seed_is_refused_with_bad_seed_and_changes_nothing(cast, bad):
    room = seated(cast)
    before = Table.objects.get(pk=room.pk)
    for user, action, args in ((cast["bob"], "bet", {"amount": 20}), (cast["chen"], "seed", {}),
                               (cast["dara"], "sit", {"buy_in": 500})):
        with pytest.raises(services.GameError) as e:
            act(room, user, action, seed=bad, **args)
        assert e.value.code == "bad_seed", action
    after = Table.objects.get(pk=room.pk)
    assert (after.version, after.state) == (before.version, before.state)


def test_a_seed_after_the_deal_is_refused(cast):
    room = seated(cast)
    act(room, cast["bob"], "bet", amount=20)
    act(room, cast["chen"], "bet", amount=20)
    assert state(room)["phase"] == "playing"
    version = Table.objects.get(pk=room.pk).version
    with pytest.raises(services.GameError) as e:
        act(room, cast["chen"], "seed", seed=CHENS)
    assert e.value.code == "seed_too_late" and Table.objects.get(pk=room.pk).version == version


# --- the socket ---------------------------------------------------------------------------------------------------


async def test_the_commitment_frame_precedes_every_player_seed_of_its_hand_and_a_late_seed_is_refused(cast, no_resync):
    room = await db(services.room_create)(host=cast["alice"], preset="ten-half")
    tabs = {name: Tab(cast[name], room.code) for name in ("alice", "bob", "chen")}
    try:
        for tab in tabs.values():
            await tab.open()
        for name in ("alice", "bob", "chen"):
            assert "ack" in await tabs[name].act("sit", buy_in=500, seed=BOBS)  # alice's: before any commitment
        await tabs["alice"].act("start")
        await tabs["alice"].act("open_bank", amount=300)
        assert "ack" in await tabs["chen"].act("seed", seed=CHENS)
        assert "ack" in await tabs["bob"].act("bet", amount=20, seed=BOBS)
        assert "ack" in await tabs["chen"].act("bet", amount=20)  # the deal
        await catch_up(tabs.values(), room)
        late = await tabs["chen"].act("seed", seed=BOBS)
        assert late["type"] == "error" and late["code"] == "seed_too_late"
        hand = await db(lambda: Hand.objects.get(room=room, number=1))()
        for tab in tabs.values():
            updates = tab.of("update")
            shown = next(f["version"] for f in updates if f["view"]["fair_deal"]
                         and f["view"]["fair_deal"]["commitment"] == hand.commitment)
            committed = [f["version"] for f in updates for e in f["events"]
                         if e["type"] == "seed_committed" and e["commitment"] == hand.commitment]
            seeds = [(f["version"], e["seat"]) for f in updates for e in f["events"]
                     if e["type"] == "seed_received" and e["hand_no"] == 1]
            assert committed == [shown]
            assert len(seeds) == 4 and all(v > shown for v, _seat in seeds), (shown, seeds)
            deal = next(f for f in updates if any(e["type"] == "card_dealt" for e in f["events"]))["view"]["fair_deal"]
            assert (deal["hand_no"], deal["commitment"], deal["open"]) == (1, hand.commitment, False)
            assert set(deal["seeds"].values()) == {BOBS, CHENS}
    finally:
        await close_all(tabs.values())


# --- the chain ----------------------------------------------------------------------------------------------------


def call_command_status(name: str) -> int:
    try:
        call_command(name, stdout=io.StringIO())
    except SystemExit as e:
        return e.code
    return 0


def three_hands(cast):
    room = seated(cast)
    hands = [next_hand(room, cast)]
    for _ in range(2):
        again(room, cast)
        hands.append(next_hand(room, cast))
    return room, hands


def test_each_stored_hand_names_the_one_before_and_an_altered_hand_breaks_the_chain(cast):
    room, hands = three_hands(cast)
    assert [h.prev_chain for h in hands] == [ZERO_CHAIN, hands[0].chain, hands[1].chain]
    assert selectors.room_chain_problems(room) == []
    alterations = {
        "a dealt card": lambda s: s["dealt"].reverse(),
        "the server seed": lambda s: s.update(seed="ab" * 32),
        "a player's seed": lambda s: s["seeds"][1].update(seed=CHENS),
        "a result": lambda s: s["results"][0].update(paid=0),
        "the link": lambda s: s.update(prev="ab" * 32),
    }
    for what, alter in alterations.items():
        summary = copy.deepcopy(hands[1].summary)
        alter(summary)
        Hand.objects.filter(pk=hands[1].pk).update(summary=summary)
        assert any("hand 2" in p for p in selectors.room_chain_problems(room)), what
        Hand.objects.filter(pk=hands[1].pk).update(summary=hands[1].summary)
    assert call_command_status("chain_audit") == 0
    Hand.objects.filter(pk=hands[1].pk).update(chain="ab" * 32)  # a new hash to match: the next link breaks
    assert call_command_status("chain_audit") == 1
    assert any("hand 3" in p for p in selectors.room_chain_problems(room))
    Hand.objects.filter(pk=hands[1].pk).delete()
    assert selectors.room_chain_problems(room) == [
        f"hand 3: its link {hands[2].prev_chain} does not name the hand before it"]


def test_the_chain_page_lists_every_hand_with_the_records_a_user_may_read(cast):
    room, hands = three_hands(cast)
    erin = make_player("erin")
    page = browser(cast["bob"]).get(reverse("games:room_chain", args=[room.code]))
    assert page.status_code == 200
    assert [r["hand_no"] for r in page.context["rows"]] == [1, 2, 3]
    assert all(r["record"]["chain"] == h.chain for r, h in zip(page.context["rows"], hands, strict=True))
    stranger = browser(erin).get(reverse("games:room_chain_json", args=[room.code])).json()
    assert [(r["prev"], r["chain"], r["record"]) for r in stranger["hands"]] == [
        (h.prev_chain, h.chain, None) for h in hands]
    assert browser(cast["bob"]).get(reverse("games:room_chain", args=[room.code]) + "?upto=2").context["rows"][-1][
        "hand_no"] == 2


# --- the record file and the offline verifier --------------------------------------------------------------------


def test_the_record_file_is_for_the_records_readers(cast):
    room = seated(cast)
    hand = next_hand(room, cast)
    erin = make_player("erin")
    answer = browser(cast["bob"]).get(reverse("games:hand_json", args=[hand.key]))
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == f'attachment; filename="halfpoint-{room.code}-hand-1.json"'
    record = answer.json()
    assert (record["format"], record["hand_no"], record["chain"], record["seed"]) == (
        "halfpoint-hand-1", 1, hand.chain, hand.seed)
    assert browser(erin).get(reverse("games:hand_json", args=[hand.key])).status_code == 404
    share = hand_records.hand_share_create(hand=hand, by=cast["bob"])
    shared = browser(erin).get(reverse("games:hand_shared_json", args=[share.token]))
    assert shared.status_code == 200 and shared.json() == record
    assert Client().get(reverse("games:verify")).status_code == 200  # the verify page needs no account


def run_verifier(tmp_path, *records, args=()) -> subprocess.CompletedProcess:
    """The script copied alone into an empty folder and run there, in isolated mode, on the given files."""
    script = tmp_path / "halfpoint_verify.py"
    shutil.copy(SCRIPT, script)
    paths = []
    for i, record in enumerate(records):
        path = tmp_path / f"record-{i}.json"
        path.write_text(json.dumps(record))
        paths.append(str(path))
    return subprocess.run([sys.executable, "-I", str(script), *args, *paths], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)


def test_the_offline_verifier_checks_a_downloaded_record_and_its_link(cast, tmp_path):
    room = seated(cast)
    first = next_hand(room, cast)
    again(room, cast)
    second = next_hand(room, cast)
    bob = browser(cast["bob"])
    records = [bob.get(reverse("games:hand_json", args=[h.key])).json() for h in (first, second)]
    done = run_verifier(tmp_path, *records)
    assert done.returncode == 0, done.stdout
    assert "everything holds" in done.stdout and "FAIL" not in done.stdout
    assert f"its link is the hash of room {room.code}, hand 1" in done.stdout
    chain = bob.get(reverse("games:room_chain_json", args=[room.code])).json()
    assert run_verifier(tmp_path, chain).returncode == 0
    vectors = run_verifier(tmp_path, args=["--vectors", str(ROOT / "docs" / "fairness.md")])
    assert vectors.returncode == 0 and vectors.stdout.count("\nvector ") + vectors.stdout.startswith("vector ") == 7, \
        vectors.stdout


@pytest.mark.parametrize(("what", "message"), [
    ("player seed", "dealt was"),
    ("server seed", "not the commitment"),
    ("dealt card", "card 1 dealt was"),
    ("result", "not to its chain hash"),
    ("link", "is not the hash"),
])
def test_the_offline_verifier_fails_a_changed_record_with_a_clear_message(cast, tmp_path, what, message):
    room = seated(cast)
    first = next_hand(room, cast)
    again(room, cast)
    second = next_hand(room, cast)
    bob = browser(cast["bob"])
    before, record = (bob.get(reverse("games:hand_json", args=[h.key])).json() for h in (first, second))
    mine = next(x for x in record["seeds"] if x["by"] == "player")
    if what == "player seed":
        mine["seed"] = CHENS
    elif what == "server seed":
        record["seed"] = "ab" * 32
    elif what == "dealt card":
        record["dealt"][0], record["dealt"][1] = record["dealt"][1], record["dealt"][0]
    elif what == "result":
        record["results"][0]["paid"] += 1
    else:
        before["deltas"] = {k: -v for k, v in before["deltas"].items()}  # the hand before changed: the link breaks
    done = run_verifier(tmp_path, before, record)
    assert done.returncode == 1, done.stdout
    assert message in done.stdout and "FAIL" in done.stdout and "check(s) failed" in done.stdout, done.stdout
