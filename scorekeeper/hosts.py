"""Only the host names this instance is reached at are served (against DNS rebinding).

A web page on another site that gets its name pointed at this machine (DNS rebinding) would
otherwise read and change everything on an instance without a password. So a request is
served only when its ``Host`` (behind trusted proxies, the forwarded one) is one of
``TRUSTED_HOSTS``: ``localhost``, the loopback addresses, the LAN address ``flask announce``
printed, ``PUBLIC_URL``'s host, and the names the host adds in the setting. Any other gets a
400 of one line, before any page, static file, form token or cookie.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response
from werkzeug.exceptions import SecurityError
from werkzeug.wsgi import get_host

from .i18n import gettext as _
from .views.live import ANNOUNCED_FILE

# Always served: the machine itself (``.localhost`` names resolve to it too).
LOCAL_HOSTS = ("localhost", ".localhost", "127.0.0.1")


def _host_of(url: object) -> str | None:
    if not url:
        return None
    try:
        return urlsplit(str(url)).hostname
    except ValueError:
        return None


def _announced_host(instance_path: str) -> str | None:
    try:
        text = (Path(instance_path) / ANNOUNCED_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return _host_of(text.strip())


def _listed(value: object) -> list[str]:
    """The setting as a list: JSON (``["a.lan", "b.lan"]``) or words split by commas."""
    if value is None:
        return []
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    if isinstance(value, Iterable):
        return [str(name).strip() for name in value if str(name).strip()]
    raise ValueError("TRUSTED_HOSTS must be a list of host names")


def trusted_hosts(app: Flask) -> list[str]:
    """Every name this instance answers to (see the module's description)."""
    names = [*LOCAL_HOSTS, *_listed(app.config.get("TRUSTED_HOSTS"))]
    for extra in (_host_of(app.config.get("PUBLIC_URL")), _announced_host(app.instance_path)):
        if extra:
            names.append(extra)
    return list(dict.fromkeys(names))


def refusal() -> Response:
    """The answer to an untrusted host: one line, no page (a page would carry a form token
    and set a session cookie)."""
    text = _("This name is not served here: open the app at the address its host gave.")
    response = Response(text + "\n", 400, mimetype="text/plain")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    """Set Flask's ``TRUSTED_HOSTS`` (its own check when routing and building links) to the
    full list, and refuse any other host in front of everything, static files included."""
    app.config["TRUSTED_HOSTS"] = trusted_hosts(app)


# The verdicts kept (by the parts of the request that name its host), cleared when full.
KEPT_VERDICTS = 256


def guard(app: Flask) -> None:
    """Wrap the app (WhiteNoise included; inside ProxyFix, so a forwarded host is checked).

    Each verdict is kept by what names the host (the ``Host`` header, else the server's
    name and port, and the scheme): a request from a name seen before is not checked
    against every name of the list again (a twentieth of /healthz's calls, profiled). A
    changed ``TRUSTED_HOSTS`` forgets them."""
    served = app.wsgi_app
    # The list the verdicts were made with, and the verdicts: replaced together when the
    # list changes (a thread still checking under the old one writes to the old verdicts).
    kept: list[tuple[list[str], dict[tuple, bool]]] = [([], {})]

    def trusted(environ: dict) -> bool:
        names = app.config["TRUSTED_HOSTS"]
        made_for, verdicts = kept[0]
        if names != made_for:
            made_for, verdicts = kept[0] = (list(names or ()), {})
        key = (
            environ.get("HTTP_HOST"),
            environ.get("SERVER_NAME"),
            environ.get("SERVER_PORT"),
            environ.get("wsgi.url_scheme"),
        )
        if (verdict := verdicts.get(key)) is not None:
            return verdict
        try:
            get_host(environ, names)
            verdict = True
        except SecurityError:
            verdict = False
        if len(verdicts) >= KEPT_VERDICTS:
            verdicts.clear()
        verdicts[key] = verdict
        return verdict

    def checked(environ: dict, start_response: Callable[..., Any]) -> Any:
        if not trusted(environ):
            # A request context for the visitor's language, and nothing else of the app.
            with app.request_context(environ):
                response = refusal()
            return response(environ, start_response)
        return served(environ, start_response)

    app.wsgi_app = checked  # type: ignore[method-assign]
