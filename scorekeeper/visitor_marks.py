"""The parts of a page that belong to one visitor — the CSRF token and each form's request
key — as marks while a page is rendered to be kept for everyone, filled in per visitor.

Below the forms and the views, so a form's default request key and a template's key come
from the same place. Outside :func:`keeping` everything is generated at once, as usual.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from flask_wtf.csrf import generate_csrf

_CSRF_MARK = f"csrf-{secrets.token_hex(16)}"
# A form's request key, numbered within the page: each gets a fresh key on the way out.
_KEY_MARK = f"rk{secrets.token_hex(8)}"
_KEY_MARKS = re.compile(rf"{_KEY_MARK}n(\d+)n")
_keeping: ContextVar[list[int] | None] = ContextVar("keeping_page", default=None)


@contextmanager
def keeping() -> Iterator[None]:
    """Within this block, tokens and keys are rendered as marks (see :func:`fill_in`)."""
    token = _keeping.set([])
    try:
        yield
    finally:
        _keeping.reset(token)


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


def fill_in(html: str) -> str:
    """A kept page as one visitor gets it: their CSRF token, a fresh key for each form."""
    if _CSRF_MARK in html:
        html = html.replace(_CSRF_MARK, generate_csrf())
    if _KEY_MARK in html:
        keys: dict[str, str] = {}
        html = _KEY_MARKS.sub(
            lambda mark: keys.setdefault(mark.group(1), secrets.token_urlsafe(16)), html
        )
    return html
