"""Events in a backup: written after the games (``"events": [...]``) and restored after them,
in the same transaction, so an event's tables find their games by identifier.

An event names its players and its tables' players by name and its games by ``uid``, like
the rest of a backup; a restore adds every event whose ``uid`` is not here yet, exactly as
it was (players, sessions, seeds, seats, games, the versions counted at each session's end).
A file without ``events`` (an older backup) restores as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..i18n import gettext as _
from ..models import (
    Event,
    EventPlayer,
    EventSeat,
    EventSession,
    EventTable,
    Game,
    Player,
    PlayerAlias,
    name_key,
)


class EventsProblem(ValueError):
    """The file's events cannot be restored: ``problems`` say why (nothing is stored)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _time(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def event_records() -> list[dict[str, Any]]:
    """Every event as a backup writes it, oldest first."""
    events = db.session.scalars(
        sa.select(Event)
        .options(
            selectinload(Event.players).selectinload(EventPlayer.player),
            selectinload(Event.sessions)
            .selectinload(EventSession.tables)
            .selectinload(EventTable.seats)
            .selectinload(EventSeat.player),
            selectinload(Event.sessions)
            .selectinload(EventSession.tables)
            .selectinload(EventTable.game),
        )
        .order_by(Event.created_at, Event.uid)
    ).all()
    return [event_record(event) for event in events]


def event_record(event: Event) -> dict[str, Any]:
    return {
        "uid": event.uid,
        "name": event.name,
        "day": event.day.isoformat(),
        "table_size": event.table_size,
        "session_count": event.session_count,
        "rules": event.rules,
        "method": event.method,
        "board_token": event.board_token,
        "version": event.version,
        "created_at": _time(event.created_at),
        "finished_at": _time(event.finished_at),
        "players": [
            {"name": entry.player.name, "active": entry.active} for entry in event.players
        ],
        "sessions": [
            {
                "number": session.number,
                "seed": session.seed,
                "drawn_at": _time(session.drawn_at),
                "started_at": _time(session.started_at),
                "ended_at": _time(session.ended_at),
                "tables": [
                    {
                        "number": table.number,
                        "game": table.game.uid if table.game is not None else None,
                        "counted_version": table.counted_version,
                        "seats": [seat.player.name for seat in table.seats],
                    }
                    for table in session.tables
                ],
            }
            for session in event.sessions
        ],
    }


# --- restoring -----------------------------------------------------------------------------


def _parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _ids_by_name(names: Iterable[str]) -> dict[str, int]:
    keys = sorted({name_key(name) for name in names})
    found: dict[str, int] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        found |= dict(
            db.session.execute(
                sa.select(PlayerAlias.name_key, PlayerAlias.player_id).where(
                    PlayerAlias.name_key.in_(chunk)
                )
            ).all()
        )
        found |= dict(
            db.session.execute(
                sa.select(Player.name_key, Player.id).where(Player.name_key.in_(chunk))
            ).all()
        )
    return found


def _check(records: Any) -> list[str]:
    if not isinstance(records, list):
        return [_("The file's events are not a list.")]
    problems = []
    for number, record in enumerate(records, start=1):
        try:
            _shape(record)
        except (KeyError, TypeError, ValueError):
            problems.append(_("Event %(number)d of the file is incomplete.", number=number))
    return problems


def _shape(record: Mapping[str, Any]) -> None:
    """Raise when a record lacks what a restore needs (the types of every field used)."""
    for key in ("uid", "name", "day", "method", "board_token"):
        if not isinstance(record[key], str):
            raise TypeError(key)
    date.fromisoformat(record["day"])
    for key in ("table_size", "session_count", "version"):
        if type(record[key]) is not int:
            raise TypeError(key)
    if not isinstance(record["rules"], dict):
        raise TypeError("rules")
    times = [record.get("created_at"), record.get("finished_at")]
    times += [
        s.get(key) for s in record["sessions"] for key in ("drawn_at", "started_at", "ended_at")
    ]
    for value in times:
        if value is not None and not isinstance(value, str):
            raise TypeError("time")
        _parse_time(value)
    for player in record["players"]:
        if not isinstance(player["name"], str) or not isinstance(player["active"], bool):
            raise TypeError("players")
    for session in record["sessions"]:
        if type(session["number"]) is not int or type(session["seed"]) is not int:
            raise TypeError("session")
        for table in session["tables"]:
            if type(table["number"]) is not int:
                raise TypeError("table")
            if not all(isinstance(name, str) for name in table["seats"]):
                raise TypeError("seats")
            if table["game"] is not None and not isinstance(table["game"], str):
                raise TypeError("game")


def restore_events(records: Any) -> int:
    """Add the file's events that are not here yet, in the caller's transaction (after the
    file's players and games). Returns how many were added; raises :class:`EventsProblem`
    when one is incomplete or names a player or game the restore does not have."""
    if records is None:
        return 0
    if problems := _check(records):
        raise EventsProblem(problems)
    uids = [record["uid"] for record in records]
    present = set(db.session.scalars(sa.select(Event.uid).where(Event.uid.in_(uids))))
    wanted = [record for record in records if record["uid"] not in present]
    if not wanted:
        return 0
    names = [p["name"] for r in wanted for p in r["players"]]
    names += [n for r in wanted for s in r["sessions"] for t in s["tables"] for n in t["seats"]]
    players = _ids_by_name(names)
    game_uids = [t["game"] for r in wanted for s in r["sessions"] for t in s["tables"]]
    games = dict(
        db.session.execute(
            sa.select(Game.uid, Game.id).where(Game.uid.in_([u for u in game_uids if u]))
        ).all()
    )
    for record in wanted:
        try:
            _add_event(record, players, games)
        except KeyError as missing:
            raise EventsProblem(
                [
                    _(
                        "Event “%(name)s” names %(missing)s, which is not in the file.",
                        name=record["name"],
                        missing=str(missing.args[0]),
                    )
                ]
            ) from None
    return len(wanted)


def _add_event(
    record: Mapping[str, Any], players: Mapping[str, int], games: Mapping[str, int]
) -> None:
    times = {
        key: _parse_time(record.get(key))
        for key in ("created_at", "finished_at")
        if record.get(key)
    }
    event = Event(
        uid=record["uid"],
        name=record["name"],
        day=date.fromisoformat(record["day"]),
        table_size=record["table_size"],
        session_count=record["session_count"],
        rules=record["rules"],
        method=record["method"],
        board_token=record["board_token"],
        version=record["version"],
        **times,
    )
    for position, entry in enumerate(record["players"]):
        event.players.append(
            EventPlayer(
                player_id=players[name_key(entry["name"])],
                position=position,
                active=entry["active"],
            )
        )
    seats = []
    for data in record["sessions"]:
        session = EventSession(
            number=data["number"],
            seed=data["seed"],
            started_at=_parse_time(data.get("started_at")),
            ended_at=_parse_time(data.get("ended_at")),
        )
        if data.get("drawn_at"):
            session.drawn_at = _parse_time(data["drawn_at"])
        event.sessions.append(session)
        for table_data in data["tables"]:
            table = EventTable(
                number=table_data["number"],
                game_id=games[table_data["game"]] if table_data["game"] else None,
                counted_version=table_data.get("counted_version"),
            )
            session.tables.append(table)
            seats += [
                (session, table, position, players[name_key(name)])
                for position, name in enumerate(table_data["seats"])
            ]
    db.session.add(event)
    # The seats name their session's id (the schema's one-seat-per-session check): flush first.
    db.session.flush()
    for session, table, position, player_id in seats:
        table.seats.append(
            EventSeat(position=position, session_id=session.id, player_id=player_id)
        )
    db.session.flush()
