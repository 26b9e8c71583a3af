"""Statistics that teach bidding: every figure checked against one computed here, from the
generated games, without the rules module (its own scoring and its own reading of ±1 and
Canadian)."""

import random
from collections import defaultdict
from datetime import timedelta

import pytest

from scorekeeper import queries, rules
from scorekeeper.reports import bidding
from tests.factories import BASE_TIME, make_game

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]


def points(bid, took):
    return 20 + 10 * took if bid == took else -10 * abs(bid - took)


def generated_games(count, seed=1):
    """Finished games of 3 to 6 players under ±1, Canadian and free, Ann at varying seats,
    with bids anywhere near the tricks (the paper may break the bid rule too)."""
    rng = random.Random(seed)
    made = []
    for n in range(count):
        players = 3 + n % 4
        rule = ("plus_minus_one", "canadian", "free")[n % 3]
        game_rules = rules.GameRules(players=players, bid_rule=rule)
        first_dealer = rng.randrange(players)
        names = NAMES[:players]
        rng.shuffle(names)
        rounds = []
        for size in game_rules.hand_sizes:
            tricks = [0] * players
            for _ in range(size):
                tricks[rng.randrange(players)] += 1
            bids = [max(0, min(size, t + rng.choice((-2, -1, 0, 0, 0, 1, 1)))) for t in tricks]
            rounds.append((bids, tricks))
        made.append((names, game_rules, first_dealer, rounds))
    return made


def expected_figures(games, who="Ann"):
    """The figures as a player would count them on the paper sheets."""
    out = {
        "rounds": 0,
        "met": 0,
        "forced": [0, 0],
        "free": [0, 0],
        "zero": [0, 0],
        "size": defaultdict(lambda: [0, 0, 0, 0]),
        "place": defaultdict(lambda: [0, 0, 0, 0]),
        "lost": defaultdict(lambda: [0, 0]),
    }
    for names, game_rules, first_dealer, rounds in games:
        if who not in names:
            continue
        seat = names.index(who)
        players = len(names)
        totals = [0] * players
        for number, (bids, tricks) in enumerate(rounds, start=1):
            size = game_rules.hand_sizes[number - 1]
            dealer = (first_dealer + number - 1) % players
            order = [(dealer + k) % players for k in range(1, players + 1)]
            place = order.index(seat) + 1
            last = place == players
            bid, took = bids[seat], tricks[seat]
            forced = False
            if last:
                value = size - sum(bids[s] for s in order[:-1])
                leading = all(totals[seat] > totals[s] for s in range(players) if s != seat)
                if game_rules.bid_rule == "plus_minus_one":
                    forced = 0 <= value <= size
                elif game_rules.bid_rule == "canadian":
                    forced = 0 < value <= size and leading
            hit = bid == took
            out["rounds"] += 1
            out["met"] += hit
            kind = out["forced"] if forced else out["free"]
            kind[0] += 1
            kind[1] += hit
            if bid == 0:
                out["zero"][0] += 1
                out["zero"][1] += hit
            key = "last" if last else place
            for table, k in ((out["size"], size), (out["place"], key)):
                table[k][0] += 1
                table[k][1] += hit
                table[k][2] += bid > took
                table[k][3] += bid < took
            if not hit:
                loss = out["lost"]["over" if bid > took else "under", size]
                loss[0] += 1
                loss[1] += 10 * abs(bid - took)
            for s in range(players):
                totals[s] += points(bids[s], tricks[s])
    return out


def bid_games(games, who="Ann"):
    made = []
    for n, (names, game_rules, first_dealer, rounds) in enumerate(games):
        if who not in names:
            continue
        records = tuple(
            rules.RoundRecord(
                number=number,
                hand_size=game_rules.hand_sizes[number - 1],
                dealer=rules.dealer_seat(first_dealer, number, len(names)),
                bids=tuple(bids),
                tricks=tuple(tricks),
            )
            for number, (bids, tricks) in enumerate(rounds, start=1)
        )
        made.append(bidding.BidGame(n, BASE_TIME, names.index(who), game_rules, records))
    return made


def assert_matches(stats, expected):
    assert stats.all_bids.rounds == expected["rounds"]
    assert stats.all_bids.met == expected["met"]
    assert (stats.forced.rounds, stats.forced.met) == tuple(expected["forced"])
    assert (stats.free.rounds, stats.free.met) == tuple(expected["free"])
    assert (stats.zero.rounds, stats.zero.met) == tuple(expected["zero"])
    assert {size: (t.rounds, t.met, t.over, t.under) for size, t in stats.by_hand_size} == {
        size: tuple(counts) for size, counts in expected["size"].items()
    }
    assert {
        "last" if p.last else p.place: (p.tally.rounds, p.tally.met, p.tally.over, p.tally.under)
        for p in stats.by_position
    } == {place: tuple(counts) for place, counts in expected["place"].items()}
    lost = {(loss.direction, loss.hand_size): (loss.misses, loss.points) for loss in stats.losses}
    assert lost == {key: tuple(value) for key, value in expected["lost"].items()}
    assert stats.points_lost == sum(points for _, points in expected["lost"].values())
    assert [loss.points for loss in stats.losses] == sorted(
        (loss.points for loss in stats.losses), reverse=True
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_figures_match_the_ones_counted_from_the_sheets(seed):
    games = generated_games(12, seed)
    expected = expected_figures(games)
    stats = bidding.bidding_stats(bid_games(games))
    assert_matches(stats, expected)
    # The generated games do restrict the last bidder, and leave others free.
    assert stats.forced.rounds > 0
    assert stats.free.rounds > stats.forced.rounds


def test_canadian_binds_only_the_last_bidder_clearly_in_the_lead():
    game_rules = rules.GameRules(players=3, bid_rule="canadian")
    # Round 1: nobody leads (all 0), so seat 0 (the dealer of round 1 … bids last) is free.
    # Round 2 (dealer seat 1): seat 1 leads alone with 30 and bids last: restricted.
    records = (
        rules.RoundRecord(1, 1, 0, (0, 1, 0), (0, 1, 0)),
        rules.RoundRecord(2, 2, 1, (0, 1, 1), (0, 1, 1)),
    )
    for seat, forced in ((0, 0), (1, 1)):
        stats = bidding.bidding_stats([bidding.BidGame(1, BASE_TIME, seat, game_rules, records)])
        assert stats.forced.rounds == forced


def test_findings_name_the_largest_kind_of_miss():
    game_rules = rules.GameRules(players=3, bid_rule="free")
    # Ann (seat 0) over-bids by one in every hand of 8 cards or more, and meets the rest.
    records = []
    for number, size in enumerate(game_rules.hand_sizes, start=1):
        big = size >= 8
        bids = (size if big else 0, 0, 0)
        tricks = (size - 1, 1, 0) if big else (0, size, 0)
        records.append(rules.RoundRecord(number, size, (number - 1) % 3, bids, tricks))
    stats = bidding.bidding_stats([bidding.BidGame(1, BASE_TIME, 0, game_rules, tuple(records))])
    found = bidding.findings(stats)
    assert found[0].code == "over_from"
    assert found[0].values["low"] == 8
    assert found[0].values["count"] == found[0].values["misses"] == 13
    assert found[0].values["share"] == 1.0


def test_too_few_rounds_say_nothing():
    game_rules = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=2))
    records = (
        rules.RoundRecord(1, 1, 0, (1, 0, 1), (0, 0, 1)),
        rules.RoundRecord(2, 2, 1, (0, 0, 1), (1, 0, 1)),
    )
    stats = bidding.bidding_stats([bidding.BidGame(1, BASE_TIME, 0, game_rules, records)])
    assert bidding.findings(stats) == ()


def test_stored_games_give_the_same_figures(db_ctx):
    games = generated_games(10, seed=7)
    for n, (names, game_rules, first_dealer, rounds) in enumerate(games):
        make_game(
            names,
            rounds,
            game_rules=game_rules,
            first_dealer=first_dealer,
            created_at=BASE_TIME + timedelta(days=n),
            commit=False,
        )
    # A game still being played does not count.
    make_game(["Ann", "Bob", "Cy"], [([0, 1, 0], [0, 1, 0])], commit=False)
    from scorekeeper.extensions import db

    db.session.commit()
    ann = db.session.scalar(db.select(queries.Player.id).where(queries.Player.name == "Ann"))
    stats = queries.bidding_figures(ann, [])
    assert_matches(stats, expected_figures(games))
    # The period narrows the games: only the first three days.
    period = queries.period_conditions(None, (BASE_TIME + timedelta(days=2)).date())
    narrowed = queries.bidding_figures(ann, period)
    assert_matches(narrowed, expected_figures(games[:3]))


def test_the_player_page_says_what_stands_out(client, app):
    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule="free")
        rounds = []
        for size in game_rules.hand_sizes:
            big = size >= 8
            rounds.append(((size if big else 0, 0, 0), (size - 1, 1, 0) if big else (0, size, 0)))
        make_game(["Ann", "Bob", "Cy"], rounds, game_rules=game_rules)
    page = client.get("/players/1").get_data(as_text=True)
    assert "How Ann bids" in page
    assert "Ann bid over with 8 cards or more: 100% of the missed bids (13 of 13)." in page
    assert "Over-bid with 8 cards" in page
