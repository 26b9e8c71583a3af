"""A secret bid never leaves the server before the round's tricks are in.

Two instances play the same game, the same way, except for the secret bids of the round
being played. Every page, fragment, export, backup and ETag either instance can answer is
then compared: once the values that are random per instance (tokens, keys, times) are
masked, the two must be byte for byte the same — any difference is a bid leaking out.
"""

import re

import pytest
from flask import Flask

from scorekeeper import create_app
from scorekeeper.extensions import db
from scorekeeper.models import Game, Player
from tests.conftest import make_config
from tests.factories import new_game
from tests.play_helpers import HX, play_round, post, trump

MASKS = [
    # The share page's QR code draws the live link, whose token differs per instance.
    (re.compile(r"<svg[^>]*viewBox=\"0 0 \d+ \d+\"[^>]*>.*?</svg>", re.S), "QR"),
    (re.compile(r'name="(request_key|csrf_token)"( type="hidden")? value="[^"]*"'), "KEY"),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), "CSRF"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ][\d:.+]+"), "TIMESTAMP"),
    (re.compile(r"\b\d{1,2}:\d{2}(\s|\u202f)?([AP]M)?"), "TIME"),
]


def masked(body: str, game: Game) -> str:
    for value in (game.uid, game.live_token):
        body = body.replace(value, "TOKEN")
    for pattern, mask in MASKS:
        body = pattern.sub(mask, body)
    return body


def instance(tmp_path, name: str, secret_bids: dict[str, int]) -> tuple[Flask, dict]:
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / name}.sqlite"))
    client = app.test_client()
    with app.app_context():
        db.create_all()
        game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free", bid_reveal="secret")
        play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
        trump(client, game_id, 2)
        response = post(client, game_id, "rounds/2/bids", secret_bids)
        assert response.status_code == 303, response.get_data(as_text=True)
        game = db.session.get(Game, game_id)
        player_id = db.session.scalar(db.select(Player.id).where(Player.name == "Ann"))
        answers = {}
        for url, headers in urls(game, player_id):
            got = client.get(url, headers=headers)
            assert got.status_code == 200, url
            key = masked(url, game) + str(headers)
            answers[key] = (masked(got.get_data(as_text=True), game), got.get_etag())
        # Then every POST a phone can send while the bids are sealed, refused ones included,
        # in the same order on both instances (each leaves the bids sealed, or is the last).
        for number, (path, data, headers) in enumerate(posts(game, player_id)):
            if path.startswith("/"):
                got = client.post(path, data=data, headers=headers)
            else:
                got = post(client, game_id, path, data, headers=headers)
            body = masked(got.get_data(as_text=True), game)
            where = masked(got.headers.get("Location", ""), game)
            answers[f"POST {number} {path} {data} {headers}"] = (
                got.status_code,
                body,
                where,
                got.get_etag(),
            )
    return app, answers


def posts(game: Game, player_id: int) -> list[tuple[str, dict, dict | None]]:
    """Round 2 (2 cards) has its trump and all three secret bids; the tricks are not in."""
    tricks = "rounds/2/tricks"
    kept = {"trump": "suit:hearts", "request_key": "kept-2", "bid_0": "2", "bid_1": "0"}
    kept |= {"bid_2": "0", "tricks_0": "2", "tricks_1": "0", "tricks_2": "0"}
    sent = []
    for headers in (None, HX):
        sent += [
            # The shortcut the page does not show in secret rounds: it must not fill in bids.
            (tricks, {"all_made": "1"}, headers),
            (tricks, {"all_made": "1", "tricks_0": "1", "tricks_1": "1"}, headers),
            (tricks, {"tricks_0": "2", "tricks_1": "1", "tricks_2": "0"}, headers),
            (tricks, {"tricks_0": "1", "tricks_1": "0"}, headers),
            (
                tricks,
                {"tricks_0": "1", "tricks_1": "1", "tricks_2": "0", "cloud_seat": "0"},
                headers,
            ),
            (
                tricks,
                {
                    "tricks_0": "1",
                    "tricks_1": "1",
                    "tricks_2": "0",
                    "cloud_seat": "1",
                    "cloud_change": "1",
                },
                headers,
            ),
            (tricks, {"tricks_0": "1", "tricks_1": "1", "tricks_2": "0", "version": "1"}, headers),
            ("rounds/2/trump", {"trump": "suit:clubs"}, headers),
            ("rounds/2/dealer", {"dealer": "2"}, headers),
            ("rounds/2/bid", {"seat": "1", "bid": "1"}, headers),
            ("rounds/2/bids", {"bid_0": "1", "bid_1": "1", "bid_2": "1"}, headers),
            ("rounds/2/take-back", {}, headers),
            ("rounds/2/werewolf", {"trump": "suit:clubs"}, headers),
            ("rounds/1/edit", {"bid_0": "9", "tricks_0": "1"}, headers),
            ("rounds/2/edit", {"bid_0": "1", "tricks_0": "1"}, headers),
            ("plan", {"later": "x"}, headers),
            ("again", {}, headers),
            (f"/seat/{'0' * 22}/bid", {"round": "2", "bid": "1"}, headers),
            # A round kept on the table phone: refused, neither shown nor stored over.
            ("rounds/2/kept", kept, headers),
            ("rounds/2/kept", kept | {"replace": "y"}, headers),
            ("rounds/2/kept", kept | {"bid_0": "1", "bid_1": "1", "bid_2": "0"}, headers),
        ]
    sent += [
        ("/language", {"lang": "de", "next": f"/games/{game.id}"}, None),
        ("/language", {"lang": "en", "next": f"/games/{game.id}"}, None),
        (f"/players/{player_id}/rename", {"name": ""}, None),
        (f"/players/{player_id}/merge", {"into": ""}, None),
        # Accepted, still sealed: a correction of round 1 that changes nothing of round 2.
        (
            "rounds/1/edit",
            {
                "trump": "suit:hearts",
                "bid_0": "1",
                "bid_1": "0",
                "bid_2": "0",
                "tricks_0": "1",
                "tricks_1": "0",
                "tricks_2": "0",
            },
            None,
        ),
        # The last ones: taking the bids back, then giving the game up.
        ("undo", {}, None),
        ("abandon", {}, None),
    ]
    return sent


def urls(game: Game, player_id: int) -> list[tuple[str, dict]]:
    pages = [
        f"/games/{game.id}",
        f"/games/{game.id}/sheet",
        f"/games/{game.id}/share",
        f"/games/{game.id}/offline",
        f"/live/{game.live_token}",
        f"/live/{game.live_token}/board",
        "/",
        "/history/",
        f"/history/{game.id}",
        f"/history/{game.id}/replay?round=1",
        f"/history/{game.id}/export.csv",
        f"/history/{game.id}/export.json",
        "/history/backup.json",
        f"/players/{player_id}",
    ]
    return [(url, {}) for url in pages] + [(url, HX) for url in pages[:2] + pages[4:5]]


@pytest.mark.parametrize(
    "other", [{"bid_0": 0, "bid_1": 0, "bid_2": 2}, {"bid_0": 2, "bid_1": 0, "bid_2": 0}]
)
def test_no_answer_differs_by_a_secret_bid(tmp_path, other):
    _, first = instance(tmp_path, "first", {"bid_0": 1, "bid_1": 1, "bid_2": 0})
    _, second = instance(tmp_path, "second", other)
    assert first.keys() == second.keys()
    leaks = [url for url in first if first[url] != second[url]]
    assert leaks == []
