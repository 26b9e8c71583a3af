"""A club's backup as the app exports it, for the restore tests: real files, not toy ones.

The club is :func:`bench.backup.seed`'s: a few games played round by round through the app's
own write path (trump, every bid, the tricks: 90 history entries a game), copied under new
identifiers, players and times; the backup is the app's own export of it.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from bench.backup import seed
from scorekeeper import create_app, exchange
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.conftest import make_config

# Werkzeug's multipart parser reads the body this much at a time (MultiPartParser.buffer_size).
PARSER_READ = 64 * 1024


def seeded_club_backup(folder: Path, games: int) -> bytes:
    """The backup file of a club of ``games`` finished games with their whole histories (the
    club stays in ``folder``, for :func:`club_game_export`)."""
    # Three games played round by round (each a 90-change history) are enough to copy from.
    seed(_club_url(folder), games, templates=3)
    with _club(folder):
        return "".join(exchange.backup_chunks()).encode()


def club_game_export(folder: Path) -> bytes:
    """The JSON export of the seeded club's first game (a file of the kind "game")."""
    with _club(folder):
        first = db.session.scalars(sa.select(Game).order_by(Game.id)).first()
        return exchange.game_json(first).encode()


def _club_url(folder: Path) -> str:
    return f"sqlite:///{folder / 'club.sqlite'}"


@contextlib.contextmanager
def _club(folder: Path) -> Iterator[None]:
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=_club_url(folder)))
    with app.app_context():
        try:
            yield
        finally:
            db.engine.dispose()


def upload_ending_a_read_on_a_line_break(
    fields: dict[str, str], backup: bytes
) -> tuple[str, bytes]:
    """A multipart upload of ``backup`` (its content type and body) in which one of the
    parser's 64 KB reads ends on a line break of the file, as happens by chance with a large
    backup: ``backup`` is preceded by the few spaces (JSON whitespace) that put it there.
    That read leaves the line break in the parser's buffer, to be joined with the next read."""
    boundary = "----club-backup"
    file = FileStorage(io.BytesIO(b""), "backup.json")
    _, plain = encode_multipart({**fields, "backup": file}, boundary=boundary)
    start = plain.index(b"\r\n\r\n", plain.index(b'filename="backup.json"')) + 4
    breaks = [at for at, byte in enumerate(backup) if byte == ord("\n")]
    assert start + len(backup) > PARSER_READ, "the backup fits in one read"
    spaces = min((PARSER_READ - 1 - (start + at)) % PARSER_READ for at in breaks)
    padded = b" " * spaces + backup
    file = FileStorage(io.BytesIO(padded), "backup.json")
    _, body = encode_multipart({**fields, "backup": file}, boundary=boundary)
    ends = [at for at in range(PARSER_READ - 1, len(body), PARSER_READ)]
    assert any(body[at] == ord("\n") for at in ends), "no read ends on a line break"
    return f"multipart/form-data; boundary={boundary}", body
