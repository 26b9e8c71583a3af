"""request digest, play-again link, access sessions

Revision ID: 0002
Revises: b3ace2f50476
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_request_digest"
down_revision = "b3ace2f50476"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request_digest", sa.String(length=64), nullable=True))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("previous_game_id", sa.Integer(), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_games_previous_game_id"), ["previous_game_id"]
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_games_previous_game_id_games"),
            "games",
            ["previous_game_id"],
            ["id"],
            ondelete="SET NULL",
        )
    op.create_table(
        "access_sessions",
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("pass_mark", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_access_sessions")),
    )


def downgrade():
    op.drop_table("access_sessions")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_games_previous_game_id_games"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("uq_games_previous_game_id"), type_="unique")
        batch_op.drop_column("previous_game_id")
    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.drop_column("request_digest")
