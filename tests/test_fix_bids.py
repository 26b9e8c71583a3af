"""A bid already made in the round being played, changed by tapping it: checked again with
every other bid (refused with the reason, or flagging a later bid it makes forbidden), with
plain forms as with htmx; and Undo saying in words what it took back."""

import re

import pytest

from scorekeeper.models import Change
from tests.factories import new_game
from tests.play_helpers import HX, bid, post, text, tricks, trump
from tests.test_play import stored_bids

FOUR = ("Ana", "Bruno", "Carla", "Davi")


def change(client, game_id, number, seat, value, **kwargs):
    return post(client, game_id, f"rounds/{number}/bids/{seat}", {"bid": value}, **kwargs)


def all_bid(client, game_id, bids_by_seat, number=1, dealer=0):
    """Trump, then every bid in bid order (left of ``dealer`` first)."""
    trump(client, game_id, number)
    players = len(bids_by_seat)
    for step in range(players):
        seat = (dealer + 1 + step) % players
        assert bid(client, game_id, number, seat, bids_by_seat[seat]).status_code == 303


@pytest.fixture
def at_tricks(ctx, client):
    """±1, round 3 of a custom plan (5 cards): dealer Ana bids last after 1 + 1 + 1."""
    from scorekeeper import rules

    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(5, 5))
    game_id = new_game(FOUR, bid_rule="plus_minus_one", plan=plan)
    all_bid(client, game_id, [3, 1, 1, 1])
    return game_id


def test_tapping_a_bid_shows_the_pad_for_that_player_and_the_new_bid_is_stored(at_tricks, client):
    page = text(client.get(f"/games/{at_tricks}"))
    link = f'href="/games/{at_tricks}/rounds/1/bids/1"'
    assert link in page, "each bid is one tap from its pad"
    pad = text(client.get(f"/games/{at_tricks}/rounds/1/bids/1"))
    assert "Change the bid of Bruno" in pad
    assert re.search(r'class="bid-button current" aria-current="true"\s*>1</button>', pad)
    response = change(client, at_tricks, 1, 1, 2)
    assert response.status_code == 303
    assert stored_bids(at_tricks, 1) == [3, 2, 1, 1]
    assert "Tricks" in text(client.get(f"/games/{at_tricks}")), "still at the tricks step"


def test_a_last_bid_changed_to_the_forbidden_bid_is_refused_with_the_reason(at_tricks, client):
    pad = text(client.get(f"/games/{at_tricks}/rounds/1/bids/0"))
    assert re.search(r'value="2" class="bid-button forbidden"[^>]*\s+disabled', pad)
    response = change(client, at_tricks, 1, 0, 2, headers=HX)
    assert response.status_code == 422
    body = text(response)
    assert "Change the bid of Ana" in body, "the pad stays open with the reason"
    assert "would make the bids add up" in body or "forbidden" in body.lower()
    assert stored_bids(at_tricks, 1) == [3, 1, 1, 1]


def test_an_earlier_bid_that_makes_a_later_one_forbidden_flags_it(at_tricks, client):
    # Bruno 1 → 0: Ana's 3 now makes 0 + 1 + 1 + 3 = 5, the cards: flagged, not refused.
    assert change(client, at_tricks, 1, 1, 0).status_code == 303
    page = text(client.get(f"/games/{at_tricks}"))
    assert "Change this bid before the round is saved:" in page
    assert stored_bids(at_tricks, 1) == [3, 0, 1, 1]
    refused = tricks(client, at_tricks, 1, {0: 3, 1: 0, 2: 1, 3: 1})
    assert refused.status_code == 422, "the round is not saved with a forbidden bid"
    assert change(client, at_tricks, 1, 0, 4).status_code == 303
    assert "Change this bid" not in text(client.get(f"/games/{at_tricks}"))


def test_a_bid_not_yet_made_or_a_round_not_played_cannot_be_changed(ctx, client):
    game_id = new_game(FOUR, bid_rule="free")
    trump(client, game_id, 1)
    assert client.get(f"/games/{game_id}/rounds/1/bids/1").status_code == 404
    response = change(client, game_id, 1, 1, 0)
    assert response.status_code == 422
    assert "not the bidder" in text(response) or "turn" in text(response)
    assert client.get(f"/games/{game_id}/rounds/7/bids/1").status_code == 404
    assert change(client, game_id, 7, 1, 0).status_code == 422


def test_undo_says_what_it_takes_back_and_what_it_took_back(at_tricks, client):
    page = text(client.get(f"/games/{at_tricks}"))
    assert "Ana&#39;s bid of 3 in round 1" in page, "the Undo button names the player"
    assert post(client, at_tricks, "undo", {}).status_code == 303
    page = text(client.get(f"/games/{at_tricks}"))
    assert 'role="status">Undone: Ana&#39;s bid of 3 in round 1</p>' in page
    assert 'data-announce="Undone: Ana&#39;s bid of 3 in round 1 Round 1: Ana bids"' in page
    change(client, at_tricks, 1, 1, 2)  # Ana has no bid now; Bruno's changes
    page = text(client.get(f"/games/{at_tricks}"))
    assert re.search(r"Bruno&#39;s bid 1\s→ 2 in round 1", page), "a change names both bids"
    history = [c.action for c in Change.query.filter_by(game_id=at_tricks)]
    assert history[-1] == "change_bid"
