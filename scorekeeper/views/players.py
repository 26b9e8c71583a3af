"""The players: the roster with games played, and each player's statistics."""

from typing import Any

from flask import Blueprint, Response, request
from flask_babel import get_timezone

from .. import queries, ratings
from ..forms.history import PeriodFilter
from ..reports.ladder import rating_chart
from .rendering import render, render_kept

bp = Blueprint("players", __name__, url_prefix="/players")


@bp.get("/")
def index() -> Response:
    return render("players/index.html", roster=queries.roster_with_finished_games())


@bp.get("/<int:player_id>")
def player(player_id: int) -> Response:
    # The same for everyone asking for the same period until something is stored (the
    # ratings depend on every game): kept per data version.
    return render_kept(
        ("players.player", player_id),
        "players/player.html",
        "players/_stats.html",
        lambda: player_context(player_id),
    )


def player_context(player_id: int) -> tuple[int, dict[str, Any]]:
    found = queries.load_player(player_id)
    form = PeriodFilter(formdata=request.args)
    context: dict[str, Any] = {
        "player": found,
        "form": form,
        "stats": None,
        "rating_chart": rating_chart(ratings.rating_history(found.id)),
    }
    if not form.validate():
        return 422, context
    conditions = queries.period_conditions(form.date_from.data, form.date_to.data, get_timezone())
    context["stats"] = queries.player_stats(found.id, conditions)
    return 200, context
