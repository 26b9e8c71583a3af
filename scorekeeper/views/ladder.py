"""The club ladder: players ranked by rating over a season, with their games and figures."""

from datetime import date, datetime, tzinfo
from typing import Any

from flask import Blueprint, Response, request

from .. import queries, ratings
from ..forms.ladder import LadderFilter
from ..i18n import viewer_zone
from ..wording.ladder import standing_figures
from .rendering import page_tag, provisional, render_read_only

bp = Blueprint("ladder", __name__, url_prefix="/ladder")


def today(zone: tzinfo) -> date:
    """The viewer's date: seasons start on the viewer's calendar days."""
    return datetime.now(zone).date()


@bp.get("/")
def index() -> Response:
    # The same for everyone until something is stored, or the viewer's day changes (the
    # seasons start on calendar days).
    day = today(viewer_zone())
    return render_read_only(
        page_tag("ladder", queries.data_version(), day.isoformat()),
        "ladder/index.html",
        "ladder/_ladder.html",
        lambda: ladder_context(day),
    )


def ladder_context(day: date) -> tuple[int, dict[str, Any]]:
    form = LadderFilter(formdata=request.args)
    if not form.validate():
        return 422, {"form": form, "table": None}
    zone = viewer_zone()
    first_day = form.first_day(day)
    starts_at = queries.day_start(first_day, zone) if first_day else None
    table = ratings.standings(form.season.data, starts_at, int(form.min_games.data))
    if table.updating:
        provisional()
    return 200, {"form": form, "table": table, "standing_figures": standing_figures}
