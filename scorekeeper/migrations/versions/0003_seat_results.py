"""seat results: each game's result by seat (and hand size), kept for lists and statistics

Revision ID: 0003_seat_results
Revises: 0002_request_digest

The table starts empty: the app fills it the first time a page needs a game's result
(scorekeeper.results.refresh), so upgrading a large database is instant.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_seat_results"
down_revision = "0002_request_digest"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "seat_results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("scored_rounds", sa.SmallInteger(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("bid_sum", sa.Integer(), nullable=False),
        sa.Column("leader", sa.Boolean(), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=False),
        sa.Column("highlighted", sa.Boolean(), nullable=False),
        sa.Column("bids", sa.SmallInteger(), nullable=False),
        sa.Column("hits", sa.SmallInteger(), nullable=False),
        sa.Column("zero_bids", sa.SmallInteger(), nullable=False),
        sa.Column("zero_hits", sa.SmallInteger(), nullable=False),
        sa.Column("over_rounds", sa.SmallInteger(), nullable=False),
        sa.Column("over_tricks", sa.SmallInteger(), nullable=False),
        sa.Column("under_rounds", sa.SmallInteger(), nullable=False),
        sa.Column("under_tricks", sa.SmallInteger(), nullable=False),
        sa.Column("missed", sa.Boolean(), nullable=False),
        sa.Column("streak_first", sa.SmallInteger(), nullable=False),
        sa.Column("streak_last", sa.SmallInteger(), nullable=False),
        sa.Column("streak_best", sa.SmallInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_seat_results_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_seat_results_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seat_results")),
    )
    with op.batch_alter_table("seat_results", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_results_player_id"), ["player_id"], unique=False)
    op.create_table(
        "hand_results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("hand_size", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("bids", sa.SmallInteger(), nullable=False),
        sa.Column("hits", sa.SmallInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id", "seat"],
            ["seat_results.game_id", "seat_results.seat"],
            name=op.f("fk_hand_results_game_id_seat_results"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_hand_results_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", "hand_size", name=op.f("pk_hand_results")),
    )
    with op.batch_alter_table("hand_results", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hand_results_player_id"), ["player_id"], unique=False)


def downgrade():
    with op.batch_alter_table("hand_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hand_results_player_id"))
    op.drop_table("hand_results")
    with op.batch_alter_table("seat_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_results_player_id"))
    op.drop_table("seat_results")
