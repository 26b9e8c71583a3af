"""Events through the pages: set up, draw, swap, start the tables' games, play them as
ordinary games, standings, the board's conditional requests, results, and odd evenings."""

import json
import re
from fractions import Fraction

import pytest
import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Event, EventSession, EventTable, Game, GameStatus
from tests.factories import empty_event
from tests.play_helpers import bid, correction, play_round, post, sheet_totals, text, tricks, trump

NAMES = ["Ann", "Bob", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]


def setup_data(**changes):
    data = {
        "action": "create",
        "name": "Club night",
        "day": "2026-12-01",
        "table_size": "4",
        "session_count": "2",
        "method": "placement",
        "plan": "first_n",
        "plan_rounds": "2",
        "bid_rule": "free",
        "bid_reveal": "open",
        "first_dealer": "random",
        "seats": NAMES,
    }
    return data | changes


def errors(response):
    return re.findall(r'class="field-error" id="([^"]+)" role="alert">([^<]*)<', text(response))


def count(model):
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


@pytest.fixture
def event_id(client, ctx):
    response = client.post("/events/new", data=setup_data())
    assert response.status_code == 303
    return int(response.headers["Location"].rsplit("/", 1)[1])


def tables(event_id):
    db.session.expire_all()
    event = db.session.get(Event, event_id)
    return event.sessions[-1].tables


def seating(event_id):
    return [[seat.player.name for seat in table.seats] for table in tables(event_id)]


def games(event_id):
    return [db.session.get(Game, table.game_id) for table in tables(event_id)]


def play_game(client, game, rounds):
    """Play every round of ``game`` through the table's own forms (trump, bids, tricks)."""
    for number, (bids, took) in enumerate(rounds, start=1):
        dealer = rules.dealer_seat(game.first_dealer, number, len(game.seats))
        response = play_round(client, game.id, number, dealer, bids, took)
        assert response.status_code == 303, text(response)


def rounds_for(size, seed):
    """Two rounds (1 card, then 2) for a table of ``size``: bids and tricks by seat."""
    first = [0] * size
    first[seed % size] = 1
    second = [0] * size
    second[(seed + 1) % size] = 2
    bids_1 = [1 if s == seed % size else 0 for s in range(size)]
    bids_2 = [0] * size
    bids_2[(seed + 2) % size] = 1  # missed: -10, the player with 2 tricks bid 0: -20
    return [(bids_1, first), (bids_2, second)]


def test_setup_refuses_too_few_players_a_name_twice_and_bad_numbers_storing_nothing(client, ctx):
    response = client.post("/events/new", data=setup_data(seats=["Ann", "Bob"]))
    assert response.status_code == 422
    assert (
        "error-seats",
        "Too few players for a table: 2 playing, a table needs at least 3.",
    ) in errors(response)
    response = client.post("/events/new", data=setup_data(seats=["Ann", "Bob", "ann ", "Cy"]))
    assert ("error-seats", "ann is on the list twice.") in errors(response)
    response = client.post(
        "/events/new", data=setup_data(session_count="0", day="tomorrow", name="  ")
    )
    found = dict(errors(response))
    assert found["error-session_count"] == "Type the number of sessions, from 1 to 20."
    assert found["error-day"] == "Write the date as YYYY-MM-DD, e.g. 2024-05-31."
    assert found["error-name"] == "Give the event a name."
    # The plan must fit every table: a table of 4 deals at most 15 rounds.
    response = client.post("/events/new", data=setup_data(plan_rounds="16"))
    assert response.status_code == 422
    assert "error-plan" in dict(errors(response))
    assert count(Event) == 0


NOTE = rules.TABLE_ONLY_RULES[0]


def test_every_table_plays_the_more_rules_chosen_for_the_event(client, ctx):
    """The setup's further rules (the bid rule's threshold, variants, tie-break, Jubilee cards,
    table rules) are asked by the event's form too; every table's game is played under them."""
    page = text(client.get("/events/new"))
    names = ("bid_reveal", "bid_rule_from", "saboteur", "jester_bid", "tie_break", "bomb")
    for name in (*names, "dragon_fairy", "table_notes"):
        assert f'name="{name}"' in page, name
    chosen = {
        "jester_bid": "y",
        "tie_break": "bids_met",
        "bomb": "y",
        "werewolf": "y",
        "bid_rule": "canadian",
        "bid_rule_from": "2",
        "bid_reveal": "open",
    }
    response = client.post("/events/new", data=setup_data(**chosen) | {"table_notes": [NOTE]})
    assert response.status_code == 303, errors(response)
    event_id = int(response.headers["Location"].rsplit("/", 1)[1])
    stored = db.session.get(Event, event_id).rules
    assert stored["bid_rule"] == "canadian"
    assert stored["bid_rule_from"] == 2
    assert stored["table_notes"] == [NOTE]
    assert stored["jester_bid"] is True
    assert stored["tie_break"] == "bids_met"
    assert stored["jubilee"]["bomb"] is True
    assert stored["jubilee"]["werewolf"] is True
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    for game in games(event_id):
        played = rules.GameRules.from_dict(game.rules)
        assert played.bid_rule == rules.BidRule.CANADIAN
        assert played.bid_rule_from == 2
        assert played.table_notes == (NOTE,)
        assert played.jester_bid
        assert played.jubilee.bomb
        assert played.jubilee.werewolf
        assert played.tie_break == rules.TieBreak.BIDS_MET
        assert played.players == len(game.seats)
    # Chosen, the section stays open when the page comes back.
    refused = client.post("/events/new", data=setup_data(**chosen, name=""))
    assert '<details class="setup-more" open>' in text(refused)


def test_a_combination_the_rules_refuse_is_said_next_to_its_field(client, ctx):
    response = client.post(
        "/events/new", data=setup_data(bid_rule="plus_minus_one", bid_reveal="hidden")
    )
    assert response.status_code == 422
    found = dict(errors(response))
    assert "±1 needs open bids" in found["error-bid_rule"]
    assert '<details class="setup-more" open>' in text(response)
    assert 'href="#error-bid_rule"' in text(response)
    assert count(Event) == 0


def test_adding_players_uses_the_setup_name_rules(client, ctx):
    response = client.post(
        "/events/new", data=setup_data(action="add", new_name="  Ann  ", seats=["Ann"])
    )
    assert ("error-new_name", "Ann is already at this event.") in errors(response)
    response = client.post(
        "/events/new", data=setup_data(action="add", new_name="Zoe\x00", seats=[])
    )
    assert ("error-new_name", "A name can only hold letters, digits and signs.") in errors(
        response
    )
    response = client.post(
        "/events/new", data=setup_data(action="add", new_name="  Zoë   Li ", seats=[])
    )
    assert 'value="Zoë Li"' in text(response)


def test_a_drawn_session_seats_everyone_once_and_shows_its_seed(client, event_id):
    response = client.post(f"/events/{event_id}/draw", data={"seed": "4242"})
    assert response.status_code == 303
    drawn = seating(event_id)
    assert sorted(map(len, drawn), reverse=True) == [4, 3, 3]
    assert sorted(name for table in drawn for name in table) == sorted(NAMES)
    page = text(client.get(f"/events/{event_id}"))
    assert "Seating drawn with seed 4242" in page
    # Drawn again with the same seed: the same seating.
    client.post(f"/events/{event_id}/draw", data={"seed": "4242"})
    assert seating(event_id) == drawn
    assert count(EventSession) == 1
    response = client.post(f"/events/{event_id}/draw", data={"seed": "12x"})
    assert response.status_code == 422
    assert errors(response) == [
        ("error-seed", "Type a seed from 1 to 999999, or leave it empty for a new one.")
    ]


def test_two_players_can_swap_before_the_session_starts_but_not_after(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "7"})
    before = seating(event_id)
    first, second = before[0][0], before[1][0]
    ids = {seat.player.name: seat.player_id for t in tables(event_id) for seat in t.seats}
    response = client.post(
        f"/events/{event_id}/swap", data={"first": ids[first], "second": ids[second]}
    )
    assert response.status_code == 303
    after = seating(event_id)
    assert after[0][0] == second
    assert after[1][0] == first
    response = client.post(
        f"/events/{event_id}/swap", data={"first": ids[first], "second": ids[first]}
    )
    assert ("error-swap-second", "Choose two different players.") in errors(response)
    client.post(f"/events/{event_id}/start")
    response = client.post(
        f"/events/{event_id}/swap", data={"first": ids[first], "second": ids[second]}
    )
    assert response.status_code == 422
    assert errors(response) == [
        ("error-swap-first", "Players can be swapped only before a session starts.")
    ]
    assert seating(event_id) == after


def test_starting_makes_one_ordinary_game_per_table_once(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    drawn = seating(event_id)
    assert client.post(f"/events/{event_id}/start").status_code == 303
    assert client.post(f"/events/{event_id}/start").status_code == 303  # a double tap
    assert count(Game) == 3
    for game, names in zip(games(event_id), drawn, strict=True):
        assert [seat.player.name for seat in game.seats] == names
        assert rules.GameRules.from_dict(game.rules).round_count == 2
        assert client.get(f"/games/{game.id}").status_code == 200
    page = text(client.get(f"/events/{event_id}"))
    assert page.count("Open as the table phone") == 3
    assert page.count("<svg") >= 4  # three tables and the board
    cards = text(client.get(f"/events/{event_id}/cards"))
    for game in games(event_id):
        assert f"/games/{game.id}" in cards


def test_a_session_cannot_be_drawn_before_the_previous_one_ended(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    response = client.post(f"/events/{event_id}/draw", data={})
    assert response.status_code == 422
    assert errors(response) == [
        ("error-seed", "Session 1 is still being played: tables 1, 2, 3 have not finished.")
    ]
    assert count(EventSession) == 1


def play_session(client, event_id, offset=0):
    for number, game in enumerate(games(event_id)):
        play_game(client, game, rounds_for(len(game.seats), number + offset))


def independent_standings(client, event_id):
    """Placement points, scores and ranks from the games' own score sheets (the sheet page)."""
    points, score = {}, {}
    for session in db.session.get(Event, event_id).sessions:
        for table in session.tables:
            if table.game_id is None:
                continue
            game = db.session.get(Game, table.game_id)
            if game.status == GameStatus.IN_PROGRESS:
                continue  # a game counts once it ends
            totals = sheet_totals(client, game.id)
            names = [seat.player.name for seat in game.seats]
            n = len(totals)
            for seat, name in enumerate(names):
                beaten = sum(t < totals[seat] for t in totals)
                tied = totals.count(totals[seat]) - 1
                points[name] = points.get(name, 0) + Fraction(2 * beaten + tied, 2 * (n - 1))
                score[name] = score.get(name, 0) + totals[seat]
    return points, score


def test_standings_follow_the_games_sheets(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    play_session(client, event_id)
    points, score = independent_standings(client, event_id)
    data = json.loads(client.get(f"/events/{event_id}/results.json").data)
    for line in data["standings"]:
        assert Fraction(line["points"]) == points[line["player"]]
        assert line["score"] == score[line["player"]]
        assert line["games"] == 1
    keys = [(Fraction(line["points"]), line["score"]) for line in data["standings"]]
    assert keys == sorted(keys, reverse=True)
    assert {game["status"] for game in data["games"]} == {"finished"}
    csv_text = client.get(f"/events/{event_id}/results.csv").get_data(as_text=True)
    assert csv_text.splitlines()[0] == "rank,player,points,games,score,bids_met,bid_sum"
    assert len(csv_text.splitlines()) == 1 + 10 + 1 + 1 + 10
    # The event's games are ordinary games: they are in the history like any other.
    for game in games(event_id):
        assert client.get(f"/history/{game.id}").status_code == 200


def test_a_second_session_is_swiss_and_a_player_can_leave_between_sessions(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    play_session(client, event_id)
    leaving = seating(event_id)[0][0]
    leaver_id = next(
        seat.player_id for seat in tables(event_id)[0].seats if seat.player.name == leaving
    )
    assert client.post(f"/events/{event_id}/leave", data={"player": leaver_id}).status_code == 303
    assert client.post(f"/events/{event_id}/draw", data={"seed": "10"}).status_code == 303
    second = seating(event_id)
    assert sorted(map(len, second)) == [3, 3, 3]  # nine left: never a table below 3
    assert leaving not in {name for table in second for name in table}
    page = text(client.get(f"/events/{event_id}"))
    assert f"Left: {leaving}" in page


def test_nobody_else_can_leave_when_three_remain(client, ctx):
    client.post("/events/new", data=setup_data(seats=["Ann", "Bob", "Cy"]))
    event = db.session.scalars(sa.select(Event)).one()
    ann = event.players[0].player_id
    response = client.post(f"/events/{event.id}/leave", data={"player": ann})
    assert response.status_code == 422
    assert errors(response) == [
        ("error-player", "An event needs at least 3 players: nobody else can leave.")
    ]
    db.session.expire_all()
    assert all(entry.active for entry in db.session.get(Event, event.id).players)


def test_an_abandoned_game_counts_as_it_stood_and_the_rule_is_on_the_page(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    first, second, third = games(event_id)
    play_game(client, first, rounds_for(len(first.seats), 0))
    play_game(client, second, rounds_for(len(second.seats), 1)[:1])
    assert post(client, second.id, "abandon", {}).status_code == 303
    assert post(client, third.id, "abandon", {}).status_code == 303
    data = json.loads(client.get(f"/events/{event_id}/results.json").data)
    counted = {line["player"]: line["games"] for line in data["standings"]}
    for seat in second.seats:
        assert counted[seat.player.name] == 1  # one round scored: it counts as it stood
    for seat in third.seats:
        assert counted[seat.player.name] == 0  # nothing scored: it counts for nobody
    page = text(client.get(f"/events/{event_id}"))
    assert "A game abandoned early counts as it stood after its last scored round" in page
    assert "Abandoned after 1 of 2 rounds" in page
    # Every table has ended: the next session can be drawn.
    assert client.post(f"/events/{event_id}/draw", data={}).status_code == 303


FLAG = "Standings changed: a game was corrected after it ended."


def correct_first_game(client, game):
    """Correct round 2 of the first table's game (played by ``rounds_for(size, 0)``): the
    player who took both tricks had bid 2 after all."""
    size = len(game.seats)
    bids, took = rounds_for(size, 0)[1]
    fixed = list(bids)
    fixed[1 % size] = 2
    response = post(client, game.id, "rounds/2/edit", correction(fixed, took))
    assert response.status_code == 303, text(response)


def flagged(client, event_id):
    """What the organiser's page and the board say of corrected games (None: nothing)."""
    token = db.session.get(Event, event_id).board_token
    pages = [text(client.get(f"/events/{event_id}")), text(client.get(f"/events/board/{token}"))]
    said = [re.search(re.escape(FLAG) + r"\s*([^<]*)</p>", page) for page in pages]
    assert said[0] is None or said[1] is not None, "the board must say what the page says"
    return said[0] and said[0].group(1).strip()


def standings_now(client, event_id):
    return json.loads(client.get(f"/events/{event_id}/results.json").data)["standings"]


def play_to(client, event_id, moment):
    """Bring the event to ``moment``: the first table's game over while the others play,
    the whole first session over, the second session drawn, or the event finished."""
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    first = games(event_id)[0]
    if moment == "during the session":
        play_game(client, first, rounds_for(len(first.seats), 0))
        return first
    play_session(client, event_id)
    if moment in ("after the next draw", "after the event finished"):
        assert client.post(f"/events/{event_id}/draw", data={"seed": "5"}).status_code == 303
    if moment == "after the event finished":
        client.post(f"/events/{event_id}/start")
        play_session(client, event_id, offset=1)
        assert client.post(f"/events/{event_id}/finish").status_code == 303
    return first


@pytest.mark.parametrize(
    "moment",
    [
        "during the session",
        "after the session ended",
        "after the next draw",
        "after the event finished",
    ],
)
def test_a_game_corrected_after_it_ended_moves_the_standings_and_is_flagged(
    client, event_id, moment
):
    game = play_to(client, event_id, moment)
    before = standings_now(client, event_id)
    assert flagged(client, event_id) is None
    correct_first_game(client, game)
    after = standings_now(client, event_id)
    assert after != before
    points, score = independent_standings(client, event_id)
    for line in after:
        assert line["score"] == score.get(line["player"], 0)
        assert Fraction(line["points"]) == points.get(line["player"], 0)
    assert flagged(client, event_id) == "Session 1, table 1"
    if moment == "after the session ended":
        # The next draw closes the session: the correction stays flagged, not absorbed.
        assert client.post(f"/events/{event_id}/draw", data={"seed": "5"}).status_code == 303
        assert flagged(client, event_id) == "Session 1, table 1"


def test_a_correction_while_the_game_is_played_is_no_change_of_the_standings(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    first, *others = games(event_id)
    size = len(first.seats)
    (bids, took), (bids_2, took_2) = rounds_for(size, 0)
    play_game(client, first, [(bids, took)])
    response = post(client, first.id, "rounds/1/edit", correction([0] * size, took))
    assert response.status_code == 303, text(response)
    dealer = rules.dealer_seat(first.first_dealer, 2, size)
    assert play_round(client, first.id, 2, dealer, bids_2, took_2).status_code == 303
    for number, game in enumerate(others, start=1):
        play_game(client, game, rounds_for(len(game.seats), number))
    assert flagged(client, event_id) is None
    client.post(f"/events/{event_id}/draw", data={"seed": "5"})
    assert flagged(client, event_id) is None


def test_the_board_answers_304_until_a_round_is_saved(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    token = db.session.get(Event, event_id).board_token
    board = client.get(f"/events/board/{token}/part")
    assert board.status_code == 200
    etag = board.headers["ETag"]
    assert "Round 1 of 2" in text(board)
    again = client.get(f"/events/board/{token}/part", headers={"If-None-Match": etag})
    assert again.status_code == 304
    game = games(event_id)[0]
    play_game(client, game, rounds_for(len(game.seats), 0)[:1])
    fresh = client.get(f"/events/board/{token}/part", headers={"If-None-Match": etag})
    assert fresh.status_code == 200
    assert fresh.headers["ETag"] != etag
    assert "Round 2 of 2" in text(fresh)
    assert client.get("/events/board/not-a-token/part").status_code == 404


def test_the_board_is_open_without_the_password_and_the_event_page_is_not(tmp_path):
    from scorekeeper import create_app
    from tests.conftest import make_config

    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'p.sqlite'}",
            ACCESS_PASSWORD="secret",
        )
    )
    with app.app_context():
        db.create_all()
        event = empty_event()
        token, event_id = event.board_token, event.id
    client = app.test_client()
    assert client.get(f"/events/board/{token}").status_code == 200
    assert client.get(f"/events/{event_id}").status_code in (302, 303, 401)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_finishing_takes_the_final_standings(client, event_id):
    response = client.post(f"/events/{event_id}/finish")
    assert errors(response) == [("error-event", "Play a session before finishing the event.")]
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    play_session(client, event_id)
    assert client.post(f"/events/{event_id}/finish").status_code == 303
    page = text(client.get(f"/events/{event_id}/results"))
    assert "Final standings" in page
    response = client.post(f"/events/{event_id}/draw", data={})
    assert errors(response) == [("error-seed", "The event is over: nothing more can change.")]
    assert all(t.counted_version is not None for t in tables(event_id))
    assert count(EventTable) == 3
    assert {g.status for g in games(event_id)} == {GameStatus.FINISHED}


def test_a_backup_carries_the_event_and_restores_it_losslessly(client, event_id, tmp_path):
    from scorekeeper import create_app
    from scorekeeper.exchange.events import event_records
    from tests.conftest import make_config

    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    play_session(client, event_id)
    leaver = db.session.get(Event, event_id).players[3].player_id
    client.post(f"/events/{event_id}/leave", data={"player": leaver})
    client.post(f"/events/{event_id}/draw", data={"seed": "3"})
    backup = client.get("/history/backup.json").data
    assert b'"events":[' in backup
    original = event_records()
    results = client.get(f"/events/{event_id}/results.json").data

    other = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'o.sqlite'}"))
    with other.app_context():
        db.create_all()
    fresh = other.test_client()
    response = fresh.post(
        "/history/restore",
        data={"backup": (__import__("io").BytesIO(backup), "backup.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code in (200, 303), text(response)
    with other.app_context():
        assert event_records() == original
        restored_id = db.session.scalars(sa.select(Event.id)).one()
        # Restoring the same file again adds nothing.
        fresh.post(
            "/history/restore",
            data={"backup": (__import__("io").BytesIO(backup), "backup.json")},
            content_type="multipart/form-data",
        )
        assert count(Event) == 1
        assert fresh.get(f"/events/{restored_id}/results.json").data == results
        assert fresh.get("/history/backup.json").data == backup
        db.session.remove()
        db.engine.dispose()


def test_draw_swap_and_start_on_each_database(db_ctx):
    from scorekeeper import events as service
    from scorekeeper.reports import events as plan

    template = rules.GameRules(
        players=4, plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=2), bid_rule="free"
    ).to_dict()
    with db_ctx.test_request_context():
        event = service.create_event(
            name="Night",
            day=__import__("datetime").date(2026, 12, 1),
            names=NAMES,
            table_size=4,
            session_count=2,
            rules_template=template,
            method="placement",
            request_key="k1",
        )
        again = service.create_event(
            name="Night",
            day=__import__("datetime").date(2026, 12, 1),
            names=NAMES,
            table_size=4,
            session_count=2,
            rules_template=template,
            method="placement",
            request_key="k1",
        )
        assert again.id == event.id
        session = service.draw_session(event.id, 77)
        seating = [[s.player_id for s in t.seats] for t in session.tables]
        a, b = seating[0][0], seating[1][0]
        service.swap_players(event.id, a, b)
        db.session.expire_all()
        loaded = service.load_event(event.id)
        swapped = [[s.player_id for s in t.seats] for t in loaded.sessions[-1].tables]
        assert swapped[0][0] == b
        assert swapped[1][0] == a
        plan.check_seating(tuple(map(tuple, swapped)))
        service.start_session(event.id)
        service.start_session(event.id)
        assert count(Game) == 3
        with pytest.raises(service.EventRefused) as refused:
            service.draw_session(event.id)
        assert refused.value.field == "seed"
        assert count(EventSession) == 1
        found = service.board_version(loaded.board_token)
        assert found is not None
        assert found[0] == event.id


def test_a_bid_leaves_the_board_not_modified_and_a_scored_round_moves_it(client, event_id):
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    token = db.session.get(Event, event_id).board_token
    part = f"/events/board/{token}/part"
    etag = client.get(part).headers["ETag"]
    game = games(event_id)[0]
    players = len(game.seats)
    dealer = rules.dealer_seat(game.first_dealer, 1, players)
    assert trump(client, game.id, 1).status_code == 303
    assert bid(client, game.id, 1, (dealer + 1) % players, 1).status_code == 303
    # The table's game moved on, what the board shows did not: still "not modified".
    assert client.get(part, headers={"If-None-Match": etag}).status_code == 304
    for step in range(1, players):
        assert bid(client, game.id, 1, (dealer + 1 + step) % players, 0).status_code == 303
    assert client.get(part, headers={"If-None-Match": etag}).status_code == 304
    took = {seat: int(seat == (dealer + 1) % players) for seat in range(players)}
    assert tricks(client, game.id, 1, took).status_code == 303
    fresh = client.get(part, headers={"If-None-Match": etag})
    assert fresh.status_code == 200
    assert fresh.headers["ETag"] != etag
    assert "Round 2 of 2" in text(fresh)
    # Undoing the scored round moves it again (the board shows round 1 once more).
    after = fresh.headers["ETag"]
    assert post(client, game.id, "undo", {}).status_code == 303
    back = client.get(part, headers={"If-None-Match": after})
    assert back.status_code == 200
    assert "Round 1 of 2" in text(back)


def fail_on_the_third_game(monkeypatch):
    """Make gameplay.add_game fail when the third table's game is made; returns the real
    one (to put back)."""
    from scorekeeper import gameplay

    real = gameplay.add_game
    made = []

    def failing(*args, **kwargs):
        if len(made) == 2:
            raise RuntimeError("the database went away")
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(gameplay, "add_game", failing)
    return real


def test_a_failure_while_starting_the_third_table_stores_nothing(client, event_id, monkeypatch):
    from scorekeeper import gameplay

    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    real = fail_on_the_third_game(monkeypatch)
    with pytest.raises(RuntimeError):
        client.post(f"/events/{event_id}/start")
    db.session.rollback()
    db.session.expire_all()
    assert count(Game) == 0
    assert [table.game_id for table in tables(event_id)] == [None, None, None]
    assert db.session.get(Event, event_id).sessions[-1].started_at is None
    # Tried again once the failure is gone: every table's game, once.
    monkeypatch.setattr(gameplay, "add_game", real)
    assert client.post(f"/events/{event_id}/start").status_code == 303
    assert count(Game) == 3
    assert all(table.game_id is not None for table in tables(event_id))


def event_player_ids(event_id):
    db.session.expire_all()
    event = db.session.get(Event, event_id)
    members = sorted(entry.player_id for entry in event.players)
    seated = sorted(seat.player_id for s in event.sessions for t in s.tables for seat in t.seats)
    return members, seated


def test_merging_an_event_player_into_someone_not_there_moves_the_place(client, event_id):
    from scorekeeper.models import Player, PlayerChange, Seat
    from tests.factories import make_game

    make_game(["Bob", "Cy", "Zed"])  # Zed is on the roster, never at the event
    zed = db.session.scalar(sa.select(Player.id).where(Player.name == "Zed"))
    ann = db.session.scalar(sa.select(Player.id).where(Player.name == "Ann"))
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    client.post(f"/events/{event_id}/start")
    token = db.session.get(Event, event_id).board_token
    etag = client.get(f"/events/board/{token}/part").headers["ETag"]
    before = event_player_ids(event_id)

    answer = client.post(f"/players/{ann}/merge", data={"into": zed, "request_key": "m1"})
    assert answer.status_code == 303, text(answer)
    members, seated = event_player_ids(event_id)
    assert ann not in members
    assert zed in members
    assert ann not in seated
    assert zed in seated
    ann_game = next(g for g in games(event_id) if zed in [s.player_id for s in g.seats])
    # The board shows the name now at that place (its version moved).
    board = client.get(f"/events/board/{token}/part", headers={"If-None-Match": etag})
    assert board.status_code == 200
    assert "Zed" in text(board)
    assert "Ann" not in text(board)
    # Undone: Ann is back at her place, at the event, in its game.
    change = db.session.scalar(sa.select(PlayerChange.id))
    client.post(f"/players/{zed}/changes/{change}/undo", data={"request_key": "m2"})
    assert event_player_ids(event_id) == before
    seats = db.session.scalars(sa.select(Seat.player_id).where(Seat.game_id == ann_game.id))
    assert ann in list(seats)
    assert "Ann" in text(client.get(f"/events/board/{token}/part"))


def test_merging_two_players_of_one_event_is_refused_next_to_the_field(client, event_id):
    from scorekeeper.models import Player, PlayerChange

    ann, bob = (
        db.session.scalar(sa.select(Player.id).where(Player.name == name))
        for name in ("Ann", "Bob")
    )
    before = event_player_ids(event_id)
    answer = client.post(f"/players/{ann}/merge", data={"into": bob, "request_key": "m1"})
    assert answer.status_code == 422
    assert (
        "Ann and Bob are both players of the event Club night: merged, one player would be"
        " there twice." in text(answer)
    )
    assert event_player_ids(event_id) == before
    assert count(PlayerChange) == 0
    assert db.session.get(Player, ann) is not None


def test_start_merge_and_board_version_on_each_database(db_ctx, monkeypatch):
    """All-or-nothing start, a merge moving an event place, and the board's version that a
    bid leaves alone and a scored round moves, on SQLite and PostgreSQL."""
    from scorekeeper import events as service
    from scorekeeper import gameplay, roster
    from scorekeeper.models import Player
    from tests.factories import make_game

    client = db_ctx.test_client()
    response = client.post("/events/new", data=setup_data())
    event_id = int(response.headers["Location"].rsplit("/", 1)[1])
    client.post(f"/events/{event_id}/draw", data={"seed": "9"})
    real = fail_on_the_third_game(monkeypatch)
    with db_ctx.test_request_context(), pytest.raises(RuntimeError):
        service.start_session(event_id)
    db.session.rollback()
    assert count(Game) == 0
    monkeypatch.setattr(gameplay, "add_game", real)
    assert client.post(f"/events/{event_id}/start").status_code == 303
    assert count(Game) == 3

    token = db.session.get(Event, event_id).board_token
    started = service.board_version(token)
    game = games(event_id)[0]
    players = len(game.seats)
    dealer = rules.dealer_seat(game.first_dealer, 1, players)
    trump(client, game.id, 1)
    bid(client, game.id, 1, (dealer + 1) % players, 1)
    assert service.board_version(token) == started
    play_game(client, games(event_id)[1], rounds_for(len(games(event_id)[1].seats), 0)[:1])
    assert service.board_version(token) != started

    make_game(["Bob", "Cy", "Zed"])
    ids = dict(db.session.execute(sa.select(Player.name, Player.id)).all())
    with db_ctx.test_request_context(), pytest.raises(roster.RosterRefused) as refused:
        roster.merge(ids["Ann"], ids["Bob"], "m0")
    assert refused.value.reason == roster.Refusal.SAME_EVENT
    before = service.board_version(token)
    with db_ctx.test_request_context():
        change = roster.merge(ids["Ann"], ids["Zed"], "m1")
    assert ids["Zed"] in event_player_ids(event_id)[0]
    assert service.board_version(token) != before
    with db_ctx.test_request_context():
        roster.undo(change.id, "m2")
    assert ids["Ann"] in event_player_ids(event_id)[0]
    assert ids["Zed"] not in event_player_ids(event_id)[1]


def test_the_board_links_under_each_visitors_own_path_prefix(tmp_path):
    """The board is rendered once per version and kept (views.events._BOARDS): a visitor
    reaching it under another path prefix (a proxy's X-Forwarded-Prefix) must get its links
    under that prefix, not the first visitor's."""
    from datetime import date

    from scorekeeper import create_app
    from tests.conftest import make_config

    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'prefix.sqlite'}", TRUSTED_PROXIES=1
        )
    )
    with app.app_context():
        db.create_all()
        token = empty_event("Prefixed night", date(2026, 1, 2)).board_token
    client = app.test_client()
    link = re.compile(r'(?:href|src|hx-get|data-[a-z-]+)="(/[^"]*)"')
    for prefix in ("/club", "/other", "", "/club"):
        for path in (f"/events/board/{token}", f"/events/board/{token}/part"):
            headers = {"X-Forwarded-Prefix": prefix} if prefix else {}
            answer = client.get(path, headers=headers)
            assert answer.status_code == 200
            found = link.findall(answer.get_data(as_text=True))
            assert found, path
            assert all(url.startswith(f"{prefix}/") for url in found), (prefix, found)
            if not prefix:
                assert not any(url.startswith(("/club/", "/other/")) for url in found), found
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
