"""The distribution report (docs/fairness.md, "The distribution report"): its chi-square tests pass an honest shuffle
and catch a biased one over 100,000 seeded hands; a test is shown only once every expected count is at least 5, the
counts alone before; the cards come in their deck's order; the hourly refresh adds each finished hand once."""

import hashlib
import math
import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import distribution, services
from games.engine import PRESETS
from games.engine.cards import FRENCH_52, FRENCH_54, SPANISH_40
from games.engine.shuffle import LazyDeck
from games.models import Hand
from tests.games.conftest import act, play_out

HANDS = 100_000
TEN_HALF = PRESETS["ten-half"].to_json()


def honest_first_two(i: int, source=FRENCH_52) -> list[str]:
    deck = LazyDeck(tuple(source), hashlib.sha256(f"report:{i}".encode()).digest())
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
    assert all(t["ready"] for t in game["tests"].values()), game["tests"]
    return game["tests"]


def tallies_of(hands: dict[str, int], deal=honest_first_two, refreshes: int = 1) -> distribution.Tallies:
    """`hands[preset]` honest hands of each preset, from its whole deck, added over `refreshes` refreshes."""
    tallies = distribution.Tallies()
    for preset, n in hands.items():
        rules = PRESETS[preset].to_json()
        deck = distribution.DECKS[rules["deck"]]
        for i in range(n):
            tallies.add(rules, list(deck), deal(i, deck))
            if refreshes > 1 and (i + 1) % (n // refreshes) == 0:
                tallies.settle()
    tallies.settle()
    return tallies


def the_page(tallies: distribution.Tallies) -> str:
    cache.set(distribution.CACHE_KEY, {"last": 0, "games": tallies.games, "at": timezone.now().isoformat()}, None)
    page = Client().get(reverse("games:distribution"))
    assert page.status_code == 200
    return page.content.decode()


def section(html: str, game: str) -> str:
    return re.search(rf'<details [^>]*id="game-{game}".*?</details>', html, re.S).group(0)


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
    assert not tests["first"]["alarm"] and not tests["classes"]["alarm"]


def test_a_biased_shuffle_fails_over_100000_seeded_hands():
    tests = chi_squares(byte_modulo_first_two)
    assert tests["first"]["p"] < distribution.ALARM and tests["first"]["alarm"], tests


def test_a_test_waits_until_every_expected_count_reaches_five():
    """52 cards: 259 hands expect 4.98 of each first card (no test, one more hand needed), 260 expect 5 (the test)."""
    under = distribution.report(tallies_of({"ten-half": 259}).games)[0]["tests"]["first"]
    assert not under["ready"] and math.isclose(under["smallest"], 259 / 52) and under["more"] == 1, under
    assert "p" not in under and "statistic" not in under
    at = distribution.report(tallies_of({"ten-half": 260}).games)[0]["tests"]["first"]
    assert at["ready"] and math.isclose(at["smallest"], 5) and at["df"] == 51 and 0 <= at["p"] <= 1, at
    # The same 260 hands one refresh each: 260 sums of 1/52 come to 4.999999999999987, and that is at the rule.
    summed = tallies_of({"ten-half": 260}, refreshes=260)
    assert summed.games["ten-half"]["first_expected"]["AS"] < 5
    assert distribution.report(summed.games)[0]["tests"]["first"]["ready"]


def test_the_rule_at_its_edge_and_what_cannot_be_tested():
    big = {"a": 100.0, "b": 200.0}
    assert distribution.chi_square({}, {**big, "c": distribution.MIN_EXPECTED - 1e-6}, 300)["ready"] is False
    assert distribution.chi_square({}, {**big, "c": 4.99}, 300)["ready"] is False
    edge = distribution.chi_square({"a": 100, "b": 200, "c": 5}, {**big, "c": 5.0}, 300)
    assert edge["ready"] and edge["df"] == 2 and edge["statistic"] == 0 and edge["p"] == 1.0, edge
    assert distribution.chi_square({}, {**big, "c": 5.0 - 1e-12}, 300)["ready"]  # float sums' noise, not a rule
    # A category an honest shuffle cannot give is not a cell; fewer than two cells is no test, and no estimate.
    assert distribution.chi_square({"x": 3}, {**big, "x": 0.0}, 300)["df"] == 1
    for expected in ({}, {"a": 50.0}, {"a": 0.0, "b": 0.0}):
        out = distribution.chi_square({"a": 1}, expected, 50)
        assert out["ready"] is False and out["more"] is None, (expected, out)
    # Before the rule: the smallest expected count and the hands it needs at this pace.
    out = distribution.chi_square({}, {"a": 1.0, "b": 20.0}, 10)
    assert (out["ready"], out["smallest"], out["more"]) == (False, 1.0, 40)


def test_hands_needed_to_reach_the_rule():
    assert distribution.hands_needed(100, 100 / 52) == 160  # 260 hands make 5 of each of 52 cards
    assert distribution.hands_needed(259, 259 / 52) == 1
    assert distribution.hands_needed(10, 4.9999) == 1  # never "0 more" while the test is not there
    assert distribution.hands_needed(3, 0.5) == 27
    assert distribution.hands_needed(0, 1.0) is None and distribution.hands_needed(10, 0.0) is None


@pytest.mark.parametrize(("preset", "deck"), [("ten-half", FRENCH_52), ("ban-luck", FRENCH_52),
                                              ("zhejiang-ten-half", FRENCH_54), ("seven-half", SPANISH_40)])
def test_the_first_cards_come_in_their_decks_order(preset, deck):
    (game,) = distribution.report(tallies_of({preset: 60}).games)
    assert [r["card"] for r in game["first"]] == list(deck)
    grid = game["grid"]
    down_the_columns = [row["cells"][k]["card"] for k in range(len(grid["suits"])) for row in grid["ranks"]]
    assert down_the_columns + [j["card"] for j in grid["jokers"]] == list(deck)
    assert [s["suit"] for s in grid["suits"]] == (["O", "C", "E", "B"] if deck is SPANISH_40 else ["S", "H", "D", "C"])


def test_the_shoes_first_cards_come_in_the_spanish_decks_order():
    """Seven and a Half deals from what is left in its shoe: each hand's own source, the union in deck order (3C and
    the French clubs' codes are cups here, after the coins)."""
    rules = PRESETS["seven-half"].to_json()
    sources = [["KB", "3C", "1O", "JC", "7E"], ["2C", "NO", "1B", "4E"], ["KC", "6O", "5B"]]
    tallies = distribution.Tallies()
    for i, source in enumerate(sources * 10):
        tallies.add(rules, source, honest_first_two(i, source))
    tallies.settle()
    (game,) = distribution.report(tallies.games)
    assert [r["card"] for r in game["first"]] == ["1O", "6O", "NO", "2C", "3C", "JC", "KC", "4E", "7E", "1B", "5B",
                                                  "KB"]
    assert math.isclose(sum(r["expected"] for r in game["first"]), 30)
    assert [row["rank"] for row in game["grid"]["ranks"]] == ["1", "2", "3", "4", "5", "6", "7", "J", "N", "K"]
    assert game["grid"]["ranks"][1]["cells"] == [None, game["first"][3], None, None]  # 2C: cups only


@pytest.mark.django_db
def test_a_small_sample_shows_the_counts_and_no_test():
    html = the_page(tallies_of({"ten-half": 10}))
    game = section(html, "ten-half")
    assert "χ²" not in game and "data-p=" not in game and 'data-ready="true"' not in game
    first = re.search(r'data-test="first" data-ready="false"[^>]*>([^<]*)<', game)
    assert first and "smallest expected count is 0.19, below 5" in first.group(1), game
    assert "about 250 more hands" in first.group(1)  # 260 hands in all make 5 per card
    assert 'data-test="classes" data-ready="false"' in game
    assert "at least 5, the usual rule for this test" in html and "The p-value is the chance" in html
    # The counts themselves, every card named by its rank's row and its suit's column, not by its code.
    assert len(re.findall(r'<td class="num" data-card="', game)) == 52
    assert sum(int(n) for n in re.findall(r'data-card="\w+"><strong>(\d+)</strong>', game)) == 10
    assert game.count('<span class="muted small">0.19</span></td>') == 52  # 10/52 each: two decimals below 10
    assert [h for h in re.findall(r'<span aria-hidden="true">(.)</span>', game)] == ["♠", "♥", "♦", "♣"]
    assert not re.search(r">(AS|10H|KC)<", game)
    assert "<details" in game and " open" not in game.split(">")[0]  # folded until opened (a wide screen's script)


@pytest.mark.django_db
def test_a_large_sample_shows_the_test():
    html = the_page(tallies_of({"ten-half": 400, "ban-luck": 400}))
    game = section(html, "ten-half")
    for part in ("first", "classes"):
        test = re.search(rf'<p class="test ok" data-test="{part}" data-ready="true" data-p="([\d.e-]+)">([^<]*)<', game)
        assert test and 0.001 < float(test.group(1)) <= 1, (part, game)
        assert test.group(2).startswith("χ² = ") and "degrees of freedom" in test.group(2) and "p = " in test.group(2)
    assert "degrees of freedom 51," in game and "No test yet" not in game and "Warning" not in game
    # Ban Luck's two aces are 1 deal in 221: 400 hands expect 1.8, so its classes wait while its first card is tested.
    ban = section(html, "ban-luck")
    assert 'data-test="first" data-ready="true"' in ban and 'data-test="classes" data-ready="false"' in ban
    assert "about 705 more hands" in ban  # 1,105 hands make 5 expected Ban-Bans
    assert html.index('id="game-ten-half"') < html.index('id="game-ban-luck"')  # the site's order of games


@pytest.mark.django_db
def test_a_bias_is_a_warning_shown_open():
    html = the_page(tallies_of({"ten-half": 300}, deal=lambda i, deck: ["AS", deck[1 + i % 51]]))
    game = section(html, "ten-half")
    assert re.search(r'<details class="card distribution alarm" id="game-ten-half"[^>]* open>', game), game[:300]
    assert '<p class="test bad" data-test="first" data-ready="true"' in game and "p &lt; 0.0001" in game
    assert "less than once in a thousand times" in game and "Warning sign" in game


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
