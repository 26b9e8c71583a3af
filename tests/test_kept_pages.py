"""Pages kept per game version (the score sheet, the live board): the same HTML for everyone
until the game changes, but never stale, never in another viewer's language, and with each
visitor's own form token."""

import gzip
import random
import re
import zlib

import pytest

from scorekeeper import queries
from scorekeeper.extensions import db
from scorekeeper.models import Game
from scorekeeper.views import kept_bodies
from scorekeeper.visitor_marks import _CSRF_MARK
from tests.factories import new_game
from tests.play_helpers import HX, play_round, sheet_totals, text, trump, version

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
# A visitor's own values: the token (in forms and htmx's headers) and the forms' keys.
VALUES = re.compile(r'(?<=value=")[^"]+(?=")|(?<="X-CSRFToken": ")[^"]+')


def test_a_kept_sheet_follows_every_change_of_the_game(client, ctx):
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    assert sheet_totals(client, game_id) == [0, 0, 0]
    assert sheet_totals(client, game_id) == [0, 0, 0]  # kept
    play_round(client, game_id, 1, 0, [0, 1, 0], [0, 1, 0])
    assert sheet_totals(client, game_id) == [20, 30, 20]
    client.post(f"/games/{game_id}/undo", data={"version": version(game_id)})
    assert sheet_totals(client, game_id) == [0, 0, 0]


def test_the_live_board_shows_the_trump_once_it_is_set(client, ctx):
    game_id = new_game(["Ann", "Bob", "Cy"])
    token = _live_token(game_id)
    before = text(client.get(f"/live/{token}/board", headers=HX))
    assert "Hearts" not in before
    assert text(client.get(f"/live/{token}/board", headers=HX)) == before
    trump(client, game_id, 1, "suit:hearts")
    assert "Hearts" in text(client.get(f"/live/{token}/board", headers=HX))


def test_each_visitor_of_a_kept_page_gets_a_token_of_their_own(csrf_app):
    with csrf_app.app_context():
        game_id = new_game(["Ann", "Bob", "Cy"])
    first, second = csrf_app.test_client(), csrf_app.test_client()
    tokens = []
    for client in (first, second):
        page = client.get(f"/games/{game_id}/sheet").get_data(as_text=True)
        assert _CSRF_MARK not in page
        (token,) = set(TOKEN.findall(page))
        tokens.append(token)
    assert tokens[0] != tokens[1]
    # The second visitor's token (from the kept page) works for the second visitor's form.
    answer = second.post("/language", data={"csrf_token": tokens[1], "lang": "de", "next": "/"})
    assert answer.status_code == 303
    refused = first.post("/language", data={"csrf_token": tokens[1], "lang": "de", "next": "/"})
    assert refused.status_code == 400


def test_a_kept_page_is_never_shown_in_another_language(app, client):
    # No application context held across requests: each request finds its own language.
    with app.app_context():
        game_id = new_game(["Ann", "Bob", "Cy"])
    english = text(client.get(f"/games/{game_id}/sheet"))
    client.set_cookie("lang", "de")
    german = text(client.get(f"/games/{game_id}/sheet"))
    assert "Score sheet" in english
    assert "Score sheet" not in german
    assert 'lang="de"' in german


def _live_token(game_id: int) -> str:
    return db.session.get(Game, game_id).live_token


def test_a_kept_table_step_hands_out_fresh_request_keys_on_every_visit(client, ctx):
    """Each form of the round screen carries its own request key (a double tap is recognised
    by it): a kept page must not give two visits, or two forms, the same key."""
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    trump(client, game_id, 1, "suit:hearts")
    visits = [client.get(f"/games/{game_id}").get_data(as_text=True) for _ in range(2)]
    keys = [re.findall(r'name="request_key" value="([^"]+)"', page) for page in visits]
    assert keys[0]
    assert len(keys[0]) == len(keys[1])
    assert len(set(keys[0]) | set(keys[1])) == 2 * len(keys[0])
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22}", key) for key in keys[0] + keys[1])
    # A key from the kept page saves the bid it was handed out with.
    answer = client.post(
        f"/games/{game_id}/rounds/1/bid",
        data={"version": version(game_id), "seat": 1, "bid": 0, "request_key": keys[1][0]},
    )
    assert answer.status_code == 303


def test_lists_kept_per_data_version_show_a_game_as_soon_as_it_is_stored(client, ctx):
    new_game(["Ann", "Bob", "Cy"])
    listed = text(client.get("/history/"))
    assert "Dora" not in listed
    assert "Dora" not in text(client.get("/games/new"))
    new_game(["Dora", "Bob", "Cy"])
    assert "Dora" in text(client.get("/history/"))
    assert "Dora" in text(client.get("/games/new"))  # in the roster


def test_the_data_version_moves_with_every_stored_change_not_with_reads(client, ctx):
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    before = queries.data_version()
    client.get(f"/games/{game_id}")
    client.get("/history/")
    assert queries.data_version() == before
    trump(client, game_id, 1, "suit:hearts")
    assert queries.data_version() > before


# --- compressed once for everyone (views.kept_bodies) ---------------------------------------


def test_every_length_and_distance_deflate_can_copy_is_written_right():
    rng = random.Random(1)
    letters = bytes(rng.randrange(97, 123) for _ in range(kept_bodies.WINDOW))
    for length in range(kept_bodies.MIN_COPY, kept_bodies.MAX_COPY + 1):
        for distance in (length, length + 1, 300, 4097, 24_577, kept_bodies.WINDOW):
            text = letters[-distance:]
            stream = kept_bodies.stored_block(text) + kept_bodies.copy_block(length, distance)
            unpacked = zlib.decompress(stream + kept_bodies.LAST_BLOCK, -15)
            assert unpacked == text + text[:length], (length, distance)


@pytest.mark.parametrize("seed", range(25))
def test_a_page_spliced_for_a_visitor_unpacks_to_exactly_that_page(seed):
    """Marks anywhere (together, at either end, repeated near and beyond deflate's window),
    values of any length: the stream unpacks to the page with the values written in."""
    rng = random.Random(seed)
    words = [b"<form>", b"<td>12</td>", b"Ann", b"\xc3\xa9", b" " * 40, b"value="]
    count = rng.randrange(0, 12)
    pieces = [
        b"".join(rng.choice(words) for _ in range(rng.choice((0, 1, 30, 3000, 9000))))
        for _ in range(count + 1)
    ]
    marks = [rng.choice((None, 0, 1, 2)) for _ in range(count)]
    by_mark = {
        mark: bytes(rng.randrange(33, 127) for _ in range(rng.choice((1, 2, 22, 91, 300))))
        for mark in set(marks)
    }
    values = [by_mark[mark] for mark in marks]
    parts = kept_bodies.gzip_parts(pieces, marks, [len(value) for value in values])
    body = kept_bodies.gzip_body(parts, pieces, values)
    expected = b"".join(piece + value for piece, value in zip(pieces, [*values, b""], strict=True))
    assert gzip.decompress(body) == expected


def test_a_kept_page_comes_gzipped_with_the_visitors_own_values(csrf_app):
    with csrf_app.app_context():
        game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    browser = {"Accept-Encoding": "gzip, br"}
    pages = []
    for client in (csrf_app.test_client(), csrf_app.test_client()):
        answer = client.get(f"/games/{game_id}", headers=browser)
        assert answer.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in answer.headers["Vary"]
        page = gzip.decompress(answer.get_data()).decode()
        plain = client.get(f"/games/{game_id}").get_data(as_text=True)
        assert _CSRF_MARK not in page
        # The same page but for the visitor's values (each visit: fresh keys).
        assert VALUES.sub("", page) == VALUES.sub("", plain)
        assert set(TOKEN.findall(page)) == set(TOKEN.findall(plain))
        pages.append(page)
    keys = [set(re.findall(r'name="request_key" value="([^"]+)"', page)) for page in pages]
    assert keys[0]
    assert not keys[0] & keys[1]
    assert set(TOKEN.findall(pages[0])) != set(TOKEN.findall(pages[1]))
