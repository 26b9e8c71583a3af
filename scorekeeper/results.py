"""Each game's result by seat, stored with the facts it is derived from, so that the games
list, the player pages and the ladder never score a game on a request.

A :class:`~scorekeeper.models.SeatResult` is derived entirely from the game's rounds (through
:mod:`scorekeeper.records` and the rules module's score sheet) and records the game version
it was computed at. It is written in the same transaction as every change that alters it,
by construction rather than by each write path's care: the session notes every game whose
rows it flushes (the game, a seat, a round, an entry) and, just before it commits, stores
those games' results at their new versions (:func:`store`). Writes that bypass the ORM (the
version's own UPDATE, a restore's bulk inserts) name their games with :func:`due` or call
:func:`store` themselves. So a read never computes results, and a committed result is
always its game's, at the game's version (tests/test_results.py checks every write path).

:func:`refresh` remains for databases written before this (or by a seeding script): it stores
the missing and stale results in batches, with progress, from ``flask refresh`` and
``flask serve`` — never from a page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from types import SimpleNamespace
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import Session

from . import figures, rules
from .extensions import db
from .models import (
    Entry,
    Game,
    GameStatus,
    HandResult,
    Round,
    Seat,
    SeatResult,
    raise_finished_version,
    sqlite_write_lock,
)
from .records import round_records, rules_of
from .reports.bidding import seat_bidding
from .reports.stats import seat_figures

# Games scored and written per statement when many are due at once (a restore, an
# upgrade): bounded memory, and bounded statement sizes on both databases.
BATCH = 200

_GAMES, _SEATS, _ROUNDS, _ENTRIES = (model.__table__ for model in (Game, Seat, Round, Entry))
_DUE = "scorekeeper_results_due"
_DUE_ROUNDS = "scorekeeper_results_due_rounds"
# Games that were finished before this transaction changed their status (an undo of the
# last round): their players' figures change too.
_WERE_FINISHED = "scorekeeper_results_were_finished"
# Games finished in this transaction (from in progress, or made finished).
_NOW_FINISHED = "scorekeeper_results_now_finished"


def seat_results(game: Game) -> list[SeatResult]:
    """The results of every seat of ``game`` as it stands (rounds and entries loaded)."""
    rows, hands = result_rows([game])
    by_seat: dict[int, list[HandResult]] = {}
    for hand in hands:
        by_seat.setdefault(hand["seat"], []).append(
            HandResult(**{k: v for k, v in hand.items() if k not in ("game_id", "seat")})
        )
    return [SeatResult(**row, hand_sizes=by_seat.get(row["seat"], [])) for row in rows]


def result_rows(games: Iterable[Game]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The seat result rows and hand result rows of ``games`` (rounds and entries loaded),
    at each game's version."""
    rows: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    for game in games:
        game_rules, records = rules_of(game), round_records(game)
        sheet = rules.score_sheet(game_rules, records)
        highlighted = set(sheet.highlighted(game.status == GameStatus.IN_PROGRESS))
        for seat in game.seats:
            figures = seat_figures(sheet, seat.position)
            rows.append(
                {
                    "game_id": game.id,
                    "seat": seat.position,
                    "player_id": seat.player_id,
                    "version": game.version,
                    "scored_rounds": len(sheet.rows),
                    "finished": sheet.finished,
                    "total": sheet.totals[seat.position],
                    "bid_sum": sheet.bid_sums[seat.position],
                    "leader": seat.position in sheet.leaders,
                    "highlighted": seat.position in highlighted,
                    "winner": seat.position in sheet.winners,
                    "bids": figures.bids,
                    "hits": figures.hits,
                    "zero_bids": figures.zero_bids,
                    "zero_hits": figures.zero_hits,
                    "over_rounds": figures.over.rounds,
                    "over_tricks": figures.over.tricks,
                    "under_rounds": figures.under.rounds,
                    "under_tricks": figures.under.tricks,
                    "missed": figures.missed,
                    "streak_first": figures.streak_first,
                    "streak_last": figures.streak_last,
                    "streak_best": figures.streak_best,
                    "bidding": seat_bidding(game_rules, records, sheet, seat.position),
                }
            )
            hands.extend(
                {
                    "game_id": game.id,
                    "seat": seat.position,
                    "player_id": seat.player_id,
                    "hand_size": size,
                    "hits": hits,
                    "bids": bids,
                }
                for size, (hits, bids) in figures.by_hand_size.items()
            )
    return rows, hands


def due(session: Session, game_ids: Iterable[int]) -> None:
    """These games' results are stored when ``session`` commits (for writes that change a
    game without the ORM noticing, such as the version's own UPDATE)."""
    session.info.setdefault(_DUE, set()).update(game_ids)


def store(session: Session, game_ids: Iterable[int]) -> int:
    """Store the results of these games as they stand in ``session``'s transaction (its
    changes flushed first), replacing the rows there were: part of the caller's transaction,
    committed or rolled back with it. The players of those that are (or were) finished have
    their all-time figures stored when it commits (:mod:`.figures`). Returns how many games
    were stored."""
    ids = sorted(set(game_ids))
    stored = 0
    were_finished = session.info.get(_WERE_FINISHED, set())
    now_finished = session.info.get(_NOW_FINISHED, set()) - were_finished
    for batch in _batches(ids):
        games = _games_as_stored(session, batch)
        for game in games:
            if game.id in now_finished and game.status == GameStatus.FINISHED:
                # Counted in no figure before: added to its players' stored figures.
                figures.added(session, game.id, (seat.player_id for seat in game.seats))
        finished = [
            game.id
            for game in games
            if (game.status == GameStatus.FINISHED and game.id not in now_finished)
            or game.id in were_finished
        ]
        if gone := were_finished.intersection(batch) - {game.id for game in games}:
            finished.extend(gone)  # deleted: its seats named their players (_note_games)
        if finished:
            # The players of the stored rows (before a seat changed hands) and of the seats.
            figures.due(
                session,
                session.scalars(
                    sa.select(SeatResult.player_id).where(SeatResult.game_id.in_(finished))
                ),
            )
            figures.due(
                session,
                (seat.player_id for game in games if game.id in finished for seat in game.seats),
            )
        session.execute(sa.delete(HandResult).where(HandResult.game_id.in_(batch)))
        session.execute(sa.delete(SeatResult).where(SeatResult.game_id.in_(batch)))
        rows, hands = result_rows(games)  # type: ignore[arg-type]
        # Core inserts on the tables: the ORM's bulk insert cost a fifth of a restore.
        if rows:
            session.execute(sa.insert(SeatResult.__table__), rows)
        if hands:
            session.execute(sa.insert(HandResult.__table__), hands)
        stored += len(games)
    return stored


def _games_as_stored(session: Session, ids: Sequence[int]) -> list[SimpleNamespace]:
    """The games as the database holds them in this transaction (the caller's changes
    flushed first), with what the score sheet reads: plain rows in four queries, not ORM
    objects (loading those took half of a restore's results; cProfile). Duck-typed for
    :func:`records.sheet_of`."""
    session.flush()
    games = {
        row.id: SimpleNamespace(
            id=row.id,
            version=row.version,
            status=row.status,
            rules=row.rules,
            seats=[],
            rounds=[],
        )
        for row in session.execute(
            sa.select(_GAMES.c.id, _GAMES.c.version, _GAMES.c.status, _GAMES.c.rules).where(
                _GAMES.c.id.in_(ids)
            )
        )
    }
    for row in session.execute(
        sa.select(_SEATS.c.game_id, _SEATS.c.position, _SEATS.c.player_id)
        .where(_SEATS.c.game_id.in_(ids))
        .order_by(_SEATS.c.game_id, _SEATS.c.position)
    ):
        games[row.game_id].seats.append(row)
    rounds: dict[int, SimpleNamespace] = {}
    for row in session.execute(
        sa.select(
            _ROUNDS.c.id,
            _ROUNDS.c.game_id,
            _ROUNDS.c.number,
            _ROUNDS.c.hand_size,
            _ROUNDS.c.dealer,
            _ROUNDS.c.state,
            _ROUNDS.c.bomb_played,
        )
        .where(_ROUNDS.c.game_id.in_(ids))
        .order_by(_ROUNDS.c.game_id, _ROUNDS.c.number)
    ):
        round_ = SimpleNamespace(**row._asdict(), entries=[])
        rounds[row.id] = round_
        games[row.game_id].rounds.append(round_)
    for row in session.execute(
        sa.select(
            _ENTRIES.c.round_id,
            _ENTRIES.c.seat,
            _ENTRIES.c.bid,
            _ENTRIES.c.cloud_bid,
            _ENTRIES.c.tricks,
        )
        .join(_ROUNDS, _ROUNDS.c.id == _ENTRIES.c.round_id)
        .where(_ROUNDS.c.game_id.in_(ids))
        .order_by(_ENTRIES.c.round_id, _ENTRIES.c.seat)
    ):
        rounds[row.round_id].entries.append(row)
    return list(games.values())


@event.listens_for(Session, "after_flush")
def _note_games(session: Session, _context: Any) -> None:
    """Note the games whose facts this flush wrote (stored in :func:`_store_due`)."""
    games: set[int] = session.info.setdefault(_DUE, set())
    for instance in chain(session.new, session.dirty, session.deleted):
        if isinstance(instance, Game):
            games.add(instance.id)
            state = sa.inspect(instance)
            # A deleted game's status as it was loaded (nothing is loaded after a flush).
            deleted = state.deleted and state.dict.get("status") == GameStatus.FINISHED
            status = state.attrs.status.history
            if deleted or GameStatus.FINISHED in status.deleted:
                session.info.setdefault(_WERE_FINISHED, set()).add(instance.id)
            elif GameStatus.FINISHED in status.added:
                session.info.setdefault(_NOW_FINISHED, set()).add(instance.id)
        elif isinstance(instance, Seat) and instance in session.deleted:
            # Its game's results go with it: its player's figures are stored again.
            figures.due(session, [instance.player_id])
            games.add(instance.game_id)
        elif isinstance(instance, Seat | Round) and instance.game_id is not None:
            games.add(instance.game_id)
        elif isinstance(instance, Entry) and instance.round_id is not None:
            session.info.setdefault(_DUE_ROUNDS, set()).add(instance.round_id)


@event.listens_for(Session, "before_commit")
def _store_due(session: Session) -> None:
    # Commit flushes after this event: flush first, so this transaction's last rows are
    # noted too (nothing to flush costs nothing).
    if session.new or session.dirty or session.deleted:
        session.flush()
    if session.info.get(_DUE) or session.info.get(_DUE_ROUNDS):
        games = session.info.pop(_DUE, set())
        rounds = session.info.pop(_DUE_ROUNDS, set())
        if rounds:
            games |= set(
                session.scalars(sa.select(Round.game_id).where(Round.id.in_(sorted(rounds))))
            )
        if games:
            store(session, games)
        session.info.pop(_WERE_FINISHED, None)
        session.info.pop(_NOW_FINISHED, None)
    if figures.pending(session):
        # A finished game's results changed (or changed hands): the ladders' check too.
        raise_finished_version(session)
        figures.store_pending(session)


@event.listens_for(Session, "after_rollback")
def _forget_due(session: Session) -> None:
    session.info.pop(_DUE, None)
    session.info.pop(_DUE_ROUNDS, None)
    session.info.pop(_WERE_FINISHED, None)
    session.info.pop(_NOW_FINISHED, None)
    figures.forget_due(session)


def stale_games(games: sa.Select | sa.ScalarSelect) -> sa.Select[tuple[int]]:
    """The ids among ``games`` (a select of game ids) whose results are missing or stale
    (stored before their bidding figures were: no ``bidding``)."""
    current = sa.exists().where(
        SeatResult.game_id == Game.id,
        SeatResult.seat == 0,
        SeatResult.version == Game.version,
        SeatResult.bidding.is_not(None),
    )
    return sa.select(Game.id).where(Game.id.in_(games), ~current).order_by(Game.id)


def refresh(
    games: sa.Select | sa.ScalarSelect | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Store the missing or stale results of ``games`` (a select of game ids; every game by
    default) in batches, each in a transaction of its own, then the all-time figures of their
    players and of any player without them, and return how many games were stored;
    ``progress`` is told each batch's size. For ``flask refresh`` and ``flask serve`` (a
    database written before results were stored with the facts): pages never call it. A
    game changed meanwhile has its results stored by its own write."""
    games = sa.select(Game.id) if games is None else games
    players: set[int] = set()
    with Session(db.engine) as session:
        ids = list(session.scalars(stale_games(games)))
        session.rollback()
        for batch in _batches(ids):
            with sqlite_write_lock():
                # Only those still stale once the write lock (SQLite) or a snapshot is held.
                try:
                    still = session.scalars(
                        stale_games(sa.select(Game.id).where(Game.id.in_(batch)))
                    )
                    store(session, list(still))
                    # The players' figures once at the end, not after every batch.
                    players |= figures.take_due(session)
                    session.commit()
                except (sa.exc.IntegrityError, sa.exc.OperationalError):
                    # A game of the batch was written at the same moment (PostgreSQL): its
                    # write stored its results; the next refresh finds any still stale.
                    session.rollback()
            if progress is not None:
                progress(len(batch))
        with sqlite_write_lock():
            try:
                figures.store(session, players | set(figures.missing(session)))
                if players:
                    raise_finished_version(session)
                session.commit()
            except (sa.exc.IntegrityError, sa.exc.OperationalError):
                # Figures stored by a write at the same moment (PostgreSQL): the next refresh
                # stores any still missing.
                session.rollback()
    return len(ids)


def _batches(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), BATCH):
        yield ids[start : start + BATCH]


def current(session: Session) -> bool:
    """Whether every game has its results at its version (no missing or stale rows): what
    tests/test_results.py checks after every kind of write."""
    return (
        session.scalar(
            sa.select(sa.func.count()).select_from(stale_games(sa.select(Game.id)).subquery())
        )
        == 0
    )


@dataclass(frozen=True)
class Outcome:
    """What a list of games shows of a game's score sheet, read from its seat results (the
    same names as :class:`~scorekeeper.rules.ScoreSheet`'s, for the winner line)."""

    totals: tuple[int, ...]
    bid_sums: tuple[int, ...]
    bids_met: tuple[int, ...]
    leaders: tuple[int, ...]
    winners: tuple[int, ...]
    highlighted: tuple[int, ...]
    scored_rounds: int


# The columns of a seat result that :func:`outcome` reads.
OUTCOME_FIELDS = (
    "game_id",
    "seat",
    "total",
    "bid_sum",
    "hits",
    "leader",
    "winner",
    "highlighted",
    "scored_rounds",
)


def outcome(rows: Sequence[Any]) -> Outcome:
    """A game's outcome from its seat results (all of its seats, in any order): rows with
    at least the :data:`OUTCOME_FIELDS`."""
    rows = sorted(rows, key=lambda row: row.seat)
    return Outcome(
        totals=tuple(row.total for row in rows),
        bid_sums=tuple(row.bid_sum for row in rows),
        bids_met=tuple(row.hits for row in rows),
        leaders=tuple(row.seat for row in rows if row.leader),
        winners=tuple(row.seat for row in rows if row.winner),
        highlighted=tuple(row.seat for row in rows if row.highlighted),
        scored_rounds=rows[0].scored_rounds if rows else 0,
    )
