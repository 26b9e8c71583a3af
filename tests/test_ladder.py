"""The club ladder: ratings by openskill's Plackett-Luce model, stored after each finished game,
kept current from the first changed game on, and read in a fixed number of queries."""

import math
import re
from datetime import UTC, date, datetime, timedelta

import pytest
import sqlalchemy as sa

from scorekeeper import ratings, rules
from scorekeeper.extensions import db
from scorekeeper.forms.ladder import season_start
from scorekeeper.models import (
    Game,
    GameStatus,
    Ladder,
    LadderGame,
    LadderRating,
    LadderStanding,
)
from scorekeeper.reports import ladder
from scorekeeper.reports.ladder import Finish, GameFinish, Rating
from tests.factories import BASE_TIME, make_game, new_game, random_rounds
from tests.play_helpers import finish_while_reading, play_round
from tests.test_history_queries import counted

# --- the hand-checked example --------------------------------------------------------------
#
# Three games of one round of one card (Ann, Bob, Cy, Di are players 1 to 4):
#   1. Ann 30, Bob 20, Cy −10                  → places Ann 1, Bob 2, Cy 3
#   2. Bob 20, Di 20, Ann −10                  → Bob and Di share 1st, Ann 3rd
#   3. Cy 30, Ann 20, Bob −10, Di −10          → Cy 1, Ann 2, Bob and Di share 3rd
ANN, BOB, CY, DI = 1, 2, 3, 4
THREE_GAMES = (
    GameFinish(101, (Finish(ANN, 1), Finish(BOB, 2), Finish(CY, 3))),
    GameFinish(102, (Finish(BOB, 1), Finish(DI, 1), Finish(ANN, 3))),
    GameFinish(103, (Finish(CY, 1), Finish(ANN, 2), Finish(BOB, 3), Finish(DI, 3))),
)


def reference_update(before: dict[int, Rating], game: GameFinish) -> dict[int, Rating]:
    """Weng and Lin (2011), Algorithm 4 (Plackett-Luce) for one-player teams, written out from
    the paper as openskill documents it, independently of the library:

    sigma_i² += tau²;  c = sqrt(Σ (sigma_i² + beta²));  S_q = Σ_{s: r_s ≥ r_q} e^(mu_s/c);
    A_q = |{s: r_s = r_q}|;  p_iq = e^(mu_i/c) / S_q;  over q with r_q ≤ r_i:
    Ω_i = sigma_i²/c · Σ ([q = i] − p_iq) / A_q;  Δ_i = γ sigma_i²/c² · Σ p_iq (1 − p_iq) / A_q
    with γ = sigma_i / c;  mu_i += Ω_i;  sigma_i *= sqrt(max(1 − Δ_i, kappa))."""
    players = [finish.player_id for finish in game.finishes]
    rank = {finish.player_id: finish.place for finish in game.finishes}
    mu = {p: before.get(p, Rating()).mu for p in players}
    var = {p: before.get(p, Rating()).sigma ** 2 + ladder.TAU**2 for p in players}
    c = math.sqrt(sum(var[p] + ladder.BETA**2 for p in players))
    strength = {p: math.exp(mu[p] / c) for p in players}
    total = {q: sum(strength[s] for s in players if rank[s] >= rank[q]) for q in players}
    tied = {q: sum(1 for s in players if rank[s] == rank[q]) for q in players}
    omega, delta = {}, {}
    for i in players:
        above = [q for q in players if rank[q] <= rank[i]]
        share = {q: strength[i] / total[q] for q in above}
        omega[i] = var[i] / c * sum(((q == i) - share[q]) / tied[q] for q in above)
        gamma = math.sqrt(var[i]) / c
        delta[i] = gamma * var[i] / c**2 * sum(share[q] * (1 - share[q]) / tied[q] for q in above)
    return {
        i: Rating(mu[i] + omega[i], math.sqrt(var[i]) * math.sqrt(max(1 - delta[i], 1e-4)))
        for i in players
    }


def test_first_game_moves_three_new_players_as_worked_out_by_hand():
    # Equal priors: every p_iq is 1/|C_q|, so Ω is sigma²/c times 2/3, 1/6 and −5/6.
    (_, rated), *_ = ladder.rate_games(THREE_GAMES[:1])
    var = ladder.SIGMA**2 + ladder.TAU**2
    c = math.sqrt(3 * (var + ladder.BETA**2))
    expected = {ANN: 2 / 3, BOB: 1 / 6, CY: -5 / 6}
    for finish in rated:
        assert finish.rating.mu == pytest.approx(ladder.MU + var / c * expected[finish.player_id])
    assert [round(f.rating.mu, 4) for f in rated] == [27.869, 25.7173, 21.4137]
    # The winner's uncertainty shrinks least (Δ is smallest for the one above everyone).
    assert rated[0].rating.sigma > rated[1].rating.sigma == rated[2].rating.sigma


def test_three_games_match_the_model_worked_out_independently():
    expected: dict[int, Rating] = {}
    for (game_id, rated), game in zip(ladder.rate_games(THREE_GAMES), THREE_GAMES, strict=True):
        expected = {**expected, **reference_update(expected, game)}
        assert game_id == game.game_id
        for finish in rated:
            want = expected[finish.player_id]
            assert finish.rating.mu == pytest.approx(want.mu, abs=1e-9)
            assert finish.rating.sigma == pytest.approx(want.sigma, abs=1e-9)
    # After three games: Ann (1st, 3rd, 2nd) leads; Bob (2nd, shared 1st, shared 3rd) is
    # ahead of Cy (3rd, then 1st) with one game more; Di (shared 1st, shared 3rd) is last.
    final = sorted(expected.items(), key=lambda item: -item[1].ordinal)
    assert [player for player, _ in final] == [ANN, BOB, CY, DI]
    assert [round(r.ordinal, 2) for _, r in final] == [3.96, 1.15, 0.26, -0.16]


def test_tied_players_move_alike_and_the_order_within_a_game_does_not_matter():
    shuffled = tuple(GameFinish(g.game_id, tuple(reversed(g.finishes))) for g in THREE_GAMES)
    assert list(ladder.rate_games(THREE_GAMES)) == list(ladder.rate_games(shuffled))
    # Two new players sharing first place end level, above the third.
    tie = GameFinish(1, (Finish(ANN, 1), Finish(BOB, 1), Finish(CY, 3)))
    ((_, (ann, bob, cy)),) = ladder.rate_games([tie])
    assert ann.rating == bob.rating
    assert ann.rating.ordinal > cy.rating.ordinal


def test_same_games_same_order_same_ratings_also_from_a_midpoint():
    games = [
        GameFinish(n, tuple(Finish(p, place) for p, place in zip(seats, places, strict=True)))
        for n, (seats, places) in enumerate(
            [((1, 2, 3), (1, 2, 3)), ((2, 3, 4, 5), (1, 1, 3, 4)), ((5, 1, 4), (2, 1, 2))] * 5
        )
    ]
    whole = list(ladder.rate_games(games))
    assert whole == list(ladder.rate_games(games))
    # Continuing from the ratings after game 6 gives exactly the same numbers.
    after_six = {}
    for _, rated in whole[:7]:
        after_six |= {finish.player_id: finish.rating for finish in rated}
    assert list(ladder.rate_games(games[7:], after_six)) == whole[7:]


def test_places_are_the_rules_ranks():
    assert ladder.places([30, 20, 20, -10]) == rules.rank([30, 20, 20, -10]) == (1, 2, 2, 4)


@pytest.mark.parametrize(
    ("season", "today", "first"),
    [
        ("all", date(2025, 6, 15), None),
        ("year", date(2025, 6, 15), date(2025, 1, 1)),
        ("year", date(2025, 1, 1), date(2025, 1, 1)),
        ("12m", date(2025, 6, 15), date(2024, 6, 16)),
        ("12m", date(2024, 2, 29), date(2023, 3, 1)),
    ],
)
def test_season_presets_start_on_the_viewers_days(season, today, first):
    assert season_start(season, today) == first


def test_rating_chart_thins_long_histories_and_keeps_the_ends():
    points = [ladder.RatingPoint(n, BASE_TIME + timedelta(days=n), n / 10) for n in range(1, 1001)]
    chart = ladder.rating_chart(points)
    assert chart.games == 1000
    assert len(chart.points) == ladder.MAX_POINTS
    assert chart.points[0] == points[0]
    assert chart.points[-1] == points[-1]
    assert chart.path.count("L") == ladder.MAX_POINTS - 1
    assert 0 in [tick.value for tick in chart.y_ticks]
    one = ladder.rating_chart(points[:1])
    assert one.path.count("L") == 1  # a single game still draws a short line
    assert ladder.rating_chart([]) is None


# --- stored and shown ----------------------------------------------------------------------

ONE_CARD = rules.RoundPlan("first_n", rounds=1)


def one_card_game(names, bids, tricks, hours, **options):
    game_rules = rules.GameRules(players=len(names), plan=ONE_CARD, bid_rule="free")
    return make_game(
        names,
        [(bids, tricks)],
        game_rules=game_rules,
        created_at=BASE_TIME + timedelta(hours=hours),
        **options,
    )


def play_the_three_games():
    one_card_game(["Ann", "Bob", "Cy"], (1, 0, 1), (1, 0, 0), 0)
    one_card_game(["Bob", "Di", "Ann"], (0, 0, 0), (0, 0, 1), 1)
    one_card_game(["Cy", "Ann", "Bob", "Di"], (1, 0, 1, 1), (1, 0, 0, 0), 2)


def stored(key: str | None = None) -> list[tuple]:
    key = key or ratings.ladder_key(ratings.ALL_TIME, None)
    return [
        tuple(row)
        for row in db.session.execute(
            sa.select(
                LadderRating.seq,
                LadderRating.game_id,
                LadderRating.player_id,
                LadderRating.place,
                LadderRating.mu,
                LadderRating.sigma,
            )
            .join(Ladder, Ladder.id == LadderRating.ladder_id)
            .where(Ladder.key == key)
            .order_by(LadderRating.seq, LadderRating.player_id)
        )
    ]


def from_scratch() -> list[tuple]:
    """The all-time ladder computed again with nothing stored."""
    db.session.execute(sa.delete(Ladder))
    db.session.commit()
    ratings.standings(ratings.ALL_TIME, None, 1)
    return stored()


def ladder_names(client, url="/ladder/?min_games=1") -> list[str]:
    page = client.get(url).get_data(as_text=True)
    return re.findall(r'<th scope="row">\s*<a href="/players/\d+">([^<]+)</a>', page)


def test_the_stored_three_games_are_the_hand_checked_ones(db_ctx):
    play_the_three_games()
    table = ratings.standings(ratings.ALL_TIME, None, 1)
    assert [s.name for s in table.ranked] == ["Ann", "Bob", "Cy", "Di"]
    assert [round(s.rating.ordinal, 2) for s in table.ranked] == [3.96, 1.15, 0.26, -0.16]
    ann = table.ranked[0]
    assert (ann.games, ann.wins, ann.place_sum) == (3, 1, 6)
    assert ann.average_place == 2
    assert (ann.bids.hits, ann.bids.tries) == (2, 3)
    bob = table.ranked[1]
    assert (bob.games, bob.wins, bob.place_sum) == (3, 1, 6)  # 2nd, shared 1st, shared 3rd
    expected = {}
    for _, rated in ladder.rate_games(THREE_GAMES):
        expected |= {finish.player_id: finish.rating for finish in rated}
    by_name = dict(zip(("Ann", "Bob", "Cy", "Di"), (ANN, BOB, CY, DI), strict=True))
    for standing in table.ranked:
        assert standing.rating == expected[by_name[standing.name]]


def test_a_finished_game_shows_on_the_ladder_an_unfinished_one_does_not(client, ctx):
    assert "No finished game in this season yet" in client.get("/ladder/").get_data(as_text=True)
    game_rules = rules.GameRules(players=3, bid_rule="free")
    make_game(["Ann", "Bob", "Cy"], random_rounds(game_rules, 2), game_rules=game_rules)
    make_game(
        ["Ann", "Eve", "Fay"], random_rounds(game_rules), game_rules=game_rules, status="abandoned"
    )
    assert ladder_names(client) == []
    finished = make_game(
        ["Ann", "Bob", "Di"], random_rounds(game_rules, seed=4), game_rules=game_rules
    )
    assert sorted(ladder_names(client)) == ["Ann", "Bob", "Di"]
    # A correction that takes the finished game back out of the finished games: off again.
    finished.status = GameStatus.IN_PROGRESS
    finished.version += 1
    db.session.commit()
    assert ladder_names(client) == []


def test_a_game_played_at_the_table_is_on_the_ladder_once_its_last_round_is_in(client, ctx):
    game_id = new_game(("Ann", "Bob", "Cy"), plan=ONE_CARD, bid_rule="free")
    assert ladder_names(client) == []  # started, not finished
    response = play_round(client, game_id, 1, dealer=0, bids=[1, 0, 1], took=[1, 0, 0])
    assert response.status_code in (200, 303)
    assert ladder_names(client) == ["Ann", "Bob", "Cy"]


def test_fewer_games_than_the_minimum_are_rated_not_ranked(client, ctx):
    one_card_game(["Ann", "Bob", "Cy"], (1, 0, 1), (1, 0, 0), 0)
    one_card_game(["Ann", "Bob", "Di"], (1, 0, 1), (1, 0, 0), 1)
    one_card_game(["Ann", "Bob", "Di"], (1, 0, 1), (1, 0, 0), 2)
    page = client.get("/ladder/?min_games=3").get_data(as_text=True)
    ranked, unranked = page.split("Not ranked yet")
    assert re.findall(r'<th scope="row">\s*<a href="/players/\d+">([^<]+)', ranked) == [
        "Ann",
        "Bob",
    ]
    assert sorted(re.findall(r'<th scope="row">\s*<a href="/players/\d+">([^<]+)', unranked)) == [
        "Cy",
        "Di",
    ]
    assert "3 finished games · 3 wins · average place 1.0 · bids met 100%" in ranked
    page = client.get("/ladder/?min_games=5").get_data(as_text=True)
    assert "Nobody has played 5 finished games in this season yet." in page
    assert client.get("/ladder/?min_games=4").status_code == 422
    assert client.get("/ladder/?season=decade").status_code == 422


def test_seasons_count_games_started_in_them_on_the_viewers_calendar(client, ctx, monkeypatch):
    monkeypatch.setattr("scorekeeper.views.ladder.today", lambda zone: date(2025, 3, 10))
    game_rules = rules.GameRules(players=3, bid_rule="free")

    def game(names, when):
        make_game(names, random_rounds(game_rules), game_rules=game_rules, created_at=when)

    game(["Old", "Bob", "Cy"], datetime(2023, 6, 1, 20, tzinfo=UTC))  # all time only
    game(["Ann", "Bob", "Cy"], datetime(2024, 6, 1, 20, tzinfo=UTC))  # last 12 months too
    # 1 January 2025, 02:00 UTC: still 31 December in São Paulo.
    game(["Ann", "Bob", "Newyear"], datetime(2025, 1, 1, 2, tzinfo=UTC))
    seasons = {
        season: sorted(ladder_names(client, f"/ladder/?season={season}&min_games=1"))
        for season in ("all", "year", "12m")
    }
    assert seasons == {
        "all": ["Ann", "Bob", "Cy", "Newyear", "Old"],
        "year": ["Ann", "Bob", "Newyear"],
        "12m": ["Ann", "Bob", "Cy", "Newyear"],
    }
    # A season's own ratings start afresh: Bob's 12 months differ from his all-time rating.
    figures = {
        season: ratings.standings(season, start, 1)
        for season, start in (("all", None), ("12m", datetime(2024, 3, 11, tzinfo=UTC)))
    }
    bob = {season: next(s for s in t.ranked if s.name == "Bob") for season, t in figures.items()}
    assert (bob["all"].games, bob["12m"].games) == (3, 2)
    assert bob["all"].rating != bob["12m"].rating


def test_this_year_begins_at_midnight_in_the_viewers_time_zone(app, monkeypatch):
    # No application context held: each request finds its own time zone.
    monkeypatch.setattr("scorekeeper.views.ladder.today", lambda zone: date(2025, 3, 10))
    with app.app_context():
        one_card_game(["Ann", "Bob", "Cy"], (1, 0, 1), (1, 0, 0), 0)
        db.session.execute(sa.update(Game).values(created_at=datetime(2025, 1, 1, 2, tzinfo=UTC)))
        db.session.commit()
    client = app.test_client()
    url = "/ladder/?season=year&min_games=1"
    assert sorted(ladder_names(client, url)) == ["Ann", "Bob", "Cy"]
    client.set_cookie("tz", "America/Sao_Paulo")  # 31 December, 23:00 there
    assert ladder_names(client, url) == []
    client.set_cookie("tz", "Europe/Berlin")
    assert sorted(ladder_names(client, url)) == ["Ann", "Bob", "Cy"]


def test_ratings_kept_current_equal_ratings_computed_from_scratch(db_ctx, monkeypatch):
    rated_games = []
    original = ladder.rate_games

    def counting(games, before=None):
        for item in original(games, before):
            rated_games.append(item[0])
            yield item

    monkeypatch.setattr(ratings.rating, "rate_games", counting)
    game_rules = rules.GameRules(players=4, bid_rule="free")
    names = ["Ann", "Bob", "Cy", "Di", "Eve"]
    games = []
    for n in range(8):
        seats = [names[(n + k) % 5] for k in range(4)]
        when = BASE_TIME + timedelta(hours=n)
        rounds = random_rounds(game_rules, seed=n)
        games.append(make_game(seats, rounds, game_rules=game_rules, created_at=when))
    ratings.standings(ratings.ALL_TIME, None, 1)
    assert len(rated_games) == 8
    # Nothing changed: nothing is rated again.
    ratings.standings(ratings.ALL_TIME, None, 1)
    assert len(rated_games) == 8
    # A new game at the end: only it is rated.
    late = BASE_TIME + timedelta(days=1)
    make_game(names[:4], random_rounds(game_rules, seed=9), game_rules=game_rules, created_at=late)
    ratings.standings(ratings.ALL_TIME, None, 1)
    assert len(rated_games) == 9
    kept = stored()
    assert kept == from_scratch()
    # A correction of game 6 (its last round's tricks moved to another player): games 6 to 9
    # are rated again, from the stored ratings after game 5.
    rated_games.clear()
    game = db.session.get(Game, games[5].id)
    entries = game.rounds[-1].entries
    entries[0].tricks, entries[1].tricks = entries[1].tricks, entries[0].tricks
    entries[0].bid, entries[1].bid = entries[1].bid, entries[0].bid
    entries[2].tricks, entries[3].tricks = entries[3].tricks + entries[2].tricks, 0
    game.version += 1
    db.session.commit()
    ratings.standings(ratings.ALL_TIME, None, 1)
    assert rated_games == [g.id for g in games[5:]] + [max(g.id for g in games) + 1]
    corrected = stored()
    assert corrected[: 4 * 5] == kept[: 4 * 5]
    assert corrected != kept
    assert corrected == from_scratch()
    # A deleted game leaves its row: the ladder sees it gone and rates the games after it.
    rated_games.clear()
    db.session.delete(db.session.get(Game, games[2].id))
    db.session.commit()
    ratings.standings(ratings.ALL_TIME, None, 1)
    assert len(rated_games) == 6
    assert stored() == from_scratch()
    assert db.session.scalar(sa.select(sa.func.count()).select_from(LadderGame)) == 8


def test_player_page_shows_the_rating_over_time(client, ctx):
    play_the_three_games()
    page = client.get("/players/1").get_data(as_text=True)
    assert 'class="rating-line"' in page
    assert "After each of 3 finished games, all time." in page
    assert re.search(r'<td class="num">4[.,]0</td></tr>\s*</tbody>', page)  # Ann's 3.96 now


# --- cost ----------------------------------------------------------------------------------


URLS = (
    "/ladder/",
    "/ladder/?season=year&min_games=1",
    "/ladder/?season=12m&min_games=5",
    "/players/1",
)


def visit(app) -> dict[str, list[str]]:
    client = app.test_client()
    found = {}
    for url in URLS:
        with counted(app) as statements:
            assert client.get(url).status_code == 200
        found[url] = statements
    return found


def add_games(app, count: int, start: int) -> None:
    with app.app_context():
        for n in range(start, start + count):
            players = 3 + n % 4
            game_rules = rules.GameRules(players=players, bid_rule="free")
            make_game(
                ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"][:players],
                random_rounds(game_rules, seed=n),
                game_rules=game_rules,
                created_at=datetime.now(UTC) - timedelta(days=300) + timedelta(hours=n),
                commit=False,
            )
        db.session.commit()


def test_ladder_queries_do_not_grow_with_the_number_of_games(db_app):
    # The seasons' ladders are made on the first visits (one game); after that a first visit
    # rates the new games, a second finds every ladder current and only reads.
    add_games(db_app, 1, 0)
    visit(db_app)
    add_games(db_app, 1, 1)
    first_with_two = {url: len(s) for url, s in visit(db_app).items()}
    again_with_two = visit(db_app)
    add_games(db_app, 20, 2)
    first_with_many = {url: len(s) for url, s in visit(db_app).items()}
    again_with_many = visit(db_app)
    assert first_with_two == first_with_many
    assert {url: len(s) for url, s in again_with_two.items()} == {
        url: len(s) for url, s in again_with_many.items()
    }
    for url, statements in again_with_many.items():
        # Nothing is written when nothing changed.
        assert not [s for s in statements if re.match(r"\s*(INSERT|UPDATE|DELETE)", s)], url
    # A ladder page then costs (SQLite's BEGIN,) one check that the ladder is current, one read.
    for url in URLS[:3]:
        assert len(again_with_many[url]) <= 3, again_with_many[url]


# --- the standings and charts the job stores ------------------------------------------------


def stored_standings_are_the_ratings_added_up() -> None:
    """The ladder page's standings and every player's rating chart, as the job stored them,
    are what the ladder's ratings say now (read afresh)."""
    db.session.rollback()
    table = ratings.standings(ratings.ALL_TIME, None, 1)
    key = ratings.ladder_key(ratings.ALL_TIME, None)
    rows = db.session.execute(
        sa.select(LadderRating, LadderGame.played_at)
        .join(
            LadderGame,
            sa.and_(
                LadderGame.ladder_id == LadderRating.ladder_id,
                LadderGame.game_id == LadderRating.game_id,
            ),
        )
        .join(Ladder, Ladder.id == LadderRating.ladder_id)
        .where(Ladder.key == key)
        .order_by(LadderRating.seq)
    ).all()
    lines: dict[int, list] = {}
    for row, played in rows:
        lines.setdefault(row.player_id, []).append((row, played))
    expected = {
        player_id: (
            len(games),
            sum(row.winner for row, _ in games),
            sum(row.place for row, _ in games),
            (sum(row.hits for row, _ in games), sum(row.bids for row, _ in games)),
            Rating(games[-1][0].mu, games[-1][0].sigma),
        )
        for player_id, games in lines.items()
    }
    got = {
        s.player_id: (s.games, s.wins, s.place_sum, (s.bids.hits, s.bids.tries), s.rating)
        for s in (*table.ranked, *table.unranked)
    }
    assert got == expected
    for player_id, games in lines.items():
        points = [
            ladder.RatingPoint(number, played, Rating(row.mu, row.sigma).ordinal)
            for number, (row, played) in enumerate(games, start=1)
        ]
        history = ratings.rating_history(player_id)
        assert history.points == list(ladder.thinned(points)), player_id
        assert history.games == len(points)


def test_the_stored_standings_and_charts_follow_every_change(db_ctx):
    game_rules = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=1))
    names = ["Ann", "Bob", "Cy", "Di"]
    games = []
    # More games for Ann than a chart draws: her stored chart is thinned.
    for n in range(ladder.MAX_POINTS + 5):
        seats = ["Ann", names[1 + n % 3], names[1 + (n + 1) % 3]]
        when = BASE_TIME + timedelta(hours=n)
        rounds = random_rounds(game_rules, seed=n)
        games.append(
            make_game(seats, rounds, game_rules=game_rules, created_at=when, commit=False)
        )
    db.session.commit()
    stored_standings_are_the_ratings_added_up()
    assert len(ratings.rating_history(games[0].seats[0].player_id).points) == ladder.MAX_POINTS
    # A correction of a finished game, then one taken back out of the finished games.
    game = db.session.get(Game, games[3].id)
    entries = game.rounds[0].entries
    entries[0].tricks, entries[1].tricks = entries[1].tricks, entries[0].tricks
    game.version += 1
    db.session.commit()
    stored_standings_are_the_ratings_added_up()
    game = db.session.get(Game, games[7].id)
    game.status = GameStatus.IN_PROGRESS
    game.version += 1
    db.session.commit()
    stored_standings_are_the_ratings_added_up()


def test_a_ladder_stored_before_its_standings_is_brought_up_to_date_by_its_job(db_ctx):
    game_rules = rules.GameRules(players=3, bid_rule="free")
    make_game(["Ann", "Bob", "Cy"], random_rounds(game_rules), game_rules=game_rules)
    ratings.standings(ratings.ALL_TIME, None, 1)
    # As migration 0013 leaves a ladder rated before: current ratings, no standings.
    db.session.execute(sa.delete(LadderStanding))
    db.session.execute(sa.update(Ladder).values(finished_version=None))
    db.session.commit()
    runs = ratings.job_runs(ratings.ALL_TIME, None)
    stored_standings_are_the_ratings_added_up()
    assert ratings.job_runs(ratings.ALL_TIME, None) == runs + 1  # the job stored them
    stored_standings_are_the_ratings_added_up()
    assert ratings.job_runs(ratings.ALL_TIME, None) == runs + 1  # current: one query


def test_a_ladder_read_while_games_finish_shows_whole_standings(app):
    """One request finishes games while another reads the ladder: every read shows a complete
    ladder of some moment (the games of each player only ever grow, and all of a game's
    players are on it together), and the last read all of them."""
    one_round = {"plan": rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), "bid_rule": "free"}
    with app.app_context():
        games = [new_game(["Ann", "Bob", "Cy"], **one_round) for _ in range(5)]
        db.session.remove()
    seen: list[dict[str, int]] = []
    row = re.compile(r'<a href="/players/\d+">([^<]+)</a>\s*<span class="ladder-figures">(\d+)')

    def read(reader) -> None:
        page = reader.get("/ladder/?min_games=1").get_data(as_text=True)
        if "being brought up to date" not in page:
            seen.append({name: int(count) for name, count in row.findall(page)})

    finish_while_reading(app, games, read)
    counts = [(line.get("Ann", 0), line.get("Bob", 0), line.get("Cy", 0)) for line in seen]
    assert counts == sorted(counts)
    assert all(ann == bob == cy for ann, bob, cy in counts)
    last = {
        name: int(n)
        for name, n in row.findall(
            app.test_client().get("/ladder/?min_games=1").get_data(as_text=True)
        )
    }
    assert last == {"Ann": 5, "Bob": 5, "Cy": 5}
