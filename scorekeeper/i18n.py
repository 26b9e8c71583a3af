"""Which language and time zone a page is shown in, and the formats that follow them.

The language is the one chosen on the page (kept in a cookie), else the browser's
``Accept-Language``, else the instance's ``LANGUAGE``. The time zone is the browser's
(``app.js`` puts it in a cookie without asking), else the instance's ``TIMEZONE``.
Stored times stay UTC; only what is shown follows the viewer.
"""

from __future__ import annotations

from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import current_app, has_request_context, request

# The languages the app speaks, each named in itself (as the switch shows it).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "pt": "Português",
    "es": "Español",
    "it": "Italiano",
    "de": "Deutsch",
    "fr": "Français",
}
LANGUAGE_COOKIE = "lang"
TIMEZONE_COOKIE = "tz"
YEAR = 365 * 24 * 3600


def known_zone(name: str | None) -> bool:
    """Whether ``name`` is a time zone of the IANA database (``Europe/Rome``)."""
    if not name or len(name) > 64:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def select_locale() -> str:
    """The language of this request: chosen, else the browser's, else the instance's."""
    default = current_app.config.get("LANGUAGE") or "en"
    if not has_request_context():
        return default
    chosen = request.cookies.get(LANGUAGE_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or default


def select_timezone() -> str:
    """The time zone times are shown in: the browser's, else the instance's."""
    default = current_app.config.get("TIMEZONE") or "UTC"
    if not has_request_context():
        return default
    # app.js writes the zone URL-encoded ("America%2FSao_Paulo").
    zone = unquote(request.cookies.get(TIMEZONE_COOKIE, ""))
    return zone if known_zone(zone) else default
