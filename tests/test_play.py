"""The round screens: trump, bids, tricks, corrections, undo and the end of a game."""

import re

import pytest
import sqlalchemy as sa

from scorekeeper import rules, snapshots
from scorekeeper.extensions import db
from scorekeeper.models import Change, Entry, Game, Round, RoundState
from tests.factories import new_game
from tests.play_helpers import (
    HX,
    bid,
    correction,
    play_round,
    post,
    sheet_totals,
    text,
    tricks,
    trump,
    trump_and_bids,
    version,
)


def stored_bids(game_id: int, number: int) -> list:
    db.session.expire_all()
    round_ = db.session.scalar(sa.select(Round).filter_by(game_id=game_id, number=number))
    return [entry.bid for entry in round_.entries]


def test_round_screen_shows_round_hand_dealer_and_first_bidder(ctx, client):
    game_id = new_game()
    page = text(client.get(f"/games/{game_id}"))
    assert "Round 1 of 20" in page
    assert "1 card" in page
    assert "Dealer: <strong>Ann</strong>" in page
    assert "Bids first and leads: <strong>Bob</strong>" in page
    assert "What was turned up for trump?" in page


def test_a_whole_round_by_plain_posts_scores_with_the_rules(ctx, client):
    game_id = new_game()
    response = play_round(client, game_id, 1, dealer=0, bids=[1, 0, 1], took=[1, 0, 0])
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/games/{game_id}")
    page = text(client.get(f"/games/{game_id}"))
    assert "Round 2 of 20" in page
    assert "Dealer: <strong>Bob</strong>" in page, "the deal passes to the next seat"
    # Ann met 1 (30), Bob met 0 (20), Cara missed by 1 (-10)
    assert sheet_totals(client, game_id) == [30, 20, -10]


def test_htmx_posts_answer_with_the_table_fragment(ctx, client):
    game_id = new_game()
    response = trump(client, game_id, 1, headers=HX)
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    assert body.lstrip().startswith('<div id="table"')
    assert "<html" not in body
    assert "HX-Request" in response.headers["Vary"]
    full = client.get(f"/games/{game_id}")
    assert "<html" in full.get_data(as_text=True)


def test_plus_minus_one_forbidden_bid_is_shown_before_and_refused(ctx, client):
    game_id = new_game(bid_rule="plus_minus_one")
    trump(client, game_id, 1)
    bid(client, game_id, 1, 1, 0)
    bid(client, game_id, 1, 2, 0)
    page = text(client.get(f"/games/{game_id}"))
    assert "±1: the bids may not add up to 1" in page
    assert 'value="1" class="bid-button forbidden" disabled' in page
    before = version(game_id)
    response = bid(client, game_id, 1, 0, 1, headers=HX)
    assert response.status_code == 422
    assert "may not bid 1" in text(response)
    assert version(game_id) == before
    assert stored_bids(game_id, 1) == [None, 0, 0]


def test_canadian_binds_only_a_last_bidder_leading_alone(ctx, client):
    game_id = new_game(bid_rule="canadian")
    # Round 1: Ann deals; nobody leads yet, so Ann may make the bids even.
    trump(client, game_id, 1)
    bid(client, game_id, 1, 1, 0)
    bid(client, game_id, 1, 2, 0)
    assert "Canadian" not in text(client.get(f"/games/{game_id}")).split("Standings")[0]
    assert bid(client, game_id, 1, 0, 1).status_code == 303
    tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0})
    # Round 2: Bob deals and bids last; Ann leads alone (30 against 20, 20): Bob is free.
    trump(client, game_id, 2)
    bid(client, game_id, 2, 2, 1)
    bid(client, game_id, 2, 0, 0)
    assert bid(client, game_id, 2, 1, 1).status_code == 303
    tricks(client, game_id, 2, {0: 0, 1: 1, 2: 1})
    # Totals: Ann 50, Bob 50, Cara 10 -> round 3 Cara deals, Cara is not leading: free.
    # Round 4, Ann deals with Ann leading alone only if ahead; make Ann lead.
    trump(client, game_id, 3)
    bid(client, game_id, 3, 0, 3)
    bid(client, game_id, 3, 1, 0)
    bid(client, game_id, 3, 2, 0)
    tricks(client, game_id, 3, {0: 3, 1: 0, 2: 0})
    # Ann 100, Bob 70, Cara 30. Round 4: Ann deals and bids last, leading alone.
    trump(client, game_id, 4)
    bid(client, game_id, 4, 1, 1)
    bid(client, game_id, 4, 2, 1)
    page = text(client.get(f"/games/{game_id}"))
    assert "Canadian" in page
    assert "may not bid 2" in page
    refused = bid(client, game_id, 4, 0, 2, headers=HX)
    assert refused.status_code == 422
    assert bid(client, game_id, 4, 0, 0).status_code == 303, "zero is always allowed"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("bid", "two", "Not a number this page can use"),
        ("bid", "²", "Not a number this page can use"),
        ("bid", "٣", "Not a number this page can use"),
        ("bid", "9" * 5000, "Not a number this page can use"),
        ("bid", "", "Tap a bid"),
        ("bid", "9", "0 to 1"),
        ("seat", "2", "turn"),
    ],
)
def test_bad_bid_input_is_refused_next_to_the_field_and_nothing_stored(
    ctx, client, field, value, message
):
    game_id = new_game()
    trump(client, game_id, 1)
    before = version(game_id)
    data = {"seat": 1, "bid": 0} | {field: value}
    response = post(client, game_id, "rounds/1/bid", data, headers=HX)
    assert response.status_code == 422
    assert message in text(response)
    assert version(game_id) == before
    assert stored_bids(game_id, 1) == [None, None, None]


def test_a_round_that_is_not_being_played_is_refused(ctx, client):
    game_id = new_game()
    response = trump(client, game_id, 7, headers=HX)
    assert response.status_code == 422
    assert "Round 7 is not the round being played" in text(response)


def test_missing_version_is_refused(ctx, client):
    game_id = new_game()
    response = client.post(f"/games/{game_id}/rounds/1/trump", data={"trump": "suit:hearts"})
    assert response.status_code == 422
    assert "reload" in text(response)


def test_tricks_that_do_not_add_up_are_refused_with_the_numbers_and_kept(ctx, client):
    game_id = new_game()
    trump_and_bids(client, game_id, 1, 0, [0, 0, 0])
    before = version(game_id)
    response = tricks(client, game_id, 1, {0: 1, 1: 1, 2: 0}, headers=HX)
    assert response.status_code == 422
    page = text(response)
    assert "add up to 2" in page
    assert "1" in page
    assert 'name="tricks_0" value="1" checked' in page, "the entered values stay"
    assert version(game_id) == before


def test_everyone_made_their_bid_is_not_offered_when_the_bids_do_not_add_up(ctx, client):
    game_id = new_game()
    trump_and_bids(client, game_id, 1, 0, [1, 1, 0])
    assert "Everyone made their bid" not in text(client.get(f"/games/{game_id}"))


def test_everyone_made_their_bid_when_the_bids_add_up(ctx, client):
    game_id = new_game(bid_rule="free")
    trump_and_bids(client, game_id, 1, 0, [0, 1, 0])
    assert "Everyone made their bid" in text(client.get(f"/games/{game_id}"))
    response = tricks(client, game_id, 1, {}, all_made="1")
    assert response.status_code == 303
    assert sheet_totals(client, game_id) == [20, 30, 20]


def test_a_write_based_on_an_old_version_gets_changed_on_another_phone(ctx, client):
    game_id = new_game()
    old = version(game_id)
    trump(client, game_id, 1)
    response = client.post(
        f"/games/{game_id}/rounds/1/trump",
        data={"version": old, "trump": "suit:clubs"},
        headers=HX,
    )
    assert response.status_code == 409
    assert "Changed on another phone" in text(response)
    assert "♥" in text(response), "the fresh state is shown"


def test_a_double_tap_or_retry_records_once(ctx, client):
    game_id = new_game()
    trump_and_bids(client, game_id, 1, 0, [0, 0, 0])
    data = {
        "version": version(game_id),
        "request_key": "tap-1",
        "tricks_0": 1,
        "tricks_1": 0,
        "tricks_2": 0,
    }
    first = client.post(f"/games/{game_id}/rounds/1/tricks", data=data)
    again = client.post(f"/games/{game_id}/rounds/1/tricks", data=data)
    assert first.status_code == again.status_code == 303
    assert (
        db.session.scalar(sa.select(sa.func.count()).select_from(Round).filter_by(game_id=game_id))
        == 2
    )
    assert (
        db.session.scalar(
            sa.select(sa.func.count()).select_from(Change).filter_by(request_key="tap-1")
        )
        == 1
    )


def test_hidden_bids_are_entered_together(ctx, client):
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    trump(client, game_id, 1)
    page = text(client.get(f"/games/{game_id}"))
    assert "Save bids" in page
    response = post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0})
    assert response.status_code == 303
    assert stored_bids(game_id, 1) == [1, 0, 0]


def test_hidden_bids_out_of_range_are_refused_per_player(ctx, client):
    game_id = new_game(bid_rule="free", bid_reveal="hidden")
    trump(client, game_id, 1)
    response = post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 5}, headers=HX)
    assert response.status_code == 422
    page = text(response)
    assert 'id="error-bid_1"' in page
    assert 'id="error-bid_2"' in page
    assert stored_bids(game_id, 1) == [None, None, None]


def test_secret_bids_stay_hidden_until_the_tricks_are_in(ctx, client):
    game_id = new_game(bid_rule="free", bid_reveal="secret")
    trump(client, game_id, 1)
    post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0})
    page = text(client.get(f"/games/{game_id}"))
    assert "bid hidden" in page
    assert ">Bid<" not in page, "no bid column in the standings"
    assert "Everyone made their bid" not in page
    tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0})
    assert 'class="total">30<' in text(client.get(f"/games/{game_id}/sheet"))


def test_jester_bid_skips_bidding(ctx, client):
    game_id = new_game(jester_bid=True)
    trump(client, game_id, 1)
    page = text(client.get(f"/games/{game_id}"))
    assert "Tricks" in page
    assert 'class="bid-button' not in page
    assert tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0}).status_code == 303
    assert sheet_totals(client, game_id) == [-10, 20, 20]


def test_saboteur_dealer_does_not_bid_and_scores_20(ctx, client):
    game_id = new_game(saboteur=True, bid_rule="free")
    trump(client, game_id, 1)
    bid(client, game_id, 1, 1, 0)
    assert bid(client, game_id, 1, 2, 0).status_code == 303
    page = text(client.get(f"/games/{game_id}"))
    assert "dealer, no bid" in page
    tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0})
    assert sheet_totals(client, game_id) == [20, 20, 20]


def test_bomb_round_adds_up_to_one_less(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(bomb=True))
    play_round(client, game_id, 1, 0, [0, 0, 0], [0, 0, 0])
    response = tricks(client, game_id, 1, {0: 0, 1: 0, 2: 0}, bomb="y")
    assert response.status_code == 303
    assert sheet_totals(client, game_id) == [20, 20, 20]


def test_cloud_changes_a_bid_and_the_score_uses_it(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(cloud=True))
    response = play_round(
        client, game_id, 1, 0, [0, 0, 0], [1, 0, 0], cloud_seat="0", cloud_change="1"
    )
    assert response.status_code == 303
    sheet = text(client.get(f"/games/{game_id}/sheet"))
    assert 'class="total">30<' in sheet, "Ann's bid became 1 and she took 1"
    entry = db.session.scalar(sa.select(Entry).filter_by(seat=0))
    assert (entry.bid, entry.cloud_bid) == (0, 1), "the record keeps both bids"


def test_dealer_can_change_before_bidding_and_the_order_follows(ctx, client):
    game_id = new_game()
    response = post(client, game_id, "rounds/1/dealer", {"dealer": 2})
    assert response.status_code == 303
    page = text(client.get(f"/games/{game_id}"))
    assert "Dealer: <strong>Cara</strong>" in page
    assert "Bids first and leads: <strong>Ann</strong>" in page
    trump(client, game_id, 1)
    assert bid(client, game_id, 1, 0, 0).status_code == 303
    refused = post(client, game_id, "rounds/1/dealer", {"dealer": 1}, headers=HX)
    assert refused.status_code == 422


def test_maximus_trump_is_fixed_and_not_asked(ctx, client):
    game_id = new_game(plan=rules.RoundPlan(rules.PlanKind.MAXIMUS), bid_rule="free")
    page = text(client.get(f"/games/{game_id}"))
    assert "What was turned up" not in page
    assert "♣" in page
    assert "Round 1 of 5" in page


def test_last_round_without_a_card_to_turn_has_no_trump_question(ctx, client):
    game_id = new_game(plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(20,)), bid_rule="free")
    page = text(client.get(f"/games/{game_id}"))
    assert "What was turned up" not in page
    assert "No trump" in page


def test_correcting_a_past_round_recomputes_totals(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    edit = client.get(f"/games/{game_id}/rounds/1/edit")
    assert edit.status_code == 200
    data = correction([0, 0, 0], [1, 0, 0])
    response = post(client, game_id, "rounds/1/edit", data)
    assert response.status_code == 303
    sheet = text(client.get(f"/games/{game_id}/sheet"))
    assert 'class="total">-10<' in sheet
    assert db.session.scalar(sa.select(Change.action).order_by(Change.id.desc())) == "edit_round"


def test_a_bad_correction_is_refused_and_changes_nothing(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    before = version(game_id)
    data = correction([0, 0, 0], [1, 1, 0])
    response = post(client, game_id, "rounds/1/edit", data)
    assert response.status_code == 422
    assert "add up to 2" in text(response)
    assert version(game_id) == before
    assert stored_bids(game_id, 1) == [1, 0, 0]


def test_correction_that_changes_the_leader_flags_later_canadian_rounds(ctx, client):
    game_id = new_game(bid_rule="canadian")
    play_round(client, game_id, 1, 0, [1, 0, 1], [1, 0, 0])  # Ann 30, Bob 20, Cara -10
    # Round 2: Bob deals and bids last, making the bids even: fine, he was not leading.
    play_round(client, game_id, 2, 1, [0, 1, 1], [0, 1, 1])
    # Correct round 1 so that Bob led alone before round 2: round 2 breaks Canadian now.
    data = correction([0, 0, 1], [1, 0, 0])
    assert post(client, game_id, "rounds/1/edit", data).status_code == 303
    sheet = text(client.get(f"/games/{game_id}/sheet"))
    assert "Rounds to check after a correction" in sheet
    assert 'class="flagged"' in sheet


def test_undo_steps_back_one_change_at_a_time(ctx, client):
    game_id = new_game()
    trump(client, game_id, 1)
    bid(client, game_id, 1, 1, 0)
    assert post(client, game_id, "undo", {}).status_code == 303
    assert stored_bids(game_id, 1) == [None, None, None]
    assert post(client, game_id, "undo", {}).status_code == 303
    assert "What was turned up" in text(client.get(f"/games/{game_id}"))
    assert post(client, game_id, "undo", {}, headers=HX).status_code == 422


def test_undo_of_a_scored_round_removes_the_next_round(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    assert post(client, game_id, "undo", {}).status_code == 303
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert [r.number for r in game.rounds] == [1]
    assert game.rounds[0].state == "playing"


def test_abandoning_keeps_the_rounds(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    assert post(client, game_id, "abandon", {}).status_code == 303
    page = text(client.get(f"/games/{game_id}"))
    assert "abandoned" in page
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game.status == "abandoned"
    assert len(game.rounds) == 2
    assert trump(client, game_id, 2, headers=HX).status_code == 422


def test_the_last_round_ends_the_game_with_winners_and_play_again(ctx, client):
    game_id = new_game(plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=2), bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    play_round(client, game_id, 2, 1, [1, 1, 0], [1, 1, 0])
    page = text(client.get(f"/games/{game_id}"))
    assert "Game over" in page
    assert "Ann wins with 60 points" in page
    response = post(client, game_id, "again", {})
    assert response.status_code == 303
    new_id = int(response.headers["Location"].rstrip("/").split("/")[-1])
    assert new_id != game_id
    assert "Dealer: <strong>Bob</strong>" in text(client.get(f"/games/{new_id}"))


def test_shared_win_on_a_tie(ctx, client):
    game_id = new_game(plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    # Ann 30, Bob 20, Cara 20: Ann wins alone; check a tie instead with equal results.
    game2 = new_game(plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), bid_rule="free")
    play_round(client, game2, 1, 0, [0, 0, 0], [1, 0, 0])
    page = text(client.get(f"/games/{game2}"))
    assert "Shared win: Bob and Cara" in page


def test_unknown_game_is_a_404(ctx, client):
    assert client.get("/games/999").status_code == 404
    assert client.get("/games/999/sheet").status_code == 404


def test_werewolf_replaces_the_trump(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(werewolf=True))
    trump(client, game_id, 1)
    response = post(client, game_id, "rounds/1/werewolf", {"trump": "none"})
    assert response.status_code == 303
    assert "changed by the Werewolf" in text(client.get(f"/games/{game_id}"))


def test_csrf_token_sent_the_way_the_page_does(csrf_app):
    with csrf_app.app_context():
        game_id = new_game()
        client = csrf_app.test_client()
        page = client.get(f"/games/{game_id}").get_data(as_text=True)
        header_token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
        refused = client.post(
            f"/games/{game_id}/rounds/1/trump",
            data={"version": 1, "trump": "suit:hearts"},
            headers=HX,
        )
        assert refused.status_code == 400
        assert version(game_id) == 1
        accepted = client.post(
            f"/games/{game_id}/rounds/1/trump",
            data={"version": 1, "trump": "suit:hearts"},
            headers=HX | {"X-CSRFToken": header_token},
        )
        assert accepted.status_code == 200
        assert version(game_id) == 2


def test_taking_back_the_last_bid(ctx, client):
    game_id = new_game()
    trump(client, game_id, 1)
    bid(client, game_id, 1, 1, 1)
    bid(client, game_id, 1, 2, 0)
    response = post(client, game_id, "rounds/1/take-back", {}, headers=HX)
    assert response.status_code == 200
    assert stored_bids(game_id, 1) == [None, 1, None]
    assert "<strong>Cara</strong> bids" in text(response)


def prepare(client, game_id, step):
    """Bring a fresh 3-player game (free bids, Jubilee werewolf) to the step a route needs."""
    if step in ("bids", "tricks", "scored"):
        trump(client, game_id, 1)
    if step in ("tricks", "scored"):
        for seat, value in ((1, 1), (2, 0), (0, 0)):
            bid(client, game_id, 1, seat, value)
    if step == "scored":
        tricks(client, game_id, 1, {0: 0, 1: 1, 2: 0})


WRITES = [
    ("trump", "rounds/1/trump", {"trump": "suit:clubs"}),
    ("trump", "rounds/1/dealer", {"dealer": 1}),
    ("bids", "rounds/1/bid", {"seat": 1, "bid": 0}),
    ("bids", "rounds/1/werewolf", {"trump": "spades"}),
    ("tricks", "rounds/1/take-back", {}),
    ("tricks", "rounds/1/tricks", {"tricks_0": 0, "tricks_1": 1, "tricks_2": 0}),
    ("scored", "undo", {}),
    ("scored", "abandon", {}),
]


@pytest.mark.parametrize(("step", "path", "data"), WRITES)
def test_every_write_answers_htmx_with_the_table_and_a_plain_post_with_a_redirect(
    app, ctx, step, path, data
):
    for headers, status in ((HX, 200), ({}, 303)):
        client = app.test_client()
        game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(werewolf=True))
        prepare(client, game_id, step)
        response = post(client, game_id, path, data, headers=headers)
        assert response.status_code == status, text(response)[:500]
        if status == 200:
            assert text(response).lstrip().startswith('<div id="table"')
        else:
            assert response.headers["Location"] == f"/games/{game_id}"


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("again", {}),
        ("rounds/1/edit", correction([0, 1, 0], [0, 1, 0])),
    ],
)
def test_writes_that_leave_the_table_redirect_htmx_too(ctx, client, path, data):
    game_id = new_game(bid_rule="free", plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1))
    prepare(client, game_id, "scored")
    response = post(client, game_id, path, data, headers=HX)
    assert response.status_code == 200
    assert response.headers["HX-Redirect"].startswith("/games/")


def test_sheet_and_edit_pages_render_for_htmx_and_plain_requests(ctx, client):
    game_id = new_game(bid_rule="free")
    prepare(client, game_id, "scored")
    for headers in (HX, {}):
        assert "Score sheet" in text(client.get(f"/games/{game_id}/sheet", headers=headers))
        edit = client.get(f"/games/{game_id}/rounds/1/edit", headers=headers)
        assert "Correct round 1" in text(edit)
    assert client.get(f"/games/{game_id}/rounds/2/edit").status_code == 404


def test_a_double_tap_on_play_again_starts_one_game(ctx, client):
    game_id = new_game(plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    first = post(client, game_id, "again", {"request_key": "again-1"})
    second = post(client, game_id, "again", {"request_key": "again-1"})
    assert first.headers["Location"] == second.headers["Location"]
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 2


def test_after_undoing_a_saved_round_its_tricks_are_offered_again(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 0], [0, 1, 0])
    post(client, game_id, "undo", {})
    page = text(client.get(f"/games/{game_id}"))
    assert 'name="tricks_1" value="1" checked' in page
    assert 'name="tricks_0" value="0" checked' in page
    assert 'Tricks left to give out:</span> <span class="num" data-remaining>0<' in page


def test_the_countdown_on_a_refused_page_counts_what_was_entered(ctx, client):
    game_id = new_game(bid_rule="free")
    response = play_round(client, game_id, 1, 0, [0, 0, 0], [1, 1, 0])
    page = text(response)
    assert "Too many tricks given out:" in page
    assert "data-remaining>1</span>" in page


def test_standings_show_each_players_points_in_the_last_round(ctx, client):
    game_id = new_game(bid_rule="free")
    play_round(client, game_id, 1, 0, [1, 0, 1], [1, 0, 0])
    page = text(client.get(f"/games/{game_id}"))
    assert "Rd 1" in page
    assert "made the bid</span>+30" in page
    assert "missed the bid</span>-10" in page


def test_secret_bids_stay_out_of_the_game_export_until_scored(ctx, client):
    import json

    game_id = new_game(bid_rule="free", bid_reveal="secret")
    trump(client, game_id, 1)
    post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 1})
    exported = json.loads(client.get(f"/history/{game_id}/export.json").get_data(as_text=True))
    game = exported["games"][0]
    assert [e.get("bid") for e in game["rounds"][0]["entries"]] == [None, None, None]
    assert "1, 0, 1" not in json.dumps(game["history"]).replace("[", "").replace("]", "")
    for change in game["history"]:
        for state in (change["before"], change.get("after")):
            for snapshot in (state or {}).get("rounds", []):
                assert set(snapshots.seat_values(snapshot.get("bids")).values()) <= {None}
    assert tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0}).status_code == 303
    exported = json.loads(client.get(f"/history/{game_id}/export.json").get_data(as_text=True))
    assert [e["bid"] for e in exported["games"][0]["rounds"][0]["entries"]] == [1, 0, 1]


def test_the_cloud_holder_with_no_trick_is_refused_next_to_their_tricks(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(cloud=True))
    trump_and_bids(client, game_id, 1, 0, [0, 0, 0])
    response = tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0}, cloud_seat="1", cloud_change="1")
    assert response.status_code == 422
    page = text(response)
    assert "Bob has the Cloud, so won its trick: at least 1 trick, not 0." in page
    assert 'id="error-tricks_1"' in response.get_data(as_text=True)
    assert db.session.get(Game, game_id).rounds[0].state == RoundState.PLAYING


def test_a_cloud_error_in_a_secret_game_does_not_reveal_the_bid(ctx, client):
    game_id = new_game(
        bid_rule="free", bid_reveal="secret", jubilee=rules.JubileeCards(cloud=True)
    )
    trump(client, game_id, 1)
    post(client, game_id, "rounds/1/bids", {"bid_0": 1, "bid_1": 0, "bid_2": 0})
    response = tricks(
        client, game_id, 1, {0: 1, 1: 0, 2: 0}, cloud_seat="1", cloud_change="-1", headers=HX
    )
    assert response.status_code == 422
    page = text(response)
    assert "bid cannot change that way" in page
    assert "not -1" not in page


def test_jester_bid_with_saboteur_leaves_the_dealer_without_a_bid(ctx, client):
    game_id = new_game(jester_bid=True, saboteur=True)
    trump(client, game_id, 1)
    assert "dealer, no bid" in text(client.get(f"/games/{game_id}"))
    assert tricks(client, game_id, 1, {0: 1, 1: 0, 2: 0}).status_code == 303
    assert sheet_totals(client, game_id) == [20, 20, 20]


def test_the_dealer_can_change_when_the_trump_is_automatic(ctx, client):
    game_id = new_game(plan=rules.RoundPlan(rules.PlanKind.MAXIMUS), bid_rule="free")
    assert "Someone else deals this round?" in text(client.get(f"/games/{game_id}"))
    assert post(client, game_id, "rounds/1/dealer", {"dealer": 1}).status_code == 303
    bid(client, game_id, 1, 2, 0)
    assert "Someone else deals this round?" not in text(client.get(f"/games/{game_id}"))


def test_an_unchanged_correction_changes_nothing_even_with_a_cloud(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(cloud=True))
    # Ann bid 1 and won the Cloud's trick (her only one); the Cloud took her bid to 0: missed.
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0], cloud_seat="0", cloud_change="-1")
    before = sheet_totals(client, game_id)
    page = client.get(f"/games/{game_id}/rounds/1/edit").get_data(as_text=True)
    assert '<option value="-1" selected>' in page
    assert '<option value="0" selected>' in page
    data = correction([1, 0, 0], [1, 0, 0], cloud_seat=0, cloud_change=-1)
    assert post(client, game_id, "rounds/1/edit", data).status_code == 303
    assert sheet_totals(client, game_id) == before == [-10, 20, 20]


def test_correcting_the_cloud_winners_bid_applies_the_cloud_to_the_new_bid(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(cloud=True))
    play_round(client, game_id, 1, 0, [0, 0, 0], [1, 0, 0], cloud_seat="0", cloud_change="1")
    data = correction([1, 0, 0], [1, 0, 0], cloud_seat=0, cloud_change=-1)
    assert post(client, game_id, "rounds/1/edit", data).status_code == 303
    entry = db.session.scalar(sa.select(Entry).filter_by(seat=0))
    assert (entry.bid, entry.cloud_bid) == (1, 0)
    assert sheet_totals(client, game_id)[0] == -10


def test_undo_of_a_correction_restores_the_cloud_and_the_finish_time(ctx, client):
    game_id = new_game(
        bid_rule="free",
        plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1),
        jubilee=rules.JubileeCards(cloud=True),
    )
    play_round(client, game_id, 1, 0, [0, 0, 0], [1, 0, 0])
    db.session.expire_all()
    finished_at = db.session.get(Game, game_id).finished_at
    data = correction([0, 0, 0], [1, 0, 0], cloud_seat=0, cloud_change=1)
    post(client, game_id, "rounds/1/edit", data)
    post(client, game_id, "undo", {})
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game.rounds[0].cloud_seat is None
    assert game.finished_at == finished_at


def test_play_again_is_refused_while_the_game_is_still_on(ctx, client):
    game_id = new_game()
    response = post(client, game_id, "again", {}, headers=HX)
    assert response.status_code == 422
    assert "once this one is over" in text(response)
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 1


def test_a_cloud_winner_without_a_direction_is_refused_not_ignored(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(cloud=True))
    response = play_round(client, game_id, 1, 0, [0, 0, 0], [1, 0, 0], cloud_seat="0", headers=HX)
    assert response.status_code == 422
    assert "1 more or 1 less" in text(response)


def test_the_sheet_marks_a_bomb_round(ctx, client):
    game_id = new_game(bid_rule="free", jubilee=rules.JubileeCards(bomb=True))
    play_round(client, game_id, 1, 0, [0, 0, 0], [0, 0, 0], bomb="y")
    assert 'class="round-bomb"' in text(client.get(f"/games/{game_id}/sheet"))


def custom_game(sizes=(1, 2, 3)) -> int:
    return new_game(bid_rule="free", plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=sizes))


def test_a_custom_plan_gets_new_later_rounds_mid_game(ctx, client):
    game_id = custom_game()
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    page = text(client.get(f"/games/{game_id}/plan"))
    assert 'value="3"' in page, "the rounds after the one being played are offered"
    response = post(client, game_id, "plan", {"later": "5, 7"})
    assert response.status_code == 303
    table = text(client.get(f"/games/{game_id}"))
    assert "Round 2 of 4" in table
    db.session.expire_all()
    assert db.session.get(Game, game_id).rules["plan"]["custom"] == [1, 2, 5, 7]
    assert "Round plan changed: 1, 2, 5, 7 cards" in text(client.get(f"/history/{game_id}"))


@pytest.mark.parametrize(
    ("later", "message"), [("5, x", "as numbers"), ("21", "1 to 20"), ("4 0", "1 to 20")]
)
def test_impossible_later_rounds_are_refused_and_nothing_changes(ctx, client, later, message):
    game_id = custom_game()
    before = version(game_id)
    response = post(client, game_id, "plan", {"later": later})
    assert response.status_code == 422
    assert message in text(response)
    assert version(game_id) == before


def test_undo_puts_the_plan_back(ctx, client):
    game_id = custom_game()
    post(client, game_id, "plan", {"later": ""})
    assert "Round 1 of 1" in text(client.get(f"/games/{game_id}"))
    post(client, game_id, "undo", {})
    assert "Round 1 of 3" in text(client.get(f"/games/{game_id}"))


def test_only_custom_plans_have_later_rounds_to_edit(ctx, client):
    game_id = new_game()
    assert client.get(f"/games/{game_id}/plan").status_code == 404
    assert "Later rounds" not in text(client.get(f"/games/{game_id}"))
