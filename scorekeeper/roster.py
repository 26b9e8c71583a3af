"""The roster's write path: rename a player, merge one player into another, undo either.

Every change is one transaction recorded in the roster's log
(:class:`~scorekeeper.models.PlayerChange`) with what undo needs to put back, and carries a
request key, so a double tap is recognised (:class:`AlreadyApplied`) instead of done twice.

A rename or a merge leaves the old name behind as an alias
(:class:`~scorekeeper.models.PlayerAlias`): a restored file that names the old name means
the player it now belongs to, so importing an old backup adds no duplicate.

A merge moves every seat of one player to the other and deletes the first. The derived rows
follow in the same transaction, so no game's version moves (a phone in the middle of a game
is not told that "another phone" changed it): the seat results are given the new player,
and each stored ladder forgets the moved games — :mod:`scorekeeper.ratings` then rates
again from the earliest of them (it looks at games, not at players, so it would not notice
a seat changing hands by itself).

Undo puts back exactly what the change changed (the merged player with the same id, name
and creation time, the seats it had, the aliases). It is refused while a later change that
is not undone concerns one of the same players — undo those first — and when the old name
has been given to another player since. New games of the surviving player after a merge are
not the merged player's: they stay where they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, NoReturn, ParamSpec, TypeVar

import sqlalchemy as sa

from . import figures
from .changes import begin_write, lost_race
from .extensions import db
from .models import (
    Event,
    EventPlayer,
    EventSeat,
    EventSession,
    EventTable,
    Game,
    HandResult,
    Ladder,
    LadderGame,
    Player,
    PlayerAlias,
    PlayerChange,
    RosterAction,
    Seat,
    SeatResult,
    raise_data_version,
)
from .models import utcnow as now

P = ParamSpec("P")
R = TypeVar("R")

# Ids per IN list (SQLite takes at most 32,766 parameters in one statement).
CHUNK = 500
# Games named in the message that refuses a merge of two players who played together.
GAMES_NAMED = 3


class Refusal(StrEnum):
    """Why a roster change was refused (worded by :mod:`scorekeeper.wording.roster`)."""

    GONE = "gone"
    SAME_NAME = "same_name"
    NAME_TAKEN = "name_taken"
    NO_TARGET = "no_target"
    SAME_PLAYER = "same_player"
    PLAYED_TOGETHER = "played_together"
    SAME_EVENT = "same_event"
    ALREADY_UNDONE = "already_undone"
    LATER_CHANGE = "later_change"
    NAME_TAKEN_SINCE = "name_taken_since"
    BUSY = "busy"


class RosterRefused(Exception):
    """The change cannot be made; ``reason`` says why, ``details`` fill in the message."""

    def __init__(self, reason: Refusal, **details: Any) -> None:
        super().__init__(reason.value)
        self.reason = reason
        self.details = details


class AlreadyApplied(Exception):
    """This exact request was done already (a double tap or a retry): ``change``."""

    def __init__(self, change: PlayerChange) -> None:
        super().__init__(change.id)
        self.change = change


# --- reading -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogLine:
    """A change of the player's log, and whether undo may revert it now."""

    change: PlayerChange
    undoable: bool


def involved(change: PlayerChange) -> set[int]:
    """Every player a change concerns: the renamed or merged ones, and those the aliases it
    rewrote pointed to before."""
    found = {change.player_id}
    if change.other_id is not None:
        found.add(change.other_id)
    found.update(target for _key, target, _after in change.before.get("aliases", ()) if target)
    return found


def _later_blocker(change: PlayerChange) -> PlayerChange | None:
    """A later change, not undone, that concerns a player this one concerns."""
    mine = involved(change)
    later = db.session.scalars(
        sa.select(PlayerChange)
        .where(PlayerChange.id > change.id, PlayerChange.undone_at.is_(None))
        .order_by(PlayerChange.id)
    )
    return next((other for other in later if involved(other) & mine), None)


def log_of(player_id: int, limit: int = 20) -> list[LogLine]:
    """The player's renames and merges (as the renamed, merged or surviving player), newest
    first, each with whether it can be undone now."""
    changes = db.session.scalars(
        sa.select(PlayerChange)
        .where(sa.or_(PlayerChange.player_id == player_id, PlayerChange.other_id == player_id))
        .order_by(PlayerChange.id.desc())
        .limit(limit)
    ).all()
    return [
        LogLine(change, change.undone_at is None and _later_blocker(change) is None)
        for change in changes
    ]


def change_of(change_id: int) -> PlayerChange | None:
    return db.session.get(PlayerChange, change_id)


def merged_into(player_id: int) -> int | None:
    """The player on the roster whose games a player merged away now holds (following later
    merges of that one), or None when no merge, not undone, took this player away."""
    seen = {player_id}
    current = player_id
    while (
        into := db.session.scalar(
            sa.select(PlayerChange.other_id)
            .where(
                PlayerChange.action == RosterAction.MERGE,
                PlayerChange.player_id == current,
                PlayerChange.undone_at.is_(None),
            )
            .order_by(PlayerChange.id.desc())
            .limit(1)
        )
    ) is not None and into not in seen:
        if db.session.get(Player, into) is not None:
            return into
        seen.add(into)
        current = into
    return None


# --- the write path ------------------------------------------------------------------------


def applied_change(request_key: str | None) -> PlayerChange | None:
    """The change a request with this key made or undid, if it was done already."""
    if not request_key:
        return None
    return db.session.scalar(
        sa.select(PlayerChange).where(
            sa.or_(
                PlayerChange.request_key == request_key,
                PlayerChange.undo_request_key == request_key,
            )
        )
    )


def _start(request_key: str | None, player_ids: Iterable[int]) -> dict[int, Player]:
    """Begin the write: a request done already raises :class:`AlreadyApplied`; then hold
    the write lock (SQLite) or the players' rows (PostgreSQL: a page storing seat results
    for these players waits for this change) and return the players that exist."""
    if (earlier := applied_change(request_key)) is not None:
        raise AlreadyApplied(earlier)
    try:
        # A fresh transaction (SQLite: holding the write lock), whose snapshot starts here.
        db.session.rollback()
        begin_write()
        if (earlier := applied_change(request_key)) is not None:
            db.session.rollback()
            raise AlreadyApplied(earlier)
        ids = sorted(set(player_ids))
        found = db.session.scalars(
            sa.select(Player).where(Player.id.in_(ids)).order_by(Player.id).with_for_update()
        ).all()
    except sa.exc.OperationalError as error:
        db.session.rollback()
        if lost_race(error):
            raise RosterRefused(Refusal.BUSY) from None
        raise
    return {player.id: player for player in found}


def _commit(request_key: str | None) -> None:
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        if (twin := applied_change(request_key)) is not None:
            raise AlreadyApplied(twin) from None
        raise RosterRefused(Refusal.BUSY) from None
    except sa.exc.OperationalError as error:
        db.session.rollback()
        if not lost_race(error):
            raise
        raise RosterRefused(Refusal.BUSY) from None
    except BaseException:
        db.session.rollback()
        raise


def _refuse(reason: Refusal, **details: Any) -> NoReturn:
    db.session.rollback()
    raise RosterRefused(reason, **details)


def _holder(key: str, but: int | None = None) -> Player | None:
    """The player whose name has this key (other than ``but``)."""
    query = sa.select(Player).where(Player.name_key == key)
    if but is not None:
        query = query.where(Player.id != but)
    return db.session.scalar(query)


def _set_aliases(targets: Mapping[str, int | None]) -> list[list[Any]]:
    """Point each alias at its player (None: no alias), returning [key, before, after] each."""
    keys = sorted(targets)
    current = dict(
        db.session.execute(
            sa.select(PlayerAlias.name_key, PlayerAlias.player_id).where(
                PlayerAlias.name_key.in_(keys)
            )
        ).all()
    )
    for key in keys:
        _point_alias(key, targets[key])
    return [[key, current.get(key), targets[key]] for key in keys]


def _point_alias(key: str, after: int | None) -> None:
    db.session.execute(sa.delete(PlayerAlias).where(PlayerAlias.name_key == key))
    if after is not None:
        db.session.execute(sa.insert(PlayerAlias).values(name_key=key, player_id=after))


def _chunks(values: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def _forget_ratings(game_ids: Sequence[int]) -> None:
    """Make every stored ladder rate these games again (and everything after them): a page
    computing a ladder at this moment stores nothing (the generation moved)."""
    db.session.execute(sa.update(Ladder).values(generation=Ladder.generation + 1))
    for chunk in _chunks(game_ids):
        db.session.execute(sa.delete(LadderGame).where(LadderGame.game_id.in_(chunk)))


def _move_results(game_ids: Sequence[int], from_id: int, to_id: int) -> None:
    """The stored results of these games follow their seats (still valid: same version)."""
    for chunk in _chunks(game_ids):
        for table in (SeatResult, HandResult):
            db.session.execute(
                sa.update(table)
                .where(table.player_id == from_id, table.game_id.in_(chunk))
                .values(player_id=to_id)
            )


def _figures_due(game_ids: Sequence[int], player_ids: Sequence[int]) -> None:
    """The all-time figures of these players, and of everyone who played these games (their
    head-to-head names another player now), are stored again when the change commits."""
    figures.due(db.session(), player_ids)
    for chunk in _chunks(game_ids):
        figures.due(
            db.session(),
            db.session.scalars(sa.select(Seat.player_id).where(Seat.game_id.in_(chunk))),
        )


def _lost_race_is_busy(write: Callable[P, R]) -> Callable[P, R]:
    """A write that lost a race to another (PostgreSQL's serialization failure under
    REPEATABLE READ, SQLite's busy lock) stores nothing and is refused as busy, not a 500."""

    @functools.wraps(write)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return write(*args, **kwargs)
        except sa.exc.OperationalError as error:
            db.session.rollback()
            if lost_race(error):
                raise RosterRefused(Refusal.BUSY) from None
            raise

    return guarded


@_lost_race_is_busy
def rename(player_id: int, name: str, request_key: str | None) -> PlayerChange:
    """Give the player a new name (cleaned as setup cleans it; the form checked its shape).

    The old name becomes an alias of the player. Refused when the name is the player's
    already, or another player's."""
    players = _start(request_key, [player_id])
    player = players.get(player_id)
    if player is None:
        _refuse(Refusal.GONE)
    new = Player(name)  # not added: it only cleans the name as the roster stores names
    if new.name == player.name:
        _refuse(Refusal.SAME_NAME, name=player.name)
    if (other := _holder(new.name_key, but=player.id)) is not None:
        _refuse(Refusal.NAME_TAKEN, name=other.name)
    aliases = _set_aliases({player.name_key: player.id}) if new.name_key != player.name_key else []
    record = PlayerChange(
        action=RosterAction.RENAME,
        player_id=player.id,
        before={"name": player.name, "aliases": aliases},
        after={"name": new.name},
        request_key=request_key or None,
    )
    player.name, player.name_key = new.name, new.name_key
    _touch_events([event.id for event in events_of(player.id)])
    db.session.add(record)
    _commit(request_key)
    return record


def played_together(player_id: int, other_id: int) -> list[Game]:
    """The games both players sat in, oldest first."""
    mine = sa.select(Seat.game_id).where(Seat.player_id == player_id)
    return list(
        db.session.scalars(
            sa.select(Game)
            .join(Seat, Seat.game_id == Game.id)
            .where(Seat.player_id == other_id, Game.id.in_(mine))
            .order_by(Game.created_at, Game.id)
        )
    )


def events_of(player_id: int) -> list[Event]:
    """The events the player is (or was) a player of, oldest first."""
    return list(
        db.session.scalars(
            sa.select(Event)
            .join(EventPlayer, EventPlayer.event_id == Event.id)
            .where(EventPlayer.player_id == player_id)
            .order_by(Event.day, Event.id)
        )
    )


def _move_event_places(event_ids: Sequence[int], from_id: int, to_id: int) -> None:
    """The player's places at these events (membership and every seat drawn) given to
    ``to_id``; each event's version goes up, so its board shows the name now there."""
    if not event_ids:
        return
    db.session.execute(
        sa.update(EventPlayer)
        .where(EventPlayer.player_id == from_id, EventPlayer.event_id.in_(event_ids))
        .values(player_id=to_id)
        .execution_options(synchronize_session=False)
    )
    db.session.execute(
        sa.update(EventSeat)
        .where(EventSeat.player_id == from_id, EventSeat.session_id.in_(_sessions(event_ids)))
        .values(player_id=to_id)
        .execution_options(synchronize_session=False)
    )
    _touch_events(event_ids)


def _sessions(event_ids: Sequence[int]) -> sa.Select[tuple[int]]:
    return sa.select(EventSession.id).where(EventSession.event_id.in_(event_ids))


def _touch_events(event_ids: Sequence[int]) -> None:
    """Raise these events' versions (their boards show players' names)."""
    if event_ids:
        db.session.execute(
            sa.update(Event)
            .where(Event.id.in_(event_ids))
            .values(version=Event.version + 1)
            .execution_options(synchronize_session=False)
        )


def _event_seats(event_ids: Sequence[int], player_id: int) -> list[tuple[int, int]]:
    """(seat, game) of the player in the games of these events."""
    games = sa.select(EventTable.game_id).where(EventTable.session_id.in_(_sessions(event_ids)))
    return [
        (seat_id, game_id)
        for seat_id, game_id in db.session.execute(
            sa.select(Seat.id, Seat.game_id).where(
                Seat.player_id == player_id, Seat.game_id.in_(games)
            )
        )
    ]


@_lost_race_is_busy
def merge(player_id: int, into_id: int, request_key: str | None) -> PlayerChange:
    """Move every seat of the player to ``into_id`` and take the player off the roster; its
    name (and the names that were aliases of it) become aliases of the other player.

    Refused when they sat in the same game: the merged player would sit there twice."""
    players = _start(request_key, [player_id, into_id])
    merged, survivor = players.get(player_id), players.get(into_id)
    if merged is None:
        _refuse(Refusal.GONE)
    if into_id == player_id:
        _refuse(Refusal.SAME_PLAYER)
    if survivor is None:
        _refuse(Refusal.NO_TARGET)
    if together := played_together(merged.id, survivor.id):
        _refuse(
            Refusal.PLAYED_TOGETHER,
            name=merged.name,
            other=survivor.name,
            games=[(game.id, game.created_at) for game in together],
        )
    merged_events = events_of(merged.id)
    survivor_events = {event.id for event in events_of(survivor.id)}
    if shared := [event for event in merged_events if event.id in survivor_events]:
        _refuse(
            Refusal.SAME_EVENT,
            name=merged.name,
            other=survivor.name,
            events=[event.name for event in shared],
        )
    seats = db.session.execute(
        sa.select(Seat.id, Seat.game_id).where(Seat.player_id == merged.id).order_by(Seat.id)
    ).all()
    game_ids = sorted({game_id for _seat, game_id in seats})
    old_aliases = db.session.scalars(
        sa.select(PlayerAlias.name_key).where(PlayerAlias.player_id == merged.id)
    ).all()
    aliases = _set_aliases(dict.fromkeys([*old_aliases, merged.name_key], survivor.id))
    record = PlayerChange(
        action=RosterAction.MERGE,
        player_id=merged.id,
        other_id=survivor.id,
        before={
            "name": merged.name,
            "name_key": merged.name_key,
            "created_at": merged.created_at.isoformat(),
            "into_name": survivor.name,
            "seats": [seat_id for seat_id, _game in seats],
            "games": game_ids,
            "aliases": aliases,
            "events": [event.id for event in merged_events],
        },
        after={"name": survivor.name},
        request_key=request_key or None,
    )
    db.session.add(record)
    db.session.execute(
        sa.update(Seat).where(Seat.player_id == merged.id).values(player_id=survivor.id)
    )
    _move_results(game_ids, merged.id, survivor.id)
    _figures_due(game_ids, [merged.id, survivor.id])
    _forget_ratings(game_ids)
    _move_event_places(record.before["events"], merged.id, survivor.id)
    raise_data_version(db.session())
    db.session.execute(sa.delete(Player).where(Player.id == merged.id))
    db.session.expunge(merged)
    _commit(request_key)
    return record


@_lost_race_is_busy
def undo(change_id: int, request_key: str | None) -> PlayerChange:
    """Revert a rename or a merge exactly (see the module's docstring for when it is refused)."""
    change = change_of(change_id)
    if change is None:
        raise RosterRefused(Refusal.GONE)
    ids = involved(change)
    players = _start(request_key, ids)
    change = change_of(change_id)
    if change is None:
        _refuse(Refusal.GONE)
    if change.undone_at is not None:
        _refuse(Refusal.ALREADY_UNDONE)
    if (later := _later_blocker(change)) is not None:
        _refuse(Refusal.LATER_CHANGE, change=later)
    before = change.before
    if change.action == RosterAction.RENAME:
        player = players.get(change.player_id)
        if player is None:  # pragma: no cover - a merge of it would be a later change
            _refuse(Refusal.GONE)
        restored = Player(before["name"])
        if (other := _holder(restored.name_key, but=player.id)) is not None:
            _refuse(Refusal.NAME_TAKEN_SINCE, name=other.name)
        player.name, player.name_key = restored.name, restored.name_key
        _touch_events([event.id for event in events_of(player.id)])
    else:
        if (other := _holder(before["name_key"])) is not None:
            _refuse(Refusal.NAME_TAKEN_SINCE, name=other.name)
        _unmerge(change)
    for key, was, _after in before.get("aliases", []):
        _point_alias(key, was)
    change.undone_at = now()
    change.undo_request_key = request_key or None
    _commit(request_key)
    return change


def _unmerge(change: PlayerChange) -> None:
    """Bring the merged player back with its id, name and seats; results and ratings follow."""
    before = change.before
    raise_data_version(db.session())
    db.session.execute(
        sa.insert(Player).values(
            id=change.player_id,
            name=before["name"],
            name_key=before["name_key"],
            created_at=datetime.fromisoformat(before["created_at"]),
        )
    )
    # The survivor never was at the merged player's events (such a merge is refused): their
    # seats in those events' games, made since the merge too, are the merged player's.
    event_ids: list[int] = before.get("events", [])
    later = _event_seats(event_ids, change.other_id)
    seat_ids: list[int] = sorted({*before["seats"], *(seat for seat, _game in later)})
    for chunk in _chunks(seat_ids):
        db.session.execute(
            sa.update(Seat)
            .where(Seat.id.in_(chunk), Seat.player_id == change.other_id)
            .values(player_id=change.player_id)
        )
    game_ids: list[int] = sorted({*before["games"], *(game for _seat, game in later)})
    _move_results(game_ids, change.other_id, change.player_id)
    _figures_due(game_ids, [change.player_id, change.other_id])
    _forget_ratings(game_ids)
    _move_event_places(event_ids, change.other_id, change.player_id)
