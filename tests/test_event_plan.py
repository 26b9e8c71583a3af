"""Events, the pure part: tables, seatings drawn, standings across the games."""

import itertools
import math
import random
from fractions import Fraction

import pytest

from scorekeeper import rules
from scorekeeper.reports import events as ev

# --- splitting into tables -----------------------------------------------------------------


@pytest.mark.parametrize("preferred", range(3, 7))
@pytest.mark.parametrize("players", range(3, 41))
def test_every_evening_from_3_to_40_players_splits_into_even_tables_of_3_to_6(players, preferred):
    sizes = ev.table_sizes(players, preferred)
    assert sum(sizes) == players
    assert all(3 <= size <= 6 for size in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert list(sizes) == sorted(sizes, reverse=True)
    wanted = math.ceil(players / preferred)
    if wanted <= players // 3:
        # The preferred size is a ceiling whenever tables of at least 3 allow it.
        assert len(sizes) == wanted
        assert max(sizes) <= preferred


@pytest.mark.parametrize(
    ("players", "preferred", "sizes"),
    [
        (14, 4, (4, 4, 3, 3)),
        (14, 3, (4, 4, 3, 3)),  # five tables of 3 would leave two players alone
        (10, 4, (4, 3, 3)),
        (12, 4, (4, 4, 4)),
        (7, 6, (4, 3)),
        (5, 4, (5,)),
        (3, 6, (3,)),
        (40, 6, (6, 6, 6, 6, 6, 5, 5)),
    ],
)
def test_split_examples(players, preferred, sizes):
    assert ev.table_sizes(players, preferred) == sizes


@pytest.mark.parametrize("players", [0, 1, 2])
def test_fewer_than_three_players_make_no_table(players):
    with pytest.raises(ev.SeatingError) as error:
        ev.table_sizes(players, 4)
    assert error.value.code == "too_few_players"


@pytest.mark.parametrize("preferred", [2, 7])
def test_a_preferred_table_size_outside_3_to_6_is_refused(preferred):
    with pytest.raises(ev.SeatingError) as error:
        ev.table_sizes(12, preferred)
    assert error.value.code == "table_size"


# --- seatings ------------------------------------------------------------------------------


def seated(seating):
    return [player for table in seating for player in table]


@pytest.mark.parametrize("players", [3, 7, 10, 14, 23, 40])
def test_a_first_seating_seats_everyone_once_and_is_reproducible_from_its_seed(players):
    ids = list(range(100, 100 + players))
    seating = ev.draw_seating(ids, 4, seed=1234)
    assert sorted(seated(seating)) == ids
    assert tuple(map(len, seating)) == ev.table_sizes(players, 4)
    ev.check_seating(seating)
    assert ev.draw_seating(list(reversed(ids)), 4, seed=1234) == seating
    others = {ev.draw_seating(ids, 4, seed=seed) for seed in range(1, 6)}
    assert len(others) > 1


def test_check_seating_finds_a_player_at_two_tables_and_a_table_of_two():
    with pytest.raises(ev.SeatingError) as twice:
        ev.check_seating(((1, 2, 3), (4, 5, 1)))
    assert twice.value.code == "player_twice"
    assert twice.value.values == {"player": 1}
    with pytest.raises(ev.SeatingError) as small:
        ev.check_seating(((1, 2, 3), (4, 5)))
    assert small.value.code == "table_size_out_of_range"
    with pytest.raises(ev.SeatingError) as drawn_twice:
        ev.draw_seating([1, 2, 3, 3], 4, seed=1)
    assert drawn_twice.value.code == "player_twice"


def test_swapping_two_players_exchanges_their_seats_only():
    seating = ((1, 2, 3, 4), (5, 6, 7))
    assert ev.swap_players(seating, 2, 7) == ((1, 7, 3, 4), (5, 6, 2))
    with pytest.raises(ev.SeatingError) as error:
        ev.swap_players(seating, 2, 9)
    assert error.value.code == "not_seated"
    with pytest.raises(ev.SeatingError) as same:
        ev.swap_players(seating, 2, 2)
    assert same.value.code == "same_player"


def random_games(seating, rng, session):
    return [
        ev.TableGame(
            (session, number),
            tuple(
                ev.GameSeat(p, rng.randrange(-60, 200, 10), rng.randint(0, 10), rng.randint(0, 25))
                for p in table
            ),
        )
        for number, table in enumerate(seating)
    ]


def play_event(players, sessions, preferred, seed):
    rng = random.Random(seed)
    seatings, games = [], []
    for session in range(sessions):
        lines = ev.standings(players, games, ev.Method.PLACEMENT) if seatings else None
        seating = ev.draw_seating(
            players,
            preferred,
            seed + session,
            ranking=ev.ranking(lines) if lines else None,
            earlier=seatings,
        )
        seatings.append(seating)
        games.extend(random_games(seating, rng, session))
    return seatings, games


def test_a_seeded_24_player_4_session_event_repeats_no_opponent():
    players = list(range(1, 25))
    seatings, _games = play_event(players, sessions=4, preferred=4, seed=2026)
    for seating in seatings:
        assert sorted(seated(seating)) == players  # nobody twice in a session
        ev.check_seating(seating)
    # Reported figure (24 players, tables of 4, 4 sessions, seed 2026): 0 repeated meetings.
    assert ev.repeat_count(seatings) == 0
    # A random draw every session would repeat many: the Swiss draw is doing the work.
    drawn = [ev.draw_seating(players, 4, 2026 + s) for s in range(4)]
    assert ev.repeat_count(drawn) > 5


def test_repeats_stay_few_where_they_cannot_be_avoided():
    # 9 players at tables of 3 for 5 sessions: each meets 2 of 8 per session, so 5 sessions
    # need 10 > 8 meetings: some repeat (at least 9 over everyone), but few.
    seatings, _ = play_event(list(range(9)), sessions=5, preferred=3, seed=7)
    repeats = ev.repeat_count(seatings)
    assert 9 <= repeats <= 18


def test_a_swiss_session_puts_the_leaders_together_when_they_have_not_met():
    players = list(range(1, 9))
    first = ((1, 5, 6, 7), (2, 3, 4, 8))
    # Standings: 1, 2, 5, 3, … — 1 and 5 met, 2 and 3 met: the top table mixes them.
    ranking = [1, 2, 5, 3, 6, 4, 7, 8]
    second = ev.draw_seating(players, 4, seed=3, ranking=ranking, earlier=[first])
    assert ev.repeat_count([first, second]) == 4  # the least possible: 8 players, 2 tables
    top = next(table for table in second if 1 in table)
    assert 2 in top


def test_a_player_without_a_standing_yet_joins_at_the_bottom():
    players = [1, 2, 3, 4, 5, 6, 99]
    seating = ev.draw_seating(players, 4, seed=5, ranking=[1, 2, 3, 4, 5, 6], earlier=[])
    assert sorted(seated(seating)) == sorted(players)
    assert 99 in seating[-1]


# --- standings -----------------------------------------------------------------------------

FIRST_TWO = rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=2)


def sheet(players, rounds):
    """A real score sheet of a game with the "first 2 rounds" plan (1 card, then 2)."""
    game_rules = rules.GameRules(players=players, plan=FIRST_TWO, bid_rule="free")
    records = [
        rules.RoundRecord(n, n, (n - 1) % players, bids, tricks)
        for n, (bids, tricks) in enumerate(rounds, start=1)
    ]
    return rules.score_sheet(game_rules, records)


def table_game(key, players, rounds):
    found = sheet(len(players), rounds)
    met = [sum(row.cells[s].made for row in found.rows) for s in range(len(players))]
    return ev.TableGame(
        key,
        tuple(
            ev.GameSeat(p, found.totals[s], met[s], found.bid_sums[s])
            for s, p in enumerate(players)
        ),
    ), found


# Session 1, table A (Ann, Bob, Cy, Dan), table B (Eve, Fay, Gus)
#   A round 1 (1 card): bids 1 0 0 0, tricks 1 0 0 0 -> 30, 20, 20, 20
#   A round 2 (2 cards): bids 0 1 1 0, tricks 0 1 0 1 -> 20, 30, -10, -10
#   A totals: Ann 50, Bob 50, Cy 10, Dan 10
#   B round 1: bids 0 1 0, tricks 0 1 0 -> 20 30 20; round 2: bids 2 0 0, tricks 2 0 0 -> 40 20 20
#   B totals: Eve 60, Fay 50, Gus 40
A_ROUNDS = [((1, 0, 0, 0), (1, 0, 0, 0)), ((0, 1, 1, 0), (0, 1, 0, 1))]
B_ROUNDS = [((0, 1, 0), (0, 1, 0)), ((2, 0, 0), (2, 0, 0))]


def test_placement_points_are_worked_out_by_hand_and_fair_across_table_sizes():
    a, a_sheet = table_game("A", ["Ann", "Bob", "Cy", "Dan"], A_ROUNDS)
    b, b_sheet = table_game("B", ["Eve", "Fay", "Gus"], B_ROUNDS)
    assert a_sheet.totals == (50, 50, 10, 10)
    assert b_sheet.totals == (60, 50, 40)
    lines = {line.player: line for line in ev.standings([], [a, b], "placement")}
    # Ann beat Cy and Dan and tied Bob: (2 + 1/2) / 3. Eve beat both at a table of three: 1.
    assert lines["Ann"].points == Fraction(5, 6) == lines["Bob"].points
    assert lines["Cy"].points == Fraction(1, 6)
    assert lines["Eve"].points == 1
    assert lines["Fay"].points == Fraction(1, 2)
    assert lines["Gus"].points == 0
    # Each table hands out half a point per player, whatever its size.
    assert sum(lines[p].points for p in ("Ann", "Bob", "Cy", "Dan")) == 2
    assert sum(lines[p].points for p in ("Eve", "Fay", "Gus")) == Fraction(3, 2)


def test_ties_on_points_are_broken_by_score_then_bids_met_then_bid_sum():
    a, _ = table_game("A", ["Ann", "Bob", "Cy", "Dan"], A_ROUNDS)
    b, _ = table_game("B", ["Eve", "Fay", "Gus"], B_ROUNDS)
    order = [(line.player, line.rank) for line in ev.standings([], [a, b], "placement")]
    # Eve 1; Ann and Bob 5/6 with 50 each, Ann met 2 bids, Bob 2 — bid sums 1 and 1: shared.
    # Fay 1/2; Cy and Dan 1/6 with 10 each, both met 1, bid sums 1 and 0: Cy ahead.
    assert order == [
        ("Eve", 1),
        ("Ann", 2),
        ("Bob", 2),
        ("Fay", 4),
        ("Cy", 5),
        ("Dan", 6),
        ("Gus", 7),
    ]


def test_the_score_method_ranks_by_the_sum_of_game_scores():
    a, _ = table_game("A", ["Ann", "Bob", "Cy", "Dan"], A_ROUNDS)
    b, _ = table_game("B", ["Eve", "Fay", "Gus"], B_ROUNDS)
    lines = ev.standings([], [a, b], ev.Method.SCORE)
    assert [(line.player, line.points, line.rank) for line in lines][:4] == [
        ("Eve", 60, 1),
        ("Ann", 50, 2),
        ("Bob", 50, 2),
        ("Fay", 50, 2),  # 50 too, two bids met, bid sum 1: equal on every tie-break
    ]
    assert [line.player for line in lines][4:] == ["Gus", "Cy", "Dan"]


def test_a_game_that_does_not_count_adds_nothing_and_a_player_without_games_is_listed():
    a, _ = table_game("A", ["Ann", "Bob", "Cy", "Dan"], A_ROUNDS)
    stopped = ev.TableGame("B", a.seats, counts=False)
    lines = ev.standings(["Zoe", "Ann"], [stopped], "placement")
    assert {line.games for line in lines} == {0}
    assert [line.rank for line in lines] == [1] * len(lines)
    assert lines[0].player == "Zoe"  # all equal: the order given


def independent_points(totals):
    """A player's share from their rank (rules.rank) and the number tied with them."""
    ranks = rules.rank(totals)
    n = len(totals)
    return [
        Fraction(2 * (n - ranks[s]) - (totals.count(totals[s]) - 1), 2 * (n - 1)) for s in range(n)
    ]


def test_standings_of_a_random_event_match_an_independent_computation_from_the_sheets():
    rng = random.Random(11)
    players = list(range(1, 15))
    seatings, games = [], []
    points = dict.fromkeys(players, Fraction(0))
    score = dict.fromkeys(players, 0)
    met = dict.fromkeys(players, 0)
    bids = dict.fromkeys(players, 0)
    for session in range(3):
        seating = ev.draw_seating(players, 4, 50 + session)
        seatings.append(seating)
        for number, table in enumerate(seating):
            rounds = []
            for hand in (1, 2):
                tricks = [0] * len(table)
                for _ in range(hand):
                    tricks[rng.randrange(len(table))] += 1
                rounds.append((tuple(rng.randint(0, hand) for _ in table), tuple(tricks)))
            game, found = table_game((session, number), list(table), rounds)
            games.append(game)
            for s, p in enumerate(table):
                points[p] += independent_points(list(found.totals))[s]
                score[p] += found.totals[s]
                met[p] += sum(row.cells[s].made for row in found.rows)
                bids[p] += sum(row.cells[s].bid for row in found.rows)
    lines = ev.standings(players, games, "placement")
    for line in lines:
        assert (line.points, line.score, line.bids_met, line.bid_sum, line.games) == (
            points[line.player],
            score[line.player],
            met[line.player],
            bids[line.player],
            3,
        )
    keys = [(points[p], score[p], met[p], bids[p]) for p in (line.player for line in lines)]
    assert keys == sorted(keys, reverse=True)
    for line, other in itertools.pairwise(lines):
        assert (line.rank == other.rank) == (line.sort_key == other.sort_key)


def test_changed_since_notices_a_corrected_game():
    a, _ = table_game("A", ["Ann", "Bob", "Cy", "Dan"], A_ROUNDS)
    before = ev.standings([], [a], "placement")
    fixed = ev.TableGame("A", (ev.GameSeat("Ann", 80, 2, 1), *a.seats[1:]))
    after = ev.standings([], [fixed], "placement")
    assert not ev.changed_since(before, ev.standings([], [a], "placement"))
    assert ev.changed_since(before, after)
    assert ev.standings_fingerprint(before) != ev.standings_fingerprint(after)


def test_placement_shares_at_a_table_of_one_is_nothing_and_leaders_share():
    assert ev.placement_shares([10]) == (0,)
    assert ev.leaders({"Ann": 30, "Bob": 30, "Cy": 10}) == ["Ann", "Bob"]
    assert ev.leaders({}) == []
    assert ev.repeat_table([((1, 2, 3),), ((1, 2, 4),)]) == {1: 1, 2: 1}
    assert 1 <= ev.new_seed(random.Random(1)) <= ev.MAX_SEED
