"""Two phones save the same game version at the same moment, straight through the write path
(:func:`scorekeeper.changes.apply_change`): one write is stored whole, the other is refused whole.
"""

import threading

import pytest
import sqlalchemy as sa

from scorekeeper import changes, gameplay
from scorekeeper.extensions import db
from scorekeeper.models import Change, Entry, Game, Round, RoundState
from tests.factories import new_game

STORED = "stored"
# Each phone enters all bids of round 1 (one card, free bids) at once: three entries and the
# round's state change in one write, so a half-stored write would show.
BIDS = {"phone_a": {0: 1, 1: 0, 2: 0}, "phone_b": {0: 0, 1: 1, 2: 0}}


def game_at_version_2() -> int:
    """A 3-player game whose trump of round 1 is set: bids are next, the game is at version 2."""
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    game = db.session.get(Game, game_id)
    round_ = gameplay.open_round(game)
    changes.apply_change(
        game,
        version=1,
        request_key="trump",
        action="set_trump",
        rounds_touched=[1],
        change=lambda: gameplay.set_trump(game, round_, "suit", "hearts"),
    )
    assert game.version == 2
    return game_id


def save_bids(app, game_id, version, request_key, bids, both_ready, outcome, phone) -> None:
    """One phone: its own app context and session, the game as loaded at ``version``."""
    with app.app_context():
        try:
            game = db.session.get(Game, game_id)
            assert game.version == version
            round_ = gameplay.open_round(game)
            # Both phones have loaded the game at the same version and are about to save.
            both_ready.wait(timeout=10)
            changes.apply_change(
                game,
                version=version,
                request_key=request_key,
                action="bids",
                rounds_touched=[1],
                change=lambda: gameplay.record_bids(game, round_, bids),
            )
            outcome[phone] = STORED
        except (changes.StaleGame, changes.AlreadyApplied) as refused:
            outcome[phone] = type(refused)
        except BaseException as error:
            outcome[phone] = error
            both_ready.abort()


def race(app, game_id: int, keys: dict[str, str]) -> dict[str, object]:
    """Run both phones' writes at once; what each one got."""
    both_ready = threading.Barrier(len(keys))
    outcome: dict[str, object] = {}
    phones = [
        threading.Thread(
            target=save_bids,
            args=(app, game_id, 2, key, BIDS[phone], both_ready, outcome, phone),
        )
        for phone, key in keys.items()
    ]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join(timeout=30)
        assert not phone.is_alive(), "a write hung"
    return outcome


@pytest.mark.parametrize(
    ("keys", "loser_gets"),
    [
        ({"phone_a": "tap-a", "phone_b": "tap-b"}, changes.StaleGame),
        # A double tap: the same request sent twice, recorded once.
        ({"phone_a": "tap-1", "phone_b": "tap-1"}, changes.AlreadyApplied),
    ],
    ids=["two-phones", "same-request"],
)
def test_one_of_two_simultaneous_writes_wins_and_the_other_stores_nothing(
    db_app, keys, loser_gets
):
    with db_app.app_context():
        game_id = game_at_version_2()
    outcome = race(db_app, game_id, keys)
    assert sorted(outcome.values(), key=str) == sorted([STORED, loser_gets], key=str), outcome
    (winner,) = [phone for phone, got in outcome.items() if got == STORED]
    with db_app.app_context():
        assert db.session.get(Game, game_id).version == 3
        changes = db.session.execute(
            sa.select(Change.version, Change.request_key)
            .where(Change.game_id == game_id)
            .order_by(Change.version)
        ).all()
        assert changes == [(1, None), (2, "trump"), (3, keys[winner])]
        round_ = db.session.scalar(sa.select(Round).where(Round.game_id == game_id))
        assert round_.state == RoundState.PLAYING
        stored = db.session.execute(
            sa.select(Entry.seat, Entry.bid).where(Entry.round_id == round_.id)
        ).all()
        assert dict(stored) == BIDS[winner], "the winner's bids, all of them, and nothing else"
