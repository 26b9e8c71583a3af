"""Which language and time zone a page is shown in, and the formats that follow them.

The language is the one chosen on the page (kept in a cookie), else the browser's
``Accept-Language``, else the instance's ``LANGUAGE``. The time zone is the browser's
(``app.js`` puts it in a cookie without asking), else the instance's ``TIMEZONE``.
Stored times stay UTC; only what is shown follows the viewer.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Flask, current_app, has_request_context, request
from flask_babel import get_locale, get_timezone, get_translations
from flask_babel.speaklater import LazyString
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup

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


def viewer_zone() -> ZoneInfo:
    """The viewer's time zone (the one :func:`select_timezone` chose) as a ``zoneinfo``
    zone, for arithmetic on days and times. Flask-Babel's ``get_timezone()`` is a pytz zone,
    which ``datetime.combine(..., tzinfo=zone)`` reads as its old local mean time (+11:39
    for Auckland): it only serves to format, and to name the zone (:func:`zone_name`, found
    once per request; zoneinfo keeps each zone it has read)."""
    return ZoneInfo(zone_name())


# --- translating, once per request ---------------------------------------------------------
#
# Flask-Babel finds the request's catalogue again on every call (through ``flask.g`` and
# a few ``hasattr``), which cost a fifth of a page's time in templates that translate a
# hundred strings (profiled with pyinstrument). These functions keep the catalogue found
# for the request being served (and its language) in a context variable: set up by
# ``before_request``, filled on first use, cleared on teardown; outside a request they ask
# Flask-Babel each time.

_cache: ContextVar[dict[str, Any] | None] = ContextVar("scorekeeper_i18n", default=None)


def _translations() -> Any:
    cache = _cache.get()
    if cache is None:
        return get_translations()
    if (found := cache.get("translations")) is None:
        found = cache["translations"] = get_translations()
    return found


def locale_name() -> str:
    """The request's language as a code ("pt"), found once per request."""
    cache = _cache.get()
    if cache is None:
        return str(get_locale() or "en")
    if (found := cache.get("locale")) is None:
        found = cache["locale"] = str(get_locale() or "en")
    return found


def zone_name() -> str:
    """The request's time zone as a name ("Europe/Berlin"), found once per request."""
    cache = _cache.get()
    if cache is None:
        return str(get_timezone() or "UTC")
    if (found := cache.get("zone")) is None:
        found = cache["zone"] = str(get_timezone() or "UTC")
    return found


def gettext(string: str, **variables: Any) -> str:
    """``string`` in the request's language, ``%``-formatted with ``variables`` if any."""
    text = _translations().ugettext(string)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    """The form of ``singular``/``plural`` for ``num`` in the request's language; ``num`` is
    available to the format as ``%(num)d``."""
    variables.setdefault("num", num)
    return _translations().ungettext(singular, plural, num) % variables


def pgettext(context: str, string: str, **variables: Any) -> str:
    """``string`` as meant in ``context`` (a word with two senses), translated."""
    text = _translations().upgettext(context, string)
    return text % variables if variables else text


def lazy_gettext(string: str, **variables: Any) -> LazyString:
    """``string``, translated into the language of the request it is shown in."""
    return LazyString(gettext, string, **variables)


def _start_request() -> None:
    _cache.set({})


def _end_request(_error: BaseException | None = None) -> None:
    _cache.set(None)


def init_app(app: Flask) -> None:
    """Translate templates and code through the request's catalogue, found once."""
    app.before_request_funcs.setdefault(None, []).insert(0, _start_request)
    app.teardown_request(_end_request)
    app.jinja_env.install_gettext_callables(
        gettext=lambda string: _translations().ugettext(string),
        ngettext=lambda singular, plural, num: _translations().ungettext(singular, plural, num),
        newstyle=True,
        pgettext=lambda context, string: _translations().upgettext(context, string),
        npgettext=lambda context, singular, plural, num: _translations().unpgettext(
            context, singular, plural, num
        ),
    )
    # The same callables without Jinja's layers: its ``_`` resolves ``gettext`` and calls it
    # through the context, which calls these lambdas through the context again (three calls
    # and their checks per string; a page translates forty to a hundred: a tenth of a
    # round screen's time, cProfile). Jinja's newstyle behaviour is kept: the translation
    # is always a %-format, made Markup where the template autoescapes.
    app.jinja_env.globals.update(
        _=_template_gettext,
        gettext=_template_gettext,
        ngettext=_template_ngettext,
        pgettext=_template_pgettext,
    )


@pass_eval_context
def _template_gettext(eval_context: EvalContext, string: str, **variables: Any) -> str:
    text = _translations().ugettext(string)
    if eval_context.autoescape:
        text = Markup(text)
    # A text without variables or "%" is its own format: Markup's % builds its escaping
    # helpers all the same, as costly as the lookup (most of a page's texts; cProfile).
    return text % variables if variables or "%" in text else text


@pass_eval_context
def _template_ngettext(
    eval_context: EvalContext, singular: str, plural: str, num: int, **variables: Any
) -> str:
    variables.setdefault("num", num)
    text = _translations().ungettext(singular, plural, num)
    return (Markup(text) if eval_context.autoescape else text) % variables


@pass_eval_context
def _template_pgettext(
    eval_context: EvalContext, context: str, string: str, **variables: Any
) -> str:
    variables.setdefault("context", context)
    text = _translations().upgettext(context, string)
    return (Markup(text) if eval_context.autoescape else text) % variables
