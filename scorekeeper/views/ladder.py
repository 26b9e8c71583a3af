"""The club ladder: players ranked by rating over a season, with their games and figures."""

from datetime import date, datetime, tzinfo

from flask import Blueprint, Response, request

from .. import queries, ratings
from ..forms.ladder import LadderFilter
from ..i18n import viewer_zone
from .rendering import render

bp = Blueprint("ladder", __name__, url_prefix="/ladder")


def today(zone: tzinfo) -> date:
    """The viewer's date: seasons start on the viewer's calendar days."""
    return datetime.now(zone).date()


@bp.get("/")
def index() -> Response:
    form = LadderFilter(formdata=request.args)
    if not form.validate():
        return render("ladder/index.html", "ladder/_ladder.html", 422, form=form, table=None)
    zone = viewer_zone()
    first_day = form.first_day(today(zone))
    starts_at = queries.day_start(first_day, zone) if first_day else None
    table = ratings.standings(form.season.data, starts_at, int(form.min_games.data))
    return render("ladder/index.html", "ladder/_ladder.html", form=form, table=table)
