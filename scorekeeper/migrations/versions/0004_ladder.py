"""club ladder: stored rating snapshots after each finished game

Revision ID: 0004_ladder
Revises: 0003_seat_results

The tables start empty: the ladder page computes the ratings the first time it is opened
(scorekeeper.ratings), so upgrading a large database is instant.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_ladder"
down_revision = "0003_seat_results"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("season", sa.String(length=8), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladders")),
        sa.UniqueConstraint("key", name=op.f("uq_ladders_key")),
    )
    op.create_table(
        "ladder_games",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("played_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_ladder_games_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ladder_id", "game_id", name=op.f("pk_ladder_games")),
        sa.UniqueConstraint("ladder_id", "seq", name=op.f("uq_ladder_games_ladder_id_seq")),
    )
    op.create_table(
        "ladder_ratings",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("place", sa.SmallInteger(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=False),
        sa.Column("bids", sa.SmallInteger(), nullable=False),
        sa.Column("hits", sa.SmallInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_ladder_ratings_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "ladder_id", "game_id", "player_id", name=op.f("pk_ladder_ratings")
        ),
    )
    with op.batch_alter_table("ladder_ratings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_ladder_ratings_player", ["ladder_id", "player_id", "seq"], unique=False
        )


def downgrade():
    with op.batch_alter_table("ladder_ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_ratings_player")
    op.drop_table("ladder_ratings")
    op.drop_table("ladder_games")
    op.drop_table("ladders")
