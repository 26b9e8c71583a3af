"""The home page and the health check."""

from flask import Blueprint, Response, current_app, redirect, request, send_from_directory

from .. import queries
from ..forms.base import Form
from ..i18n import LANGUAGE_COOKIE, LANGUAGES, YEAR
from .rendering import render, safe_path

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


@bp.post("/language")
def language() -> Response:
    """Show the app in the language chosen (kept for a year), back on the same page."""
    response = redirect(safe_path(request.form.get("next")), 303)
    chosen = request.form.get("lang")
    if Form().validate_on_submit() and chosen in LANGUAGES:
        response.set_cookie(LANGUAGE_COOKIE, chosen, max_age=YEAR, samesite="Lax")
    return response
