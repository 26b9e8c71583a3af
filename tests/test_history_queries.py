"""Pages run a fixed number of SQL queries, however many games, rounds or players exist."""

from datetime import timedelta

from scorekeeper import ratings, rules
from scorekeeper.extensions import db
from tests.factories import BASE_TIME, counted, make_game, random_rounds

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]
# One game more than a page of the games list (20 a page): full pages, a second page, and
# every table size from 3 to 6 players. A query per game or per round would show at once.
MANY_GAMES = 21


def seed(app, games: int) -> None:
    """``games`` finished games of 3 to 6 players, all including Ann, in one transaction."""
    with app.app_context():
        for n in range(games):
            players = 3 + n % 4
            game_rules = rules.GameRules(players=players, bid_rule="free")
            rounds = random_rounds(game_rules, seed=n)
            make_game(
                NAMES[:players],
                rounds,
                game_rules=game_rules,
                created_at=BASE_TIME + timedelta(hours=n),
                changes=[{"action": "record_round", "round_number": 1, "after": {"n": n}}],
                commit=False,
            )
        db.session.commit()


def queries(app, url: str) -> int:
    """The statements one visit of ``url`` runs when it renders."""
    client = app.test_client()
    with counted(app) as statements:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(statements)


URLS = (
    "/history/",
    "/history/?player=1&status=finished&plan=standard&date_from=2024-01-01",
    "/history/1",
    "/history/1/replay?round=2",
    "/players/1",
    "/players/1?date_from=2024-05-01&date_to=2030-01-01",
    "/players/",
    "/ladder/?min_games=1",
    "/paper/games/1",
    "/paper/blank?seat_1=Ann&seat_2=Bob&seat_3=Cy",
)


def test_page_queries_do_not_grow_with_the_number_of_games(db_app):
    # The first visit also stores the new games' seat results (a fixed number of statements
    # too, up to 200 games at once); the second is what every later visit costs. The all-time
    # ladder that the player page's rating chart reads is made once, here before any game, so
    # first visits only rate the new games.
    with db_app.app_context():
        ratings.refresh(ratings.ALL_TIME, None)
    seed(db_app, 1)
    first_with_one = {url: queries(db_app, url) for url in URLS}
    with_one = {url: queries(db_app, url) for url in URLS}
    seed(db_app, MANY_GAMES - 1)
    first_with_many = {url: queries(db_app, url) for url in URLS}
    with_many = {url: queries(db_app, url) for url in URLS}
    assert first_with_one == first_with_many
    assert with_one == with_many, with_many
    # Once stored, the player page reads its all-time figures (the row, the opponents' names),
    # its rating chart (ratings.py: one query finds the ladder current, one reads the chart
    # its job stored), the player and the data version its ETag is made from; the ladder page
    # the same check and one read of the standings.
    assert with_one["/players/1"] <= 6, with_one
    assert with_one["/ladder/?min_games=1"] <= 3, with_one
    assert max(with_one.values()) <= 15, with_one


def test_game_page_queries_do_not_grow_with_rounds_or_players(app):
    with app.app_context():
        small = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=1))
        big = rules.GameRules(players=6, bid_rule="free")
        small_id = make_game(NAMES[:3], random_rounds(small), game_rules=small).id
        big_id = make_game(NAMES, random_rounds(big), game_rules=big).id
    assert queries(app, f"/history/{small_id}") == queries(app, f"/history/{big_id}")


def plan_of_finished_games_page(app) -> str:
    """SQLite's plan for a page of the games list filtered on "finished"."""
    from scorekeeper.queries import _LISTED_GAMES, GameFilter

    statement = _LISTED_GAMES.where(*GameFilter(status="finished").conditions())
    with app.app_context():
        sql = str(statement.compile(db.engine, compile_kwargs={"literal_binds": True}))
        sql = sql.replace("?", "0")  # the page's offset
        rows = db.session.execute(db.text(f"EXPLAIN QUERY PLAN {sql}")).all()
        db.session.remove()
    return "\n".join(row[-1] for row in rows)


def test_a_list_filtered_on_finished_walks_the_newest_games_after_flask_refresh(app):
    """Every game here is finished: without the tables' statistics SQLite takes the status
    index for selective, reads every finished game and sorts them all for one page (26 ms at
    20,000 games). ``flask refresh`` (and ``flask serve``, before it serves) gives the planner
    its statistics: the page then walks the games newest first and stops when it is full."""
    seed(app, 60)
    assert "TEMP B-TREE" in plan_of_finished_games_page(app)
    result = app.test_cli_runner().invoke(args=["refresh"])
    assert result.exit_code == 0, result.output
    plan = plan_of_finished_games_page(app)
    assert "TEMP B-TREE" not in plan, plan
    assert "ix_games_created_at" in plan, plan


def test_a_club_restored_into_a_new_instance_gives_the_planner_its_size(app, tmp_path):
    """A club's backup restored into a new instance (the move to a new machine): the
    restore gives SQLite's planner the statistics of what it added, so the same filter walks
    the newest games at once, not after the next start."""
    from scorekeeper import create_app, exchange
    from tests.conftest import make_config

    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule="free")
        for n in range(60):
            rounds = random_rounds(game_rules, seed=n)
            make_game(
                NAMES[:3], rounds, game_rules=game_rules, created_at=BASE_TIME + timedelta(n)
            )
        backup = exchange.backup_json()
        db.session.remove()
    fresh = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'new.sqlite'}"))
    with fresh.app_context():
        db.create_all()
        assert exchange.import_file(backup.encode()).games_added == 60
        db.session.remove()
    plan = plan_of_finished_games_page(fresh)
    assert "TEMP B-TREE" not in plan, plan
    with fresh.app_context():
        db.engine.dispose()
