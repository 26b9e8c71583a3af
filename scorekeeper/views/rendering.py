"""How every view answers: the one rule for "fragment or full page", and per-form keys.

Not a blueprint: every blueprint may use it, and it imports none of them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any
from urllib.parse import unquote, urlsplit

from cachetools import LRUCache
from flask import (
    Flask,
    Response,
    current_app,
    g,
    make_response,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale, get_timezone

from ..extensions import htmx
from ..i18n import LANGUAGE_COOKIE, TIMEZONE_COOKIE, select_locale, select_timezone
from ..queries import data_version
from ..visitor_marks import csrf_token, keeping, kept_query
from .kept_bodies import KeptPage, coded_etag, kept_coding


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


# --- pages kept per game version ------------------------------------------------------------
#
# A finished game's page, a score sheet or the live board is the same HTML for everyone
# until the game changes: every write raises the game's version. Such a page is rendered
# once per version (and language, time zone, address and the query parameters it reads) and
# kept in this process; the per-visitor parts, the CSRF token and the forms' request keys,
# are rendered as marks and filled in on the way out (visitor_marks: while a page is kept,
# nothing else of the visitor can be read), into a gzip stream made once (kept_bodies).
# cachetools' LRUCache (maintained, bounded by the pages' size in bytes as well as their
# number) under a lock: the server's threads share it.


def _page_bytes(page: KeptPage) -> int:
    return page.weight


class PageCache:
    """Rendered pages (:class:`KeptPage`) by key, the least recently used dropped beyond
    ``size`` pages or ``max_bytes`` of HTML."""

    def __init__(self, size: int, max_bytes: int = 64 * 2**20) -> None:
        self.enabled = size > 0 and max_bytes > 0
        self._max_bytes = max(max_bytes, 1)
        self._size = max(size, 1)
        self._pages: LRUCache[Hashable, KeptPage] = LRUCache(
            maxsize=self._max_bytes, getsizeof=_page_bytes
        )
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> KeptPage | None:
        with self._lock:
            return self._pages.get(key)

    def put(self, key: Hashable, page: KeptPage) -> None:
        if not self.enabled or _page_bytes(page) > self._max_bytes:
            return
        with self._lock:
            while len(self._pages) >= self._size and key not in self._pages:
                self._pages.popitem()
            self._pages[key] = page

    @property
    def bytes(self) -> int:
        """The size of the pages kept now (``currsize``: what the bound counts)."""
        with self._lock:
            return int(self._pages.currsize)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pages)


def init_app(app: Flask) -> None:
    """The page cache of this process (``PAGE_CACHE_SIZE`` pages and at most
    ``PAGE_CACHE_BYTES`` of HTML; 0 for none)."""
    app.extensions["scorekeeper.pages"] = PageCache(
        int(app.config.get("PAGE_CACHE_SIZE", 256)),
        int(app.config.get("PAGE_CACHE_BYTES", 64 * 2**20)),
    )
    app.extensions["scorekeeper.viewers"] = Viewers()
    # Flask-WTF offers its own as a global and through a context processor: replace both.
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["here"] = here
    app.context_processor(lambda: {"csrf_token": csrf_token})


def kept_html(key: Hashable | None, make: Callable[[], str], reads: Iterable[str] = ()) -> str:
    """The HTML ``make`` renders, rendered once per ``key`` (with the data version — raised
    by every stored change — and the viewer's language, time zone, host and the query
    parameters ``reads`` names added to it) and kept; ``None``: nothing kept (e.g. the game
    is not there, and ``make`` answers the 404)."""
    return _kept(key, lambda: (200, make()), reads).html()


def kept_response(
    key: Hashable | None, make: Callable[[], str], etag: str, reads: Iterable[str] = ()
) -> Response:
    """:func:`kept_html` as the answer, compressed once for everyone (kept_bodies), with
    the strong tag ``etag`` (and the coding sent, as Flask-Compress names it)."""
    return _kept(key, lambda: (200, make()), reads).response(etag)


def kept_etag(etag: str) -> str:
    """The tag a 304 for a kept page carries: with the coding its 200 is sent in (without
    one when Flask-Compress compresses it: its hook names the coding)."""
    pages: PageCache = current_app.extensions["scorekeeper.pages"]
    return coded_etag(etag, kept_coding() if pages.enabled else None)


def _kept(
    key: Hashable | None, make: Callable[[], tuple[int, str]], reads: Iterable[str] = ()
) -> KeptPage:
    pages: PageCache = current_app.extensions["scorekeeper.pages"]
    if key is None or not pages.enabled:
        return KeptPage(*make(), shared=False)
    reads = tuple(reads)
    # The data version too: what a page shows of other records (a player's name) may change
    # without its own key (a game's version) moving. Read in the page's own transaction,
    # before its data: it is raised only after a write commits, so a page read under this
    # counter shows at least what the counter stands for.
    version = data_version()
    full_key = (
        key,
        version,
        *viewer(),
        request.host,
        request.path,
        kept_query(reads),
    )
    found = pages.get(full_key)
    if found is None:
        # Flask-Babel finds the language and zone from the cookies, which a page being kept
        # cannot read: found now, as the key's names were.
        get_locale(), get_timezone()
        with keeping(reads):
            found = KeptPage(*make())
        # Kept only under the version the page's own snapshot read: a page whose reads
        # ended the transaction (and so may show later data) or that asked not to be kept
        # (it shows derived figures being brought up to date) is answered, not kept.
        if not g.pop(DONT_KEEP, False) and data_version() == version:
            pages.put(full_key, found)
        else:
            found.shared = False
    return found


# Set in ``flask.g`` by a page that must not be kept (see :func:`dont_keep`).
DONT_KEEP = "scorekeeper_dont_keep"


def dont_keep() -> None:
    """The page being rendered is answered but not kept (e.g. it shows the last complete
    ladder while a newer one is computed)."""
    g.setdefault(DONT_KEEP, True)


Context = dict[str, Any] | tuple[int, dict[str, Any]]


def render_kept(
    key: Hashable | None,
    page_template: str,
    fragment_template: str | None,
    context: Callable[[], Context],
    reads: Iterable[str] = (),
) -> Response:
    """:func:`render` of a page kept per ``key`` (see :func:`kept_html`): ``context`` is only
    called when the page is rendered, so a kept page costs no loading either. It gives the
    template's context, or a status and the context (a refusal that follows from the key,
    e.g. a filter out of range, is kept too). ``reads``: the query parameters the page reads
    (the others are not part of its key, and the page does not see them)."""
    partial = fragment_template is not None and bool(htmx) and not htmx.boosted
    template = fragment_template if partial else page_template

    def make() -> tuple[int, str]:
        built = context()
        status, values = built if isinstance(built, tuple) else (200, built)
        return status, render_template(template, **values)

    response = _kept(None if key is None else (key, template), make, reads).response()
    response.vary.add("HX-Request")
    return response


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
    """This page's address with its query string (as the page read it, when kept)."""
    query = request.query_string.decode()
    return f"{request.path}?{query}" if query else request.path


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
