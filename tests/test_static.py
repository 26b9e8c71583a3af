"""Pages compressed as the browser asks, without losing the live board's ETag."""

import gc
import gzip

import brotli
import pytest

from scorekeeper import rules
from scorekeeper.config import PROJECT_ROOT
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.factories import make_game, new_game, random_rounds
from tests.play_helpers import trump

STATIC = PROJECT_ROOT / "static"


def decoded(response) -> bytes:
    body = response.get_data()
    coding = response.headers.get("Content-Encoding")
    if coding == "br":
        return brotli.decompress(body)
    if coding == "gzip":
        return gzip.decompress(body)
    assert coding is None, coding
    return body


@pytest.mark.parametrize(("asked", "coding"), [("gzip, br", "br"), ("gzip", "gzip"), ("", None)])
def test_pages_and_json_are_compressed_as_asked(ctx, client, asked, coding):
    game = make_game(rounds=random_rounds(rules.GameRules(players=3)))
    for path in ("/", f"/games/{game.id}/sheet", f"/history/{game.id}/export.json"):
        response = client.get(path, headers={"Accept-Encoding": asked})
        assert response.status_code == 200
        assert response.headers.get("Content-Encoding") == coding, path
        assert "Accept-Encoding" in response.headers["Vary"]
        plain = client.get(path).get_data()
        assert len(decoded(response)) == len(plain)
        if coding:
            assert len(response.get_data()) < len(plain) / 2


def test_the_live_board_keeps_its_etag_and_304_when_compressed(ctx, client):
    game_id = new_game(bid_rule="free")
    board = f"/live/{db.session.get(Game, game_id).live_token}/board"
    browser = {"Accept-Encoding": "gzip, br", "HX-Request": "true"}
    first = client.get(board, headers=browser)
    assert first.status_code == 200
    assert first.headers["Content-Encoding"] == "br"
    etag = first.headers["ETag"]
    assert etag == f'"board-{game_id}-1"', "the tag the page's script compares"
    again = client.get(board, headers=browser | {"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["ETag"] == etag
    trump(client, game_id, 1)
    changed = client.get(board, headers=browser | {"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag


def test_the_service_worker_keeps_its_fixed_url_compressed_and_closed(client):
    with client.get("/sw.js", headers={"Accept-Encoding": "gzip, br"}) as response:
        assert response.status_code == 200
        assert "no-cache" in response.headers["Cache-Control"]
        assert response.headers["Service-Worker-Allowed"] == "/"
        assert decoded(response) == (STATIC / "sw.js").read_bytes()
    gc.collect()  # a file left open would warn here (warnings are errors)
