"""The database itself refuses what the rules forbid; migrations build exactly the models."""

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import upgrade

from scorekeeper import MIGRATIONS_DIR, create_app
from scorekeeper.extensions import db
from scorekeeper.models import Entry, Player, Seat
from tests.conftest import make_config
from tests.factories import make_game


def refused(statement) -> None:
    with pytest.raises(sa.exc.IntegrityError):
        db.session.execute(statement)
    db.session.rollback()


def test_second_entry_for_the_same_player_and_round_is_refused(db_ctx):
    game = make_game(open_round=True)
    round_id = game.rounds[0].id
    db.session.add(Entry(round_id=round_id, seat=0, bid=1))
    db.session.commit()
    refused(sa.insert(Entry).values(round_id=round_id, seat=0, bid=0))
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Entry)) == 1


@pytest.mark.parametrize("column", ["bid", "tricks", "cloud_bid"])
def test_negative_bid_or_tricks_is_refused(db_ctx, column):
    game = make_game(open_round=True)
    refused(sa.insert(Entry).values(round_id=game.rounds[0].id, seat=1, **{column: -1}))


def test_seat_for_an_unknown_player_is_refused(db_ctx):
    game = make_game(open_round=True)
    refused(sa.insert(Seat).values(game_id=game.id, player_id=9999, position=3))


def test_one_seat_per_player_per_game(db_ctx):
    game = make_game(open_round=True)
    player_id = game.seats[0].player_id
    refused(sa.insert(Seat).values(game_id=game.id, player_id=player_id, position=4))


def test_entry_for_an_unknown_round_is_refused(db_ctx):
    make_game(open_round=True)
    refused(sa.insert(Entry).values(round_id=9999, seat=0, bid=0))


def test_player_names_are_unique_ignoring_case_and_spaces(db_ctx):
    db.session.add(Player("Ann Lee"))
    db.session.commit()
    db.session.add(Player("  ann   LEE "))
    with pytest.raises(sa.exc.IntegrityError):
        db.session.commit()
    db.session.rollback()


def test_migrations_create_exactly_the_schema_of_the_models(database_config):
    app = create_app(make_config(**database_config))
    with app.app_context():
        upgrade(directory=MIGRATIONS_DIR)
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
        assert diff == []
        assert "entries" in sa.inspect(db.engine).get_table_names()
        db.engine.dispose()


def test_sqlite_connections_enforce_foreign_keys_with_wal(ctx):
    assert db.session.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    assert db.session.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
