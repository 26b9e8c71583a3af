"""Move a whole instance to another database (``flask move-to``): every table copied row for
row with its ids, so every link (``/players/<id>``, ``/history/<id>``, live and seat links)
and every signed-in phone holds on the new database.

The source is read in one transaction (one consistent snapshot) and the target written in
one: a move that fails leaves the target without a row. The copy is checked afterwards by
counting every table on both sides and scoring every game on both sides with the rules
module: the move reports what differs, if anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, selectinload

from ..extensions import db
from ..models import Game, Round
from ..records import sheet_of

# Rows read and written per statement, and games scored per query in the comparison.
ROWS_PER_BATCH = 5_000
GAMES_PER_BATCH = 200
ALEMBIC_TABLE = "alembic_version"

Progress = Callable[[str], None]


@dataclass
class Comparison:
    """Rows per table on each side, the games scored, and every difference found."""

    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    games: int = 0
    differences: list[str] = field(default_factory=list)


def tables() -> list[sa.Table]:
    """Every table of the app, parents before the tables that refer to them."""
    return list(db.metadata.sorted_tables)


def rows_present(engine: sa.Engine) -> dict[str, int]:
    """The tables of ``engine``'s database that hold rows (its migrations' own table aside)."""
    inspector = sa.inspect(engine)
    found = {}
    with engine.connect() as connection:
        for name in inspector.get_table_names():
            if name == ALEMBIC_TABLE:
                continue
            table = sa.table(name)
            count = connection.scalar(sa.select(sa.func.count()).select_from(table))
            if count:
                found[name] = int(count)
    return found


def unknown_tables(engine: sa.Engine) -> list[str]:
    """Tables of ``engine``'s database that this version of the app does not know."""
    known = {table.name for table in tables()} | {ALEMBIC_TABLE}
    return sorted(set(sa.inspect(engine).get_table_names()) - known)


def _utc(column: sa.Column) -> Callable[[Any], Any]:
    # SQLite keeps times without their zone (the app writes UTC); PostgreSQL's timestamptz
    # would read a naive time in the server's zone.
    if isinstance(column.type, sa.DateTime):
        return lambda value: (
            value.replace(tzinfo=UTC)
            if isinstance(value, datetime) and value.tzinfo is None
            else value
        )
    return lambda value: value


def _batches(connection: sa.Connection, table: sa.Table) -> Iterator[list[dict[str, Any]]]:
    fixes = {column.name: _utc(column) for column in table.columns}
    order = list(table.primary_key.columns) or list(table.columns)
    result = connection.execution_options(yield_per=ROWS_PER_BATCH).execute(
        sa.select(table).order_by(*order)
    )
    for partition in result.mappings().partitions():
        yield [{name: fixes[name](value) for name, value in row.items()} for row in partition]


def copy(source: sa.Connection, target: sa.Connection, progress: Progress) -> dict[str, int]:
    """Copy every table from ``source`` to ``target`` (whose rows, such as the data version
    a migration seeds, are replaced), ids and all; the rows copied per table."""
    for table in reversed(tables()):
        target.execute(sa.delete(table))
    copied = {}
    for table in tables():
        total = source.scalar(sa.select(sa.func.count()).select_from(table)) or 0
        done = 0
        for batch in _batches(source, table):
            target.execute(sa.insert(table), batch)
            done += len(batch)
            if total > ROWS_PER_BATCH:
                progress(f"  {table.name}: {done:,} of {total:,} rows")
        progress(f"{table.name}: {done:,} rows copied")
        copied[table.name] = done
    return copied


def ids_given(source: sa.Connection) -> dict[str, int]:
    """The highest id the ``source`` database ever gave in each table it keeps that number
    for, beyond the rows present: SQLite's ``sqlite_sequence`` (tables with AUTOINCREMENT:
    the players, whose numbers are never given again), PostgreSQL's sequences."""
    if source.dialect.name == "sqlite":
        kept = sa.inspect(source).has_table("sqlite_sequence")
        rows = source.execute(sa.text("SELECT name, seq FROM sqlite_sequence")) if kept else []
        return {name: int(seq) for name, seq in rows if seq is not None}
    if source.dialect.name == "postgresql":
        given = {}
        for table in tables():
            sequence = _sequence(source, table)
            if sequence is not None:
                last, called = source.execute(
                    sa.text(f"SELECT last_value, is_called FROM {sequence}")
                ).one()
                if called:
                    given[table.name] = int(last)
        return given
    return {}


def _sequence(connection: sa.Connection, table: sa.Table) -> str | None:
    if "id" not in table.c or not isinstance(table.c.id.type, sa.Integer):
        return None
    # None for an id without a sequence (the data version's single row).
    return connection.scalar(sa.select(sa.func.pg_get_serial_sequence(table.name, "id")))


def reset_sequences(target: sa.Connection, given: dict[str, int] | None = None) -> None:
    """PostgreSQL: every table's id sequence continues after the highest id copied (rows
    inserted with their ids do not move it) and after every id the source ever gave
    (``given``, :func:`ids_given`): the next player never gets the number of one merged
    away, whose saved link and undone merge still mean them."""
    if target.dialect.name != "postgresql":
        return
    for table in tables():
        sequence = _sequence(target, table)
        if sequence is None:
            continue
        present = target.scalar(sa.select(sa.func.max(table.c.id)))
        highest = max(present or 0, (given or {}).get(table.name, 0)) or None
        target.execute(sa.select(sa.func.setval(sequence, highest or 1, highest is not None)))


def _totals(session: Session, after: int) -> list[tuple[int, tuple[Any, ...]]]:
    """The next games after id ``after``: each one's identity, seats and totals as scored
    by the rules module from its rounds."""
    games = session.scalars(
        sa.select(Game)
        .where(Game.id > after)
        .order_by(Game.id)
        .limit(GAMES_PER_BATCH)
        .options(selectinload(Game.seats), selectinload(Game.rounds).selectinload(Round.entries))
    ).all()
    found = []
    for game in games:
        sheet = sheet_of(game)
        seats = tuple(seat.player_id for seat in game.seats)
        found.append(
            (game.id, (game.uid, str(game.status), game.version, seats, tuple(sheet.totals)))
        )
    session.expunge_all()
    return found


def compare(source: sa.Engine, target: sa.Engine, progress: Progress) -> Comparison:
    """Count every table on both sides and score every game on both sides."""
    comparison = Comparison()
    with source.connect() as here, target.connect() as there:
        for table in tables():
            count = sa.select(sa.func.count()).select_from(table)
            before, after = int(here.scalar(count) or 0), int(there.scalar(count) or 0)
            comparison.counts[table.name] = (before, after)
            if before != after:
                comparison.differences.append(f"{table.name}: {before} rows, now {after}")
    with Session(source) as here, Session(target) as there:
        last = 0
        while batch := _totals(here, last):
            theirs = dict(_totals(there, last))
            for game_id, facts in batch:
                if theirs.get(game_id) != facts:
                    comparison.differences.append(f"game {game_id}: not the same on both sides")
            last = batch[-1][0]
            comparison.games += len(batch)
            progress(f"  {comparison.games:,} games scored on both sides")
        there_count = there.scalar(sa.select(sa.func.count()).select_from(Game))
        if there_count != comparison.games:
            comparison.differences.append(f"games: {comparison.games}, now {there_count}")
    return comparison
