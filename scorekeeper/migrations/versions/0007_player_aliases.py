"""player aliases: the roster's log of renames and merges, and the names they leave behind

Revision ID: player_aliases
Revises: seat_links
"""

import sqlalchemy as sa
from alembic import op

revision = "player_aliases"
down_revision = "seat_links"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "player_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=True),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("request_key", sa.String(length=64), nullable=True),
        sa.Column("undo_request_key", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_changes")),
        sa.UniqueConstraint("request_key", name=op.f("uq_player_changes_request_key")),
        sa.UniqueConstraint("undo_request_key", name=op.f("uq_player_changes_undo_request_key")),
    )
    with op.batch_alter_table("player_changes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_changes_player_id"), ["player_id"])
        batch_op.create_index(batch_op.f("ix_player_changes_other_id"), ["other_id"])
    op.create_table(
        "player_aliases",
        sa.Column("name_key", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_aliases_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("name_key", name=op.f("pk_player_aliases")),
    )
    with op.batch_alter_table("player_aliases", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_aliases_player_id"), ["player_id"])


def downgrade():
    with op.batch_alter_table("player_aliases", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_aliases_player_id"))
    op.drop_table("player_aliases")
    with op.batch_alter_table("player_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_changes_other_id"))
        batch_op.drop_index(batch_op.f("ix_player_changes_player_id"))
    op.drop_table("player_changes")
