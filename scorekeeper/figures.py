"""Each player's all-time figures, stored with the results they add up, so that a player's
page reads one row instead of adding up every game they played.

:func:`player_stats` and :func:`bidding_seats` add up a player's stored seat results in SQL
(:func:`reports.stats.player_stats` is the definition they follow; tests/test_stats.py checks
that both agree). A page asking for a period runs them; the all-time figures are kept in a
:class:`~scorekeeper.models.PlayerFigures` row per player, written in the same transaction as
every change to the results they add up: :func:`results.store` names the players of each
game that is, or was, finished (a game in progress counts in no figure) with :func:`due`,
and just before the transaction commits :func:`store` computes their figures again from
the seat results as they stand in it. Writes past the ORM that move seats from one player to
another (a merge, its undo) name both players. So a page never computes them, and a
committed row is always what the committed results add up to.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, aliased

from .models import (
    Game,
    GameStatus,
    HandResult,
    Player,
    PlayerFigures,
    SeatResult,
)
from .reports import bidding, stats

_DUE = "scorekeeper_figures_due"
_ADDED = "scorekeeper_figures_added"


# --- adding up the seat results -------------------------------------------------------------


def player_stats(session: Session, player_id: int, conditions: Sequence[Any]) -> stats.PlayerStats:
    """Every figure of a player's page over their finished games matching ``conditions``,
    added up by the database from the stored seat results: a fixed number of queries."""
    mine = (
        sa.select(SeatResult, Game.created_at)
        .join(Game, Game.id == SeatResult.game_id)
        .where(
            SeatResult.player_id == player_id,
            Game.status == GameStatus.FINISHED,
            *conditions,
        )
        .subquery()
    )
    sums = session.execute(
        sa.select(
            sa.func.count(),
            *(
                sa.func.coalesce(sa.func.sum(column), 0)
                for column in (
                    _count(mine.c.winner),
                    mine.c.total,
                    mine.c.bids,
                    mine.c.hits,
                    mine.c.zero_bids,
                    mine.c.zero_hits,
                    mine.c.over_rounds,
                    mine.c.over_tricks,
                    mine.c.under_rounds,
                    mine.c.under_tricks,
                )
            ),
        )
    ).one()
    games, wins, points, bids, hits, zero_bids, zero_hits, *misses = (int(v) for v in sums)
    by_size = session.execute(
        sa.select(HandResult.hand_size, sa.func.sum(HandResult.hits), sa.func.sum(HandResult.bids))
        .join(
            mine,
            sa.and_(HandResult.game_id == mine.c.game_id, HandResult.seat == mine.c.seat),
        )
        .group_by(HandResult.hand_size)
        .order_by(HandResult.hand_size)
    ).all()
    return stats.PlayerStats(
        games=games,
        wins=wins,
        win_rate=stats.Rate(wins, games),
        average_score=points / games if games else None,
        best=_extreme_game(session, mine, highest=True),
        worst=_extreme_game(session, mine, highest=False),
        bids=stats.Rate(hits, bids),
        by_hand_size=tuple(
            (size, stats.Rate(int(hits), int(tried))) for size, hits, tried in by_size
        ),
        over=stats.Misses(misses[0], misses[1]),
        under=stats.Misses(misses[2], misses[3]),
        zero_bids=stats.Rate(zero_hits, zero_bids),
        longest_streak=_longest_streak(session, mine),
        head_to_head=_head_to_head(session, mine),
    )


def _count(condition: Any) -> Any:
    """1 where ``condition`` holds, else 0 (a boolean column summed on any database)."""
    return sa.case((condition, 1), else_=0)


def _extreme_game(session: Session, mine: sa.Subquery, *, highest: bool) -> stats.GameTotal | None:
    """The game with the highest (or lowest) final total; the earliest one on a tie."""
    total = mine.c.total.desc() if highest else mine.c.total.asc()
    found = session.execute(
        sa.select(mine.c.game_id, mine.c.created_at, mine.c.total)
        .order_by(total, mine.c.created_at, mine.c.game_id)
        .limit(1)
    ).first()
    return stats.GameTotal(*found) if found else None


def _longest_streak(session: Session, mine: sa.Subquery) -> int:
    """The most bids met in a row across games in the order played, from each game's runs.

    A run crosses games only through games without a miss. Numbering the games by how many
    games with a miss came up to them puts each game with a miss at the head of a group
    followed by the clean games after it; a run then is the group's last run of its head
    game, plus every clean game's bids met, plus the first run of the next group's head.
    """
    order = (mine.c.created_at, mine.c.game_id)
    numbered = sa.select(
        mine.c.missed,
        mine.c.hits,
        mine.c.streak_first,
        mine.c.streak_last,
        mine.c.streak_best,
        sa.func.sum(_count(mine.c.missed)).over(order_by=order, rows=(None, 0)).label("grp"),
    ).subquery()
    groups = (
        sa.select(
            numbered.c.grp,
            sa.func.max(numbered.c.streak_best).label("best"),
            sa.func.coalesce(
                sa.func.max(sa.case((numbered.c.missed, numbered.c.streak_last))), 0
            ).label("tail"),
            sa.func.max(sa.case((numbered.c.missed, numbered.c.streak_first))).label("head"),
            sa.func.sum(sa.case((numbered.c.missed, 0), else_=numbered.c.hits)).label("clean"),
        )
        .group_by(numbered.c.grp)
        .subquery()
    )
    runs = sa.select(
        groups.c.best,
        (
            groups.c.tail
            + groups.c.clean
            + sa.func.coalesce(sa.func.lead(groups.c.head).over(order_by=groups.c.grp), 0)
        ).label("run"),
    ).subquery()
    found = session.execute(sa.select(sa.func.max(runs.c.best), sa.func.max(runs.c.run))).one()
    return max((int(value) for value in found if value is not None), default=0)


def _head_to_head(session: Session, mine: sa.Subquery) -> tuple[stats.HeadToHead, ...]:
    """For each other player: games together, and who finished with the higher total."""
    other = aliased(SeatResult)
    rows = session.execute(
        sa.select(
            other.player_id,
            Player.name,
            sa.func.count(),
            sa.func.sum(_count(mine.c.total > other.total)),
            sa.func.sum(_count(mine.c.total < other.total)),
            sa.func.sum(_count(mine.c.total == other.total)),
        )
        .select_from(mine)
        .join(other, sa.and_(other.game_id == mine.c.game_id, other.seat != mine.c.seat))
        .join(Player, Player.id == other.player_id)
        .group_by(other.player_id, Player.name)
    ).all()
    lines = [stats.HeadToHead(pid, name, *(int(n) for n in counts)) for pid, name, *counts in rows]
    return _by_games(lines)


def _by_games(lines: Iterable[stats.HeadToHead]) -> tuple[stats.HeadToHead, ...]:
    return tuple(sorted(lines, key=lambda h: (-h.games, h.name.casefold(), h.player_id)))


def bidding_seats(
    session: Session, player_id: int, conditions: Sequence[Any]
) -> list[bidding.SeatBidding | None]:
    """What each of the player's finished seats matching ``conditions`` adds to the bidding
    figures, as stored with the results (one query; no game is scored here)."""
    return list(
        session.scalars(
            sa.select(SeatResult.bidding)
            .join(Game, Game.id == SeatResult.game_id)
            .where(
                SeatResult.player_id == player_id,
                Game.status == GameStatus.FINISHED,
                *conditions,
            )
        )
    )


# --- the stored all-time figures --------------------------------------------------------------


def due(session: Session, player_ids: Iterable[int]) -> None:
    """These players' all-time figures are computed again when ``session`` commits."""
    session.info.setdefault(_DUE, set()).update(player_ids)


def added(session: Session, game_id: int, player_ids: Iterable[int]) -> None:
    """This game was finished in ``session``'s transaction: when it commits, each of these
    players' stored figures take it in (a few small queries), or are computed again when it
    is not their latest game in the order played."""
    games: dict[int, set[int]] = session.info.setdefault(_ADDED, {})
    for player_id in player_ids:
        games.setdefault(player_id, set()).add(game_id)


def pending(session: Session) -> bool:
    """Whether some player's figures are to be stored when ``session`` commits."""
    return bool(session.info.get(_DUE) or session.info.get(_ADDED))


def take_due(session: Session) -> set[int]:
    """Every player whose figures are due (no longer due: the caller computes them again)."""
    return session.info.pop(_DUE, set()) | set(session.info.pop(_ADDED, {}))


def forget_due(session: Session) -> None:
    """The transaction was rolled back: nothing is due any more."""
    session.info.pop(_DUE, None)
    session.info.pop(_ADDED, None)


def store_pending(session: Session) -> None:
    """Store the figures due in ``session``'s transaction: newly finished games added to
    what is stored where they come last, every other player's computed again."""
    due = session.info.pop(_DUE, set())
    games = {p: ids for p, ids in session.info.pop(_ADDED, {}).items() if p not in due}
    store(session, due | _add_games(session, games))


def _add_games(session: Session, games: dict[int, set[int]]) -> set[int]:
    """Add each player's newly finished games to their stored figures, in a fixed number of
    queries; returns the players for whom that cannot be done (no figures yet, or a game
    played before their last one: the streak follows the order played)."""
    if not games:
        return set()
    session.flush()
    stored = {
        row.player_id: row
        for row in session.scalars(
            sa.select(PlayerFigures).where(PlayerFigures.player_id.in_(sorted(games)))
        )
    }
    game_ids = sorted(set().union(*games.values()))
    seats: dict[int, list[Any]] = {}
    for row in session.execute(
        sa.select(SeatResult, Game.created_at)
        .join(Game, Game.id == SeatResult.game_id)
        .where(SeatResult.game_id.in_(game_ids))
    ):
        seats.setdefault(row.SeatResult.game_id, []).append(row)
    hands: dict[tuple[int, int], list[Any]] = {}
    for hand in session.execute(
        sa.select(HandResult.game_id, HandResult.seat, HandResult.hand_size, HandResult.hits)
        .add_columns(HandResult.bids)
        .where(HandResult.game_id.in_(game_ids))
    ):
        hands.setdefault((hand.game_id, hand.seat), []).append(hand)
    again = set()
    for player_id, ids in games.items():
        figures = stored.get(player_id)
        mine = sorted(
            (
                (row.created_at, row.SeatResult.game_id, row.SeatResult, seats[game_id])
                for game_id in ids
                for row in seats.get(game_id, ())
                if row.SeatResult.player_id == player_id
            ),
            key=lambda game: game[:2],
        )
        last = (_aware(figures.last_game_at), figures.last_game_id) if figures else None
        if last is None or len(mine) != len(ids) or (_aware(mine[0][0]), mine[0][1]) <= last:
            again.add(player_id)
            continue
        for created_at, game_id, seat, table in mine:
            _add_game(figures, created_at, seat, table, hands.get((game_id, seat.seat), []))
    return again


def _aware(moment: datetime) -> datetime:
    """SQLite gives naive UTC times back; PostgreSQL aware ones."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _add_game(
    figures: PlayerFigures,
    created_at: datetime,
    seat: SeatResult,
    table: Sequence[Any],
    hands: Sequence[Any],
) -> None:
    """Take one finished game, played after every game in ``figures``, into them: what
    :func:`player_stats` would add up with it."""
    figures.games += 1
    figures.wins += int(seat.winner)
    figures.points += seat.total
    figures.bids += seat.bids
    figures.hits += seat.hits
    figures.zero_bids += seat.zero_bids
    figures.zero_hits += seat.zero_hits
    figures.over_rounds += seat.over_rounds
    figures.over_tricks += seat.over_tricks
    figures.under_rounds += seat.under_rounds
    figures.under_tricks += seat.under_tricks
    this_game = [seat.game_id, created_at.isoformat(), seat.total]
    if seat.total > figures.best[2]:  # on a tie the earlier game stays
        figures.best = this_game
    if seat.total < figures.worst[2]:
        figures.worst = this_game
    if seat.missed:
        figures.longest_streak = max(
            figures.longest_streak, figures.open_run + seat.streak_first, seat.streak_best
        )
        figures.open_run = seat.streak_last
    else:
        figures.open_run += seat.hits
        figures.longest_streak = max(figures.longest_streak, figures.open_run)
    sizes = {size: [hits, tries] for size, hits, tries in figures.by_hand_size}
    for hand in hands:
        line = sizes.setdefault(hand.hand_size, [0, 0])
        line[0] += hand.hits
        line[1] += hand.bids
    figures.by_hand_size = [[size, *sizes[size]] for size in sorted(sizes)]
    lines = {line[0]: list(line) for line in figures.head_to_head}
    for other in table:
        theirs = other.SeatResult
        if theirs.seat == seat.seat:
            continue
        line = lines.setdefault(theirs.player_id, [theirs.player_id, 0, 0, 0, 0])
        line[1] += 1
        line[2 if seat.total > theirs.total else 3 if seat.total < theirs.total else 4] += 1
    figures.head_to_head = list(lines.values())
    figures.bidding = bidding.summed([figures.bidding, seat.bidding])
    figures.last_game_at, figures.last_game_id = created_at, seat.game_id


def store(session: Session, player_ids: Iterable[int]) -> int:
    """Compute these players' all-time figures from their seat results as they stand in
    ``session``'s transaction and store them, replacing the rows there were (a player with
    no finished game, or no longer on the roster, keeps none). Returns how many were stored."""
    ids = sorted(set(player_ids))
    if not ids:
        return 0
    session.flush()
    session.execute(sa.delete(PlayerFigures).where(PlayerFigures.player_id.in_(ids)))
    present = set(session.scalars(sa.select(Player.id).where(Player.id.in_(ids))))
    rows = []
    for player_id in ids:
        if player_id not in present:
            continue
        figures = player_stats(session, player_id, [])
        if not figures.games:
            continue
        rows.append(
            {
                "player_id": player_id,
                "games": figures.games,
                "wins": figures.wins,
                # The mean's numerator: the figures keep whole numbers only.
                "points": round((figures.average_score or 0) * figures.games),
                "bids": figures.bids.tries,
                "hits": figures.bids.hits,
                "zero_bids": figures.zero_bids.tries,
                "zero_hits": figures.zero_bids.hits,
                "over_rounds": figures.over.rounds,
                "over_tricks": figures.over.tricks,
                "under_rounds": figures.under.rounds,
                "under_tricks": figures.under.tricks,
                "longest_streak": figures.longest_streak,
                "best": _game_total(figures.best),
                "worst": _game_total(figures.worst),
                "by_hand_size": [
                    [size, rate.hits, rate.tries] for size, rate in figures.by_hand_size
                ],
                "head_to_head": [
                    [line.player_id, line.games, line.ahead, line.behind, line.level]
                    for line in figures.head_to_head
                ],
                "bidding": bidding.summed(bidding_seats(session, player_id, [])),
                **_last_game(session, player_id),
            }
        )
    if rows:
        session.execute(sa.insert(PlayerFigures), rows)
    return len(rows)


def _last_game(session: Session, player_id: int) -> dict[str, Any]:
    """The player's last finished game in the order played, and the bids met in a row since
    their last miss (across the clean games after it)."""
    mine = (
        sa.select(SeatResult, Game.created_at)
        .join(Game, Game.id == SeatResult.game_id)
        .where(SeatResult.player_id == player_id, Game.status == GameStatus.FINISHED)
        .subquery()
    )
    newest = (mine.c.created_at.desc(), mine.c.game_id.desc())
    last = session.execute(
        sa.select(mine.c.created_at, mine.c.game_id).order_by(*newest).limit(1)
    ).one()
    miss = session.execute(
        sa.select(mine.c.created_at, mine.c.game_id, mine.c.streak_last)
        .where(mine.c.missed)
        .order_by(*newest)
        .limit(1)
    ).first()
    after = (
        sa.or_(
            mine.c.created_at > miss.created_at,
            sa.and_(mine.c.created_at == miss.created_at, mine.c.game_id > miss.game_id),
        )
        if miss is not None
        else sa.true()
    )
    clean = session.scalar(sa.select(sa.func.coalesce(sa.func.sum(mine.c.hits), 0)).where(after))
    return {
        "last_game_at": last.created_at,
        "last_game_id": last.game_id,
        "open_run": int(clean) + (miss.streak_last if miss is not None else 0),
    }


def _game_total(game: stats.GameTotal | None) -> list[Any]:
    assert game is not None  # a player with a finished game has a best and a worst one
    return [game.game_id, game.created_at.isoformat(), game.final_total]


def _stored_game(stored: list[Any]) -> stats.GameTotal:
    game_id, created_at, total = stored
    return stats.GameTotal(game_id, datetime.fromisoformat(created_at), total)


def missing(session: Session) -> list[int]:
    """The players with a finished game but no stored figures (a database written before
    they were stored): ``flask refresh`` and ``flask serve`` store them."""
    finished = (
        sa.select(SeatResult.player_id)
        .join(Game, Game.id == SeatResult.game_id)
        .where(Game.status == GameStatus.FINISHED)
        .distinct()
    )
    stored = sa.select(PlayerFigures.player_id)
    return list(
        session.scalars(
            sa.select(Player.id)
            .where(Player.id.in_(finished), Player.id.not_in(stored))
            .order_by(Player.id)
        )
    )


# A player's page's reads, built once (no statement and cache key built per request: half
# of a small query's cost, profiled).
_STORED = sa.select(PlayerFigures).where(PlayerFigures.player_id == sa.bindparam("player_id"))
_NAMES = sa.select(Player.id, Player.name).where(
    Player.id.in_(sa.bindparam("ids", expanding=True))
)


def read(
    session: Session, player_id: int
) -> tuple[stats.PlayerStats, bidding.BiddingStats] | None:
    """The player's stored all-time figures and bidding figures (two small queries), or
    ``None`` when the player has no finished game."""
    row = session.scalar(_STORED, {"player_id": player_id})
    if row is None:
        return None
    others = [line[0] for line in row.head_to_head]
    names = dict(session.execute(_NAMES, {"ids": others}).all())
    figures = stats.PlayerStats(
        games=row.games,
        wins=row.wins,
        win_rate=stats.Rate(row.wins, row.games),
        average_score=row.points / row.games,
        best=_stored_game(row.best),
        worst=_stored_game(row.worst),
        bids=stats.Rate(row.hits, row.bids),
        by_hand_size=tuple(
            (size, stats.Rate(hits, tries)) for size, hits, tries in row.by_hand_size
        ),
        over=stats.Misses(row.over_rounds, row.over_tricks),
        under=stats.Misses(row.under_rounds, row.under_tricks),
        zero_bids=stats.Rate(row.zero_hits, row.zero_bids),
        longest_streak=row.longest_streak,
        head_to_head=_by_games(
            stats.HeadToHead(other, names[other], *counts)
            for other, *counts in row.head_to_head
            if other in names
        ),
    )
    return figures, bidding.add_up([row.bidding])
