"""Backups restored through the Backup page of the server as ``make run`` starts it: a club's
backup the app itself exported (200 games with their histories, 3.9 MB), a one-game export and
a file in format version 1 — every kind docs/export-format.md describes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests.club_backup import (
    club_game_export,
    seeded_club_backup,
    upload_ending_a_read_on_a_line_break,
)
from tests.real_server import Visitor, csrf_token, served
from tests.test_exchange import valid_backup_v1

pytestmark = pytest.mark.real_server

CLUB_GAMES = 200


def games_by_uid(backup: str) -> dict[str, dict]:
    return {game["uid"]: game for game in json.loads(backup)["games"]}


def restore(phone: Visitor, content_type: str, body: bytes) -> str:
    """Posted as the page's form posts it; the flash the page shows after."""
    answer = phone.upload("/history/restore", content_type, body)
    assert answer.status == 303, answer.body[-3000:]
    return phone.follow(answer).body


def upload(token: str, content: bytes, name: str) -> tuple[str, bytes]:
    file = FileStorage(io.BytesIO(content), name, content_type="application/json")
    boundary, body = encode_multipart({"csrf_token": token, "backup": file})
    return f"multipart/form-data; boundary={boundary}", body


def test_every_kind_of_backup_restores_through_the_page_of_the_real_server(tmp_path: Path, app):
    club = seeded_club_backup(tmp_path, CLUB_GAMES)
    club_games = games_by_uid(club.decode())
    assert len(club) > 3_500_000
    game_file = club_game_export(tmp_path)
    assert json.loads(game_file)["kind"] == "game"
    version_1 = json.dumps(valid_backup_v1(app)).encode()

    with served(tmp_path / "instance") as server:
        phone = Visitor(server.url)
        token = csrf_token(phone.get("/history/backup").body)

        shown = restore(phone, *upload(token, game_file, "one-game.json"))
        assert "1 game added" in shown, shown
        shown = restore(phone, *upload(token, version_1, "old-backup.json"))
        assert "3 games added" in shown, shown
        # The club's file, with one of the parser's reads ending on a line break: such a
        # read of a large backup was refused as "too large" (413).
        content_type, body = upload_ending_a_read_on_a_line_break({"csrf_token": token}, club)
        shown = restore(phone, content_type, body)
        assert f"{CLUB_GAMES - 1} games added" in shown, shown

        backup = phone.get("/history/backup.json")
        assert backup.status == 200
        restored = games_by_uid(backup.body)
    assert len(restored) == CLUB_GAMES + 3
    # Every game of the club, with its whole history, exactly as it was exported (the one
    # restored first from its own export, which carries no live link, has a new one).
    first = json.loads(game_file)["games"][0]["uid"]
    assert restored[first].pop("live_token") != club_games[first].pop("live_token")
    assert {uid: restored[uid] for uid in club_games} == club_games
