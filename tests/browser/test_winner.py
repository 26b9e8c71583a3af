"""Who won, in words: the tie-break named with its numbers, the points with their unit — on
the table, the live view, a past game's page and the games list alike."""

import pytest

from scorekeeper import create_app, rules
from scorekeeper.extensions import db
from tests.conftest import make_config
from tests.factories import make_game

TWO_ROUNDS = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(2, 2))


@pytest.fixture
def client(tmp_path):
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'db.sqlite'}"))
    with app.app_context():
        db.create_all()
        yield app.test_client()
        db.engine.dispose()


def finished(rounds, tie_break=True) -> tuple[int, str]:
    game_rules = rules.GameRules(
        players=3,
        bid_rule=rules.BidRule.FREE,
        plan=TWO_ROUNDS,
        tie_break=rules.TieBreak.BID_SUM if tie_break else rules.TieBreak.SHARED,
    )
    game = make_game(("Ann", "Bob", "Cara"), rounds, game_rules=game_rules)
    return game.id, game.live_token


def shown(client, path: str) -> str:
    return " ".join(client.get(path).get_data(as_text=True).split())


def test_a_tie_decided_by_the_bids_says_so_with_both_sums(client):
    # Ann and Bob both end on 10 points; Bob bid 1 over the game, Ann 0.
    game_id, token = finished([((0, 0, 0), (0, 0, 2)), ((0, 1, 0), (1, 0, 1))])
    for path in (f"/games/{game_id}", f"/live/{token}"):
        page = shown(client, path)
        assert "Bob wins on the tie-break: 1 bid to 0" in page
        assert "Tied on 10 points with Ann" in page
        assert "Bob wins with" not in page


def test_a_tie_the_bids_cannot_break_is_a_shared_win_that_says_why(client):
    game_id, _token = finished([((0, 0, 0), (0, 0, 2)), ((0, 0, 0), (1, 1, 0))])
    page = shown(client, f"/games/{game_id}")
    assert "Shared win: Ann and Bob, 10 points each." in page
    assert "The tie-break by bids could not decide: 0 bids each." in page


def test_a_clear_winner_has_points_with_their_unit(client):
    game_id, _token = finished([((1, 0, 0), (1, 0, 1)), ((0, 0, 0), (0, 0, 2))], tie_break=False)
    assert "Ann wins with 50 points!" in shown(client, f"/games/{game_id}")


def test_a_past_games_page_and_the_games_list_name_the_tie_break_too(client):
    game_id, _token = finished([((0, 0, 0), (0, 0, 2)), ((0, 1, 0), (1, 0, 1))])
    page = shown(client, f"/history/{game_id}")
    assert "Bob wins on the tie-break: 1 bid to 0" in page
    assert "Tied on 10 points with Ann" in page
    assert "Won by" not in page
    assert "Bob wins on the tie-break: 1 bid to 0" in shown(client, "/history/")


def test_the_games_list_gives_the_winners_points_their_unit(client):
    finished([((1, 0, 0), (1, 0, 1)), ((0, 0, 0), (0, 0, 2))], tie_break=False)
    assert "Won by Ann · 50 points" in shown(client, "/history/")
