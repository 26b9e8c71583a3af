"""seat links: each player's own phone bids through an unguessable per-seat token

Revision ID: seat_links
Revises: 0005_data_version
"""

import sqlalchemy as sa
from alembic import op

revision = "seat_links"
down_revision = "0005_data_version"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "seat_links",
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["seat_id"],
            ["seats.id"],
            name=op.f("fk_seat_links_seat_id_seats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("seat_id", name=op.f("pk_seat_links")),
        sa.UniqueConstraint("token", name=op.f("uq_seat_links_token")),
    )


def downgrade():
    op.drop_table("seat_links")
