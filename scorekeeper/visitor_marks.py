"""The parts of a page that belong to one visitor — the CSRF token and each form's request
key — as marks while a page is rendered to be kept for everyone, filled in per visitor.

Below the forms and the views, so a form's default request key and a template's key come
from the same place. Outside :func:`keeping` everything is generated at once, as usual.

Kept pages are safe by construction, not by each template's care: while a page is being
kept, whatever asks for the CSRF token (``csrf_token()``, ``form.hidden_tag()``, a form's
token field, Flask-WTF's ``generate_csrf``) gets the mark, because Flask-WTF hands out the
token it finds in ``flask.g`` and :func:`keeping` puts the mark there; and whatever asks for
another per-visitor value (the session, which holds the sign-in; the request's cookies, which
hold the language and time zone chosen — those are part of the page's key and read before)
raises :class:`VisitorValueInKeptPage`. The query string is cut down to the parameters the
page reads (its key), so two addresses that differ only in unread parameters are one page.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NoReturn
from urllib.parse import urlencode

from flask import current_app, g, has_request_context, request
from flask.globals import request_ctx
from flask_wtf.csrf import generate_csrf
from werkzeug.datastructures import ImmutableMultiDict

_CSRF_MARK = f"csrf-{secrets.token_hex(16)}"
# A form's request key, numbered within the page: each gets a fresh key on the way out.
_KEY_MARK = f"rk{secrets.token_hex(8)}"
# Every mark: the token's (no group) or a form's key (its number in the group).
_MARKS = re.compile(rf"{_CSRF_MARK}|{_KEY_MARK}n(\d+)n")
_keeping: ContextVar[list[int] | None] = ContextVar("keeping_page", default=None)


class VisitorValueInKeptPage(RuntimeError):
    """A page rendered to be kept for everyone asked for something of one visitor."""


def _refuse(what: str) -> NoReturn:
    raise VisitorValueInKeptPage(
        f"A page kept for every visitor read {what}: render it with render() instead, or"
        " make that value part of the page's key."
    )


class _Guard:
    """Stands in for the session or the cookies while a page is kept: any use raises."""

    def __init__(self, what: str) -> None:
        object.__setattr__(self, "_what", what)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "accessed":  # Flask marks the session as read before handing it out
            return
        _refuse(self._what)

    def __getattr__(self, name: str) -> NoReturn:
        _refuse(self._what)

    def __getitem__(self, key: Any) -> NoReturn:
        _refuse(self._what)

    def __setitem__(self, key: Any, value: Any) -> NoReturn:
        _refuse(self._what)

    def __contains__(self, key: Any) -> NoReturn:
        _refuse(self._what)

    def __iter__(self) -> NoReturn:
        _refuse(self._what)

    def __len__(self) -> NoReturn:
        _refuse(self._what)

    def __bool__(self) -> NoReturn:
        _refuse(self._what)


def kept_query(reads: Iterable[str]) -> str:
    """The query string of this request cut down to the parameters ``reads`` names, in a
    fixed order (part of a kept page's key)."""
    wanted = sorted(set(reads))
    return urlencode([(name, value) for name in wanted for value in request.args.getlist(name)])


# The request's cached properties that follow from its query string.
_FROM_QUERY = ("args", "full_path", "url")


@contextmanager
def keeping(reads: Iterable[str] = ()) -> Iterator[None]:
    """Within this block, tokens and keys are rendered as marks (see :func:`fill_in`), the
    session and the cookies refuse to be read, and the query string holds only ``reads``."""
    token = _keeping.set([])
    if not has_request_context():
        try:
            yield
        finally:
            _keeping.reset(token)
        return
    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    missing = object()
    saved_token = g.get(field, missing)
    setattr(g, field, _CSRF_MARK)
    context = request_ctx._get_current_object()
    saved_session = context._session
    context._session = _Guard("the session (sign-in, CSRF secret)")
    wrapped = request._get_current_object()
    wanted = sorted(set(reads))
    read = [(name, value) for name in wanted for value in wrapped.args.getlist(name)]
    saved = {name: wrapped.__dict__.pop(name, missing) for name in (*_FROM_QUERY, "cookies")}
    saved_query = wrapped.query_string
    wrapped.query_string = urlencode(read).encode()
    wrapped.__dict__["args"] = ImmutableMultiDict(read)
    wrapped.__dict__["cookies"] = _Guard("the request's cookies")
    try:
        yield
    finally:
        _keeping.reset(token)
        if saved_token is missing:
            g.pop(field, None)
        else:
            setattr(g, field, saved_token)
        context._session = saved_session
        wrapped.query_string = saved_query
        for name in (*_FROM_QUERY, "cookies"):
            wrapped.__dict__.pop(name, None)
            if saved[name] is not missing:
                wrapped.__dict__[name] = saved[name]


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


# What a mark stands for: None for the CSRF token, a form's number for its request key.
Mark = int | None


def cut_at_marks(html: str) -> tuple[list[str], list[Mark]]:
    """A page rendered to be kept, cut at its marks: the text around them (one piece more
    than there are marks) and what each mark stands for."""
    pieces: list[str] = []
    marks: list[Mark] = []
    position = 0
    for found in _MARKS.finditer(html):
        pieces.append(html[position : found.start()])
        marks.append(None if found.group(1) is None else int(found.group(1)))
        position = found.end()
    pieces.append(html[position:])
    return pieces, marks


def visitor_values(marks: Iterable[Mark]) -> list[str]:
    """What each mark of a kept page is for this visitor: their CSRF token, and a fresh key
    for each form (the same for every mark of one form)."""
    token = ""
    keys: dict[int, str] = {}
    values = []
    for mark in marks:
        if mark is None:
            token = token or generate_csrf()
            values.append(token)
        else:
            if mark not in keys:
                keys[mark] = secrets.token_urlsafe(16)
            values.append(keys[mark])
    return values


def fill_in(html: str) -> str:
    """A kept page as one visitor gets it: their CSRF token, a fresh key for each form."""
    pieces, marks = cut_at_marks(html)
    values = visitor_values(marks)
    return "".join(piece + value for piece, value in zip(pieces, [*values, ""], strict=True))
