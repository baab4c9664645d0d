"""The banker opens hands one by one (house-rules.md, `banker_opens`; docs/rules.md "The banker opens"): below
`banker_open_from` the banker must hit; from it the banker may open a challenger, who is settled at once against the
banker's current hand, hit again, or stand. Privacy, the bots' banker and the hand record."""

import json

import pytest

from games.engine import EngineError, bot_decide, legal_actions, redact_event, rules_from, view
from games.engine.bots_open import open_values
from games.engine.simulate import simulate

from .helpers import Game

OPENS = {"banker_opens": True}
SEATS = {"B": 3000, "C1": 300, "C2": 300, "C3": 300}
# C1 10S 7S (17), C2 9H 9D (18), C3 KC 9C (19), B 8D 8C (16); then the banker draws 4H (20).
DECK = ["10S", "9H", "KC", "8D", "7S", "9D", "9C", "8C", "4H", "2H", "3H"]


def game(deck=DECK, rules=None, seats=SEATS):
    g = Game("ban-luck", seats=dict(seats), rules={**OPENS, **(rules or {})})
    g.start(deck=deck)
    for seat in seats:
        if seat != "B":
            g.do(seat, "bet", amount=50)
    for seat in seats:
        if seat != "B":
            g.do(seat, "stand")
    return g


def refused(g, actor, action, **args):
    with pytest.raises(EngineError) as e:
        g.do(actor, action, **args)
    return e.value.code


def test_the_banker_is_not_played_by_the_forced_rule_and_chooses_from_its_total():
    g = game()
    assert g.state.rules.banker_forced_draw  # the preset's forced banker...
    assert g.turn() == "B"  # ...waits for the banker's choice at 16
    legal = legal_actions(g.state, "B")
    assert {"hit", "stand", "open"} <= set(legal)


def test_below_open_from_only_hit_and_stand_is_refused_with_its_code():
    g = game(deck=["10S", "9H", "KC", "6D", "7S", "9D", "9C", "6C", "2H", "3H"])  # B 12
    legal = legal_actions(g.state, "B")
    assert "hit" in legal and "stand" not in legal and "open" not in legal
    assert refused(g, "B", "stand") == "must_hit_below_open_from"
    assert refused(g, "B", "open", seat="C1") == "illegal_action"
    g.do("B", "hit")  # 14
    assert "open" not in legal_actions(g.state, "B")
    g.do("B", "hit")  # 17
    assert {"open", "stand"} <= set(legal_actions(g.state, "B"))


@pytest.mark.parametrize("open_from", [15, 17])
def test_open_from_is_the_rooms(open_from):
    g = game(rules={"banker_open_from": open_from})  # B 16
    assert ("open" in legal_actions(g.state, "B")) is (open_from <= 16)


def test_bad_seat_and_not_openable():
    g = game()
    for seat in ("B", "nobody", 7, None):
        assert refused(g, "B", "open", seat=seat) == "bad_seat"
    g.do("B", "open", seat="C1")
    assert refused(g, "B", "open", seat="C1") == "not_openable"
    assert refused(g, "C2", "open", seat="C3") == "not_your_turn"


def test_an_open_settles_against_the_current_hand_and_the_rest_against_the_final_one():
    g = game()
    events = g.do("B", "open", seat="C1")
    kinds = [e["type"] for e in events]
    assert kinds == ["action", "hand_shown", "hand_opened", "hand_shown", "bet_settled"]
    opened = next(e for e in events if e["type"] == "hand_opened")
    assert opened == {"type": "hand_opened", "seat": "C1", "by": "B", "total": 17, "class": "ordinary",
                      "banker_cards": ["8D", "8C"], "banker_total": 16, "banker_class": "ordinary", "nth": 1}
    settled = events[-1]
    assert (settled["bettor"], settled["outcome"], settled["why"]) == ("C1", "win", "opened")  # 17 beats 16
    g.do("B", "hit")  # 20
    g.do("B", "stand")
    assert [(r["bettor"], r["outcome"], r.get("why")) for r in g.results()] == [
        ("C1", "win", "opened"), ("C2", "lose", None), ("C3", "lose", None)]


def test_opens_in_any_order_and_the_last_open_ends_the_hand():
    g = game()
    for seat in ("C3", "C1", "C2"):
        g.do("B", "open", seat=seat)
    assert g.state.phase == "between_hands"
    assert [r["bettor"] for r in g.results()] == ["C3", "C1", "C2"]  # the record keeps the order of the opens
    assert all(r["why"] == "opened" for r in g.results())
    assert [e["nth"] for e in g.of("hand_opened")] == [1, 2, 3]


def test_a_bust_after_opens_settles_only_the_others():
    g = game(deck=["10S", "9H", "KC", "10D", "6S", "QH", "8C", "7D", "KD"])  # B 17, then KD
    g.do("B", "open", seat="C1")  # 16 loses to 17
    g.do("B", "hit")  # bust
    assert [(r["bettor"], r["outcome"], r.get("why")) for r in g.results()] == [
        ("C1", "lose", "opened"), ("C2", "win", None), ("C3", "win", None)]


def test_privacy_before_and_after_the_first_open():
    g = game()
    g.do("B", "hit")  # 20, still face down: nobody opened yet
    for viewer in ("C1", "C2", None):
        cards = view(g.state, viewer)["hand"]["hands"]["B"][0]["cards"]
        assert cards == [{"hidden": True}] * 3
        assert "total" not in view(g.state, viewer)["hand"]["hands"]["B"][0]
    assert view(g.state, "B")["hand"]["hands"]["B"][0]["cards"][2] == {"card": "4H", "up": False}
    dealt = [e for e in g.events if e["type"] == "card_dealt" and e["seat"] == "B"][-1]
    assert "card" not in redact_event(dealt, "C1")
    g.do("B", "open", seat="C2")
    for viewer in ("C1", "C3", None):
        v = view(g.state, viewer)
        assert [c["card"] for c in v["hand"]["hands"]["B"][0]["cards"]] == ["8D", "8C", "4H"]
        assert [c["card"] for c in v["hand"]["hands"]["C2"][0]["cards"]] == ["9H", "9D"]  # opened: public
        text = json.dumps(v["hand"])
        hidden = {"C1": ["9C", "KC"], "C3": ["10S", "7S"], None: ["10S", "7S", "KC", "9C"]}[viewer]
        for code in hidden:  # an unopened challenger's cards stay with their owner
            assert f'"{code}"' not in text
    assert view(g.state, "B")["hand"]["hands"]["C1"][0]["cards"] == [{"hidden": True}] * 2


def test_house_view_lists_opens_for_all_and_the_openable_for_the_banker_alone():
    g = game()
    assert view(g.state, "B")["house"]["banker_opens"] == {"from": 16, "opened": [], "openable": ["C1", "C2", "C3"]}
    for viewer in ("C1", None):  # to anyone else it would tell that the banker's hidden total reached 16
        assert view(g.state, viewer)["house"]["banker_opens"] == {"from": 16, "opened": [], "openable": []}
    g.do("B", "open", seat="C2")
    assert view(g.state, "C1")["house"]["banker_opens"]["opened"] == ["C2"]
    assert view(g.state, "B")["house"]["banker_opens"]["openable"] == ["C1", "C3"]
    assert "banker_opens" not in view(Game("ban-luck").state, None)["house"]


def test_timeout_default_is_the_forced_rule_and_never_stands_below_open_from():
    g = game(deck=["10S", "9H", "KC", "6D", "7S", "9D", "9C", "6C", "4H", "3H", "2H"], rules={"banker_open_from": 17})
    g.do("system", "timeout")  # 12: hit
    g.do("system", "timeout")  # 16: the forced rule stands, but 16 is below 17: hit
    g.do("system", "timeout")  # 19: stand
    assert g.state.last_hand["hands"]["B"][0]["cards"] == ["6D", "6C", "4H", "3H"]
    assert [e["action"] for e in g.of("action") if e["seat"] == "B"] == ["hit", "hit", "stand"]


def test_the_rule_is_frozen_for_the_hand():
    g = game()
    g.do("system", "set_rules", rules=rules_from("ban-luck", {}).to_json())  # the knob off from the next hand
    assert "open" in legal_actions(g.state, "B")
    g.do("B", "open", seat="C1")
    g.do("B", "stand")
    assert g.results()[0]["why"] == "opened"
    g.do("system", "start_hand", seed_hex="22" * 32, deck=DECK)
    assert not g.state.rules.banker_opens


def test_the_knob_off_keeps_the_forced_banker():
    g = Game("ban-luck", seats=dict(SEATS))
    g.start(deck=DECK)
    for seat in ("C1", "C2", "C3"):
        g.do(seat, "bet", amount=50)
    for seat in ("C1", "C2", "C3"):
        g.do(seat, "stand")
    assert g.state.phase == "between_hands" and not g.of("hand_opened")
    with pytest.raises(EngineError) as e:
        rules_from("ten-half", OPENS)
    assert e.value.code == "invalid_rules" and "banker_opens" in e.value.message


# -- the bots' banker ---------------------------------------------------------------------------------------

def test_open_values_weigh_now_against_later():
    rules = rules_from("ban-luck", OPENS)
    now, later = open_values(rules, ["8D", "8C"], 2)  # 16 against a two-card hand that stood: draw
    assert later > now
    now, later = open_values(rules, ["10D", "QC"], 2)  # 20: open (or stand)
    assert now > later


def test_the_bot_banker_hits_below_open_from_stands_when_all_are_best_now_and_opens_the_ready():
    g = game(deck=["10S", "9H", "KC", "6D", "7S", "9D", "9C", "6C", "4H", "3H", "2H"])  # B 12
    assert bot_decide(view(g.state, "B"), "basic", g.state.rules) == ("hit", {})
    g = game(deck=["10S", "9H", "KC", "10D", "7S", "9D", "9C", "QD"])  # B 20
    assert bot_decide(view(g.state, "B"), "expert", g.state.rules) == ("stand", {})
    # B 18 against challengers of two, four and five cards: the bot opens one whose now is at least its later, draws
    # when none is, stands when all are (open_values weighs each).
    g = Game("ban-luck", seats=dict(SEATS), rules=OPENS)
    g.start(deck=["10S", "2H", "2C", "10D", "7S", "3H", "3C", "8D", "2S", "2D", "4H", "4D", "5H", "5S"])
    for seat in ("C1", "C2", "C3"):
        g.do(seat, "bet", amount=50)
    g.do("C1", "stand")
    for seat in ("C2", "C3"):
        while g.turn() == seat:
            g.do(seat, "hit")
    assert g.turn() == "B"
    decision = bot_decide(view(g.state, "B"), "basic", g.state.rules)
    rules = g.state.rules
    wants = {s: open_values(rules, ["10D", "8D"], len(g.state.hand["hands"][s][0]["cards"]))
             for s in ("C1", "C2", "C3") if not g.state.hand["hands"][s][0]["settled"]}
    ready = [s for s, (now, later) in wants.items() if now >= later - 1e-9]
    if decision[0] == "open":
        assert decision[1]["seat"] in ready and len(ready) < len(wants)
    elif decision[0] == "stand":
        assert len(ready) == len(wants)
    else:
        assert decision == ("hit", {}) and not ready


def test_simulate_plays_the_opening_banker_on_the_machine_path_and_it_pays():
    off = simulate("ban-luck", 600, seed=3, seats=4, engine="machine")
    on = simulate("ban-luck", 600, seed=3, seats=4, rules=OPENS)
    assert on["engine"] == "machine"
    assert on["challenger"]["net_per_stake"] < off["challenger"]["net_per_stake"]


def test_hands_with_opens_pass_the_verifier(monkeypatch):
    """Hand records with opens (a banker who opens whoever it may, else plays as the bots) raise no alarm in
    tools/halfpoint_verify.py: the results, in the order of the opens, are what the chain binds."""
    import tests.test_verifier as tv

    def opener(v, level, rules):
        if "open" in v.get("legal_actions", ()):
            return "open", {"seat": v["house"]["banker_opens"]["openable"][-1]}
        return bot_decide(v, level, rules)

    monkeypatch.setattr(tv, "bot_decide", opener)
    records = tv.honest_records("ban-luck", OPENS, 12)
    tool = tv.tool
    assert any(r.get("why") == "opened" for rec in records for r in rec["results"])
    report = tool.check_files(records)
    assert [(c, what) for _t, lines in report for c, ok, what in lines if not ok] == []
