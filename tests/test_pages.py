"""Every page answers a plain request and an htmx request (fragment or full page), never a 500."""

import pytest

from scorekeeper.extensions import db
from scorekeeper.models import Game, Player
from tests.factories import new_game
from tests.play_helpers import HX, play_round, post, text, trump


@pytest.fixture
def played(ctx, client):
    """A game with one scored round, and the URLs of every page that shows it."""
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    game = db.session.get(Game, game_id)
    player_id = db.session.scalar(db.select(Player.id).where(Player.name == "Ann"))
    return {
        "game_id": game_id,
        "pages": {
            "/": "Keep score for Wizard",
            f"/games/{game_id}": "Round 2 of 20",
            f"/games/{game_id}/sheet": "Score sheet",
            f"/games/{game_id}/rounds/1/edit": "Correct round 1",
            f"/games/{game_id}/share": "Follow on other phones",
            "/games/new": "Start game",
            "/history/": "Standard · Free · open bids",
            f"/history/{game_id}": "Running totals",
            f"/history/{game_id}/replay?round=1": "Ann",
            "/history/backup": "Backup",
            "/players/": "Ann",
            f"/players/{player_id}": "Ann",
            f"/live/{game.live_token}": "Round 2 of 20",
            f"/live/{game.live_token}/board": "Round 2 of 20",
        },
    }


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_every_page_answers_both_ways(client, played, headers):
    for url, expected in played["pages"].items():
        response = client.get(url, headers=headers)
        assert response.status_code == 200, url
        assert expected in text(response), url


def test_pages_that_answer_htmx_with_a_fragment_say_so_in_vary(client, played):
    game_id = played["game_id"]
    for url in (f"/games/{game_id}", "/history/", "/games/new"):
        plain = client.get(url)
        partial = client.get(url, headers=HX)
        assert "HX-Request" in plain.headers.get("Vary", ""), url
        assert "<html" in plain.get_data(as_text=True)
        assert "<html" not in partial.get_data(as_text=True), url


def test_all_bids_at_once_answer_htmx_with_the_table(ctx, client):
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    trump(client, game_id, 1)
    response = post(
        client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0}, headers=HX
    )
    assert response.status_code == 200
    assert text(response).lstrip().startswith('<div id="table"')
    assert "Tricks" in text(response)


def test_an_htmx_error_is_a_fragment_retargeted_to_the_status_box(client, played):
    missing = client.get("/games/999999", headers=HX)
    assert missing.status_code == 404
    assert missing.headers["HX-Retarget"] == "#net-status"
    assert missing.headers["HX-Reswap"] == "innerHTML"
    assert "<html" not in text(missing)
    assert "There is no game 999999." in text(missing)
    plain = client.get("/games/999999")
    assert "HX-Retarget" not in plain.headers
    assert "<html" in text(plain)
