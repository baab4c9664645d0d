"""Hypothesis properties over random rule sets, decks and action sequences."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Command,
    EngineError,
    apply,
    legal_actions,
    new_table,
    rules_from,
    state_from_json,
    state_to_json,
    view,
)

PRESET_OVERRIDES = {
    "ten-half": st.fixed_dictionaries({}, optional={"base_stake": st.sampled_from([5, 10, 20]),
                                                    "max_cards": st.integers(2, 5)}),
    "seven-half": st.fixed_dictionaries({}, optional={"house_rules": st.booleans(), "jackpot_enabled": st.booleans(),
                                                      "max_main_seats": st.integers(3, 8)}),
    "zhejiang-ten-half": st.fixed_dictionaries({}, optional={
        "mode": st.sampled_from(["classic", "extended"]),
        "base_stake_rule": st.sampled_from(["fixed", "poorest-share", "banker-sixtieth"]),
        "banker_multiplies": st.booleans()}),
    "ban-luck": st.fixed_dictionaries({}, optional={"banker_forced_draw": st.booleans()}),
}


@st.composite
def scenarios(draw):
    preset = draw(st.sampled_from(sorted(PRESET_OVERRIDES)))
    rules = rules_from(preset, draw(PRESET_OVERRIDES[preset]))
    n_main = draw(st.integers(2, min(4, rules.max_main_seats)))
    stacks = draw(st.lists(st.integers(0, 3000), min_size=n_main, max_size=n_main))
    side = draw(st.lists(st.integers(0, 500), max_size=2)) if rules.side_bets_enabled else []
    seeds = draw(st.lists(st.binary(min_size=32, max_size=32), min_size=1, max_size=4))
    choices = draw(st.lists(st.integers(0, 10_000), min_size=20, max_size=200))
    return rules, stacks, side, seeds, choices


def _chip_delta(events):
    return sum(e.get("chips_in", 0) - e.get("chips_out", 0) for e in events)


def _hidden_cards(state):
    """(owner, code) of every face-down card on the table."""
    h = state.hand
    if h is None:
        return []
    return [(owner, c[0]) for owner, phs in h["hands"].items() for ph in phs for c in ph["cards"] if c[1] != "up"]


def _commands(state, rng_choices, seeds):
    """A stream of plausible commands (legal ones mostly, some refused) chosen by the drawn integers."""
    it = iter(rng_choices)
    seeds = list(seeds)
    while True:
        try:
            pick = next(it)
        except StopIteration:
            return
        s = state[0]
        seats = [x["id"] for x in s.seats]
        if s.phase in ("waiting", "between_hands"):
            if seeds and pick % 5:
                yield Command("system", "start_hand", {"seed_hex": seeds.pop(0).hex()}, 10.0)
                continue
            actor = seats[pick % len(seats)] if seats else "X"
            options = [("top_up", {"amount": 1 + pick % 300}), ("leave", {}), ("open_bank", {"amount": 1 + pick % 500}),
                       ("retire", {}), ("sit", {"stack": pick % 400, "name": "late"})]
            action, args = options[pick % len(options)]
            yield Command("late" if action == "sit" else actor, action, args, 10.0)
            if not seeds and pick % 3 == 0:
                return
            continue
        if pick % 11 == 0:
            yield Command("system", "timeout", {}, 20.0)
            continue
        who = s.deadline_for[pick % len(s.deadline_for)] if s.deadline_for else (seats[pick % len(seats)])
        legal = legal_actions(s, who)
        if not legal:
            yield Command("system", "timeout", {}, 20.0)
            continue
        action = legal[pick % len(legal)]
        args = {}
        if action in ("bet", "chip"):
            args = {"amount": s.rules.chip_values[pick % len(s.rules.chip_values)] if action == "chip"
                    else max(1, (pick % 50) * s.rules.base_stake // 2)}
        elif action in ("side_bet", "back"):
            backs = sorted(s.hand["bets"])[pick % len(s.hand["bets"])] if s.hand["bets"] else s.banker
            args = {"backs": backs, "seat": backs, "amount": 10 * (1 + pick % 5)}
        elif action in ("open_bank", "refill"):
            args = {"amount": max(1, s.seat(who)["stack"])}
        yield Command(who, action, args, 15.0)


def _setup(rules, stacks, side):
    state = new_table(rules)
    events = []
    for i, stack in enumerate(stacks):
        args = {"stack": stack, "position": i, "banker": i == 0 and stack > 0}
        state, ev = apply(state, Command(f"P{i}", "sit", args, 0.0))
        events += ev
    for i, stack in enumerate(side):
        state, ev = apply(state, Command(f"S{i}", "sit", {"stack": stack, "role": "side", "position": i}, 0.0))
        events += ev
    if state.seat("P0")["host"] is False:
        state.seat("P0")["host"] = True
    return state, events


def play(rules, stacks, side, seeds, choices, check=True):
    state, _ = _setup(rules, stacks, side)
    box = [state]
    applied = []
    for cmd in _commands(box, choices, seeds):
        before = box[0]
        snapshot = state_to_json(before) if check else None
        try:
            after, events = apply(before, cmd)
        except EngineError as e:
            assert e.code and e.message
            if check:
                assert state_to_json(before) == snapshot, "a refused command changed the state"
            continue
        applied.append(cmd)
        box[0] = after
        if check:
            # chips are conserved except what sit/leave/top_up bring in and take out
            assert after.chips() - before.chips() == _chip_delta(events), (cmd, events)
            assert all(x["stack"] >= 0 for x in after.seats) and after.bank >= 0
            data = state_to_json(after)
            json.dumps(data)
            assert state_from_json(data) == after
            json.dumps(events)
            settled = [e for e in events if e["type"] == "hand_settled"]
            for e in settled:
                assert sum(e["deltas"].values()) == 0
            hidden = _hidden_cards(after)
            viewers = [x["id"] for x in after.seats] + [None, "stranger"]
            for viewer in viewers:
                text = json.dumps(view(after, viewer))
                for owner, code in hidden:
                    if owner != viewer:
                        assert f'"{code}"' not in text, (viewer, owner, code)
    return box[0], applied


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_every_command_conserves_chips_keeps_stacks_non_negative_json_and_private(scenario):
    play(*scenario)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_replaying_the_commands_from_the_seed_gives_the_same_state(scenario):
    rules, stacks, side, seeds, choices = scenario
    final, applied = play(rules, stacks, side, seeds, choices, check=False)
    state, _ = _setup(rules, stacks, side)
    for cmd in applied:
        state, _ = apply(state, cmd)
    assert state_to_json(state) == state_to_json(final)
