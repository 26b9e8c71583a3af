"""The one write path of a game: versioned, idempotent, recorded, undoable.

Each write names the game version it was based on (optimistic concurrency: a stale write
is refused with :class:`StaleGame`) and carries a request key, so a double tap or a retried
request is recognised (:class:`AlreadyApplied`) instead of recorded twice. Every write
appends a :class:`~scorekeeper.models.Change` with what it touched before and after (only
the fields that differ: :func:`scorekeeper.snapshots.compact_states`), which is the game's
history and what undo restores. What a write does to the game is the
caller's (:mod:`scorekeeper.gameplay`); this module only records it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn

import sqlalchemy as sa

from . import results
from .extensions import db
from .models import Change, ChangeAction, EventTable, Game, GameStatus, Round, sqlite_write_lock
from .models import utcnow as now
from .snapshots import (
    apply_delta,
    apply_snapshot,
    compact_states,
    expand_states,
    overlay_round,
    round_snapshot,
)


class StaleGame(Exception):
    """The write was based on an older version of the game: another phone changed it."""


class Busy(Exception):
    """The database was held by another write (a restore, say) longer than a save waits:
    nothing changed, nothing was stored; trying again later works."""


class AlreadyApplied(Exception):
    """This exact request was already recorded (a double tap or a retry): ``change``."""

    def __init__(self, change: Change | None = None) -> None:
        super().__init__()
        self.change = change


# Database errors that mean "another writer got there first": a deadlock or serialization
# failure (PostgreSQL), a busy or stale snapshot (SQLite). Anything else is a real failure.
_LOST_RACE_STATES = frozenset({"40001", "40P01", "55P03"})
_LOST_RACE_WORDS = ("database is locked", "database table is locked")


# Of those, the ones that mean "held by another writer": SQLite's busy timeout, PostgreSQL's
# lock timeout. The game was not changed: such a write is busy, not stale.
_BUSY_STATES = frozenset({"55P03"})
_BUSY_WORDS = _LOST_RACE_WORDS


def busy(error: sa.exc.DBAPIError) -> bool:
    """Whether ``error`` is a wait for another writer's lock that ran out."""
    state = getattr(error.orig, "sqlstate", None)
    return state in _BUSY_STATES or any(word in str(error.orig) for word in _BUSY_WORDS)


def lost_race(error: sa.exc.DBAPIError) -> bool:
    """Whether ``error`` is a concurrent writer winning, to be answered as a stale write."""
    state = getattr(error.orig, "sqlstate", None)
    return state in _LOST_RACE_STATES or any(word in str(error.orig) for word in _LOST_RACE_WORDS)


# --- snapshots for the history and undo ----------------------------------------------------


def _state(game: Game, numbers: Iterable[int]) -> dict[str, Any]:
    wanted = set(numbers)
    return {
        "status": game.status,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        # The rules change only when a custom plan's later rounds are edited.
        "rules": game.rules,
        "rounds": [round_snapshot(r) for r in game.rounds if r.number in wanted],
    }


def _restore(game: Game, state: Mapping[str, Any], numbers: Iterable[int]) -> None:
    """Put the given rounds (and the status) back as ``state`` recorded them: a round it
    does not name is removed (the change dealt it), a round that is gone comes back whole,
    and an existing round gets back the fields the state names (a full snapshot names all).
    """
    kept = {data["number"]: data for data in state["rounds"]}
    for round_ in list(game.rounds):
        if round_.number in numbers and round_.number not in kept:
            game.rounds.remove(round_)
    db.session.flush()
    by_number = {round_.number: round_ for round_ in game.rounds}
    for number, data in kept.items():
        round_ = by_number.get(number)
        if round_ is None:
            round_ = Round(number=number)
            game.rounds.append(round_)
            apply_snapshot(round_, data, seats=len(game.seats))
        else:
            apply_delta(round_, data)
    if "status" in state:
        game.status = state["status"]
        # A state without the finish time is from before it was kept: the game was not over.
        finished = state.get("finished_at")
        game.finished_at = datetime.fromisoformat(finished) if finished else None
    elif "finished_at" in state:
        finished = state["finished_at"]
        game.finished_at = datetime.fromisoformat(finished) if finished else None
    if "rules" in state:
        game.rules = state["rules"]


def current_state(game: Game) -> dict[str, Any]:
    """The game as it is now, as :func:`scorekeeper.snapshots.expand_states` walks back from
    it: status, finish time, rules and every round's whole snapshot by number."""
    return {
        "status": game.status,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "rules": game.rules,
        "rounds": {round_.number: round_snapshot(round_) for round_ in game.rounds},
    }


@dataclass(frozen=True)
class FullChange:
    """A change of the history with its whole before and after (the rounds it touched as
    whole snapshots, the status, finish time and rules), as the history page describes it."""

    version: int
    action: str
    round_number: int | None
    created_at: datetime | None
    before: Any
    after: Any


def full_history(game: Game) -> list[FullChange]:
    """The game's changes, oldest first, each with its whole before and after: a change
    stores only what it touched, so the rest is read off the game walking back from now."""
    stored = list(game.changes)
    pairs = [(change.before, change.after) for change in stored]
    expanded = list(expand_states(current_state(game), pairs, len(game.seats)))
    expanded.reverse()
    return [
        FullChange(c.version, c.action, c.round_number, c.created_at, before, after)
        for c, (before, after) in zip(stored, expanded, strict=True)
    ]


# --- the one write path --------------------------------------------------------------------


def applied_change(request_key: str | None) -> Change | None:
    """The change a request with this key recorded, if it was recorded already."""
    if not request_key:
        return None
    return db.session.scalar(sa.select(Change).where(Change.request_key == request_key))


def already_applied(request_key: str | None) -> bool:
    """Whether a request with this key was recorded already (a double tap or a retry)."""
    return applied_change(request_key) is not None


def _refuse_as_stale(request_key: str | None) -> NoReturn:
    """After losing a race: a twin of this very request won (a double tap), or another phone."""
    if (twin := applied_change(request_key)) is not None:
        raise AlreadyApplied(twin)
    raise StaleGame


def begin_write() -> None:
    """Start the transaction that will write. On SQLite it holds the database's write lock
    from its first statement (waiting up to busy_timeout for a writer in progress), so it
    cannot fail later on a stale read snapshot ("database is locked"); objects read before
    are reloaded from the database when next used. PostgreSQL needs nothing here."""
    if db.engine.dialect.name == "sqlite":
        db.session.rollback()
        with sqlite_write_lock():
            db.session.connection()


def _lock(game_id: int) -> int | None:
    """Take this game's write lock and return its version as stored now.

    Writers of one game take turns, always locking the game first (no deadlock between undo
    and a round save). PostgreSQL locks the game's row; SQLite ends the reading snapshot and
    begins again holding the database's write lock, waiting for a writer in progress — so a
    double tap finds its twin's change instead of failing on a stale snapshot.
    """
    begin_write()
    return db.session.execute(
        sa.select(Game.version).where(Game.id == game_id).with_for_update()
    ).scalar()


def apply_change(
    game: Game,
    *,
    version: int | None,
    request_key: str | None,
    action: str,
    rounds_touched: Sequence[int],
    change: Callable[[], dict[str, Any] | None],
    request_digest: str | None = None,
) -> Change:
    """Run ``change`` on ``game`` as one recorded, versioned, idempotent write.

    ``rounds_touched`` are the round numbers whose before/after go into the history (a round
    created by the change is included too); ``request_digest`` fingerprints what the
    request asked. Raises :class:`AlreadyApplied`, :class:`StaleGame` or whatever
    ``change`` raises (then nothing is stored).
    """
    if (earlier := applied_change(request_key)) is not None:
        raise AlreadyApplied(earlier)
    if version != game.version:
        raise StaleGame
    try:
        locked = _lock(game.id)
    except sa.exc.OperationalError as error:
        db.session.rollback()
        if busy(error):
            # Waiting for the lock ran out (a restore holds it): nothing changed here.
            raise Busy from None
        if lost_race(error):
            _refuse_as_stale(request_key)
        raise
    if locked != version:
        db.session.rollback()
        _refuse_as_stale(request_key)
    before = _state(game, rounds_touched)
    was_over = game.status != GameStatus.IN_PROGRESS
    try:
        created = {id(r) for r in game.rounds}
        extra = change()
        touched = set(rounds_touched) | {r.number for r in game.rounds if id(r) not in created}
        db.session.flush()
        after = _state(game, touched) | (extra or {})
        before["rounds"] = [r for r in before["rounds"] if r["number"] in touched]
        # Only what the change touched is kept: the rest is in the game (and earlier changes).
        before, after = compact_states(before, after)
        # The WHERE on the version makes two simultaneous writers race safely: one wins.
        updated = db.session.execute(
            sa.update(Game)
            .where(Game.id == game.id, Game.version == version)
            .values(version=Game.version + 1, updated_at=now())
            .execution_options(synchronize_session=False)
        )
        if updated.rowcount != 1:
            db.session.rollback()
            _refuse_as_stale(request_key)
        record = Change(
            game_id=game.id,
            version=version + 1,
            action=action,
            round_number=min(touched) if touched else None,
            before=before,
            after=after,
            request_key=request_key or None,
            request_digest=request_digest,
        )
        db.session.add(record)
        if not was_over and game.status != GameStatus.IN_PROGRESS:
            _count_for_event(game.id, version + 1)
        # The new version's results go with it (the version's UPDATE bypasses the ORM,
        # which notes only the rows it flushes): see results.py.
        results.due(db.session, [game.id])
        db.session.commit()
    except (sa.exc.IntegrityError, sa.orm.exc.StaleDataError):
        # A twin request or another phone stored the same version or rounds first.
        db.session.rollback()
        _refuse_as_stale(request_key)
    except sa.exc.OperationalError as error:
        db.session.rollback()
        if not lost_race(error):
            raise
        _refuse_as_stale(request_key)
    except BaseException:
        db.session.rollback()
        raise
    db.session.refresh(game)
    return record


def _count_for_event(game_id: int, version: int) -> None:
    """An event's standings count a game from the write that ends it: that version is the
    one they counted, so any later change of the game shows as a change of the standings
    (the first end only: a game undone and ended again was counted before)."""
    db.session.execute(
        sa.update(EventTable)
        .where(EventTable.game_id == game_id, EventTable.counted_version.is_(None))
        .values(counted_version=version)
        .execution_options(synchronize_session=False)
    )


# --- undo ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedOutcome:
    """What a round's tricks step had saved before an undo took it back."""

    tricks: Mapping[int, int]
    bomb_played: bool = False
    cloud_seat: int | None = None
    cloud_change: int | None = None


def undoable(game: Game) -> Change | None:
    """The most recent change that undo would revert (undo steps back one change at a time).

    Walked newest first, once: an undo always undoes an older change, so by the time the
    walk reaches a change it has met every undo of it (a game read for a page reads only as
    far back as it walks: :class:`scorekeeper.queries.History`)."""
    undone: set[int] = set()
    for change in reversed(game.changes):
        if change.action == ChangeAction.UNDO:
            if change.after:
                undone.add(change.after["undoes"])
        elif change.action != ChangeAction.CREATE_GAME and change.version not in undone:
            return change
    return None


def rounds_of(change: Change) -> list[int]:
    """The numbers of the rounds a change touched (before or after it), in order."""
    return sorted(
        {r["number"] for r in change.before["rounds"]}
        | {r["number"] for r in change.after["rounds"]}
    )


def undo(game: Game, change: Change) -> dict[str, Any]:
    """Put the rounds and status back as they were before ``change``."""
    _restore(game, change.before, rounds_of(change))
    return {"undoes": change.version, "undone_action": change.action}


def undone_change(game: Game, version: object) -> Change | None:
    """The change with this version (the one an undo undid), looked for newest first: it is
    most often among the last few."""
    return next((c for c in reversed(game.changes) if c.version == version), None)


def undone_outcome(game: Game, round_: Round) -> SavedOutcome | None:
    """The tricks (and Bomb, Cloud) of ``round_`` as saved before the latest change undid it.

    After "undo" of a saved round the tricks screen offers them again, so fixing one number
    does not mean entering the whole round again.
    """
    if not game.changes or game.changes[-1].action != ChangeAction.UNDO:
        return None
    undone_version = game.changes[-1].after.get("undoes")
    undone = undone_change(game, undone_version)
    if undone is None or undone.action != ChangeAction.RECORD_ROUND:
        return None
    delta = next((r for r in undone.after["rounds"] if r["number"] == round_.number), None)
    if delta is None:
        return None
    # The undo put the round back as it was before: the saved round is that with the change.
    saved = overlay_round(round_snapshot(round_), delta, len(game.seats))
    cloud_seat = cloud_change = None
    for seat, (bid, cloud_bid) in enumerate(zip(saved["bids"], saved["cloud_bid"], strict=True)):
        if cloud_bid is not None and bid is not None:
            cloud_seat, cloud_change = seat, cloud_bid - bid
    return SavedOutcome(
        tricks={seat: v for seat, v in enumerate(saved["tricks"]) if v is not None},
        bomb_played=bool(saved.get("bomb_played")),
        cloud_seat=cloud_seat,
        cloud_change=cloud_change,
    )
