"""A player's number is theirs for good: a player merged away leaves their number unused (an
undo brings them back with it, and their saved link leads to the player kept meanwhile),
on SQLite and PostgreSQL, in a database upgraded from before, and after a move."""

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from flask import Flask
from flask_migrate import upgrade

from scorekeeper import MIGRATIONS_DIR, create_app, figures, roster
from scorekeeper.extensions import db
from scorekeeper.models import Player, PlayerAlias, PlayerChange
from tests.conftest import make_config
from tests.factories import make_game

# The revision before player ids were kept from reuse.
BEFORE = "seat_bidding"


def add_players(*names: str) -> dict[str, int]:
    players = [Player(name) for name in names]
    db.session.add_all(players)
    db.session.commit()
    return {player.name: player.id for player in players}


def test_a_merged_players_number_is_never_given_to_a_new_player(db_ctx):
    make_game(["Ann", "Bob", "Cy"])
    make_game(["Ann", "Bob", "Soenke"])
    ids = {player.name: player.id for player in db.session.scalars(sa.select(Player))}
    assert ids["Soenke"] == max(ids.values())
    merge = roster.merge(ids["Soenke"], ids["Cy"], "merge-1")
    new = add_players("Dee", "Eve")
    assert ids["Soenke"] not in new.values()
    assert min(new.values()) > ids["Soenke"]
    # Undo brings Soenke back with his number: nobody holds it.
    roster.undo(merge.id, "undo-1")
    db.session.expire_all()
    assert db.session.get(Player, ids["Soenke"]).name == "Soenke"


def test_a_merged_players_old_link_leads_to_the_player_kept(client, ctx):
    make_game(["Ann", "Bob", "Cy"])
    make_game(["Ann", "Bob", "Soenke"])
    ids = {player.name: player.id for player in db.session.scalars(sa.select(Player))}
    merge = roster.merge(ids["Soenke"], ids["Cy"], "merge-1")
    response = client.get(f"/players/{ids['Soenke']}?date_from=2020-01-01")
    assert response.status_code == 302  # not 301: an undo brings Soenke's page back
    assert response.headers["Location"] == f"/players/{ids['Cy']}?date_from=2020-01-01"
    # Cy merged in turn: the oldest link follows both merges.
    make_game(["Dee", "Eve", "Finn"])
    finn = db.session.scalar(sa.select(Player.id).where(Player.name == "Finn"))
    roster.merge(ids["Cy"], finn, "merge-2")
    response = client.get(f"/players/{ids['Soenke']}")
    assert response.headers["Location"] == f"/players/{finn}"
    assert client.get(f"/players/{ids['Cy']}").headers["Location"] == f"/players/{finn}"
    assert client.get(f"/players/{finn + 100}").status_code == 404
    # Undone, the merges leave every page where it was.
    for change in db.session.scalars(
        sa.select(PlayerChange).order_by(PlayerChange.id.desc())
    ).all():
        roster.undo(change.id, f"undo-{change.id}")
    assert merge.player_id == ids["Soenke"]
    assert client.get(f"/players/{ids['Soenke']}").status_code == 200
    assert client.get(f"/players/{ids['Cy']}").status_code == 200


@pytest.fixture
def old_app(database_config: dict, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    """The app on a database migrated only up to the revision before this change (and, as
    the app then was, storing no player figures: their table comes two revisions later)."""
    monkeypatch.setattr(figures, "store_pending", figures.forget_due)
    app = create_app(make_config(**database_config))
    with app.app_context():
        upgrade(directory=MIGRATIONS_DIR, revision=BEFORE)
        yield app
        db.session.remove()
        db.engine.dispose()


def counts(tables: set[str] | None = None) -> dict[str, int]:
    """The rows of every table there is (or of ``tables``)."""
    there = tables or set(sa.inspect(db.engine).get_table_names())
    return {
        table.name: db.session.scalar(sa.select(sa.func.count()).select_from(table))
        for table in db.metadata.sorted_tables
        if table.name in there
    }


def test_an_upgraded_database_never_gives_a_retired_number_again(old_app):
    make_game(["Ann", "Bob", "Cy"])
    make_game(["Ann", "Bob", "Soenke"])
    ids = {player.name: player.id for player in db.session.scalars(sa.select(Player))}
    roster.merge(ids["Soenke"], ids["Cy"], "merge-1")
    if db.engine.dialect.name == "postgresql":
        # As `flask move-to` left it before: the sequence after the highest id present.
        db.session.execute(
            sa.text("SELECT setval(pg_get_serial_sequence('players', 'id'), :id)"),
            {"id": max(ids.values()) - 1},
        )
        db.session.commit()
    before = counts()
    aliases = db.session.execute(sa.select(PlayerAlias.name_key, PlayerAlias.player_id)).all()
    db.session.remove()

    upgrade(directory=MIGRATIONS_DIR)
    assert counts(set(before)) == before  # the players' table rebuilt: nothing cascaded away
    assert db.session.execute(sa.select(PlayerAlias.name_key, PlayerAlias.player_id)).all() == (
        aliases
    )
    if db.engine.dialect.name == "sqlite":
        assert not db.session.execute(sa.text("PRAGMA foreign_key_check")).all()
        assert db.session.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    new = add_players("Dee", "Eve")
    assert min(new.values()) > ids["Soenke"]
