"""Derived state has one owner and one moment: each game's results are stored with every
write that changes them (never by a read), and the ladder is brought up to date by one
single-flighted job, while visitors see the last complete ladder marked as updating."""

import re
import threading

import sqlalchemy as sa

from scorekeeper import create_app, exchange, figures, queries, ratings, results, roster, rules
from scorekeeper.extensions import db
from scorekeeper.models import (
    DerivedJob,
    Game,
    GameStatus,
    Player,
    PlayerFigures,
    Seat,
    SeatResult,
)
from scorekeeper.reports import bidding
from tests.conftest import make_config
from tests.factories import make_game, new_game, random_rounds
from tests.play_helpers import finish_while_reading, play_round, post, tricks, trump_and_bids


def stored_results_are_current() -> None:
    """Every game has results at its version, equal to what its rounds give now."""
    db.session.rollback()
    assert results.current(db.session)
    for game_id in db.session.scalars(sa.select(Game.id)):
        game = queries.load_game(game_id)
        expected = {
            (row.seat, row.version, row.total, row.winner, row.highlighted, row.player_id)
            for row in results.seat_results(game)
        }
        got = {
            (row.seat, row.version, row.total, row.winner, row.highlighted, row.player_id)
            for row in db.session.scalars(
                sa.select(SeatResult).where(SeatResult.game_id == game_id)
            )
        }
        assert got == expected, game_id


def test_every_write_stores_its_games_results_at_the_new_version(client, ctx):
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    stored_results_are_current()  # a new game
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    stored_results_are_current()  # a scored round
    trump_and_bids(client, game_id, 2, 1, [0, 1, 0])
    stored_results_are_current()  # trump and bids: the version moves, the totals do not
    tricks(client, game_id, 2, {0: 1, 1: 1, 2: 0})
    stored_results_are_current()
    correction = {"trump": "suit:hearts", "bid_0": "0", "bid_1": "0", "bid_2": "0"}
    correction |= {"tricks_0": "1", "tricks_1": "0", "tricks_2": "0"}
    assert post(client, game_id, "rounds/1/edit", correction).status_code == 303
    stored_results_are_current()  # a correction of a scored round
    assert post(client, game_id, "undo", {}).status_code == 303
    stored_results_are_current()  # its undo
    assert post(client, game_id, "abandon", {}).status_code == 303
    stored_results_are_current()  # abandoned: the winners are no longer highlighted


def test_a_merge_and_a_restore_store_results_too(client, ctx):
    game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
    make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
    other = make_game(("Ann", "Bob", "Dee"), random_rounds(game_rules, 4))
    stored_results_are_current()
    dee, cy = other.seats[2].player_id, queries.player_choices()
    cy_id = next(player_id for player_id, name in cy if name == "Cy")
    roster.merge(dee, cy_id, "merge-key")
    stored_results_are_current()
    backup = "".join(exchange.backup_chunks())
    fresh = create_app(make_config(SQLALCHEMY_DATABASE_URI="sqlite://"))
    with fresh.app_context():
        db.create_all()
        exchange.import_file(backup.encode())
        stored_results_are_current()  # written with the restored games, in its transaction


def test_no_read_computes_or_writes_results(client, ctx):
    game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
    game = make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
    player_id = game.seats[0].player_id
    # Results that are missing (a database from before they were stored with the facts)
    # stay missing on every page until `flask refresh` or `flask serve` stores them.
    db.session.execute(sa.delete(SeatResult))
    db.session.commit()
    for url in ("/history/", f"/players/{player_id}", "/ladder/", f"/history/{game.id}"):
        assert client.get(url).status_code == 200
    db.session.rollback()
    assert db.session.scalar(sa.select(sa.func.count()).select_from(SeatResult)) == 0
    assert results.refresh() == 1
    stored_results_are_current()


def test_four_simultaneous_first_visitors_run_the_ladder_job_once(app):
    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
        for seed in range(6):
            make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules, seed=seed))
    start = threading.Barrier(4)
    answers = []

    def visit() -> None:
        client = app.test_client()
        start.wait()
        answers.append(client.get("/ladder/?min_games=1").get_data(as_text=True))

    visitors = [threading.Thread(target=visit) for _ in range(4)]
    for thread in visitors:
        thread.start()
    for thread in visitors:
        thread.join()
    with app.app_context():
        assert ratings.job_runs(ratings.ALL_TIME, None) == 1
    # Each visitor waited for that one job (LADDER_WAIT_SECONDS in the tests) and saw it.
    for page in answers:
        names = re.findall(r'<th scope="row">\s*<a href="/players/\d+">([^<]+)</a>', page)
        assert sorted(names) == ["Ann", "Bob", "Cy"]


def test_while_the_ladder_is_updated_visitors_see_the_last_one_marked_as_updating(tmp_path):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'busy.sqlite'}",
            LADDER_WAIT_SECONDS=0,
            PLAYER_LADDER_WAIT_SECONDS=0,
        )
    )
    client = app.test_client()
    with app.app_context():
        db.create_all()
        game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
        game = make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
        player_id = game.seats[0].player_id
        db.session.rollback()  # end the read, or SQLite refuses this session's next write
        assert ratings.run_job(ratings.ALL_TIME, None)
        make_game(("Ann", "Bob", "Dee"), random_rounds(game_rules, seed=1))
        # Another process holds the job (its lease in the row): nobody here computes.
        db.session.execute(
            sa.update(DerivedJob).values(lease_until=sa.func.datetime("now", "+1 hour"))
        )
        db.session.commit()
    notice = "The ratings are being brought up to date"
    page = client.get("/ladder/?min_games=1").get_data(as_text=True)
    assert notice in page
    assert "Dee" not in page  # the last complete ladder: three players
    assert "Ann" in page
    player_page = client.get(f"/players/{player_id}").get_data(as_text=True)
    assert notice in player_page
    with app.app_context():
        db.session.execute(sa.update(DerivedJob).values(lease_until=None))
        db.session.commit()
        assert ratings.run_job(ratings.ALL_TIME, None)
    page = client.get("/ladder/?min_games=1").get_data(as_text=True)
    assert notice not in page
    assert "Dee" in page
    # The player page was not kept while it showed the old ratings.
    assert notice not in client.get(f"/players/{player_id}").get_data(as_text=True)


def lease_row(name: str) -> tuple:
    with ratings._job_connection() as connection:
        return connection.execute(
            sa.select(DerivedJob.lease_until, DerivedJob.started_at).where(DerivedJob.name == name)
        ).one()


def test_the_running_job_renews_its_lease_and_lets_it_go_when_done(db_app, monkeypatch):
    monkeypatch.setattr(ratings, "HEARTBEAT", 0.01)
    name = ratings.job_name(ratings.ALL_TIME, None)
    renewals: list[object] = []
    with db_app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
        make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
        db.session.rollback()

        def progress(_games: int) -> None:
            # The job is at work: wait (bounded) until its lease has been renewed.
            first = lease_row(name).lease_until
            for _ in range(500):
                now = lease_row(name).lease_until
                if now != first:
                    renewals.append(now)
                    return
                threading.Event().wait(0.01)

        assert ratings.run_job(ratings.ALL_TIME, None, progress)
        assert renewals, "the lease was never renewed while the job ran"
        assert lease_row(name).lease_until is None  # let go


def test_a_lease_not_renewed_is_taken_over_and_the_old_claim_lets_go_of_nothing(db_app):
    name = ratings.job_name(ratings.ALL_TIME, None)
    with db_app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
        make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
        db.session.rollback()
        # A process claimed the job and died: its lease ran out, nobody renews it.
        dead = ratings._claim(name)
        assert dead is not None
        assert ratings._claim(name) is None  # held while it is renewed
        with ratings._job_connection() as connection, connection.begin():
            connection.execute(sa.update(DerivedJob).values(lease_until=dead - ratings.LEASE / 30))
        taken = ratings._claim(name)
        assert taken is not None
        assert taken != dead
        # The old claim (a process that was only slow) neither renews nor releases it.
        assert not ratings._renew(db.engine, name, dead)
        ratings._release(name, dead)
        assert lease_row(name).lease_until is not None
        assert ratings._renew(db.engine, name, taken)
        ratings._release(name, taken)
        assert lease_row(name).lease_until is None
        assert ratings.run_job(ratings.ALL_TIME, None)  # free again: the next visit runs it


def test_results_stored_before_the_bidding_figures_are_stale_until_refreshed(client, ctx):
    game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
    make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
    stored = db.session.scalars(sa.select(SeatResult.bidding)).all()
    assert all(stored)
    # As the migration leaves a database's rows: no bidding figures yet.
    db.session.execute(sa.update(SeatResult).values(bidding=None))
    db.session.commit()
    assert not results.current(db.session)
    db.session.rollback()
    assert results.refresh() == 1  # what `flask serve` and `flask refresh` do
    assert results.current(db.session)
    assert db.session.scalars(sa.select(SeatResult.bidding)).all() == stored


def stored_figures_are_current() -> None:
    """Every player's stored all-time figures are what their finished games' seat results
    add up to now (none for a player without a finished game)."""
    db.session.rollback()
    session = db.session()
    stored = set(session.scalars(sa.select(PlayerFigures.player_id)))
    for player_id in session.scalars(sa.select(Player.id)):
        live = figures.player_stats(session, player_id, [])
        if not live.games:
            assert player_id not in stored, player_id
            continue
        seats = figures.bidding_seats(session, player_id, [])
        assert figures.read(session, player_id) == (live, bidding.add_up(seats)), player_id
    players_list_counts_finished_games()


def players_list_counts_finished_games() -> None:
    """The players list shows each player's finished games (from their figures, counted
    where a player has none)."""
    session = db.session()
    finished = dict(
        session.execute(
            sa.select(Seat.player_id, sa.func.count())
            .join(Game, Game.id == Seat.game_id)
            .where(Game.status == GameStatus.FINISHED)
            .group_by(Seat.player_id)
        ).all()
    )
    for player, games in queries.roster_with_finished_games():
        assert games == finished.get(player.id, 0), player.name


def test_every_write_stores_the_players_all_time_figures_with_the_results(client, ctx):
    one_round = {"plan": rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), "bid_rule": "free"}
    game_id = new_game(["Ann", "Bob", "Cy"], **one_round)
    stored_figures_are_current()  # no finished game: no figures
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    stored_figures_are_current()  # finished: each player's first figures
    other = new_game(["Ann", "Bob", "Dee"], **one_round)
    play_round(client, other, 1, 0, [0, 0, 0], [0, 1, 0])
    stored_figures_are_current()
    correction = {"trump": "suit:hearts", "bid_0": "0", "bid_1": "0", "bid_2": "0"}
    correction |= {"tricks_0": "1", "tricks_1": "0", "tricks_2": "0"}
    assert post(client, game_id, "rounds/1/edit", correction).status_code == 303
    stored_figures_are_current()  # a correction of a finished game
    assert post(client, game_id, "undo", {}).status_code == 303
    stored_figures_are_current()  # its undo
    assert post(client, game_id, "undo", {}).status_code == 303
    stored_figures_are_current()  # the last round's tricks undone: no longer finished
    assert db.session.get(Game, game_id).status == "in_progress"
    players = {name: player_id for player_id, name in queries.player_choices()}
    merge = roster.merge(players["Dee"], players["Cy"], "merge-figures")
    stored_figures_are_current()  # Dee's game is Cy's now
    roster.undo(merge.id, "undo-merge-figures")
    stored_figures_are_current()  # and Dee's again
    backup = "".join(exchange.backup_chunks())
    fresh = create_app(make_config(SQLALCHEMY_DATABASE_URI="sqlite://"))
    with fresh.app_context():
        db.create_all()
        exchange.import_file(backup.encode())
        stored_figures_are_current()  # a restore stores them with its games
        assert db.session.scalar(sa.select(sa.func.count()).select_from(PlayerFigures)) == 3
    # A database written before the figures were stored: `flask refresh` fills them.
    db.session.execute(sa.delete(PlayerFigures))
    db.session.commit()
    players_list_counts_finished_games()  # before the figures are filled: still right
    results.refresh()
    stored_figures_are_current()
    assert db.session.scalar(sa.select(sa.func.count()).select_from(PlayerFigures)) == 3


def test_a_player_page_read_while_games_finish_shows_whole_figures(app):
    """One request after another finishes games while another reads the player's page: each
    read shows the figures of some committed state (games only ever added, whole), never a
    half-stored one, and the last read all of them."""
    one_round = {"plan": rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), "bid_rule": "free"}
    with app.app_context():
        games = [new_game(["Ann", "Bob", "Cy"], **one_round) for _ in range(6)]
        ann = queries.player_choices()[0][0]
        db.session.remove()
    seen: list[tuple[int, int]] = []

    def read(reader) -> None:
        page = reader.get(f"/players/{ann}").get_data(as_text=True)
        if "has no finished game" in page:
            seen.append((0, 0))
            return
        count = int(re.search(r"<dt>Games</dt><dd[^>]*>(\d+)</dd>", page).group(1))
        met = re.search(r"exactly the tricks bid \((\d+) of (\d+)\)", page)
        seen.append((count, int(met.group(2))))

    finish_while_reading(app, games, read)
    assert seen == sorted(seen)  # games only ever added
    assert all(rounds == count for count, rounds in seen)  # one bid per game: whole figures
    page = app.test_client().get(f"/players/{ann}").get_data(as_text=True)
    assert re.search(r"<dt>Games</dt><dd[^>]*>6</dd>", page)
