"""Each player's own phone: seat links, bids from the phone, sealed hidden and secret bids."""

import html
import re

import pytest
from flask import Flask

from scorekeeper import create_app
from scorekeeper.extensions import db
from scorekeeper.models import Change, Game, RoundState, SeatLink
from tests.conftest import make_config
from tests.factories import new_game
from tests.play_helpers import HX, bid, play_round, post, text, trump, version


def seen(response) -> str:
    """What a person reads: the text without tags, spaces collapsed."""
    words = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", html.unescape(words))


def links(client, game_id: int) -> dict[int, str]:
    """Make a link for every seat (as the share page's button does) and read them back."""
    response = client.post(f"/games/{game_id}/seat-links")
    assert response.status_code == 303
    page = client.get(f"/games/{game_id}/share").get_data(as_text=True)
    tokens = re.findall(r'href="[^"]*/seat/([A-Za-z0-9_-]+)"', page)
    assert len(tokens) == len(db.session.get(Game, game_id).seats)
    return dict(enumerate(tokens))


def seat_bid(client, game_id: int, token: str, number: int, value: int, **extra):
    data = {"version": version(game_id), "round": number, "bid": value} | extra
    return client.post(f"/seat/{token}/bid", data=data, headers=extra.pop("headers", None))


def state(game_id: int) -> tuple[RoundState, list]:
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    round_ = game.rounds[-1]
    return round_.state, [entry.bid for entry in round_.entries]


def test_each_seat_gets_its_own_unguessable_link_which_can_be_renewed_or_turned_off(client, ctx):
    game_id = new_game()
    tokens = links(client, game_id)
    assert len(set(tokens.values())) == 3
    assert all(len(token) >= 32 for token in tokens.values())
    page = client.get(f"/seat/{tokens[1]}")
    assert page.status_code == 200
    assert "Phone of Bob" in text(page)
    client.post(f"/games/{game_id}/seat-links", data={"seat": 1})
    assert client.get(f"/seat/{tokens[1]}").status_code == 404, "the old link is revoked"
    renewed = links(client, game_id)
    assert renewed[0] == tokens[0]
    assert renewed[1] != tokens[1]
    client.post(f"/games/{game_id}/seat-links/off", data={"seat": 2})
    assert client.get(f"/seat/{tokens[2]}").status_code == 404
    assert client.get(f"/seat/{tokens[2]}/pad").status_code == 404
    assert client.post(f"/seat/{tokens[2]}/bid", data={}).status_code == 404
    assert client.get("/seat/not-a-token").status_code == 404
    assert db.session.query(SeatLink).count() == 2


def test_with_a_password_the_seat_link_is_the_only_key(tmp_path):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'p.sqlite'}",
            ACCESS_PASSWORD="pw",
        )
    )
    client = app.test_client()
    with app.app_context():
        db.create_all()
        game_id = new_game(bid_rule="free", bid_reveal="hidden")
        refused = client.post(f"/games/{game_id}/seat-links")
        assert refused.status_code == 303
        assert "/login" in refused.location
        assert db.session.query(SeatLink).count() == 0
        client.post("/login", data={"password": "pw"})
        tokens = links(client, game_id)
        trump(client, game_id, 1)
        phone = app.test_client()
        assert phone.get(f"/seat/{tokens[1]}").status_code == 200
        assert seat_bid(phone, game_id, tokens[1], 1, 1).status_code == 303
        assert phone.get(f"/games/{game_id}").status_code == 303, "the table is not open"


def test_hidden_bids_are_sealed_until_the_last_is_in_then_revealed_together(client, ctx):
    game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free", bid_reveal="hidden")
    tokens = links(client, game_id)
    waiting = text(client.get(f"/seat/{tokens[1]}"))
    assert "Your bid comes once the trump is turned up." in waiting
    trump(client, game_id, 1)
    assert 'name="bid" value="1"' in text(client.get(f"/seat/{tokens[1]}"))
    assert seat_bid(client, game_id, tokens[1], 1, 1).status_code == 303
    assert state(game_id) == (RoundState.BIDDING, [None, 1, None])
    mine = seen(client.get(f"/seat/{tokens[1]}"))
    assert "Your bid: 1" in mine
    assert "Waiting for: Cara and Ann" in mine
    table = text(client.get(f"/games/{game_id}"))
    assert "bid on their phone" in table
    assert 'name="bid_1"' not in table, "no input for a sealed bid"
    assert 'name="bid_2"' in table, "the table can still bid for Cara"
    assert seat_bid(client, game_id, tokens[1], 1, 0).status_code == 422, "once only"
    assert seat_bid(client, game_id, tokens[2], 1, 0).status_code == 303
    # Ann has no phone: the table enters hers, and the round is revealed.
    assert post(client, game_id, "rounds/1/bids", {"bid_0": 1}).status_code == 303
    assert state(game_id) == (RoundState.PLAYING, [1, 1, 0])
    shown = text(client.get(f"/games/{game_id}", headers=HX))
    assert "bid 1" in shown
    assert "bid 0" in shown


def test_the_table_may_not_send_a_bid_for_a_sealed_seat(client, ctx):
    game_id = new_game(bid_rule="free", bid_reveal="secret")
    tokens = links(client, game_id)
    trump(client, game_id, 1)
    seat_bid(client, game_id, tokens[0], 1, 1)
    before = version(game_id)
    response = post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0})
    assert response.status_code == 422
    assert "It is not Ann's turn to bid" in seen(response)
    assert version(game_id) == before
    assert state(game_id) == (RoundState.BIDDING, [1, None, None])


def test_secret_bids_from_phones_show_only_the_own_bid_until_the_tricks_are_in(client, ctx):
    game_id = new_game(bid_rule="free", bid_reveal="secret")
    tokens = links(client, game_id)
    trump(client, game_id, 1)
    for seat, value in ((0, 1), (1, 0), (2, 0)):
        assert seat_bid(client, game_id, tokens[seat], 1, value).status_code == 303
    assert state(game_id) == (RoundState.PLAYING, [1, 0, 0])
    ann = seen(client.get(f"/seat/{tokens[0]}"))
    assert "Your bid: 1" in ann
    assert "The tricks are entered at the table." in ann
    assert "Your bid: 0" in seen(client.get(f"/seat/{tokens[1]}"))
    assert "bid hidden" in text(client.get(f"/games/{game_id}"))


def test_two_phones_bidding_on_the_same_page_version_both_count(client, ctx):
    """A sealed bid does not depend on the others' (nobody sees them): not "changed on
    another phone" because another player sealed theirs first."""
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    tokens = links(client, game_id)
    trump(client, game_id, 1)
    shown = version(game_id)
    for seat in (0, 1):
        data = {"version": shown, "round": 1, "bid": 0}
        assert client.post(f"/seat/{tokens[seat]}/bid", data=data).status_code == 303
    assert state(game_id) == (RoundState.BIDDING, [0, 0, None])
    # The table's form too, shown before both.
    table = {"version": shown, "bid_2": 1}
    assert client.post(f"/games/{game_id}/rounds/1/bids", data=table).status_code == 303
    assert state(game_id) == (RoundState.PLAYING, [0, 0, 1])


def test_a_double_tap_on_a_phone_is_recorded_once(client, ctx):
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    tokens = links(client, game_id)
    trump(client, game_id, 1)
    data = {"version": version(game_id), "round": 1, "bid": 1, "request_key": "tap-1"}
    first = client.post(f"/seat/{tokens[0]}/bid", data=data)
    again = client.post(f"/seat/{tokens[0]}/bid", data=data)
    assert (first.status_code, again.status_code) == (303, 303)
    assert db.session.query(Change).filter_by(request_key="tap-1").count() == 1
    other = client.post(f"/seat/{tokens[0]}/bid", data=data | {"bid": 0})
    assert other.status_code == 409
    assert state(game_id) == (RoundState.BIDDING, [1, None, None])


@pytest.mark.parametrize(
    ("bid_rule", "leader_bids"),
    [("plus_minus_one", [1, 0, 0]), ("canadian", [1, 0, 0])],
)
def test_open_bids_the_last_bidders_phone_strikes_the_forbidden_bid(
    client, ctx, bid_rule, leader_bids
):
    # Round 1 (dealer Ann): Bob makes his bid of 1 and leads alone, so under Canadian too he
    # may not make round 2's bids even; he deals round 2 and so bids last.
    game_id = new_game(bid_rule=bid_rule)
    play_round(client, game_id, 1, 0, [0, 1, 1], [0, 1, 0])
    tokens = links(client, game_id)
    trump(client, game_id, 2)
    assert "Cara bids next" in text(client.get(f"/seat/{tokens[1]}"))
    assert seat_bid(client, game_id, tokens[1], 2, 0).status_code == 422, "not his turn"
    assert bid(client, game_id, 2, 2, 1).status_code == 303
    assert seat_bid(client, game_id, tokens[0], 2, 0).status_code == 303
    bob = client.get(f"/seat/{tokens[1]}").get_data(as_text=True)
    # 2 cards, 1 bid so far: Bob may not bid 1.
    assert re.search(r'value="1" class="bid-button forbidden"\s+disabled', bob)
    assert "forbidden-reason" in bob
    refused = seat_bid(client, game_id, tokens[1], 2, 1)
    assert refused.status_code == 422
    assert state(game_id) == (RoundState.BIDDING, [0, None, 1])
    assert seat_bid(client, game_id, tokens[1], 2, 2).status_code == 303
    assert state(game_id) == (RoundState.PLAYING, [0, 2, 1])


def test_an_open_bid_on_a_stale_page_is_refused(client, ctx):
    game_id = new_game()
    tokens = links(client, game_id)
    trump(client, game_id, 1)
    shown = version(game_id)
    assert bid(client, game_id, 1, 1, 0).status_code == 303
    data = {"version": shown, "round": 1, "bid": 1}
    stale = client.post(f"/seat/{tokens[2]}/bid", data=data, headers=HX)
    assert stale.status_code == 409
    assert "Changed on another phone" in text(stale)


def test_the_phone_polls_with_304_while_nothing_changes(client, ctx):
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    tokens = links(client, game_id)
    first = client.get(f"/seat/{tokens[0]}/pad", headers=HX)
    etag = first.headers["ETag"]
    again = client.get(f"/seat/{tokens[0]}/pad", headers=HX | {"If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    trump(client, game_id, 1)
    changed = client.get(f"/seat/{tokens[0]}/pad", headers=HX | {"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    # The table follows bids from the phones the same way.
    table = client.get(f"/games/{game_id}/poll", headers=HX)
    tag = table.headers["ETag"]
    assert client.get(f"/games/{game_id}/poll", headers={"If-None-Match": tag}).status_code == 304
    seat_bid(client, game_id, tokens[1], 1, 0)
    moved = client.get(f"/games/{game_id}/poll", headers=HX | {"If-None-Match": tag})
    assert moved.status_code == 200
    assert "bid on their phone" in text(moved)


# --- nothing leaves the server before the reveal ---------------------------------------------

MASKS = [
    (re.compile(r"<svg[^>]*viewBox=\"0 0 \d+ \d+\"[^>]*>.*?</svg>", re.S), "QR"),
    (re.compile(r'name="(request_key|csrf_token)"( type="hidden")? value="[^"]*"'), "KEY"),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), "CSRF"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ][\d:.+]+"), "TIMESTAMP"),
    (re.compile(r"\b\d{1,2}:\d{2}(\s|\u202f)?([AP]M)?"), "TIME"),
]


def masked(body: str, secrets: list[str]) -> str:
    for number, value in enumerate(secrets):
        body = body.replace(value, f"TOKEN{number}")
    for pattern, mask in MASKS:
        body = pattern.sub(mask, body)
    return body


def instance(tmp_path, name: str, reveal: str, sealed: dict[int, int]) -> tuple[Flask, dict]:
    """A game whose round 2 has these bids sealed on the phones (and Cara's not yet in);
    every answer anyone but the sealed seats' own phones gets."""
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / name}.sqlite"))
    client = app.test_client()
    with app.app_context():
        db.create_all()
        game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free", bid_reveal=reveal)
        tokens = links(client, game_id)
        trump(client, game_id, 1)
        post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0})
        post(client, game_id, "rounds/1/tricks", {"tricks_0": 1, "tricks_1": 0, "tricks_2": 0})
        trump(client, game_id, 2)
        for seat, value in sealed.items():
            assert seat_bid(client, game_id, tokens[seat], 2, value).status_code == 303
        game = db.session.get(Game, game_id)
        secrets = [game.uid, game.live_token, *tokens.values()]
        pages = [
            f"/games/{game.id}",
            f"/games/{game.id}/poll",
            f"/games/{game.id}/sheet",
            f"/games/{game.id}/share",
            f"/live/{game.live_token}",
            f"/live/{game.live_token}/board",
            f"/seat/{tokens[2]}",
            f"/seat/{tokens[2]}/pad",
            "/",
            "/history/",
            f"/history/{game.id}",
            f"/history/{game.id}/replay?round=1",
            f"/history/{game.id}/export.csv",
            f"/history/{game.id}/export.json",
            "/history/backup.json",
            "/players/1",
        ]
        answers = {}
        for url in pages:
            for headers in ({}, HX):
                got = client.get(url, headers=headers)
                assert got.status_code == 200, url
                key = masked(url, secrets) + str(headers)
                answers[key] = (masked(got.get_data(as_text=True), secrets), got.get_etag())
    return app, answers


@pytest.mark.parametrize("reveal", ["hidden", "secret"])
def test_no_answer_but_the_own_phone_differs_by_a_sealed_bid(tmp_path, reveal):
    _, first = instance(tmp_path, "first", reveal, {0: 2, 1: 0})
    _, second = instance(tmp_path, "second", reveal, {0: 0, 1: 1})
    assert first.keys() == second.keys()
    leaks = [url for url in first if first[url] != second[url]]
    assert leaks == []
