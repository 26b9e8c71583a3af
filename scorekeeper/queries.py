"""Every read of the database that pages need: select builders, filters and loaders.

Views call these and never build SQL themselves, so each page's queries are in one place
and their number stays fixed however many games, rounds or players there are.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any, NamedTuple

import sqlalchemy as sa
from flask import abort
from sqlalchemy.orm import selectinload

from . import figures, records, results, rules
from .extensions import db
from .i18n import gettext as _
from .models import (
    ON_PAPER,
    Change,
    ChangeAction,
    DataVersion,
    Entry,
    Event,
    EventPlayer,
    EventSeat,
    EventSession,
    EventTable,
    Game,
    GameStatus,
    Player,
    PlayerFigures,
    Round,
    Seat,
    SeatLink,
    SeatResult,
)
from .reports import bidding, stats

GAMES_PER_PAGE = 20


def ping() -> None:
    """One trivial query: raises when the database cannot be reached."""
    db.session.execute(sa.text("SELECT 1"))


# --- games ---------------------------------------------------------------------------------


# Two queries after the games' own: seats joined with their players, rounds joined with
# their entries (one round trip each instead of two; a table screen's load was half its cost,
# most of it the round trips). Built once: statements are immutable, and building the loader
# options was a twentieth of a round screen's time (pyinstrument).
_GAME_QUERY = sa.select(Game).options(
    selectinload(Game.seats).joinedload(Seat.player, innerjoin=True),
    selectinload(Game.rounds).joinedload(Round.entries),
)
_GAME_QUERY_WITH_CHANGES = _GAME_QUERY.options(selectinload(Game.changes))


def game_query(*, with_changes: bool = False) -> sa.Select[tuple[Game]]:
    """Games with their seats, players, rounds and entries (and history) in fixed queries."""
    return _GAME_QUERY_WITH_CHANGES if with_changes else _GAME_QUERY


def load_game(game_id: int, *, with_changes: bool = False) -> Game:
    """The game with this id, fully loaded; a 404 page when there is none."""
    return db.first_or_404(
        game_query(with_changes=with_changes).where(Game.id == game_id),
        description=_("There is no game %(number)s.", number=game_id),
    )


# --- a game read for a page that only shows it ----------------------------------------------
#
# The ORM's loading of one game (three queries, an object per seat, player, round and entry,
# each instrumented and put in the identity map) was a quarter to a third of a round
# screen's or a score sheet's time; the same rows read as Core rows cost a tenth of that
# (cProfile and timings on the bench club: 1.4 ms against 0.14 for a 4-player game at its
# first round, 2.5 ms against 0.3 for a finished 20-round game). Pages that only read take
# :func:`read_game`: plain objects with the models' attribute names, so the rules, records,
# wording and templates read them as they read a loaded game. Writes load the ORM's game.


class _Read:
    """One row read for a page: its columns as attributes. Nothing it holds is written back."""

    def __init__(self, mapping: Any) -> None:
        self.__dict__.update(mapping)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.__dict__.get('id')}>"


class PlayerRead(_Read):
    """A player as :class:`models.Player` has it (id, name, name_key, created_at)."""


class SeatRead(_Read):
    """A seat with its ``player``, as :class:`models.Seat` has them."""

    game: GameRead
    player: PlayerRead


class EntryRead(_Read):
    """One player's bid and tricks in a round, as :class:`models.Entry` has them."""

    round: RoundRead


class RoundRead(_Read):
    """A round with its ``entries`` by seat, as :class:`models.Round` has them."""

    game: GameRead
    entries: list[EntryRead]


class ChangeRead(_Read):
    """One change of the game's history, as :class:`models.Change` has it. Its ``before``
    and ``after`` are read as stored text and decoded on first use: a round screen asks for
    the whole history (what undo reverts) but opens a few records, and decoding all of
    them was a sixth of the screen at round 13 (cProfile)."""

    game: GameRead

    @property
    def before(self) -> dict[str, Any] | None:
        return self._decoded("before")

    @property
    def after(self) -> dict[str, Any] | None:
        return self._decoded("after")

    def _decoded(self, name: str) -> Any:
        kept = self.__dict__
        if name not in kept:
            text = kept.pop(f"{name}_text")
            kept[name] = None if text is None else json.loads(text)
        return kept[name]


class History(Sequence["ChangeRead"]):
    """A read game's changes, oldest first, read from the database as they are asked for.

    A round screen asks only for the newest few (what undo would revert, whether the latest
    change was an undo): walking it newest first (``reversed``, a negative index) reads a
    few rows at a time from the newest. Anything else (its length, a walk oldest first, a
    slice) reads the whole history once. At round 13 of the bench club reading all 74
    changes for the undo check was a tenth of the screen (cProfile), and it grows with
    every change of the game."""

    def __init__(self, game: GameRead) -> None:
        self._game = game
        self._all: list[ChangeRead] | None = None
        self._newest: list[ChangeRead] = []  # newest first, while not all are read
        self._older_left = True

    def _rows(self, statement: sa.Select, values: dict[str, Any]) -> list[ChangeRead]:
        rows = db.session.connection().execute(statement, {"game_id": self._game.id, **values})
        names = tuple(rows.keys())
        found = [ChangeRead(zip(names, row, strict=True)) for row in rows]
        for change in found:
            change.game = self._game
        return found

    def _everything(self) -> list[ChangeRead]:
        if self._all is None:
            self._all = self._rows(_CHANGES_READ, {})
        return self._all

    def _read_older(self) -> None:
        """The next few changes, newest first, older than those read so far."""
        below = self._newest[-1].version if self._newest else self._game.version + 1
        page = self._rows(_CHANGES_PAGE, {"below": below})
        self._newest.extend(page)
        self._older_left = len(page) == _HISTORY_PAGE

    def __reversed__(self) -> Iterator[ChangeRead]:
        if self._all is not None:
            yield from reversed(self._all)
            return
        at = 0
        while True:
            while at < len(self._newest):
                yield self._newest[at]
                at += 1
            if self._all is not None:  # read whole meanwhile: go on from there
                yield from reversed(self._all[: len(self._all) - at])
                return
            if not self._older_left:
                return
            self._read_older()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int) and index < 0 and self._all is None:
            for position, change in enumerate(reversed(self), start=1):
                if position == -index:
                    return change
            raise IndexError(index)
        return self._everything()[index]

    def __bool__(self) -> bool:
        return next(reversed(self), None) is not None

    def __iter__(self) -> Iterator[ChangeRead]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())


class GameRead(_Read):
    """A game with its seats, players, rounds and entries, read for a page that only shows
    it; its ``changes`` are read when asked for (:class:`History`)."""

    seats: list[SeatRead]
    link_tokens: dict[int, str]  # each seat's own phone's link, by position
    rounds: list[RoundRead]

    @property
    def changes(self) -> History:
        kept = self.__dict__.get("_changes")
        if kept is None:
            kept = self.__dict__["_changes"] = History(self)
        return kept


_PLAYERS = Player.__table__
_SEATS = Seat.__table__
_ROUNDS = Round.__table__
_ENTRIES = Entry.__table__
_CHANGES = Change.__table__
_LINKS = SeatLink.__table__
_GAME_ID = sa.bindparam("game_id")
_GAME_READ = sa.select(Game.__table__).where(Game.__table__.c.id == _GAME_ID)
# Each seat with its player and its own phone's link token, if any (one link per seat: the
# link's key is the seat), so a round screen needs no query of its own for the links.
_SEATS_READ = (
    sa.select(
        _SEATS,
        _PLAYERS.c.name.label("player_name"),
        _PLAYERS.c.name_key.label("player_name_key"),
        _PLAYERS.c.created_at.label("player_created_at"),
        _LINKS.c.token.label("link_token"),
    )
    .join(_PLAYERS, _PLAYERS.c.id == _SEATS.c.player_id)
    .outerjoin(_LINKS, _LINKS.c.seat_id == _SEATS.c.id)
    .where(_SEATS.c.game_id == _GAME_ID)
    .order_by(_SEATS.c.position)
)
# Rounds with their entries in one round trip (a round without entries yet: one row of
# NULL entry columns), in order.
_ENTRY_NAMES = tuple(column.name for column in _ENTRIES.columns)
_ROUNDS_READ = (
    sa.select(_ROUNDS, *(column.label(f"entry_{column.name}") for column in _ENTRIES.columns))
    .outerjoin(_ENTRIES, _ENTRIES.c.round_id == _ROUNDS.c.id)
    .where(_ROUNDS.c.game_id == _GAME_ID)
    .order_by(_ROUNDS.c.number, _ENTRIES.c.seat)
)
_CHANGES_READ = (
    sa.select(
        *(column for column in _CHANGES.columns if column.name not in ("before", "after")),
        sa.cast(_CHANGES.c.before, sa.Text).label("before_text"),
        sa.cast(_CHANGES.c.after, sa.Text).label("after_text"),
    )
    .where(_CHANGES.c.game_id == _GAME_ID)
    .order_by(_CHANGES.c.version)
)
_HISTORY_PAGE = 8  # changes read at a time, newest first
_CHANGES_PAGE = (
    _CHANGES_READ.where(_CHANGES.c.version < sa.bindparam("below"))
    .order_by(None)
    .order_by(_CHANGES.c.version.desc())
    .limit(_HISTORY_PAGE)
)


def _player_of(row: Any) -> PlayerRead:
    """The player of a row read with their name, key and creation time."""
    return PlayerRead(
        {
            "id": row.player_id,
            "name": row.player_name,
            "name_key": row.player_name_key,
            "created_at": row.player_created_at,
        }
    )


def _seat_of(row: Any, game: GameRead, player: PlayerRead) -> SeatRead:
    """A game's seat read with its player, linked back to its game."""
    columns = ("id", "game_id", "player_id", "position")
    seat = SeatRead({name: getattr(row, name) for name in columns})
    seat.game = game
    seat.player = player
    return seat


def read_game(game_id: int) -> GameRead:
    """The game with this id as a page shows it (three small queries, no ORM objects); a 404
    page when there is none. Read in the request's session, as :func:`load_game` reads."""
    connection = db.session.connection()
    found = connection.execute(_GAME_READ, {"game_id": game_id}).first()
    if found is None:
        abort(404, description=_("There is no game %(number)s.", number=game_id))
    game = GameRead(found._mapping)
    game.seats = []
    game.link_tokens = {}
    for row in connection.execute(_SEATS_READ, {"game_id": game_id}):
        game.seats.append(_seat_of(row, game, _player_of(row)))
        if row.link_token is not None:
            game.link_tokens[row.position] = row.link_token
    game.rounds = []
    found = connection.execute(_ROUNDS_READ, {"game_id": game_id})
    names = tuple(found.keys())
    round_width = len(names) - len(_ENTRY_NAMES)
    round_names = names[:round_width]
    id_at = round_names.index("id")
    round_: RoundRead | None = None
    round_id = None
    for row in found:
        if row[id_at] != round_id:
            round_id = row[id_at]
            round_ = RoundRead(zip(round_names, row, strict=False))
            round_.game = game
            round_.entries = []
            game.rounds.append(round_)
        if row[round_width] is not None:  # the entry's id
            entry = EntryRead(zip(_ENTRY_NAMES, row[round_width:], strict=True))
            entry.round = round_
            round_.entries.append(entry)  # type: ignore[union-attr]
    return game


# --- an event read for its board -------------------------------------------------------------
#
# The board of an event (a projector's page that 200 phones may poll) shows every table of the
# latest session and the standings of all its games. Loaded through the ORM (eleven queries, an
# instrumented object per session, table, seat, game and player) that was half of the board's
# time, 6.5 ms of 13 for 10 tables (cProfile). :func:`read_event` reads the same rows as Core
# rows into plain objects with the models' attribute names, in six queries whatever the
# event's size, so the events module's functions read them as they read a loaded event.


class EventRead(_Read):
    """An event with its ``players`` and ``sessions``, as :class:`models.Event` has them."""

    players: list[_Read]
    sessions: list[_Read]


class EventGameRead(GameRead):
    """An event table's game with its seats: what the board shows of it is the stored results
    of its seats (``events.outcomes_of``). Its rounds are read only when a result is missing
    or not of the game's version (a database written before results were stored)."""

    @property  # type: ignore[override]
    def rounds(self) -> list[RoundRead]:
        kept = self.__dict__.get("_rounds")
        if kept is None:
            kept = self.__dict__["_rounds"] = read_game(self.id).rounds
        return kept


_EVENT_ID = sa.bindparam("event_id")
_EVENTS = Event.__table__
_EVENT_SESSIONS = EventSession.__table__
_EVENT_TABLES = EventTable.__table__
_EVENT_READ = sa.select(_EVENTS).where(_EVENTS.c.id == _EVENT_ID)
_EVENT_PLAYERS_READ = (
    sa.select(
        EventPlayer.__table__,
        _PLAYERS.c.name.label("player_name"),
        _PLAYERS.c.name_key.label("player_name_key"),
        _PLAYERS.c.created_at.label("player_created_at"),
    )
    .join(_PLAYERS, _PLAYERS.c.id == EventPlayer.__table__.c.player_id)
    .where(EventPlayer.__table__.c.event_id == _EVENT_ID)
    .order_by(EventPlayer.__table__.c.position)
)
_EVENT_SESSIONS_READ = (
    sa.select(_EVENT_SESSIONS)
    .where(_EVENT_SESSIONS.c.event_id == _EVENT_ID)
    .order_by(_EVENT_SESSIONS.c.number)
)
# Each table with its game's columns (prefixed), in session and table order.
_EVENT_TABLES_READ = (
    sa.select(
        _EVENT_TABLES,
        *(column.label(f"game__{column.name}") for column in Game.__table__.columns),
    )
    .join(_EVENT_SESSIONS, _EVENT_SESSIONS.c.id == _EVENT_TABLES.c.session_id)
    .outerjoin(Game.__table__, Game.__table__.c.id == _EVENT_TABLES.c.game_id)
    .where(_EVENT_SESSIONS.c.event_id == _EVENT_ID)
    .order_by(_EVENT_SESSIONS.c.number, _EVENT_TABLES.c.number)
)
_EVENT_SEATS_READ = (
    sa.select(
        EventSeat.__table__,
        _PLAYERS.c.name.label("player_name"),
        _PLAYERS.c.name_key.label("player_name_key"),
        _PLAYERS.c.created_at.label("player_created_at"),
    )
    .join(_PLAYERS, _PLAYERS.c.id == EventSeat.__table__.c.player_id)
    .join(_EVENT_SESSIONS, _EVENT_SESSIONS.c.id == EventSeat.__table__.c.session_id)
    .where(_EVENT_SESSIONS.c.event_id == _EVENT_ID)
    .order_by(EventSeat.__table__.c.table_id, EventSeat.__table__.c.position)
)
_EVENT_GAME_SEATS_READ = (
    sa.select(
        _SEATS,
        _PLAYERS.c.name.label("player_name"),
        _PLAYERS.c.name_key.label("player_name_key"),
        _PLAYERS.c.created_at.label("player_created_at"),
    )
    .join(_PLAYERS, _PLAYERS.c.id == _SEATS.c.player_id)
    .join(_EVENT_TABLES, _EVENT_TABLES.c.game_id == _SEATS.c.game_id)
    .join(_EVENT_SESSIONS, _EVENT_SESSIONS.c.id == _EVENT_TABLES.c.session_id)
    .where(_EVENT_SESSIONS.c.event_id == _EVENT_ID)
    .order_by(_SEATS.c.game_id, _SEATS.c.position)
)


def read_event(event_id: int) -> EventRead:
    """The event with this id as its board shows it: its players, its sessions with their
    tables, each table's seats and game (with the game's seats), as plain objects (six small
    queries, no ORM objects); a 404 page when there is none."""
    connection = db.session.connection()
    found = connection.execute(_EVENT_READ, {"event_id": event_id}).first()
    if found is None:
        abort(404, description=_("There is no event %(number)s.", number=event_id))
    event = EventRead(found._mapping)
    arguments = {"event_id": event_id}
    event.players = []
    # Each player is one object, however many seats they have (as the ORM's identity map).
    people: dict[int, PlayerRead] = {}

    def person(row: Any) -> PlayerRead:
        found = people.get(row.player_id)
        if found is None:
            found = people[row.player_id] = _player_of(row)
        return found

    for row in connection.execute(_EVENT_PLAYERS_READ, arguments):
        entry = _Read(
            {
                "event_id": row.event_id,
                "player_id": row.player_id,
                "position": row.position,
                "active": row.active,
            }
        )
        entry.player = person(row)
        event.players.append(entry)
    event.sessions = []
    sessions = {}
    for row in connection.execute(_EVENT_SESSIONS_READ, arguments):
        session = sessions[row.id] = _Read(row._mapping)
        session.event = event
        session.tables = []
        event.sessions.append(session)
    tables = {}
    games: dict[int, EventGameRead] = {}
    rows = connection.execute(_EVENT_TABLES_READ, arguments)
    names = tuple(rows.keys())
    width = len(EventTable.__table__.columns)
    game_names = tuple(name.removeprefix("game__") for name in names[width:])
    for row in rows:
        table = tables[row.id] = _Read(zip(names[:width], row[:width], strict=True))
        session = sessions[table.session_id]
        table.session = session
        table.seats = []
        table.game = None
        if table.game_id is not None:
            game = games[table.game_id] = EventGameRead(zip(game_names, row[width:], strict=True))
            game.seats = []
            table.game = game
        session.tables.append(table)
    for row in connection.execute(_EVENT_SEATS_READ, arguments):
        seat = _Read(
            {
                "table_id": row.table_id,
                "position": row.position,
                "session_id": row.session_id,
                "player_id": row.player_id,
            }
        )
        seat.player = person(row)
        tables[row.table_id].seats.append(seat)
    for row in connection.execute(_EVENT_GAME_SEATS_READ, arguments):
        game = games[row.game_id]
        game.seats.append(_seat_of(row, game, person(row)))
    return event


# A Core read of the start's record on the session's connection: through the ORM it was a
# twentieth of a score sheet's time (cProfile).
_START = sa.select(_CHANGES.c.after).where(
    _CHANGES.c.game_id == _GAME_ID, _CHANGES.c.action == ChangeAction.CREATE_GAME
)


def entered_on_paper(game_id: int) -> bool:
    """Whether the game was played on paper and entered afterwards (its start says so)."""
    start = db.session.connection().execute(_START, {"game_id": game_id}).scalar()
    return isinstance(start, dict) and start.get(ON_PAPER) is True


def reload_game(game_id: int) -> Game:
    """The game as the database holds it now, after a write elsewhere (or a refused one)."""
    db.session.expire_all()
    return load_game(game_id)


def load_player(player_id: int) -> Player:
    """The player with this id; a 404 page when there is none."""
    return db.get_or_404(Player, player_id)


# Built once: a live view polls every few seconds on every phone, and building the statement
# cost a fifth of answering a poll with "not modified" (pyinstrument).
# A Core select on the table, run on the session's connection: no ORM machinery for the one
# query of a poll answered "not modified".
_GAMES = Game.__table__
# The games started last first (the index on the start time finds them).
_NEWEST_FIRST = (_GAMES.c.created_at.desc(), _GAMES.c.id.desc())
_LIVE_VERSION = sa.select(_GAMES.c.id, _GAMES.c.version).where(
    _GAMES.c.live_token == sa.bindparam("token")
)


_VERSIONS = DataVersion.__table__
# Read on every visit of a kept page: a Core select on the session's connection, as above
# (through the ORM it cost a fifth of answering a kept page; pyinstrument).
_DATA_VERSION = sa.select(_VERSIONS.c.counter).where(_VERSIONS.c.id == 1)


def data_version() -> int:
    """What pages showing many games are kept by: raised by every transaction that stores
    players or games (models.raise_data_version)."""
    # On the session's connection (its transaction), as a Core statement: a kept page's one
    # query, and through the ORM's execute it cost as much as the rest of the answer.
    return db.session.connection().execute(_DATA_VERSION).scalar() or 0


# What the app hands out as a live or seat link's token (hex, or secrets.token_urlsafe).
_LINK_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def live_version(token: str) -> sa.Row[tuple[int, int]] | None:
    """The id and version of the game behind a live link (one small query for a poll)."""
    if not _LINK_TOKEN.fullmatch(token):
        return None
    return db.session.connection().execute(_LIVE_VERSION, {"token": token}).first()


def live_version_outside(token: str) -> sa.Row[tuple[int, int]] | None:
    """:func:`live_version` in a short transaction of its own, not the page's session: a
    poll answered "not modified" then starts no session at all. What a page shows must be
    read in the session (a page kept by this version could show a later one)."""
    if not _LINK_TOKEN.fullmatch(token):
        return None
    with db.engine.connect() as connection:
        return connection.execute(_LIVE_VERSION, {"token": token}).first()


_GAME_VERSION = sa.select(_GAMES.c.version).where(_GAMES.c.id == sa.bindparam("game_id"))


def game_version(game_id: int) -> int | None:
    """A game's version, or None when there is no such game (one small query for a poll)."""
    return db.session.connection().execute(_GAME_VERSION, {"game_id": game_id}).scalar()


# --- each player's own phone ----------------------------------------------------------------

_SEAT_VERSION = (
    sa.select(_GAMES.c.id, _GAMES.c.version, _SEATS.c.position)
    .select_from(_LINKS.join(_SEATS, _SEATS.c.id == _LINKS.c.seat_id))
    .join(_GAMES, _GAMES.c.id == _SEATS.c.game_id)
    .where(_LINKS.c.token == sa.bindparam("token"))
)


def seat_version(token: str) -> sa.Row[tuple[int, int, int]] | None:
    """The game id, its version and the seat behind a seat link (one query for a poll); None
    for a token that is not (or no longer) a link."""
    if not _LINK_TOKEN.fullmatch(token):  # e.g. a NUL byte, which PostgreSQL cannot compare
        return None
    return db.session.connection().execute(_SEAT_VERSION, {"token": token}).first()


# A Core read on the session's connection: every round screen asks (the offline plan's tag
# says whether the players bid on their own phones), and through the ORM it was 7 % of the
# table step (cProfile).
_SEAT_LINKS = (
    sa.select(_SEATS.c.position, _LINKS.c.token)
    .join(_LINKS, _LINKS.c.seat_id == _SEATS.c.id)
    .where(_SEATS.c.game_id == _GAME_ID)
)


def seat_links(game: Game | GameRead) -> dict[int, str]:
    """The tokens of a game's seat links, by seat position (as :func:`read_game` read them
    with the seats, else read now)."""
    if (read := game.__dict__.get("link_tokens")) is not None:
        return dict(read)
    rows = db.session.connection().execute(_SEAT_LINKS, {"game_id": game.id})
    return {position: token for position, token in rows}


@dataclass(frozen=True)
class GameInProgress:
    """An unfinished game to go back to: its id and its players' names by seat."""

    id: int
    names: tuple[str, ...]


def games_in_progress(limit: int) -> list[GameInProgress]:
    """The most recently played unfinished games, with their players (two Core queries: the
    home page is every phone's first page, and loading whole games for two names each was
    a third of it; cProfile)."""
    connection = db.session.connection()
    ids = (
        connection.execute(
            sa.select(_GAMES.c.id)
            .where(_GAMES.c.status == GameStatus.IN_PROGRESS)
            .order_by(_GAMES.c.updated_at.desc())
            .limit(limit)
        )
        .scalars()
        .all()
    )
    names: dict[int, list[str]] = defaultdict(list)
    for game_id, name in connection.execute(
        sa.select(_SEATS.c.game_id, _PLAYERS.c.name)
        .join(_PLAYERS, _PLAYERS.c.id == _SEATS.c.player_id)
        .where(_SEATS.c.game_id.in_(ids))
        .order_by(_SEATS.c.game_id, _SEATS.c.position)
    ):
        names[game_id].append(name)
    return [GameInProgress(game_id, tuple(names[game_id])) for game_id in ids]


def all_games() -> Sequence[Game]:
    """Every game with its history, oldest first (for a backup)."""
    return db.session.scalars(
        game_query(with_changes=True).order_by(Game.created_at, Game.uid)
    ).all()


# --- the games list and its filters --------------------------------------------------------


def day_start(day: date, zone: tzinfo = UTC) -> datetime:
    """The first moment of a day in the viewer's time zone, as a UTC time (stored times are
    UTC). ``zone``: a zoneinfo zone (:func:`i18n.viewer_zone`), never a pytz one."""
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

    def conditions(self, *, counting: bool = False) -> list[Any]:
        """The filter as WHERE conditions on games; ``counting`` for a count of them all."""
        conditions = period_conditions(self.date_from, self.date_to, self.zone)
        if self.player_id is not None and counting:
            # Counted through the seats' index on the player: as an EXISTS per game the count
            # read every game of the club (7 ms of a 12 ms list at 20,000 games).
            mine = sa.select(Seat.game_id).where(Seat.player_id == self.player_id)
            conditions.append(Game.id.in_(mine))
        elif self.player_id is not None:
            # A page of them, newest first: the games' index on the start, each game's seats
            # looked at until the page is full (the player's games sorted instead was slower
            # for a regular, who sits at most games).
            conditions.append(Game.seats.any(Seat.player_id == self.player_id))
        if self.status:
            conditions.append(Game.status == self.status)
        # The rules are stored as JSON; both SQLite and PostgreSQL can compare a path in it.
        if self.plan:
            conditions.append(Game.rules[("plan", "kind")].as_string() == self.plan)
        if self.bid_rule:
            conditions.append(Game.rules["bid_rule"].as_string() == self.bid_rule)
        return conditions


@dataclass(frozen=True)
class GameListing:
    """One game of the games list: its row, names by seat, rules and outcome so far."""

    game: sa.Row[Any]  # id, created_at, status, rules_text
    names: tuple[str, ...]
    rules: rules.GameRules
    outcome: results.Outcome


@dataclass(frozen=True)
class GamesPage:
    """One page of the games list and the number of games that match in all."""

    listings: list[GameListing]
    total: int
    pages: int


def games_page(game_filter: GameFilter, page: int) -> GamesPage:
    """One page of the games list, newest first, with each game's outcome from its stored
    seat results (stored with the facts: nothing computed here): a fixed number of queries, no
    score sheet."""
    conditions = game_filter.conditions()
    connection = db.session.connection()
    counted = game_filter.conditions(counting=True)
    total = connection.execute(_GAME_COUNT.where(*counted)).scalar() or 0
    # Only the page's rows, newest first (the index on the start time finds them).
    games = connection.execute(
        _LISTED_GAMES.where(*conditions), {"skip": (page - 1) * GAMES_PER_PAGE}
    ).all()
    by_game: dict[int, list[sa.Row[Any]]] = defaultdict(list)
    for row in connection.execute(_LISTED_RESULTS, {"ids": [game.id for game in games]}):
        by_game[row.game_id].append(row)
    listings = [
        GameListing(
            game=game,
            names=tuple(row.name for row in by_game[game.id]),
            rules=records.stored_rules_text(game.rules_text),
            outcome=results.outcome(by_game[game.id]),
        )
        for game in games
    ]
    pages = max(1, -(-total // GAMES_PER_PAGE))
    return GamesPage(listings=listings, total=total, pages=pages)


# The games list's statements, built once as the reads above (building them at each visit,
# through the ORM's attributes, was a fifth of the list's queries; pyinstrument). A game's
# rules come as the stored JSON text: games played under the same rules have the same text,
# which is decoded and read once per process (records.stored_rules_text; decoding every row's
# rules, then writing each back out as a key, was a twelfth of the games list; cProfile).
_GAME_COUNT = sa.select(sa.func.count()).select_from(_GAMES)
_LISTED_GAMES = (
    sa.select(
        _GAMES.c.id,
        _GAMES.c.created_at,
        _GAMES.c.status,
        sa.cast(_GAMES.c.rules, sa.Text).label("rules_text"),
    )
    .order_by(*_NEWEST_FIRST)
    .limit(GAMES_PER_PAGE)
    .offset(sa.bindparam("skip"))
)
_SEAT_RESULTS = SeatResult.__table__
# Each listed game's seats in order, with the players' names.
_LISTED_RESULTS = (
    sa.select(*(_SEAT_RESULTS.c[name] for name in results.OUTCOME_FIELDS), _PLAYERS.c.name)
    .join(_PLAYERS, _PLAYERS.c.id == _SEAT_RESULTS.c.player_id)
    .where(_SEAT_RESULTS.c.game_id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(_SEAT_RESULTS.c.game_id, _SEAT_RESULTS.c.seat)
)


# --- players -------------------------------------------------------------------------------


_PLAYER_CHOICES = sa.select(_PLAYERS.c.id, _PLAYERS.c.name).order_by(_PLAYERS.c.name_key)


def player_choices() -> list[tuple[int, str]]:
    """Every player's id and name, in name order (for a filter)."""
    rows = db.session.connection().execute(_PLAYER_CHOICES)
    return [(player_id, name) for player_id, name in rows]


_LAST_RULES = sa.select(_GAMES.c.rules).order_by(*_NEWEST_FIRST).limit(1)


def last_started_rules() -> dict[str, Any] | None:
    """The rules of the game started last on this instance (a club plays the same way every
    week), as stored; None on an empty instance."""
    return db.session.connection().execute(_LAST_RULES).scalar()


# How far back setup's roster counts who plays: the club's regulars of now come first, and
# the count costs the same after ten games or twenty thousand (counting every seat ever taken
# grew with the history: 1.2 ms of SQLite at 2,000 games, a fifth of the setup page).
ROSTER_RECENT_GAMES = 100


class RosterName(NamedTuple):
    """A roster player as setup offers them: the name and its matching key."""

    name: str
    name_key: str


# Built once, as the game reads above: building the statement at each visit was two thirds
# of the roster's time (0.48 of 0.71 ms).
_RECENT_PLAYS = (
    sa.select(_SEATS.c.player_id, sa.func.count().label("games"))
    .where(
        _SEATS.c.game_id.in_(
            sa.select(_GAMES.c.id).order_by(*_NEWEST_FIRST).limit(sa.bindparam("recent"))
        )
    )
    .group_by(_SEATS.c.player_id)
    .subquery()
)
_ROSTER = (
    sa.select(_PLAYERS.c.name, _PLAYERS.c.name_key)
    .outerjoin(_RECENT_PLAYS, _RECENT_PLAYS.c.player_id == _PLAYERS.c.id)
    .order_by(sa.func.coalesce(_RECENT_PLAYS.c.games, 0).desc(), _PLAYERS.c.name_key)
)


def roster_by_games_played() -> list[RosterName]:
    """The roster, the players of the last :data:`ROSTER_RECENT_GAMES` games first (the most
    frequent first), then everyone else, each in name order: a regular table is a few taps
    away. Names only, read with Core (loading every player as an ORM object was most of the
    query's time)."""
    rows = db.session.connection().execute(_ROSTER, {"recent": ROSTER_RECENT_GAMES})
    return [RosterName(*row) for row in rows]


def roster_with_finished_games() -> list[tuple[Player, int]]:
    """Every player with the number of finished games they played, in name order: read from
    each player's stored all-time figures (counting every seat of every finished game grew
    with the club's history: 3.5 ms of the list at 2,000 games). A database upgraded to
    stored figures has none until ``flask serve`` or ``flask refresh`` stores them all: the
    games are counted meanwhile."""
    if db.session.scalar(sa.select(PlayerFigures.player_id).limit(1)) is None:
        finished = (
            sa.select(Seat.player_id, sa.func.count(Seat.id).label("games"))
            .join(Game)
            .where(Game.status == GameStatus.FINISHED)
            .group_by(Seat.player_id)
            .subquery()
        )
        query = sa.select(Player, sa.func.coalesce(finished.c.games, 0)).outerjoin(
            finished, finished.c.player_id == Player.id
        )
    else:
        query = sa.select(Player, sa.func.coalesce(PlayerFigures.games, 0)).outerjoin(
            PlayerFigures, PlayerFigures.player_id == Player.id
        )
    rows = db.session.execute(query.order_by(Player.name_key))
    return [(player, games) for player, games in rows]


def player_stats(player_id: int, conditions: Sequence[Any]) -> stats.PlayerStats:
    """Every figure of a player's page over their finished games matching ``conditions``,
    added up by the database from the stored seat results (stored with the facts): a fixed
    number of queries however many games. :func:`stats.player_stats` is the definition
    these figures follow (tests/test_stats.py checks that both agree)."""
    return figures.player_stats(db.session(), player_id, conditions)


def stored_figures(player_id: int) -> tuple[stats.PlayerStats, bidding.BiddingStats]:
    """The player's all-time figures and bidding figures, as stored with the results (two
    small queries however many games: :mod:`.figures`)."""
    found = figures.read(db.session(), player_id)
    return found if found is not None else (stats.player_stats(player_id, []), bidding.add_up([]))


def bidding_figures(player_id: int, conditions: Sequence[Any]) -> bidding.BiddingStats:
    """The bidding figures of the player page over the player's finished games matching
    ``conditions``: what each of their seats adds, stored with the results (one query; no
    game is scored here)."""
    return bidding.add_up(figures.bidding_seats(db.session(), player_id, conditions))
