"""A kept page as each visitor gets it, compressed once for everyone.

A page kept for every visitor (:mod:`.rendering`) differs from one visitor to the next only
in its marks (:mod:`scorekeeper.visitor_marks`): the CSRF token and each form's request key.
Compressing the whole page again on every visit cost more than everything else a kept page
does (Brotli level 4: 0.5-0.9 ms for a 45-80 KB page, most of it the inline stylesheet;
pyinstrument over bench/history.py's database). So the text between the marks is compressed
once, at gzip's highest level, into one deflate stream that leaves a gap at each mark; a
visit only writes its own values into the gaps, as stored blocks (a value already sent
earlier in the page, such as the token of a second form, as a copy of it), and the checksum.
A gap's distances depend on the values' lengths, so the stream is made per layout of
lengths (always the same in practice: the token's and the keys' lengths are fixed).

Brotli streams cannot be spliced like this (a meta-block's literal contexts and its distance
cache follow from the bytes before it), so kept pages are sent gzip'd even to a browser that
also takes Brotli: at level 9 they come out about as small as Brotli level 4 made them per
visit (see bench/perf.py's first-load figures). A browser that takes no gzip gets the page
as it is, which Flask-Compress then compresses as any other answer.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from flask import Response, current_app, request

from ..visitor_marks import Mark, cut_at_marks, visitor_values

# A gzip member's head: deflate, no name, no time, "maximum compression", unknown system.
GZIP_HEAD = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
# An empty last block with the fixed codes: the end of the deflate stream.
LAST_BLOCK = b"\x03\x00"
WINDOW = 32 * 1024  # how far back deflate may copy from
STORED_MAX = 0xFFFF  # the most one stored block holds
MIN_COPY, MAX_COPY = 3, 258  # the shortest and longest copy deflate can say
# Layouts of value lengths kept per page (one in practice; a bound all the same).
LAYOUTS_KEPT = 4
_EMPTY_STORED = b"\x00\x00\xff\xff"  # an empty stored block's lengths, after its header


class _Bits:
    """Deflate's bit order: fields from the least significant bit, Huffman codes from the
    most significant one."""

    def __init__(self) -> None:
        self.value = 0
        self.count = 0

    def add(self, value: int, count: int) -> None:
        self.value |= value << self.count
        self.count += count

    def add_code(self, code: int, count: int) -> None:
        self.add(int(f"{code:0{count}b}"[::-1], 2), count)

    def bytes(self) -> bytes:
        return self.value.to_bytes((self.count + 7) // 8, "little")


def _code_of(bases: Sequence[tuple[int, int]], value: int) -> tuple[int, int, int]:
    """The code whose range holds ``value``: its index, extra bits and their value."""
    index = max(i for i, (base, _) in enumerate(bases) if base <= value)
    base, extra = bases[index]
    return index, extra, value - base


# Deflate's length codes 257-285 and distance codes 0-29: (base, extra bits) of each.
_LENGTHS = [(3 + i, 0) for i in range(8)]
_LENGTHS += [(((4 + (i & 3)) << (i // 4 - 1)) + 3, i // 4 - 1) for i in range(8, 28)]
_LENGTHS.append((258, 0))
_DISTANCES = [(1 + c, 0) for c in range(4)]
_DISTANCES += [(((2 + (c & 1)) << (c // 2 - 1)) + 1, c // 2 - 1) for c in range(4, 30)]


def copy_block(length: int, distance: int) -> bytes:
    """A block (fixed codes) that repeats the ``length`` bytes sent ``distance`` bytes back,
    then an empty stored block, so that what follows starts on a byte again."""
    bits = _Bits()
    bits.add(0b010, 3)  # not the last block; type 1, the fixed codes
    code, extra, rest = _code_of(_LENGTHS, length)
    symbol = 257 + code
    if symbol < 280:
        bits.add_code(symbol - 256, 7)
    else:
        bits.add_code(0xC0 + symbol - 280, 8)
    bits.add(rest, extra)
    code, extra, rest = _code_of(_DISTANCES, distance)
    bits.add_code(code, 5)
    bits.add(rest, extra)
    bits.add_code(0, 7)  # the end of the block
    bits.add(0, 3)  # a stored block (not the last), padded to the byte
    return bits.bytes() + _EMPTY_STORED


def stored_block(value: bytes) -> bytes:
    """``value`` as it is, in stored blocks (each starting and ending on a byte)."""
    out = []
    for start in range(0, len(value), STORED_MAX):
        chunk = value[start : start + STORED_MAX]
        size = len(chunk)
        out.append(b"\x00" + size.to_bytes(2, "little") + (size ^ 0xFFFF).to_bytes(2, "little"))
        out.append(chunk)
    return b"".join(out)


# A part of a page's gzip stream: bytes as they are, or the index of a value to store.
Part = bytes | int


def gzip_parts(
    pieces: Sequence[bytes], marks: Sequence[Mark], lengths: Sequence[int]
) -> list[Part]:
    """The gzip stream of a page (``pieces``, with a value of ``lengths[i]`` bytes after
    ``pieces[i]`` for each mark) but for its values: each piece compressed once, with the
    page before it as its dictionary (the values in it as NUL bytes, which no text matches,
    so nothing is ever copied from a visitor's value but another mark of the same value)."""
    parts: list[Part] = [GZIP_HEAD]
    window = b""  # the end of what the browser has unpacked so far
    sent = 0  # how much that is in all
    last: dict[Mark, int] = {}  # where each mark's value was last sent
    for index, piece in enumerate(pieces):
        if piece:
            options = {"zdict": window} if window else {}
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9, **options)
            parts.append(compressor.compress(piece) + compressor.flush(zlib.Z_SYNC_FLUSH))
            window = (window + piece)[-WINDOW:]
            sent += len(piece)
        if index == len(marks):
            break
        mark, length = marks[index], lengths[index]
        before = last.get(mark)
        if before is not None and MIN_COPY <= length <= MAX_COPY and sent - before <= WINDOW:
            parts.append(copy_block(length, sent - before))
        else:
            parts.append(index)
        last[mark] = sent
        window = (window + b"\0" * length)[-WINDOW:]
        sent += length
    parts.append(LAST_BLOCK)
    return parts


def gzip_body(
    parts: Sequence[Part],
    pieces: Sequence[bytes],
    values: Sequence[bytes],
    first_crc: int | None = None,
) -> bytes:
    """One visitor's gzip'd page: ``parts`` with ``values`` filled in, and the trailer;
    ``first_crc``: the CRC of the first piece (the head and stylesheet), if known."""
    crc = 0
    for index, piece in enumerate(pieces):
        crc = zlib.crc32(piece, crc) if index or first_crc is None else first_crc
        if index < len(values):
            crc = zlib.crc32(values[index], crc)
    size = sum(map(len, pieces)) + sum(map(len, values))
    body = [part if isinstance(part, bytes) else stored_block(values[part]) for part in parts]
    body.append(crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little"))
    return b"".join(body)


def kept_coding() -> str | None:
    """The coding kept pages are sent in to this browser: gzip when it takes it (and the app
    compresses with it), whatever the page (so that a 304 can name it without the page);
    else None, and Flask-Compress compresses the page as it does any other answer."""
    if "gzip" not in current_app.config.get("COMPRESS_ALGORITHM", ()):
        return None
    codings = request.environ.get("HTTP_ACCEPT_ENCODING", "")
    if ";" not in codings and "*" not in codings:  # a plain list, as browsers send it
        return (
            "gzip" if "gzip" in (coding.strip().lower() for coding in codings.split(",")) else None
        )
    return "gzip" if request.accept_encodings["gzip"] > 0 else None


def coded_etag(etag: str, coding: str | None) -> str:
    """A strong tag per coding, as Flask-Compress makes them (``"board-1-5:gzip"``)."""
    return f"{etag}:{coding}" if coding else etag


class KeptPage:
    """A kept page: its status and text cut at the marks, and its gzip stream but for the
    values (made on the first visit that asks for it; threads that do so at once each make
    the same one, and one of them stays). ``shared``: kept for others too; a page answered
    once (not kept) is sent as it is, and Flask-Compress compresses it as any answer."""

    def __init__(self, status: int, html: str, *, shared: bool = True) -> None:
        texts, marks = cut_at_marks(html)
        self.status = status
        self.shared = shared
        self.pieces = tuple(text.encode() for text in texts)
        self.marks = tuple(marks)
        self.size = sum(map(len, self.pieces))
        self._first_crc = zlib.crc32(self.pieces[0])
        self._gzip: dict[tuple[int, ...], list[Part]] = {}

    @property
    def weight(self) -> int:
        """What the page cache counts for it: the text and room for its gzip stream (a
        fifth of the text at most, in practice)."""
        return self.size + self.size // 2 + 100

    def html(self) -> str:
        """The page as this visitor gets it (their token, fresh keys)."""
        values = visitor_values(self.marks)
        return "".join(
            piece.decode() + value for piece, value in zip(self.pieces, [*values, ""], strict=True)
        )

    def response(self, etag: str | None = None) -> Response:
        """The answer to this visitor (see :func:`kept_coding`); ``etag``, a strong tag,
        gets the coding appended (:func:`coded_etag`)."""
        values = [value.encode() for value in visitor_values(self.marks)]
        coding = kept_coding() if self.shared else None
        if coding == "gzip":
            body = gzip_body(self._gzip_parts(values), self.pieces, values, self._first_crc)
        else:
            body = b"".join(
                piece + value for piece, value in zip(self.pieces, [*values, b""], strict=True)
            )
        response = current_app.response_class(body, self.status, mimetype="text/html")
        if etag is not None:
            response.set_etag(coded_etag(etag, coding))
        if coding:
            response.headers["Content-Encoding"] = coding
            response.vary.add("Accept-Encoding")
        return response

    def _gzip_parts(self, values: Sequence[bytes]) -> list[Part]:
        layout = tuple(map(len, values))
        parts = self._gzip.get(layout)
        if parts is None:
            parts = gzip_parts(self.pieces, self.marks, layout)
            if len(self._gzip) < LAYOUTS_KEPT:
                self._gzip[layout] = parts
        return parts
