"""derived jobs: one row per cross-game computation (a season's ladder), claimed by the one
process that brings it up to date

Revision ID: derived_jobs
Revises: player_aliases
"""

import sqlalchemy as sa
from alembic import op

revision = "derived_jobs"
down_revision = "player_aliases"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "derived_jobs",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_derived_jobs")),
    )


def downgrade():
    op.drop_table("derived_jobs")
