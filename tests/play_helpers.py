"""Drive the round screens through the test client, the way the page's forms post."""

import re
import threading
from collections.abc import Callable

from flask.testing import FlaskClient

from scorekeeper.extensions import db
from scorekeeper.models import Game

HX = {"HX-Request": "true"}


def version(game_id: int) -> int:
    db.session.expire_all()
    return db.session.get(Game, game_id).version


def post(client: FlaskClient, game_id: int, path: str, data: dict, **kwargs):
    payload = {"version": version(game_id), **data}
    return client.post(f"/games/{game_id}/{path}", data=payload, **kwargs)


def trump(client, game_id, number, value="suit:hearts", **kwargs):
    return post(client, game_id, f"rounds/{number}/trump", {"trump": value}, **kwargs)


def bid(client, game_id, number, seat, value, **kwargs):
    return post(client, game_id, f"rounds/{number}/bid", {"seat": seat, "bid": value}, **kwargs)


def tricks(client, game_id, number, values: dict[int, int], **extra):
    data = {f"tricks_{seat}": value for seat, value in values.items()}
    headers = extra.pop("headers", None)
    return post(client, game_id, f"rounds/{number}/tricks", data | extra, headers=headers)


def trump_and_bids(client, game_id, number, dealer, bids: list[int], cause="suit:hearts"):
    """Trump, then the bids in bid order (``bids`` by seat), each one accepted."""
    players = len(bids)
    trump(client, game_id, number, cause)
    for step in range(players):
        seat = (dealer + 1 + step) % players
        response = bid(client, game_id, number, seat, bids[seat])
        assert response.status_code == 303, response.get_data(as_text=True)


def play_round(
    client,
    game_id,
    number,
    dealer,
    bids: list[int],
    took: list[int],
    cause="suit:hearts",
    **extra,
):
    """Trump, then the bids in bid order (``bids`` by seat), then the tricks (and ``extra``
    fields of the tricks form, e.g. the Cloud's or the Bomb's)."""
    trump_and_bids(client, game_id, number, dealer, bids, cause)
    return tricks(client, game_id, number, dict(enumerate(took)), **extra)


def text(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def sheet_totals(client: FlaskClient, game_id: int) -> list[int]:
    """The totals row of the score sheet page, by seat, as a player reads it."""
    page = client.get(f"/games/{game_id}/sheet").get_data(as_text=True)
    footer = page.split("<tfoot>")[1].split("</tfoot>")[0]
    return [int(value) for value in re.findall(r'class="total[^"]*">(-?\d+)<', footer)]


def correction(bids: list[int], took: list[int], trump: str = "suit:hearts", **extra) -> dict:
    """The correction form of a round as the page posts it: bids and tricks by seat."""
    data = {"trump": trump, **extra}
    data |= {f"bid_{seat}": value for seat, value in enumerate(bids)}
    data |= {f"tricks_{seat}": value for seat, value in enumerate(took)}
    return data


def finish_while_reading(app, game_ids: list[int], read: Callable[[FlaskClient], None]) -> None:
    """Finish each one-round game (bids 1, 0, 0 and tricks as bid) from one client while
    ``read`` is called again and again with another, in a thread of its own, until the last
    game is finished: a page read while another request writes."""
    done = threading.Event()

    def reading() -> None:
        reader = app.test_client()
        while not done.is_set():
            read(reader)

    thread = threading.Thread(target=reading)
    thread.start()
    writer = app.test_client()
    try:
        with app.app_context():
            for game_id in game_ids:
                play_round(writer, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
                db.session.remove()
    finally:
        done.set()
        thread.join()
