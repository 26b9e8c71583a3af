"""player figures: each player's all-time figures, stored with the results they add up (a
database written before is filled by `flask serve` and `flask refresh`)

Revision ID: player_figures
Revises: player_ids
"""

import sqlalchemy as sa
from alembic import op

revision = "player_figures"
down_revision = "player_ids"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "player_figures",
        sa.Column("player_id", sa.Integer(), nullable=False),
        *(
            sa.Column(name, sa.Integer(), nullable=False)
            for name in (
                "games",
                "wins",
                "points",
                "bids",
                "hits",
                "zero_bids",
                "zero_hits",
                "over_rounds",
                "over_tricks",
                "under_rounds",
                "under_tricks",
                "longest_streak",
                "last_game_id",
                "open_run",
            )
        ),
        *(
            sa.Column(name, sa.JSON(), nullable=False)
            for name in ("best", "worst", "by_hand_size", "head_to_head", "bidding")
        ),
        sa.Column("last_game_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_figures_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_player_figures")),
    )


def downgrade():
    op.drop_table("player_figures")
