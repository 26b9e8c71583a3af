"""Hostile, odd or repeated requests: a clear answer, never a 500, nothing stored wrongly."""

import pytest
import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Change, Game, Player, Round
from tests.factories import new_game
from tests.play_helpers import HX, play_round, post, text, trump, version

SETUP = "/games/new"


def stored_bids(game_id: int, number: int) -> list:
    round_ = db.session.scalar(
        sa.select(Round).where(Round.game_id == game_id, Round.number == number)
    )
    db.session.refresh(round_)
    return [entry.bid for entry in sorted(round_.entries, key=lambda e: e.seat)]


# --- numbers as a page may post them -------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("rounds/1/tricks", {"tricks_0": "²"}),
        ("rounds/1/trump", {"trump": "suit:nonsense", "tricks_0": "²"}),
        ("rounds/1/bid", {"seat": "¹", "bid": "0"}),
        ("rounds/1/dealer", {"dealer": "9" * 5000}),
        ("plan", {"later": "²"}),
        ("undo", {"version": "9" * 30}),
    ],
)
def test_odd_digits_and_huge_numbers_are_refused_not_a_crash(ctx, client, path, data):
    game_id = new_game()
    before = version(game_id)
    response = post(client, game_id, path, data)
    assert response.status_code < 500
    assert version(game_id) == before


@pytest.mark.parametrize(
    "data",
    [
        {"action": "up:²", "seats": ["Ann", "Bob", "Cy"]},
        {"action": "remove:¹", "seats": ["Ann", "Bob", "Cy"]},
        {"action": "start", "seats": ["Ann", "Bob", "Cy"], "first_dealer": "²"},
        {"action": "start", "seats": ["Ann", "Bob", "Cy"], "plan": "first_n", "plan_rounds": "²"},
        {"action": "start", "seats": ["Ann", "Bob", "Cy"], "plan": "custom", "plan_custom": "1 ³"},
    ],
)
def test_setup_with_odd_digits_answers_with_the_form(ctx, client, data):
    response = client.post(SETUP, data=data)
    assert response.status_code in (200, 422)
    assert db.session.scalar(sa.select(sa.func.count(Game.id))) == 0


@pytest.mark.parametrize("name", ["\x00Ann", "An\x00n", "Bo\x07b"])
def test_a_name_with_control_characters_is_refused_next_to_the_field(ctx, client, name):
    response = client.post(SETUP, data={"action": "add", "new_name": name})
    assert response.status_code == 422
    assert "A name can only hold letters, digits and signs." in text(response)
    started = client.post(SETUP, data={"action": "start", "seats": [name, "Bob", "Cy"]})
    assert started.status_code == 422
    assert db.session.scalar(sa.select(sa.func.count(Player.id))) == 0


def test_a_name_typed_with_a_separate_accent_is_the_same_player(ctx, client):
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    client.post(SETUP, data={"action": "start", "seats": [composed, "Bob", "Cy"]})
    client.post(SETUP, data={"action": "start", "seats": [decomposed, "Bob", "Cy"]})
    names = db.session.scalars(sa.select(Player.name)).all()
    assert sorted(names) == ["Bob", "Cy", composed]


def test_a_request_key_that_the_app_never_hands_out_is_refused(ctx, client):
    game_id = new_game()
    key = "\x00" + "k" * 10
    response = post(
        client, game_id, "rounds/1/trump", {"trump": "suit:hearts", "request_key": key}
    )
    assert response.status_code == 422
    assert version(game_id) == 1


# --- sent again ----------------------------------------------------------------------------


def test_a_step_sent_again_with_another_value_says_it_was_already_saved(ctx, client):
    game_id = new_game(bid_rule="free")
    trump(client, game_id, 1)
    page = {"seat": 1, "bid": 1, "request_key": "page-1", "version": 2}
    assert post(client, game_id, "rounds/1/bid", page).status_code == 303
    # Back, another bid on the same page (the same key): not dropped in silence.
    again = post(client, game_id, "rounds/1/bid", page | {"bid": 0})
    assert again.status_code == 409
    assert "already saved with other entries" in text(again)
    assert stored_bids(game_id, 1)[1] == 1
    # The very same request again (a double tap, a retry) is quietly the same save.
    assert post(client, game_id, "rounds/1/bid", page).status_code == 303
    assert version(game_id) == 3


def test_setup_sent_again_with_other_choices_says_so_and_then_starts_a_new_game(ctx, client):
    page = {"action": "start", "seats": ["Ann", "Bob", "Cy"], "request_key": "setup-1"}
    assert client.post(SETUP, data=page).status_code == 303
    changed = page | {"seats": ["Ann", "Bob", "Dan"]}
    answer = client.post(SETUP, data=changed)
    assert answer.status_code == 409
    assert "A game was already started from this page" in text(answer)
    assert db.session.scalar(sa.select(sa.func.count(Game.id))) == 1
    fresh_key = text(answer).split('name="request_key" type="hidden" value="')[1].split('"')[0]
    assert fresh_key != "setup-1"
    assert client.post(SETUP, data=changed | {"request_key": fresh_key}).status_code == 303
    assert db.session.scalar(sa.select(sa.func.count(Game.id))) == 2


def test_play_again_from_two_tabs_starts_one_game(ctx, client):
    from scorekeeper import rules

    game_id = new_game(bid_rule="free", plan=rules.RoundPlan("first_n", rounds=1))
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    one = post(client, game_id, "again", {"request_key": "tab-1", "version": version(game_id)})
    two = post(client, game_id, "again", {"request_key": "tab-2", "version": version(game_id)})
    assert one.status_code == two.status_code == 303
    assert one.headers["Location"] == two.headers["Location"]
    assert db.session.scalar(sa.select(sa.func.count(Game.id))) == 2


def test_a_plan_form_without_its_field_keeps_the_later_rounds(ctx, client):
    from scorekeeper import rules

    game_id = new_game(plan=rules.RoundPlan("custom", custom=(1, 2, 3)))
    response = post(client, game_id, "plan", {})
    assert response.status_code == 422
    assert db.session.get(Game, game_id).rules["plan"]["custom"] == [1, 2, 3]


@pytest.mark.parametrize(("posted", "stored"), [(" ", None), ("Hearts ", "hearts")])
def test_the_werewolf_trump_is_stored_as_the_rules_read_it(ctx, client, posted, stored):
    from scorekeeper import rules

    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(werewolf=True))
    trump(client, game_id, 1)
    assert post(client, game_id, "rounds/1/werewolf", {"trump": posted}).status_code == 303
    round_ = db.session.scalar(sa.select(Round).where(Round.game_id == game_id))
    db.session.refresh(round_)
    assert round_.werewolf_trump == stored


def test_a_round_saved_on_the_other_phone_is_not_silently_taken_as_saved_here(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    # The second phone still shows round 1's tricks (version 5) and sends other tricks.
    late = post(client, game_id, "rounds/1/tricks", {"tricks_0": 0, "tricks_1": 1, "version": 5})
    assert late.status_code == 409
    assert "Changed on another phone" in text(late)
    saved = db.session.scalars(sa.select(Change).where(Change.action == "record_round")).all()
    assert len(saved) == 1


def test_an_htmx_refusal_for_a_stale_round_is_swapped_in(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    late = post(client, game_id, "rounds/1/tricks", {"tricks_0": 1, "version": 5}, headers=HX)
    assert late.status_code == 409
    assert text(late).lstrip().startswith('<div id="table"')


@pytest.mark.parametrize("body", ["0", "true", "[1, 2]", '{"dealer": 1, "version": 1}'])
def test_a_json_body_is_refused_as_such_and_changes_nothing(ctx, client, body):
    game_id = new_game()
    response = client.post(
        f"/games/{game_id}/rounds/1/dealer", data=body, content_type="application/json"
    )
    assert response.status_code == 415
    assert version(game_id) == 1


@pytest.mark.parametrize(
    ("message", "status"),
    [("database is locked", 409), ("disk I/O error", 500)],
)
def test_a_write_that_loses_a_race_the_path_did_not_expect_is_a_409(
    ctx, client, monkeypatch, message, status
):
    """E.g. on PostgreSQL a player renamed while a game seating them starts: the database
    refuses one of the two; that one is told something changed elsewhere, nothing stored."""
    game_id = new_game(bid_rule="free", plan=rules.RoundPlan("first_n", rounds=1))
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    games_before = db.session.scalar(sa.select(sa.func.count()).select_from(Game))

    def racing(*_args, **_kwargs):
        raise sa.exc.OperationalError("INSERT INTO seats …", {}, Exception(message))

    monkeypatch.setattr("scorekeeper.gameplay.play_again", racing)
    answer = post(client, game_id, "again", {"request_key": "race-1"})
    assert answer.status_code == status
    # SQLite's busy timeout: another write held the database, nothing changed here.
    expected = (
        "Another change (such as a restore) was being saved"
        if status == 409
        else "Nothing was saved"
    )
    assert expected in text(answer)
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == games_before


def test_a_name_that_case_folding_lengthens_past_the_limit_is_refused(ctx, client):
    """ "ﬃ" is one character that folds to three: 20 of them fit the name but not the key."""
    name = "\ufb03" * 20
    answer = client.post("/games/new", data={"action": "add", "new_name": name})
    assert answer.status_code == 422
    assert "at most 40 characters" in text(answer)
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Player)) == 0


def test_a_link_token_or_seat_the_app_never_hands_out_is_refused_on_every_database(db_app):
    """PostgreSQL cannot compare a text with a NUL byte, nor a seat number with a smallint
    column once it is out of range: such requests are a 404 or a 422, never a 500."""
    client = db_app.test_client()
    with db_app.app_context():
        game_id = new_game(["Ann", "Bob", "Cy"])
    for path in ("/live/%00", "/live/%00/board", "/seat/%00", "/seat/%001/pad"):
        assert client.get(path).status_code == 404, path
    assert client.post("/seat/%00/bid", data={"bid": "0"}).status_code == 404
    answer = client.post(f"/games/{game_id}/seat-links/off", data={"seat": "456165"})
    assert answer.status_code == 422


@pytest.mark.parametrize("key", ["\r\n", " ", "\t"])
def test_a_request_key_of_spaces_or_line_breaks_is_refused_not_taken_for_none(ctx, client, key):
    """Such a key is not one the app hands out; taken as 'no key' it was stored, and another
    request with the same hostile key was then answered as its repeat, storing nothing."""
    game_id = new_game(["Ann", "Bob", "Cy"])
    before = version(game_id)
    answer = post(client, game_id, "abandon", {"request_key": key})
    assert answer.status_code == 422
    assert version(game_id) == before


def test_undo_takes_back_the_latest_version_whatever_order_the_rows_were_stored_in(ctx, client):
    """A copied or restored history may hold its rows out of version order (PostgreSQL's
    INSERT … SELECT does not keep it): undo must still take back the latest change."""
    game_id = new_game(["Ann", "Bob", "Cy"], bid_rule="free")
    trump(client, game_id, 1)
    for seat in (1, 2, 0):
        post(client, game_id, "rounds/1/bid", {"seat": seat, "bid": 0})
    last, before = db.session.execute(
        sa.select(Change.id, Change.version)
        .where(Change.game_id == game_id)
        .order_by(Change.version.desc())
        .limit(2)
    ).all()
    # Swap the two newest rows' ids: the newest version now has the smaller id.
    swap = {last.id: -1, before.id: last.id}
    for old, new in swap.items():
        db.session.execute(sa.update(Change).where(Change.id == old).values(id=new))
    db.session.execute(sa.update(Change).where(Change.id == -1).values(id=before.id))
    db.session.commit()
    answer = post(client, game_id, "undo", {"request_key": "undo-latest"})
    assert answer.status_code == 303
    db.session.expire_all()
    bids = [entry.bid for entry in db.session.get(Game, game_id).rounds[0].entries]
    assert bids == [None, 0, 0]  # Ann's bid, the last one made, taken back
