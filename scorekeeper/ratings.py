"""The club ladder: ratings after each finished game, stored, and the pages' reads of them.

A ladder (:class:`~scorekeeper.models.Ladder`) is one season: the finished games started at
or after a moment (every finished game for "all time"), in the order they were played
(finished, then game id). For each of them it keeps the game's version
(:class:`~scorekeeper.models.LadderGame`) and each player's place and rating after it
(:class:`~scorekeeper.models.LadderRating`), computed by :func:`reports.ladder.rate_games`.

:func:`refresh` compares, in one query, the finished games of the season with the games the
ladder rated: a game that is new, changed (another version), moved in the order, or no
longer finished marks the first game whose ratings may differ. The ratings before it stay;
those from it on are computed again, from the stored ratings just before it. When nothing
changed a page costs that one query: ratings are never computed per request.

Bringing a ladder up to date is one single-flighted job per season (:func:`run_job`): a
process claims the season's :class:`~scorekeeper.models.DerivedJob` row (one UPDATE that
only one process can win, on SQLite and PostgreSQL, across workers and hosts), computes, and
releases it. Who starts it: the first visitor who finds the ladder stale, in a background
thread of that process (:func:`page_ladder`) — the visitor waits at most a bounded moment
(``LADDER_WAIT_SECONDS``: a small club's ladder is ready by then) and otherwise sees the last
complete ladder, marked as being updated, never a half one (each update replaces rows in one
transaction). Starting it from the visit rather than after each write keeps every write as
quick as before and computes nothing for seasons nobody looks at; a write that makes the
ladder stale costs nothing more than the next visit's one query. ``flask refresh`` runs the
same job in the foreground, with progress.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import chain
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from .extensions import db
from .models import (
    DataVersion,
    DerivedJob,
    Game,
    GameStatus,
    Ladder,
    LadderGame,
    LadderRating,
    LadderStanding,
    Player,
    SeatResult,
    sqlite_write_lock,
    utcnow,
)
from .reports import ladder as rating
from .reports import stats

logger = logging.getLogger(__name__)

ALL_TIME = "all"
# Part of every stored ladder's key: ratings of another model or release are not read.
MODEL_TAG = hashlib.sha256(rating.MODEL.encode()).hexdigest()[:8]
# Ladders of a season that starts earlier than this before the one asked for are from an
# earlier day or year: dropped. Viewers in other time zones (at most 26 hours apart) keep theirs.
KEEP_STARTS_WITHIN = timedelta(days=2)


def played_at() -> Any:
    """The moment a game is ordered by on the ladder: when it finished (when it started, for
    a game that has no finishing time)."""
    return sa.func.coalesce(Game.finished_at, Game.created_at, type_=sa.DateTime(timezone=True))


def finished_games(starts_at: datetime | None) -> sa.Select:
    """The season's games: finished, started at or after ``starts_at`` (a UTC moment)."""
    query = sa.select(
        Game.id.label("game_id"), Game.version.label("version"), played_at().label("played_at")
    ).where(Game.status == GameStatus.FINISHED)
    if starts_at is not None:
        query = query.where(Game.created_at >= starts_at)
    return query


def ladder_key(season: str, starts_at: datetime | None) -> str:
    """The stored ladder's name: the season, the rating model, the season's first moment."""
    key = f"{season}:{MODEL_TAG}"
    return key if starts_at is None else f"{key}:{starts_at.isoformat()}"


def _ladder_id(key: str) -> Any:
    return sa.select(Ladder.id).where(Ladder.key == key).scalar_subquery()


# --- keeping the ratings current -----------------------------------------------------------


def first_change(session: Session, key: str, starts_at: datetime | None) -> Any:
    """The (played_at, game_id) of the earliest game whose stored ratings may be wrong, or
    ``None`` when the ladder is current (or there is none and no game to rate): one query,
    whatever the number of games."""
    ladder_id = _ladder_id(key)
    season = finished_games(starts_at).subquery()
    rated = sa.orm.aliased(LadderGame)
    new_or_changed = (
        sa.select(season.c.played_at, season.c.game_id)
        .outerjoin(
            rated,
            sa.and_(
                rated.ladder_id == ladder_id,
                rated.game_id == season.c.game_id,
                rated.version == season.c.version,
                rated.played_at == season.c.played_at,
            ),
        )
        .where(rated.game_id.is_(None))
    )
    still = sa.select(season.c.game_id).where(
        season.c.game_id == LadderGame.game_id,
        season.c.version == LadderGame.version,
        season.c.played_at == LadderGame.played_at,
    )
    gone = sa.select(LadderGame.played_at, LadderGame.game_id).where(
        LadderGame.ladder_id == ladder_id, ~still.exists()
    )
    either = sa.union_all(new_or_changed, gone).subquery()
    return session.execute(
        sa.select(either.c.played_at, either.c.game_id)
        .order_by(either.c.played_at, either.c.game_id)
        .limit(1)
    ).first()


def _from(column_at: Any, column_id: Any, first: Any) -> Any:
    """Games at or after ``first`` in the ladder's order."""
    return sa.or_(
        column_at > first.played_at,
        sa.and_(column_at == first.played_at, column_id >= first.game_id),
    )


def _ladder(session: Session, season: str, starts_at: datetime | None) -> Ladder:
    """The stored ladder of this season (made when missing; older ones of the season and
    those of another rating model dropped)."""
    key = ladder_key(season, starts_at)
    found = session.scalar(sa.select(Ladder).where(Ladder.key == key))
    if found is not None:
        return found
    with sqlite_write_lock():
        session.rollback()
        session.execute(sa.delete(Ladder).where(Ladder.model != rating.MODEL))
        if starts_at is not None:
            session.execute(
                sa.delete(Ladder).where(
                    Ladder.season == season, Ladder.starts_at < starts_at - KEEP_STARTS_WITHIN
                )
            )
        if session.scalar(sa.select(Ladder).where(Ladder.key == key)) is None:
            session.add(Ladder(key=key, season=season, starts_at=starts_at, model=rating.MODEL))
        try:
            session.commit()
        except sa.exc.IntegrityError:
            session.rollback()  # made by another page at the same moment
    return session.scalars(sa.select(Ladder).where(Ladder.key == key)).one()


def refresh(
    season: str, starts_at: datetime | None, progress: Callable[[int], None] | None = None
) -> bool:
    """Make the stored ladder of this season current: the ratings from the first changed
    game on (the seat results are current: they are stored with the facts). Runs in
    sessions of its own; call it through :func:`run_job`, so that one process at a time
    does. Returns whether anything was computed; ``progress`` is told of each game rated."""
    with Session(db.engine) as session:
        ladder = _ladder(session, season, starts_at)
        ladder_id, generation, seen = ladder.id, ladder.generation, ladder.finished_version
        # Read in the snapshot the games are read in: the ladder is current with this value.
        finished = _finished_version(session)
        first = first_change(session, ladder.key, starts_at)
        if first is None:
            if seen != finished:  # nothing to rate: the standings and the version to record
                standings = _standing_rows(session, ladder_id, None)
                session.rollback()
                _store(session, ladder_id, generation, finished, standings)
            return False
        kept, game_rows, rating_rows = _rate_from(session, ladder_id, starts_at, first, progress)
        standings = _standing_rows(session, ladder_id, kept, game_rows, rating_rows)
        session.rollback()
        _store(session, ladder_id, generation, finished, standings, kept, game_rows, rating_rows)
    return True


def _finished_version(session: Session) -> int:
    """The finished games' version now (:attr:`DataVersion.finished`)."""
    return session.scalar(sa.select(DataVersion.finished).where(DataVersion.id == 1)) or 0


# --- the single-flighted job ----------------------------------------------------------------

# How long a claim holds unless it is renewed: the process running the job renews it every
# HEARTBEAT seconds while it works (however long the job), so a process that died mid-job
# leaves the job to the next visitor within this, not minutes later.
LEASE = timedelta(seconds=30)
HEARTBEAT = 10.0
# Jobs this process is running now (threads of one process need not ask the database).
_running: set[str] = set()
_running_lock = threading.Lock()


def job_name(season: str, starts_at: datetime | None) -> str:
    return f"ladder:{ladder_key(season, starts_at)}"[:100]


def _job_connection(engine: sa.Engine | None = None) -> sa.Connection:
    # READ COMMITTED on PostgreSQL: two claims at once wait for each other and the second
    # sees the first's lease (under REPEATABLE READ it would fail instead).
    engine = engine or db.engine
    options = {"isolation_level": "READ COMMITTED"} if engine.dialect.name == "postgresql" else {}
    return engine.connect().execution_options(**options)


def _claim(name: str) -> datetime | None:
    """Take the job's lease when nobody holds it (one UPDATE: only one process wins): the
    moment it was taken, which names this claim (the renewals and the release are for it
    only), or None."""
    try:
        return _try_claim(name)
    except sa.exc.OperationalError:  # SQLite's write lock held by the running job: busy
        return None


def _try_claim(name: str) -> datetime | None:
    insert = postgresql_insert if db.engine.dialect.name == "postgresql" else sqlite_insert
    now = utcnow()
    with _job_connection() as connection, connection.begin():
        connection.execute(insert(DerivedJob).values(name=name, runs=0).on_conflict_do_nothing())
        claimed = connection.execute(
            sa.update(DerivedJob)
            .where(
                DerivedJob.name == name,
                sa.or_(DerivedJob.lease_until.is_(None), DerivedJob.lease_until < now),
            )
            .values(lease_until=now + LEASE, started_at=now, runs=DerivedJob.runs + 1)
        )
        return now if claimed.rowcount == 1 else None


def _mine(name: str, claim: datetime) -> Any:
    return sa.and_(DerivedJob.name == name, DerivedJob.started_at == claim)


def _renew(engine: sa.Engine, name: str, claim: datetime) -> bool:
    """Extend this claim's lease; False when it is no longer this claim's (taken over)."""
    with _job_connection(engine) as connection, connection.begin():
        renewed = connection.execute(
            sa.update(DerivedJob).where(_mine(name, claim)).values(lease_until=utcnow() + LEASE)
        )
        return renewed.rowcount == 1


def _heartbeat(engine: sa.Engine, name: str, claim: datetime, done: threading.Event) -> None:
    while not done.wait(HEARTBEAT):
        try:
            if not _renew(engine, name, claim):
                return
        except sa.exc.OperationalError:  # SQLite: the job's own write holds the lock; next beat
            continue


def _release(name: str, claim: datetime) -> None:
    """Let go of this claim's lease (one another process took over is not touched)."""
    with _job_connection() as connection, connection.begin():
        connection.execute(
            sa.update(DerivedJob)
            .where(_mine(name, claim))
            .values(lease_until=None, finished_at=utcnow())
        )


def job_busy(name: str) -> bool:
    """Whether some process (this one or another) is running the job now."""
    with _running_lock:
        if name in _running:
            return True
    with _job_connection() as connection:
        lease = connection.execute(
            sa.select(DerivedJob.lease_until).where(DerivedJob.name == name)
        ).scalar()
    if lease is not None and lease.tzinfo is None:  # SQLite gives naive UTC times back
        lease = lease.replace(tzinfo=utcnow().tzinfo)
    return lease is not None and lease > utcnow()


def job_runs(season: str, starts_at: datetime | None) -> int:
    """How many times the season's job was claimed (computed) so far."""
    name = job_name(season, starts_at)
    return db.session.scalar(sa.select(DerivedJob.runs).where(DerivedJob.name == name)) or 0


def run_job(
    season: str, starts_at: datetime | None, progress: Callable[[int], None] | None = None
) -> bool:
    """Bring the season's ladder up to date unless another process is doing it now; returns
    whether this call ran it. Games finished while it computed are taken in before the
    lease is let go (a few rounds at most), so a visitor who found it busy is served."""
    name = job_name(season, starts_at)
    with _running_lock:
        if name in _running:
            return False
        _running.add(name)
    try:
        claim = _claim(name)
        if claim is None:
            return False
        done = threading.Event()
        beating = threading.Thread(
            target=_heartbeat,
            args=(db.engine, name, claim, done),
            name=f"scorekeeper-lease-{name}",
            daemon=True,
        )
        beating.start()
        try:
            for _round in range(3):
                if not refresh(season, starts_at, progress):
                    break
        finally:
            done.set()
            beating.join()
            _release(name, claim)
        return True
    finally:
        with _running_lock:
            _running.discard(name)


def _run_in_background(app: Flask, season: str, starts_at: datetime | None) -> None:
    with app.app_context():
        try:
            run_job(season, starts_at)
        except Exception:  # a failed job leaves the last complete ladder; the next visit retries
            logger.exception("ladder %s not brought up to date", season)
        finally:
            db.session.remove()


def start_job(season: str, starts_at: datetime | None) -> threading.Thread | None:
    """Run the season's job in a background thread of this process (unless it runs here
    already); the caller does not wait for it."""
    name = job_name(season, starts_at)
    with _running_lock:
        if name in _running:
            return None
    thread = threading.Thread(
        target=_run_in_background,
        args=(current_app._get_current_object(), season, starts_at),  # type: ignore[attr-defined]
        name=f"scorekeeper-{name}",
        daemon=True,
    )
    thread.start()
    return thread


def page_ladder(
    season: str, starts_at: datetime | None, wait: float | None = None
) -> tuple[str, bool]:
    """The key of the season's stored ladder for a page's reads, and whether it is being
    brought up to date (then it is the last complete one). Costs one query when current;
    when stale, starts the job in the background and waits for it at most ``wait``
    seconds (``LADDER_WAIT_SECONDS`` by default) — never computes here."""
    if wait is None:
        wait = float(current_app.config.get("LADDER_WAIT_SECONDS", 0.5))
    key = ladder_key(season, starts_at)
    if _current(key, starts_at):
        return key, False
    thread = start_job(season, starts_at)
    if wait > 0:
        name = job_name(season, starts_at)
        deadline = time.monotonic() + wait
        if thread is not None:
            thread.join(wait)
        while job_busy(name) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not job_busy(name):
            # A new snapshot, to read what the job stored (a kept page read after this is
            # not kept: its data version is checked).
            db.session.rollback()
            return key, not _current(key, starts_at)
    return key, True


_STORED_VERSIONS = (
    sa.select(Ladder.finished_version, DataVersion.finished)
    .select_from(Ladder)
    .outerjoin(DataVersion, DataVersion.id == 1)
    .where(Ladder.key == sa.bindparam("key"))
)


def _current(key: str, starts_at: datetime | None) -> bool:
    """Whether the stored ladder (and its standings) can be read as it is: one small query
    when no finished game changed since its job ran; else :func:`first_change` says."""
    stored = db.session.execute(_STORED_VERSIONS, {"key": key}).first()
    if stored is not None and stored.finished_version == (stored.finished or 0):
        return True
    if first_change(db.session, key, starts_at) is not None:
        return False
    # Nothing to rate: current, unless its standings lag behind (the job records them).
    return stored is None


def _rate_from(
    session: Session,
    ladder_id: int,
    starts_at: datetime | None,
    first: Any,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
    """The ladder's rows from ``first`` on: how many rated games come before it, and the
    rows of the games and of the ratings from it on (read in one snapshot)."""
    kept = (
        session.scalar(
            sa.select(sa.func.count()).where(
                LadderGame.ladder_id == ladder_id,
                ~_from(LadderGame.played_at, LadderGame.game_id, first),
            )
        )
        or 0
    )
    latest = (
        sa.select(LadderRating.player_id, sa.func.max(LadderRating.seq).label("seq"))
        .where(LadderRating.ladder_id == ladder_id, LadderRating.seq < kept)
        .group_by(LadderRating.player_id)
        .subquery()
    )
    before = {
        player_id: rating.Rating(mu, sigma)
        for player_id, mu, sigma in session.execute(
            sa.select(LadderRating.player_id, LadderRating.mu, LadderRating.sigma).join(
                latest,
                sa.and_(
                    LadderRating.ladder_id == ladder_id,
                    LadderRating.player_id == latest.c.player_id,
                    LadderRating.seq == latest.c.seq,
                ),
            )
        )
    }
    season = finished_games(starts_at).subquery()
    seats = session.execute(
        sa.select(
            season.c.game_id,
            season.c.version,
            season.c.played_at,
            SeatResult.player_id,
            SeatResult.total,
            SeatResult.winner,
            SeatResult.bids,
            SeatResult.hits,
        )
        .join(
            SeatResult,
            sa.and_(
                SeatResult.game_id == season.c.game_id, SeatResult.version == season.c.version
            ),
        )
        .where(_from(season.c.played_at, season.c.game_id, first))
        .order_by(season.c.played_at, season.c.game_id, SeatResult.seat)
    ).all()
    games = list(_games(seats))
    figures = {(row.game_id, row.player_id): row for row in seats}
    game_rows = []
    rating_rows = []
    pause = _Yield()
    rated = rating.rate_games((finish for _, finish in games), before)
    for seq, ((row, _), (game_id, finishes)) in enumerate(zip(games, rated, strict=True), kept):
        if progress is not None:
            progress(1)
        if seq % 4 == 0:
            pause.now()
        game_rows.append(
            {
                "ladder_id": ladder_id,
                "game_id": game_id,
                "seq": seq,
                "version": row.version,
                "played_at": row.played_at,
            }
        )
        rating_rows.extend(
            {
                "ladder_id": ladder_id,
                "game_id": game_id,
                "player_id": finish.player_id,
                "seq": seq,
                "place": finish.place,
                "mu": finish.rating.mu,
                "sigma": finish.rating.sigma,
                "winner": figures[game_id, finish.player_id].winner,
                "bids": figures[game_id, finish.player_id].bids,
                "hits": figures[game_id, finish.player_id].hits,
            }
            for finish in finishes
        )
    return kept, game_rows, rating_rows


class _Yield:
    """Rating is pure Python: a job in a web worker's background thread would hold the GIL
    and make the worker's requests wait (4 first visits took 35 s with 300 games; a player
    page 10–19 s while 20,000 games were rated). Off the main thread, the job sleeps as long
    as it has worked every few milliseconds, so the worker's pages get at least half of the
    GIL; ``flask refresh`` (the main thread) does not pause."""

    WORK = 0.002

    def __init__(self) -> None:
        self.background = threading.current_thread() is not threading.main_thread()
        self.since = time.perf_counter()

    def now(self) -> None:
        worked = time.perf_counter() - self.since
        if self.background and worked >= self.WORK:
            time.sleep(min(worked, 0.02))
            self.since = time.perf_counter()


def _games(seats: Sequence[Any]) -> Iterator[tuple[Any, rating.GameFinish]]:
    """Seat rows (in game order, then seat order) grouped by game, with places."""
    by_game: dict[int, list[Any]] = defaultdict(list)
    for row in seats:
        by_game[row.game_id].append(row)
    for rows in by_game.values():
        places = rating.places([row.total for row in rows])
        finishes = tuple(
            rating.Finish(row.player_id, place) for row, place in zip(rows, places, strict=True)
        )
        yield rows[0], rating.GameFinish(rows[0].game_id, finishes)


def _store(
    session: Session,
    ladder_id: int,
    generation: int,
    finished: int,
    standings: Sequence[dict[str, Any]],
    kept: int | None = None,
    game_rows: Sequence[dict[str, Any]] = (),
    rating_rows: Sequence[dict[str, Any]] = (),
) -> None:
    """Replace the ladder's rows from ``kept`` on (none when ``None``) and its standings,
    and record the finished games' version they are current with, unless another page wrote
    the ladder since ``generation`` was read (then the next page finds what is still stale)."""
    with sqlite_write_lock():
        try:
            claimed = session.execute(
                sa.update(Ladder)
                .where(Ladder.id == ladder_id, Ladder.generation == generation)
                .values(generation=generation + 1, finished_version=finished)
            )
            if claimed.rowcount != 1:
                session.rollback()
                return
            if kept is not None:
                for table in (LadderRating, LadderGame):
                    session.execute(
                        sa.delete(table).where(table.ladder_id == ladder_id, table.seq >= kept)
                    )
            if game_rows:
                session.execute(sa.insert(LadderGame), game_rows)
                session.execute(sa.insert(LadderRating), rating_rows)
            session.execute(sa.delete(LadderStanding).where(LadderStanding.ladder_id == ladder_id))
            if standings:
                session.execute(sa.insert(LadderStanding), standings)
            session.commit()
        except (sa.exc.IntegrityError, sa.exc.OperationalError):
            session.rollback()


def _standing_rows(
    session: Session,
    ladder_id: int,
    kept: int | None,
    game_rows: Sequence[dict[str, Any]] = (),
    rating_rows: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Each player's standing on the ladder once the job's rows are stored: the figures
    added up, the rating after their last game, and the ratings after each game thinned for
    the chart. Read in the job's snapshot, before the write (the stored rows before ``kept``,
    every row when it is ``None``) and added to the new rows, so the write lock is held for
    the inserts only."""
    stored = (
        sa.select(
            LadderRating.player_id,
            LadderGame.played_at,
            LadderRating.place,
            LadderRating.winner,
            LadderRating.bids,
            LadderRating.hits,
            LadderRating.mu,
            LadderRating.sigma,
        )
        .join(
            LadderGame,
            sa.and_(
                LadderGame.ladder_id == LadderRating.ladder_id,
                LadderGame.game_id == LadderRating.game_id,
            ),
        )
        .where(LadderRating.ladder_id == ladder_id)
        .order_by(LadderRating.player_id, LadderRating.seq)
    )
    if kept is not None:
        stored = stored.where(LadderRating.seq < kept)
    played = {row["game_id"]: row["played_at"] for row in game_rows}
    new = (
        (
            row["player_id"],
            played[row["game_id"]],
            *(row[name] for name in ("place", "winner", "bids", "hits", "mu", "sigma")),
        )
        for row in rating_rows  # in the ladder's order, after every stored row
    )
    lines: dict[int, dict[str, Any]] = {}
    points: dict[int, list[rating.RatingPoint]] = defaultdict(list)
    pause = _Yield()
    for count, (player_id, played_at, place, winner, bids, hits, mu, sigma) in enumerate(
        chain(session.execute(stored), new)
    ):
        if count % 256 == 0:
            pause.now()
        line = lines.setdefault(
            player_id,
            {"ladder_id": ladder_id, "player_id": player_id, "games": 0, "wins": 0}
            | {"place_sum": 0, "bids": 0, "hits": 0},
        )
        line["games"] += 1
        line["wins"] += int(winner)
        line["place_sum"] += place
        line["bids"] += bids
        line["hits"] += hits
        line["mu"], line["sigma"] = mu, sigma
        mine = points[player_id]
        mine.append(rating.RatingPoint(len(mine) + 1, played_at, rating.Rating(mu, sigma).ordinal))
    for player_id, line in lines.items():
        line["chart"] = [
            [point.game_number, point.played_at.isoformat(), point.rating]
            for point in rating.thinned(points[player_id])
        ]
    return list(lines.values())


# --- reads for the pages -------------------------------------------------------------------


# The pages' reads, built once (SQLAlchemy then skips building the statement and its cache
# key on every request: half a small query's cost, profiled on the ladder and player pages).
_KEYED_LADDER = sa.select(Ladder.id).where(Ladder.key == sa.bindparam("key")).scalar_subquery()
_STANDINGS = (
    sa.select(
        LadderStanding.player_id,
        LadderStanding.games,
        LadderStanding.wins,
        LadderStanding.place_sum,
        LadderStanding.bids,
        LadderStanding.hits,
        LadderStanding.mu,
        LadderStanding.sigma,
        Player.name,
    )
    .join(Player, Player.id == LadderStanding.player_id)
    .where(LadderStanding.ladder_id == _KEYED_LADDER)
)
_PLAYER_CHART = sa.select(LadderStanding.chart, LadderStanding.games).where(
    LadderStanding.ladder_id == _KEYED_LADDER,
    LadderStanding.player_id == sa.bindparam("player_id"),
)


@dataclass(frozen=True)
class Standing:
    """A player on the ladder: rating after their last game of the season, and figures."""

    player_id: int
    name: str
    rating: rating.Rating
    games: int
    wins: int
    place_sum: int
    bids: stats.Rate

    @property
    def average_place(self) -> float:
        return self.place_sum / self.games


@dataclass(frozen=True)
class LadderTable:
    """The ladder of a season: the ranked players, best first, and those with fewer games."""

    ranked: tuple[Standing, ...]
    unranked: tuple[Standing, ...]
    min_games: int
    # The last complete ladder, shown while a newer one is computed.
    updating: bool = False


def standings(
    season: str, starts_at: datetime | None, min_games: int, wait: float | None = None
) -> LadderTable:
    """The ladder of the season starting at ``starts_at`` (``None``: all time), players with
    at least ``min_games`` games ranked by rating: a fixed number of queries (see
    :func:`page_ladder` for ``wait`` and when it is the last complete one)."""
    key, updating = page_ladder(season, starts_at, wait)
    rows = db.session.execute(_STANDINGS, {"key": key}).all()
    players = sorted(
        (
            Standing(
                player_id=row.player_id,
                name=row.name,
                rating=rating.Rating(row.mu, row.sigma),
                games=row.games,
                wins=row.wins,
                place_sum=row.place_sum,
                bids=stats.Rate(row.hits, row.bids),
            )
            for row in rows
        ),
        key=lambda s: (-s.rating.ordinal, -s.rating.mu, s.name.casefold(), s.player_id),
    )
    return LadderTable(
        ranked=tuple(s for s in players if s.games >= min_games),
        unranked=tuple(s for s in players if s.games < min_games),
        min_games=min_games,
        updating=updating,
    )


@dataclass(frozen=True)
class RatingHistory:
    """A player's all-time rating after each finished game, and whether the ladder it comes
    from is being brought up to date (then it is the last complete one)."""

    points: list[rating.RatingPoint]  # thinned: at most reports.ladder.MAX_POINTS
    updating: bool
    games: int = 0  # the player's rated games


def rating_history(player_id: int, wait: float | None = None) -> RatingHistory:
    """The player's all-time rating after each of their finished games, oldest first, as
    the chart draws them (thinned by the ladder's job): one small query."""
    key, updating = page_ladder(ALL_TIME, None, wait)
    found = db.session.execute(_PLAYER_CHART, {"key": key, "player_id": player_id}).first()
    if found is None:
        return RatingHistory([], updating)
    points = [
        rating.RatingPoint(number, datetime.fromisoformat(played), value)
        for number, played, value in found.chart
    ]
    return RatingHistory(points, updating, found.games)
