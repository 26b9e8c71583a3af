"""Table-driven tests of the game rules and scoring (scorekeeper.rules)."""

import json
import pickle

import pytest

from scorekeeper import rules as rules_module
from scorekeeper.rules import (
    BASE_DECK,
    SUIT_ORDER,
    TABLE_ONLY_RULES,
    BidReveal,
    BidRule,
    CloudChange,
    ForbiddenBid,
    GameRules,
    JubileeCards,
    PlanKind,
    Problem,
    ProblemCode,
    ProblemValues,
    RoundPlan,
    RoundRecord,
    RulesError,
    Suit,
    TieBreak,
    TrumpCause,
    bid_can_change,
    bid_order,
    bids_are_secret,
    cards_left_to_turn,
    dealer_seat,
    everyone_made_bid_possible,
    first_lead,
    flagged_rounds,
    forbidden_bid,
    hand_size,
    is_final_round,
    next_seat,
    offline_plan,
    rank,
    remaining_tricks,
    required_trick_total,
    resolve_trump,
    round_points,
    score_sheet,
    trump_choice,
    trump_suits_allowed,
    validate_bid_change,
    validate_bids,
    validate_cloud,
    validate_round,
    validate_rules,
    validate_tricks,
    validate_trump,
)


def codes(problems: tuple[Problem, ...]) -> list[str]:
    return [problem.code for problem in problems]


def error_codes(excinfo: pytest.ExceptionInfo[RulesError]) -> list[str]:
    return codes(excinfo.value.problems)


ALL_JUBILEE = JubileeCards(bomb=True, cloud=True, werewolf=True, dragon=True, fairy=True)


# --------------------------------------------------------------------------------------------
# Problems are data
# --------------------------------------------------------------------------------------------


def test_problem_values_compare_equal_by_content_and_problems_are_hashable():
    one = Problem("forbidden_bid", "bid", 2, {"value": 2, "hand_size": 5})
    two = Problem("forbidden_bid", "bid", 2, {"hand_size": 5, "value": 2})
    assert one == two
    assert hash(one) == hash(two)
    assert one.values == {"value": 2, "hand_size": 5}
    assert len({one, two}) == 1
    assert one != Problem("forbidden_bid", "bid", 2, {"value": 3, "hand_size": 5})


def test_problem_values_behave_as_a_read_only_mapping():
    values = ProblemValues({"rule": BidRule.CANADIAN, "value": 0})
    assert values["rule"] == "canadian"
    assert type(values["rule"]) is str
    assert list(values) == ["rule", "value"]
    assert len(values) == 2
    assert repr(values) == "{'rule': 'canadian', 'value': 0}"
    assert values != 5
    assert ProblemValues() == {}
    with pytest.raises(KeyError):
        values["missing"]


def test_problem_to_dict_is_json_ready_and_leaves_out_what_is_not_set():
    full = Problem("forbidden_bid", "bid", 2, {"value": 2}, round_number=3)
    assert full.to_dict() == {
        "code": "forbidden_bid",
        "field": "bid",
        "seat": 2,
        "values": {"value": 2},
        "round_number": 3,
    }
    assert Problem("plan_custom_empty").to_dict() == {"code": "plan_custom_empty"}
    json.dumps(full.to_dict())


def test_rules_error_is_a_value_error_whose_text_lists_the_codes():
    error = RulesError([Problem("a"), Problem("b")])
    assert isinstance(error, ValueError)
    assert str(error) == "a, b"
    assert error.codes == ("a", "b")
    copy = pickle.loads(pickle.dumps(error))
    assert copy.problems == error.problems


# --------------------------------------------------------------------------------------------
# Round plans
# --------------------------------------------------------------------------------------------

PLAN_TABLE = [
    # standard: 1 … 60 ÷ players
    (PlanKind.STANDARD, 3, tuple(range(1, 21))),
    (PlanKind.STANDARD, 4, tuple(range(1, 16))),
    (PlanKind.STANDARD, 5, tuple(range(1, 13))),
    (PlanKind.STANDARD, 6, tuple(range(1, 11))),
    # quick play as published: +2 each round, ending with the full deal, from 2 cards where
    # the full deal is even and from 1 where it is odd
    (PlanKind.QUICK, 3, (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)),
    (PlanKind.QUICK, 4, (1, 3, 5, 7, 9, 11, 13, 15)),
    (PlanKind.QUICK, 5, (2, 4, 6, 8, 10, 12)),
    (PlanKind.QUICK, 6, (2, 4, 6, 8, 10)),
    # tournament: 10 rounds
    (PlanKind.TOURNAMENT, 3, (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)),
    (PlanKind.TOURNAMENT, 4, (1, 3, 5, 7, 9, 11, 12, 13, 14, 15)),
    (PlanKind.TOURNAMENT, 5, (2, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
    (PlanKind.TOURNAMENT, 6, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)),
    # maximus: 5 rounds, every card dealt
    (PlanKind.MAXIMUS, 3, (20,) * 5),
    (PlanKind.MAXIMUS, 4, (15,) * 5),
    (PlanKind.MAXIMUS, 5, (12,) * 5),
    (PlanKind.MAXIMUS, 6, (10,) * 5),
]


@pytest.mark.parametrize(("kind", "players", "expected"), PLAN_TABLE)
def test_round_plan_hand_sizes_follow_the_design_table(kind, players, expected):
    assert RoundPlan(kind).hand_sizes(players) == expected
    rules = GameRules(players, plan=RoundPlan(kind))
    assert rules.hand_sizes == expected
    assert rules.round_count == len(expected)


def test_standard_plan_has_20_15_12_10_rounds_for_3_to_6_players():
    assert [GameRules(p).round_count for p in (3, 4, 5, 6)] == [20, 15, 12, 10]


@pytest.mark.parametrize(("players", "rounds"), [(3, 5), (4, 1), (5, 12), (6, 10)])
def test_first_n_plan_is_the_standard_plan_cut_after_n_rounds(players, rounds):
    plan = RoundPlan(PlanKind.FIRST_N, rounds=rounds)
    assert plan.hand_sizes(players) == tuple(range(1, rounds + 1))


@pytest.mark.parametrize(("players", "rounds"), [(3, 0), (3, 21), (4, 16), (6, 11), (5, -1)])
def test_first_n_plan_with_n_below_one_or_above_standard_length_is_refused(players, rounds):
    with pytest.raises(RulesError) as excinfo:
        GameRules(players, plan=RoundPlan(PlanKind.FIRST_N, rounds=rounds))
    (problem,) = excinfo.value.problems
    assert problem.code == "plan_rounds_out_of_range"
    assert problem.field == "plan"
    assert problem.values == {"value": rounds, "min": 1, "max": 60 // players}


@pytest.mark.parametrize("rounds", [None, "5", True])
def test_first_n_plan_without_a_whole_number_n_is_refused(rounds):
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, plan=RoundPlan(PlanKind.FIRST_N, rounds=rounds))
    assert error_codes(excinfo) == ["plan_rounds_missing"]


def test_custom_plan_uses_the_given_hand_sizes():
    plan = RoundPlan(PlanKind.CUSTOM, custom=[1, 15, 7])
    assert plan.custom == (1, 15, 7)
    assert GameRules(4, plan=plan).hand_sizes == (1, 15, 7)


@pytest.mark.parametrize(
    ("players", "custom", "bad"),
    [
        (4, (1, 16), [(2, 16)]),
        (3, (0, 20), [(1, 0)]),
        (6, (11, 3, -2), [(1, 11), (3, -2)]),
        (5, (2, "3"), [(2, "3")]),
    ],
)
def test_custom_plan_with_a_hand_size_above_60_over_players_or_below_one_is_refused(
    players, custom, bad
):
    with pytest.raises(RulesError) as excinfo:
        GameRules(players, plan=RoundPlan(PlanKind.CUSTOM, custom=custom))
    assert [(p.code, p.values["round"], p.values["value"]) for p in excinfo.value.problems] == [
        ("plan_hand_size_out_of_range", number, value) for number, value in bad
    ]
    assert excinfo.value.problems[0].values["max"] == 60 // players


def test_empty_custom_plan_is_refused():
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, plan=RoundPlan(PlanKind.CUSTOM))
    assert error_codes(excinfo) == ["plan_custom_empty"]


def test_a_custom_plan_longer_than_the_deck_is_refused():
    assert RoundPlan(PlanKind.CUSTOM, custom=(1,) * 60).problems(6) == ()
    problems = RoundPlan(PlanKind.CUSTOM, custom=(1,) * 61).problems(6)
    assert [(p.code, p.values) for p in problems] == [
        ("plan_custom_too_long", {"value": 61, "max": 60})
    ]


def test_rounds_or_hand_sizes_given_to_a_plan_that_does_not_use_them_are_refused():
    plan = RoundPlan(PlanKind.STANDARD, rounds=5, custom=(1, 2))
    assert codes(plan.problems(4)) == ["plan_rounds_not_applicable", "plan_custom_not_applicable"]


def test_unknown_plan_kind_is_refused_and_known_kind_strings_are_accepted():
    assert codes(RoundPlan("weekly").problems(4)) == ["plan_kind_invalid"]
    assert RoundPlan("quick").kind is PlanKind.QUICK


def test_plan_hand_sizes_for_an_impossible_table_raise():
    with pytest.raises(RulesError) as excinfo:
        RoundPlan().hand_sizes(7)
    assert error_codes(excinfo) == ["players_out_of_range"]
    with pytest.raises(RulesError) as excinfo:
        RoundPlan(PlanKind.CUSTOM).hand_sizes(4)
    assert error_codes(excinfo) == ["plan_custom_empty"]


# --------------------------------------------------------------------------------------------
# Game rules
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 7, 0])
def test_games_need_three_to_six_players(players):
    with pytest.raises(RulesError) as excinfo:
        GameRules(players)
    (problem,) = excinfo.value.problems
    assert problem == Problem(
        "players_out_of_range", "players", values={"value": players, "min": 3, "max": 6}
    )


@pytest.mark.parametrize("players", ["4", True, None, 4.0])
def test_player_count_must_be_a_whole_number(players):
    with pytest.raises(RulesError) as excinfo:
        GameRules(players)
    assert error_codes(excinfo) == ["players_invalid"]


@pytest.mark.parametrize("reveal", [BidReveal.HIDDEN, BidReveal.SECRET])
@pytest.mark.parametrize(
    "bid_rule", [BidRule.PLUS_MINUS_ONE, BidRule.CANADIAN, BidRule.CANADIAN_FINAL]
)
def test_hidden_or_secret_bids_are_refused_with_plus_minus_one_or_canadian(reveal, bid_rule):
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, bid_rule=bid_rule, bid_reveal=reveal)
    assert excinfo.value.problems == (
        Problem(
            "bid_rule_needs_open_bids",
            "bid_rule",
            values={"bid_rule": bid_rule, "bid_reveal": reveal},
        ),
    )


@pytest.mark.parametrize("reveal", list(BidReveal))
def test_free_bids_go_with_every_bid_reveal(reveal):
    assert GameRules(4, bid_rule=BidRule.FREE, bid_reveal=reveal).bid_reveal is reveal


def test_rule_choices_given_as_strings_are_read_as_their_enums():
    rules = GameRules(4, bid_rule="canadian", bid_reveal="open", table_notes=["juggler"])
    assert rules.bid_rule is BidRule.CANADIAN
    assert rules.bid_reveal is BidReveal.OPEN
    assert rules.table_notes == ("juggler",)


def test_unknown_bid_rule_and_bid_reveal_are_refused():
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, bid_rule="strict", bid_reveal="whispered")
    assert error_codes(excinfo) == ["bid_rule_invalid", "bid_reveal_invalid"]


@pytest.mark.parametrize(
    ("cards", "missing"),
    [(JubileeCards(dragon=True), "fairy"), (JubileeCards(fairy=True), "dragon")],
)
def test_dragon_without_fairy_or_fairy_without_dragon_is_refused(cards, missing):
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, jubilee=cards)
    assert excinfo.value.problems == (
        Problem("dragon_and_fairy_together", "jubilee", values={"missing": missing}),
    )


def test_dragon_and_fairy_together_are_accepted():
    assert GameRules(4, jubilee=JubileeCards(dragon=True, fairy=True)).jubilee.count == 2


def test_table_notes_must_be_known_table_only_rules_listed_once():
    assert GameRules(4, table_notes=TABLE_ONLY_RULES).table_notes == TABLE_ONLY_RULES
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, table_notes=("foresight", "double_down", "foresight"))
    assert [(p.code, p.values["value"]) for p in excinfo.value.problems] == [
        ("table_note_unknown", "double_down"),
        ("table_note_repeated", "foresight"),
    ]
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, table_notes="foresight")
    assert error_codes(excinfo) == ["table_notes_invalid"]


def test_switches_of_the_rules_must_be_true_or_false():
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, saboteur="yes", jubilee=JubileeCards(bomb=1))
    assert [(p.code, p.field) for p in excinfo.value.problems] == [
        ("value_invalid", "saboteur"),
        ("value_invalid", "jubilee.bomb"),
    ]


def test_plan_and_jubilee_of_the_wrong_type_are_refused():
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, plan="standard", jubilee={"bomb": True})
    assert error_codes(excinfo) == ["plan_invalid", "jubilee_invalid"]


def test_building_rules_reports_every_problem_at_once():
    with pytest.raises(RulesError) as excinfo:
        GameRules(
            7,
            bid_reveal=BidReveal.SECRET,
            jubilee=JubileeCards(dragon=True),
            table_notes=("nope",),
        )
    assert error_codes(excinfo) == [
        "players_out_of_range",
        "bid_rule_needs_open_bids",
        "dragon_and_fairy_together",
        "table_note_unknown",
    ]


def test_deck_has_60_cards_plus_one_per_jubilee_special_card_in_play():
    assert GameRules(4).deck_size == BASE_DECK == 60
    assert GameRules(4, jubilee=JubileeCards(bomb=True, cloud=True)).deck_size == 62
    assert GameRules(4, jubilee=ALL_JUBILEE).deck_size == 65
    assert JubileeCards(bomb_cancels_bids=True).count == 0


@pytest.mark.parametrize(("players", "top"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_largest_hand_is_60_over_players(players, top):
    assert GameRules(players).max_hand_size == top


ROUND_TRIP_RULES = [
    GameRules(4),
    GameRules(
        3,
        plan=RoundPlan(PlanKind.FIRST_N, rounds=5),
        bid_rule=BidRule.CANADIAN,
        saboteur=True,
        tie_break=TieBreak.BID_SUM,
        bid_rule_from=4,
    ),
    GameRules(
        6,
        plan=RoundPlan(PlanKind.CUSTOM, custom=(1, 10, 3)),
        bid_rule=BidRule.FREE,
        bid_reveal=BidReveal.SECRET,
        jester_bid=True,
        jubilee=JubileeCards(True, True, True, True, True, True),
        table_notes=("pull_one", "juggler"),
    ),
]


@pytest.mark.parametrize("rules", ROUND_TRIP_RULES)
def test_rules_to_dict_is_json_ready_and_from_dict_rebuilds_them(rules):
    data = rules.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert GameRules.from_dict(data) == rules
    assert set(data) == {
        "players",
        "plan",
        "bid_rule",
        "bid_reveal",
        "saboteur",
        "jester_bid",
        "jubilee",
        "table_notes",
        "bid_rule_from",
        "tie_break",
    }


def test_rules_to_dict_writes_plans_by_kind():
    assert RoundPlan().to_dict() == {"kind": "standard"}
    assert RoundPlan(PlanKind.FIRST_N, rounds=5).to_dict() == {"kind": "first_n", "rounds": 5}
    assert RoundPlan(PlanKind.CUSTOM, custom=(2, 3)).to_dict() == {
        "kind": "custom",
        "custom": [2, 3],
    }


def test_rules_from_dict_fills_missing_choices_with_defaults():
    assert GameRules.from_dict({"players": 5}) == GameRules(5)
    assert GameRules.from_dict({"players": 5, "plan": {}, "jubilee": {}}) == GameRules(5)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([], ["rules_invalid"]),
        ("players=4", ["rules_invalid"]),
        ({}, ["players_missing"]),
        ({"players": 4, "colour": "red"}, ["field_unknown"]),
        ({"players": "4"}, ["players_invalid"]),
        ({"players": 4, "plan": "standard"}, ["plan_invalid"]),
        ({"players": 4, "plan": {"kind": "standard", "size": 3}}, ["field_unknown"]),
        ({"players": 4, "plan": {"kind": "custom", "custom": 3}}, ["plan_invalid"]),
        ({"players": 4, "plan": {"kind": "custom", "custom": [1, None]}}, None),
        ({"players": 4, "plan": {"kind": "nightly"}}, ["plan_kind_invalid"]),
        ({"players": 4, "plan": {"kind": "first_n", "rounds": "x"}}, ["plan_rounds_missing"]),
        ({"players": 4, "jubilee": [True]}, ["jubilee_invalid"]),
        ({"players": 4, "jubilee": {"juggler": True}}, ["field_unknown"]),
        ({"players": 4, "jubilee": {"bomb": "on"}}, ["value_invalid"]),
        ({"players": 4, "table_notes": "foresight"}, ["table_notes_invalid"]),
        ({"players": 4, "table_notes": [["x"]]}, ["table_note_unknown"]),
        ({"players": 4, "bid_rule": 3}, ["bid_rule_invalid"]),
        ({"players": 4, "saboteur": "false"}, ["value_invalid"]),
    ],
)
def test_rules_from_bad_data_raise_rules_error_never_key_or_type_error(data, expected):
    with pytest.raises(RulesError) as excinfo:
        GameRules.from_dict(data)
    if expected is None:
        assert error_codes(excinfo) == ["plan_hand_size_out_of_range"]
    else:
        assert error_codes(excinfo) == expected


def test_with_plan_changes_only_the_plan_and_checks_it():
    rules = GameRules(4, bid_rule=BidRule.CANADIAN)
    custom = rules.with_plan(RoundPlan(PlanKind.CUSTOM, custom=(3, 4)))
    assert custom.hand_sizes == (3, 4)
    assert custom.bid_rule is BidRule.CANADIAN
    assert rules.hand_sizes == tuple(range(1, 16))
    with pytest.raises(RulesError):
        rules.with_plan(RoundPlan(PlanKind.CUSTOM, custom=(16,)))


def test_validate_rules_returns_the_problems_instead_of_raising():
    assert validate_rules(players=4, bid_rule="canadian") == ()
    assert codes(validate_rules(players=2)) == ["players_out_of_range"]
    assert codes(validate_rules(bid_rule="free")) == ["players_missing"]
    assert codes(validate_rules(players=4, colour="red")) == ["field_unknown"]


def test_rules_are_immutable():
    rules = GameRules(4)
    with pytest.raises(AttributeError):
        rules.players = 5  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# Rounds and seats
# --------------------------------------------------------------------------------------------


def test_hand_size_of_a_round_comes_from_the_plan():
    rules = GameRules(4, plan=RoundPlan(PlanKind.QUICK))
    assert [hand_size(rules, n) for n in range(1, 9)] == [1, 3, 5, 7, 9, 11, 13, 15]


@pytest.mark.parametrize("number", [0, 9, "1"])
def test_hand_size_of_a_round_outside_the_plan_is_refused(number):
    with pytest.raises(RulesError) as excinfo:
        hand_size(GameRules(4, plan=RoundPlan(PlanKind.QUICK)), number)
    (problem,) = excinfo.value.problems
    assert problem.code == "round_number_out_of_range"
    assert problem.values["max"] == 8


def test_final_round_is_the_last_planned_round():
    rules = GameRules(5)
    assert is_final_round(rules, 12)
    assert not is_final_round(rules, 11)


@pytest.mark.parametrize(
    ("first", "number", "players", "dealer"),
    [(0, 1, 4, 0), (0, 2, 4, 1), (3, 2, 4, 0), (2, 7, 3, 2), (5, 10, 6, 2)],
)
def test_deal_passes_clockwise_every_round_from_the_first_dealer(first, number, players, dealer):
    assert dealer_seat(first, number, players) == dealer


def test_next_seat_is_to_the_left_and_wraps_around():
    assert next_seat(0, 3) == 1
    assert next_seat(2, 3) == 0


@pytest.mark.parametrize(
    ("players", "dealer", "order"),
    [(3, 0, (1, 2, 0)), (4, 2, (3, 0, 1, 2)), (6, 5, (0, 1, 2, 3, 4, 5))],
)
def test_bidding_starts_left_of_the_dealer_and_the_dealer_bids_last(players, dealer, order):
    assert bid_order(GameRules(players), dealer) == order


@pytest.mark.parametrize(("players", "dealer", "order"), [(3, 0, (1, 2)), (4, 2, (3, 0, 1))])
def test_saboteur_dealer_does_not_bid_and_the_player_right_of_the_dealer_bids_last(
    players, dealer, order
):
    assert bid_order(GameRules(players, saboteur=True), dealer) == order


def test_first_trick_is_led_by_the_player_left_of_the_dealer():
    assert first_lead(0, 4) == 1
    assert first_lead(3, 4) == 0


@pytest.mark.parametrize(
    ("players", "hand", "left"),
    [(3, 19, True), (3, 20, False), (4, 15, False), (5, 12, False), (6, 9, True), (6, 10, False)],
)
def test_a_card_is_left_to_turn_unless_every_card_was_dealt(players, hand, left):
    assert cards_left_to_turn(GameRules(players), hand) is left


def test_with_jubilee_cards_a_card_is_left_to_turn_even_in_the_last_round():
    assert cards_left_to_turn(GameRules(3, jubilee=JubileeCards(bomb=True)), 20)


# --------------------------------------------------------------------------------------------
# Trump
# --------------------------------------------------------------------------------------------


def test_trump_is_decided_by_a_suit_jester_or_wizard_turned_up():
    choice = trump_choice(GameRules(4), 3, 3)
    assert choice.causes == (TrumpCause.SUIT, TrumpCause.JESTER, TrumpCause.WIZARD)
    assert choice.automatic is None


def test_jubilee_special_cards_turned_up_are_offered_only_when_in_play():
    rules = GameRules(4, jubilee=ALL_JUBILEE)
    assert trump_choice(rules, 3, 3).causes == (
        TrumpCause.SUIT,
        TrumpCause.JESTER,
        TrumpCause.WIZARD,
        TrumpCause.DRAGON,
        TrumpCause.CLOUD,
        TrumpCause.WEREWOLF,
        TrumpCause.FAIRY,
        TrumpCause.BOMB,
    )
    only_bomb = GameRules(4, jubilee=JubileeCards(bomb=True))
    assert trump_choice(only_bomb, 3, 3).causes[3:] == (TrumpCause.BOMB,)


@pytest.mark.parametrize(("players", "last"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_last_round_without_a_card_to_turn_has_no_trump_automatically(players, last):
    rules = GameRules(players)
    choice = trump_choice(rules, last, last)
    assert choice.causes == ()
    assert choice.automatic == (TrumpCause.NONE_LEFT, None)
    assert validate_trump(rules, last, last, None, None) == ()
    assert resolve_trump(rules, last, last, None, None) is None


def test_last_round_with_jubilee_cards_still_asks_for_the_trump():
    rules = GameRules(4, jubilee=JubileeCards(cloud=True))
    assert trump_choice(rules, 15, 15).automatic is None


@pytest.mark.parametrize(
    ("number", "trump"),
    [(1, Suit.CLUBS), (2, Suit.DIAMONDS), (3, Suit.HEARTS), (4, Suit.SPADES), (5, None)],
)
def test_maximus_trump_is_clubs_diamonds_hearts_spades_then_no_trump(number, trump):
    rules = GameRules(4, plan=RoundPlan(PlanKind.MAXIMUS), jubilee=ALL_JUBILEE)
    choice = trump_choice(rules, number, 15)
    assert choice.causes == ()
    assert choice.automatic == (TrumpCause.FIXED, trump)
    assert resolve_trump(rules, number, 15, None, None) is trump
    assert resolve_trump(rules, number, 15, TrumpCause.FIXED, trump) is trump


def test_maximus_order_is_the_suit_order():
    assert SUIT_ORDER == (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)


def test_maximus_trump_outside_its_five_rounds_is_refused():
    with pytest.raises(RulesError) as excinfo:
        trump_choice(GameRules(4, plan=RoundPlan(PlanKind.MAXIMUS)), 6, 15)
    assert error_codes(excinfo) == ["round_number_out_of_range"]


def test_maximus_fixed_trump_may_not_be_recorded_differently():
    rules = GameRules(4, plan=RoundPlan(PlanKind.MAXIMUS))
    assert codes(validate_trump(rules, 1, 15, TrumpCause.FIXED, Suit.HEARTS)) == [
        "trump_not_allowed"
    ]
    assert codes(validate_trump(rules, 1, 15, TrumpCause.SUIT, Suit.CLUBS)) == [
        "trump_cause_not_allowed"
    ]


@pytest.mark.parametrize(
    ("cause", "allowed"),
    [
        (TrumpCause.SUIT, SUIT_ORDER),
        (TrumpCause.WIZARD, SUIT_ORDER),
        (TrumpCause.DRAGON, SUIT_ORDER),
        (TrumpCause.CLOUD, SUIT_ORDER),
        (TrumpCause.WEREWOLF, SUIT_ORDER),
        (TrumpCause.JESTER, (None,)),
        (TrumpCause.FAIRY, (None,)),
        (TrumpCause.BOMB, (None,)),
        (TrumpCause.NONE_LEFT, (None,)),
        (TrumpCause.FIXED, (*SUIT_ORDER, None)),
        ("wizard", SUIT_ORDER),
    ],
)
def test_each_trump_cause_permits_suits_or_no_trump(cause, allowed):
    assert trump_suits_allowed(cause) == allowed


@pytest.mark.parametrize("cause", ["moon", None, 3])
def test_unknown_trump_cause_permits_nothing(cause):
    with pytest.raises(RulesError) as excinfo:
        trump_suits_allowed(cause)
    assert error_codes(excinfo) == ["trump_cause_invalid"]


@pytest.mark.parametrize(
    ("cause", "trump", "resolved"),
    [
        (TrumpCause.SUIT, Suit.HEARTS, Suit.HEARTS),
        ("suit", "spades", Suit.SPADES),
        (TrumpCause.WIZARD, Suit.CLUBS, Suit.CLUBS),
        (TrumpCause.JESTER, None, None),
        ("jester", "none", None),
        ("jester", "", None),
        (TrumpCause.DRAGON, Suit.DIAMONDS, Suit.DIAMONDS),
        (TrumpCause.CLOUD, Suit.DIAMONDS, Suit.DIAMONDS),
        (TrumpCause.WEREWOLF, Suit.DIAMONDS, Suit.DIAMONDS),
        (TrumpCause.FAIRY, None, None),
        (TrumpCause.BOMB, None, None),
    ],
)
def test_trump_follows_the_card_turned_up(cause, trump, resolved):
    rules = GameRules(4, jubilee=ALL_JUBILEE)
    assert validate_trump(rules, 2, 2, cause, trump) == ()
    assert resolve_trump(rules, 2, 2, cause, trump) is resolved


@pytest.mark.parametrize("cause", [TrumpCause.WIZARD, TrumpCause.SUIT, TrumpCause.DRAGON])
def test_wizard_or_suit_turned_up_needs_a_suit_no_trump_is_not_allowed(cause):
    rules = GameRules(4, jubilee=ALL_JUBILEE)
    assert validate_trump(rules, 2, 2, cause, None) == (
        Problem("trump_suit_required", "trump", values={"cause": cause}),
    )


@pytest.mark.parametrize("cause", [TrumpCause.JESTER, TrumpCause.FAIRY, TrumpCause.BOMB])
def test_jester_fairy_or_bomb_turned_up_means_no_trump(cause):
    rules = GameRules(4, jubilee=ALL_JUBILEE)
    assert validate_trump(rules, 2, 2, cause, Suit.CLUBS) == (
        Problem("trump_not_allowed", "trump", values={"cause": cause, "trump": "clubs"}),
    )


def test_trump_needs_a_cause_when_a_card_was_turned_up():
    assert codes(validate_trump(GameRules(4), 2, 2, None, Suit.CLUBS)) == ["trump_cause_missing"]


def test_unknown_trump_cause_or_trump_is_refused():
    rules = GameRules(4)
    assert codes(validate_trump(rules, 2, 2, "moon", Suit.CLUBS)) == ["trump_cause_invalid"]
    assert codes(validate_trump(rules, 2, 2, TrumpCause.SUIT, "stars")) == ["trump_invalid"]
    assert codes(validate_trump(rules, 2, 2, TrumpCause.SUIT, 3)) == ["trump_invalid"]
    assert codes(validate_trump(rules, 15, 15, None, "stars")) == ["trump_invalid"]


def test_special_card_cause_is_refused_when_that_card_is_not_in_play():
    assert validate_trump(GameRules(4), 2, 2, TrumpCause.DRAGON, Suit.CLUBS) == (
        Problem("trump_cause_not_allowed", "trump", values={"cause": "dragon"}),
    )


def test_automatic_no_trump_cannot_be_recorded_as_a_turned_up_card_or_a_suit():
    rules = GameRules(4)
    assert validate_trump(rules, 15, 15, TrumpCause.NONE_LEFT, None) == ()
    assert validate_trump(rules, 15, 15, TrumpCause.WIZARD, Suit.CLUBS) == (
        Problem(
            "trump_cause_not_allowed",
            "trump",
            values={"cause": "wizard", "automatic": "none_left"},
        ),
    )
    assert codes(validate_trump(rules, 15, 15, None, Suit.CLUBS)) == ["trump_not_allowed"]
    assert codes(validate_trump(rules, 2, 2, TrumpCause.NONE_LEFT, None)) == [
        "trump_cause_not_allowed"
    ]


@pytest.mark.parametrize(("override", "resolved"), [(None, None), ("hearts", Suit.HEARTS)])
def test_werewolf_holder_may_replace_the_trump_with_any_suit_or_no_trump(override, resolved):
    rules = GameRules(4, jubilee=JubileeCards(werewolf=True))
    assert validate_trump(rules, 2, 2, TrumpCause.SUIT, Suit.CLUBS, override) == ()
    assert resolve_trump(rules, 2, 2, TrumpCause.SUIT, Suit.CLUBS, override) is resolved
    assert resolve_trump(rules, 2, 2, TrumpCause.SUIT, Suit.CLUBS) is Suit.CLUBS


def test_werewolf_override_is_refused_without_the_werewolf_or_with_an_unknown_trump():
    assert validate_trump(GameRules(4), 2, 2, TrumpCause.SUIT, Suit.CLUBS, None) == (
        Problem("werewolf_not_in_play", "werewolf_trump"),
    )
    rules = GameRules(4, jubilee=JubileeCards(werewolf=True))
    assert codes(validate_trump(rules, 2, 2, TrumpCause.SUIT, Suit.CLUBS, "moon")) == [
        "trump_invalid"
    ]


def test_resolving_an_invalid_trump_raises():
    with pytest.raises(RulesError) as excinfo:
        resolve_trump(GameRules(4), 2, 2, TrumpCause.WIZARD, None)
    assert error_codes(excinfo) == ["trump_suit_required"]


# --------------------------------------------------------------------------------------------
# Forbidden bid of the last bidder
# --------------------------------------------------------------------------------------------

PM1 = BidRule.PLUS_MINUS_ONE
CAN = BidRule.CANADIAN
CANF = BidRule.CANADIAN_FINAL

# (test id, bid rule, round number, hand size, dealer, earlier bids, totals before, expected)
# 4 players, standard plan (15 rounds); dealer 3 → bid order 0, 1, 2, 3 (seat 3 bids last).
FORBIDDEN_CASES = [
    ("plus_minus_one_inside_range", PM1, 5, 5, 3, {0: 1, 1: 1, 2: 1}, (), 2),
    ("plus_minus_one_forbids_hand_size", PM1, 5, 5, 3, {0: 0, 1: 0, 2: 0}, (), 5),
    ("plus_minus_one_forbids_zero", PM1, 5, 5, 3, {0: 2, 1: 2, 2: 1}, (), 0),
    ("plus_minus_one_outside_range", PM1, 5, 5, 3, {0: 3, 1: 2, 2: 1}, (), None),
    ("free_forbids_nothing", BidRule.FREE, 5, 5, 3, {0: 1, 1: 1, 2: 1}, (), None),
    ("canadian_leading_alone", CAN, 5, 5, 3, {0: 1, 1: 1, 2: 1}, (10, 20, 0, 30), 2),
    ("canadian_tied_for_lead", CAN, 5, 5, 3, {0: 1, 1: 1, 2: 1}, (30, 20, 0, 30), None),
    ("canadian_not_leading", CAN, 5, 5, 3, {0: 1, 1: 1, 2: 1}, (40, 20, 0, 30), None),
    ("canadian_zero_always_allowed", CAN, 5, 5, 3, {0: 2, 1: 2, 2: 1}, (0, 0, 0, 30), None),
    ("canadian_outside_range", CAN, 5, 5, 3, {0: 5, 1: 2, 2: 1}, (0, 0, 0, 30), None),
    ("canadian_first_round_all_tied", CAN, 1, 1, 3, {0: 0, 1: 0, 2: 0}, (), None),
    ("canadian_final_in_final_round", CANF, 15, 15, 3, {0: 1, 1: 1, 2: 1}, (0, 0, 0, 9), 12),
    ("canadian_final_before_final_round", CANF, 14, 14, 3, {0: 1, 1: 1, 2: 1}, (0, 0, 0, 9), None),
    (
        "canadian_final_tied_in_final_round",
        CANF,
        15,
        15,
        3,
        {0: 1, 1: 1, 2: 1},
        (9, 0, 0, 9),
        None,
    ),
    ("earlier_bid_missing", PM1, 5, 5, 3, {0: 1, 1: None, 2: 1}, (), None),
    ("earlier_bidder_absent", PM1, 5, 5, 3, {0: 1, 2: 1}, (), None),
    ("last_bidders_own_bid_ignored", PM1, 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 2}, (), 2),
    ("other_dealer_changes_last_bidder", PM1, 5, 5, 1, {2: 1, 3: 1, 0: 3}, (), 0),
]


@pytest.mark.parametrize(
    ("rule", "number", "hand", "dealer", "bids", "totals", "expected"),
    [case[1:] for case in FORBIDDEN_CASES],
    ids=[case[0] for case in FORBIDDEN_CASES],
)
def test_forbidden_bid_of_the_last_bidder_follows_the_bid_rule(
    rule, number, hand, dealer, bids, totals, expected
):
    rules = GameRules(4, bid_rule=rule)
    result = forbidden_bid(rules, number, hand, dealer, bids, totals)
    if expected is None:
        assert result is None
    else:
        last = bid_order(rules, dealer)[-1]
        so_far = sum(bids[seat] for seat in bid_order(rules, dealer)[:-1])
        assert result == ForbiddenBid(last, expected, rule, hand, so_far)


def test_jester_bid_forbids_nothing():
    rules = GameRules(4, jester_bid=True)
    assert forbidden_bid(rules, 5, 5, 3, {0: 0, 1: 0, 2: 0}, ()) is None


def test_hidden_bids_forbid_nothing():
    rules = GameRules(4, bid_rule=BidRule.FREE, bid_reveal=BidReveal.HIDDEN)
    assert forbidden_bid(rules, 5, 5, 3, {0: 1, 1: 1, 2: 1}, ()) is None


def test_saboteur_restricts_the_player_right_of_the_dealer():
    rules = GameRules(4, saboteur=True)
    # dealer 3 → bid order 0, 1, 2: seat 2 (right of the dealer) bids last
    assert forbidden_bid(rules, 5, 5, 3, {0: 1, 1: 1}, ()) == ForbiddenBid(2, 3, PM1, 5, 2)


def test_saboteur_with_canadian_binds_the_last_bidder_when_leading_alone():
    rules = GameRules(4, saboteur=True, bid_rule=CAN)
    assert forbidden_bid(rules, 5, 5, 3, {0: 1, 1: 1}, (0, 0, 50, 60)) is None
    assert forbidden_bid(rules, 5, 5, 3, {0: 1, 1: 1}, (0, 0, 70, 60)) == ForbiddenBid(
        2, 3, CAN, 5, 2
    )


def test_totals_before_must_have_one_total_per_seat():
    with pytest.raises(RulesError) as excinfo:
        forbidden_bid(GameRules(4), 5, 5, 3, {0: 1, 1: 1, 2: 1}, (0, 0, 0))
    (problem,) = excinfo.value.problems
    assert problem == Problem("totals_length", "totals_before", values={"value": 3, "players": 4})


# --------------------------------------------------------------------------------------------
# Validating bids
# --------------------------------------------------------------------------------------------


def test_valid_bids_pass():
    assert validate_bids(GameRules(4), 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 0}, ()) == ()


def test_forbidden_bid_is_rejected_with_seat_value_hand_size_rule_and_bids_so_far():
    # dealer 1 → bid order 2, 3, 0, 1: seat 1 bids last
    problems = validate_bids(GameRules(4), 5, 5, 1, {2: 1, 3: 1, 0: 1, 1: 2}, ())
    assert problems == (
        Problem(
            "forbidden_bid",
            "bid",
            1,
            {"value": 2, "hand_size": 5, "rule": "plus_minus_one", "bids_so_far": 3},
        ),
    )
    assert problems[0].values["rule"] == BidRule.PLUS_MINUS_ONE


def test_a_changed_last_bid_that_makes_the_bids_even_is_refused_with_the_reason():
    # ±1, 5 cards, dealer 3 bids last after 1 + 1 + 1: 2 would make the bids add up to 5.
    refused, flagged = validate_bid_change(GameRules(4), 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 2}, 3, ())
    assert codes(refused) == ["forbidden_bid"]
    assert refused[0].seat == 3
    assert flagged == ()


def test_a_changed_earlier_bid_that_makes_the_last_bid_forbidden_flags_it():
    # Seat 0 changes 2 → 1: the dealer's 2 now makes the bids even; it is flagged, not refused.
    refused, flagged = validate_bid_change(GameRules(4), 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 2}, 0, ())
    assert refused == ()
    assert codes(flagged) == ["forbidden_bid"]
    assert flagged[0].seat == 3


def test_a_changed_bid_before_the_others_have_bid_and_out_of_range():
    rules = GameRules(4, bid_rule=CAN)
    assert validate_bid_change(rules, 5, 5, 3, {0: 3}, 0, (0, 0, 0, 30)) == ((), ())
    refused, _flagged = validate_bid_change(rules, 5, 5, 3, {0: 6}, 0, ())
    assert codes(refused) == ["bid_out_of_range"]


@pytest.mark.parametrize(
    ("rules", "bids", "bidding", "allowed"),
    [
        (GameRules(4), {0: 1}, True, True),
        (GameRules(4), {0: None}, True, False),
        (GameRules(4, jester_bid=True), {0: 0}, False, False),
        (GameRules(4, bid_rule=BidRule.FREE, bid_reveal=BidReveal.SECRET), {0: 1}, False, False),
        (GameRules(4, bid_rule=BidRule.FREE, bid_reveal=BidReveal.HIDDEN), {0: 1}, True, False),
        (GameRules(4, bid_rule=BidRule.FREE, bid_reveal=BidReveal.HIDDEN), {0: 1}, False, True),
    ],
)
def test_a_bid_made_may_change_while_it_is_shown(rules, bids, bidding, allowed):
    assert bid_can_change(rules, bids, 0, bidding) is allowed


def test_canadian_leading_last_bidder_may_still_bid_zero():
    rules = GameRules(4, bid_rule=CAN)
    assert validate_bids(rules, 5, 5, 3, {0: 2, 1: 2, 2: 1, 3: 0}, (0, 0, 0, 30)) == ()
    assert codes(validate_bids(rules, 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 2}, (0, 0, 0, 30))) == [
        "forbidden_bid"
    ]


def test_canadian_tied_last_bidder_may_make_the_bids_even():
    rules = GameRules(4, bid_rule=CAN)
    assert validate_bids(rules, 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 2}, (30, 0, 0, 30)) == ()


def test_every_bidder_must_bid():
    problems = validate_bids(GameRules(4), 5, 5, 3, {0: 1, 1: None, 2: 1}, ())
    assert problems == (
        Problem("bid_missing", "bid", 1, {"hand_size": 5}),
        Problem("bid_missing", "bid", 3, {"hand_size": 5}),
    )


@pytest.mark.parametrize("bad", [-1, 6, "2", 2.0, True])
def test_bids_must_be_whole_numbers_from_zero_to_the_cards(bad):
    problems = validate_bids(
        GameRules(4, bid_rule="free"), 5, 5, 3, {0: bad, 1: 1, 2: 1, 3: 1}, ()
    )
    assert codes(problems) == ["bid_out_of_range"]
    assert problems[0].seat == 0
    assert problems[0].values["max"] == 5


def test_saboteur_dealer_must_not_bid():
    rules = GameRules(4, saboteur=True)
    assert validate_bids(rules, 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: None}, ()) == ()
    assert validate_bids(rules, 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 0}, ()) == (
        Problem("dealer_does_not_bid", "bid", 3, {"value": 0}),
    )


def test_jester_bid_means_every_bid_is_zero():
    rules = GameRules(4, jester_bid=True)
    assert validate_bids(rules, 5, 5, 3, {0: 0, 1: 0, 2: 0, 3: 0}, ()) == ()
    assert validate_bids(rules, 5, 5, 3, {0: 0, 1: 2, 2: 0, 3: 0}, ()) == (
        Problem("jester_bid_not_zero", "bid", 1, {"value": 2}),
    )


def test_bids_for_unknown_seats_or_an_unknown_dealer_are_refused():
    rules = GameRules(4)
    assert codes(validate_bids(rules, 5, 5, 4, {0: 1, 1: 1, 2: 1, 3: 1}, ())) == [
        "dealer_out_of_range"
    ]
    assert codes(validate_bids(rules, 5, 5, 3, {0: 1, 1: 1, 2: 1, 3: 1, 4: 1}, ())) == [
        "seat_out_of_range"
    ]


# --------------------------------------------------------------------------------------------
# Cloud
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), [(2, 3), (2, 1), (0, 1), (5, 4)])
def test_cloud_changes_a_bid_by_exactly_one(old, new):
    assert validate_cloud(5, {0: old, 1: 0}, 0, new) == ()


def test_cloud_at_zero_cannot_go_below_zero():
    assert validate_cloud(5, {0: 0}, 0, -1) == (
        Problem(
            "cloud_bid_out_of_range", "cloud", 0, {"value": -1, "min": 0, "max": 5, "hand_size": 5}
        ),
    )


def test_cloud_at_hand_size_cannot_go_above_the_cards():
    assert codes(validate_cloud(5, {0: 5}, 0, 6)) == ["cloud_bid_out_of_range"]
    assert codes(validate_cloud(5, {0: 5}, 0, "4")) == ["cloud_bid_out_of_range"]


@pytest.mark.parametrize("new", [0, 2, 4])
def test_cloud_change_other_than_plus_or_minus_one_is_refused(new):
    assert validate_cloud(5, {0: 2}, 0, new) == (
        Problem("cloud_change_not_one", "cloud", 0, {"bid": 2, "value": new}),
    )


def test_cloud_needs_a_player_who_bid():
    assert codes(validate_cloud(5, {0: None}, 0, 1)) == ["cloud_seat_has_no_bid"]
    assert codes(validate_cloud(5, {}, 2, 1)) == ["cloud_seat_has_no_bid"]


def test_cloud_change_may_make_the_bids_add_up_to_the_cards():
    # the ±1 rule bound the bidding, not the Cloud change afterwards
    assert validate_cloud(3, {0: 1, 1: 1, 2: 0}, 2, 1) == ()


# --------------------------------------------------------------------------------------------
# Tricks
# --------------------------------------------------------------------------------------------


def test_tricks_add_up_to_the_cards_or_one_less_when_the_bomb_was_played():
    assert required_trick_total(5, False) == 5
    assert required_trick_total(5, True) == 4


def test_tricks_that_add_up_to_the_cards_pass():
    assert validate_tricks(GameRules(3), 5, {0: 2, 1: 3, 2: 0}, False) == ()


def test_tricks_not_adding_up_to_the_cards_are_refused_with_total_and_required():
    assert validate_tricks(GameRules(3), 5, {0: 2, 1: 2, 2: 0}, False) == (
        Problem("tricks_total", "tricks", values={"total": 4, "required": 5, "hand_size": 5}),
    )


def test_bomb_round_tricks_add_up_to_one_less_than_the_cards():
    rules = GameRules(3, jubilee=JubileeCards(bomb=True))
    assert validate_tricks(rules, 5, {0: 2, 1: 2, 2: 0}, True) == ()
    assert codes(validate_tricks(rules, 5, {0: 2, 1: 3, 2: 0}, True)) == ["tricks_total"]


def test_bomb_played_is_refused_when_the_bomb_is_not_in_play():
    assert codes(validate_tricks(GameRules(3), 5, {0: 2, 1: 2, 2: 0}, True)) == [
        "bomb_not_in_play"
    ]


def test_every_player_has_tricks_from_zero_to_the_cards():
    problems = validate_tricks(GameRules(3), 5, {0: 6, 2: None, 3: 0}, False)
    assert [(p.code, p.seat) for p in problems] == [
        ("seat_out_of_range", None),
        ("tricks_out_of_range", 0),
        ("tricks_missing", 1),
        ("tricks_missing", 2),
    ]
    assert codes(validate_tricks(GameRules(3), 5, {0: -1, 1: 3, 2: 3}, False)) == [
        "tricks_out_of_range"
    ]


def test_remaining_tricks_count_down_while_entering():
    assert remaining_tricks(5, {}, False) == 5
    assert remaining_tricks(5, {0: 2, 1: None}, False) == 3
    assert remaining_tricks(5, {0: 2, 1: 2}, True) == 0
    assert remaining_tricks(5, {0: 4, 1: 3}, False) == -2


def test_everyone_made_their_bid_is_possible_only_when_bids_add_up_to_the_tricks():
    assert everyone_made_bid_possible(5, {0: 2, 1: 3, 2: 0}, False)
    assert not everyone_made_bid_possible(5, {0: 2, 1: 2, 2: 0}, False)
    assert everyone_made_bid_possible(5, {0: 2, 1: 2, 2: 0}, True)
    assert everyone_made_bid_possible(5, {0: 2, 1: 3, 2: None}, False)


# --------------------------------------------------------------------------------------------
# Points
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bid", "tricks", "points"),
    [(0, 0, 20), (1, 1, 30), (3, 3, 50), (10, 10, 120), (2, 4, -20), (4, 1, -30), (0, 5, -50)],
)
def test_bid_met_scores_20_plus_10_per_trick_and_missed_loses_10_per_trick_off(
    bid, tricks, points
):
    assert round_points(bid, tricks) == points


@pytest.mark.parametrize("tricks", [0, 1, 4])
def test_saboteur_dealer_scores_20_whatever_the_tricks(tricks):
    assert round_points(None, tricks, saboteur_dealer=True) == 20
    assert round_points(None, tricks, saboteur_dealer=True, bomb_cancels=True) == 20


@pytest.mark.parametrize(("bid", "tricks", "points"), [(2, 2, 20), (0, 3, 30), (5, 0, 0)])
def test_bomb_cancelling_bids_scores_10_per_trick_taken(bid, tricks, points):
    assert round_points(bid, tricks, bomb_cancels=True) == points


def test_points_need_a_bid():
    with pytest.raises(RulesError) as excinfo:
        round_points(None, 2)
    assert error_codes(excinfo) == ["bid_missing"]


# --------------------------------------------------------------------------------------------
# Score sheet
# --------------------------------------------------------------------------------------------


def rec(number, hand, dealer, bids, tricks, **extra):
    return RoundRecord(number, hand, dealer, tuple(bids), tuple(tricks), **extra)


@pytest.mark.parametrize(
    ("totals", "ranks"),
    [
        ((30, 20, 20, 10), (1, 2, 2, 4)),
        ((10, 10, 10), (1, 1, 1)),
        ((-10, 0, 50, 50, -10), (4, 3, 1, 1, 4)),
        ((0, 10, 20, 30, 40, 50), (6, 5, 4, 3, 2, 1)),
    ],
)
def test_ranks_share_ties_competition_style(totals, ranks):
    assert rank(totals) == ranks


def test_score_sheet_before_any_round_has_everyone_leading_at_zero():
    sheet = score_sheet(GameRules(4), [])
    assert sheet.rows == ()
    assert sheet.totals == (0, 0, 0, 0)
    assert sheet.ranks == (1, 1, 1, 1)
    assert sheet.leaders == (0, 1, 2, 3)
    assert sheet.bid_sums == (0, 0, 0, 0)
    assert not sheet.finished
    assert sheet.winners == ()
    assert sheet.totals_before(1) == (0, 0, 0, 0)


def short_game():
    rules = GameRules(3, plan=RoundPlan(PlanKind.CUSTOM, custom=(1, 2, 3)))
    rounds = [
        rec(1, 1, 0, (0, 1, 1), (0, 1, 0)),  # 20, 30, -10
        rec(2, 2, 1, (1, 0, 0), (1, 1, 0)),  # 30, -10, 20
        rec(3, 3, 2, (1, 1, 2), (1, 2, 0)),  # 30, -10, -20
    ]
    return rules, rounds


def test_score_sheet_rows_give_bid_tricks_points_and_running_totals():
    rules, rounds = short_game()
    sheet = score_sheet(rules, rounds[:2])
    assert [cell.points for cell in sheet.rows[0].cells] == [20, 30, -10]
    assert [cell.total for cell in sheet.rows[1].cells] == [50, 20, 10]
    assert [cell.made for cell in sheet.rows[1].cells] == [True, False, True]
    assert sheet.rows[1].number == 2
    assert sheet.rows[1].hand_size == 2
    assert sheet.rows[1].dealer == 1
    assert sheet.totals == (50, 20, 10)
    assert sheet.ranks == (1, 2, 3)
    assert sheet.leaders == (0,)
    assert sheet.bid_sums == (1, 1, 1)
    assert not sheet.finished
    assert sheet.winners == ()
    assert sheet.totals_before(2) == (20, 30, -10)
    assert sheet.totals_before(3) == (50, 20, 10)


def test_game_ends_after_its_last_planned_round_and_the_highest_total_wins():
    rules, rounds = short_game()
    sheet = score_sheet(rules, rounds)
    assert sheet.totals == (80, 10, -10)
    assert sheet.finished
    assert sheet.winners == (0,)


@pytest.mark.parametrize("number", [0, 3, "2"])
def test_totals_before_a_round_not_yet_reachable_are_refused(number):
    rules, rounds = short_game()
    with pytest.raises(RulesError) as excinfo:
        score_sheet(rules, rounds[:1]).totals_before(number)
    assert error_codes(excinfo) == ["round_number_out_of_range"]


def tied_game(by_bids):
    tie_break = TieBreak.BID_SUM if by_bids else TieBreak.SHARED
    rules = GameRules(4, plan=RoundPlan(PlanKind.CUSTOM, custom=(1, 1)), tie_break=tie_break)
    rounds = [
        rec(1, 1, 0, (1, 0, 0, 0), (1, 0, 0, 0)),  # 30, 20, 20, 20
        rec(2, 1, 1, (0, 0, 1, 1), (0, 0, 1, 0)),  # 20, 20, 30, -10
    ]
    return rules, rounds


def test_ties_in_the_final_ranking_share_the_rank_and_the_win():
    sheet = score_sheet(*tied_game(False))
    assert sheet.totals == (50, 40, 50, 10)
    assert sheet.ranks == (1, 3, 1, 4)
    assert sheet.leaders == (0, 2)
    assert sheet.winners == (0, 2)


def test_tie_break_by_bids_shares_the_win_when_the_bid_sums_are_equal_too():
    sheet = score_sheet(*tied_game(True))
    assert sheet.bid_sums == (1, 0, 1, 1)
    assert sheet.leaders == (0, 2)
    assert sheet.winners == (0, 2)


def test_tie_break_by_bids_gives_the_win_to_the_higher_sum_of_bids():
    plan = RoundPlan(PlanKind.CUSTOM, custom=(2, 1))
    rounds = [
        rec(1, 2, 0, (0, 2, 2, 2), (2, 0, 0, 0)),  # -20, -20, -20, -20
        rec(2, 1, 1, (0, 0, 0, 1), (0, 1, 0, 0)),  # 20, -10, 20, -10
    ]
    sheet = score_sheet(GameRules(4, plan=plan, tie_break=TieBreak.BID_SUM), rounds)
    assert sheet.totals == (0, -30, 0, -30)
    assert sheet.bid_sums == (0, 2, 2, 3)
    assert sheet.ranks == (1, 3, 1, 3)
    assert sheet.leaders == (0, 2)
    assert sheet.winners == (2,)
    assert score_sheet(GameRules(4, plan=plan), rounds).winners == (0, 2)


def test_cloud_changed_bid_scores_and_the_sheet_keeps_both_bids():
    rules = GameRules(3, jubilee=JubileeCards(cloud=True))
    sheet = score_sheet(rules, [rec(1, 1, 0, (0, 0, 0), (1, 0, 0), cloud=CloudChange(0, 1))])
    cell = sheet.rows[0].cells[0]
    assert (cell.bid, cell.effective_bid, cell.points, cell.made) == (0, 1, 30, True)
    assert sheet.bid_sums == (0, 0, 0)


def test_saboteur_dealer_scores_20_on_the_sheet_and_has_no_bid():
    rules = GameRules(3, saboteur=True)
    sheet = score_sheet(rules, [rec(1, 1, 1, (0, None, 0), (0, 1, 0))])
    dealer = sheet.rows[0].cells[1]
    assert (dealer.bid, dealer.effective_bid, dealer.points, dealer.made) == (
        None,
        None,
        20,
        False,
    )
    assert sheet.totals == (20, 20, 20)


def test_bomb_cancels_bids_house_rule_scores_10_per_trick_only_in_bomb_rounds():
    cards = JubileeCards(bomb=True, bomb_cancels_bids=True)
    rules = GameRules(3, jubilee=cards)
    rounds = [
        rec(1, 1, 0, (1, 0, 0), (1, 0, 0)),
        rec(2, 2, 1, (0, 0, 0), (1, 0, 0), bomb_played=True),
    ]
    assert score_sheet(rules, rounds).totals == (30 + 10, 20, 20)


def test_bomb_does_not_cancel_bids_by_default():
    rules = GameRules(3, jubilee=JubileeCards(bomb=True))
    rounds = [rec(1, 2, 0, (0, 0, 0), (1, 0, 0), bomb_played=True)]
    assert score_sheet(rules, rounds).totals == (-10, 20, 20)


def test_score_sheet_marks_the_rounds_where_the_bomb_was_played():
    rules = GameRules(3, jubilee=JubileeCards(bomb=True))
    rounds = [
        rec(1, 1, 0, (1, 0, 0), (1, 0, 0)),
        rec(2, 2, 1, (0, 0, 0), (1, 0, 0), bomb_played=True),
    ]
    assert [row.bomb_played for row in score_sheet(rules, rounds).rows] == [False, True]


def test_score_sheet_refuses_malformed_records():
    rules = GameRules(3)
    with pytest.raises(RulesError) as excinfo:
        score_sheet(rules, [rec(2, 1, 0, (0, 0, 1), (0, 0, 1))])
    assert excinfo.value.problems == (
        Problem(
            "round_out_of_sequence",
            "round_number",
            values={"value": 2, "expected": 1},
            round_number=2,
        ),
    )
    with pytest.raises(RulesError) as excinfo:
        score_sheet(rules, [rec(1, 1, 0, (0, 0), (0, 0, 1))])
    assert [(p.code, p.round_number) for p in excinfo.value.problems] == [("round_shape", 1)]
    with pytest.raises(RulesError) as excinfo:
        score_sheet(rules, [rec(1, 1, 3, (0, 0, 1), (0, 0, 1))])
    assert error_codes(excinfo) == ["dealer_out_of_range"]
    with pytest.raises(RulesError) as excinfo:
        score_sheet(rules, [rec(1, 1, 0, (0, None, 1), (0, 0, 1))])
    assert [(p.code, p.seat) for p in excinfo.value.problems] == [("bid_missing", 1)]


# --------------------------------------------------------------------------------------------
# Validating a whole round
# --------------------------------------------------------------------------------------------


def test_a_complete_valid_round_passes():
    rules = GameRules(3, jubilee=JubileeCards(cloud=True, bomb=True))
    record = rec(3, 3, 2, (1, 1, 0), (1, 1, 0), cloud=CloudChange(0, 2), bomb_played=True)
    assert validate_round(rules, record, (10, 20, 30)) == ()
    assert validate_round(GameRules(3), rec(1, 1, 0, (0, 0, 0), (1, 0, 0)), ()) == ()


def test_round_problems_carry_the_round_number():
    rules = GameRules(3)
    record = rec(4, 21, 0, (1, 1, 1), (1, 1, 1), cloud=CloudChange(0, 2))
    problems = validate_round(rules, record, ())
    assert [(p.code, p.round_number) for p in problems] == [
        ("hand_size_out_of_range", 4),
        ("cloud_not_in_play", 4),
        ("tricks_total", 4),
    ]


def test_round_with_a_bad_cloud_change_or_wrong_shape_is_refused():
    rules = GameRules(3, jubilee=JubileeCards(cloud=True))
    record = rec(1, 3, 0, (1, 1, 0), (1, 1, 1), cloud=CloudChange(0, 3))
    assert codes(validate_round(rules, record, ())) == ["cloud_change_not_one"]
    assert codes(validate_round(rules, rec(1, 3, 0, (1, 1), (1, 1, 1)), ())) == ["round_shape"]


# --------------------------------------------------------------------------------------------
# Corrections
# --------------------------------------------------------------------------------------------


def test_correction_that_puts_the_last_bidder_alone_in_the_lead_flags_later_canadian_rounds():
    rules = GameRules(3, bid_rule=BidRule.CANADIAN, plan=RoundPlan(PlanKind.FIRST_N, rounds=3))
    # round 2, dealer 1: bid order 2, 0, 1; seat 1 bids last and makes the bids even (0+1+1 = 2)
    round2 = rec(2, 2, 1, (0, 1, 1), (0, 1, 1))
    original = [rec(1, 1, 0, (0, 0, 1), (0, 0, 1)), round2]  # seat 2 leads: no restriction
    assert flagged_rounds(rules, original) == ()
    corrected = [rec(1, 1, 0, (0, 1, 0), (0, 1, 0)), round2]  # now seat 1 leads alone
    assert flagged_rounds(rules, corrected) == (
        Problem(
            "forbidden_bid",
            "bid",
            1,
            {"value": 1, "hand_size": 2, "rule": "canadian", "bids_so_far": 1},
            round_number=2,
        ),
    )
    # the records themselves are untouched
    assert corrected[1] == round2
    # A caller that has the rounds' sheet already passes it: the same problems.
    sheet = score_sheet(rules, corrected)
    assert flagged_rounds(rules, corrected, sheet) == flagged_rounds(rules, corrected)


@pytest.mark.parametrize(
    ("reveal", "scored", "bidding", "secret"),
    [
        (BidReveal.SECRET, False, True, True),
        (BidReveal.SECRET, False, False, True),
        (BidReveal.SECRET, True, False, False),
        (BidReveal.HIDDEN, False, False, False),
        (BidReveal.HIDDEN, False, True, True),
        (BidReveal.HIDDEN, True, False, False),
        (BidReveal.OPEN, False, True, False),
        (BidReveal.OPEN, False, False, False),
    ],
)
def test_secret_bids_stay_hidden_until_scored_and_hidden_bids_until_all_are_in(
    reveal, scored, bidding, secret
):
    game_rules = GameRules(players=3, bid_rule=BidRule.FREE, bid_reveal=reveal)
    assert bids_are_secret(game_rules, scored, bidding) is secret


# --- what the table shows: order of play, next bidder, take-back, dealer change, trump ------


def test_play_order_starts_left_of_the_dealer_and_ends_with_the_dealer():
    assert rules_module.play_order(2, 4) == (3, 0, 1, 2)
    assert rules_module.play_order(0, 3) == (1, 2, 0)


def test_next_bidder_follows_the_bid_order_and_is_none_once_all_have_bid():
    four = GameRules(players=4)
    assert rules_module.next_bidder(four, 1, {}) == 2
    assert rules_module.next_bidder(four, 1, {2: 0, 3: 1}) == 0
    assert rules_module.next_bidder(four, 1, {0: 1, 1: 0, 2: 0, 3: 1}) is None


def test_the_last_bid_made_is_the_one_that_can_be_taken_back():
    four = GameRules(players=4)
    assert rules_module.last_bidder_so_far(four, 1, {}) is None
    assert rules_module.last_bidder_so_far(four, 1, {0: None, 2: 0, 3: 2}) == 3
    jester = GameRules(players=4, jester_bid=True)
    assert rules_module.last_bidder_so_far(jester, 1, {0: 0, 1: 0, 2: 0, 3: 0}) is None


def test_the_dealer_can_change_until_bidding_starts_or_with_jester_bid_until_scored():
    four = GameRules(players=4)
    assert rules_module.dealer_can_change(four, False, {0: None, 1: None})
    assert not rules_module.dealer_can_change(four, False, {0: 1, 1: None})
    assert not rules_module.dealer_can_change(four, True, {0: None})
    jester = GameRules(players=4, jester_bid=True)
    assert rules_module.dealer_can_change(jester, False, {0: 0, 1: 0})


def test_the_werewolf_replacement_is_the_trump_in_force_once_played():
    assert rules_module.trump_in_force("hearts", False, None) is Suit.HEARTS
    assert rules_module.trump_in_force("hearts", True, None) is None
    assert rules_module.trump_in_force(None, True, "spades") is Suit.SPADES
    assert rules_module.trump_in_force("rubbish", False, None) is None
    assert (*SUIT_ORDER, None) == rules_module.WEREWOLF_TRUMPS


def test_trump_options_pair_each_cause_with_the_trumps_it_permits():
    four = GameRules(players=4, jubilee=JubileeCards(fairy=True, dragon=True))
    options = dict(rules_module.trump_choice(four, 1, 1).options)
    assert options[TrumpCause.SUIT] == SUIT_ORDER
    assert options[TrumpCause.WIZARD] == SUIT_ORDER
    assert options[TrumpCause.DRAGON] == SUIT_ORDER
    assert options[TrumpCause.JESTER] == (None,)
    assert options[TrumpCause.FAIRY] == (None,)
    full = GameRules(players=4)
    assert rules_module.trump_choice(full, 15, 15).options == ((TrumpCause.NONE_LEFT, (None,)),)


def test_standings_and_highlighted_seats_come_from_the_sheet():
    three = GameRules(players=3, plan=RoundPlan(PlanKind.CUSTOM, custom=(1, 1)))
    empty = score_sheet(three, [])
    assert empty.standings == (0, 1, 2)
    assert empty.highlighted(in_progress=True) == ()
    one = [RoundRecord(1, 1, 0, (0, 1, 0), (1, 0, 0))]
    playing = score_sheet(three, one)
    assert playing.standings == (2, 0, 1)
    assert playing.highlighted(in_progress=True) == (2,)
    assert playing.highlighted(in_progress=False) == ()
    two = [*one, RoundRecord(2, 1, 1, (0, 0, 1), (0, 0, 1))]
    done = score_sheet(three, two)
    assert done.highlighted(in_progress=False) == done.winners == (2,)


def test_known_problem_codes_given_as_text_become_the_enum_and_unknown_ones_stay_text():
    assert Problem("bid_missing").code is ProblemCode.BID_MISSING
    assert Problem("from_a_newer_version").code == "from_a_newer_version"


def test_only_a_custom_plan_can_change_its_later_rounds_mid_game():
    assert GameRules(players=3, plan=RoundPlan(PlanKind.CUSTOM, custom=(1, 2))).plan_editable
    assert not GameRules(players=3).plan_editable


@pytest.mark.parametrize("hand", ["3", None, 2.5, True])
def test_a_round_whose_hand_size_is_not_a_whole_number_is_a_problem_not_a_crash(hand):
    record = rec(1, hand, 0, (1, 0, 0), (1, 0, 0))
    problems = validate_round(GameRules(3), record, ())
    assert [(p.code, p.round_number) for p in problems] == [("hand_size_out_of_range", 1)]


# --------------------------------------------------------------------------------------------
# Issue 21: the deck, the Cloud's holder, quick play as published, the bid rule from hand N,
# the tie-breaks
# --------------------------------------------------------------------------------------------

# Each special card alone, as setup offers it: Jubilee cards (Dragon and Fairy only together)
# and the cards listed as table notes.
ONE_SPECIAL_CARD = [
    ({"jubilee": JubileeCards(bomb=True)}, ("bomb",)),
    ({"jubilee": JubileeCards(cloud=True)}, ("cloud",)),
    ({"jubilee": JubileeCards(werewolf=True)}, ("werewolf",)),
    ({"table_notes": ("dragon",)}, ("dragon",)),
    ({"table_notes": ("fairy",)}, ("fairy",)),
    ({"table_notes": ("juggler",)}, ("juggler",)),
]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize(("choices", "cards"), ONE_SPECIAL_CARD)
def test_each_special_card_alone_adds_a_card_so_one_is_turned_in_the_last_round(
    players, choices, cards
):
    rules = GameRules(players, **choices)
    last = rules.round_count
    assert rules_module.special_cards(rules) == cards
    assert rules.deck_size == 61
    assert cards_left_to_turn(rules, rules.max_hand_size)
    choice = trump_choice(rules, last, hand_size(rules, last))
    assert choice.automatic is None
    assert TrumpCause.SUIT in choice.causes
    assert validate_trump(rules, last, rules.max_hand_size, TrumpCause.NONE_LEFT, None) != ()
    assert validate_trump(rules, last, rules.max_hand_size, "suit", "hearts") == ()


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_without_special_cards_the_last_round_has_no_card_left(players):
    rules = GameRules(players, table_notes=("foresight", "pull_one"))
    last = rules.round_count
    assert rules_module.special_cards(rules) == ()
    assert rules.deck_size == 60
    assert trump_choice(rules, last, rules.max_hand_size).automatic == (
        TrumpCause.NONE_LEFT,
        None,
    )


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_all_special_cards_together_make_66_cards(players):
    rules = GameRules(
        players,
        jubilee=ALL_JUBILEE,
        table_notes=("dragon", "fairy", "juggler", "foresight"),
    )
    # The Dragon and the Fairy named as Jubilee cards and as table notes are one card each.
    assert rules_module.special_cards(rules) == rules_module.SPECIAL_CARDS
    assert rules.deck_size == 66
    assert GameRules(players, jubilee=ALL_JUBILEE).deck_size == 65
    dragon_fairy = JubileeCards(dragon=True, fairy=True)
    assert GameRules(players, jubilee=dragon_fairy).deck_size == 62
    # More than one card per player left over never makes a bigger hand than 60 ÷ players.
    assert rules.max_hand_size == 60 // players


def test_the_cloud_holder_with_no_trick_is_refused_at_their_seat():
    rules = GameRules(3, jubilee=JubileeCards(cloud=True))
    record = rec(2, 2, 0, (1, 1, 1), (0, 1, 1), cloud=CloudChange(0, 0))
    problems = validate_round(rules, record, (0, 0, 0))
    assert [(p.code, p.field, p.seat, p.round_number) for p in problems] == [
        (ProblemCode.CLOUD_HOLDER_NO_TRICK, "tricks", 0, 2)
    ]
    # One trick taken: the holder won the Cloud's trick.
    record = rec(2, 2, 0, (1, 1, 1), (1, 0, 1), cloud=CloudChange(0, 2))
    assert validate_round(rules, record, (0, 0, 0)) == ()


def test_a_cloud_change_already_refused_does_not_add_the_holders_trick():
    rules = GameRules(3, jubilee=JubileeCards(cloud=True))
    record = rec(2, 2, 0, (1, 1, 1), (0, 1, 1), cloud=CloudChange(0, 2))
    assert "cloud_holder_no_trick" in codes(validate_round(rules, record, ()))
    record = rec(2, 2, 0, (1, 1, 1), (0, 1, 1), cloud=CloudChange(0, 1))
    assert codes(validate_round(rules, record, ())) == ["cloud_change_not_one"]


QUICK_PLAY = [
    # players, as published, as stored before (from 1 whatever the players)
    (3, (2, 4, 6, 8, 10, 12, 14, 16, 18, 20), (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 20)),
    (4, (1, 3, 5, 7, 9, 11, 13, 15), (1, 3, 5, 7, 9, 11, 13, 15)),
    (5, (2, 4, 6, 8, 10, 12), (1, 3, 5, 7, 9, 11, 12)),
    (6, (2, 4, 6, 8, 10), (1, 3, 5, 7, 9, 10)),
]


@pytest.mark.parametrize(("players", "published", "before"), QUICK_PLAY)
def test_quick_play_follows_the_published_plan_and_stored_games_keep_theirs(
    players, published, before
):
    rules = GameRules(players, plan=RoundPlan(PlanKind.QUICK))
    assert rules.hand_sizes == published
    assert rules.plan.start == rules_module.quick_play_start(players) == published[0]
    assert rules.to_dict()["plan"] == {"kind": "quick", "start": published[0]}
    assert GameRules.from_dict(rules.to_dict()) == rules
    # Rules as the code before the published plan wrote them: no start, and 1 card first.
    stored = GameRules.from_dict({"players": players, "plan": {"kind": "quick"}})
    assert stored.hand_sizes == before
    assert stored.plan.start == 1


def test_quick_play_start_is_1_or_2_and_only_for_quick_play():
    with pytest.raises(RulesError) as excinfo:
        GameRules(4, plan=RoundPlan(PlanKind.QUICK, start=3))
    assert error_codes(excinfo) == ["plan_start_out_of_range"]
    with pytest.raises(RulesError) as excinfo:
        GameRules.from_dict({"players": 4, "plan": {"kind": "standard", "start": 1}})
    assert error_codes(excinfo) == ["plan_start_not_applicable"]
    assert RoundPlan(PlanKind.QUICK, start=2).hand_sizes(4) == (2, 4, 6, 8, 10, 12, 14, 15)


def plus_minus_from(threshold, rule=BidRule.PLUS_MINUS_ONE):
    plan = RoundPlan(PlanKind.CUSTOM, custom=(threshold - 1, threshold, threshold + 1))
    return GameRules(3, plan=plan, bid_rule=rule, bid_rule_from=threshold)


@pytest.mark.parametrize("threshold", [2, 3, 5])
def test_plus_minus_one_from_hand_n_leaves_smaller_hands_free(threshold):
    rules = plus_minus_from(threshold)
    below, at = threshold - 1, threshold
    # Dealer seat 2 bids last; the others bid 0 and 0: a bid of the cards makes them even.
    bids = {0: 0, 1: 0}
    assert not rules_module.bid_rule_applies(rules, 1, below)
    assert forbidden_bid(rules, 1, below, 2, bids, ()) is None
    assert validate_bids(rules, 1, below, 2, {**bids, 2: below}, ()) == ()
    assert rules_module.bid_rule_applies(rules, 2, at)
    assert forbidden_bid(rules, 2, at, 2, bids, ()) == ForbiddenBid(2, at, rules.bid_rule, at, 0)
    assert codes(validate_bids(rules, 2, at, 2, {**bids, 2: at}, ())) == ["forbidden_bid"]


@pytest.mark.parametrize("threshold", [2, 4])
def test_canadian_from_hand_n_binds_the_leader_only_from_n_cards(threshold):
    rules = plus_minus_from(threshold, BidRule.CANADIAN)
    totals = (0, 0, 50)  # the dealer (seat 2) leads alone
    bids = {0: 0, 1: 0}
    assert forbidden_bid(rules, 1, threshold - 1, 2, bids, totals) is None
    forbidden = forbidden_bid(rules, 2, threshold, 2, bids, totals)
    assert forbidden is not None
    assert forbidden.value == threshold
    assert forbidden_bid(rules, 2, threshold, 2, bids, (60, 0, 50)) is None


def test_corrections_flag_only_rounds_from_hand_n_under_canadian_from_n():
    # Canadian from 2 cards, hands of 1, 2 and 2: with the totals as a correction left them,
    # seat 2 leads before round 3, which it deals, and bid the total that makes the bids even.
    plan = RoundPlan(PlanKind.CUSTOM, custom=(1, 2, 2))
    rules = GameRules(3, plan=plan, bid_rule=BidRule.CANADIAN, bid_rule_from=2)
    rounds = [
        rec(1, 1, 0, (0, 0, 1), (0, 0, 1)),  # seat 2 leads: 20, 20, 30
        rec(2, 2, 1, (1, 0, 1), (0, 1, 1)),  # seat 1 deals; seat 1 bid 0: allowed (zero)
        rec(3, 2, 2, (0, 0, 2), (0, 0, 2)),  # seat 2 deals and bids 2 = the cards
    ]
    flagged = flagged_rounds(rules, rounds)
    assert [(p.code, p.round_number, p.seat) for p in flagged] == [("forbidden_bid", 3, 2)]
    # The same bids in a hand below the threshold are never flagged.
    small = GameRules(3, plan=plan, bid_rule=BidRule.CANADIAN, bid_rule_from=3)
    assert flagged_rounds(small, rounds) == ()
    # ±1 from 2 binds whoever leads, zero included (round 2's dealer bid 0 = 2 − 2); from 3
    # nothing.
    pm = GameRules(3, plan=plan, bid_rule=BidRule.PLUS_MINUS_ONE, bid_rule_from=2)
    assert [p.round_number for p in flagged_rounds(pm, rounds)] == [2, 3]
    pm_late = GameRules(3, plan=plan, bid_rule=BidRule.PLUS_MINUS_ONE, bid_rule_from=3)
    assert flagged_rounds(pm_late, rounds) == ()


@pytest.mark.parametrize(
    ("choices", "expected"),
    [
        ({"bid_rule": BidRule.FREE, "bid_rule_from": 3}, ["bid_rule_from_not_applicable"]),
        (
            {"bid_rule": BidRule.CANADIAN_FINAL, "bid_rule_from": 3},
            ["bid_rule_from_not_applicable"],
        ),
        ({"bid_rule_from": 16}, ["bid_rule_from_out_of_range"]),
        ({"bid_rule_from": 0}, ["bid_rule_from_out_of_range"]),
        ({"bid_rule_from": "3"}, ["bid_rule_from_invalid"]),
        ({"bid_rule_from": True}, ["bid_rule_from_invalid"]),
        ({"players": 7, "bid_rule_from": 3}, ["players_out_of_range"]),
    ],
)
def test_bid_rule_threshold_must_fit_the_rule_and_the_hands(choices, expected):
    assert codes(validate_rules(**({"players": 4} | choices))) == expected


def test_bid_rule_threshold_round_trips_and_defaults_to_always():
    rules = GameRules(4, bid_rule=BidRule.CANADIAN, bid_rule_from=3)
    assert rules.to_dict()["bid_rule_from"] == 3
    assert GameRules.from_dict(rules.to_dict()) == rules
    assert GameRules.from_dict({"players": 4}).bid_rule_from == 1


def three_way_tie(tie_break):
    """Seats 0, 1 and 3 end level on 10 points; bid sums 4, 6, 2; bids met 1, 2, 2."""
    plan = RoundPlan(PlanKind.CUSTOM, custom=(1, 2, 3, 4))
    rounds = [
        rec(1, 1, 0, (0, 0, 0, 0), (1, 0, 0, 0)),
        rec(2, 2, 1, (1, 1, 2, 2), (0, 1, 1, 0)),
        rec(3, 3, 2, (0, 2, 0, 0), (2, 0, 0, 1)),
        rec(4, 4, 3, (3, 3, 3, 0), (3, 1, 0, 0)),
    ]
    return score_sheet(GameRules(4, plan=plan, bid_rule="free", tie_break=tie_break), rounds)


def two_way_tie(tie_break):
    """Seats 1 and 3 end level on 20 points with 2 bids each; bids met 1 and 2."""
    plan = RoundPlan(PlanKind.CUSTOM, custom=(1, 2, 3))
    rounds = [
        rec(1, 1, 0, (1, 0, 0, 0), (0, 1, 0, 0)),
        rec(2, 2, 1, (1, 0, 2, 0), (0, 1, 1, 0)),
        rec(3, 3, 2, (0, 2, 0, 2), (0, 2, 1, 0)),
    ]
    return score_sheet(GameRules(4, plan=plan, bid_rule="free", tie_break=tie_break), rounds)


def test_three_way_tie_under_each_tie_break():
    shared = three_way_tie(TieBreak.SHARED)
    assert shared.totals == (10, 10, 0, 10)
    assert shared.bid_sums == (4, 6, 5, 2)
    assert shared.bids_met == (1, 2, 2, 2)
    assert shared.leaders == shared.winners == (0, 1, 3)
    assert three_way_tie(TieBreak.BID_SUM).winners == (1,)
    # More bids met: seats 1 and 3 are level on that too, and share the win.
    assert three_way_tie(TieBreak.BIDS_MET).winners == (1, 3)


def test_two_way_tie_under_each_tie_break():
    assert two_way_tie(TieBreak.SHARED).winners == (1, 3)
    sheet = two_way_tie(TieBreak.BID_SUM)
    assert sheet.totals == (0, 20, 0, 20)
    assert (sheet.bid_sums[1], sheet.bid_sums[3]) == (2, 2)
    assert sheet.winners == (1, 3)  # level on bids too
    sheet = two_way_tie(TieBreak.BIDS_MET)
    assert (sheet.bids_met[1], sheet.bids_met[3]) == (1, 2)
    assert sheet.winners == (3,)


def test_tie_break_choice_and_its_older_switch_in_stored_rules():
    assert GameRules(4).tie_break is TieBreak.SHARED
    assert GameRules(4, tie_break="bids_met").tie_break is TieBreak.BIDS_MET
    # Rules written before the choice: the on/off switch, read as the choice it meant.
    old = GameRules.from_dict({"players": 4, "tie_break_by_bids": True})
    assert old.tie_break is TieBreak.BID_SUM
    assert old.to_dict()["tie_break"] == "bid_sum"
    assert "tie_break_by_bids" not in old.to_dict()
    assert GameRules.from_dict({"players": 4, "tie_break_by_bids": False}) == GameRules(4)
    same = {"players": 4, "tie_break_by_bids": True, "tie_break": "bid_sum"}
    assert GameRules.from_dict(same) == old
    assert codes(validate_rules(players=4, tie_break="coin")) == ["tie_break_invalid"]
    for data, expected in [
        ({"tie_break_by_bids": "yes"}, ["value_invalid"]),
        ({"tie_break_by_bids": True, "tie_break": "bids_met"}, ["tie_break_conflict"]),
        ({"tie_break_by_bids": False, "tie_break": "bid_sum"}, ["tie_break_conflict"]),
    ]:
        with pytest.raises(RulesError) as excinfo:
            GameRules.from_dict({"players": 4} | data)
        assert error_codes(excinfo) == expected


def test_a_new_game_from_stored_rules_plays_quick_play_as_published():
    stored = GameRules.from_dict({"players": 3, "plan": {"kind": "quick"}})
    assert stored.hand_sizes[0] == 1
    assert stored.for_a_new_game().hand_sizes == (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)
    standard = GameRules(3, bid_rule_from=2)
    assert standard.for_a_new_game() is standard


# --------------------------------------------------------------------------------------------
# The offline plan: the rest of the game as tables for the table phone
# --------------------------------------------------------------------------------------------


def test_offline_plan_of_a_plus_minus_one_game_from_round_3():
    game_rules = GameRules(4, plan=RoundPlan(PlanKind.FIRST_N, rounds=5))
    plan = offline_plan(game_rules, 3, dealer=2)
    assert [r.number for r in plan.rounds] == [3, 4, 5]
    assert [r.dealer for r in plan.rounds] == [2, 3, 0]
    third = plan.rounds[0]
    assert third.hand_size == 3
    assert third.bid_order == (3, 0, 1, 2)
    # The earlier bids add up to 0, 1, 2, 3: the last bidder may not bid 3, 2, 1, 0.
    assert third.forbidden == (3, 2, 1, 0)
    assert not third.trump_automatic
    assert third.required_tricks == 3
    assert plan.points[2][2] == 40
    assert plan.points[2][0] == -20
    assert plan.points[0][0] == 20
    assert len(plan.points) == len(plan.points[0]) == 16
    data = plan.to_dict()
    assert data["rounds"][0] == {
        "n": 3,
        "cards": 3,
        "dealer": 2,
        "order": [3, 0, 1, 2],
        "trump": [
            ["suit", ["clubs", "diamonds", "hearts", "spades"]],
            ["jester", [None]],
            ["wizard", ["clubs", "diamonds", "hearts", "spades"]],
        ],
        "tricks": 3,
        "forbid": [3, 2, 1, 0],
    }
    assert "dealer_points" not in data
    assert "jester_bid" not in data
    json.dumps(data)


def test_offline_plan_of_the_canadian_rule_binds_only_a_leader_and_never_forbids_zero():
    plan = offline_plan(GameRules(3, bid_rule=BidRule.CANADIAN), 19, dealer=0)
    last = plan.rounds[-1]
    assert last.number == 20
    assert last.hand_size == 20
    assert last.trump_automatic
    assert last.trump == ((TrumpCause.NONE_LEFT, (None,)),)
    assert last.forbidden[0] == 20
    assert last.forbidden[20] is None
    assert last.leader_only
    assert plan.to_dict()["rounds"][-1]["leader"] is True
    assert plan.to_dict()["rounds"][-1]["auto"] is True


def test_offline_plan_forbids_nothing_where_the_rule_does_not_bind():
    free = offline_plan(GameRules(3, bid_rule=BidRule.FREE), 1, dealer=0)
    assert all(value is None for r in free.rounds for value in r.forbidden)
    assert "forbid" not in free.to_dict()["rounds"][0]
    final = offline_plan(GameRules(3, bid_rule=BidRule.CANADIAN_FINAL), 1, dealer=0)
    binding = [r.number for r in final.rounds if any(v is not None for v in r.forbidden)]
    assert binding == [20]
    from_three = offline_plan(GameRules(4, bid_rule_from=3), 1, dealer=0)
    assert [any(v is not None for v in r.forbidden) for r in from_three.rounds[:4]] == [
        False,
        False,
        True,
        True,
    ]


def test_offline_plan_with_saboteur_and_jester_bid():
    plan = offline_plan(GameRules(3, saboteur=True, jester_bid=True, bid_rule="free"), 1, 1)
    assert plan.rounds[0].bid_order == (2, 0)
    assert plan.to_dict()["rounds"][0]["play"] == [2, 0, 1]
    assert plan.dealer_points == 20
    assert plan.jester_bid
    assert plan.to_dict()["dealer_points"] == 20
    assert plan.to_dict()["jester_bid"] is True


def test_offline_plan_of_a_finished_game_has_no_rounds():
    assert offline_plan(GameRules(6), 11, dealer=0).rounds == ()


@pytest.mark.parametrize(
    ("game_rules", "reason"),
    [
        (GameRules(4, bid_rule="free", bid_reveal="hidden"), "sealed_bids"),
        (GameRules(4, bid_rule="free", bid_reveal="secret"), "sealed_bids"),
        (GameRules(4, jubilee=JubileeCards(bomb=True)), "jubilee_cards"),
        (GameRules(4, jubilee=JubileeCards(cloud=True)), "jubilee_cards"),
        (GameRules(4, jubilee=JubileeCards(werewolf=True)), "jubilee_cards"),
    ],
)
def test_offline_plan_says_which_games_need_the_server(game_rules, reason):
    plan = offline_plan(game_rules, 1, dealer=0)
    assert plan.unavailable == reason
    assert plan.rounds == ()
    assert plan.to_dict() == {"unavailable": reason}


def test_offline_plan_with_dragon_and_fairy_asks_their_trumps():
    plan = offline_plan(GameRules(4, jubilee=JubileeCards(dragon=True, fairy=True)), 1, 0)
    causes = [cause for cause, _suits in plan.rounds[0].trump]
    assert causes == ["suit", "jester", "wizard", "dragon", "fairy"]
