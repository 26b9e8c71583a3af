"""The event board reads its event as Core rows (queries.read_event), not as ORM objects, and
renders it anew for every answer that is not a 304: at every moment of an event it must see
what the ORM's load sees, and show the same board."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from werkzeug.exceptions import NotFound

from scorekeeper import events, queries, rules
from scorekeeper.extensions import db
from scorekeeper.models import Event, GameStatus, SeatResult
from scorekeeper.views import events as event_views
from tests.play_helpers import play_round, post, text
from tests.test_events import (
    correct_first_game,
    games,
    play_game,
    play_session,
    rounds_for,
    seating,
    setup_data,
    tables,
)

EVENT = ("id", "uid", "name", "day", "table_size", "session_count", "rules", "method")
EVENT += ("board_token", "version", "created_at", "finished_at")
PLAYER = ("id", "name", "name_key", "created_at")
SESSION = ("id", "event_id", "number", "seed", "drawn_at", "started_at", "ended_at")
TABLE = ("id", "session_id", "number", "game_id", "counted_version")
GAME = ("id", "status", "rules", "first_dealer", "version", "finished_at")


def facts(event) -> dict:
    """Everything the board can read of an event, as plain values."""

    def of(thing, names):
        return {name: getattr(thing, name) for name in names}

    def game_facts(game):
        if game is None:
            return None
        return of(game, GAME) | {
            "seats": [
                {"position": s.position, "player_id": s.player_id, "player": of(s.player, PLAYER)}
                for s in game.seats
            ]
        }

    return {
        "event": of(event, EVENT),
        "players": [
            {"player_id": e.player_id, "position": e.position, "active": e.active}
            | {"player": of(e.player, PLAYER)}
            for e in event.players
        ],
        "sessions": [
            of(session, SESSION)
            | {
                "tables": [
                    of(table, TABLE)
                    | {
                        "seats": [
                            {"position": s.position, "player": of(s.player, PLAYER)}
                            for s in table.seats
                        ],
                        "game": game_facts(table.game),
                    }
                    for table in session.tables
                ]
            }
            for session in event.sessions
        ],
        "outcomes": events.outcomes_of(event),
        "standings": events.event_standings(event),
        "corrected": events.corrected_tables(event),
    }


def orm_read(event_id: int):
    return events.load_event(event_id)


def board_pages(client, token: str) -> list[str]:
    return [
        text(client.get(f"/events/board/{token}")),
        text(client.get(f"/events/board/{token}/part")),
    ]


def test_the_board_reads_the_event_the_orm_loads_at_every_moment(db_ctx, monkeypatch):
    client = db_ctx.test_client()
    response = client.post("/events/new", data=setup_data())
    event_id = int(response.headers["Location"].rsplit("/", 1)[1])
    token = db.session.get(Event, event_id).board_token

    def leave_one():
        leaving = seating(event_id)[0][0]
        player = next(s.player_id for s in tables(event_id)[0].seats if s.player.name == leaving)
        assert client.post(f"/events/{event_id}/leave", data={"player": player}).status_code == 303

    def abandon_one():
        game = games(event_id)[-1]
        assert post(client, game.id, "abandon", {}).status_code == 303

    def first_round_everywhere():
        for number, game in enumerate(games(event_id)):
            play_game(client, game, rounds_for(len(game.seats), number)[:1])

    def finish():
        for number, game in enumerate(games(event_id)):
            if game.status == GameStatus.IN_PROGRESS:
                play_game(client, game, rounds_for(len(game.seats), number + 1))
        assert client.post(f"/events/{event_id}/finish").status_code == 303

    moments = [
        ("set up", lambda: None),
        ("drawn", lambda: client.post(f"/events/{event_id}/draw", data={"seed": "9"})),
        ("started", lambda: client.post(f"/events/{event_id}/start")),
        ("a round at every table", first_round_everywhere),
        ("session over", lambda: play_session_rest(client, event_id)),
        ("corrected", lambda: correct_first_game(client, games(event_id)[0])),
        ("a player left", leave_one),
        ("next drawn", lambda: client.post(f"/events/{event_id}/draw", data={"seed": "5"})),
        ("next started", lambda: client.post(f"/events/{event_id}/start")),
        ("one abandoned", abandon_one),
        ("finished", finish),
    ]
    seen = set()
    for moment, step in moments:
        step()
        shown = same_board_either_way(client, monkeypatch, event_id, token, moment)
        seen.add(re.sub(r"\s+", " ", shown[1]))
    # The moments were different boards (each step changed what it shows).
    assert len(seen) == len(moments)
    read = facts(queries.read_event(event_id))
    assert read["corrected"] == [(1, 1)]
    assert any(t["game"] and t["game"]["status"] == "abandoned" for t in tables_of(read))
    assert "Final standings" in shown[1]
    # A database written before results were stored: a game without them and one with
    # results of an older version are scored from their rounds, as the ORM's games are.
    first, second = (table["game"]["id"] for table in tables_of(read)[:2])
    db.session.execute(sa.delete(SeatResult).where(SeatResult.game_id == first))
    db.session.execute(
        sa.update(SeatResult).where(SeatResult.game_id == second).values(version=1, total=0)
    )
    db.session.commit()
    assert same_board_either_way(client, monkeypatch, event_id, token, "no results") == shown


def same_board_either_way(client, monkeypatch, event_id, token, moment) -> list[str]:
    """The event read as Core rows is what the ORM loads, and the board rendered from either
    is the same, byte for byte (each rendered anew: no board kept from before)."""
    db.session.expire_all()
    read = facts(queries.read_event(event_id))
    db.session.expire_all()
    assert read == facts(events.load_event(event_id)), moment
    event_views._BOARDS.clear()
    shown = board_pages(client, token)
    event_views._BOARDS.clear()
    with monkeypatch.context() as patched:
        patched.setattr(event_views, "read_event", orm_read)
        again = board_pages(client, token)
    event_views._BOARDS.clear()
    assert shown == again, moment
    return shown


def play_session_rest(client, event_id):
    """Every table's second round (the first was played at every table already)."""
    for number, game in enumerate(games(event_id)):
        (bids, took) = rounds_for(len(game.seats), number)[1]
        play_game_from(client, game, 2, bids, took)


def play_game_from(client, game, number, bids, took):
    dealer = rules.dealer_seat(game.first_dealer, number, len(game.seats))
    assert play_round(client, game.id, number, dealer, bids, took).status_code == 303


def tables_of(read):
    return [table for session in read["sessions"] for table in session["tables"]]


@pytest.mark.parametrize("method", ["placement", "score"])
def test_an_event_read_on_each_database_is_what_the_orm_loads(db_ctx, method):
    client = db_ctx.test_client()
    response = client.post("/events/new", data=setup_data(method=method))
    event_id = int(response.headers["Location"].rsplit("/", 1)[1])
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    play_session(client, event_id)
    db.session.expire_all()
    read = facts(queries.read_event(event_id))
    db.session.expire_all()
    assert read == facts(events.load_event(event_id))
    assert len(read["standings"]) == 10


def test_a_board_of_no_event_is_a_page_not_found(client, ctx):
    assert client.get("/events/board/no-such-board").status_code == 404
    with pytest.raises(NotFound, match="There is no event 12345"):
        queries.read_event(12345)
