"""Every read of the database that pages need: select builders, filters and loaders.

Views call these and never build SQL themselves, so each page's queries are in one place
and their number stays fixed however many games, rounds or players there are.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

import sqlalchemy as sa
from flask_babel import gettext as _
from flask_sqlalchemy.pagination import Pagination
from sqlalchemy.orm import selectinload

from . import rules
from .extensions import db
from .models import Entry, Game, GameStatus, Player, Round, RoundState, Seat
from .records import record_from
from .reports.stats import PlayedGame

GAMES_PER_PAGE = 20


def ping() -> None:
    """One trivial query: raises when the database cannot be reached."""
    db.session.execute(sa.text("SELECT 1"))


# --- games ---------------------------------------------------------------------------------


def game_query(*, with_changes: bool = False) -> sa.Select[tuple[Game]]:
    """Games with their seats, players, rounds and entries (and history) in fixed queries."""
    query = sa.select(Game).options(
        selectinload(Game.seats).selectinload(Seat.player),
        selectinload(Game.rounds).selectinload(Round.entries),
    )
    return query.options(selectinload(Game.changes)) if with_changes else query


def load_game(game_id: int, *, with_changes: bool = False) -> Game:
    """The game with this id, fully loaded; a 404 page when there is none."""
    return db.first_or_404(
        game_query(with_changes=with_changes).where(Game.id == game_id),
        description=_("There is no game %(number)s.", number=game_id),
    )


def reload_game(game_id: int) -> Game:
    """The game as the database holds it now, after a write elsewhere (or a refused one)."""
    db.session.expire_all()
    return load_game(game_id)


def load_player(player_id: int) -> Player:
    """The player with this id; a 404 page when there is none."""
    return db.get_or_404(Player, player_id)


def live_version(token: str) -> sa.Row[tuple[int, int]] | None:
    """The id and version of the game behind a live link (one small query for a poll)."""
    return db.session.execute(
        sa.select(Game.id, Game.version).where(Game.live_token == token)
    ).first()


def games_in_progress(limit: int) -> Sequence[Game]:
    """The most recently played unfinished games, with their players."""
    return db.session.scalars(
        sa.select(Game)
        .where(Game.status == GameStatus.IN_PROGRESS)
        .options(selectinload(Game.seats).selectinload(Seat.player))
        .order_by(Game.updated_at.desc())
        .limit(limit)
    ).all()


def all_games() -> Sequence[Game]:
    """Every game with its history, oldest first (for a backup)."""
    return db.session.scalars(
        game_query(with_changes=True).order_by(Game.created_at, Game.uid)
    ).all()


# --- the games list and its filters --------------------------------------------------------


def day_start(day: date, zone: tzinfo = UTC) -> datetime:
    """The first moment of a day in the viewer's time zone, as a UTC time (stored times are
    UTC)."""
    return datetime.combine(day, time.min, tzinfo=zone).astimezone(UTC)


def period_conditions(
    date_from: date | None, date_to: date | None, zone: tzinfo = UTC
) -> list[Any]:
    """Games started within the days given (the viewer's days), both ends included."""
    conditions = []
    if date_from:
        conditions.append(Game.created_at >= day_start(date_from, zone))
    if date_to:
        conditions.append(Game.created_at < day_start(date_to + timedelta(days=1), zone))
    return conditions


@dataclass(frozen=True)
class GameFilter:
    """What the games list is narrowed to; every part is optional."""

    player_id: int | None = None
    status: str | None = None
    plan: str | None = None
    bid_rule: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    zone: tzinfo = UTC

    def conditions(self) -> list[Any]:
        """The filter as WHERE conditions on games."""
        conditions = period_conditions(self.date_from, self.date_to, self.zone)
        if self.player_id is not None:
            conditions.append(Game.seats.any(Seat.player_id == self.player_id))
        if self.status:
            conditions.append(Game.status == self.status)
        # The rules are stored as JSON; both SQLite and PostgreSQL can compare a path in it.
        if self.plan:
            conditions.append(Game.rules[("plan", "kind")].as_string() == self.plan)
        if self.bid_rule:
            conditions.append(Game.rules["bid_rule"].as_string() == self.bid_rule)
        return conditions


def games_page(game_filter: GameFilter, page: int) -> Pagination:
    """One page of the games list, newest first; ``.total`` counts every match."""
    query = (
        game_query()
        .where(*game_filter.conditions())
        .order_by(Game.created_at.desc(), Game.id.desc())
    )
    return db.paginate(query, page=page, per_page=GAMES_PER_PAGE, error_out=False)


# --- players -------------------------------------------------------------------------------


def player_choices() -> list[tuple[int, str]]:
    """Every player's id and name, in name order (for a filter)."""
    rows = db.session.execute(sa.select(Player.id, Player.name).order_by(Player.name_key))
    return [(player_id, name) for player_id, name in rows]


def roster_by_games_played() -> list[Player]:
    """The roster, most frequent players first, so a regular table is a few taps away."""
    games_played = sa.func.count(Seat.id)
    query = (
        sa.select(Player)
        .outerjoin(Seat, Seat.player_id == Player.id)
        .group_by(Player.id)
        .order_by(games_played.desc(), Player.name_key)
    )
    return list(db.session.scalars(query))


def roster_with_finished_games() -> list[tuple[Player, int]]:
    """Every player with the number of finished games they played, in name order."""
    finished = (
        sa.select(Seat.player_id, sa.func.count(Seat.id).label("games"))
        .join(Game)
        .where(Game.status == GameStatus.FINISHED)
        .group_by(Seat.player_id)
        .subquery()
    )
    rows = db.session.execute(
        sa.select(Player, sa.func.coalesce(finished.c.games, 0))
        .outerjoin(finished, finished.c.player_id == Player.id)
        .order_by(Player.name_key)
    )
    return [(player, games) for player, games in rows]


def played_games(player_id: int, conditions: Sequence[Any]) -> list[PlayedGame]:
    """A player's finished games matching ``conditions``, as score sheets, in three queries.

    A regular player has hundreds of games; loading them as ORM objects cost most of the
    page's time, so plain rows are read and turned into the rules module's round records.
    """
    chosen = (
        sa.select(Game.id)
        .where(
            Game.status == GameStatus.FINISHED,
            Game.seats.any(Seat.player_id == player_id),
            *conditions,
        )
        .scalar_subquery()
    )
    games = db.session.execute(
        sa.select(Game.id, Game.created_at, Game.rules)
        .where(Game.id.in_(chosen))
        .order_by(Game.created_at, Game.id)
    ).all()
    seats = _seats_of(chosen)
    entries = _scored_entries_of(chosen)
    rules_cache: dict[str, rules.GameRules] = {}
    played = []
    for game_id, created_at, stored_rules in games:
        key = json.dumps(stored_rules, sort_keys=True)
        if key not in rules_cache:
            rules_cache[key] = rules.GameRules.from_dict(stored_rules)
        game_rules = rules_cache[key]
        ids = tuple(pid for pid, _name in seats[game_id])
        records = [
            record_from(*rows[0][:4], (row[4:] for row in rows), game_rules.players)
            for rows in entries[game_id].values()
        ]
        played.append(
            PlayedGame(
                game_id=game_id,
                created_at=created_at,
                seat=ids.index(player_id),
                player_ids=ids,
                names=tuple(name for _id, name in seats[game_id]),
                sheet=rules.score_sheet(game_rules, records),
            )
        )
    return played


def _seats_of(games: sa.ScalarSelect[int]) -> dict[int, list[tuple[int, str]]]:
    """(player id, name) by seat for each game."""
    seats: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for game_id, player_id, name in db.session.execute(
        sa.select(Seat.game_id, Seat.player_id, Player.name)
        .join(Player)
        .where(Seat.game_id.in_(games))
        .order_by(Seat.game_id, Seat.position)
    ):
        seats[game_id].append((player_id, name))
    return seats


def _scored_entries_of(games: sa.ScalarSelect[int]) -> dict[int, dict[int, list[tuple]]]:
    """Each game's scored rounds as rows (number, hand_size, dealer, bomb_played, seat, bid,
    cloud_bid, tricks), by game and round number."""
    entries: dict[int, dict[int, list[tuple]]] = defaultdict(dict)
    for game_id, *row in db.session.execute(
        sa.select(
            Round.game_id,
            Round.number,
            Round.hand_size,
            Round.dealer,
            Round.bomb_played,
            Entry.seat,
            Entry.bid,
            Entry.cloud_bid,
            Entry.tricks,
        )
        .join(Entry)
        .where(Round.game_id.in_(games), Round.state == RoundState.SCORED)
        .order_by(Round.game_id, Round.number, Entry.seat)
    ):
        entries[game_id].setdefault(row[0], []).append(tuple(row))
    return entries
