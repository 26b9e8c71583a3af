"""Configuration: where the app's files are, then its settings.

Settings come from defaults, the instance folder's ``config.py``, then the environment:
``DATABASE_URL``, ``SECRET_KEY``, ``ACCESS_PASSWORD`` and any Flask setting as
``SCOREKEEPER_<NAME>`` (the prefixed name wins over the bare one).
"""

import functools
import importlib.metadata
import os
import re
import secrets
import tomllib
from pathlib import Path

import click
from flask import Flask, Response
from flask.globals import request_ctx
from flask_limiter import Limiter
from werkzeug.middleware.proxy_fix import ProxyFix

from . import signins
from .models import database_url

SECRET_KEY_FILE = "secret_key"
DATABASE_FILE = "scorekeeper.sqlite"
DISTRIBUTION = "wizard-scorekeeper"
ENV_PREFIX = "SCOREKEEPER"
INSTANCE_VARIABLE = f"{ENV_PREFIX}_INSTANCE"
# The environment names that worked before the prefixed ones, still read.
BARE_SETTINGS = ("DATABASE_URL", "SECRET_KEY", "ACCESS_PASSWORD")
# Kept as text even when they would parse as JSON (a password of digits, say).
TEXT_SETTINGS = (*BARE_SETTINGS, "SQLALCHEMY_DATABASE_URI")

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent


def in_checkout() -> bool:
    """True when running from the repository, False when installed (e.g. from the wheel)."""
    return (PROJECT_ROOT / "pyproject.toml").is_file()


def resource_folder(name: str) -> str:
    """``templates`` or ``static``: the wheel's copy inside the package, else the repository's."""
    bundled = PACKAGE_DIR / name
    return str(bundled if bundled.is_dir() else PROJECT_ROOT / name)


def instance_path() -> str:
    """The instance folder: ``$SCOREKEEPER_INSTANCE``, else ``instance/`` in a checkout, else
    a per-user data folder (``$XDG_DATA_HOME/wizard-scorekeeper``), never site-packages."""
    if configured := os.environ.get(INSTANCE_VARIABLE):
        return os.path.abspath(configured)
    if in_checkout():
        return str(PROJECT_ROOT / "instance")
    data_home = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data_home):  # the XDG spec: a relative value is ignored
        data_home = str(Path.home() / ".local" / "share")
    return str(Path(data_home) / DISTRIBUTION)


@functools.cache
def app_version() -> str:
    """The installed version, else the checkout's ``pyproject.toml`` version."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        with open(PROJECT_ROOT / "pyproject.toml", "rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def load_secret_key(instance_path: str) -> str:
    """Return the instance's secret key, generating it on first start (mode 0600)."""
    path = Path(instance_path) / SECRET_KEY_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    # O_EXCL: when two workers start at once, exactly one writes and both read its key.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def load_environment(app: Flask) -> None:
    """Settings from the bare names, then ``SCOREKEEPER_*`` through Flask's prefixed loader."""
    for name in BARE_SETTINGS:
        if value := os.environ.get(name):
            app.config[name] = value
    # Values are parsed as JSON where they can be: SCOREKEEPER_LIVE_POLL_SECONDS=5 is a number.
    app.config.from_prefixed_env(ENV_PREFIX)
    for name in TEXT_SETTINGS:
        if (value := os.environ.get(f"{ENV_PREFIX}_{name}")) is not None:
            app.config[name] = value
    app.config.pop("INSTANCE", None)  # SCOREKEEPER_INSTANCE names the folder: no setting
    if url := app.config.pop("DATABASE_URL", None):
        app.config["SQLALCHEMY_DATABASE_URI"] = database_url(url)


def configure(app: Flask, overrides: dict | None) -> None:
    """Fill ``app.config`` from defaults, the instance file, the environment and overrides."""
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI="sqlite:///" + str(Path(app.instance_path) / DATABASE_FILE),
        # PostgreSQL's connections are checked before use (below); SQLite's are files.
        SQLALCHEMY_ENGINE_OPTIONS={},
        WTF_CSRF_TIME_LIMIT=None,
        # The instance's language and time zone, for browsers that do not say theirs.
        LANGUAGE="en",
        TIMEZONE="UTC",
        # "classic" (♣ ♦ ♥ ♠) or "colours" (the four colours of the editions that print them).
        SUIT_STYLE="classic",
        # How long a ladder visit waits for the ladder being brought up to date before it
        # shows the last complete one, marked as updating (ratings.page_ladder).
        LADDER_WAIT_SECONDS=0.5,
        # The same for a player's page (its rating chart): by default it does not wait, and
        # shows the last complete ratings marked as updating, so a first visit after a large
        # restore stays quick (its own figures come from the stored results).
        PLAYER_LADDER_WAIT_SECONDS=0,
        # Wrong passwords allowed per client address (Flask-Limiter's notation).
        LOGIN_RATE_LIMIT="10 per minute",
        # Counted in the app's database: one count for every worker and host (signins).
        RATELIMIT_STORAGE_URI=signins.DatabaseStorage.STORAGE_SCHEME[0] + "://",
        RATELIMIT_HEADERS_ENABLED=True,
        # Behind a TLS proxy, set SCOREKEEPER_SESSION_COOKIE_SECURE=true.
        SESSION_COOKIE_SECURE=False,
        # The largest upload: a backup to restore. A club's 2,000 games weigh about 40 MB.
        MAX_CONTENT_LENGTH=100 * 1024 * 1024,
        # Every other body: the largest form (a new game's setup) is under 4 KB.
        FORM_MAX_CONTENT_LENGTH=64 * 1024,
        # Flask's limits on a multipart form's parts: a text field's size (Flask's default;
        # a form's whole body is 64 KB anyway) and the number of fields (the setup page,
        # the largest form, has about 40).
        MAX_FORM_MEMORY_SIZE=500_000,
        MAX_FORM_PARTS=200,
        # SQLite: how long a write waits for another one in progress before it is refused
        # as busy (a save waits through one retry, so about twice this).
        SQLITE_BUSY_TIMEOUT_MS=5000,
        ACCESS_PASSWORD=None,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        # Responses compressed as the browser asks (Flask-Compress): Brotli, else gzip.
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_ALGORITHM_STREAMING=["br", "gzip"],
        # Brotli's quality 2, not Flask-Compress's 4: a page is compressed on every request,
        # and at 4 that was a tenth of a table step's time (0.2 ms of 2.2) for 7 % fewer bytes
        # (3,285 against 3,511 for the step; 5.4 against 5.8 KB for the setup page).
        COMPRESS_BR_LEVEL=2,
        # Behind reverse proxies: how many of them set X-Forwarded-For/-Proto/-Host/-Port/
        # -Prefix (0: none, the headers are ignored). See trust_proxies.
        TRUSTED_PROXIES=0,
    )
    if overrides is None:
        app.config.from_pyfile("config.py", silent=True)
        load_environment(app)
    else:
        app.config.from_mapping(overrides)
    # PostgreSQL: a page reads one snapshot (REPEATABLE READ); a write that lost a race to
    # another phone fails cleanly and is answered "changed on another phone".
    # A pooled connection to a server may have been dropped (a restart, a proxy's idle
    # limit): checked with a ping when taken from the pool. An SQLite connection is a file
    # that cannot go away, so its ping (a statement on every request) is not sent.
    if str(app.config["SQLALCHEMY_DATABASE_URI"]).startswith("postgresql"):
        options = dict(app.config.get("SQLALCHEMY_ENGINE_OPTIONS") or {})
        options.setdefault("isolation_level", "REPEATABLE READ")
        options.setdefault("pool_pre_ping", True)
        app.config["SQLALCHEMY_ENGINE_OPTIONS"] = options
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_secret_key(app.instance_path)


def trust_proxies(app: Flask) -> None:
    """Behind ``TRUSTED_PROXIES`` reverse proxies, read the client's address, scheme, host, port
    and path prefix from their X-Forwarded-* headers (Werkzeug's ProxyFix), so that links the
    app makes (the live view's QR code) are the ones the phones use. With 0 the headers are
    ignored: anyone could send them."""
    try:
        count = int(app.config.get("TRUSTED_PROXIES") or 0)
    except (TypeError, ValueError):
        raise ValueError("TRUSTED_PROXIES must be a whole number of proxies") from None
    if count < 0:
        raise ValueError("TRUSTED_PROXIES must be a whole number of proxies")
    if count:
        app.wsgi_app = ProxyFix(
            app.wsgi_app, x_for=count, x_proto=count, x_host=count, x_port=count, x_prefix=count
        )


class SettingProblem(click.ClickException):
    """A setting the app cannot start with: ``flask serve`` (any ``flask`` command) prints
    its one line, ``Error: …``, and stops."""


# How long the start waits for the rate limit's redis before saying it is not there.
STORAGE_CONNECT_SECONDS = 5


def start_limiter(app: Flask, limiter: Limiter) -> None:
    """Bind the login limit to its storage (``RATELIMIT_STORAGE_URI``) and make sure it is
    there now: a misspelt or unreachable one stops the start with one line, rather than
    every wrong password later failing with a 500 (or a traceback in each worker)."""
    uri = str(app.config.get("RATELIMIT_STORAGE_URI") or "")
    if uri.startswith(("redis", "rediss")):
        options = app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {})
        options.setdefault("socket_connect_timeout", STORAGE_CONNECT_SECONDS)
        options.setdefault("socket_timeout", STORAGE_CONNECT_SECONDS)
    # The line may go to a log: a password in the URL is not written out.
    shown = re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", uri)
    where = f"SCOREKEEPER_RATELIMIT_STORAGE_URI={shown!r}"
    try:
        limiter.init_app(app)
    except Exception as error:  # limits' ConfigurationError, redis' ValueError for a bad URL
        raise SettingProblem(
            f"{where} cannot be used: {str(error).replace(uri, shown)} "
            "(database://, memory:// or redis://host:port/)"
        ) from None
    skip_middleware_check(app, limiter)
    skip_idle_limiter_hooks(app, limiter)
    storage = limiter.storage
    if not isinstance(storage, signins.DatabaseStorage) and not storage.check():
        raise SettingProblem(
            f"{where}: nothing answers there (is the redis server running and reachable?)"
        )


def skip_middleware_check(app: Flask, limiter: Limiter) -> None:
    """Flask-Limiter checks every request before its view for limits of the whole app, of
    its defaults and of blueprints; a view decorated with a limit (the login) checks its own
    in its wrapper. With none of the first kind set (the app sets none; a host could set
    ``SCOREKEEPER_RATELIMIT_DEFAULT``), that hook only resolves empty lists, a tenth of a
    small page's time (profiled): it is not run. Its teardown and headers stay."""
    manager = limiter.limit_manager
    if manager.default_limits or manager.application_limits:
        return
    if getattr(manager, "_blueprint_limits", None):
        return
    hooks = app.before_request_funcs.get(None, [])
    if limiter._check_request_limit in hooks:
        hooks.remove(limiter._check_request_limit)


# Where Flask-Limiter keeps a request's state (on the request context, made on first use).
LIMITER_STATE = "_limiter_request_context"


def skip_idle_limiter_hooks(app: Flask, limiter: Limiter) -> None:
    """Flask-Limiter's hook after each view (a failed guess deducted from the login's limit,
    the ``X-RateLimit-*`` headers) and its teardown read the request's limiter state; a
    request no limit was checked in has none, and each would make an empty one to find
    nothing in it: a twentieth of /healthz's calls (profiled). They run only when the state
    exists - checked here first to be where Flask-Limiter keeps it (else they stay)."""
    after = app.after_request_funcs.get(None, [])
    teardown = app.teardown_request_funcs.get(None, [])
    inject = getattr(Limiter, "_Limiter__inject_headers", None)
    headers = next((f for f in after if getattr(f, "func", None) is inject), None)
    release = getattr(limiter, "_Limiter__release_context", None)
    if headers is None or release not in teardown:
        return
    with app.test_request_context():
        _ = limiter.context
        if not hasattr(request_ctx, LIMITER_STATE):
            return

    def limiter_headers(response: Response) -> Response:
        return headers(response) if hasattr(request_ctx, LIMITER_STATE) else response

    def limiter_release(error: BaseException | None = None) -> None:
        if hasattr(request_ctx, LIMITER_STATE):
            release(error)

    after[after.index(headers)] = limiter_headers
    teardown[teardown.index(release)] = limiter_release
