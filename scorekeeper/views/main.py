"""The home page and the health check."""

from flask import Blueprint, Response, current_app, send_from_directory

from .. import queries
from .rendering import render

bp = Blueprint("main", __name__)


@bp.get("/")
def home() -> Response:
    """What the app does, games to go back to, and the way to start one."""
    return render("main/home.html", in_progress=queries.games_in_progress(limit=5))


@bp.get("/offline")
def offline() -> Response:
    """What the service worker shows when the network is gone."""
    return render("main/offline.html")


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
    queries.ping()
    return Response("ok\n", mimetype="text/plain", headers={"Cache-Control": "no-store"})
