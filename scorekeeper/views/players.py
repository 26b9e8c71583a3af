"""The roster and each player's statistics over a chosen period."""

from typing import Any

import sqlalchemy as sa
from flask import Blueprint, Response, abort, render_template, request
from sqlalchemy.orm import subqueryload

from .. import records, stats
from ..extensions import db
from ..models import Game, GameStatus, Player, Round, Seat
from .history import PeriodFilter, page_or_fragment, period_conditions

bp = Blueprint("players", __name__, url_prefix="/players")


@bp.get("/")
def index() -> str:
    finished = (
        sa.select(Seat.player_id, sa.func.count(Seat.id).label("games"))
        .join(Game)
        .where(Game.status == GameStatus.FINISHED)
        .group_by(Seat.player_id)
        .subquery()
    )
    roster = db.session.execute(
        sa.select(Player, sa.func.coalesce(finished.c.games, 0))
        .outerjoin(finished, finished.c.player_id == Player.id)
        .order_by(Player.name_key)
    ).all()
    return render_template("players/index.html", roster=roster)


def many_games_query() -> sa.Select[tuple[Game]]:
    """Games with seats, players, rounds and entries in four queries, however many games.

    ``records.game_query`` loads with ``selectinload``, which splits its IN lists into
    batches of 500 rows: fine for a page of games, but a player's whole history would cost
    one more query per 500 rounds. ``subqueryload`` repeats the games query instead.
    """
    return sa.select(Game).options(
        subqueryload(Game.seats).joinedload(Seat.player),
        subqueryload(Game.rounds).subqueryload(Round.entries),
    )


def played_games(player: Player, conditions: list[Any]) -> list[stats.PlayedGame]:
    """The player's finished games in the period, loaded in a fixed number of queries."""
    games = db.session.scalars(
        many_games_query()
        .where(
            Game.status == GameStatus.FINISHED,
            Game.seats.any(Seat.player_id == player.id),
            *conditions,
        )
        .order_by(Game.created_at, Game.id)
    ).all()
    played = []
    for game in games:
        ids = tuple(seat.player_id for seat in game.seats)
        played.append(
            stats.PlayedGame(
                game_id=game.id,
                created_at=game.created_at,
                seat=ids.index(player.id),
                player_ids=ids,
                names=tuple(records.player_names(game)),
                sheet=records.sheet_of(game),
            )
        )
    return played


@bp.get("/<int:player_id>")
def player(player_id: int) -> Response:
    found = db.session.get(Player, player_id)
    if found is None:
        abort(404)
    form = PeriodFilter(request.args)
    context: dict[str, Any] = {"player": found, "form": form, "stats": None}
    if not form.validate():
        return page_or_fragment("players/player.html", "players/_stats.html", 422, **context)
    conditions = period_conditions(form.date_from.data, form.date_to.data)
    context["stats"] = stats.player_stats(found.id, played_games(found, conditions))
    return page_or_fragment("players/player.html", "players/_stats.html", **context)
