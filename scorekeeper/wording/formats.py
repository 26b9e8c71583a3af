"""Numbers, points and lists as the viewer's language writes them (through Babel)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from zoneinfo import ZoneInfo

from babel import Locale, dates, numbers
from babel.lists import format_list
from babel.numbers import get_decimal_symbol
from flask_babel import get_locale
from markupsafe import Markup, escape

from ..i18n import locale_name, zone_name

SIGNED = "+#,##0;-#,##0"


def names_list(items: Iterable[object]) -> str:
    """Names or phrases joined as the language joins a list ("Ann, Bob and Cy")."""
    words = [str(item) for item in items]
    if not words:
        return ""
    return _filled(_list_pattern(len(words), locale_name()), words)


def markup_list(items: Iterable[object]) -> Markup:
    """Pieces of HTML (a link or a highlighted name each) joined as :func:`names_list` joins
    names: the one list formatter, with every piece that is not markup escaped."""
    pieces = [escape(item) for item in items]
    if not pieces:
        return Markup("")
    return Markup(_filled(escape(_list_pattern(len(pieces), locale_name())), pieces))


# A stand-in for the n-th item: no name or phrase holds a NUL.
_STAND_IN = re.compile("\x00([0-9]+)\x00")


@functools.lru_cache(maxsize=64)
def _list_pattern(count: int, locale: str) -> str:
    """The language's list of ``count`` items, around stand-ins. Babel's ``format_list``
    looks the locale's list patterns up on every call: a tenth of the games list (a list of
    names on each of its rows; cProfile)."""
    stand_ins = [f"\x00{index}\x00" for index in range(count)]
    return format_list(stand_ins, locale=_locale(locale))


def _filled(pattern: str, pieces: Sequence[str]) -> str:
    return _STAND_IN.sub(lambda found: pieces[int(found.group(1))], pattern)


def list_joints(count: int) -> list[str]:
    """The words the language writes before, between and after the ``count`` items of a list
    (``count + 1`` texts): "Ann, Bob and Cy" has "", ", ", " and ", "". For a template that
    writes each item itself (a highlighted name), where :func:`markup_list` would take each
    item made as a piece of markup first."""
    return _STAND_IN.split(_list_pattern(count, locale_name()))[::2]


def signed(points: int) -> str:
    """Points of a round with their sign: "+40", "−10" (the language's minus and digits)."""
    return _signed(points, locale_name())


@functools.lru_cache(maxsize=4096)
def _signed(points: int, locale: str) -> str:
    # A sheet asks for the same few values in one language again and again, and Babel parses
    # the pattern and looks up the locale's symbols on every call: keep each answer.
    return numbers.format_decimal(points, format=SIGNED, locale=locale)


def csv_separator() -> str:
    """The separator a spreadsheet of the viewer's language expects in a CSV file: ";" where
    the decimal mark is a comma (German, French, …), else ","."""
    return ";" if get_decimal_symbol(get_locale() or "en") == "," else ","


# Parsed once: Flask-Babel's filters find the locale and parse the pattern again for every
# number and date, which was a third of a player page's time (its rating table writes 120 of
# each; pyinstrument).
_ONE_DECIMAL = numbers.parse_pattern("#,##0.0")
_WHOLE = numbers.parse_pattern("#,##0")
_TWO_DECIMALS = numbers.parse_pattern("0.00")


@functools.lru_cache(maxsize=16)
def _locale(name: str) -> Locale:
    return Locale.parse(name)


_TENTH = Decimal("0.1")


@functools.lru_cache(maxsize=16)
def _marks(name: str) -> tuple[str, str]:
    locale = _locale(name)
    return numbers.get_decimal_symbol(locale), numbers.get_minus_sign_symbol(locale)


def one_decimal(value: float) -> str:
    """A number with one decimal, in the language's decimal mark ("2,5" in German)."""
    if isinstance(value, int | float) and abs(value) < 999.9:
        # What Babel writes ("#,##0.0": the number as written, rounded half to even, the
        # sign of the number before rounding), without its pattern machinery: no group
        # separator below 1,000. A rating table writes 120 of them.
        written = Decimal(str(value))
        rounded = abs(written).quantize(_TENTH, ROUND_HALF_EVEN)
        decimal_mark, minus = _marks(locale_name())
        digits = f"{rounded:f}".replace(".", decimal_mark)
        return minus + digits if written.is_signed() else digits
    return numbers.format_decimal(value, format=_ONE_DECIMAL, locale=_locale(locale_name()))


def whole(value: int) -> str:
    """A whole number with the language's group separator ("1.234" in German)."""
    return numbers.format_decimal(value, format=_WHOLE, locale=_locale(locale_name()))


def two_decimals(value: float) -> str:
    """A number with two decimals in the language's decimal mark ("2,50" in German)."""
    return _two_decimals(value, locale_name())


@functools.lru_cache(maxsize=4096)
def _two_decimals(value: float, locale: str) -> str:
    # An event's standings write the same few placement points again and again (a share of
    # the table beaten, summed), 40 lines a board: each is written once per language.
    return numbers.format_decimal(value, format=_TWO_DECIMALS, locale=_locale(locale))


def percent(value: float | None) -> str:
    """A share as the language writes a percentage ("41 %"), as Flask-Babel's
    ``format_percent`` writes it (the same shares come back on every page: each is written
    once per language); a dash when there is none (no game, no bid to count)."""
    if value is None:
        return "–"
    # By the number as written: Babel reads it so, and -0.0 (== 0.0) is written "-0%".
    return _percent(str(value), locale_name())


@functools.lru_cache(maxsize=4096)
def _percent(written: str, locale: str) -> str:
    return numbers.format_percent(Decimal(written), locale=_locale(locale))


def day(moment: datetime, width: str = "medium") -> str:
    """The day of ``moment`` (a UTC time; naive ones are UTC) in the viewer's time zone and
    language, as Flask-Babel's ``dateformat`` writes it, for pages that write many: each day
    is written once per language, zone and width."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(_zone(zone_name())).date()
    return _day(local, width, locale_name())


@functools.lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


@functools.lru_cache(maxsize=4096)
def _day(local: date, width: str, locale: str) -> str:
    return dates.format_date(local, width, locale=_locale(locale))


def short_names(names: Sequence[str], longest: int = 6, shortest: int = 3) -> list[str]:
    """Each name as a narrow column can show it: a name of up to ``longest`` characters as it
    is, a longer one cut to the shortest prefix (at least ``shortest`` characters) that no other
    name at the table starts with, and a full stop: "Anneliese", "Antonio" → "Ann.", "Ant.".

    Case is ignored when comparing; a name that begins another one ("Christina", "Christinas")
    cannot be cut without a clash and stays whole.
    """
    keys = [name.strip().casefold() for name in names]
    shown = []
    for index, name in enumerate(names):
        name = name.strip()
        key = keys[index]
        others = [other for position, other in enumerate(keys) if position != index]
        cut = name
        if len(name) > longest:
            for length in range(shortest, len(name)):
                prefix = key[:length]
                if prefix.endswith(" "):
                    continue  # "Mary ." would read as a clash with "Mary Ann"
                if not any(other.startswith(prefix) for other in others):
                    cut = name[:length] + "."
                    break
        shown.append(cut)
    return shown
