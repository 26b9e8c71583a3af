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
from collections.abc import Iterator
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

    def value(self) -> tuple[Any, str]:
        """The next JSON value, and its text."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as error:
                cut = error.pos >= len(self.buf) - _LOOKAHEAD or error.msg.startswith(
                    "Unterminated string"
                )
                if cut and self.more(len(self.buf)):
                    continue
                raise self.error(error.pos) from None
            except RecursionError:
                raise NestedTooDeeply from None
            # A value that ends where the text read so far ends (a number) may go on.
            if end >= len(self.buf) and self.more(len(self.buf)):
                continue
            text = self.buf[self.pos : end]
            self.pos = end
            return value, text


def top_level(stream: BinaryIO, streamed: str) -> Iterator[tuple[str, Any, str]]:
    """The top-level object's keys in file order, each as ``(key, value, text)``; the array
    under the key ``streamed`` comes as ``(streamed + "[", None, "")``, then one element at a
    time as ``(streamed + "[]", element, text)``. Raises :class:`JsonSyntaxError`,
    :class:`NestedTooDeeply`, :class:`NotAnObject`, ValueError (a number too long to read)
    or UnicodeDecodeError (not UTF-8)."""
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
        key, _raw = text.value()
        text.expect(":")
        if key == streamed and text.peek() == "[":
            text.pos += 1
            yield streamed + "[", None, ""
            item = 0
            while text.peek() != "]":
                if item:
                    text.expect(",")
                element, raw = text.value()
                item += 1
                yield streamed + "[]", element, raw
            text.pos += 1
        else:
            value, raw = text.value()
            yield key, value, raw
    text.pos += 1
    if text.peek():
        raise text.error(text.pos)
