"""Numbers, points and lists as the viewer's language writes them (through Babel)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from babel import numbers
from babel.lists import format_list
from babel.numbers import get_decimal_symbol
from flask_babel import format_decimal, get_locale
from markupsafe import Markup, escape

from ..i18n import locale_name

SIGNED = "+#,##0;-#,##0"


def names_list(items: Iterable[object]) -> str:
    """Names or phrases joined as the language joins a list ("Ann, Bob and Cy")."""
    words = [str(item) for item in items]
    if not words:
        return ""
    return format_list(words, locale=get_locale() or "en")


def markup_list(items: Iterable[object]) -> Markup:
    """Pieces of HTML (a link or a highlighted name each) joined as :func:`names_list` joins
    names: the one list formatter, with every piece that is not markup escaped."""
    pieces = [escape(item) for item in items]
    if not pieces:
        return Markup("")
    # The language's pattern around stand-ins that no name contains, then the pieces.
    joined = escape(names_list(f"\x00{index}\x00" for index in range(len(pieces))))
    for index, piece in enumerate(pieces):
        joined = joined.replace(f"\x00{index}\x00", piece)
    return Markup(joined)


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
