"""What the hand page's replay needs besides the record: each hand's value after every card that reached or left it
(games.hand_records.hand_totals), counted by the engine, keyed by the hand's cards; and the page that carries it."""

import json
import re

import pytest
from django.test import Client

from games import hand_records
from games.engine.rules import Rules, rules_from
from games.engine.variants import VARIANTS
from games.models import Hand
from tests.games.conftest import bet_all, play_out, ten_half_table

SEVEN_HALF = rules_from("seven-half", {"house_rules": True}).to_json()


def counted(rules: dict, *cards: str) -> dict:
    """The engine's own count of `cards`, as the record shows a hand's value."""
    variant = VARIANTS[rules["game"]]
    ev = variant.evaluate(list(cards), Rules.from_json(rules))
    return {"total": variant.display_total(ev.total), "class": ev.cls, "bust": ev.bust}


def test_every_hand_is_counted_as_it_grew_through_splits_and_discards():
    events = [
        {"type": "hand_started", "hand_no": 4, "banker": "s1", "bank": 100, "base_stake": 10, "challengers": ["s2"]},
        {"type": "card_dealt", "seat": "s2", "hand": 0, "card": "KO", "face": "down"},
        {"type": "card_dealt", "seat": "s1", "hand": 0, "card": "4B", "face": "down"},
        {"type": "card_dealt", "seat": "s2", "hand": 0, "card": "NC", "face": "up"},
        {"type": "action", "seat": "s2", "hand": 0, "action": "split"},
        {"type": "hand_split", "seat": "s2", "stake": 10},
        {"type": "card_dealt", "seat": "s2", "hand": 0, "card": "7E", "face": "up"},
        {"type": "card_dealt", "seat": "s2", "hand": 1, "card": "5O", "face": "up"},
        {"type": "card_dealt", "seat": "s2", "hand": 1, "card": "6O", "face": "up"},
        {"type": "card_discarded", "seat": "s1", "hand": 0, "card": "4B"},
        {"type": "card_dealt", "seat": "s1", "hand": 0, "card": "2C", "face": "down"},
        {"type": "card_dealt", "seat": "s1", "hand": 0, "face": "down"},  # a card shown to its owner only: not counted
    ]
    totals = hand_records.hand_totals(SEVEN_HALF, events)
    lists = ["KO", "4B", "KO NC", "NC", "KO 7E", "NC 5O", "NC 5O 6O", "2C"]
    assert sorted(totals) == sorted(lists)
    for key in lists:
        assert totals[key] == counted(SEVEN_HALF, *key.split()), key
    assert totals["KO 7E"] == {"total": 7.5, "class": "natural", "bust": False}  # ½ + 7 in two cards
    assert totals["NC 5O 6O"]["bust"] is True


def test_a_new_hand_starts_counting_afresh_and_unreadable_rules_count_nothing():
    events = [
        {"type": "hand_started", "hand_no": 1, "banker": "s1", "bank": 100, "base_stake": 10, "challengers": ["s2"]},
        {"type": "card_dealt", "seat": "s2", "hand": 0, "card": "3O", "face": "down"},
        {"type": "hand_started", "hand_no": 2, "banker": "s1", "bank": 100, "base_stake": 10, "challengers": ["s2"]},
        {"type": "card_dealt", "seat": "s2", "hand": 0, "card": "4O", "face": "down"},
    ]
    assert sorted(hand_records.hand_totals(SEVEN_HALF, events)) == ["3O", "4O"]  # not "3O 4O"
    assert hand_records.hand_totals({**SEVEN_HALF, "no_such_knob": 1}, events) == {}


@pytest.mark.django_db(transaction=True)
def test_the_hand_page_carries_the_counts_and_they_end_as_the_record_does(cast, settings):
    settings.GAMES_NEXT_HAND_SECONDS = 3600
    room = ten_half_table(cast)
    bet_all(room, cast)
    play_out(room, action="hit", limit=80)
    hand = Hand.objects.get(room=room, number=1)
    client = Client()
    client.force_login(cast["bob"])
    page = client.get(hand.get_absolute_url()).content.decode()
    totals = json.loads(re.search(r'<script id="hand-totals" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert 'id="replay"' in page
    final = hand.summary["hands"]
    assert final and sum(len(ph["cards"]) for hands in final.values() for ph in hands) == len(hand.summary["dealt"])
    for hands in final.values():
        for ph in hands:
            for n in range(1, len(ph["cards"]) + 1):
                assert " ".join(ph["cards"][:n]) in totals  # every card on its way
            assert totals[" ".join(ph["cards"])] == {"total": ph["total"], "class": ph["class"], "bust": ph["bust"]}
