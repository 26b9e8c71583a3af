"""Persisted facts: players, games, seats, rounds, entries and the change history.

Only what happened at the table is stored; every score, total and rank is
computed by :mod:`scorekeeper.rules` from these facts.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import unicodedata
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship

from .extensions import db

logger = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


def name_key(name: str) -> str:
    """The roster identity of a name: case, surrounding spaces and Unicode composition
    ignored ("Zoë" typed as z-o-e-diaeresis is the same player)."""
    return unicodedata.normalize("NFC", " ".join(name.split())).casefold()


def database_url(url: str) -> str:
    """Accept the common ``postgres://`` spellings and use the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def sqlite_pragmas(engine: Engine, busy_timeout_ms: int = 5000) -> None:
    """Turn on what SQLite leaves off, on every new connection of ``engine`` (the app's own;
    other engines in the process are left alone), and make every session a real
    transaction, so a page reads one consistent snapshot of the database.

    The BEGIN is the dialect's own hook (``do_begin``, a no-op for pysqlite), not a "begin"
    event: an engine with any connection event listened to dispatches four more around every
    statement (before and after execute, before and after the cursor's), none of them
    listened to - a third of a ``SELECT 1``'s calls (profiled)."""
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", functools.partial(_sqlite_pragmas, busy_timeout_ms))
        engine.dialect.do_begin = _sqlite_begin  # type: ignore[method-assign]


def _sqlite_pragmas(
    busy_timeout_ms: int, dbapi_connection: sqlite3.Connection, _record: Any
) -> None:
    # Foreign keys are off by default; WAL lets the live view read while a round saves.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    cursor.close()
    # The driver would start transactions only before writes (each read seeing the latest
    # commit); SQLAlchemy's recipe: no driver transactions, a BEGIN when a session begins.
    dbapi_connection.isolation_level = None


def analyze(engine: Engine) -> None:
    """Give SQLite's query planner its statistics of the tables (``ANALYZE``, sampled with
    ``analysis_limit``: a few milliseconds at 20,000 games). Without them it takes any indexed
    equality for selective: the games list filtered on "finished" read every finished game
    through the status index and sorted them all (26 ms at 20,000 games) instead of walking
    the newest first through the start time's index (7 ms). ``flask serve`` and ``flask
    refresh`` run it, and a restore that added games; PostgreSQL's autovacuum keeps its own
    statistics (nothing to do). A hint, not a fact: a database busy for longer than SQLite's
    busy timeout keeps the statistics it had.

    SQLite reads the statistics when a connection opens: the engine's pool is emptied after,
    so this process's next connections have them (another process running the app reads them
    when it starts again)."""
    database = engine.url.database
    memory = not database or database == ":memory:" or "mode=memory" in database
    if engine.dialect.name != "sqlite" or memory:
        return  # an in-memory database lives in its connections: nothing to plan for later
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA analysis_limit=400")
            connection.exec_driver_sql("ANALYZE")
            connection.commit()
    except sa.exc.OperationalError as error:
        logger.warning("planner statistics not refreshed: %s", error)
        return
    engine.dispose()


# Set while a write takes its lock: SQLite then begins with the database's write lock (and
# waits up to busy_timeout for it) instead of failing later on a stale read snapshot.
_WRITE_LOCK: ContextVar[bool] = ContextVar("sqlite_write_lock", default=False)


@contextmanager
def sqlite_write_lock() -> Iterator[None]:
    """Within this block a new SQLite transaction begins IMMEDIATE (holding the write lock)."""
    token = _WRITE_LOCK.set(True)
    try:
        yield
    finally:
        _WRITE_LOCK.reset(token)


def _sqlite_begin(dbapi_connection: Any) -> None:
    # SQLAlchemy calls it within its error handling: a write that cannot take the lock in
    # busy_timeout ("database is locked") raises its OperationalError, which the writes
    # answer as "busy, try again" (changes.Busy) rather than with a 500.
    dbapi_connection.driver_connection.execute("BEGIN IMMEDIATE" if _WRITE_LOCK.get() else "BEGIN")


class GameStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class RoundState(StrEnum):
    BIDDING = "bidding"
    PLAYING = "playing"
    SCORED = "scored"


class ChangeAction(StrEnum):
    """What one recorded change of a game did (the game's history, and what undo reverts)."""

    CREATE_GAME = "create_game"
    SET_TRUMP = "set_trump"
    CHANGE_DEALER = "change_dealer"
    BID = "bid"
    BIDS = "bids"
    # One player's bid from their own phone in a hidden or secret round (sealed until all are in).
    SEAL_BID = "seal_bid"
    TAKE_BACK_BID = "take_back_bid"
    # A bid already made in the round being played, changed (tapped on the table screen).
    CHANGE_BID = "change_bid"
    WEREWOLF = "werewolf"
    RECORD_ROUND = "record_round"
    EDIT_ROUND = "edit_round"
    EDIT_PLAN = "edit_plan"
    UNDO = "undo"
    ABANDON = "abandon"


# The mark of a game played on paper and entered afterwards, in its start (the ``after`` of
# its CREATE_GAME change): kept with its history, so a backup carries it.
ON_PAPER = "on_paper"


def _enum_column(enum: type[StrEnum], length: int) -> sa.Enum:
    """A text column that reads back as ``enum`` (the schema's CHECK constraints stay as
    the migrations made them)."""
    return sa.Enum(
        enum,
        native_enum=False,
        create_constraint=False,
        length=length,
        values_callable=lambda members: [member.value for member in members],
    )


class Player(db.Model):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(40))
    name_key: Mapped[str] = mapped_column(sa.String(40), unique=True)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)

    seats: Mapped[list[Seat]] = relationship(back_populates="player")

    # A player's number is theirs for good (their /players/<id> link, an undone merge
    # bringing them back): on SQLite AUTOINCREMENT keeps the number of a player merged away
    # from the next new player, as PostgreSQL's sequence does.
    __table_args__ = (
        sa.CheckConstraint("length(name_key) > 0", name="name_not_empty"),
        {"sqlite_autoincrement": True},
    )

    def __init__(self, name: str) -> None:
        clean = unicodedata.normalize("NFC", " ".join(name.split()))
        super().__init__(name=clean, name_key=name_key(clean))

    def __repr__(self) -> str:
        return f"<Player {self.name!r}>"


class Game(db.Model):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stable identity across instances: backups are matched on it when restored.
    uid: Mapped[str] = mapped_column(sa.String(36), unique=True, default=lambda: str(uuid.uuid4()))
    # Secret part of the read-only live link.
    live_token: Mapped[str] = mapped_column(
        sa.String(32), unique=True, default=lambda: uuid.uuid4().hex
    )
    # active_history: a change of status keeps the old one (loaded first if need be), so a
    # game taken back out of the finished games is noticed (results.py, its players' figures).
    status: Mapped[GameStatus] = mapped_column(
        _enum_column(GameStatus, 16),
        default=GameStatus.IN_PROGRESS,
        index=True,
        active_history=True,
    )
    rules: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    first_dealer: Mapped[int] = mapped_column(sa.SmallInteger)
    # Optimistic concurrency: every write names the version it was based on.
    version: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = mapped_column(
        sa.DateTime(timezone=True), default=utcnow, index=True
    )
    updated_at: Mapped[datetime] = mapped_column(
        sa.DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
    finished_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    # The finished game this one is a "play again" of: one follow-up game per game.
    previous_game_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("games.id", ondelete="SET NULL"), unique=True
    )

    seats: Mapped[list[Seat]] = relationship(
        back_populates="game", order_by="Seat.position", cascade="all, delete-orphan"
    )
    rounds: Mapped[list[Round]] = relationship(
        back_populates="game", order_by="Round.number", cascade="all, delete-orphan"
    )
    changes: Mapped[list[Change]] = relationship(
        back_populates="game", order_by="Change.version", cascade="all, delete-orphan"
    )

    __table_args__ = (
        sa.CheckConstraint(
            "status IN ('in_progress', 'finished', 'abandoned')", name="status_known"
        ),
        sa.CheckConstraint("first_dealer >= 0 AND first_dealer < 6", name="first_dealer_seat"),
        sa.CheckConstraint("version >= 1", name="version_positive"),
    )


class Seat(db.Model):
    __tablename__ = "seats"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id"), index=True)
    position: Mapped[int] = mapped_column(sa.SmallInteger)

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship(back_populates="seats")

    __table_args__ = (
        sa.UniqueConstraint("game_id", "player_id"),
        sa.UniqueConstraint("game_id", "position"),
        sa.CheckConstraint("position >= 0 AND position < 6", name="position_range"),
    )


class SeatLink(db.Model):
    """A player's own phone: whoever holds ``token`` may bid for this seat, and nothing else.

    One link per seat at a time; a new link replaces the token (the old one stops working),
    and turning it off deletes the row. Not a fact of the game: no version, no history."""

    __tablename__ = "seat_links"

    seat_id: Mapped[int] = mapped_column(
        sa.ForeignKey("seats.id", ondelete="CASCADE"), primary_key=True
    )
    token: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)


class Round(db.Model):
    __tablename__ = "rounds"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(sa.SmallInteger)
    hand_size: Mapped[int] = mapped_column(sa.SmallInteger)
    dealer: Mapped[int] = mapped_column(sa.SmallInteger)
    state: Mapped[RoundState] = mapped_column(
        _enum_column(RoundState, 16), default=RoundState.BIDDING
    )
    # Trump in force (NULL = no trump), what was turned up, and a Werewolf's replacement.
    trump: Mapped[str | None] = mapped_column(sa.String(16))
    trump_cause: Mapped[str | None] = mapped_column(sa.String(16))
    werewolf_trump: Mapped[str | None] = mapped_column(sa.String(16))
    werewolf_played: Mapped[bool] = mapped_column(default=False)
    bomb_played: Mapped[bool] = mapped_column(default=False)
    cloud_seat: Mapped[int | None] = mapped_column(sa.SmallInteger)

    game: Mapped[Game] = relationship(back_populates="rounds")
    entries: Mapped[list[Entry]] = relationship(
        back_populates="round", order_by="Entry.seat", cascade="all, delete-orphan"
    )

    __table_args__ = (
        sa.UniqueConstraint("game_id", "number"),
        sa.CheckConstraint("number >= 1", name="number_positive"),
        sa.CheckConstraint("hand_size >= 1 AND hand_size <= 20", name="hand_size_range"),
        sa.CheckConstraint("dealer >= 0 AND dealer < 6", name="dealer_seat"),
        sa.CheckConstraint("state IN ('bidding', 'playing', 'scored')", name="state_known"),
    )


class Entry(db.Model):
    """One player's bid and tricks in one round."""

    __tablename__ = "entries"

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(sa.ForeignKey("rounds.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(sa.SmallInteger)
    bid: Mapped[int | None] = mapped_column(sa.SmallInteger)
    # The bid after the Cloud changed it; the original bid stays in ``bid``.
    cloud_bid: Mapped[int | None] = mapped_column(sa.SmallInteger)
    tricks: Mapped[int | None] = mapped_column(sa.SmallInteger)

    round: Mapped[Round] = relationship(back_populates="entries")

    __table_args__ = (
        sa.UniqueConstraint("round_id", "seat"),
        sa.CheckConstraint("seat >= 0 AND seat < 6", name="seat_range"),
        sa.CheckConstraint("bid IS NULL OR (bid >= 0 AND bid <= 20)", name="bid_range"),
        sa.CheckConstraint(
            "cloud_bid IS NULL OR (cloud_bid >= 0 AND cloud_bid <= 20)", name="cloud_bid_range"
        ),
        sa.CheckConstraint(
            "tricks IS NULL OR (tricks >= 0 AND tricks <= 20)", name="tricks_range"
        ),
    )


class SeatResult(db.Model):
    """One seat's result in a game, kept so that lists and statistics need not score every
    game again: derived entirely from the game's rounds by :mod:`scorekeeper.results`, and
    valid only while ``version`` is the game's version (any write makes it stale, and the
    next page that needs it computes it again)."""

    __tablename__ = "seat_results"

    game_id: Mapped[int] = mapped_column(
        sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True)
    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    version: Mapped[int]
    # The sheet: scored rounds, whether all planned rounds are scored, this seat's total,
    # sum of bids (the tie-break), whether it leads, won, or is shown as winning
    # (ScoreSheet.highlighted, which depends on the game's status: part of its version).
    scored_rounds: Mapped[int] = mapped_column(sa.SmallInteger)
    finished: Mapped[bool]
    total: Mapped[int]
    bid_sum: Mapped[int]
    leader: Mapped[bool]
    winner: Mapped[bool]
    highlighted: Mapped[bool]
    # Bids met and missed (rounds where the seat bid), and the runs of bids met in a row.
    bids: Mapped[int] = mapped_column(sa.SmallInteger)
    hits: Mapped[int] = mapped_column(sa.SmallInteger)
    zero_bids: Mapped[int] = mapped_column(sa.SmallInteger)
    zero_hits: Mapped[int] = mapped_column(sa.SmallInteger)
    over_rounds: Mapped[int] = mapped_column(sa.SmallInteger)
    over_tricks: Mapped[int] = mapped_column(sa.SmallInteger)
    under_rounds: Mapped[int] = mapped_column(sa.SmallInteger)
    under_tricks: Mapped[int] = mapped_column(sa.SmallInteger)
    missed: Mapped[bool]
    streak_first: Mapped[int] = mapped_column(sa.SmallInteger)
    streak_last: Mapped[int] = mapped_column(sa.SmallInteger)
    streak_best: Mapped[int] = mapped_column(sa.SmallInteger)
    # What this seat adds to the bidding figures of the player page (reports.bidding's
    # seat_bidding: tallies by hand size, place in the bidding, forced and zero bids, and the
    # points lost), so the page adds them up instead of scoring every game. NULL in rows
    # stored before the column: such a row is stale (results.stale_games).
    bidding: Mapped[list[int] | None] = mapped_column(sa.JSON(none_as_null=True))

    hand_sizes: Mapped[list[HandResult]] = relationship(cascade="all, delete-orphan")


class HandResult(db.Model):
    """One seat's bids in the rounds of one hand size of a game (part of its
    :class:`SeatResult`, added up by the database for the player page)."""

    __tablename__ = "hand_results"

    game_id: Mapped[int] = mapped_column(primary_key=True)
    seat: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True)
    hand_size: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True)
    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    bids: Mapped[int] = mapped_column(sa.SmallInteger)
    hits: Mapped[int] = mapped_column(sa.SmallInteger)

    __table_args__ = (
        sa.ForeignKeyConstraint(
            ["game_id", "seat"],
            ["seat_results.game_id", "seat_results.seat"],
            ondelete="CASCADE",
        ),
    )


class PlayerFigures(db.Model):
    """A player's all-time figures over their finished games (the player page without a
    period), added up from the seat results by :mod:`scorekeeper.figures` in the same
    transaction as every change to those results, so the page reads one row. Derived: not
    in a backup (a restore stores them again), and a player without finished games has none.
    Head-to-head keeps player ids (names are read with the page: a rename changes no figure).
    """

    __tablename__ = "player_figures"

    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    games: Mapped[int]
    wins: Mapped[int]
    points: Mapped[int]
    bids: Mapped[int]
    hits: Mapped[int]
    zero_bids: Mapped[int]
    zero_hits: Mapped[int]
    over_rounds: Mapped[int]
    over_tricks: Mapped[int]
    under_rounds: Mapped[int]
    under_tricks: Mapped[int]
    longest_streak: Mapped[int]
    # The best and the worst game: [game id, start time (ISO), final total].
    best: Mapped[list[Any]] = mapped_column(sa.JSON)
    worst: Mapped[list[Any]] = mapped_column(sa.JSON)
    # [[hand size, bids met, bids], ...] in hand size order.
    by_hand_size: Mapped[list[list[int]]] = mapped_column(sa.JSON)
    # [[other player id, games, ahead, behind, level], ...]
    head_to_head: Mapped[list[list[int]]] = mapped_column(sa.JSON)
    # The bidding figures as one seat's (reports.bidding.summed).
    bidding: Mapped[list[int]] = mapped_column(sa.JSON)
    # The last game in the order played, and the bids met in a row since the last miss: a
    # game finished after it is added to these figures without adding up the others.
    last_game_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True))
    last_game_id: Mapped[int]
    open_run: Mapped[int]


class Change(db.Model):
    """Append-only history of a game: what changed, before, after, when."""

    __tablename__ = "changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id", ondelete="CASCADE"), index=True)
    # The game version this change produced.
    version: Mapped[int]
    action: Mapped[ChangeAction] = mapped_column(_enum_column(ChangeAction, 32))
    round_number: Mapped[int | None] = mapped_column(sa.SmallInteger)
    before: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)
    # Set by the client for each submitted form: a retried request finds its change here.
    request_key: Mapped[str | None] = mapped_column(sa.String(64), unique=True)
    # A fingerprint of what that request asked: a resubmission with other values is told so.
    request_digest: Mapped[str | None] = mapped_column(sa.String(64))

    game: Mapped[Game] = relationship(back_populates="changes")

    __table_args__ = (sa.UniqueConstraint("game_id", "version"),)


class AccessSession(db.Model):
    """A phone signed in with the instance password: signing out deletes it, and a new
    password makes every earlier one invalid (``pass_mark`` no longer matches)."""

    __tablename__ = "access_sessions"

    token: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    pass_mark: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)


class Ladder(db.Model):
    """One stored run of the club ladder: ratings over the finished games started at or after
    ``starts_at`` (every finished game when it is NULL), kept by :mod:`scorekeeper.ratings`.

    Derived data, like the seat results: ``model`` names the rating model it was computed
    with (another model means computing again), and ``generation`` goes up with every write,
    so two pages computing at once cannot mix their rows."""

    __tablename__ = "ladders"

    id: Mapped[int] = mapped_column(primary_key=True)
    # The season and its first moment in one string ("all", "year:2025-01-01T00:00:00+00:00").
    key: Mapped[str] = mapped_column(sa.String(64), unique=True)
    season: Mapped[str] = mapped_column(sa.String(8))
    starts_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    model: Mapped[str] = mapped_column(sa.String(200))
    generation: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)
    # The finished games' version (DataVersion.finished) the job read when it last brought
    # this ladder and its standings up to date: while it is still the same, a page needs
    # no other check. NULL: written before the standings were stored.
    finished_version: Mapped[int | None]


class LadderGame(db.Model):
    """A finished game as a ladder rated it: its version and the moment it is ordered by.

    ``game_id`` is deliberately no foreign key: a deleted game must leave its row behind, so
    the next refresh sees that the ratings after it are stale."""

    __tablename__ = "ladder_games"

    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[int] = mapped_column(primary_key=True)
    # The game's place in the ladder's order (0, 1, 2 …): by played_at, then game id.
    seq: Mapped[int]
    version: Mapped[int]
    played_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True))

    __table_args__ = (sa.UniqueConstraint("ladder_id", "seq"),)


class LadderRating(db.Model):
    """A player's place in one rated game and their rating after it (a snapshot)."""

    __tablename__ = "ladder_ratings"

    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[int] = mapped_column(primary_key=True)
    # No foreign key either: the ladder keeps a merged or deleted player's rows until the
    # games change (a join with the roster leaves them out of every page).
    player_id: Mapped[int] = mapped_column(primary_key=True)
    seq: Mapped[int]
    place: Mapped[int] = mapped_column(sa.SmallInteger)
    mu: Mapped[float] = mapped_column(sa.Float)
    sigma: Mapped[float] = mapped_column(sa.Float)
    # The game's seat result at the version rated, so the ladder adds up one table.
    winner: Mapped[bool]
    bids: Mapped[int] = mapped_column(sa.SmallInteger)
    hits: Mapped[int] = mapped_column(sa.SmallInteger)

    __table_args__ = (sa.Index("ix_ladder_ratings_player", "ladder_id", "player_id", "seq"),)


class LadderStanding(db.Model):
    """A player on a stored ladder: rating after their last game of the season and figures,
    and the rating after each game thinned to what the chart draws; written by the ladder's
    job with its ratings (derived: recomputed, never exported)."""

    __tablename__ = "ladder_standings"

    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[int] = mapped_column(primary_key=True)
    games: Mapped[int]
    wins: Mapped[int]
    place_sum: Mapped[int]
    bids: Mapped[int]
    hits: Mapped[int]
    mu: Mapped[float] = mapped_column(sa.Float)
    sigma: Mapped[float] = mapped_column(sa.Float)
    # [[game number (1 for the player's first), played at (ISO), rating], ...] oldest first,
    # at most reports.ladder.MAX_POINTS of them (the first and the last always kept).
    chart: Mapped[list[list[Any]]] = mapped_column(sa.JSON)


class RosterAction(StrEnum):
    """What one recorded change of the roster did (the players' log, and what undo reverts)."""

    RENAME = "rename"
    MERGE = "merge"


class PlayerChange(db.Model):
    """The roster's log: a rename or a merge, with what undo needs to put back.

    ``player_id`` is the renamed player, or the one merged away (gone until the merge is
    undone, so no foreign key); ``other_id`` the player a merge went into."""

    __tablename__ = "player_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    action: Mapped[RosterAction] = mapped_column(_enum_column(RosterAction, 16))
    player_id: Mapped[int] = mapped_column(index=True)
    other_id: Mapped[int | None] = mapped_column(index=True)
    before: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    after: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)
    undone_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    # The keys of the requests that made and undid it: a double tap finds them here.
    request_key: Mapped[str | None] = mapped_column(sa.String(64), unique=True)
    undo_request_key: Mapped[str | None] = mapped_column(sa.String(64), unique=True)


class PlayerAlias(db.Model):
    """A name that was a player's before a rename or a merge: a restored file that names it
    means that player (a name on the roster now takes precedence)."""

    __tablename__ = "player_aliases"

    name_key: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), index=True
    )


class DerivedJob(db.Model):
    """A cross-game computation (a season's ladder) that one process at a time brings up to
    date: it claims the row by setting ``lease_until`` where it is empty or past, in one
    UPDATE (atomic on SQLite and PostgreSQL, across workers and hosts), and empties it when
    done. ``runs`` counts the claims: how often the work was actually done."""

    __tablename__ = "derived_jobs"

    name: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    lease_until: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    runs: Mapped[int] = mapped_column(default=0)


class DataVersion(db.Model):
    """One counter raised after every transaction that stores players or games (see
    :func:`raise_data_version`): kept pages are kept until it moves. Unlike the newest ids,
    it cannot miss a transaction that commits after a later one."""

    __tablename__ = "data_version"

    id: Mapped[int] = mapped_column(primary_key=True)
    counter: Mapped[int] = mapped_column(default=0)
    # Raised with it by every transaction that changed the results of a game that is (or
    # was) finished, or moved them between players (see :func:`raise_finished_version`):
    # a stored ladder is current while it holds the value its job read.
    finished: Mapped[int] = mapped_column(default=0, server_default="0")


class LoginGuesses(db.Model):
    """Wrong passwords counted per client address for the login limit (``database://``, the
    default storage of :mod:`scorekeeper.signins`): in the app's database, so the count holds
    across every worker and host that shares it. ``expires_at`` ends the window (Unix time)."""

    __tablename__ = "login_guesses"

    key: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    count: Mapped[int] = mapped_column(default=0)
    expires_at: Mapped[float] = mapped_column(sa.Float, index=True)


# What the stored facts are made of; the derived tables (results, ladders) are not.
_FACTS = (Player, Game, Seat, Round, Entry, Change, PlayerChange, PlayerAlias)
_CHANGED = "scorekeeper_facts_changed"
_FINISHED_CHANGED = "scorekeeper_finished_changed"


def raise_data_version(session: Session) -> None:
    """Have the data version raised once ``session``'s transaction commits (a restore's bulk
    inserts call this; writes through the ORM are noticed when they flush)."""
    session.info[_CHANGED] = True


def raise_finished_version(session: Session) -> None:
    """Have the finished games' version raised with the data version once ``session``'s
    transaction commits (it changed what a finished game's results say, or whose they are)."""
    session.info[_CHANGED] = True
    session.info[_FINISHED_CHANGED] = True


def _raise_now(bind: Engine, finished: bool) -> None:
    # Its own short transaction, after the one that stored the facts has committed: a page
    # that read the old counter read the old facts too (the counter cannot move first), and
    # concurrent writers never conflict on the counter's row inside their own transactions
    # (under PostgreSQL's REPEATABLE READ that would fail one of them). READ COMMITTED on
    # PostgreSQL, so that two raises at once wait for each other instead of failing.
    # INSERT … ON CONFLICT DO UPDATE (SQLite and PostgreSQL) also makes the row if missing.
    postgresql = bind.dialect.name == "postgresql"
    insert = postgresql_insert if postgresql else sqlite_insert
    raised: dict[str, Any] = {"counter": DataVersion.counter + 1}
    if finished:
        raised["finished"] = DataVersion.finished + 1
    statement = (
        insert(DataVersion)
        .values(id=1, counter=1, finished=int(finished))
        .on_conflict_do_update(index_elements=[DataVersion.id], set_=raised)
    )
    options = {"isolation_level": "READ COMMITTED"} if postgresql else {}
    try:
        with bind.connect().execution_options(**options) as connection, connection.begin():
            connection.execute(statement)
    except sa.exc.DBAPIError as error:  # kept pages then wait for the next stored change
        logger.warning("data version not raised: %s", error)


@event.listens_for(Session, "before_flush")
def _facts_changed(session: Session, _context: Any, _instances: Any) -> None:
    touched = (*session.new, *session.dirty, *session.deleted)
    if any(isinstance(instance, _FACTS) for instance in touched):
        raise_data_version(session)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    finished = session.info.pop(_FINISHED_CHANGED, False)
    if session.info.pop(_CHANGED, False):
        bind = session.get_bind()
        _raise_now(bind.engine if isinstance(bind, sa.Connection) else bind, finished)


@event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    session.info.pop(_CHANGED, None)
    session.info.pop(_FINISHED_CHANGED, None)


# --- events: an evening or a tournament of several tables ------------------------------------


class Event(db.Model):
    """A club night or tournament: its players split into tables for each session, every
    table's game an ordinary game, standings over all of them (:mod:`scorekeeper.events`).

    ``rules`` are the rules every table plays, without the number of players (each table's
    size gives it). ``version`` goes up with every change of the event itself (a draw, a
    swap, a start, a player leaving): the board's ETag names it with its games' versions."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(primary_key=True)
    uid: Mapped[str] = mapped_column(sa.String(36), unique=True, default=lambda: str(uuid.uuid4()))
    name: Mapped[str] = mapped_column(sa.String(80))
    day: Mapped[date]
    table_size: Mapped[int] = mapped_column(sa.SmallInteger)
    session_count: Mapped[int] = mapped_column(sa.SmallInteger)
    rules: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    method: Mapped[str] = mapped_column(sa.String(16))
    # Secret part of the read-only board link.
    board_token: Mapped[str] = mapped_column(
        sa.String(32), unique=True, default=lambda: uuid.uuid4().hex
    )
    version: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    # The "Create event" request: a double tap finds the event it made.
    request_key: Mapped[str | None] = mapped_column(sa.String(64), unique=True)

    players: Mapped[list[EventPlayer]] = relationship(
        order_by="EventPlayer.position", cascade="all, delete-orphan"
    )
    sessions: Mapped[list[EventSession]] = relationship(
        order_by="EventSession.number", cascade="all, delete-orphan", back_populates="event"
    )

    __table_args__ = (
        sa.CheckConstraint("table_size >= 3 AND table_size <= 6", name="table_size_range"),
        sa.CheckConstraint("session_count >= 1 AND session_count <= 20", name="sessions_range"),
        sa.CheckConstraint("method IN ('placement', 'score')", name="method_known"),
        sa.CheckConstraint("length(name) > 0", name="event_name_not_empty"),
    )


class EventPlayer(db.Model):
    """A player of an event; ``active`` is false once they left (they keep their games)."""

    __tablename__ = "event_players"

    event_id: Mapped[int] = mapped_column(
        sa.ForeignKey("events.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id"), primary_key=True)
    position: Mapped[int] = mapped_column(sa.SmallInteger)
    active: Mapped[bool] = mapped_column(default=True)

    player: Mapped[Player] = relationship()


class EventSession(db.Model):
    """One round of play of an event: its seating drawn from ``seed``, then its games."""

    __tablename__ = "event_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(sa.ForeignKey("events.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(sa.SmallInteger)
    seed: Mapped[int]
    drawn_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))
    # When it was closed (the next session drawn, or the event finished).
    ended_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))

    event: Mapped[Event] = relationship(back_populates="sessions")
    tables: Mapped[list[EventTable]] = relationship(
        order_by="EventTable.number", cascade="all, delete-orphan", back_populates="session"
    )

    __table_args__ = (
        sa.UniqueConstraint("event_id", "number"),
        sa.CheckConstraint("number >= 1", name="session_number_positive"),
    )


class EventTable(db.Model):
    """One table of a session: its seats, then its game. ``counted_version`` is the game's
    version when it ended, set by that write: the standings count the game from then on, so
    a later correction shows as a change of the standings."""

    __tablename__ = "event_tables"

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(sa.ForeignKey("event_sessions.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(sa.SmallInteger)
    game_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("games.id", ondelete="SET NULL"), unique=True
    )
    counted_version: Mapped[int | None]

    session: Mapped[EventSession] = relationship(back_populates="tables")
    seats: Mapped[list[EventSeat]] = relationship(
        order_by="EventSeat.position", cascade="all, delete-orphan"
    )
    game: Mapped[Game | None] = relationship()

    __table_args__ = (
        sa.UniqueConstraint("session_id", "number"),
        sa.CheckConstraint("number >= 1", name="table_number_positive"),
    )


class EventSeat(db.Model):
    """A player's seat at a table of a session: one seat per player per session."""

    __tablename__ = "event_seats"

    table_id: Mapped[int] = mapped_column(
        sa.ForeignKey("event_tables.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True)
    # Repeated from the table, so the schema itself refuses a player at two tables.
    session_id: Mapped[int] = mapped_column(sa.ForeignKey("event_sessions.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id"), index=True)

    player: Mapped[Player] = relationship()

    __table_args__ = (
        sa.UniqueConstraint("session_id", "player_id"),
        sa.CheckConstraint("position >= 0 AND position < 6", name="event_seat_range"),
    )
