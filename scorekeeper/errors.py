"""Error pages: one place for 400/403/404/405/409/413/422/500, full page or htmx fragment."""

from flask import Flask, render_template
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from .extensions import db, htmx


def render_error(status: int, title: str, message: str) -> tuple[str, int]:
    template = "errors/_error.html" if htmx else "errors/error.html"
    return render_template(template, status=status, title=title, message=message), status


def init_app(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> tuple[str, int]:
        return render_error(
            400,
            _("Page expired"),
            _("This page was open too long or came from elsewhere. Reload it and try again."),
        )

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[str, int]:
        status = error.code or 500
        return render_error(status, error.name, error.description or "")

    @app.errorhandler(InternalServerError)
    def server_error(error: InternalServerError) -> tuple[str, int]:
        db.session.rollback()
        return render_error(
            500,
            _("Something went wrong"),
            _("Nothing was saved. Try again; if it keeps failing, tell the host."),
        )
