"""Pages answered from the stored facts on every visit, with validators (the score sheet, the
live board, the lists): never stale, never in another viewer's language; the pages that write
give every visit fresh request keys."""

import re

from scorekeeper import queries
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.factories import new_game
from tests.play_helpers import HX, play_round, sheet_totals, text, trump, version

# A visitor's own values: the token (in forms and htmx's headers) and the forms' keys.
VALUES = re.compile(r'(?<=value=")[^"]+(?=")|(?<="X-CSRFToken": ")[^"]+')


def test_the_sheet_follows_every_change_of_the_game(client, ctx):
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    assert sheet_totals(client, game_id) == [0, 0, 0]
    assert sheet_totals(client, game_id) == [0, 0, 0]
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


def test_the_sheet_is_never_shown_in_another_language(app, client):
    # No application context held across requests: each request finds its own language.
    with app.app_context():
        game_id = new_game(["Ann", "Bob", "Cy"])
    first = client.get(f"/games/{game_id}/sheet")
    english = text(first)
    client.set_cookie("lang", "de")
    # The English copy's validator does not stand for the German page.
    german = text(
        client.get(f"/games/{game_id}/sheet", headers={"If-None-Match": first.headers["ETag"]})
    )
    assert "Score sheet" in english
    assert "Score sheet" not in german
    assert 'lang="de"' in german


def _live_token(game_id: int) -> str:
    return db.session.get(Game, game_id).live_token


def test_the_table_step_hands_out_fresh_request_keys_on_every_visit(client, ctx):
    """Each form of the round screen carries its own request key (a double tap is recognised
    by it): two visits, or two forms, never share a key."""
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    trump(client, game_id, 1, "suit:hearts")
    visits = [client.get(f"/games/{game_id}").get_data(as_text=True) for _ in range(2)]
    keys = [re.findall(r'name="request_key" value="([^"]+)"', page) for page in visits]
    assert keys[0]
    assert len(keys[0]) == len(keys[1])
    assert len(set(keys[0]) | set(keys[1])) == 2 * len(keys[0])
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22}", key) for key in keys[0] + keys[1])
    # A key from the second visit saves the bid it was handed out with.
    answer = client.post(
        f"/games/{game_id}/rounds/1/bid",
        data={"version": version(game_id), "seat": 1, "bid": 0, "request_key": keys[1][0]},
    )
    assert answer.status_code == 303


def test_lists_show_a_game_as_soon_as_it_is_stored(client, ctx):
    new_game(["Ann", "Bob", "Cy"])
    first = client.get("/history/")
    listed = text(first)
    assert "Dora" not in listed
    assert "Dora" not in text(client.get("/games/new"))
    new_game(["Dora", "Bob", "Cy"])
    seen = {"If-None-Match": first.headers["ETag"]}
    assert "Dora" in text(client.get("/history/", headers=seen))
    assert "Dora" in text(client.get("/games/new"))  # in the roster


def test_the_data_version_moves_with_every_stored_change_not_with_reads(client, ctx):
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    before = queries.data_version()
    client.get(f"/games/{game_id}")
    client.get("/history/")
    assert queries.data_version() == before
    trump(client, game_id, 1, "suit:hearts")
    assert queries.data_version() > before
