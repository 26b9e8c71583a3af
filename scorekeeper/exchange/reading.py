"""Reading a JSON file in bounded memory: the top-level object key by key, and the one large
array (a backup's ``games``) one element at a time.

Each value is decoded by the standard library's C scanner from a buffer that holds little
more than that value, so a club's backup of tens of megabytes is read game by game. The
errors are the standard library's, with the line and column counted in the whole file.
(A streaming parser such as ijson was tried: its C backend crashes the process on a whole
number of more than 4,300 digits, which a restore must refuse with a message instead.)
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any, BinaryIO

# Text decoded per read; a value longer than this makes the buffer grow to hold it.
CHUNK = 1 << 16
# A decoding error this close to the end of what was read may only mean "read more".
_LOOKAHEAD = 16
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class JsonSyntaxError(ValueError):
    """The text is not JSON: at ``line`` and ``column`` (from 1, as :mod:`json` counts)."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}")
        self.line, self.column = line, column


class NestedTooDeeply(ValueError):
    """A value is nested deeper than Python's JSON reader follows."""


class NotAnObject(ValueError):
    """The file is JSON, but not an object."""


class TooLong(ValueError):
    """A value (``key``: a top-level key, ``index``: its place in a streamed array, from 0)
    is longer than ``limit`` characters: refused before it is decoded whole."""

    def __init__(self, key: str, index: int | None, limit: int) -> None:
        super().__init__(f"{key}[{index}]" if index is not None else key)
        self.key, self.index, self.limit = key, index, limit


class _Text:
    """The file's text, read chunk by chunk; ``buf[pos:]`` is what has not been used yet."""

    def __init__(self, stream: BinaryIO) -> None:
        # UTF-8, with or without a byte-order mark; a byte that is not UTF-8 raises
        # UnicodeDecodeError when it is read.
        self.reader = codecs.getreader("utf-8-sig")(stream)
        self.buf = ""
        self.pos = 0
        self.eof = False
        # Where buf[0] is in the file: its line, and the column it starts at (from 0).
        self.line = 1
        self.column = 0

    def more(self, at_least: int = CHUNK) -> bool:
        """Read on (at least ``at_least`` characters if there are); False at the end."""
        if self.eof:
            return False
        chunk = self.reader.read(max(CHUNK, at_least))
        if not chunk:
            self.eof = True
            return False
        used = self.buf[: self.pos]
        newlines = used.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(used) - used.rfind("\n") - 1
        else:
            self.column += len(used)
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def error(self, pos: int) -> JsonSyntaxError:
        text = self.buf[:pos]
        newlines = text.count("\n")
        if newlines:
            return JsonSyntaxError(self.line + newlines, pos - text.rfind("\n"))
        return JsonSyntaxError(self.line, self.column + pos + 1)

    def peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            self.pos = _WHITESPACE.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(self.pos)
        self.pos += 1

    def value(self, limit: int | None = None) -> tuple[Any, str]:
        """The next JSON value, and its text; raises :class:`OverflowError` when it is not
        complete within ``limit`` characters (a huge array is never decoded whole)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as error:
                cut = error.pos >= len(self.buf) - _LOOKAHEAD or error.msg.startswith(
                    "Unterminated string"
                )
                if cut and limit is not None and len(self.buf) - self.pos > limit:
                    raise OverflowError from None  # not complete within the limit
                if cut and self.more(len(self.buf)):
                    continue
                raise self.error(error.pos) from None
            except RecursionError:
                raise NestedTooDeeply from None
            if limit is not None and end - self.pos > limit:
                raise OverflowError
            # A value that ends where the text read so far ends (a number) may go on.
            if end >= len(self.buf) and self.more(len(self.buf)):
                continue
            text = self.buf[self.pos : end]
            self.pos = end
            return value, text


def top_level(
    stream: BinaryIO,
    streamed: str | Collection[str],
    max_chars: Mapping[str, int] | None = None,
) -> Iterator[tuple[str, Any, str]]:
    """The top-level object's keys in file order, each as ``(key, value, text)``; an array
    under a key of ``streamed`` comes as ``(key + "[", None, "")``, then one element at a
    time as ``(key + "[]", element, text)``. ``max_chars`` bounds the text of a value (of an
    element, for a streamed key) by its key (``""``: every other key). Raises
    :class:`JsonSyntaxError`, :class:`NestedTooDeeply`, :class:`NotAnObject`,
    :class:`TooLong`, ValueError (a number too long to read) or UnicodeDecodeError (not
    UTF-8). The caller may stop early: nothing more is read."""
    keys = {streamed} if isinstance(streamed, str) else set(streamed)
    limits = dict(max_chars or {})
    text = _Text(stream)
    if text.peek() != "{":
        value, _raw = text.value()
        if text.peek():
            raise text.error(text.pos)
        raise NotAnObject(type(value).__name__)
    text.pos += 1
    first = True
    while text.peek() != "}":
        if not first:
            text.expect(",")
        first = False
        if text.peek() != '"':
            raise text.error(text.pos)
        try:
            key, _raw = text.value(limits.get(""))
        except OverflowError:
            raise TooLong("", None, limits[""]) from None
        text.expect(":")
        limit = limits.get(key, limits.get(""))
        if key in keys and text.peek() == "[":
            text.pos += 1
            yield key + "[", None, ""
            item = 0
            while text.peek() != "]":
                if item:
                    text.expect(",")
                try:
                    element, raw = text.value(limit)
                except OverflowError:
                    raise TooLong(key, item, limit or 0) from None
                item += 1
                yield key + "[]", element, raw
            text.pos += 1
        else:
            try:
                value, raw = text.value(limit)
            except OverflowError:
                raise TooLong(key, None, limit or 0) from None
            yield key, value, raw
    text.pos += 1
    if text.peek():
        raise text.error(text.pos)
