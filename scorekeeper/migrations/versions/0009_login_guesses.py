"""login guesses: wrong passwords counted in the database, shared by every worker and host

Revision ID: club_login_guesses
Revises: derived_jobs
"""

import sqlalchemy as sa
from alembic import op

revision = "club_login_guesses"
down_revision = "derived_jobs"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "login_guesses",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_login_guesses")),
    )
    with op.batch_alter_table("login_guesses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_login_guesses_expires_at"), ["expires_at"])


def downgrade():
    with op.batch_alter_table("login_guesses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_guesses_expires_at"))
    op.drop_table("login_guesses")
