"""The read-only live view: standings for the other phones, cheap to poll."""

import sqlalchemy as sa

from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.factories import new_game
from tests.play_helpers import bid, play_round, post, text, trump


def trump_shown(symbol: str, name: str) -> str:
    """A trump as the round's header shows it: the symbol hidden from screen readers (which
    would read "black spade suit Spades"), then the suit's name."""
    return f'<strong class="trump"><span class="sym" aria-hidden="true">{symbol}</span> ' + (
        f'<span class="suit-name">{name}</span></strong>'
    )


def live_url(game_id: int) -> str:
    return "/live/" + db.session.get(Game, game_id).live_token


def test_the_live_view_shows_round_trump_and_standings_without_controls(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    trump(client, game_id, 2, "suit:spades")
    bid(client, game_id, 2, 2, 1)
    page = text(client.get(live_url(game_id)))
    assert "Round 2 of 20" in page
    assert trump_shown("♠", "Spades") in page
    assert "Ann bids next" in page
    assert 'class="num total">30<' in page
    board = page.split('id="live-board"')[1].split('class="site-footer')[0]
    assert "<form" not in board, "nothing can be changed here"


def test_a_poll_is_a_304_until_the_game_changes(ctx, client):
    game_id = new_game(bid_rule="free")
    board = live_url(game_id) + "/board"
    first = client.get(board)
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert "no-cache" in first.headers["Cache-Control"]
    again = client.get(board, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    trump(client, game_id, 1)
    changed = client.get(board, headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    assert trump_shown("♥", "Hearts") in text(changed)


def test_an_unchanged_poll_costs_one_query(ctx, client):
    game_id = new_game(bid_rule="free")
    board = live_url(game_id) + "/board"
    etag = client.get(board).headers["ETag"]
    statements = []
    engine = db.engine

    def count(_connection, _cursor, statement, *_args):
        # Its own short transaction (not the page's session): its BEGIN is no query.
        if statement != "BEGIN":
            statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        assert client.get(board, headers={"If-None-Match": etag}).status_code == 304
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)
    assert len(statements) == 1, statements


def test_secret_bids_are_not_on_the_live_view(ctx, client):
    game_id = new_game(bid_rule="free", bid_reveal="secret")
    trump(client, game_id, 1)
    post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0})
    page = text(client.get(live_url(game_id)))
    assert ">Bid<" not in page


def test_unknown_live_link_is_a_404(ctx, client):
    assert client.get("/live/nothing-here").status_code == 404
    assert client.get("/live/nothing-here/board").status_code == 404


def test_the_share_page_has_the_link_and_a_qr_code(ctx, client):
    game_id = new_game()
    page = client.get(f"/games/{game_id}/share").get_data(as_text=True)
    assert live_url(game_id) in page
    assert "<svg" in page
    assert client.get("/games/999/share").status_code == 404
