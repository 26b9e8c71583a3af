"""How every view answers: the one rule for "fragment or full page", and per-form keys.

Not a blueprint: every blueprint may use it, and it imports none of them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from cachetools import LRUCache
from flask import (
    Flask,
    Response,
    current_app,
    g,
    has_request_context,
    make_response,
    render_template,
    request,
    url_for,
)

from ..extensions import htmx
from ..i18n import LANGUAGE_COOKIE, TIMEZONE_COOKIE, select_locale, select_timezone


def render(
    page_template: str,
    fragment_template: str | None = None,
    status: int = 200,
    /,
    **context: Any,
) -> Response:
    """The fragment for htmx's own requests (a boosted navigation wants the whole page), the
    full page otherwise — which includes the fragment, so each piece of HTML has one source.
    The answer varies with ``HX-Request``, so no cache mixes the two up."""
    partial = fragment_template is not None and bool(htmx) and not htmx.boosted
    template = fragment_template if partial else page_template
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


# --- pages that only read ---------------------------------------------------------------------
#
# A page that only reads (the games list, a game's page, a player's page, the ladder, the
# live view, the boards) carries nothing of the visitor: no CSRF token, no request key. So it
# is the same for everyone who reads it in the same language and time zone, and a phone that
# has it already is answered "not modified" by the standard validators: an ETag made from
# what the page shows (the data version, raised by every stored change) and
# ``Cache-Control: no-cache``, so that the phone asks every time. Nothing is kept here.

# Set in ``flask.g`` while a read-only page is answered: the page template leaves out the
# visitor's CSRF token (base.html), and a template that asks for one anyway fails the
# two-visitor tests.
READS_ONLY = "scorekeeper_reads_only"


def page_tag(*parts: object) -> str:
    """A weak ETag's value for a read-only page made from ``parts`` (the version of what it
    shows): with the viewer's language and time zone, the address (its query included), the
    app's build (an upgrade changes the pages) and whether htmx asks for the fragment. Weak:
    the same page in another compression is the same page (and Flask-Compress leaves weak
    tags alone)."""
    fragment = "f" if htmx and not htmx.boosted else "p"
    return ".".join(
        map(str, (*parts, viewer_tag(), fragment, current_app.config["BUILD_TAG"], here()))
    )


def read_only(tag: str | None, make: Callable[[], Response]) -> Response:
    """A read-only page: ``make`` answers it, unless the phone already has the version
    ``tag`` stands for (then a 304, without rendering). ``tag`` None: no validator (e.g. the
    page shows figures being brought up to date)."""
    if tag is not None and request.if_none_match.contains_weak(tag):
        response = Response(status=304)
    else:
        # Only while this page is made: an app context shared by several requests (a test's,
        # or a view answering with another view) must not leave it set for a writing page.
        setattr(g, READS_ONLY, True)
        try:
            response = make()
        finally:
            g.pop(READS_ONLY, None)
        if g.pop(PROVISIONAL, False):
            tag = None
    if tag is not None and response.status_code in (200, 304):
        response.set_etag(tag, weak=True)
    response.cache_control.no_cache = True
    # What the tag already names, for any cache between (the language and zone cookies).
    response.vary.update(("Cookie", "Accept-Language", "HX-Request"))
    return response


# Set in ``flask.g`` by a page that shows something about to change without a new data
# version (the last complete ladder while a newer one is computed): sent without a tag.
PROVISIONAL = "scorekeeper_provisional"


def provisional() -> None:
    """The read-only page being rendered shows figures being brought up to date: answered
    without a validator, so that the next visit renders it again."""
    setattr(g, PROVISIONAL, True)


def render_read_only(
    tag: str | None,
    page_template: str,
    fragment_template: str | None,
    context: Callable[[], dict[str, Any] | tuple[int, dict[str, Any]]],
) -> Response:
    """:func:`render` of a read-only page (see :func:`read_only`): ``context`` is called only
    when the page is rendered. It gives the template's context, or a status and the context
    (a refusal, e.g. a filter out of range)."""

    def make() -> Response:
        built = context()
        status, values = built if isinstance(built, tuple) else (200, built)
        return render(page_template, fragment_template, status, **values)

    return read_only(tag, make)


def init_app(app: Flask) -> None:
    app.extensions["scorekeeper.viewers"] = Viewers()
    app.jinja_env.globals["here"] = here
    app.jinja_env.globals["url_for"] = PageLinks().url_for
    app.config.setdefault("BUILD_TAG", "")


# The values a link is kept by: equal ones of these types are written alike in a link.
_KEYED_TYPES = frozenset({str, int, bool, type(None)})


class PageLinks:
    """The templates' ``url_for``: Flask's, each link built once per path prefix and page.

    Every page builds a dozen links of its frame (the navigation, the hashed stylesheet and
    scripts) and more of its own; Werkzeug builds each again on every request (4 µs for a
    link without values, 12 for a static file: Flask's URL defaults then give its hashed
    name). A link is a function of the endpoint, its values, the path prefix (a proxy's
    X-Forwarded-Prefix) and the page it is on (the offline page links the plain names): the
    key. It holds only while no URL default reads anything else of the request (the app's
    one, ``hashed_static_url``, reads the page's endpoint). External links, links relative
    to the blueprint, any with options (``_anchor`` …) and any with a value other than a
    string, a number of type int, a bool or None are built every time. At most
    ``size`` links are kept (then it starts again)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._built: dict[tuple, str] = {}

    def url_for(self, endpoint: str, **values: Any) -> str:
        if (
            endpoint[:1] == "."
            or any(name[:1] == "_" for name in values)
            or not has_request_context()
        ):
            return url_for(endpoint, **values)
        # The values' types too: True and 1 are equal keys, not the same link. Only values
        # whose equal ones are written alike in a link: (1, 1) and (1, True), Decimal 1 and
        # 1.0, 0.0 and -0.0, one instant in two zones are equal keys but other links, and a
        # list cannot be part of a key: such values are built as usual.
        types = tuple(map(type, values.values()))
        if not _KEYED_TYPES.issuperset(types):
            return url_for(endpoint, **values)
        page = request._get_current_object()  # type: ignore[attr-defined]
        rule = page.url_rule
        key = (endpoint, page.root_path, rule and rule.endpoint, *values.items(), *types)
        try:
            return self._built[key]
        except KeyError:
            pass
        link = url_for(endpoint, **values)
        if len(self._built) >= self.size:
            self._built.clear()
        self._built[key] = link
        return link


class Viewers:
    """The language and time zone that i18n's selectors choose for what they read (the
    language and zone cookies, the ``Accept-Language`` header), the last ``size`` choices
    remembered: a phone polling a board sends the same every time, and finding them again
    through Flask-Babel (Locale.parse, pytz, the header matched) was a fifth of answering
    "not modified" (pyinstrument). Nothing else of the visitor is kept."""

    # Longer values are chosen again every time (a few bytes each, whatever is sent).
    LONGEST = 256

    def __init__(self, size: int = 1024) -> None:
        self._found: LRUCache[tuple[str, str, str], tuple[str, str]] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def of_request(self) -> tuple[str, str]:
        cookies = request.cookies
        read = (
            cookies.get(LANGUAGE_COOKIE, ""),
            cookies.get(TIMEZONE_COOKIE, ""),
            request.environ.get("HTTP_ACCEPT_LANGUAGE", ""),
        )
        with self._lock:
            found = self._found.get(read)
        if found is None:
            found = (select_locale(), select_timezone())
            if sum(map(len, read)) <= self.LONGEST:
                with self._lock:
                    self._found[read] = found
        return found


def viewer() -> tuple[str, str]:
    """The viewer's language and time zone, by name (what i18n's selectors choose): found
    once per request, before a page is kept (which then cannot read the cookies)."""
    found: tuple[str, str] | None = g.get(_VIEWER)
    if found is None:
        viewers: Viewers = current_app.extensions["scorekeeper.viewers"]
        found = viewers.of_request()
        setattr(g, _VIEWER, found)
    return found


_VIEWER = "scorekeeper_viewer"


def viewer_tag() -> str:
    """What of the viewer an answer varies by besides the game: language and time zone (part
    of the ETags of polled pages, so a switched language is not answered "not modified")."""
    language, zone = viewer()
    return f"{language}.{zone.replace('/', '.')}"


def here() -> str:
    """This page's address with its query string (under the path prefix: a proxy's
    X-Forwarded-Prefix)."""
    query = request.query_string.decode()
    path = request.script_root + request.path
    return f"{path}?{query}" if query else path


# Anything a browser could read as another host: a scheme or "//" (after decoding, and with
# backslashes, which browsers treat as slashes), or control characters and spaces, which
# browsers drop from a Location header ("/\t/evil.example" becomes "//evil.example").
_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")


def safe_path(target: str | None) -> str:
    """``target`` when it is a path of this site, else the home page: never an open
    redirect to another host."""
    if target and target.startswith("/"):
        for candidate in (target, unquote(target), unquote(unquote(target))):
            if _UNSAFE.search(candidate) or candidate.startswith("//"):
                break
            if urlsplit(candidate).netloc or urlsplit(candidate).scheme:
                break
        else:
            return target
    return url_for("main.home")
