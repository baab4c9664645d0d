"""The bank by turns (轮庄, `bank_turn_hands`; house-rules.md, "The bank by turns"; docs/rules.md): after that many
hands the bank closes as if the banker retired and goes on in the usual order, whatever it holds."""

import pytest

from games.engine import KNOBS, PRESETS, EngineError, RulesError, bot_decide, rules_from, view
from games.engine.simulate import simulate
from tests.engine.helpers import Game, script

TURN = {"bank_turn_hands": 3}
SAME_FIVES = ["5S", "5H", "5D", "5C"]  # every seat holds 5: ties go to the banker, whatever the order


def hand(g, deck=SAME_FIVES, seed=None, opener_bank=300):
    """One hand with every seat standing on its first card; an `open` offer that follows is taken with
    `opener_bank` (Ten and a Half lets the banker choose the opening bank)."""
    g.start(deck=deck, seed=seed or f"{g.state.hand_no + 40:02d}" * 32)
    g.play_out()
    if g.state.pending and g.state.pending["kind"] == "open":
        seat = g.state.pending["seat"]
        g.do(seat, "open_bank", amount=min(opener_bank, g.stack(seat)))


def bankers(g, hands):
    out = []
    for _ in range(hands):
        out.append(g.state.banker)
        hand(g)
    return out


# -- The knob ------------------------------------------------------------------------------------------------


def test_the_knob_is_off_in_every_preset_and_takes_0_to_20():
    knob = next(k for k in KNOBS if k["name"] == "bank_turn_hands")
    assert knob["type"] == "int" and knob["min"] == 0 and knob["max"] == 20
    assert knob["defaults"] == {slug: 0 for slug in PRESETS}
    assert all(r.bank_turn_hands == 0 for r in PRESETS.values())
    for preset in ("ten-half", "zhejiang-ten-half", "ban-luck"):
        for value in (0, 1, 20):
            assert rules_from(preset, {"bank_turn_hands": value}).bank_turn_hands == value


@pytest.mark.parametrize("value, message", [
    (-1, "must be at least 0"), (21, "must be at most 20"), ("3", "must be a whole number"),
    (2.5, "must be a whole number"), (True, "must be a whole number"), (None, "must be a whole number"),
    ([3], "must be a whole number"),
])
def test_a_knob_out_of_range_or_not_a_whole_number_is_refused_on_its_name(value, message):
    with pytest.raises(RulesError) as e:
        rules_from("ten-half", {"bank_turn_hands": value})
    assert e.value.code == "invalid_rules" and e.value.knob == "bank_turn_hands" and message in e.value.message


def test_seven_and_a_half_refuses_it_its_bank_passes_by_bank_max_hands():
    with pytest.raises(RulesError) as e:
        rules_from("seven-half", {"bank_turn_hands": 2})
    assert e.value.knob == "bank_turn_hands" and "bank_max_hands" in e.value.message
    assert rules_from("seven-half", {"bank_turn_hands": 0}).bank_max_hands == 3


def test_a_table_refuses_a_bad_knob_with_invalid_rules_and_changes_nothing():
    g = Game(rules=TURN, bank=300)
    before = g.state.next_rules
    for bad in (21, -3, "two"):
        with pytest.raises(EngineError) as e:
            g.do("system", "set_rules", rules={**g.rules.to_json(), "bank_turn_hands": bad})
        assert e.value.code == "invalid_rules" and "bank_turn_hands" in e.value.message
    assert g.state.next_rules is before and g.state.rules.bank_turn_hands == 3


# -- Ten and a Half: the bank passes every N hands -----------------------------------------------------------


def test_the_bank_passes_every_three_hands_clockwise_and_goes_back_to_the_bankers_stack():
    g = Game(rules=TURN, bank=300)
    chips = g.state.chips()
    assert bankers(g, 3) == ["B", "B", "B"]
    over = g.of("bank_turn_over")
    assert over == [{"type": "bank_turn_over", "seat": "B", "hands": 3, "hand_no": 3}]
    closed = g.of("bank_closed")[-1]
    assert closed["seat"] == "B" and closed["returned"] == 300 + 3 * 30  # the bank won every tie
    assert g.stack("B") == 500 - 300 + 390  # the bank went back to the banker's stack whole
    assert g.of("bank_offered")[-1] == {"type": "bank_offered", "kind": "open", "seat": "C1"}
    assert g.state.banker == "C1"  # took it (`hand`), and its own count starts
    assert bankers(g, 4) == ["C1", "C1", "C1", "C2"]
    assert [e["seat"] for e in g.of("bank_turn_over")] == ["B", "C1"]
    assert g.state.chips() == chips  # nothing made or lost: the closes moved chips from bank to stack


def test_the_golden_script_passes_the_bank_every_three_hands():
    out = script("ten-half-bank-by-turns")
    assert [h["banker"] for h in out["hands_played"]] == ["B", "B", "B", "C1", "C1", "C1", "C2"]
    assert out["bank_turns"] == [{"seat": "B", "hands": 3, "hand_no": 3}, {"seat": "C1", "hands": 3, "hand_no": 6}]
    assert all(sum(h["deltas"].values()) == 0 for h in out["hands_played"])
    assert sum(out["stacks"].values()) == 4000  # the last banker's bank counted in its stack


def test_a_declined_offer_goes_on_in_the_usual_order_and_nobody_taking_it_leaves_the_bank_vacant():
    g = Game(rules=TURN, bank=300)
    for _ in range(3):
        g.start(deck=SAME_FIVES, seed=f"{g.state.hand_no + 60}" * 32)
        g.play_out()
    assert g.state.pending == {"kind": "open", "seat": "C1", "queue": ["C2", "C3"]}
    g.do("C1", "decline_bank")
    g.do("system", "timeout")  # C2 lets the timer run: declined
    g.do("C3", "decline_bank")
    assert g.state.banker is None and g.state.phase == "waiting" and g.of("bank_vacant")
    # As after a retirement: the next hand asks for a bank again from the first banker's rule (the host's seat).
    g.do("system", "start_hand", seed_hex="71" * 32)
    assert g.state.pending["kind"] == "open"


def test_a_bank_emptied_before_the_turn_ends_passes_as_usual_and_the_next_banker_starts_a_new_count():
    g = Game(rules=TURN, bank=20)
    hand(g)  # hand 1: the bank wins three ties, 20 + 30 = 50
    # Hand 2, dice 2: the order is C1, C2, C3, then B, whose 2 loses to three 9s: 30 paid, then the last 20, void.
    g.start(deck=["9S", "9H", "9D", "2C"], dice=[1, 1], seed="51" * 32)
    for seat in ("C1", "C2", "C3"):
        g.do(seat, "bet", amount=30)
    g.play_out()
    assert g.state.bank == 0 and g.state.pending == {"kind": "refill", "seat": "B", "queue": []}
    assert not g.of("bank_turn_over")  # hand 2 of 3: no turn over, the empty bank is the banker's to refill or pass
    g.do("B", "pass_bank")
    assert g.state.pending["kind"] == "open" and g.state.pending["seat"] == "C1"
    g.do("C1", "open_bank", amount=300)
    assert g.state.banker == "C1" and g.state.bank_hands == 0
    assert bankers(g, 4) == ["C1", "C1", "C1", "C2"]  # three hands of its own, not the one B had left
    assert g.of("bank_turn_over")[0] == {"type": "bank_turn_over", "seat": "C1", "hands": 3, "hand_no": 5}


def test_a_refilled_bank_keeps_its_count():
    g = Game(rules=TURN, bank=30)
    g.start(deck=["9S", "9H", "9D", "2C"], dice=[1, 1], seed="52" * 32)  # order C1, C2, C3, B: the bank pays 30
    g.play_out()
    assert g.state.bank == 0
    g.do("B", "refill", amount=300)
    assert bankers(g, 3) == ["B", "B", "C1"]  # hands 2 and 3 end B's turn of 3
    assert g.of("bank_turn_over")[0]["hand_no"] == 3


def test_a_bank_emptied_in_the_hand_that_ends_the_turn_is_not_offered_for_a_refill_it_passes():
    g = Game(rules={"bank_turn_hands": 1}, bank=30)
    g.start(deck=["9S", "9H", "9D", "2C"], dice=[1, 1], seed="53" * 32)
    g.play_out()
    assert g.of("bank_turn_over") and g.of("bank_closed")[-1]["returned"] == 0
    assert g.state.pending == {"kind": "open", "seat": "C1", "queue": ["C2", "C3"]}
    assert not any(e["kind"] == "refill" for e in g.of("bank_offered"))


def test_an_away_banker_is_passed_over_like_any_away_seat():
    g = Game(rules=TURN, bank=300)
    hand(g)
    g.do("system", "set_seat", seat="B", away=True, why="disconnected")
    g.do("system", "set_seat", seat="C1", away=True, why="disconnected")
    hand(g)
    hand(g)  # an away banker keeps the bank and plays by timeouts until its turn ends
    assert g.of("bank_turn_over")[0]["seat"] == "B"
    assert g.stack("B") == 500 - 300 + 300 + 30 + 20 + 20  # its bank came back to its stack (C1 sat out twice)
    assert g.state.banker == "C2"  # C1 is away too: passed over
    assert g.of("bank_offered")[-1]["seat"] == "C2"


def test_a_retirement_passes_the_bank_as_usual_and_the_next_banker_counts_from_zero():
    g = Game(rules={"bank_turn_hands": 2, "retire_needs_profit": False}, bank=300)
    hand(g)
    g.do("B", "retire")
    g.do("C1", "open_bank", amount=300)
    assert bankers(g, 3) == ["C1", "C1", "C2"]
    assert [e["seat"] for e in g.of("bank_turn_over")] == ["C1"]


# -- Frozen for a hand -----------------------------------------------------------------------------------------


def test_turning_the_knob_on_during_a_hand_does_not_end_that_hand_s_turn():
    g = Game(bank=300)
    hand(g)
    hand(g)
    g.start(deck=SAME_FIVES, seed="54" * 32)
    g.do("system", "set_rules", rules={**g.rules.to_json(), "bank_turn_hands": 3})
    g.play_out()
    assert g.state.banker == "B" and not g.of("bank_turn_over")  # hand 3 was played without the rule
    hand(g)  # hand 4 plays with it: B has banked 4 hands, at least 3
    assert g.of("bank_turn_over") == [{"type": "bank_turn_over", "seat": "B", "hands": 4, "hand_no": 4}]
    assert g.state.banker == "C1"


def test_turning_the_knob_off_during_the_last_hand_of_a_turn_still_ends_that_turn():
    g = Game(rules=TURN, bank=300)
    hand(g)
    hand(g)
    g.start(deck=SAME_FIVES, seed="55" * 32)
    g.do("system", "set_rules", rules={**g.rules.to_json(), "bank_turn_hands": 0})
    assert g.view("C2")["bank_turn_left"] == 1  # the hand keeps its rules
    g.play_out()
    assert g.of("bank_turn_over") and g.state.pending["seat"] == "C1"
    g.do("C1", "open_bank", amount=300)
    assert g.view("C2")["bank_turn_left"] is None  # the next hand plays without the rule
    assert bankers(g, 3) == ["C1", "C1", "C1"]


# -- What every viewer sees ------------------------------------------------------------------------------------


def test_every_viewer_sees_the_hands_left_in_the_bankers_turn():
    g = Game(rules=TURN, bank=300, seats={"B": 500, "C1": 1000, "C2": 1000}, side=None)
    seen = []
    for _ in range(4):
        seen.append(g.view(None)["bank_turn_left"])
        g.start(deck=SAME_FIVES[:3], seed=f"{g.state.hand_no + 80}" * 32)
        seen.append(g.view(None)["bank_turn_left"])
        assert {g.view(x)["bank_turn_left"] for x in ("B", "C1", "C2", None)} == {seen[-1]}
        g.play_out()
        if g.state.pending:
            g.do(g.state.pending["seat"], "open_bank", amount=300)
    assert seen == [3, 3, 2, 2, 1, 1, 3, 3]  # between hands, then during each: the fourth hand is C1's first
    assert Game(bank=300).view("C1")["bank_turn_left"] is None


# -- The other games that take it ------------------------------------------------------------------------------


def test_zhejiang_opens_the_next_bank_counter_clockwise_with_the_whole_stack_after_the_turn():
    g = Game("zhejiang-ten-half", rules={"bank_turn_hands": 2})
    assert g.state.banker == "B"
    for _ in range(2):
        hand(g)  # every tie goes to the banker: it never loses a hand, so it never steps down
    assert g.of("bank_turn_over")[0]["seat"] == "B"
    # Counter-clockwise from B, with the whole stack (C3 lost two base stakes to B's ties).
    assert g.state.banker == "C3" and g.stack("C3") == 0 and g.state.bank == g.of("bank_opened")[-1]["amount"] > 900
    assert not g.state.pending


def test_zhejiang_a_banker_who_steps_down_passes_the_bank_and_the_next_counts_from_zero():
    g = Game("zhejiang-ten-half", rules={"bank_turn_hands": 2})
    g.start(deck=["9S", "9H", "9D", "2C"], seed="56" * 32)  # seat order from B's left: C1, C2, C3, then B with 2
    g.play_out()
    assert g.of("banker_steps_down") and g.state.banker == "C3" and g.state.bank_hands == 0
    assert not g.of("bank_turn_over")
    hand(g)
    assert g.state.banker == "C3"
    hand(g)
    assert g.of("bank_turn_over")[0]["seat"] == "C3" and g.state.banker == "C2"


def test_ban_luck_passes_the_bank_clockwise_after_the_turn():
    g = Game("ban-luck", rules={"bank_turn_hands": 2}, seats={"B": 3000, "C1": 3000, "C2": 3000})
    seen = []
    for i in range(5):
        seen.append(g.state.banker)
        g.start(seed=f"{i + 20}" * 32)
        g.play_out()
    assert seen == ["B", "B", "C1", "C1", "C2"]
    assert [e["seat"] for e in g.of("bank_turn_over")] == ["B", "C1"]


# -- Bots ------------------------------------------------------------------------------------------------------


def test_bots_take_the_bank_when_their_turn_comes():
    g = Game(rules={"bank_turn_hands": 2}, bank=300)
    for seat in ("B", "C1", "C2", "C3"):
        g.state.seat(seat)["bot"] = "basic"
    seen = []
    for i in range(7):
        seen.append(g.state.banker)
        g.start(seed=f"{i + 30}" * 32)
        for _ in range(100):
            if g.state.phase not in ("betting", "playing", "bank_decision"):
                break
            decided = [(x, bot_decide(view(g.state, x), "basic", g.state.rules)) for x in g.state.deadline_for]
            decided = [(x, d) for x, d in decided if d]
            if decided:
                seat, (action, args) = decided[0]
                g.do(seat, action, **args)
            else:
                g.do("system", "timeout")
        assert g.state.banker is not None and not g.state.pending
    assert seen == ["B", "B", "C1", "C1", "C2", "C2", "C3"]
    assert [e["seat"] for e in g.of("bank_opened")][1:] == ["C1", "C2", "C3"]  # each bot opened the bank offered


# -- The banker's edge -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["ten-half", "zhejiang-ten-half", "ban-luck"])
def test_the_knob_changes_who_banks_not_the_bankers_edge(preset):
    plain = simulate(preset, 2000, seed=3)
    turns = simulate(preset, 2000, seed=3, rules={"bank_turn_hands": 3})
    assert turns["challenger"] == plain["challenger"] and turns["classes"] == plain["classes"]
