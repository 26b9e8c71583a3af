"""events: an evening or tournament of several tables, its sessions, tables and seats

Revision ID: events
Revises: club_login_guesses
"""

import sqlalchemy as sa
from alembic import op

revision = "events"
down_revision = "club_login_guesses"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uid", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("table_size", sa.SmallInteger(), nullable=False),
        sa.Column("session_count", sa.SmallInteger(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("board_token", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("request_key", sa.String(length=64), nullable=True),
        sa.CheckConstraint(
            "table_size >= 3 AND table_size <= 6", name=op.f("ck_events_table_size_range")
        ),
        sa.CheckConstraint(
            "session_count >= 1 AND session_count <= 20", name=op.f("ck_events_sessions_range")
        ),
        sa.CheckConstraint(
            "method IN ('placement', 'score')", name=op.f("ck_events_method_known")
        ),
        sa.CheckConstraint("length(name) > 0", name=op.f("ck_events_event_name_not_empty")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("uid", name=op.f("uq_events_uid")),
        sa.UniqueConstraint("board_token", name=op.f("uq_events_board_token")),
        sa.UniqueConstraint("request_key", name=op.f("uq_events_request_key")),
    )
    op.create_table(
        "event_players",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_players_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_event_players_player_id_players")
        ),
        sa.PrimaryKeyConstraint("event_id", "player_id", name=op.f("pk_event_players")),
    )
    op.create_table(
        "event_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.SmallInteger(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("drawn_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("number >= 1", name=op.f("ck_event_sessions_session_number_positive")),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_sessions_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_sessions")),
        sa.UniqueConstraint("event_id", "number", name=op.f("uq_event_sessions_event_id_number")),
    )
    op.create_table(
        "event_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.SmallInteger(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("counted_version", sa.Integer(), nullable=True),
        sa.CheckConstraint("number >= 1", name=op.f("ck_event_tables_table_number_positive")),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["event_sessions.id"],
            name=op.f("fk_event_tables_session_id_event_sessions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_event_tables_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_tables")),
        sa.UniqueConstraint(
            "session_id", "number", name=op.f("uq_event_tables_session_id_number")
        ),
        sa.UniqueConstraint("game_id", name=op.f("uq_event_tables_game_id")),
    )
    op.create_table(
        "event_seats",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "position >= 0 AND position < 6", name=op.f("ck_event_seats_event_seat_range")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["event_tables.id"],
            name=op.f("fk_event_seats_table_id_event_tables"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["event_sessions.id"],
            name=op.f("fk_event_seats_session_id_event_sessions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_event_seats_player_id_players")
        ),
        sa.PrimaryKeyConstraint("table_id", "position", name=op.f("pk_event_seats")),
        sa.UniqueConstraint(
            "session_id", "player_id", name=op.f("uq_event_seats_session_id_player_id")
        ),
    )
    with op.batch_alter_table("event_seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_seats_player_id"), ["player_id"])


def downgrade():
    with op.batch_alter_table("event_seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_seats_player_id"))
    op.drop_table("event_seats")
    op.drop_table("event_tables")
    op.drop_table("event_sessions")
    op.drop_table("event_players")
    op.drop_table("events")
