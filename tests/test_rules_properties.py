"""Property tests (hypothesis) for invariants of the game rules and scoring."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper.rules import (
    BidReveal,
    BidRule,
    GameRules,
    JubileeCards,
    PlanKind,
    RoundPlan,
    RoundRecord,
    TieBreak,
    bid_order,
    dealer_seat,
    forbidden_bid,
    offline_plan,
    rank,
    required_trick_total,
    round_points,
    score_sheet,
    validate_bids,
    validate_tricks,
)

FAST = settings(max_examples=60, deadline=None)

players_st = st.integers(min_value=3, max_value=6)


@st.composite
def bidding_situation(draw, bid_rule=BidRule.PLUS_MINUS_ONE, saboteur=None):
    """Rules, round, hand size, dealer, earlier bids and totals before the round."""
    players = draw(players_st)
    rules = GameRules(
        players,
        bid_rule=bid_rule,
        saboteur=draw(st.booleans()) if saboteur is None else saboteur,
    )
    number = draw(st.integers(min_value=1, max_value=rules.round_count))
    hand = rules.hand_sizes[number - 1]
    dealer = draw(st.integers(min_value=0, max_value=players - 1))
    order = bid_order(rules, dealer)
    bids = {seat: draw(st.integers(min_value=0, max_value=hand)) for seat in order[:-1]}
    totals = tuple(
        draw(st.integers(min_value=-50, max_value=50).map(lambda t: t * 10))
        for _ in range(players)
    )
    return rules, number, hand, dealer, bids, totals


def forbidden_values(rules, number, hand, dealer, bids, totals):
    last = bid_order(rules, dealer)[-1]
    forbidden = []
    for value in range(hand + 1):
        problems = validate_bids(rules, number, hand, dealer, {**bids, last: value}, totals)
        if any(problem.code == "forbidden_bid" for problem in problems):
            forbidden.append(value)
    return forbidden


@FAST
@given(bidding_situation())
def test_plus_minus_one_forbids_at_most_one_value_and_never_every_bid(situation):
    hand = situation[2]
    forbidden = forbidden_values(*situation)
    assert len(forbidden) <= 1
    assert len(forbidden) < hand + 1
    result = forbidden_bid(*situation)
    assert forbidden == ([] if result is None else [result.value])


@FAST
@given(bidding_situation())
def test_plus_minus_one_forbids_exactly_the_bid_that_makes_the_bids_even(situation):
    _rules, _number, hand, _dealer, bids, _totals = situation
    even = hand - sum(bids.values())
    assert forbidden_values(*situation) == ([even] if 0 <= even <= hand else [])


@FAST
@given(st.sampled_from([BidRule.CANADIAN, BidRule.CANADIAN_FINAL]).flatmap(bidding_situation))
def test_canadian_never_forbids_zero(situation):
    result = forbidden_bid(*situation)
    assert result is None or result.value != 0
    assert 0 not in forbidden_values(*situation)


@FAST
@given(st.sampled_from([BidRule.CANADIAN, BidRule.CANADIAN_FINAL]).flatmap(bidding_situation))
def test_canadian_binds_only_a_last_bidder_strictly_in_the_lead(situation):
    rules, _number, _hand, dealer, _bids, totals = situation
    last = bid_order(rules, dealer)[-1]
    if forbidden_bid(*situation) is not None:
        assert all(totals[last] > total for seat, total in enumerate(totals) if seat != last)


@FAST
@given(bidding_situation(bid_rule=BidRule.FREE))
def test_free_bids_forbid_nothing(situation):
    assert forbidden_bid(*situation) is None


def looked_up(plan_round, bids, totals):
    """What the table phone's script does with a round of the offline plan: look the
    forbidden bid up by the sum of the earlier bids, where the rule binds the last bidder."""
    last = plan_round.bid_order[-1]
    alone = sum(total >= totals[last] for total in totals) == 1
    if plan_round.leader_only and not alone:
        return []
    total = sum(bids.values())
    value = plan_round.forbidden[total] if total < len(plan_round.forbidden) else None
    return [] if value is None else [value]


@FAST
@given(st.sampled_from(list(BidRule)).flatmap(bidding_situation), st.integers(0, 5))
def test_the_offline_plan_forbids_what_the_rules_forbid(situation, first_dealer):
    """The tables the phone checks bids with offline agree with the rules' own check, in the
    round being played and in every later round (the deal passing on)."""
    rules, number, hand, dealer, bids, totals = situation
    now = offline_plan(rules, number, dealer).rounds[0]
    assert (now.number, now.hand_size, now.dealer) == (number, hand, dealer)
    assert now.bid_order == bid_order(rules, dealer)
    assert looked_up(now, bids, totals) == forbidden_values(*situation)
    first_dealer %= rules.players
    later = offline_plan(rules, 1, first_dealer).rounds[number - 1]
    rotated = dealer_seat(first_dealer, number, rules.players)
    assert later.dealer == rotated
    order = bid_order(rules, rotated)
    earlier = {seat: bids[old] for seat, old in zip(order[:-1], bids, strict=True)}
    assert looked_up(later, earlier, totals) == forbidden_values(
        rules, number, hand, rotated, earlier, totals
    )


@FAST
@given(players_st, st.data())
def test_the_offline_points_are_the_rules_points(players, data):
    plan = offline_plan(GameRules(players), 1, 0)
    bid = data.draw(st.integers(0, len(plan.points) - 1))
    took = data.draw(st.integers(0, len(plan.points) - 1))
    assert plan.points[bid][took] == round_points(bid, took)


@st.composite
def trick_entry(draw):
    players = draw(players_st)
    bomb = draw(st.booleans())
    rules = GameRules(players, jubilee=JubileeCards(bomb=bomb))
    hand = draw(st.integers(min_value=1, max_value=rules.max_hand_size))
    bomb_played = bomb and draw(st.booleans())
    tricks = {seat: draw(st.integers(min_value=0, max_value=hand)) for seat in range(players)}
    return rules, hand, tricks, bomb_played


@FAST
@given(trick_entry())
def test_a_round_validates_iff_its_tricks_add_up_as_required(entry):
    rules, hand, tricks, bomb_played = entry
    valid = validate_tricks(rules, hand, tricks, bomb_played) == ()
    assert valid == (sum(tricks.values()) == required_trick_total(hand, bomb_played))


def split(draw, total, parts):
    """Split ``total`` into ``parts`` non-negative numbers."""
    cuts = sorted(draw(st.integers(min_value=0, max_value=total)) for _ in range(parts - 1))
    bounds = [0, *cuts, total]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]


@st.composite
def played_game(draw):
    players = draw(players_st)
    kind = draw(st.sampled_from([PlanKind.STANDARD, PlanKind.QUICK, PlanKind.TOURNAMENT]))
    rules = GameRules(
        players,
        plan=RoundPlan(kind),
        bid_rule=BidRule.FREE,
        bid_reveal=BidReveal.OPEN,
        saboteur=draw(st.booleans()),
        tie_break=draw(st.sampled_from(list(TieBreak))),
    )
    played = draw(st.integers(min_value=0, max_value=min(rules.round_count, 6)))
    first = draw(st.integers(min_value=0, max_value=players - 1))
    rounds = []
    for number in range(1, played + 1):
        hand = rules.hand_sizes[number - 1]
        dealer = (first + number - 1) % players
        bids = tuple(
            None
            if rules.saboteur and seat == dealer
            else draw(st.integers(min_value=0, max_value=hand))
            for seat in range(players)
        )
        tricks = tuple(split(draw, hand, players))
        rounds.append(RoundRecord(number, hand, dealer, bids, tricks))
    return rules, rounds


@FAST
@given(played_game())
def test_final_totals_equal_the_sum_of_per_round_points(game):
    rules, rounds = game
    sheet = score_sheet(rules, rounds)
    for seat in range(rules.players):
        points = [
            round_points(
                record.bids[seat],
                record.tricks[seat],
                saboteur_dealer=rules.saboteur and seat == record.dealer,
            )
            for record in rounds
        ]
        assert sheet.totals[seat] == sum(points)
        assert sheet.totals[seat] == sum(row.cells[seat].points for row in sheet.rows)
        running = 0
        for row in sheet.rows:
            running += row.cells[seat].points
            assert row.cells[seat].total == running
    assert sheet.finished == (len(rounds) == rules.round_count)


@FAST
@given(played_game())
def test_leaders_and_winners_are_the_best_ranked(game):
    rules, rounds = game
    sheet = score_sheet(rules, rounds)
    assert sheet.leaders == tuple(seat for seat, r in enumerate(sheet.ranks) if r == 1)
    if sheet.finished:
        assert sheet.winners
        assert set(sheet.winners) <= set(sheet.leaders)
    else:
        assert sheet.winners == ()


@FAST
@given(st.lists(st.integers(min_value=-500, max_value=500), min_size=1, max_size=6))
def test_ranks_are_consistent_with_totals(totals):
    ranks = rank(totals)
    assert min(ranks) == 1
    for a, total_a in enumerate(totals):
        assert ranks[a] == 1 + sum(other > total_a for other in totals)
        for b, total_b in enumerate(totals):
            if total_a > total_b:
                assert ranks[a] < ranks[b]
            if total_a == total_b:
                assert ranks[a] == ranks[b]


@st.composite
def valid_rules(draw):
    players = draw(players_st)
    kind = draw(st.sampled_from(list(PlanKind)))
    top = 60 // players
    plan = RoundPlan(kind)
    if kind is PlanKind.FIRST_N:
        plan = RoundPlan(kind, rounds=draw(st.integers(min_value=1, max_value=top)))
    elif kind is PlanKind.CUSTOM:
        sizes = draw(st.lists(st.integers(min_value=1, max_value=top), min_size=1, max_size=8))
        plan = RoundPlan(kind, custom=tuple(sizes))
    reveal = draw(st.sampled_from(list(BidReveal)))
    bid_rule = draw(st.sampled_from(list(BidRule))) if reveal is BidReveal.OPEN else BidRule.FREE
    pair = draw(st.booleans())
    jubilee = JubileeCards(
        bomb=draw(st.booleans()),
        cloud=draw(st.booleans()),
        werewolf=draw(st.booleans()),
        dragon=pair,
        fairy=pair,
        bomb_cancels_bids=draw(st.booleans()),
    )
    return GameRules(
        players,
        plan=plan,
        bid_rule=bid_rule,
        bid_reveal=reveal,
        saboteur=draw(st.booleans()),
        jester_bid=draw(st.booleans()),
        jubilee=jubilee,
        tie_break=draw(st.sampled_from(list(TieBreak))),
    )


@FAST
@given(valid_rules())
def test_rules_survive_a_round_trip_through_their_dict(rules):
    assert GameRules.from_dict(rules.to_dict()) == rules
    assert all(1 <= size <= rules.max_hand_size for size in rules.hand_sizes)
