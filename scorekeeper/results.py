"""Each game's result by seat, stored so that the games list and the statistics need not
score every game on every request.

A :class:`~scorekeeper.models.SeatResult` is derived entirely from the game's rounds (through
:mod:`scorekeeper.records` and the rules module's score sheet) and records the game version
it was computed at. Every write to a game raises its version, which makes the rows stale;
:func:`refresh` computes again, in a session of its own, the results of the games asked for
that have none or stale ones. No write path has to remember to update them, a restored game
gets them the first time a page needs them, and two pages refreshing the same game at once
cannot store a wrong result: the rows carry the version they were computed from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, selectinload

from .extensions import db
from .models import Game, GameStatus, HandResult, Round, SeatResult, sqlite_write_lock
from .records import sheet_of
from .reports.stats import seat_figures

# Games scored and written per transaction when many are stale at once (after an upgrade or
# a restore): bounded memory, and the write lock is never held for long.
BATCH = 200


def seat_results(game: Game) -> list[SeatResult]:
    """The results of every seat of ``game`` as it stands (rounds and entries loaded)."""
    sheet = sheet_of(game)
    highlighted = set(sheet.highlighted(game.status == GameStatus.IN_PROGRESS))
    rows = []
    for seat in game.seats:
        figures = seat_figures(sheet, seat.position)
        rows.append(
            SeatResult(
                game_id=game.id,
                seat=seat.position,
                player_id=seat.player_id,
                version=game.version,
                scored_rounds=len(sheet.rows),
                finished=sheet.finished,
                total=sheet.totals[seat.position],
                bid_sum=sheet.bid_sums[seat.position],
                leader=seat.position in sheet.leaders,
                highlighted=seat.position in highlighted,
                winner=seat.position in sheet.winners,
                bids=figures.bids,
                hits=figures.hits,
                zero_bids=figures.zero_bids,
                zero_hits=figures.zero_hits,
                over_rounds=figures.over.rounds,
                over_tricks=figures.over.tricks,
                under_rounds=figures.under.rounds,
                under_tricks=figures.under.tricks,
                missed=figures.missed,
                streak_first=figures.streak_first,
                streak_last=figures.streak_last,
                streak_best=figures.streak_best,
                hand_sizes=[
                    HandResult(player_id=seat.player_id, hand_size=size, hits=hits, bids=bids)
                    for size, (hits, bids) in figures.by_hand_size.items()
                ],
            )
        )
    return rows


def stale_games(games: sa.Select | sa.ScalarSelect) -> sa.Select[tuple[int]]:
    """The ids among ``games`` (a select of game ids) whose results are missing or stale."""
    current = sa.exists().where(
        SeatResult.game_id == Game.id,
        SeatResult.seat == 0,
        SeatResult.version == Game.version,
    )
    return sa.select(Game.id).where(Game.id.in_(games), ~current).order_by(Game.id)


def refresh(games: sa.Select | sa.ScalarSelect) -> int:
    """Store fresh results for those of ``games`` (a select of game ids) that need them, and
    return how many games were computed. Runs in a session of its own, so the caller's
    session is untouched (end its snapshot to see the new rows). A concurrent refresh of the
    same game wins or loses cleanly: the loser's rows are dropped, not an error."""
    with Session(db.engine) as session:
        ids = list(session.scalars(stale_games(games)))
        session.rollback()
        for batch in _batches(ids):
            _store(session, batch)
    return len(ids)


def _batches(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), BATCH):
        yield ids[start : start + BATCH]


def _store(session: Session, ids: Iterable[int]) -> None:
    # SQLite: hold the write lock from the first read, so the games read are the ones the
    # results are stored for (PostgreSQL's snapshot does the same; versions guard the rest).
    with sqlite_write_lock():
        try:
            games = session.scalars(
                sa.select(Game)
                .where(Game.id.in_(list(ids)))
                .options(
                    selectinload(Game.seats),
                    selectinload(Game.rounds).selectinload(Round.entries),
                )
            ).all()
            session.execute(sa.delete(SeatResult).where(SeatResult.game_id.in_(list(ids))))
            session.add_all(row for game in games for row in seat_results(game))
            session.commit()
        except (sa.exc.IntegrityError, sa.exc.OperationalError):
            # Another page stored them first (or holds the lock too long): they will be
            # computed again by the next page that finds them stale.
            session.rollback()


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
