"""Pages that only show a game read it as Core rows (queries.read_game), not as ORM objects:
at every moment of a game they must see what the ORM's load sees, and show the same page."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from scorekeeper import queries, records, rules
from scorekeeper.extensions import db
from scorekeeper.views import live, play, seat
from tests.factories import new_game
from tests.play_helpers import bid, correction, play_round, post, trump

GAME = ("id", "uid", "live_token", "status", "rules", "first_dealer", "version")
GAME += ("created_at", "updated_at", "finished_at", "previous_game_id")
SEAT = ("id", "game_id", "player_id", "position")
PLAYER = ("id", "name", "name_key", "created_at")
ROUND = ("id", "game_id", "number", "hand_size", "dealer", "state", "trump", "trump_cause")
ROUND += ("werewolf_trump", "werewolf_played", "bomb_played", "cloud_seat")
ENTRY = ("id", "round_id", "seat", "bid", "cloud_bid", "tricks")
CHANGE = ("id", "game_id", "version", "action", "round_number", "before", "after")
CHANGE += ("created_at", "request_key", "request_digest")


def facts(game) -> dict:
    """Everything a page can read of a game, as plain values."""

    def of(thing, names):
        return {name: getattr(thing, name) for name in names}

    return {
        "game": of(game, GAME),
        "seats": [of(seat, SEAT) | {"player": of(seat.player, PLAYER)} for seat in game.seats],
        "rounds": [
            of(round_, ROUND) | {"entries": [of(entry, ENTRY) for entry in round_.entries]}
            for round_ in game.rounds
        ],
        "changes": [of(change, CHANGE) for change in game.changes],
        # The links back, as the ORM's relationships have them.
        "back": [seat.game.id for seat in game.seats]
        + [round_.game.id for round_ in game.rounds]
        + [entry.round.number for round_ in game.rounds for entry in round_.entries]
        + [change.game.id for change in game.changes],
    }


def moments(client, game_id: int) -> list[tuple[str, Callable[[], object]]]:
    """A ±1 game of three, step by step: trump, bids, tricks, a correction, undo, the end."""
    took = {"tricks_0": 0, "tricks_1": 1, "tricks_2": 0}
    corrected = correction([0, 1, 1], [0, 1, 0])
    return [
        ("dealt", lambda: None),
        ("trump", lambda: trump(client, game_id, 1)),
        ("a bid", lambda: bid(client, game_id, 1, 1, 1)),
        ("bids", lambda: (bid(client, game_id, 1, 2, 1), bid(client, game_id, 1, 0, 1))),
        ("tricks", lambda: post(client, game_id, "rounds/1/tricks", took)),
        ("round 2", lambda: play_round(client, game_id, 2, 1, [0, 0, 1], [0, 0, 2])),
        ("corrected", lambda: post(client, game_id, "rounds/1/edit", corrected)),
        ("undone", lambda: post(client, game_id, "undo", {})),
        ("round 3", lambda: play_round(client, game_id, 3, 2, [1, 1, 0], [1, 1, 1])),
    ]  # fmt: skip


def orm_read(game_id: int):
    return queries.load_game(game_id, with_changes=True)


def page(client, path: str) -> str:
    """The page at ``path``, without the request keys its forms carry (new on every visit)."""
    answer = client.get(path)
    assert answer.status_code == 200, path
    return re.sub(r'name="request_key" value="[^"]*"', "", answer.get_data(as_text=True))


@pytest.mark.parametrize("bid_rule", ["plus_minus_one", "free"])
def test_a_game_read_for_a_page_is_the_game_the_orm_loads_at_every_moment(
    db_ctx, monkeypatch, bid_rule
):
    client = db_ctx.test_client()
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 2, 3))
    game_id = new_game(("Ann", "Bob", "Cy"), bid_rule=bid_rule, plan=plan)
    live_token = queries.load_game(game_id).live_token
    pages = (
        f"/games/{game_id}",
        f"/games/{game_id}/sheet",
        f"/history/{game_id}",
        f"/history/{game_id}/replay",
        f"/live/{live_token}",
        f"/live/{live_token}/board",
    )
    for moment, step in moments(client, game_id):
        answer = step()
        for one in answer if isinstance(answer, tuple) else (answer,):
            assert one is None or one.status_code == 303, (moment, one.status_code)
        db.session.expire_all()
        read = facts(queries.read_game(game_id))
        db.session.expire_all()
        loaded = facts(queries.load_game(game_id, with_changes=True))
        assert read == loaded, moment
        # The pages that read the game show what a game loaded through the ORM would.
        shown = [page(client, path) for path in pages]
        with monkeypatch.context() as patched:
            for module in (play, live, seat, queries):
                patched.setattr(module, "read_game", orm_read)
            again = [page(client, path) for path in pages]
        for path, one, other in zip(pages, shown, again, strict=True):
            assert one == other, (moment, path)
    assert read["game"]["status"] == "finished"
    assert len(read["changes"]) > 10


def test_a_game_that_is_not_there_is_a_page_not_found(ctx, client):
    game_id = new_game(("Ann", "Bob", "Cy"))
    for path in (
        f"/games/{game_id + 1}",
        f"/games/{game_id + 1}/sheet",
        f"/history/{game_id + 7}",
    ):
        answer = client.get(path)
        assert answer.status_code == 404
        assert f"There is no game {game_id + 1 if 'history' not in path else game_id + 7}" in (
            answer.get_data(as_text=True)
        )


def test_the_rules_read_once_per_game_follow_a_new_stored_value(ctx, client):
    """records.rules_of keeps the rules it read with the value they came from: a write
    stores a new value (the round plan changed), and the same loaded game reads it."""
    game_id = new_game(("Ann", "Bob", "Cy"), bid_rule="free")
    game = queries.load_game(game_id)
    first = records.rules_of(game)
    assert records.rules_of(game) is first  # read once
    changed = dict(game.rules, bid_rule="plus_minus_one")
    game.rules = changed
    assert records.rules_of(game).bid_rule == rules.BidRule.PLUS_MINUS_ONE
    db.session.rollback()
    # A game read again (another request, or after the write) reads what is stored.
    assert records.rules_of(queries.read_game(game_id)).bid_rule == rules.BidRule.FREE


def test_undo_reaches_back_past_the_changes_a_page_reads_at_first(db_ctx, monkeypatch):
    """A round screen reads the history newest first, a few changes at a time: undoing one
    change after another, back past the first few it reads, it still offers to undo (and
    names as undone) what a game loaded whole would, and shows the same screen."""
    from scorekeeper import changes

    client = db_ctx.test_client()
    game_id = new_game(("Ann", "Bob", "Cy"), bid_rule="free")
    path = f"/games/{game_id}"
    play_round(client, game_id, 1, 0, [0, 1, 0], [0, 1, 0])
    play_round(client, game_id, 2, 1, [1, 0, 1], [1, 0, 1])
    trump(client, game_id, 3)
    bid(client, game_id, 3, 0, 1)
    bid(client, game_id, 3, 1, 1)
    assert queries.load_game(game_id).version > 10  # more than the first read (8 changes)
    offered = []
    while True:
        db.session.expire_all()
        read = queries.read_game(game_id)
        target = changes.undoable(read)
        loaded = changes.undoable(queries.load_game(game_id, with_changes=True))
        assert (target and target.version) == (loaded and loaded.version)
        shown = page(client, path)
        with monkeypatch.context() as patched:
            patched.setattr(play, "read_game", orm_read)
            assert page(client, path) == shown
        if target is None:
            break
        offered.append(target.version)
        assert post(client, game_id, "undo", {}).status_code == 303
    # Every change but the game's creation was offered once, newest first.
    assert offered == sorted(offered, reverse=True)
    assert len(offered) == len(set(offered)) > 10
