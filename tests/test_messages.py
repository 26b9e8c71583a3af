"""Rule problems and rule choices as words: every code of rules.py has its own message."""

import pytest

from scorekeeper import rules
from scorekeeper.rules import BidReveal, BidRule, PlanKind, Problem, Suit, TrumpCause
from scorekeeper.wording import messages

NAMES = ["Ann", "Bob", "Cat", "Dan"]


def codes_in_rules_module() -> list[str]:
    return sorted(code.value for code in rules.ProblemCode)


@pytest.fixture(autouse=True)
def _request_context(app):
    with app.test_request_context():
        yield


def test_the_rules_module_lists_its_problem_codes():
    codes = codes_in_rules_module()
    assert len(codes) > 40
    assert {"forbidden_bid", "tricks_total", "bid_rule_needs_open_bids"} <= set(codes)


@pytest.mark.parametrize("code", codes_in_rules_module())
def test_every_problem_code_has_its_own_message(code):
    problem = Problem(code, "field", seat=1, values={"value": 2, "min": 1, "max": 5})
    text = messages.problem_message(problem, NAMES)
    assert code in messages.KNOWN_CODES
    assert text != messages.fallback_message(problem)
    assert text
    assert "%(" not in text
    assert code not in text


def test_unknown_code_falls_back_to_a_sentence_naming_it():
    text = messages.problem_message(Problem("brand_new_code"))
    assert text == "This breaks the game's rules (brand_new_code)."


def test_every_problem_the_rules_module_raises_in_practice_reads_well():
    """Real problems from rules.py, with the values it attaches, become full sentences."""
    found = [
        *rules.validate_rules(players=2),
        *rules.validate_rules(players=7),
        *rules.validate_rules(players=4, bid_reveal="hidden"),
        *rules.validate_rules(players=4, plan=rules.RoundPlan(PlanKind.FIRST_N, rounds=99)),
        *rules.validate_rules(players=4, plan=rules.RoundPlan(PlanKind.CUSTOM, custom=(1, 16))),
        *rules.validate_rules(players=4, jubilee=rules.JubileeCards(dragon=True)),
    ]
    texts = [messages.problem_message(problem, NAMES) for problem in found]
    assert texts == [
        "Wizard needs at least 3 players: add 1 more.",
        "Wizard is played by at most 6 players: take 1 off.",
        "±1 needs open bids: with hidden bids nobody bids last. "
        "Choose the free bid rule, or open bids.",
        "With this many players play 1 to 15 rounds, not 99.",
        "Round 2: a hand holds 1 to 15 cards with this many players, not 16.",
        "The Dragon and the Fairy are played together: add the Fairy too.",
    ]


def plus_minus_rules(**options):
    return rules.GameRules(players=4, **options)


def test_forbidden_bid_under_plus_minus_one_names_the_player():
    game = plus_minus_rules()
    # Dealer seat 3 (Dan) bids last; 1 + 1 + 1 bid so far with 5 cards: Dan may not bid 2.
    bids = {0: 1, 1: 1, 2: 1, 3: 2}
    (problem,) = rules.validate_bids(game, 5, 5, 3, bids, ())
    assert messages.problem_message(problem, NAMES) == (
        "±1: the bids may not add up to 5, so Dan may not bid 2"
    )
    forbidden = rules.forbidden_bid(game, 5, 5, 3, bids, ())
    assert messages.forbidden_bid_message(forbidden, NAMES) == (
        "±1: the bids may not add up to 5, so Dan may not bid 2"
    )


def test_forbidden_bid_under_canadian_says_the_leader_is_bound_and_zero_is_allowed():
    game = plus_minus_rules(bid_rule=BidRule.CANADIAN)
    bids = {1: 1, 2: 1, 3: 1, 0: 2}
    forbidden = rules.forbidden_bid(game, 5, 5, 0, bids, (50, 10, 0, 0))
    assert messages.forbidden_bid_message(forbidden, NAMES) == (
        "Canadian: Ann leads alone, so the bids may not add up to 5"
        " (Ann may not bid 2; zero is always allowed)"
    )
    final = plus_minus_rules(bid_rule=BidRule.CANADIAN_FINAL)
    forbidden = rules.forbidden_bid(final, 15, 5, 0, bids, (50, 10, 0, 0))
    assert messages.forbidden_bid_message(forbidden, NAMES).startswith(
        "Canadian, final hand: Ann leads alone"
    )


def test_tricks_total_shows_both_numbers_and_the_bomb_reason():
    game = plus_minus_rules(jubilee=rules.JubileeCards(bomb=True))
    (problem,) = rules.validate_tricks(game, 5, {0: 1, 1: 1, 2: 1, 3: 1}, False)
    assert messages.problem_message(problem, NAMES) == (
        "The tricks add up to 4, but 5 tricks were played this round"
    )
    (problem,) = rules.validate_tricks(game, 5, {0: 2, 1: 1, 2: 1, 3: 1}, True)
    assert messages.problem_message(problem, NAMES) == (
        "The tricks add up to 5, but 4 tricks were won this round"
        " (the Bomb's trick goes to nobody)"
    )


def test_tricks_total_of_a_one_card_round_reads_in_the_singular():
    game = plus_minus_rules(jubilee=rules.JubileeCards(bomb=True))
    (problem,) = rules.validate_tricks(game, 1, {0: 1, 1: 1, 2: 0, 3: 0}, False)
    assert messages.problem_message(problem, NAMES) == (
        "The tricks add up to 2, but 1 trick was played this round"
    )
    (problem,) = rules.validate_tricks(game, 2, {0: 1, 1: 1, 2: 0, 3: 0}, True)
    assert messages.problem_message(problem, NAMES) == (
        "The tricks add up to 2, but 1 trick was won this round (the Bomb's trick goes to nobody)"
    )


def test_seat_problems_use_names_or_seat_numbers():
    problem = Problem("bid_out_of_range", "bid", 2, {"value": 7, "min": 0, "max": 5})
    assert messages.problem_message(problem, NAMES) == "Cat can bid 0 to 5, not 7."
    assert messages.problem_message(problem) == "seat 3 can bid 0 to 5, not 7."
    dealer = Problem("dealer_out_of_range", "dealer", values={"value": 4, "max": 3})
    assert messages.problem_message(dealer) == (
        "There is no seat 5 for the dealer at this table (1 to 4)."
    )


def test_round_prefix_only_when_asked():
    problem = Problem("bid_missing", "bid", 0, round_number=4)
    assert messages.problem_message(problem, NAMES) == "Bid missing for Ann."
    assert messages.problem_message(problem, NAMES, with_round=True) == (
        "Round 4: Bid missing for Ann."
    )


def test_cloud_and_trump_messages():
    cloud = rules.validate_cloud(5, {0: 2}, 0, 4)
    assert messages.problem_message(cloud[0], NAMES) == (
        "The Cloud changes a bid by exactly one: Ann bid 2, so 1 or 3, not 4."
    )
    game = plus_minus_rules()
    (wizard,) = rules.validate_trump(game, 1, 1, "wizard", None)
    assert messages.problem_message(wizard) == (
        "Wizard turned up: the dealer chooses a suit (no trump is not allowed)."
    )
    (jester,) = rules.validate_trump(game, 1, 1, "jester", "hearts")
    assert messages.problem_message(jester) == "Jester turned up means no trump, not ♥ Hearts."
    (dragon,) = rules.validate_trump(game, 1, 1, "dragon", "hearts")
    assert messages.problem_message(dragon) == "Dragon cannot decide the trump in this game."
    (last,) = rules.validate_trump(game, 15, 15, "suit", "hearts")
    assert "Every card was dealt" in messages.problem_message(last)


def test_labels_of_every_choice_are_translated_words_not_codes():
    for rule in BidRule:
        assert messages.bid_rule_label(rule) != rule.value
        assert messages.bid_rule_explanation(rule).endswith(".")
    for kind in PlanKind:
        assert messages.plan_label(kind) != kind.value
        assert messages.plan_explanation(kind).endswith(".")
    for reveal in BidReveal:
        assert messages.reveal_label(reveal) != reveal.value
        assert messages.reveal_explanation(reveal).endswith(".")
    for cause in TrumpCause:
        assert messages.cause_label(cause) != cause.value
        assert messages.cause_explanation(cause).endswith(".")
    for note in rules.TABLE_ONLY_RULES:
        assert messages.table_note_label(note) != note
    for card in ("bomb", "cloud", "werewolf", "dragon_fairy", "bomb_cancels_bids"):
        assert messages.jubilee_label(card) != card
        assert messages.jubilee_explanation(card).endswith(".")
    for name in ("saboteur", "jester_bid", "tie_break_by_bids"):
        assert messages.variant_label(name) != name
        assert messages.variant_explanation(name).endswith(".")
    for kind in rules.TieBreak:
        assert messages.tie_break_label(kind) != kind.value
        assert messages.tie_break_explanation(kind).endswith(".")


def test_the_rules_line_says_the_bid_rules_hand_size_and_the_tie_break():
    game_rules = rules.GameRules(players=4, bid_rule_from=3, tie_break=rules.TieBreak.BIDS_MET)
    assert messages.rules_summary(game_rules) == (
        "Standard · ±1 from 3 cards · open bids · Tie-break: More bids met"
    )
    canadian = rules.GameRules(players=4, bid_rule=BidRule.CANADIAN, bid_rule_from=5)
    assert ("Bid rule", "Canadian from 5 cards") in messages.rules_details(canadian)
    assert messages.rule_mark("bid_rule", "free") == "Official"
    assert messages.rule_mark("bid_rule", "plus_minus_one") == "House rule"


@pytest.mark.parametrize(
    ("problem", "message"),
    [
        (
            rules.Problem("cloud_holder_no_trick", "tricks", 1),
            "Bob has the Cloud, so won its trick: at least 1 trick, not 0.",
        ),
        (
            rules.Problem("bid_rule_from_not_applicable", values={"bid_rule": "free"}),
            "Only ±1 and Canadian can start from a hand size, not Free.",
        ),
        (
            rules.Problem("bid_rule_from_out_of_range", values={"value": 16, "max": 15}),
            "The bid rule can start from 1 to 15 cards with this many players, not 16.",
        ),
        (
            rules.Problem("plan_start_out_of_range", values={"value": 3}),
            "Quick play starts with 1 or 2 cards, not 3.",
        ),
        (
            rules.Problem("tie_break_conflict", values={"value": "bids_met"}),
            "The tie-break is given twice and the two do not agree (“bids_met”).",
        ),
    ],
)
def test_the_new_rule_problems_have_sentences(problem, message):
    assert messages.problem_message(problem, ["Ann", "Bob", "Cat"]) == message


def test_trump_labels_use_the_suit_symbols():
    assert [messages.trump_symbol(suit) for suit in rules.SUIT_ORDER] == ["♣", "♦", "♥", "♠"]
    assert messages.trump_label(Suit.HEARTS) == "♥ Hearts"
    assert messages.trump_label("spades") == "♠ Spades"
    assert messages.trump_label(None) == "No trump"
    assert messages.bid_rule_label("plus_minus_one") == "±1"


def test_plan_label_with_details():
    assert messages.plan_label(rules.RoundPlan(PlanKind.FIRST_N, rounds=5)) == "First 5 rounds"
    assert messages.plan_label(rules.RoundPlan(PlanKind.FIRST_N, rounds=1)) == "First round only"
    custom = rules.RoundPlan(PlanKind.CUSTOM, custom=(1, 2, 3, 5))
    assert messages.plan_label(custom) == "Custom: 1, 2, 3, 5"
    assert messages.plan_label(rules.RoundPlan()) == "Standard"


def test_rules_summary_is_one_short_line():
    assert messages.rules_summary(rules.GameRules(players=4)) == "Standard · ±1 · open bids"
    busy = rules.GameRules(
        players=4,
        plan=rules.RoundPlan(PlanKind.QUICK),
        bid_rule=BidRule.FREE,
        bid_reveal=BidReveal.SECRET,
        saboteur=True,
        jubilee=rules.JubileeCards(bomb=True, dragon=True, fairy=True),
        table_notes=("juggler",),
    )
    assert messages.rules_summary(busy) == (
        "Quick play · Free · secret bids · Saboteur · Jubilee: Bomb, Dragon and Fairy"
    )
    assert messages.rules_details(busy) == [
        ("Players", "4"),
        ("Round plan", "Quick play"),
        ("Cards per round", "1, 3, 5, 7, 9, 11, 13, 15"),
        ("Bid rule", "Free"),
        ("Bids", "Secret"),
        ("Variants", "Saboteur"),
        ("Tie-break", "Shared win"),
        ("Jubilee cards", "Bomb, Dragon and Fairy"),
        ("At the table", "Juggler"),
    ]


def test_rules_details_of_a_plain_game_say_there_are_no_variants():
    plain = rules.GameRules(players=3)
    details = dict(messages.rules_details(plain))
    assert details["Bid rule"] == "±1" == messages.rules_summary(plain).split(" · ")[1]
    assert details["Variants"] == "none"
    assert "Jubilee cards" not in details
    assert "At the table" not in details


def test_the_four_suits_of_maximus_stay_on_one_line():
    for text in (
        messages.plan_explanation(PlanKind.MAXIMUS),
        messages.cause_explanation(TrumpCause.FIXED),
    ):
        assert "♣\u00a0♦\u00a0♥\u00a0♠" in text


def test_suit_symbols_in_a_sentence_are_hidden_from_screen_readers():
    shown = messages.trump_symbols_hidden("Trump for round 3: ♥ Hearts <b>")
    assert shown == (
        'Trump for round 3: <span class="sym" aria-hidden="true">♥</span> Hearts &lt;b&gt;'
    )
    assert messages.trump_symbols_hidden("Ann & Bob") == "Ann &amp; Bob"
