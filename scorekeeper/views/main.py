"""The home page and the health check."""

import json

from flask import Blueprint, Response, current_app, redirect, request, send_from_directory, url_for
from flask_babel import get_locale

from .. import queries
from ..extensions import csrf
from ..i18n import LANGUAGE_COOKIE, LANGUAGES, YEAR
from ..i18n import gettext as _
from ..wording.rules_page import marks_explained, rule_groups
from .rendering import page_tag, render, render_read_only, safe_path

bp = Blueprint("main", __name__)


@bp.get("/")
def home() -> Response:
    """What the app does, games to go back to, and the way to start one."""
    return render("main/home.html", in_progress=queries.games_in_progress(limit=5))


@bp.get("/rules")
def rules_page() -> Response:
    """Every variant the app offers, explained: what it changes and how the app applies it."""
    return render_read_only(
        page_tag("rules"),
        "main/rules.html",
        None,
        lambda: {"groups": rule_groups(), "marks_explained": marks_explained()},
    )


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest, in the viewer's language (for installing on the home screen)."""
    icon = "icon-maskable-{0}.png"
    data = {
        "name": _("Wizard Scorekeeper"),
        "short_name": "Wizard",
        "description": _("Keeps score for the card game Wizard at the table."),
        "lang": str(get_locale()),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f6f3ec",
        "theme_color": "#2f4a6d",
        "icons": [
            {
                "src": url_for("static", filename="icon.svg"),
                "sizes": "any",
                "type": "image/svg+xml",
            }
        ]
        + [
            {"src": url_for("static", filename=f"icon-{size}.png"), "sizes": f"{size}x{size}"}
            | {"type": "image/png"}
            for size in (192, 512)
        ]
        + [
            {
                "src": url_for("static", filename=icon.format(size)),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "maskable",
            }
            for size in (192, 512)
        ],
    }
    response = current_app.response_class(
        json.dumps(data, ensure_ascii=False), mimetype="application/manifest+json"
    )
    response.vary.update(("Accept-Language", "Cookie"))
    return response


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
@csrf.exempt
def language() -> Response:
    """Show the app in the language chosen (kept for a year), back on the same page. No form
    token: it sets only this browser's preference (so the footer of a page that only reads,
    the same for everyone, can offer it)."""
    response = redirect(safe_path(request.form.get("next")), 303)
    chosen = request.form.get("lang")
    if chosen in LANGUAGES:
        response.set_cookie(LANGUAGE_COOKIE, chosen, max_age=YEAR, samesite="Lax")
    return response
