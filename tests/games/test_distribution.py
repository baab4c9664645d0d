"""The distribution report (docs/fairness.md, "The distribution report"): its chi-square tests pass an honest shuffle
and catch a biased one over 100,000 seeded hands, and the hourly refresh adds each finished hand once."""

import hashlib
import math

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from games import distribution, services
from games.engine import PRESETS
from games.engine.cards import FRENCH_52
from games.engine.shuffle import LazyDeck
from games.models import Hand
from tests.games.conftest import act, play_out

HANDS = 100_000
TEN_HALF = PRESETS["ten-half"].to_json()


def honest_first_two(i: int) -> list[str]:
    deck = LazyDeck(FRENCH_52, hashlib.sha256(f"report:{i}".encode()).digest())
    return [deck.draw(), deck.draw()]


def byte_modulo_first_two(i: int) -> list[str]:
    """The classic mistake: Fisher-Yates with one random byte modulo the cards left (48 of 52 first cards get 5 chances
    in 256, the last four 4)."""
    noise = hashlib.sha256(f"biased:{i}".encode()).digest()
    a = list(FRENCH_52)
    for k in range(2):
        j = k + noise[k] % (52 - k)
        a[k], a[j] = a[j], a[k]
    return a[:2]


def chi_squares(deal) -> dict:
    tallies = distribution.Tallies()
    for i in range(HANDS):
        tallies.add(TEN_HALF, list(FRENCH_52), deal(i))
    tallies.settle()
    (game,) = distribution.report(tallies.games)
    assert game["hands"] == HANDS and math.isclose(sum(r["expected"] for r in game["first"]), HANDS)
    assert math.isclose(sum(r["expected"] for r in game["classes"]), HANDS)
    return game["tests"]


def test_the_chi_square_p_value_is_the_upper_tail():
    assert math.isclose(distribution.p_value(3.841458820694124, 1), 0.05, rel_tol=1e-9)
    for x in (10.0, 40.0, 52.0, 80.0, 150.0):  # below and above the mean: the series and the continued fraction
        half = x / 2  # an even df has a closed form: exp(-x/2) times the first df/2 terms of exp(x/2)'s series
        exact = math.exp(-half) * sum(half**i / math.factorial(i) for i in range(25))
        assert math.isclose(distribution.p_value(x, 50), exact, rel_tol=1e-9), x
    assert distribution.p_value(0.0, 5) == 1.0 and distribution.p_value(500.0, 51) < 1e-50


def test_an_honest_shuffle_passes_over_100000_seeded_hands():
    tests = chi_squares(honest_first_two)
    assert tests["first"]["df"] == 51 and tests["first"]["p"] > distribution.ALARM, tests
    assert tests["classes"]["p"] > distribution.ALARM, tests


def test_a_biased_shuffle_fails_over_100000_seeded_hands():
    tests = chi_squares(byte_modulo_first_two)
    assert tests["first"]["p"] < distribution.ALARM, tests


@pytest.mark.django_db(transaction=True)
def test_the_refresh_adds_each_finished_hand_once_and_the_page_shows_it(cast, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    cache.delete(distribution.CACHE_KEY)
    assert distribution.distribution_report() is None
    room = services.room_create(host=cast["alice"], preset="ten-half")
    for name in ("alice", "bob"):
        services.seat_take(room_id=room.pk, user=cast[name], buy_in=500)
    act(room, cast["alice"], "start")
    act(room, cast["alice"], "open_bank", amount=300)
    act(room, cast["bob"], "bet", amount=20)
    play_out(room)
    distribution.distribution_refresh()
    state = distribution.distribution_refresh()  # nothing new: nothing counted twice
    hand = Hand.objects.get(room=room)
    tally = state["games"]["ten-half"]
    assert state["last"] == hand.pk and tally["hands"] == 1
    assert tally["first"] == {hand.summary["dealt"][0]: 1}
    assert math.isclose(sum(tally["first_expected"].values()), 1)
    page = Client().get(reverse("games:distribution"))  # public
    assert page.status_code == 200
    (game,) = page.context["report"]["games"]
    assert (game["game"], game["name"], game["hands"]) == ("ten-half", "Ten and a Half", 1)
