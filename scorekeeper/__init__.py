"""Wizard Scorekeeper: keeps score for the card game Wizard."""

import base64
import contextlib
import hashlib
import logging
import os
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote
from wsgiref.headers import Headers

import rcssmin
import rjsmin
from flask import Flask, Response, abort, has_request_context, request
from flask.sessions import SecureCookieSessionInterface
from flask_compress import Compress
from jinja2 import StrictUndefined
from markupsafe import Markup
from werkzeug.routing import IntegerConverter, Map
from whitenoise import WhiteNoise
from whitenoise.compress import Compressor

from . import cli, config, errors, hosts, i18n, models, templating, views
from .extensions import babel, csrf, db, htmx, limiter, migrate

# No inline script or style anywhere (but the stylesheet and the script loader themselves,
# allowed by their hashes: inline_head): htmx runs with eval and its inline styles
# turned off.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
# On every answer that does not set its own (lower-cased name, name, value; no value: the
# policy above, with the inline stylesheet's and loader's hashes).
SECURITY_HEADERS = (
    ("content-security-policy", "Content-Security-Policy", ""),
    ("x-content-type-options", "X-Content-Type-Options", "nosniff"),
    ("referrer-policy", "Referrer-Policy", "same-origin"),
)
PROJECT_ROOT = config.PROJECT_ROOT
CSRF_HOOK = "CSRFProtect.init_app.<locals>.csrf_protect"  # Flask-WTF's before_request
MIGRATIONS_DIR = str(config.PACKAGE_DIR / "migrations")

# Static files: a file named with its content hash never changes, so browsers keep it a year
# without asking again; the plain names are still served, checked on every use.
HASHED_CACHE_CONTROL = "public, max-age=31536000, immutable"
PLAIN_CACHE_CONTROL = "no-cache"
STATIC_BUILD_FOLDER = "static-cache"  # in the instance folder: a sub-folder per set of contents
STALE_BUILD_SECONDS = 7 * 24 * 60 * 60
KEPT_BUILDS = 3  # the latest builds stay, however old
# Part of a build's name: a build made before its files lost their mtimes is not reused.
STATIC_BUILD_FORMAT = b"2: no mtimes\n"
# The service worker stores the offline notice with the plain names of its KEEP list (sw.js),
# so that page names its files by those.
PLAIN_STATIC_ENDPOINTS = frozenset({"main.offline"})
logger = logging.getLogger(__name__)


class ScorekeeperFlask(Flask):
    """Flask, with each hook's and view's sync wrapper found once: Flask asks for every one
    of them on every request (a dozen hooks), and each answer inspects the function again
    (whether it is a coroutine function): a twentieth of a small page's calls, profiled."""

    _SYNCED_KEPT = 1024  # functions: the app registers about a hundred
    jinja_environment = templating.TemplateEnvironment

    def ensure_sync(self, func: Any) -> Any:
        synced: dict[Any, Any] = self.__dict__.setdefault("_synced", {})
        try:
            return synced[func]
        except KeyError:
            pass
        except TypeError:  # unhashable: asked each time
            return super().ensure_sync(func)
        if len(synced) >= self._SYNCED_KEPT:
            synced.clear()
        found = synced[func] = super().ensure_sync(func)
        return found


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the application; ``test_config`` replaces the instance file and environment."""
    app = ScorekeeperFlask(
        __name__,
        instance_relative_config=True,
        instance_path=config.instance_path(),
        template_folder=config.resource_folder("templates"),
        static_folder=config.resource_folder("static"),
    )
    os.makedirs(app.instance_path, exist_ok=True)
    config.configure(app, test_config)
    app.session_interface = KeptSigningSessions()
    hosts.init_app(app)
    # A template that needs a variable its view forgot fails loudly instead of printing "".
    app.jinja_env.undefined = StrictUndefined
    app.jinja_env.add_extension("jinja2.ext.do")
    # The request's language, found once per request (Flask-Babel finds it again per call).
    app.jinja_env.globals["current_locale"] = i18n.locale_name
    # The zone a page's times are written in (``data-times``): app.js reloads the page only
    # when the browser's own zone is another one.
    app.jinja_env.globals["shown_zone"] = lambda: views.rendering.viewer()[1]
    app.jinja_env.globals["app_version"] = config.app_version()
    app.config["BUILD_TAG"] = config.app_version()

    # Ids in URLs fit the database's integer: a larger one is no page (404), not a crash.
    app.url_map.converters["int"] = DatabaseId
    db.init_app(app)
    with app.app_context():
        models.sqlite_pragmas(db.engine, int(app.config["SQLITE_BUSY_TIMEOUT_MS"]))
    migrate.init_app(app, db, directory=MIGRATIONS_DIR, render_as_batch=True)
    # The password and the body's limit come before the CSRF check, which reads the form.
    views.access.guard_bodies(app)
    csrf.init_app(app)
    check_forms_only(app)
    htmx.init_app(app)
    config.start_limiter(app, limiter)
    babel.init_app(app, locale_selector=i18n.select_locale, timezone_selector=i18n.select_timezone)
    i18n.init_app(app)
    errors.init_app(app)

    views.register(app)
    cli.init_app(app)
    serve_compressed(app)
    serve_static(app)
    hosts.guard(app)
    inline_head(app)
    config.trust_proxies(app)
    return app


def check_forms_only(app: Flask) -> None:
    """Flask-WTF's CSRF hook, run only for the methods it checks (``WTF_CSRF_METHODS``, the
    ones that change something): before the method it looks up the view's exemptions, on
    every GET too, a thirtieth of /healthz's calls (profiled). Left as it is if its hook is
    not found."""
    hooks = app.before_request_funcs.get(None, [])
    protect = next((f for f in hooks if f.__qualname__ == CSRF_HOOK), None)
    if protect is None:
        return

    def csrf_protect() -> None:
        if request.method in app.config["WTF_CSRF_METHODS"]:
            protect()

    hooks[hooks.index(protect)] = csrf_protect


class DatabaseId(IntegerConverter):
    """``<int:...>`` in routes: a non-negative number that fits a 32-bit database integer."""

    def __init__(self, url_map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", 2**31 - 1)
        super().__init__(url_map, *args, **kwargs)


class KeptSigningSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with the signing serializer made once per set of keys
    rather than on every request (Flask builds it anew each time, which tests the JSON
    serializer by encoding a value: a sixth of a small page's time, profiled)."""

    def __init__(self) -> None:
        self._serializers: dict[tuple, Any] = {}

    def get_signing_serializer(self, app: Flask) -> Any:
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if (found := self._serializers.get(keys)) is None:
            found = super().get_signing_serializer(app)
            if len(self._serializers) > 8:  # keys changed while running: keep only these
                self._serializers.clear()
            self._serializers[keys] = found
        return found


# --- compressed responses and static files ---------------------------------------------------


def serve_compressed(app: Flask) -> None:
    """HTML, JSON and the like compressed as the browser asks (Flask-Compress: Brotli, else
    gzip; settings ``COMPRESS_*``); then the security headers on every answer (those it does
    not set itself). The app's own ETags are weak (the same page in any coding), which
    Flask-Compress leaves as they are.

    One hook, reading the answer's headers once: an answer Flask-Compress would leave as it
    is (too small to gain, as a health check; not a success, as a 304 or a redirect) gets
    its Vary without Flask-Compress's own pass, and the security headers are added without
    a lookup each (Werkzeug's raises and catches a KeyError per missing header): two hooks
    had been a seventh of /healthz's calls (profiled)."""
    app.config["COMPRESS_REGISTER"] = False
    app.config["COMPRESS_EVALUATE_CONDITIONAL_REQUEST"] = False
    compress = Compress(app)
    smallest = int(app.config["COMPRESS_MIN_SIZE"])

    def compressed(response: Response) -> Response:
        body = response.response
        response = compress.after_request(response)
        # A streamed body (a file) compressed on the way is replaced: it still gets closed.
        if response.response is not body and (close := getattr(body, "close", None)):
            response.call_on_close(close)
        return response

    def finished(response: Response) -> Response:
        present = {name.lower(): value for name, value in response.headers}
        length = present.get("content-length")
        status = response.status_code
        if (
            200 <= status < 300
            and (length is None or int(length) >= smallest)
            and "content-encoding" not in present
        ):
            response = compressed(response)
            present = {name.lower(): value for name, value in response.headers}
        elif (vary := present.get("vary")) is None:
            # What Flask-Compress does with an answer it leaves as it is (not a success, too
            # small to gain, already coded): its Vary only.
            response.headers.add("Vary", "Accept-Encoding")
        elif "accept-encoding" not in vary.lower():
            response.headers["Vary"] = f"{vary}, Accept-Encoding" if vary else "Accept-Encoding"
        policy = app.extensions.get("page_policy", CONTENT_SECURITY_POLICY)
        for lowered, name, value in SECURITY_HEADERS:
            if lowered not in present:
                response.headers.add(name, value or policy)
        return response

    app.after_request(finished)


def serve_static(app: Flask) -> None:
    """Static files through WhiteNoise, in front of Flask: each under a content-hashed name
    kept a year (``url_for('static', ...)`` gives it) and under its plain name (checked on
    every use), both precompressed with Brotli and gzip. Under ``flask run --debug`` Flask
    serves the folder as it is, so an edit shows on reload."""
    if app.debug or app.static_folder is None:
        return
    try:
        root, names = build_static(Path(app.static_folder), Path(app.instance_path))
    except OSError as error:  # e.g. a read-only instance folder: serve the files as they are
        logger.warning("static files served without hashed names: %s", error)
        root, names = Path(app.static_folder), {}
    # Pages name the files by their hashes: a page's ETag names the build (page_tag).
    app.config["BUILD_TAG"] = f"{app.config['BUILD_TAG']}-{root.name}"
    prefix = f"{app.static_url_path}/"
    hashed = {prefix + name for name in names.values()}
    # Each file's ETag is its content hash under both names, the same on every host of a
    # club (WhiteNoise's own is the file's mtime, which differs from host to host).
    tags: dict[str, str] = {}
    for plain, name in names.items():
        tag = '"' + hashlib.sha256((root / plain).read_bytes()).hexdigest()[:16] + '"'
        tags[prefix + plain] = tags[prefix + name] = tag

    def cache_headers(headers: Headers, path: str, url: str) -> None:
        headers["Cache-Control"] = HASHED_CACHE_CONTROL if url in hashed else PLAIN_CACHE_CONTROL
        if (tag := tags.get(url)) is not None:
            headers["ETag"] = tag
        headers["X-Content-Type-Options"] = "nosniff"

    app.wsgi_app = WhiteNoise(  # type: ignore[method-assign]
        app.wsgi_app,
        root=str(root),
        prefix=prefix,
        max_age=None,
        allow_all_origins=False,
        add_headers_function=cache_headers,
    )
    # Only WhiteNoise serves them; Flask's route stays for building URLs.
    app.view_functions["static"] = lambda filename: abort(404)
    app.url_defaults(partial(hashed_static_url, names))


def inline_head(app: Flask) -> None:
    """The loader that starts app.js, htmx and the manifest once the page has painted
    (static/loader.js, 1 KB) goes inline in every page's head, allowed by its hash in the
    policy — never ``'unsafe-inline'``: the scripts never delay the first paint. The
    stylesheet is linked (a content-hashed file, kept a year: one download per phone).

    Read once at start (a server restart shows an edit, as with the hashed file names)."""
    app.jinja_env.globals["inline_loader"] = ""
    app.jinja_env.globals["icon_uri"] = ""
    if app.static_folder is None:
        return
    folder = Path(app.static_folder)
    text = minified("loader.js", (folder / "loader.js").read_bytes()).decode()
    if "</" in text:
        raise ValueError("static/loader.js cannot be inlined: it contains '</'")
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    app.jinja_env.globals["inline_loader"] = Markup(text)  # our own file, checked above
    app.extensions["page_policy"] = CONTENT_SECURITY_POLICY.replace(
        "script-src 'self'", f"script-src 'self' 'sha256-{digest}'"
    )
    # The tab's icon in the page itself: no request for it (nor for /favicon.ico) either.
    icon = (folder / "icon.svg").read_bytes().decode()
    app.jinja_env.globals["icon_uri"] = "data:image/svg+xml," + quote(icon)


def hashed_static_url(names: dict[str, str], endpoint: str, values: dict[str, Any]) -> None:
    """``url_for('static', filename='app.css')`` names ``app.<hash>.css``."""
    if endpoint != "static" or (
        has_request_context() and request.endpoint in PLAIN_STATIC_ENDPOINTS
    ):
        return
    if (name := names.get(values.get("filename", ""))) is not None:
        values["filename"] = name


def hashed_name(relative: str, digest: str) -> str:
    """``vendor/htmx.min.js`` -> ``vendor/htmx.min.<digest>.js`` (the hash before the suffix)."""
    path = PurePosixPath(relative)
    return str(path.with_name(f"{path.stem}.{digest}{path.suffix}"))


def build_static(source: Path, instance: Path) -> tuple[Path, dict[str, str]]:
    """The folder WhiteNoise serves, and the hashed name of each file (by its plain name).

    The folder holds every file of ``source`` under its plain and its hashed name, with
    ``.br`` and ``.gz`` beside it (WhiteNoise's compressor), and is named after all contents:
    built once into a temporary folder and renamed into place, so that workers starting
    together or another version of the app never see a file half written."""
    # Read once: a file saved meanwhile is in the next build, never under this one's names.
    data = {
        relative: minified(relative, path.read_bytes())
        for path in sorted(source.rglob("*"))
        if path.is_file() and (relative := path.relative_to(source).as_posix())
    }
    names: dict[str, str] = {}
    contents = hashlib.sha256(STATIC_BUILD_FORMAT)
    for relative, content in data.items():
        digest = hashlib.sha256(content).hexdigest()[:12]
        names[relative] = hashed_name(relative, digest)
        contents.update(f"{relative}\0{digest}\n".encode())
    builds = instance / STATIC_BUILD_FOLDER
    folder = builds / contents.hexdigest()[:16]
    if not folder.is_dir():
        builds.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".build-", dir=builds))
        compressor = Compressor(quiet=True)
        for relative, name in names.items():
            plain = building / relative
            plain.parent.mkdir(parents=True, exist_ok=True)
            plain.write_bytes(data[relative])
            shutil.copyfile(plain, building / name)
            if compressor.should_compress(relative):
                for compressed in compressor.compress(str(plain)):
                    shutil.copyfile(compressed, str(building / name) + compressed[-3:])
        # No modification times of this host: WhiteNoise then sends no Last-Modified (which
        # would differ between hosts), only the content-hash ETag above.
        for built in building.rglob("*"):
            if built.is_file():
                os.utime(built, (0, 0))
        try:
            building.rename(folder)
        except OSError:  # built at the same moment by another worker
            shutil.rmtree(building, ignore_errors=True)
    prune_builds(builds, folder)
    return folder, names


def minified(relative: str, content: bytes) -> bytes:
    """A stylesheet or script as served: without comments and needless spaces (rcssmin and
    rjsmin, maintained and dependency-free; licence comments ``/*! … */`` kept). Files
    already minified (``*.min.*``) and every other file are served as they are."""
    if ".min." in relative:
        return content
    if relative.endswith(".css"):
        return rcssmin.cssmin(content.decode(), keep_bang_comments=True).encode()
    if relative.endswith(".js"):
        return rjsmin.jsmin(content.decode(), keep_bang_comments=True).encode()
    return content


def prune_builds(builds: Path, current: Path) -> None:
    """Remove the builds of other contents older than a week, except the latest few (a
    server of the version before may still be running on one)."""
    ages: list[tuple[float, Path]] = []
    for other in builds.iterdir():
        with contextlib.suppress(OSError):  # removed meanwhile by another worker
            ages.append((time.time() - other.stat().st_mtime, other))
    for age, other in sorted(ages)[KEPT_BUILDS:]:
        if other != current and age > STALE_BUILD_SECONDS:
            shutil.rmtree(other, ignore_errors=True)
