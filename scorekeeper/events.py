"""Events: the writes (create, draw a session, swap, players leaving and arriving, start the
games, finish) and the reads the event pages need (tables, progress, standings).

The splitting, drawing and standings themselves are pure (:mod:`scorekeeper.reports.events`);
each table's game is an ordinary game, created by :func:`scorekeeper.gameplay.create_game`
and played through the one write path of :mod:`scorekeeper.changes`. Every refusal is an
:class:`EventRefused` carrying the input it concerns and a translated sentence; a refused
write stores nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import selectinload

from . import gameplay, results, rules
from .changes import begin_write
from .extensions import db
from .i18n import gettext as _
from .i18n import ngettext
from .models import (
    Change,
    ChangeAction,
    Event,
    EventPlayer,
    EventSeat,
    EventSession,
    EventTable,
    Game,
    GameStatus,
    Player,
    Seat,
    SeatResult,
    name_key,
)
from .models import utcnow as now
from .records import rules_of
from .reports import events as plan
from .wording import messages


def outcomes_of(event: Event) -> dict[int, results.Outcome]:
    """Each of the event's games' outcome (totals, bids met, bid sums, leaders, scored rounds)
    at the game's version, from the seat results stored with every change of the game: one
    query for the whole event, however many rounds its games have. Read once per loaded
    event (kept on the object for the rest of the request)."""
    found: dict[int, results.Outcome] | None = event.__dict__.get(_OUTCOMES)
    if found is not None:
        return found
    games = {
        table.game.id: table.game
        for session in event.sessions
        for table in session.tables
        if table.game is not None
    }
    stored: dict[int, list[Any]] = {game_id: [] for game_id in games}
    # A Core statement on the session's connection, built once (through the ORM, with the
    # games' ids expanded into it, it was a quarter of the board's own work; cProfile).
    for row in db.session.connection().execute(_EVENT_RESULTS, {"event_id": event.id}):
        if row.game_id in stored:
            stored[row.game_id].append(row)
    found = {}
    for game_id, game in games.items():
        seats = stored[game_id]
        if len(seats) != len(game.seats) or any(row.version != game.version for row in seats):
            # Not stored at this version (a database written before results were): scored
            # here from its rounds, as the results module stores them.
            seats = results.seat_results(game)
        found[game_id] = results.outcome(seats)
    event.__dict__[_OUTCOMES] = found
    return found


_OUTCOMES = "_scorekeeper_outcomes"
# The stored results of the seats of an event's games.
_EVENT_RESULTS = (
    sa.select(*(getattr(SeatResult, name) for name in results.OUTCOME_FIELDS))
    .add_columns(SeatResult.version)
    .join(EventTable, EventTable.game_id == SeatResult.game_id)
    .join(EventSession, EventSession.id == EventTable.session_id)
    .where(EventSession.event_id == sa.bindparam("event_id"))
)


MAX_EVENT_PLAYERS = 60
MAX_SESSIONS = 20


class EventRefused(Exception):
    """A write the event's state does not allow; ``field`` is the input the message belongs
    next to ("form" for the page as a whole)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# --- reading -------------------------------------------------------------------------------


def event_query() -> sa.Select[tuple[Event]]:
    """Events with players, sessions, tables, seats and every game with its seats, in fixed
    queries (not the games' rounds: what the event shows of them is their stored results,
    :func:`outcomes_of`)."""
    return sa.select(Event).options(
        selectinload(Event.players).selectinload(EventPlayer.player),
        selectinload(Event.sessions)
        .selectinload(EventSession.tables)
        .selectinload(EventTable.seats)
        .selectinload(EventSeat.player),
        selectinload(Event.sessions)
        .selectinload(EventSession.tables)
        .selectinload(EventTable.game)
        .selectinload(Game.seats)
        .selectinload(Seat.player),
    )


def load_event(event_id: int) -> Event:
    """The event with this id, fully loaded; a 404 page when there is none."""
    return db.first_or_404(
        event_query().where(Event.id == event_id),
        description=_("There is no event %(number)s.", number=event_id),
    )


# What moves what the board shows of a table's game: the rounds scored (and so the leaders,
# the standings and "round x of y"), the plan's length, the game's end, a correction. A bid,
# a trump or a dealer changes nothing there, so the board's polls stay "not modified".
BOARD_ACTIONS = (
    ChangeAction.CREATE_GAME,
    ChangeAction.RECORD_ROUND,
    ChangeAction.EDIT_ROUND,
    ChangeAction.EDIT_PLAN,
    ChangeAction.UNDO,
    ChangeAction.ABANDON,
)
# Each game's last such change (the newest matching row of its (game, version) index).
_SHOWN_VERSION = (
    sa.select(sa.func.max(Change.version))
    .where(
        Change.game_id == EventTable.game_id,
        # Written into the statement (the enum's own words), not bound: an expanding IN
        # parameter is rewritten on every execution (profiled: a third of this query's time).
        Change.action.in_([sa.literal_column(f"'{action.value}'") for action in BOARD_ACTIONS]),
    )
    .correlate(EventTable)
    .scalar_subquery()
)
_TABLE_VERSIONS = (
    sa.select(EventSession.event_id, EventTable.game_id, _SHOWN_VERSION.label("shown"))
    .join(EventTable, EventTable.session_id == EventSession.id)
    .where(EventTable.game_id.is_not(None))
    .subquery()
)
# Built once: the board's polls run it several times a second, and building the statement
# each time cost as much as running it.
_BOARD_VERSION = (
    sa.select(
        Event.id,
        Event.version,
        sa.func.coalesce(sa.func.sum(_TABLE_VERSIONS.c.shown), 0),
        sa.func.count(_TABLE_VERSIONS.c.game_id),
    )
    .select_from(Event)
    .outerjoin(_TABLE_VERSIONS, _TABLE_VERSIONS.c.event_id == Event.id)
    .where(Event.board_token == sa.bindparam("token"))
    .group_by(Event.id, Event.version)
)


def board_version(token: str) -> tuple[int, str] | None:
    """The event's id and a version of everything its board shows, in one small query: the
    event's own version (a draw, a swap, a start, a name) and, summed over its games, the
    version of each game's last change the board shows (:data:`BOARD_ACTIONS`): it moves
    with every scored round, correction or undo, never with a bid."""
    # On the session's connection, as a Core statement (through the ORM's execute it cost a
    # sixth of a poll answered "not modified").
    return _board_version_of(
        db.session.connection().execute(_BOARD_VERSION, {"token": token}).first()
    )


def board_version_outside(token: str) -> tuple[int, str] | None:
    """:func:`board_version` in a short transaction of its own, not the page's session: a
    poll answered "not modified" then starts no session at all (opening and closing it was a
    fifth of that answer, profiled), as the live board's polls. What the board shows is read
    in the session (a board kept by this version could show a later one)."""
    with db.engine.connect() as connection:
        return _board_version_of(connection.execute(_BOARD_VERSION, {"token": token}).first())


def _board_version_of(row: sa.Row | None) -> tuple[int, str] | None:
    if row is None:
        return None
    return row[0], f"{row[1]}.{row[2]}.{row[3]}"


def recent_events(limit: int = 50) -> Sequence[Event]:
    """The newest events first (for the events list)."""
    return db.session.scalars(
        sa.select(Event)
        .options(selectinload(Event.players))
        .order_by(Event.day.desc(), Event.id.desc())
        .limit(limit)
    ).all()


def rules_for(event: Event, size: int) -> rules.GameRules:
    """The rules a table of ``size`` players plays at this event."""
    return rules.GameRules.from_dict({**event.rules, "players": size})


def rules_problem(template: dict[str, Any], sizes: Sequence[int]) -> list[rules.Problem] | None:
    """The rules' problems for the first table size they do not fit, or None."""
    for size in sorted(set(sizes)):
        try:
            rules.GameRules.from_dict({**template, "players": size})
        except rules.RulesError as error:
            return list(error.problems)
    return None


def latest_session(event: Event) -> EventSession | None:
    return event.sessions[-1] if event.sessions else None


def game_over(game: Game | None) -> bool:
    return game is not None and game.status != GameStatus.IN_PROGRESS


def session_over(session: EventSession) -> bool:
    """Whether every table of the session has played its game to the end (or stopped it)."""
    return session.started_at is not None and all(game_over(t.game) for t in session.tables)


def tables_playing(session: EventSession) -> list[int]:
    """The numbers of the session's tables whose game is still being played."""
    return [table.number for table in session.tables if not game_over(table.game)]


@dataclass(frozen=True)
class TableProgress:
    """One table as the event pages show it."""

    number: int
    names: tuple[str, ...]
    game: Game | None
    status: str  # "waiting", "playing", "finished" or "abandoned"
    scored: int
    planned: int
    leaders: tuple[str, ...]
    totals: tuple[int, ...]
    corrected: bool


def table_progress(event: Event, table: EventTable) -> TableProgress:
    game = table.game
    if game is None:
        names = tuple(seat.player.name for seat in table.seats)
        planned = rules_for(event, len(names)).round_count if names else 0
        return TableProgress(table.number, names, None, "waiting", 0, planned, (), (), False)
    outcome = outcomes_of(event)[game.id]
    game_names = [seat.player.name for seat in game.seats]
    top = outcome.leaders if outcome.scored_rounds else ()
    corrected = table.counted_version is not None and table.counted_version != game.version
    return TableProgress(
        number=table.number,
        names=tuple(game_names),
        game=game,
        status="playing" if game.status == GameStatus.IN_PROGRESS else str(game.status),
        scored=outcome.scored_rounds,
        planned=rules_of(game).round_count,
        leaders=tuple(game_names[seat] for seat in top),
        totals=outcome.totals,
        corrected=corrected,
    )


def counted_games(event: Event) -> list[plan.TableGame]:
    """The event's games as the standings count them: a finished game as it ended, a game
    stopped early as it stood after its last scored round, nothing of a game with no scored
    round or still being played."""
    found = []
    outcomes = outcomes_of(event)
    for session in event.sessions:
        for table in session.tables:
            game = table.game
            if game is None:
                continue
            outcome = outcomes[game.id]
            seats = tuple(
                plan.GameSeat(
                    player=seat.player_id,
                    total=outcome.totals[seat.position],
                    bids_met=outcome.bids_met[seat.position],
                    bid_sum=outcome.bid_sums[seat.position],
                )
                for seat in game.seats
            )
            counts = game_over(game) and outcome.scored_rounds > 0
            found.append(plan.TableGame((session.number, table.number), seats, counts))
    return found


def event_standings(event: Event) -> tuple[plan.Standing, ...]:
    """The standings so far (players by id; see :func:`plan.standings`)."""
    return plan.standings(
        [entry.player_id for entry in event.players], counted_games(event), event.method
    )


def player_names(event: Event) -> dict[int, str]:
    return {entry.player_id: entry.player.name for entry in event.players}


def corrected_tables(event: Event) -> list[tuple[int, int]]:
    """(session, table) of every game changed after it ended (and the standings counted
    it), whether its session is still being played, over, or the event finished: the
    standings follow the correction, and the pages say so."""
    return [
        (session.number, table.number)
        for session in event.sessions
        for table in session.tables
        if table.game is not None
        and table.counted_version is not None
        and table.counted_version != table.game.version
    ]


# --- writing -------------------------------------------------------------------------------


def _lock_event(event_id: int) -> Event:
    """Begin the write and hold the event's row: two organisers' phones take turns."""
    begin_write()
    db.session.execute(sa.select(Event.id).where(Event.id == event_id).with_for_update())
    db.session.expire_all()
    return db.session.scalars(event_query().where(Event.id == event_id)).one()


def _resolve_players(names: Sequence[str]) -> list[Player]:
    keys = [name_key(name) for name in names]
    existing = {
        player.name_key: player
        for player in db.session.scalars(sa.select(Player).where(Player.name_key.in_(keys)))
    }
    return [existing.get(key) or Player(name) for key, name in zip(keys, names, strict=True)]


def _commit() -> None:
    try:
        db.session.commit()
    except sa.exc.IntegrityError as error:
        db.session.rollback()
        raise EventRefused(
            "form", _("The event was changed on another phone at the same time: try again.")
        ) from error


def create_event(
    *,
    name: str,
    day: date,
    names: Sequence[str],
    table_size: int,
    session_count: int,
    rules_template: dict[str, Any],
    method: str,
    request_key: str | None = None,
) -> Event:
    """A new event with these players (roster names or new ones); no session drawn yet. A
    repeated ``request_key`` (a double tap) gives the event the first request made."""
    begin_write()
    if request_key and (earlier := _event_by_key(request_key)) is not None:
        return earlier
    if len(names) < plan.MIN_TABLE:
        raise EventRefused(
            "seats", _("An event needs at least %(min)d players.", min=plan.MIN_TABLE)
        )
    for attempt in (1, 2):
        event = Event(
            name=name,
            day=day,
            table_size=table_size,
            session_count=session_count,
            rules={key: value for key, value in rules_template.items() if key != "players"},
            method=str(plan.Method(method)),
            request_key=request_key or None,
        )
        for position, player in enumerate(_resolve_players(names)):
            event.players.append(EventPlayer(player=player, position=position))
        db.session.add(event)
        try:
            db.session.commit()
            return event
        except sa.exc.IntegrityError:
            db.session.rollback()
            if request_key and (earlier := _event_by_key(request_key)) is not None:
                return earlier
            if attempt == 2:
                raise
            begin_write()  # another page added one of these new players first
    raise AssertionError("unreachable")


def _event_by_key(request_key: str) -> Event | None:
    return db.session.scalar(sa.select(Event).where(Event.request_key == request_key))


def _active_ids(event: Event) -> list[int]:
    return [entry.player_id for entry in event.players if entry.active]


def _refuse_while_playing(event: Event, field: str) -> None:
    if event.finished_at is not None:
        raise EventRefused(field, _("The event is over: nothing more can change."))
    latest = latest_session(event)
    if latest is not None and latest.started_at is not None and not session_over(latest):
        raise EventRefused(field, _still_playing(latest))


def _still_playing(session: EventSession) -> str:
    playing = tables_playing(session)
    return ngettext(
        "Session %(session)d is still being played: table %(tables)s has not finished.",
        "Session %(session)d is still being played: tables %(tables)s have not finished.",
        len(playing),
        session=session.number,
        tables=", ".join(map(str, playing)),
    )


def _end(session: EventSession) -> None:
    """Close ``session``. Each game's counted version was taken by the write that ended it
    (:func:`scorekeeper.changes.apply_change`); a game ended before that was kept is taken
    as it is now."""
    if session.ended_at is None:
        session.ended_at = now()
        for table in session.tables:
            if table.counted_version is None and table.game is not None:
                table.counted_version = table.game.version


def _seating_of(session: EventSession) -> plan.Seating:
    return tuple(tuple(seat.player_id for seat in table.seats) for table in session.tables)


def _place(event: Event, number: int, seed: int) -> EventSession:
    """Draw session ``number`` from ``seed`` (Swiss after the first) and add it, unsaved."""
    earlier = [_seating_of(s) for s in event.sessions if s.number < number]
    ranking = plan.ranking(event_standings(event)) if earlier else None
    try:
        seating = plan.draw_seating(
            _active_ids(event), event.table_size, seed, ranking=ranking, earlier=earlier
        )
    except plan.SeatingError as error:
        raise EventRefused("seed", _seating_message(error)) from error
    if (problems := rules_problem(event.rules, [len(table) for table in seating])) is not None:
        raise EventRefused("rules", _rules_message(problems, len(seating[-1])))
    session = EventSession(number=number, seed=seed)
    event.sessions.append(session)
    db.session.flush()
    for table_number, players in enumerate(seating, start=1):
        table = EventTable(number=table_number)
        session.tables.append(table)
        db.session.flush()
        for position, player_id in enumerate(players):
            table.seats.append(
                EventSeat(position=position, session_id=session.id, player_id=player_id)
            )
    return session


def _seating_message(error: plan.SeatingError) -> str:
    if error.code == "too_few_players":
        return _(
            "Too few players for a table: %(count)d playing, a table needs at least %(min)d.",
            count=error.values["count"],
            min=error.values["min"],
        )
    if error.code == "player_twice":
        return _("A player cannot sit at two tables of one session.")
    return _("These players cannot be seated at tables of 3 to 6.")


def _rules_message(problems: Sequence[rules.Problem], size: int) -> str:
    text = " ".join(messages.problem_message(problem, []) for problem in problems)
    return _("At a table of %(count)d: %(problem)s", count=size, problem=text)


def draw_session(event_id: int, seed: int | None = None) -> EventSession:
    """Draw the next session's seating (or draw again a session not yet started).

    Refused while the previous session is still being played, once every planned session
    was played, or with fewer than 3 players left. Ends the previous session (its standings
    are taken) in the same transaction."""
    event = _lock_event(event_id)
    latest = latest_session(event)
    if event.finished_at is not None:
        raise EventRefused("seed", _("The event is over: nothing more can change."))
    if latest is not None and latest.started_at is None:
        if any(table.game_id is not None for table in latest.tables):
            raise EventRefused("seed", _("The session's games are being started."))
        number = latest.number
        event.sessions.remove(latest)
        db.session.flush()
    else:
        if latest is not None and not session_over(latest):
            raise EventRefused("seed", _still_playing(latest))
        number = latest.number + 1 if latest else 1
        if number > event.session_count:
            raise EventRefused(
                "seed",
                ngettext(
                    "The event's %(num)d session has been played: finish the event.",
                    "All %(num)d sessions of the event have been played: finish the event.",
                    event.session_count,
                ),
            )
        if latest is not None:
            _end(latest)
    session = _place(event, number, seed if seed is not None else plan.new_seed())
    event.version += 1
    _commit()
    return session


def swap_players(event_id: int, first: int, second: int) -> None:
    """Swap two players' seats in the session drawn and not yet started."""
    event = _lock_event(event_id)
    session = latest_session(event)
    if session is None or session.started_at is not None:
        raise EventRefused("first", _("Players can be swapped only before a session starts."))
    try:
        swapped = plan.swap_players(_seating_of(session), first, second)
    except plan.SeatingError as error:
        message = (
            _("Choose two different players.")
            if error.code == "same_player"
            else _("Choose two players of this session.")
        )
        raise EventRefused(
            "second" if error.code == "same_player" else "first", message
        ) from error
    plan.check_seating(swapped)
    _store_swap(session, swapped)
    event.version += 1
    _commit()


def _store_swap(session: EventSession, seating: plan.Seating) -> None:
    # Rewritten as delete-then-insert: an UPDATE of two rows one after the other would meet
    # the unique (session, player) in between.
    rows = [
        (table.id, position, player_id)
        for table, players in zip(session.tables, seating, strict=True)
        for position, player_id in enumerate(players)
    ]
    for table in session.tables:
        db.session.expire(table, ["seats"])
    db.session.execute(sa.delete(EventSeat).where(EventSeat.session_id == session.id))
    db.session.execute(
        sa.insert(EventSeat),
        [
            {"table_id": t, "position": p, "session_id": session.id, "player_id": player}
            for t, p, player in rows
        ],
    )


def _redraw_waiting(event: Event) -> None:
    """A session drawn but not started is drawn again (same seed) for the players now in."""
    latest = latest_session(event)
    if latest is not None and latest.started_at is None:
        if any(table.game_id is not None for table in latest.tables):
            raise EventRefused("form", _("The session's games are being started."))
        number, seed = latest.number, latest.seed
        event.sessions.remove(latest)
        db.session.flush()
        _place(event, number, seed)


def player_leaves(event_id: int, player_id: int) -> None:
    """A player leaves between sessions: they keep their games, and sit in no later session."""
    event = _lock_event(event_id)
    _refuse_while_playing(event, "player")
    entry = next((e for e in event.players if e.player_id == player_id), None)
    if entry is None or not entry.active:
        raise EventRefused("player", _("Choose a player who is still playing."))
    if len(_active_ids(event)) - 1 < plan.MIN_TABLE:
        raise EventRefused(
            "player",
            _("An event needs at least %(min)d players: nobody else can leave.", min=3),
        )
    entry.active = False
    _redraw_waiting(event)
    event.version += 1
    _commit()


def player_returns(event_id: int, player_id: int) -> None:
    """A player who left plays again from the next session."""
    event = _lock_event(event_id)
    _refuse_while_playing(event, "player")
    entry = next((e for e in event.players if e.player_id == player_id), None)
    if entry is None or entry.active:
        raise EventRefused("player", _("Choose a player who left."))
    _check_room(event)
    entry.active = True
    _redraw_waiting(event)
    event.version += 1
    _commit()


def _check_room(event: Event) -> None:
    if len(_active_ids(event)) >= MAX_EVENT_PLAYERS:
        raise EventRefused(
            "new_name",
            _("An event has at most %(max)d players.", max=MAX_EVENT_PLAYERS),
        )


def player_arrives(event_id: int, name: str) -> None:
    """A player (from the roster or new) joins between sessions, from the next one on."""
    event = _lock_event(event_id)
    _refuse_while_playing(event, "new_name")
    key = name_key(name)
    if any(entry.player.name_key == key for entry in event.players):
        raise EventRefused("new_name", _("%(name)s is already at this event.", name=name))
    _check_room(event)
    (player,) = _resolve_players([name])
    position = max((entry.position for entry in event.players), default=-1) + 1
    event.players.append(EventPlayer(player=player, position=position))
    db.session.flush()
    _redraw_waiting(event)
    event.version += 1
    _commit()


def _first_dealer(session: EventSession, table: EventTable) -> int:
    # Drawn from the session's seed: the same seating and seed give the same first dealers.
    return random.Random(session.seed * 100 + table.number).randrange(len(table.seats))


def start_session(event_id: int) -> EventSession:
    """Start the games of the session drawn: one ordinary game per table.

    One transaction, holding the event's row: every table's game is made and the session
    marked started together, or (a failure half-way) nothing is stored. A second tap or
    another phone waits for the first, then finds the session started."""
    event = _lock_event(event_id)
    session = latest_session(event)
    if event.finished_at is not None:
        raise EventRefused("form", _("The event is over: nothing more can change."))
    if session is None:
        raise EventRefused("form", _("Draw the seating first."))
    if session.started_at is not None:
        return session
    try:
        for table in session.tables:
            if table.game_id is not None:
                continue
            game = gameplay.add_game(
                [seat.player.name for seat in table.seats],
                _first_dealer(session, table),
                rules_for(event, len(table.seats)),
                f"event-session-{session.id}-table-{table.number}",
            )
            table.game = game
        session.started_at = now()
        event.version += 1
    except BaseException:
        db.session.rollback()
        raise
    _commit()
    return session


def finish_event(event_id: int) -> None:
    """Close the event once its last session is over: the final standings are taken."""
    event = _lock_event(event_id)
    latest = latest_session(event)
    if event.finished_at is not None:
        return
    if latest is None or latest.started_at is None:
        raise EventRefused("form", _("Play a session before finishing the event."))
    if not session_over(latest):
        raise EventRefused("form", _still_playing(latest))
    _end(latest)
    event.finished_at = now()
    event.version += 1
    _commit()
