"""Player statistics against a small example worked out by hand."""

import random
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from scorekeeper import queries, ratings, records, results, rules
from scorekeeper.extensions import db
from scorekeeper.models import Entry, Game, GameStatus, Player, SeatResult
from scorekeeper.reports.stats import PlayedGame, Rate, player_stats
from tests.factories import BASE_TIME, make_game, random_rounds

ANN, BOB, CY = 1, 2, 3
# Two finished 3-player games, "first 2 rounds" plan (1 card, then 2 cards), free bids.
RULES = rules.GameRules(
    players=3, plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=2), bid_rule="free"
)
# Game 1 (Ann, Bob, Cy)
#   round 1, 1 card:  bids 1 0 0, tricks 1 0 0 -> Ann +30, Bob +20, Cy +20
#   round 2, 2 cards: bids 0 1 0, tricks 0 1 1 -> Ann +20, Bob +30, Cy -10
#   totals Ann 50, Bob 50, Cy 10: Ann and Bob share the win.
GAME_1 = [((1, 0, 0), (1, 0, 0)), ((0, 1, 0), (0, 1, 1))]
# Game 2 (Cy, Ann, Bob): Ann sits in seat 1
#   round 1, 1 card:  bids 0 1 1, tricks 0 0 1 -> Cy +20, Ann -10, Bob +30
#   round 2, 2 cards: bids 1 2 0, tricks 1 0 1 -> Cy +30, Ann -20, Bob -10
#   totals Cy 50, Ann -30, Bob 20: Cy wins.
GAME_2 = [((0, 1, 1), (0, 0, 1)), ((1, 2, 0), (1, 0, 1))]


def played(game_id, day, seat, ids, names, rounds):
    records = [
        rules.RoundRecord(n, size, (n - 1) % 3, bids, tricks)
        for n, (size, (bids, tricks)) in enumerate(zip((1, 2), rounds, strict=True), start=1)
    ]
    return PlayedGame(
        game_id=game_id,
        created_at=datetime(2024, 5, day, tzinfo=UTC),
        seat=seat,
        player_ids=ids,
        names=names,
        sheet=rules.score_sheet(RULES, records),
    )


@pytest.fixture
def ann_games():
    return [
        # Given out of order on purpose: the streak follows the order the games were played.
        played(2, 9, 1, (CY, ANN, BOB), ("Cy", "Ann", "Bob"), GAME_2),
        played(1, 2, 0, (ANN, BOB, CY), ("Ann", "Bob", "Cy"), GAME_1),
    ]


def test_ann_statistics_match_the_hand_computed_example(ann_games):
    figures = player_stats(ANN, ann_games)
    assert figures.games == 2
    assert figures.wins == 1  # the shared win of game 1 counts
    assert figures.win_rate == Rate(1, 2)
    assert figures.average_score == 10  # (50 + -30) / 2
    assert figures.best.game_id == 1
    assert figures.best.final_total == 50
    assert figures.worst.game_id == 2
    assert figures.worst.final_total == -30
    # Bids in play order: 1/1 met, 0/0 met, 1/0 missed (over), 2/0 missed (over).
    assert figures.bids == Rate(2, 4)
    assert figures.by_hand_size == ((1, Rate(1, 2)), (2, Rate(1, 2)))
    assert (figures.over.rounds, figures.over.tricks, figures.over.average) == (2, 3, 1.5)
    assert (figures.under.rounds, figures.under.average) == (0, None)
    assert figures.zero_bids == Rate(1, 1)
    assert figures.longest_streak == 2


def test_ann_head_to_head_counts_games_together_and_who_finished_ahead(ann_games):
    lines = {line.name: line for line in player_stats(ANN, ann_games).head_to_head}
    # Bob: 50 v 50 level, -30 v 20 behind. Cy: 50 v 10 ahead, -30 v 50 behind.
    assert (lines["Bob"].games, lines["Bob"].ahead, lines["Bob"].behind, lines["Bob"].level) == (
        2,
        0,
        1,
        1,
    )
    assert (lines["Cy"].games, lines["Cy"].ahead, lines["Cy"].behind, lines["Cy"].level) == (
        2,
        1,
        1,
        0,
    )


def test_cy_under_bids_and_the_saboteur_dealer_round_is_left_out():
    saboteur = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=1), saboteur=True)
    # Cy deals (seat 2) and does not bid; he scores +20 but the round is no bid of his.
    record = rules.RoundRecord(1, 1, 2, (0, 0, None), (0, 0, 1))
    game = PlayedGame(
        3,
        datetime(2024, 6, 1, tzinfo=UTC),
        2,
        (ANN, BOB, CY),
        ("Ann", "Bob", "Cy"),
        rules.score_sheet(saboteur, [record]),
    )
    figures = player_stats(CY, [game])
    assert figures.bids == Rate(0, 0)
    assert figures.bids.value is None
    assert figures.average_score == 20
    assert figures.wins == 1


def test_no_games_gives_empty_figures_not_errors():
    figures = player_stats(ANN, [])
    assert figures.games == 0
    assert figures.best is None
    assert figures.average_score is None
    assert figures.win_rate.value is None
    assert figures.longest_streak == 0


def test_player_page_shows_the_example_and_defines_each_figure(client, ctx):
    make_game(
        ["Ann", "Bob", "Cy"],
        GAME_1,
        game_rules=RULES,
        created_at=datetime(2024, 5, 2, 20, tzinfo=UTC),
    )
    make_game(
        ["Cy", "Ann", "Bob"],
        GAME_2,
        game_rules=RULES,
        created_at=datetime(2024, 5, 9, 20, tzinfo=UTC),
    )
    # Unfinished games do not count.
    make_game(["Ann", "Bob", "Cy"], GAME_1[:1], game_rules=RULES)
    page = client.get("/players/1").get_data(as_text=True)
    assert "Win rate" in page
    assert "50%" in page
    assert "Wins divided by games." in page
    assert "2 of 4" in page  # bid hit rate
    assert "short by 1.5 on average" in page
    only_may_9 = client.get("/players/1?date_from=2024-05-05&date_to=2024-05-31")
    assert only_may_9.status_code == 200
    assert "0 of 2" in only_may_9.get_data(as_text=True)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("date_from=yesterday", "Write the date as YYYY-MM-DD"),
        ("date_from=2024-05-10&date_to=2024-05-01", "The end date is before the start date."),
        ("date_to=2024-02-30", "Write the date as YYYY-MM-DD"),
    ],
)
def test_bad_period_is_a_422_with_the_message_next_to_the_field(client, ctx, query, message):
    make_game(["Ann", "Bob", "Cy"], GAME_1, game_rules=RULES)
    response = client.get(f"/players/1?{query}")
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)


def test_unknown_player_is_404(client):
    assert client.get("/players/999").status_code == 404


def test_roster_lists_players_with_their_finished_games(client, ctx):
    make_game(["Ann", "Bob", "Cy"], GAME_1, game_rules=RULES)
    page = client.get("/players/").get_data(as_text=True)
    assert "Ann" in page
    assert "1 finished game" in page


def oracle_games(player_id: int, since: datetime | None = None) -> list[PlayedGame]:
    """The player's finished games as the definition (stats.player_stats) takes them."""
    games = db.session.scalars(queries.game_query()).all()
    played_games = []
    for game in games:
        ids = tuple(seat.player_id for seat in game.seats)
        if game.status != GameStatus.FINISHED or player_id not in ids:
            continue
        if since is not None and game.created_at.replace(tzinfo=UTC) < since:
            continue
        played_games.append(
            PlayedGame(
                game_id=game.id,
                created_at=game.created_at,
                seat=ids.index(player_id),
                player_ids=ids,
                names=tuple(records.player_names(game)),
                sheet=records.sheet_of(game),
            )
        )
    return played_games


def test_the_page_figures_stored_per_game_add_up_to_the_definition(db_app):
    """The player page adds up stored seat results in SQL; on random games (short ones, so
    that runs of bids met cross games; ties on total and on start time; unfinished games),
    every figure equals stats.player_stats over the games' score sheets."""
    rng = random.Random(7)
    names = ["Ann", "Bob", "Cy", "Di", "Eve"]
    with db_app.app_context():
        for n in range(40):
            seated = rng.sample(names, rng.randint(3, 5))
            plan = rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=rng.randint(1, 4))
            game_rules = rules.GameRules(players=len(seated), plan=plan, bid_rule="free")
            rounds = random_rounds(game_rules, seed=n)
            if n % 3 == 0:  # Every bid met: a run that goes on into the next game.
                rounds = [(list(tricks), list(tricks)) for _bids, tricks in rounds]
            make_game(
                seated,
                rounds if n % 7 else rounds[:-1],
                game_rules=game_rules,
                created_at=BASE_TIME + timedelta(hours=n // 2),
                commit=False,
            )
        db.session.commit()
        ids = dict(db.session.execute(sa.select(Player.name, Player.id)).all())
        since = BASE_TIME + timedelta(hours=8)
        conditions = queries.period_conditions(since.date(), None)
        for name in names:
            expected = player_stats(ids[name], oracle_games(ids[name]))
            assert queries.player_stats(ids[name], []) == expected, name
            # The all-time figures stored with the results are the same.
            stored, bidding_stored = queries.stored_figures(ids[name])
            assert stored == expected, name
            assert bidding_stored == queries.bidding_figures(ids[name], []), name
            after = player_stats(ids[name], oracle_games(ids[name], queries.day_start(since)))
            assert queries.player_stats(ids[name], conditions) == after, name
        assert max(player_stats(ids[n], oracle_games(ids[n])).longest_streak for n in names) > 4


def test_figures_stored_game_by_game_add_up_to_the_definition(db_app):
    """Games finished one transaction at a time are added to the stored all-time figures
    (where they come last in the order played; one started earlier, or at the same moment
    with a lower id, has the figures computed again): after each, every player's stored
    figures equal stats.player_stats over the games' score sheets."""
    rng = random.Random(11)
    names = ["Ann", "Bob", "Cy", "Di"]
    with db_app.app_context():
        for n in range(24):
            seated = rng.sample(names, rng.randint(3, 4))
            plan = rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=rng.randint(1, 3))
            game_rules = rules.GameRules(players=len(seated), plan=plan, bid_rule="free")
            rounds = random_rounds(game_rules, seed=100 + n)
            if n % 3 == 0:  # every bid met: a run that goes on into the next game
                rounds = [(list(tricks), list(tricks)) for _bids, tricks in rounds]
            # Mostly later and later, sometimes a game from before (entered afterwards).
            hours = n if n % 5 else n - 4
            make_game(
                seated,
                rounds,
                game_rules=game_rules,
                created_at=BASE_TIME + timedelta(hours=hours),
            )
            ids = dict(db.session.execute(sa.select(Player.name, Player.id)).all())
            for name, player_id in ids.items():
                expected = player_stats(player_id, oracle_games(player_id))
                stored, bidding_stored = queries.stored_figures(player_id)
                assert stored == expected, (n, name)
                assert bidding_stored == queries.bidding_figures(player_id, []), (n, name)


def test_stored_results_follow_a_correction_of_a_finished_game(db_app):
    with db_app.app_context():
        game = make_game(["Ann", "Bob", "Cy"], GAME_1, game_rules=RULES)
        ann = game.seats[0].player_id
        assert queries.player_stats(ann, []).wins == 1
        # Ann's second-round bid corrected from 0 to 1: she misses it, Bob wins alone.
        db.session.execute(
            sa.update(Entry)
            .where(Entry.round_id == game.rounds[1].id, Entry.seat == 0)
            .values(bid=1)
        )
        db.session.execute(sa.update(Game).where(Game.id == game.id).values(version=2))
        # A write past the ORM names its game: the results are stored when it commits.
        results.due(db.session, [game.id])
        db.session.commit()
        figures = queries.player_stats(ann, [])
        assert (figures.wins, figures.bids.hits, figures.best.final_total) == (0, 1, 20)


def test_flask_refresh_stores_every_games_results_and_the_ladder(app):
    with app.app_context():
        game = make_game(["Ann", "Bob", "Cy"], GAME_1, game_rules=RULES)
        game_id, version = game.id, game.version
        # As a database written before results were stored with each change: none.
        db.session.execute(sa.delete(SeatResult))
        db.session.commit()
    answer = app.test_cli_runner().invoke(args=["refresh"])
    assert answer.exit_code == 0, answer.output
    assert "1 games' results computed" in answer.output
    with app.app_context():
        stored = db.session.scalars(
            sa.select(SeatResult.version).where(SeatResult.game_id == game_id)
        ).all()
        assert stored == [version] * 3
        assert (
            ratings.first_change(db.session, ratings.ladder_key(ratings.ALL_TIME, None), None)
            is None
        )
    again = app.test_cli_runner().invoke(args=["refresh"])
    assert "0 games' results computed" in again.output
