"""data version: one counter raised by every transaction that stores players or games

Revision ID: 0005_data_version
Revises: 0004_ladder
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_data_version"
down_revision = "0004_ladder"
branch_labels = None
depends_on = None


def upgrade():
    table = op.create_table(
        "data_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("counter", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_data_version")),
    )
    op.bulk_insert(table, [{"id": 1, "counter": 1}])


def downgrade():
    op.drop_table("data_version")
