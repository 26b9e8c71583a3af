"""Wizard Scorekeeper: keeps score for the card game Wizard."""

import os
from typing import Any

from flask import Flask, Response, request
from flask_babel import get_locale
from flask_compress import Compress
from jinja2 import StrictUndefined
from werkzeug.routing import IntegerConverter, Map

from . import cli, config, errors, i18n, models, views
from .extensions import babel, csrf, db, htmx, limiter, migrate

# No inline script or style anywhere: htmx runs with eval and its inline styles turned off.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
PROJECT_ROOT = config.PROJECT_ROOT
MIGRATIONS_DIR = str(config.PACKAGE_DIR / "migrations")


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the application; ``test_config`` replaces the instance file and environment."""
    app = Flask(
        __name__,
        instance_relative_config=True,
        instance_path=config.instance_path(),
        template_folder=config.resource_folder("templates"),
        static_folder=config.resource_folder("static"),
    )
    os.makedirs(app.instance_path, exist_ok=True)
    config.configure(app, test_config)
    # A template that needs a variable its view forgot fails loudly instead of printing "".
    app.jinja_env.undefined = StrictUndefined
    app.jinja_env.add_extension("jinja2.ext.do")
    app.jinja_env.globals["current_locale"] = get_locale
    app.jinja_env.globals["app_version"] = config.app_version()

    # Ids in URLs fit the database's integer: a larger one is no page (404), not a crash.
    app.url_map.converters["int"] = DatabaseId
    db.init_app(app)
    with app.app_context():
        models.sqlite_pragmas(db.engine)
    migrate.init_app(app, db, directory=MIGRATIONS_DIR, render_as_batch=True)
    csrf.init_app(app)
    htmx.init_app(app)
    limiter.init_app(app)
    babel.init_app(app, locale_selector=i18n.select_locale, timezone_selector=i18n.select_timezone)
    errors.init_app(app)

    views.register(app)
    cli.init_app(app)
    app.after_request(security_headers)
    serve_compressed(app)
    return app


class DatabaseId(IntegerConverter):
    """``<int:...>`` in routes: a non-negative number that fits a 32-bit database integer."""

    def __init__(self, url_map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", 2**31 - 1)
        super().__init__(url_map, *args, **kwargs)


def security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


# --- compressed responses ---------------------------------------------------


def serve_compressed(app: Flask) -> None:
    """HTML, JSON and the like compressed as the browser asks (Flask-Compress: Brotli, else
    gzip; settings ``COMPRESS_*``), keeping the ETag a view set.

    Flask-Compress appends the coding to a strong ETag (``"board-1-5:br"``); the live view
    compares the ETag a phone sends back, and its script the one it received, with the
    game's version, so the tag stays as the view made it (``Vary: Accept-Encoding`` keeps a
    cache's copies per coding apart), and a conditional request is answered afterwards."""
    app.config["COMPRESS_REGISTER"] = False
    app.config["COMPRESS_EVALUATE_CONDITIONAL_REQUEST"] = False
    compress = Compress(app)

    def compressed(response: Response) -> Response:
        etag, weak = response.get_etag()
        body = response.response
        response = compress.after_request(response)
        # A streamed body (a file) compressed on the way is replaced: it still gets closed.
        if response.response is not body and (close := getattr(body, "close", None)):
            response.call_on_close(close)
        if etag and not weak and response.get_etag() != (etag, weak):
            response.set_etag(etag)
            response.make_conditional(request)
        return response

    app.after_request(compressed)
