"""The home page and the health check."""

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, render_template, send_from_directory
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..models import Game, GameStatus, Seat

bp = Blueprint("main", __name__)


@bp.get("/")
def home() -> str:
    """What the app does, games to go back to, and the way to start one."""
    in_progress = db.session.scalars(
        sa.select(Game)
        .where(Game.status == GameStatus.IN_PROGRESS)
        .options(selectinload(Game.seats).selectinload(Seat.player))
        .order_by(Game.updated_at.desc())
        .limit(5)
    ).all()
    return render_template("main/home.html", in_progress=in_progress)


@bp.get("/offline")
def offline() -> str:
    """What the service worker shows when the network is gone."""
    return render_template("main/offline.html")


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so it covers every page."""
    response = send_from_directory(current_app.static_folder, "sw.js", max_age=0)
    response.headers["Service-Worker-Allowed"] = "/"
    response.cache_control.no_cache = True
    return response


@bp.get("/healthz")
def healthz() -> Response:
    # Touches the database so a proxy's health probe notices a lost connection.
    db.session.execute(sa.text("SELECT 1"))
    return Response("ok\n", mimetype="text/plain", headers={"Cache-Control": "no-store"})
