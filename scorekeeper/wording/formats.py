"""Numbers, points and lists as the viewer's language writes them (through Babel)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from babel import numbers
from babel.lists import format_list
from babel.numbers import get_decimal_symbol
from flask_babel import format_decimal, get_locale

from ..i18n import locale_name

SIGNED = "+#,##0;-#,##0"


def names_list(items: Iterable[object]) -> str:
    """Names or phrases joined as the language joins a list ("Ann, Bob and Cy")."""
    words = [str(item) for item in items]
    if not words:
        return ""
    return format_list(words, locale=get_locale() or "en")


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


def one_decimal(value: float) -> str:
    """A number with one decimal, in the language's decimal mark ("2,5" in German)."""
    return format_decimal(value, format="#,##0.0")
