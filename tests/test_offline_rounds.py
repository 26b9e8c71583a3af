"""Rounds kept on the table phone while the server could not be reached: the offline plan
the table page fetches, and a kept round sent whole (stored once, checked again, a conflict
shown, never stored twice or overwritten)."""

import re

import sqlalchemy as sa
from flask_babel import refresh

from scorekeeper import rules, seat_links
from scorekeeper.extensions import db
from scorekeeper.models import Change, ChangeAction, Game, RoundState
from scorekeeper.views.offline_table import round_shown
from tests.factories import new_game
from tests.play_helpers import bid, correction, play_round, trump, version

NAMES = ("Ana", "Ben", "Cleo", "Dev")


def kept(client, game_id, number, bids, took, key, trump_value="suit:hearts", **extra):
    # The phone sends a kept round with the version it was kept on, the same every time.
    data = {"version": 1, "trump": trump_value, "request_key": key} | extra
    data |= {f"bid_{seat}": value for seat, value in enumerate(bids) if value is not None}
    data |= {f"tricks_{seat}": value for seat, value in enumerate(took)}
    return client.post(f"/games/{game_id}/rounds/{number}/kept", data=data)


def scored_rounds(game_id: int) -> list[tuple[int, list, list]]:
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    return [
        (
            r.number,
            [e.bid for e in sorted(r.entries, key=lambda e: e.seat)],
            [e.tricks for e in sorted(r.entries, key=lambda e: e.seat)],
        )
        for r in game.rounds
        if r.state == RoundState.SCORED
    ]


def round_changes(game_id: int) -> int:
    return db.session.scalar(
        sa.select(sa.func.count())
        .select_from(Change)
        .where(Change.game_id == game_id, Change.action == ChangeAction.RECORD_ROUND)
    )


def test_the_table_page_names_the_offline_plan_and_the_plan_is_json(ctx, client):
    game_id = new_game(NAMES, plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=5))
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-offline="/games/{game_id}/offline"' in page
    assert 'data-offline-tag="1.0.0_0_0_0.' in page
    answer = client.get(f"/games/{game_id}/offline")
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == "no-cache"
    data = answer.get_json()
    assert data["names"] == list(NAMES)
    assert data["totals"] == [0, 0, 0, 0]
    assert data["tag"].startswith("1.0.0_0_0_0.")
    assert f'data-offline-tag="{data["tag"]}"' in page
    assert [r["n"] for r in data["plan"]["rounds"]] == [1, 2, 3, 4, 5]
    assert data["plan"]["rounds"][2]["title"] == "Round 3 of 5"
    assert data["plan"]["rounds"][2]["cards_label"] == "3 cards"
    assert data["text"]["waiting"][:2] == ["1 round not sent yet", "2 rounds not sent yet"]
    assert "{name}" in data["text"]["forbidden"]


def test_a_game_with_hidden_bids_or_own_phones_says_offline_needs_the_server(ctx, client):
    game_id = new_game(NAMES, bid_rule="free", bid_reveal="hidden")
    plan = client.get(f"/games/{game_id}/offline").get_json()["plan"]
    assert plan["unavailable"] == "sealed_bids"
    assert "Hidden and secret bids need the server" in plan["text"]
    open_bids = new_game(NAMES)
    seat_links.renew(db.session.get(Game, open_bids), [1])
    plan = client.get(f"/games/{open_bids}/offline").get_json()["plan"]
    assert plan["unavailable"] == "own_phones"
    assert plan["text"].startswith("The players bid on their own phones")


def test_a_kept_round_is_stored_whole_once_however_often_it_is_sent(ctx, client):
    game_id = new_game(NAMES)
    for _ in range(3):
        answer = kept(client, game_id, 1, [0, 1, 1, 0], [0, 1, 0, 0], key="kept-one")
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["outcome"] == "stored"
        # The totals the phone's standings (and the Canadian lead) go on from.
        assert answer.get_json()["totals"] == [20, 30, -10, 20]
    assert scored_rounds(game_id) == [(1, [0, 1, 1, 0], [0, 1, 0, 0])]
    assert round_changes(game_id) == 1


def test_a_kept_round_goes_on_from_what_the_round_already_holds(ctx, client):
    game_id = new_game(NAMES)
    assert trump(client, game_id, 1, "wizard:clubs").status_code == 303
    assert bid(client, game_id, 1, 1, 1).status_code == 303
    answer = kept(client, game_id, 1, [0, 1, 1, 0], [0, 1, 0, 0], "k1", "wizard:clubs")
    assert answer.get_json()["outcome"] == "stored"
    # Other entries than those the round holds: a conflict, nothing stored.
    play_round(client, game_id, 2, 1, [0, 0, 1, 0], [0, 0, 1, 1])
    trump(client, game_id, 3, "suit:spades")
    answer = kept(client, game_id, 3, [0, 1, 1, 0], [0, 1, 1, 1], "k3")
    assert answer.status_code == 409
    assert answer.get_json()["outcome"] == "conflict"
    assert answer.get_json()["server"]["trump"] == "suit:spades"
    assert answer.get_json()["server"]["scored"] is False
    # Keep ours: on the version the table chose on (the conflict's), the round's entries
    # replaced, recorded as a change like any other. Changed again meanwhile: shown again.
    seen = answer.get_json()["version"]
    answer = kept(client, game_id, 3, [0, 1, 1, 0], [0, 1, 1, 1], "k3b", replace="y")
    assert answer.status_code == 409
    assert answer.get_json()["outcome"] == "conflict"
    answer = kept(client, game_id, 3, [0, 1, 1, 0], [0, 1, 1, 1], "k3c", replace="y", version=seen)
    assert answer.get_json()["outcome"] == "stored"
    assert scored_rounds(game_id)[-1] == (3, [0, 1, 1, 0], [0, 1, 1, 1])


def test_a_kept_round_another_phone_saved_otherwise_is_a_conflict(ctx, client):
    game_id = new_game(NAMES)
    play_round(client, game_id, 1, 0, [0, 1, 1, 0], [0, 1, 0, 0])
    answer = kept(client, game_id, 1, [1, 1, 0, 0], [1, 0, 0, 0], "mine")
    assert answer.status_code == 409
    server = answer.get_json()["server"]
    assert server["bids"] == [0, 1, 1, 0]
    assert server["points"] == [20, 30, -10, 20]
    # The same round as saved there: stored already, nothing to do.
    same = kept(client, game_id, 1, [0, 1, 1, 0], [0, 1, 0, 0], "same")
    assert same.get_json()["outcome"] == "stored"
    # "Keep ours" is a correction through the correction page: in the change history.
    version = answer.get_json()["version"]
    corrected = client.post(
        f"/games/{game_id}/rounds/1/edit",
        data={"version": version, "request_key": "keep-ours"}
        | correction([1, 1, 0, 0], [1, 0, 0, 0]),
    )
    assert corrected.status_code == 303
    assert scored_rounds(game_id)[0] == (1, [1, 1, 0, 0], [1, 0, 0, 0])


def test_a_kept_round_dealt_otherwise_here_is_a_conflict(ctx, client):
    game_id = new_game(NAMES)
    assert (
        client.post(
            f"/games/{game_id}/rounds/1/dealer", data={"version": 1, "dealer": 2}
        ).status_code
        == 303
    )
    answer = kept(client, game_id, 1, [0, 1, 1, 0], [0, 1, 0, 0], "k", dealer=0, cards=1)
    assert answer.status_code == 409
    assert answer.get_json()["server"]["scored"] is False
    assert scored_rounds(game_id) == []


def test_a_kept_round_the_rules_refuse_is_refused_with_the_reason(ctx, client):
    game_id = new_game(NAMES)
    # Round 2 of ±1: bids 1 + 0 + 0 + 1 add up to the 2 cards, the last bidder's is forbidden.
    play_round(client, game_id, 1, 0, [0, 1, 1, 0], [0, 1, 0, 0])
    answer = kept(client, game_id, 2, [1, 1, 0, 0], [1, 1, 0, 0], "forbidden")
    assert answer.status_code == 422
    assert answer.get_json()["outcome"] == "refused"
    assert "may not bid" in " ".join(answer.get_json()["problems"])
    # A round after the one being played (one before it is missing) is refused too.
    gap = kept(client, game_id, 3, [0, 0, 0, 0], [1, 1, 1, 0], "gap")
    assert gap.status_code == 422
    assert scored_rounds(game_id) == [(1, [0, 1, 1, 0], [0, 1, 0, 0])]


def test_no_kept_round_is_taken_where_the_plan_has_none(ctx, client):
    # Secret bids sealed in round 2: a kept round neither shows them (the conflict's "server"
    # round) nor replaces them, with or without "keep ours" on the current version.
    game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free", bid_reveal="secret")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    trump(client, game_id, 2)
    sealed = client.post(
        f"/games/{game_id}/rounds/2/bids",
        data={"version": version(game_id), "bid_0": 1, "bid_1": 1, "bid_2": 0},
    )
    assert sealed.status_code == 303
    changes_before = round_changes(game_id)
    for extra in ({}, {"replace": "y", "version": version(game_id)}):
        answer = kept(client, game_id, 2, [2, 0, 0], [2, 0, 0], "sealed", **extra)
        assert answer.status_code == 403
        body = answer.get_json()
        assert body["outcome"] == "refused"
        assert "server" not in body
        assert "Hidden and secret bids need the server" in body["problems"][0]
    db.session.expire_all()
    round_2 = db.session.get(Game, game_id).rounds[1]
    assert [e.bid for e in sorted(round_2.entries, key=lambda e: e.seat)] == [1, 1, 0]
    assert round_2.state != RoundState.SCORED
    assert round_changes(game_id) == changes_before
    # The players' own phones and the Jubilee cards: refused the same way, nothing stored.
    own = new_game(NAMES)
    seat_links.renew(db.session.get(Game, own), [1])
    answer = kept(client, own, 1, [0, 1, 1, 0], [0, 1, 0, 0], "own")
    assert answer.status_code == 403
    assert answer.get_json()["problems"][0].startswith("The players bid on their own phones")
    assert scored_rounds(own) == []


def test_the_server_round_shown_beside_a_kept_one_keeps_sealed_bids_sealed(ctx, client):
    game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free", bid_reveal="secret")
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    trump(client, game_id, 2)
    client.post(
        f"/games/{game_id}/rounds/2/bids",
        data={"version": version(game_id), "bid_0": 1, "bid_1": 1, "bid_2": 0},
    )
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert round_shown(game, game.rounds[1])["bids"] == [None, None, None]
    assert round_shown(game, game.rounds[0])["bids"] == [1, 0, 0]


def test_the_plan_tag_changes_with_the_plan_the_names_and_the_language(ctx, client):
    # The phone fetches the plan again only when the tag changed: whatever changes the plan
    # (a custom plan edited mid-game, a rename, the language of its words) changes the tag.
    game_id = new_game(NAMES, plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 2, 3)))

    def tag() -> str:
        return client.get(f"/games/{game_id}/offline").get_json()["tag"]

    seen = [tag()]
    assert client.post(
        f"/games/{game_id}/plan", data={"version": version(game_id), "later": "5, 7, 9, 4"}
    ).status_code in (200, 303)
    assert [
        r["cards"] for r in client.get(f"/games/{game_id}/offline").get_json()["plan"]["rounds"]
    ] != [1, 2, 3]
    seen.append(tag())
    db.session.expire_all()
    ana = db.session.get(Game, game_id).seats[0].player_id
    assert client.post(f"/players/{ana}/rename", data={"name": "Anabel"}).status_code in (200, 303)
    seen.append(tag())
    client.post("/language", data={"lang": "de", "next": "/"})
    refresh()  # the test's app context would keep the language found first
    seen.append(tag())
    assert len(set(seen)) == 4


def test_the_round_screen_s_plan_tag_follows_the_players_own_phones(ctx, client):
    # The round screen reads each seat's link with its seats: making a player's link, then
    # turning it off, changes the tag it carries, as the plan (rounds or none) changes.
    game_id = new_game(NAMES)

    def screen_tag() -> str:
        found = re.search(r'data-offline-tag="([^"]+)"', client.get(f"/games/{game_id}").text)
        assert found
        return found.group(1)

    def plan_tag() -> str:
        return client.get(f"/games/{game_id}/offline").get_json()["tag"]

    without = screen_tag()
    assert plan_tag() == without
    assert client.post(f"/games/{game_id}/seat-links", data={"seat": 2}).status_code == 303
    with_link = screen_tag()
    assert with_link != without
    assert plan_tag() == with_link
    assert (
        client.get(f"/games/{game_id}/offline").get_json()["plan"]["unavailable"] == "own_phones"
    )
    assert client.post(f"/games/{game_id}/seat-links/off", data={"seat": 2}).status_code == 303
    assert screen_tag() == without == plan_tag()


def test_a_kept_round_refused_before_the_view_is_answered_in_json(csrf_app):
    # offline.js asks for JSON: an expired form token says so (the script fetches a fresh one
    # and sends again) instead of an error page it took for a lost network; other errors
    # (no such game) carry the words to show beside the kept round.
    client = csrf_app.test_client()
    with csrf_app.app_context():
        game_id = new_game(NAMES)
    json_only = {"Accept": "application/json"}
    data = {"version": 1, "request_key": "k", "trump": "suit:hearts"}
    expired = client.post(f"/games/{game_id}/rounds/1/kept", data=data, headers=json_only)
    assert expired.status_code == 400
    assert expired.get_json() == expired.get_json() | {"outcome": "error", "expired": True}
    assert "Reload it and try again." in expired.get_json()["message"]
    home = client.get(f"/games/{game_id}").get_data(as_text=True)
    token = re.search(r'"X-CSRFToken": "([^"]+)"', home).group(1)
    signed = json_only | {"X-CSRFToken": token}
    missing = client.post("/games/999999/rounds/1/kept", data=data, headers=signed)
    assert missing.status_code == 404
    assert missing.get_json()["outcome"] == "error"
    assert missing.get_json()["expired"] is False
    # A browser's form post still gets the page.
    page = client.post(f"/games/{game_id}/rounds/1/kept", data=data)
    assert page.status_code == 400
    assert page.mimetype == "text/html"


def test_a_request_key_stores_only_the_round_of_the_game_it_was_sent_for(ctx, client):
    game_id, other = new_game(NAMES), new_game(NAMES)
    stored = kept(client, game_id, 1, [0, 1, 1, 0], [0, 1, 0, 0], key="one-key")
    assert stored.get_json()["outcome"] == "stored"
    # The same key and values for another game, or another round: not "stored already".
    for target, number in ((other, 1), (game_id, 2)):
        answer = kept(client, target, number, [0, 1, 1, 0], [0, 1, 0, 0], key="one-key")
        assert answer.status_code == 409, (target, number)
        assert answer.get_json()["outcome"] == "conflict"
    assert scored_rounds(other) == []
    assert round_changes(game_id) == 1
