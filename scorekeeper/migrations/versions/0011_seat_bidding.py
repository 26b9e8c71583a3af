"""seat bidding: what each seat adds to the player page's bidding figures, stored with its
game's results (rows stored before are stale: `flask serve` and `flask refresh` fill them)

Revision ID: seat_bidding
Revises: events
"""

import sqlalchemy as sa
from alembic import op

revision = "seat_bidding"
down_revision = "events"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("seat_results") as batch_op:
        batch_op.add_column(sa.Column("bidding", sa.JSON(none_as_null=True), nullable=True))


def downgrade():
    with op.batch_alter_table("seat_results") as batch_op:
        batch_op.drop_column("bidding")
