"""The reasons static/js/feed.js gives each result, and what it leaves out of the feed, run in Chromium on the events
of real hands: the engine plays each hand from a stacked deck (the cases below say which hands that makes, and the
test checks the engine made them), then the page's own feed.js tells the events, as the hand record does with the
final hands. Every outcome kind of the four games' rules files ("Comparing", "Settling", "Deal and specials") has a
case: the reason, and why a multiplier above ×1 was paid, word for word.

A bet is told in one line (the chips on the way there are not news), and the fair deal's lines (the commitment, the
seeds, the server seed revealed) are marked for the table's "Fair deal" tab, not the feed."""

from dataclasses import dataclass, field

import pytest

from games.engine import Command, EngineError, apply, new_table, rules_from

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEED = "ab" * 32


@dataclass
class Hand:
    """One hand of `preset`: seats clockwise, the first banks (each with `stack`); `deck` the top cards in dealing
    order; `moves`: each seat's actions in its turns (then it stands, or its timeout plays the default);
    `bets`: commands during betting (the timeout places the rest); `side`: side bettors (name, stack)."""

    preset: str
    deck: list[str]
    moves: dict[str, list[str]] = field(default_factory=dict)
    seats: tuple[str, ...] = ("B", "C1")
    overrides: dict = field(default_factory=dict)
    bets: list[tuple[str, str, dict]] = field(default_factory=list)
    side: tuple[str, ...] = ()
    seeds: bool = False  # the server commits the seed first and C1 sends its own: the fair deal's events

    def play(self) -> tuple[list[dict], dict]:
        state = new_table(rules_from(self.preset, self.overrides))
        events: list[dict] = []
        now = 0.0

        def do(actor: str, action: str, **args):
            nonlocal state, now
            now += 1.0
            state, new = apply(state, Command(actor, action, args, now))
            events.extend(new)

        for i, name in enumerate(self.seats):
            do(name, "sit", name=name, stack=900, position=i, **({"banker": True, "bank": 900} if i == 0 else {}))
        for i, name in enumerate(self.side):
            do(name, "sit", name=name, stack=900, role="side", position=i)
        if self.seeds:
            do("system", "commit_seed", seed_hex=SEED)
        # ten-half.md "Order": a roll of 2 counts the bank, then C1, who plays (and is dealt) first.
        do("system", "start_hand", seed_hex=SEED, deck=self.deck, **({"dice": [1, 1]} if self.preset == "ten-half" else {}))
        if self.seeds:
            do("C1", "seed", seed="cd" * 32)
        for actor, action, args in self.bets:
            do(actor, action, **args)
        moves = {k: list(v) for k, v in self.moves.items()}
        for _ in range(100):
            if state.phase == "betting":
                do("system", "timeout")
            elif state.phase == "playing":
                seat = state.hand["turn"][0]
                queue = moves.get(seat) or []
                try:
                    do(seat, queue.pop(0) if queue else "stand")
                except EngineError:
                    do("system", "timeout")  # a stand the game refuses (Chinese Blackjack below 16): the default
            else:
                break
        assert state.last_hand is not None, "the hand did not finish"
        return events, state.last_hand["hands"]


# (case, hand, the hands it must make {seat: (total, class)}, {bettor: (outcome, multiplier, reason)})
CASES = [
    # ten-half.md "Comparing a challenger with the banker"
    ("ten-half: a 10½ loses to the bank's 10", Hand("ten-half", ["10S", "10H", "KS"], {"C1": ["hit"]}),
     {"C1": (10.5, "ten-and-a-half"), "B": (10, "ordinary")},
     {"C1": ("lose", 1, "ten and a half (10½) against the bank's 10: the bank counts half a point more")}),
    ("ten-half: half a point ahead of the bank", Hand("ten-half", ["8S", "8H", "KS"], {"C1": ["hit"]}),
     {"C1": (8.5, "ordinary"), "B": (8, "ordinary")},
     {"C1": ("lose", 1, "8½ against the bank's 8: the bank counts half a point more")}),
    ("ten-half: a 10½ wins ×2", Hand("ten-half", ["10S", "9H", "KS"], {"C1": ["hit"]}),
     {"C1": (10.5, "ten-and-a-half"), "B": (9, "ordinary")},
     {"C1": ("win", 2, "ten and a half (10½) beats the bank's 9; ten and a half pays ×2")}),
    ("ten-half: a tie", Hand("ten-half", ["9S", "9H"]), {"C1": (9, "ordinary"), "B": (9, "ordinary")},
     {"C1": ("lose", 1, "tie at 9: the bank wins ties")}),
    ("ten-half: both bust", Hand("ten-half", ["9S", "9H", "5S", "5H"], {"C1": ["hit"], "B": ["hit"]}),
     {"C1": (14, "bust"), "B": (14, "bust")},
     {"C1": ("lose", 1, "bust with 14: a bust loses even when the bank busts too")}),
    ("ten-half: the bank busts", Hand("ten-half", ["10S", "9H", "KS", "5H"], {"C1": ["hit"], "B": ["hit"]}),
     {"C1": (10.5, "ten-and-a-half"), "B": (14, "bust")},
     {"C1": ("win", 2, "the bank busts with 14; ten and a half pays ×2")}),
    ("ten-half: five dragons", Hand("ten-half", ["AS", "10H", "AH", "AD", "AC", "2S"], {"C1": ["hit"] * 4}),
     {"C1": (6, "five-dragons"), "B": (10, "ordinary")},
     {"C1": ("win", 2, "five dragons (6) beats the bank's 10: five dragons beats every other hand; five dragons pays ×2")}),
    ("ten-half: the bank's five dragons", Hand("ten-half", ["10S", "AS", "AH", "AD", "AC", "2S"], {"B": ["hit"] * 4}),
     {"C1": (10, "ordinary"), "B": (6, "five-dragons")},
     {"C1": ("lose", 1, "the bank's five dragons (6) beats 10: five dragons beats every other hand")}),
    ("ten-half: a side bet follows its hand",
     Hand("ten-half", ["10S", "9H", "KS"], {"C1": ["hit"]}, side=("S1",),
          bets=[("C1", "bet", {"amount": 10}), ("S1", "side_bet", {"backs": "C1", "amount": 20})]),
     {"C1": (10.5, "ten-and-a-half"), "B": (9, "ordinary")},
     {"C1": ("win", 2, "ten and a half (10½) beats the bank's 9; ten and a half pays ×2"),
      "S1": ("win", 2, "it follows C1's hand: ten and a half (10½) beats the bank's 9; ten and a half pays ×2")}),
    # seven-half.md "Settling"
    ("seven-half: a natural wins ×2", Hand("seven-half", ["7O", "6C", "KO"], {"C1": ["hit"]}),
     {"C1": (7.5, "natural"), "B": (6, "ordinary")},
     {"C1": ("win", 2, "natural (7½) beats the bank's 6; natural pays ×2")}),
    ("seven-half: the bank's 7½ beats a natural",
     Hand("seven-half", ["7O", "6C", "KO", "JC", "1C"], {"C1": ["hit"], "B": ["hit", "hit"]}),
     {"C1": (7.5, "natural"), "B": (7.5, "seven-and-a-half")},
     {"C1": ("lose", 1, "the bank's seven and a half (7½) beats natural (7½): the bank's 7½ beats every hand, naturals too")}),
    ("seven-half: a bust loses at once, and its side bet with it",
     Hand("seven-half", ["7O", "6C", "5O"], {"C1": ["hit"]}, overrides={"side_bets_enabled": True, "max_side_bettors": 2},
          side=("S1",), bets=[("C1", "bet", {"amount": 10}), ("S1", "side_bet", {"backs": "C1", "amount": 20})]),
     {"C1": (12, "bust"), "B": (6, "ordinary")},
     {"C1": ("lose", 1, "bust with 12"), "S1": ("lose", 1, "it follows C1's hand: bust with 12")}),
    ("seven-half: the bank busts", Hand("seven-half", ["5O", "6C", "7C"], {"B": ["hit"]}),
     {"C1": (5, "ordinary"), "B": (13, "bust")}, {"C1": ("win", 1, "the bank busts with 13")}),
    ("seven-half: a tie", Hand("seven-half", ["5O", "5C"]), {"C1": (5, "ordinary"), "B": (5, "ordinary")},
     {"C1": ("lose", 1, "tie at 5: the bank wins ties")}),
    # zhejiang.md "Comparing a challenger with the banker"
    ("zhejiang: a 10½ beats the bank's 10", Hand("zhejiang-ten-half", ["10S", "10H", "KS"], {"C1": ["hit"]}),
     {"C1": (10.5, "ten-and-a-half"), "B": (10, "ordinary")},
     {"C1": ("win", 2, "ten and a half (10½) beats the bank's 10: ten and a half ranks above an ordinary hand; "
                       "ten and a half pays ×2")}),
    ("zhejiang: five small beats the bank's 10½",
     Hand("zhejiang-ten-half", ["AS", "10H", "AH", "AD", "AC", "2S", "KH"], {"C1": ["hit"] * 4, "B": ["hit"]}),
     {"C1": (6, "five-small"), "B": (10.5, "ten-and-a-half")},
     {"C1": ("win", 3, "five small (6) beats the bank's ten and a half (10½): five small ranks above ten and a half; "
                       "five small pays ×3")}),
    ("zhejiang: the bank's 10½ beats a 10", Hand("zhejiang-ten-half", ["10S", "10H", "KH"], {"B": ["hit"]}),
     {"C1": (10, "ordinary"), "B": (10.5, "ten-and-a-half")},
     {"C1": ("lose", 1, "the bank's ten and a half (10½) beats 10: ten and a half ranks above an ordinary hand")}),
    ("zhejiang: same total, more cards", Hand("zhejiang-ten-half", ["2S", "4H", "3S", "4S", "5H"], {"C1": ["hit"] * 2, "B": ["hit"]}),
     {"C1": (9, "ordinary"), "B": (9, "ordinary")}, {"C1": ("win", 1, "tie at 9: the hand with more cards wins")}),
    ("zhejiang: same total, the bank has more cards",
     Hand("zhejiang-ten-half", ["4S", "2H", "5S", "3H", "4H"], {"C1": ["hit"], "B": ["hit"] * 2}),
     {"C1": (9, "ordinary"), "B": (9, "ordinary")}, {"C1": ("lose", 1, "tie at 9: the hand with more cards wins")}),
    ("zhejiang: a full tie", Hand("zhejiang-ten-half", ["9S", "9H"]), {"C1": (9, "ordinary"), "B": (9, "ordinary")},
     {"C1": ("lose", 1, "tie at 9: the bank wins ties")}),
    ("zhejiang: the banker multiplies (house rule)",
     Hand("zhejiang-ten-half", ["9S", "AS", "AH", "AD", "AC", "2S"], {"B": ["hit"] * 4}, overrides={"banker_multiplies": True}),
     {"C1": (9, "ordinary"), "B": (6, "five-small")},
     {"C1": ("lose", 3, "the bank's five small (6) beats 9: five small ranks above an ordinary hand; "
                        "the bank's five small takes ×3")}),
    # ban-luck.md "Deal and specials", "Five Dragon", "The banker's turn", "Comparing totals"
    ("ban-luck: Ban-Luck is paid at once", Hand("ban-luck", ["AS", "10H", "KS", "7H"]),
     {"C1": (21, "ban-luck"), "B": (17, "ordinary")},
     {"C1": ("win", 2, "dealt Ban-Luck: a special is paid at once, before anyone draws; Ban-Luck pays ×2")}),
    ("ban-luck: the bank's Ban-Ban", Hand("ban-luck", ["10S", "AH", "7S", "AD"]),
     {"C1": (17, "ordinary"), "B": (21, "ban-ban")},
     {"C1": ("lose", 3, "the bank was dealt Ban-Ban, which beats every hand without an equal special; "
                        "the bank's Ban-Ban takes ×3")}),
    ("ban-luck: Ban-Luck against the bank's Ban-Luck", Hand("ban-luck", ["AS", "AH", "KS", "KH"]),
     {"C1": (21, "ban-luck"), "B": (21, "ban-luck")},
     {"C1": ("push", 0, "Ban-Luck against the bank's Ban-Luck: a tie is a push")}),
    ("ban-luck: Ban-Luck against the bank's Ban-Ban", Hand("ban-luck", ["AS", "AH", "KS", "AD"]),
     {"C1": (21, "ban-luck"), "B": (21, "ban-ban")},
     {"C1": ("lose", 3, "the bank's Ban-Ban beats Ban-Luck; the bank's Ban-Ban takes ×3")}),
    ("ban-luck: equal totals push", Hand("ban-luck", ["10S", "10H", "8S", "8H"]),
     {"C1": (18, "ordinary"), "B": (18, "ordinary")},
     {"C1": ("push", 0, "18 against the bank's 18: a tie is a push")}),
    ("ban-luck: a bust on the fifth card", Hand("ban-luck", ["2S", "10H", "3S", "7H", "4S", "5S", "KS"]),
     {"C1": (24, "bust"), "B": (17, "ordinary")},
     {"C1": ("lose", 2, "bust with 24; five-card bust costs ×2")}),
    ("ban-luck: Five Dragon", Hand("ban-luck", ["2S", "10H", "3S", "9H", "4S", "5S", "AS"]),
     {"C1": (15, "five-dragon"), "B": (19, "ordinary")},
     {"C1": ("win", 2, "Five Dragon (15) beats the bank's 19: Five Dragon beats every other hand; Five Dragon pays ×2")}),
    ("ban-luck: the bank busts on its fifth card", Hand("ban-luck", ["10S", "2H", "7S", "3H", "4H", "5H", "KH"]),
     {"C1": (17, "ordinary"), "B": (24, "bust")},
     {"C1": ("win", 2, "the bank busts with 24; the bank's five-card bust pays ×2")}),
    ("ban-luck: the bank's Five Dragon", Hand("ban-luck", ["10S", "2H", "7S", "3H", "4H", "5H", "AH"]),
     {"C1": (17, "ordinary"), "B": (15, "five-dragon")},
     {"C1": ("lose", 2, "the bank's Five Dragon (15) beats 17: Five Dragon beats every other hand; "
                        "the bank's Five Dragon takes ×2")}),
]

TELL = """async (cases) => {
  const { tellAll } = await import("/static/js/feed.js");
  return cases.map(({ events, game, hands }) => {
    const handOf = (seat, i) => {
      const h = (hands[seat] || [])[i];
      return h ? { cards: h.cards.length, total: h.total, class: h.class, bust: h.bust } : null;
    };
    const { lines } = tellAll(events, { name: (id) => id, game: () => game, handOf });
    return lines.map((l) => ({ type: l.type, text: l.text, seat: l.seat, fair: l.fair, minor: l.minor }));
  });
}"""


def tell(player, hands: list[tuple[Hand, list[dict], dict]]) -> list[list[dict]]:
    """Each hand's lines as feed.js tells them in the player's page (its language's catalog)."""
    cases = [{"events": events, "game": hand.preset, "hands": final} for hand, events, final in hands]
    return player.page.evaluate(TELL, cases)


def test_every_result_says_why_in_each_game(server, players):
    played = []
    for name, hand, made, results in CASES:
        events, final = hand.play()
        # The deck made the hands the case is about, and the engine settled them as the case says.
        got = {seat: (phs[0]["total"], phs[0]["class"] if not phs[0]["bust"] else "bust") for seat, phs in final.items()}
        assert got == made, name
        settled = {e["bettor"]: (e["outcome"], e["multiplier"]) for e in events if e["type"] == "bet_settled"}
        assert settled == {k: v[:2] for k, v in results.items()}, name
        played.append((hand, events, final))

    reader = players(server, "reader", viewport={"width": 360, "height": 740})
    reader.goto("/verify/")
    told = tell(reader, played)
    for (name, _hand, _made, results), (_h, events, _f), lines in zip(CASES, played, told, strict=True):
        said = {line["seat"]: line["text"] for line in lines if line["type"] == "bet_settled"}
        for e in (e for e in events if e["type"] == "bet_settled"):
            outcome, mult, why = results[e["bettor"]]
            who = e["bettor"] if e["kind"] == "main" else f"{e['bettor']}'s side bet on {e['backs']}"
            expected = {"win": f"{who} wins ×{mult}, +{e['paid']}: {why}.",
                        "lose": f"{who} loses ×{mult}, −{e['paid']}: {why}.",
                        "push": f"{who}: push, the stake of {e['stake']} stays: {why}."}[outcome]
            assert said[e["bettor"]] == expected, name
    assert not reader.console_errors, reader.console_errors


def test_a_bet_is_one_line_and_the_fair_deal_lines_are_marked_for_the_fair_deal_tab(server, players):
    # C1 builds 20 with two chips then confirms; C2 bets at once; the side bettor chooses C1 then bets on it.
    hand = Hand("ten-half", ["10S", "9S", "9H", "KS"], {"C1": ["hit"]}, seats=("B", "C1", "C2"), side=("S1",), seeds=True,
                bets=[("C1", "chip", {"amount": 10}), ("C1", "chip", {"amount": 10}), ("C1", "confirm", {}),
                      ("C2", "bet", {"amount": 30}), ("S1", "back", {"seat": "C1"}),
                      ("S1", "side_bet", {"backs": "C1", "amount": 20})])
    events, final = hand.play()
    kinds = [e["type"] for e in events]
    assert kinds.count("bet_changed") == 2 and "side_bet_changed" in kinds  # the engine tells every chip
    assert {"seed_committed", "seed_received", "hand_over"} <= set(kinds)

    reader = players(server, "reader", viewport={"width": 360, "height": 740})
    reader.goto("/verify/")
    (lines,) = tell(reader, [(hand, events, final)])
    feed = [line for line in lines if not line["fair"]]
    fair = [line for line in lines if line["fair"]]
    bets = [line["text"] for line in feed if line["type"].startswith(("bet_", "side_bet_")) and line["type"] != "bet_settled"]
    assert bets == ["C1 bets 20.", "C2 bets 30.", "S1 side-bets 20 on C1."]
    assert {line["type"] for line in fair} == {"seed_committed", "seed_received", "hand_over"}
    assert [line["text"] for line in fair] == ["The server's seed for hand 1 is committed.",
                                               "C1's seed goes into the deal of hand 1.",
                                               "Hand 1 is over; its server seed is revealed."]
    assert not [line for line in feed if line["type"].startswith("seed_") or line["type"] == "hand_over"]
    assert {"hand_started", "card_dealt", "hand_revealed", "bet_settled"} <= {line["type"] for line in feed}
    assert not reader.console_errors, reader.console_errors
