"""ladder standings: each ladder's standings and rating charts, stored by its job, and the
finished games' version that tells a page the ladder is current in one query (ladders
stored before are brought up to date by their job at the next visit)

Revision ID: ladder_standings
Revises: player_figures
"""

import sqlalchemy as sa
from alembic import op

revision = "ladder_standings"
down_revision = "player_figures"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("data_version") as batch_op:
        batch_op.add_column(
            sa.Column("finished", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("ladders") as batch_op:
        batch_op.add_column(sa.Column("finished_version", sa.Integer(), nullable=True))
    op.create_table(
        "ladder_standings",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        *(
            sa.Column(name, sa.Integer(), nullable=False)
            for name in ("games", "wins", "place_sum", "bids", "hits")
        ),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("chart", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_ladder_standings_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ladder_id", "player_id", name=op.f("pk_ladder_standings")),
    )


def downgrade():
    op.drop_table("ladder_standings")
    with op.batch_alter_table("ladders") as batch_op:
        batch_op.drop_column("finished_version")
    with op.batch_alter_table("data_version") as batch_op:
        batch_op.drop_column("finished")
