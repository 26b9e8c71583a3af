"""How every view answers: the one rule for "fragment or full page", and per-form keys.

Not a blueprint: every blueprint may use it, and it imports none of them.
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import unquote, urlsplit

from flask import Response, make_response, render_template, url_for

from ..extensions import htmx


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


def new_request_key() -> str:
    """A fresh key for one rendered form: its retries and double taps share it."""
    return secrets.token_urlsafe(16)


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
