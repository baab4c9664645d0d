"""The rules statistics' store (games/stats.py, the view `rules_stats_view`): the worker's progress lands where the
web process reads it, and a "running" mark never outlives its task: a lost task's mark expires and the next poll
starts the simulation again. The whole `make run` stack: tests/test_embedded_rules_stats.py."""

import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from games import stats, views
from games.engine import PRESETS

pytestmark = pytest.mark.django_db

URL = reverse("rules_stats") + "?form=lobby&preset=ten-half"
DATABASE_CACHE = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "django_cache"}}


@pytest.fixture
def sent(settings, monkeypatch):
    """The embedded default's cache (a table of the database), and the tasks the view sends, recorded and not
    run: as if no worker had taken them yet."""
    settings.CACHES = DATABASE_CACHE
    call_command("createcachetable")  # the test database has it only where the settings' cache is this one
    cache.clear()
    calls = []
    monkeypatch.setattr(views.rules_stats, "delay", lambda *args: calls.append(args))
    yield calls
    cache.clear()


@pytest.fixture
def poll(client):
    client.force_login(get_user_model().objects.create_user("pat", "pat@example.com", "pw-long-enough-1"))
    return lambda: json.loads(client.post(URL).content)


def expires_in(key: str) -> float:
    """Seconds until the cache row of `key` expires."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT expires FROM django_cache WHERE cache_key LIKE %s", ["%" + key])
        (expires,) = cursor.fetchone()
    if isinstance(expires, str):
        expires = datetime.datetime.fromisoformat(expires)
    if expires.tzinfo is None:
        expires = expires.replace(tzinfo=datetime.UTC)
    return (expires - datetime.datetime.now(datetime.UTC)).total_seconds()


def test_a_lost_tasks_mark_expires_and_the_next_poll_starts_the_simulation_again(sent, poll, monkeypatch):
    assert poll() == {"status": "running", "progress": 0.0}
    assert poll() == {"status": "running", "progress": 0.0}
    assert len(sent) == 1  # one simulation per rule set
    key = sent[0][0]
    assert 0 < expires_in(key) <= stats.RUNNING_SECONDS
    # No worker ever took it (or the one that did died): once the mark is older than RUNNING_SECONDS...
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=stats.RUNNING_SECONDS + 1)
    monkeypatch.setattr("django.core.cache.backends.db.tz_now", lambda: later)
    assert poll()["status"] == "running"
    assert len(sent) == 2 and sent[1] == sent[0]  # ...the next poll sends the task again


def test_the_workers_progress_renews_the_mark_and_its_result_is_kept_a_week(sent, poll, monkeypatch):
    poll()
    key, preset, overrides = sent[0]
    seen = []

    class Watched:
        def set(self, k, value, timeout=None):
            seen.append((value, timeout))
            cache.set(k, value, timeout)

    monkeypatch.setattr(stats, "cache", Watched())
    stats.compute(key, preset, overrides)  # what the worker runs, on the same cache
    progress = [value["progress"] for value, _timeout in seen]
    assert progress == sorted(progress) and progress[-1] == 1.0 and len(progress) > 2
    assert {timeout for value, timeout in seen if value["status"] == "running"} == {stats.RUNNING_SECONDS}
    assert seen[-1][1] == stats.CACHE_SECONDS
    done = poll()
    assert done["status"] == "done" and done["result"]["hands"] == stats.HANDS_FAST
    assert expires_in(key) > 6 * 24 * 3600
    assert len(sent) == 1


# --- every preset, and a room's house rules (house-rules.md: each is in the banker's-edge figure) ----------------


def lobby_post(client, preset: str, fields: dict | None = None) -> dict:
    url = reverse("rules_stats") + f"?form=lobby&preset={preset}"
    data = {f"{preset}-shown": "1", **{f"{preset}-{k}": v for k, v in (fields or {}).items()}} if fields else {}
    return json.loads(client.post(url, data).content)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_has_its_figure(sent, poll, client, preset):
    assert lobby_post(client, preset) == {"status": "running", "progress": 0.0}
    key, asked, overrides = sent[-1]
    assert asked == preset and overrides == {}
    # Where the fast path plays the rules, more hands; the house rules it leaves to the state machine, fewer.
    fast = preset in ("ten-half", "zhejiang-ten-half", "ban-luck")
    assert stats.hands_for(preset, overrides) == (stats.HANDS_FAST if fast else stats.HANDS_MACHINE)


def test_a_rooms_house_rules_are_simulated_as_the_form_sets_them(sent, poll, client):
    lobby_post(client, "ban-luck")
    lobby_post(client, "ban-luck", {"base_stake": "10", "min_bet": "1", "max_bet": "500", "chip_values": "10, 50, 100",
                                    "max_main_seats": "5", "banker_forced_draw": "on", "bank_turn_hands": "0",
                                    "banker_opens": "on", "banker_open_from": "17", "bet_seconds": "15",
                                    "act_seconds": "20", "payouts__five-dragon": "2", "payouts__ban-luck": "2",
                                    "payouts__ban-ban": "3", "payouts__five-card-bust": "2", "payouts__ordinary": "1"})
    (plain_key, _p, plain), (key, preset, overrides) = sent
    assert plain == {} and overrides == {"banker_opens": True, "banker_open_from": 17} and key != plain_key
    assert stats.hands_for(preset, overrides) == stats.HANDS_MACHINE


def test_the_edge_is_per_unit_staked_when_stakes_vary(sent, monkeypatch):
    """Let it ride and a bank won at auction stake more than one base stake a hand: the edge weighs each block by what
    was staked in it, as the simulator's own figure over the same hands does."""
    from games.engine.simulate import simulate

    monkeypatch.setattr(stats, "BLOCK", 150)
    monkeypatch.setattr(stats, "HANDS_MACHINE", 300)
    done = stats.compute("rules-stats:test", "ten-half-auction", {})
    parts = [simulate("ten-half-auction", 150, seed=f"stats:{start}", rules={})["challenger"] for start in (0, 150)]
    staked = [p["stake_per_hand"] * p["hands"] for p in parts]
    assert max(p["stake_per_hand"] for p in parts) > 1  # the multiplier stakes more than one base stake
    expected = -sum(p["net_per_stake"] * s for p, s in zip(parts, staked, strict=True)) / sum(staked)
    assert done["status"] == "done" and abs(done["result"]["banker_edge"] - expected) < 1e-12
    assert done["result"]["hands"] == 300
