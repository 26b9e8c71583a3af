"""How every view answers: the one rule for "fragment or full page", and per-form keys.

Not a blueprint: every blueprint may use it, and it imports none of them.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable, Hashable
from contextvars import ContextVar
from typing import Any
from urllib.parse import unquote, urlsplit

from cachetools import LRUCache
from flask import Flask, Response, current_app, make_response, render_template, request, url_for
from flask_babel import get_timezone
from flask_wtf.csrf import generate_csrf

from ..extensions import htmx
from ..i18n import locale_name


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
# once per version (and language, time zone, address and URL) and kept in this process;
# the per-visitor parts, the CSRF token and the forms' request keys, are rendered as marks
# and filled in on the way out. cachetools' LRUCache (maintained, bounded) under a lock:
# gunicorn's threads share it.

_CSRF_MARK = f"csrf-{secrets.token_hex(16)}"
# A form's request key, numbered within the page: each gets a fresh key on the way out.
_KEY_MARK = f"rk{secrets.token_hex(8)}"
_KEY_MARKS = re.compile(rf"{_KEY_MARK}n(\d+)n")
_keeping: ContextVar[list[int] | None] = ContextVar("keeping_page", default=None)


class PageCache:
    """Rendered pages by key, the least recently used dropped beyond ``size``."""

    def __init__(self, size: int) -> None:
        self._pages: LRUCache[Hashable, str] = LRUCache(maxsize=max(size, 1))
        self._lock = threading.Lock()
        self.enabled = size > 0

    def get(self, key: Hashable) -> str | None:
        with self._lock:
            return self._pages.get(key)

    def put(self, key: Hashable, html: str) -> None:
        if self.enabled:
            with self._lock:
                self._pages[key] = html


def csrf_token() -> str:
    """The form token templates write: a mark while a page is rendered to be kept."""
    return _CSRF_MARK if _keeping.get() is not None else generate_csrf()


def new_request_key() -> str:
    """A fresh key for one rendered form: its retries and double taps share it (a numbered
    mark while a page is rendered to be kept, each filled in with a fresh key when sent)."""
    forms = _keeping.get()
    if forms is not None:
        forms.append(len(forms))
        return f"{_KEY_MARK}n{forms[-1]}n"
    return secrets.token_urlsafe(16)


def _fill_in(html: str) -> str:
    """A kept page as one visitor gets it: their CSRF token, fresh request keys."""
    if _CSRF_MARK in html:
        html = html.replace(_CSRF_MARK, generate_csrf())
    if _KEY_MARK in html:
        keys: dict[str, str] = {}
        html = _KEY_MARKS.sub(
            lambda mark: keys.setdefault(mark.group(1), secrets.token_urlsafe(16)), html
        )
    return html


def init_app(app: Flask) -> None:
    """The page cache of this process (``PAGE_CACHE_SIZE`` pages, 0 for none)."""
    app.extensions["scorekeeper.pages"] = PageCache(int(app.config.get("PAGE_CACHE_SIZE", 256)))
    # Flask-WTF offers its own as a global and through a context processor: replace both.
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.context_processor(lambda: {"csrf_token": csrf_token})


def kept_html(key: Hashable | None, make: Callable[[], str]) -> str:
    """The HTML ``make`` renders, rendered once per ``key`` (with the viewer's language,
    time zone, host and URL added to it) and kept; ``None``: nothing kept (e.g. the game is
    not there, and ``make`` answers the 404)."""
    pages: PageCache = current_app.extensions["scorekeeper.pages"]
    if key is None or not pages.enabled:
        return make()
    full_key = (key, locale_name(), str(get_timezone()), request.host, request.full_path)
    html = pages.get(full_key)
    if html is None:
        token = _keeping.set([])
        try:
            html = make()
        finally:
            _keeping.reset(token)
        pages.put(full_key, html)
    return _fill_in(html)


def render_kept(
    key: Hashable | None,
    page_template: str,
    fragment_template: str | None,
    context: Callable[[], dict[str, Any]],
) -> Response:
    """:func:`render` of a page kept per ``key`` (see :func:`kept_html`): ``context`` is only
    called when the page is rendered, so a kept page costs no loading either."""
    partial = fragment_template is not None and bool(htmx) and not htmx.boosted
    template = fragment_template if partial else page_template
    html = kept_html(
        None if key is None else (key, template),
        lambda: render_template(template, **context()),
    )
    response = make_response(html)
    response.vary.add("HX-Request")
    return response


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
