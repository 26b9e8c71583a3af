"""player ids never reused: SQLite's players table gets AUTOINCREMENT, and on both databases
the next new player's number comes after every number ever given (a player merged away
keeps theirs: an undo brings them back with it)

Without AUTOINCREMENT SQLite gives max(rowid) + 1, so merging away the highest-numbered
player handed their number (and their saved /players/<id> link) to the next new player.
SQLite cannot add AUTOINCREMENT to a table: it is rebuilt (env.py turns the foreign keys
off around the migrations, so dropping the old table cascades nothing). ``sqlite_sequence``
and PostgreSQL's sequence then start after the highest number the roster's log names too.

Revision ID: player_ids
Revises: seat_bidding
"""

import sqlalchemy as sa
from alembic import op

revision = "player_ids"
down_revision = "seat_bidding"
branch_labels = None
depends_on = None


def _players(autoincrement: bool) -> sa.Table:
    """The players table as this revision has it (with or without AUTOINCREMENT)."""
    return sa.Table(
        "players",
        sa.MetaData(),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("length(name_key) > 0", name="ck_players_name_not_empty"),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("name_key", name="uq_players_name_key"),
        sqlite_autoincrement=autoincrement,
    )


# Every player number given so far: the roster, and the log of renames and merges (a player
# merged away is named there), and the ladder's rows (kept for a merged player until the
# next refresh).
HIGHEST_EVER = """
SELECT max(id) FROM (
    SELECT max(id) AS id FROM players
    UNION ALL SELECT max(player_id) FROM player_changes
    UNION ALL SELECT max(other_id) FROM player_changes
    UNION ALL SELECT max(player_id) FROM ladder_ratings
) AS given
"""


def upgrade():
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        with op.batch_alter_table(
            "players", recreate="always", copy_from=_players(autoincrement=True)
        ):
            pass
        highest = bind.scalar(sa.text(HIGHEST_EVER))
        if highest is not None:
            op.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'players'"))
            op.execute(
                sa.text(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES ('players', :seq)"
                ).bindparams(seq=highest)
            )
        if broken := bind.execute(sa.text("PRAGMA foreign_key_check")).all():
            raise RuntimeError(f"Rebuilding the players broke foreign keys: {broken[:5]}")
    elif bind.dialect.name == "postgresql":
        # An instance moved with `flask move-to` before this had its sequence set after the
        # highest id present only; never back (a sequence ahead stays where it is).
        op.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('players', 'id'), "
                f"GREATEST(({HIGHEST_EVER}), nextval(pg_get_serial_sequence('players', 'id'))))"
            )
        )


def downgrade():
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table(
            "players", recreate="always", copy_from=_players(autoincrement=False)
        ):
            pass
