"""Error pages: one place for 400/403/404/405/409/413/422/500, full page or htmx fragment."""

import sqlalchemy as sa
from flask import Flask, Response, abort, current_app, jsonify, render_template, request
from flask_htmx import make_response as htmx_response
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from .changes import Busy, busy, lost_race
from .extensions import db, htmx
from .i18n import gettext as _


def render_error(status: int, title: str, message: str, *, expired: bool = False) -> Response:
    """The error page; for htmx a fragment swapped into the page's status box (the part the
    request targeted stays as it was, with what was entered); for a script that asked for
    JSON (offline.js sending kept rounds) the same words as JSON, ``expired`` when the form
    token was refused (the script fetches a fresh one and sends again)."""
    if request.accept_mimetypes.best == "application/json":
        body = {"outcome": "error", "title": title, "message": message, "expired": expired}
        response = jsonify(body)
        response.status_code = status
        response.vary.add("Accept")
        return response
    if not htmx:
        body = render_template("errors/error.html", status=status, title=title, message=message)
        return Response(body, status)
    body = render_template("errors/_error.html", status=status, title=title, message=message)
    response = htmx_response(body, status, retarget="#net-status", reswap="innerHTML")
    response.vary.add("HX-Request")
    return response


def standard_texts() -> dict[int, tuple[str, str]]:
    """Translated title and message for the HTTP errors a user can meet."""
    return {
        400: (_("Bad request"), _("The page sent something the app cannot read. Reload it.")),
        403: (_("Not allowed"), _("This is not open to you.")),
        404: (_("Not found"), _("There is no such page or game. Check the address.")),
        405: (_("Not allowed"), _("This address cannot be used that way.")),
        409: (_("Changed elsewhere"), _("Something changed on another phone. Reload.")),
        413: (_("Too large"), _("That upload is too large.")),
        415: (_("Cannot use that"), _("This address takes the page's own forms only. Reload it.")),
        422: (_("Cannot use that"), _("Check what was entered and try again.")),
    }


def busy_answer() -> Response:
    """Another write held the database longer than a save waits (a restore): nothing changed
    and nothing was stored, so not "changed on another phone" but busy, and when to retry."""
    response = render_error(
        409,
        _("Busy"),
        _("Another change (such as a restore) was being saved: nothing was saved. Try again."),
    )
    response.headers["Retry-After"] = "5"
    return response


def refuse_json_bodies() -> None:
    """The app's pages post forms. Flask-WTF would read a JSON body as the form (and fail on a
    JSON number or list): such a request is refused as what it is, 415."""
    if request.method == "POST" and request.is_json:
        abort(415)


def init_app(app: Flask) -> None:
    app.before_request(refuse_json_bodies)

    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> Response:
        return render_error(
            400,
            _("Page expired"),
            _("This page was open too long or came from elsewhere. Reload it and try again."),
            expired=True,
        )

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        status = error.code or 500
        title, message = standard_texts().get(status, (error.name, ""))
        # A description our code passed to abort() is already translated; werkzeug's are not.
        if error.description and error.description != type(error).description:
            message = error.description
        return render_error(status, title, message)

    @app.errorhandler(InternalServerError)
    def server_error(error: InternalServerError) -> Response:
        db.session.rollback()
        return render_error(
            500,
            _("Something went wrong"),
            _("Nothing was saved. Try again; if it keeps failing, tell the host."),
        )

    @app.errorhandler(Busy)
    def busy_error(error: Busy) -> Response:
        db.session.rollback()
        return busy_answer()

    @app.errorhandler(sa.exc.DBAPIError)
    def database_error(error: sa.exc.DBAPIError) -> Response:
        """A write that lost a race the write path does not expect (on PostgreSQL, e.g. a
        player renamed while a game seating them starts) stored nothing: say so, as a 409,
        not as a crash. Any other database error is a 500."""
        db.session.rollback()
        if busy(error):
            return busy_answer()
        if lost_race(error):
            title, message = standard_texts()[409]
            return render_error(409, title, message)
        current_app.logger.error("database error", exc_info=error)
        return server_error(InternalServerError(original_exception=error))
