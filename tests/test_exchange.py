"""CSV and JSON export of a game, full backup and restore, on the web and on the command line."""

import contextlib
import csv
import io
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from jsonschema import Draft202012Validator
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from scorekeeper import create_app, exchange, rules, snapshots
from scorekeeper.exchange import schema as exchange_schema
from scorekeeper.extensions import db
from scorekeeper.models import Change, ChangeAction, Entry, Game, Player, Round
from tests import play_helpers as play
from tests.club_backup import seeded_club_backup, upload_ending_a_read_on_a_line_break
from tests.conftest import _app_with_tables, make_config
from tests.factories import make_game, new_game, random_rounds

THREE = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=3), bid_rule="free")
ROUNDS = [((1, 0, 0), (1, 0, 0)), ((0, 1, 1), (0, 2, 0)), ((2, 0, 2), (2, 0, 1))]
DAY_1 = datetime(2024, 5, 1, 19, 30, 15, 123456, tzinfo=UTC)


def snapshot(number: int, bids: list, tricks: list, state: str = "scored") -> dict:
    """Round ``number`` of a THREE game (first dealer seat 0) as the app's history keeps it."""
    return {
        "number": number,
        "hand_size": number,
        "dealer": (number - 1) % 3,
        "state": state,
        "trump": None,
        "trump_cause": "jester",
        "werewolf_played": False,
        "werewolf_trump": None,
        "bomb_played": False,
        "cloud_seat": None,
        "bids": bids,
        "cloud_bid": [None, None, None],
        "tricks": tricks,
    }


def state(*rounds: dict, status: str = "finished") -> dict:
    """A history before/after state as :func:`scorekeeper.changes.apply_change` records it."""
    finished = "2024-05-01T20:30:15.123456+00:00" if status == "finished" else None
    return {
        "status": status,
        "finished_at": finished,
        "rules": THREE.to_dict(),
        "rounds": list(rounds),
    }


# What the app records: the start, then a correction of round 2 (versions 2 and 3 here).
HISTORY = [
    {
        "action": "create_game",
        "round_number": 1,
        "before": None,
        "after": {"players": ["Ann", "Bob", "Cy"], "first_dealer": 0, "rules": THREE.to_dict()},
    },
    {
        "action": "edit_round",
        "round_number": 2,
        "before": state(snapshot(2, [0, 1, 1], [0, 1, 1])),
        "after": state(snapshot(2, [0, 1, 1], [0, 2, 0])),
    },
]


def counts() -> tuple[int, ...]:
    return tuple(
        db.session.scalar(sa.select(sa.func.count()).select_from(model))
        for model in (Player, Game, Round, Entry, Change)
    )


def seed_variety() -> None:
    """Games of several kinds: finished, in progress with a round being bid, abandoned."""
    make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE, changes=HISTORY, created_at=DAY_1)
    plus = rules.GameRules(players=4, plan=rules.RoundPlan("tournament"))
    game = make_game(
        ["Di", "Ann", "Éve", "Bob"],
        random_rounds(plus, 4, seed=3),
        game_rules=plus,
        created_at=DAY_1 + timedelta(days=1),
    )
    # A round in the middle of bidding: partial bids, no tricks yet.
    current = Round(number=5, hand_size=9, dealer=0, state="bidding", trump="hearts")
    current.entries.append(Entry(seat=1, bid=3))
    game.rounds.append(current)
    jubilee = rules.GameRules(
        players=3,
        plan=rules.RoundPlan("first_n", rounds=2),
        bid_rule="free",
        jubilee=rules.JubileeCards(cloud=True, bomb=True),
    )
    cloudy = make_game(
        ["Cy", "Di", "Ann"],
        [],
        game_rules=jubilee,
        status="abandoned",
        created_at=DAY_1 + timedelta(days=2),
    )
    # Round 2 (2 cards): Cy bid 1 then the Cloud took him to 2; the Bomb swallowed a trick.
    r1 = Round(number=1, hand_size=1, dealer=0, state="scored", trump_cause="jester")
    for seat, (bid, tricks) in enumerate([(0, 0), (1, 1), (0, 0)]):
        r1.entries.append(Entry(seat=seat, bid=bid, tricks=tricks))
    r2 = Round(number=2, hand_size=2, dealer=1, state="scored", bomb_played=True, cloud_seat=0)
    for seat, (bid, cloud, tricks) in enumerate([(1, 2, 1), (0, None, 0), (1, None, 0)]):
        r2.entries.append(Entry(seat=seat, bid=bid, cloud_bid=cloud, tricks=tricks))
    cloudy.rounds.extend([r1, r2])
    db.session.commit()


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-30", "'-30"),
        (-30, "'-30"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("\nx", "'\nx"),
        # Full-width and small forms some spreadsheets read as the signs, and the minus sign.
        ('＝HYPERLINK("http://x")', '\'＝HYPERLINK("http://x")'),
        ("＋1", "'＋1"),
        ("－1", "'－1"),
        ("＠SUM(A1)", "'＠SUM(A1)"),
        ("﹦1+1", "'﹦1+1"),
        ("﹢1", "'﹢1"),
        ("﹣1", "'﹣1"),
        ("−1", "'−1"),
        ("Ann", "Ann"),
        (40, "40"),
        (None, ""),
        ("a=b", "a=b"),
    ],
)
def test_cells_that_start_a_formula_are_neutralised(cell, shown):
    assert exchange.neutralise(cell) == shown


def test_csv_has_a_row_per_player_per_round_with_scores_from_the_sheet(client, ctx):
    game_id = make_game(['=HYPERLINK("x")', "Bob", "@Cy"], ROUNDS, game_rules=THREE).id
    response = client.get(f"/history/{game_id}/export.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(rows) == 9
    assert rows[0]["player"] == '\'=HYPERLINK("x")'
    assert rows[2]["player"] == "'@Cy"
    # Round 2, Cy: bid 1, took 0 -> -10, total 20 - 10 = 10.
    cy_round_2 = rows[5]
    assert (cy_round_2["round"], cy_round_2["bid"], cy_round_2["tricks"]) == ("2", "1", "0")
    assert (cy_round_2["points"], cy_round_2["total"], cy_round_2["made"]) == ("'-10", "10", "no")
    assert [row["total"] for row in rows[-3:]] == ["90", "30", "0"]
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.parametrize(("language", "separator"), [("en", ","), ("de", ";"), ("pt", ";")])
def test_csv_uses_the_separator_of_the_language_s_spreadsheets(client, ctx, language, separator):
    game_id = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE).id
    client.set_cookie("lang", language)
    text = client.get(f"/history/{game_id}/export.csv").get_data(as_text=True)
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff")), delimiter=separator))
    assert rows[0][:3] == ["game", "date", "round"]
    assert len(rows) == 10
    assert all(len(row) == len(rows[0]) for row in rows)


# --------------------------------------------------------------------------------------------
# JSON export
# --------------------------------------------------------------------------------------------


def test_game_json_is_versioned_and_carries_rules_seats_rounds_and_history(client, ctx):
    game = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE, changes=HISTORY)
    game_id, uid = game.id, game.uid
    response = client.get(f"/history/{game_id}/export.json")
    assert response.mimetype == "application/json"
    data = json.loads(response.data)
    assert (data["format"], data["version"], data["kind"]) == ("wizard-scorekeeper", 2, "game")
    (game,) = data["games"]
    assert game["uid"] == uid
    assert game["rules"] == THREE.to_dict()
    assert game["seats"] == ["Ann", "Bob", "Cy"]
    assert game["rounds"][2]["entries"][0] == {"seat": 0, "bid": 2, "tricks": 2}
    assert [change["action"] for change in game["history"]] == ["create_game", "edit_round"]
    # Only what the correction changed, as it was: Bob's and Cy's tricks in round 2.
    assert game["history"][1]["before"] == {"rounds": [{"number": 2, "tricks": [0, 1, 1]}]}
    assert "after" not in game["history"][1]
    assert game["result"] == {"totals": [90, 30, 0], "ranks": [1, 2, 3], "winners": ["Ann"]}
    assert "live_token" not in game


# --------------------------------------------------------------------------------------------
# Backup and restore
# --------------------------------------------------------------------------------------------


def test_backup_restored_into_an_empty_instance_gives_an_identical_backup(db_ctx, tmp_path):
    seed_variety()
    first = exchange.backup_json()
    fresh = create_app(
        make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    )
    with fresh.app_context():
        db.create_all()
        result = exchange.import_file(first.encode())
        assert (result.games_added, result.players_added, result.games_skipped) == (3, 5, 0)
        second = exchange.backup_json()
        db.engine.dispose()
    assert second == first
    assert json.loads(first)["games"][1]["rounds"][4]["state"] == "bidding"


def test_restore_into_the_same_instance_adds_nothing(db_ctx):
    seed_variety()
    backup = exchange.backup_json()
    before = counts()
    result = exchange.import_file(backup.encode())
    assert (result.games_added, result.players_added, result.games_skipped) == (0, 0, 3)
    assert counts() == before
    assert exchange.backup_json() == backup


def test_restore_into_a_non_empty_instance_matches_players_by_name_and_games_by_uid(ctx, tmp_path):
    other = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'o.sqlite'}"))
    with other.app_context():
        db.create_all()
        make_game(["  ann ", "BOB", "Zed"], ROUNDS, game_rules=THREE)
        shared = make_game(["Ann", "Bob", "Cy"], ROUNDS[:1], game_rules=THREE)
        shared_uid = shared.uid
        backup = exchange.backup_json()
        db.engine.dispose()
    mine = make_game(["Ann", "Bob", "Cy"], ROUNDS[:1], game_rules=THREE)
    mine.uid = shared_uid  # the same game, restored here before
    db.session.commit()
    result = exchange.import_file(backup.encode())
    assert (result.games_added, result.games_skipped, result.players_added) == (1, 1, 1)
    names = db.session.scalars(sa.select(Player.name).order_by(Player.name_key)).all()
    assert names == ["Ann", "Bob", "Cy", "Zed"]  # "  ann " and "BOB" matched the roster
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 2


def restore_upload(client, body: bytes, filename: str = "backup.json"):
    return client.post(
        "/history/restore",
        data={"backup": (io.BytesIO(body), filename)},
        content_type="multipart/form-data",
    )


def valid_backup(app) -> dict:
    with app.app_context():
        seed_variety()
        data = json.loads(exchange.backup_json())
        # Restoring into this very instance would skip everything: give the games new ids.
        for n, game in enumerate(data["games"]):
            game["uid"] = f"00000000-0000-0000-0000-00000000000{n}"
            game.pop("live_token")
    return data


def version_1(app, data: dict) -> dict:
    """``data`` as format version 1 wrote it: each history entry with the whole before and
    after the games of seed_variety store (their changes were made by hand, whole)."""
    data["version"] = 1
    with app.app_context():
        games = db.session.scalars(sa.select(Game).order_by(Game.created_at, Game.uid)).all()
        for game, record in zip(games, data["games"], strict=True):
            record["history"] = [
                {
                    "version": change.version,
                    "action": change.action,
                    "round_number": change.round_number,
                    "before": change.before,
                    "after": change.after,
                    "created_at": exchange.timestamp(change.created_at),
                }
                for change in game.changes
            ]
    return data


def valid_backup_v1(app) -> dict:
    """A valid backup as format version 1 wrote it (whole snapshots in the history)."""
    return version_1(app, valid_backup(app))


@pytest.fixture(scope="module")
def stored_backups(tmp_path_factory, sqlite_tables) -> Iterator[dict[int, str]]:
    """The files of :func:`valid_backup` and :func:`valid_backup_v1`, made once per module
    (seeding the games was most of each test's time) for the tests that only read a file and
    restore nothing into an instance."""
    path = tmp_path_factory.mktemp("backup") / "seeded.sqlite"
    instance = _app_with_tables(
        make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{path}"), sqlite_tables
    )
    app = next(instance)
    data = valid_backup(app)
    yield {2: json.dumps(data), 1: json.dumps(version_1(app, data))}
    next(instance, None)


@pytest.fixture
def backup_file(stored_backups) -> Callable[..., dict]:
    """A fresh copy of the valid backup (``version=1``: as format version 1 wrote it)."""
    return lambda version=2: json.loads(stored_backups[version])


def test_restore_page_adds_games_and_says_what_it_did(client, app):
    data = valid_backup(app)
    response = restore_upload(client, json.dumps(data).encode())
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Restored: 3 games added, 0 players added; 0 games were already here." in page


def broken(data: dict, change) -> bytes:
    change(data)
    return json.dumps(data).encode()


def set_tricks(data: dict) -> None:
    data["games"][0]["rounds"][1]["entries"][0]["tricks"] = 3


@pytest.mark.parametrize(
    ("make_body", "message"),
    [
        (lambda d: b"{not json", "This file is not valid JSON (line 1, column 2)."),
        (lambda d: b"\xff\xfe\x00garbage", "This file is not text."),
        (lambda d: b"[1, 2]", "not a Wizard Scorekeeper backup"),
        (lambda d: broken(d, lambda x: x.update(version=3)), "format version 3; this app reads"),
        (lambda d: broken(d, lambda x: x.update(version="1")), "format version 1; this app reads"),
        (lambda d: broken(d, set_tricks), "round 2: it breaks the rules of the game: "),
        (
            lambda d: broken(d, lambda x: x["games"][0]["rules"].update(players=9)),
            "its rules are not valid: Wizard is played by at most 6 players",
        ),
        (
            lambda d: broken(d, lambda x: x["games"][1]["seats"].__setitem__(0, "Nobody")),
            "every seat must name a player of the file.",
        ),
        (
            lambda d: broken(d, lambda x: x["games"][0]["rounds"][0].update(hand_size=99)),
            "the cards must be 1 to 20.",
        ),
        (
            lambda d: broken(d, lambda x: x["games"][0]["history"][0].update(created_at="soon")),
            "a history entry is not valid.",
        ),
        (
            lambda d: broken(d, lambda x: x["games"].append(x["games"][0])),
            "this game appears twice in the file.",
        ),
        (
            lambda d: broken(d, lambda x: x["games"][0]["history"][0].update(action="finish")),
            "a history entry is not valid.",
        ),
    ],
)
def test_an_invalid_file_is_refused_with_a_message_and_changes_nothing(
    client, app, make_body, message
):
    body = make_body(valid_backup(app))
    with app.app_context():
        before = counts()
    response = restore_upload(client, body)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    with app.app_context():
        assert counts() == before


def test_a_valid_game_after_an_invalid_one_is_not_stored_either(client, app):
    data = valid_backup(app)
    set_tricks(data)  # game 1 is broken, games 2 and 3 are fine
    with app.app_context():
        before = counts()
    assert restore_upload(client, json.dumps(data).encode()).status_code == 422
    with app.app_context():
        assert counts() == before


def test_restore_without_a_file_says_to_choose_one(client):
    response = client.post("/history/restore", data={}, content_type="multipart/form-data")
    assert response.status_code == 422
    assert "Choose a backup file to restore." in response.get_data(as_text=True)


def test_a_100_mb_upload_is_refused_with_the_app_message(client, app):
    with app.app_context():
        before = counts()
    # Encoded in memory: the test client would spool it to a file the early 413 never closes.
    boundary, body = encode_multipart(
        {"backup": FileStorage(io.BytesIO(b" " * (100 * 1024 * 1024)), "backup.json")}
    )
    response = client.post(
        "/history/restore", data=body, content_type=f"multipart/form-data; boundary={boundary}"
    )
    assert response.status_code == 413
    page = response.get_data(as_text=True)
    assert "This file is too large: backups up to 100 MB can be restored." in page
    assert 'name="backup"' in page
    with app.app_context():
        assert counts() == before


def test_restore_needs_the_csrf_token(csrf_app):
    response = restore_upload(csrf_app.test_client(), b"{}")
    assert response.status_code == 400
    assert "Reload it and try again." in response.get_data(as_text=True)


def test_backup_download_is_an_attachment(client, ctx):
    seed_variety()
    response = client.get("/history/backup.json")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith(
        'attachment; filename="wizard-backup-'
    )
    assert json.loads(response.data)["kind"] == "backup"


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def test_cli_export_then_import_into_another_instance(app, tmp_path):
    with app.app_context():
        seed_variety()
    path = tmp_path / "backup.json"
    result = app.test_cli_runner().invoke(args=["export", "--output", str(path)])
    assert result.exit_code == 0, result.output
    other = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'o.sqlite'}"))
    with other.app_context():
        db.create_all()
    result = other.test_cli_runner().invoke(args=["import", str(path)])
    assert result.exit_code == 0, result.output
    assert "3 games and 5 players added; 0 games were already here." in result.output
    with other.app_context():
        assert exchange.backup_json() == path.read_text()
        db.engine.dispose()


def test_cli_import_of_a_bad_file_fails_and_says_why(app, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "wizard-scorekeeper", "version": 7}')
    result = app.test_cli_runner().invoke(args=["import", str(path)])
    assert result.exit_code == 1
    assert "format version 7" in result.output


def test_cli_export_to_standard_output(app):
    result = app.test_cli_runner().invoke(args=["export"])
    assert result.exit_code == 0
    assert json.loads(result.output)["games"] == []


def test_a_100_mb_upload_gets_the_app_message_with_csrf_on_too(csrf_app):
    # With CSRF on, the size check fires while the token is read, before the view runs.
    boundary, body = encode_multipart(
        {"backup": FileStorage(io.BytesIO(b" " * (100 * 1024 * 1024)), "backup.json")}
    )
    response = csrf_app.test_client().post(
        "/history/restore", data=body, content_type=f"multipart/form-data; boundary={boundary}"
    )
    assert response.status_code == 413
    assert "backups up to 100 MB can be restored" in response.get_data(as_text=True)


# --------------------------------------------------------------------------------------------
# The schema and its messages
# --------------------------------------------------------------------------------------------


def test_the_schema_is_valid_json_schema_and_names_every_stored_round_field():
    schema = exchange_schema.schema()
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["format"]["const"] == exchange.FORMAT
    assert exchange.VERSION in schema["properties"]["version"]["enum"] == [1, 2]
    round_keys = set(schema["$defs"]["round"]["properties"])
    entry_keys = set(schema["$defs"]["entry"]["properties"])
    assert round_keys == {*snapshots.ROUND_FIELDS, "entries"}
    assert entry_keys == {"seat", *snapshots.SEAT_FIELDS}


def test_a_valid_backup_has_no_problems(ctx, backup_file):
    data = backup_file()
    assert exchange.shape_problems(data) == []
    assert exchange.content_problems(data) == []


def set_round(game: int, position: int, **fields):
    return lambda d: d["games"][game]["rounds"][position - 1].update(fields)


def set_entry(game: int, number: int, seat: int, **fields):
    return lambda d: d["games"][game]["rounds"][number - 1]["entries"][seat].update(fields)


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        (
            set_entry(0, 2, 1, bid="two"),
            ["game 1, round 2: a bid must be empty or a whole number from 0 to 20."],
        ),
        (
            # The limit is the game's: 4 players hold at most 15 cards.
            set_entry(1, 3, 0, tricks=16.0),
            ["game 2, round 3: tricks must be empty or a whole number from 0 to 15."],
        ),
        (
            lambda d: d["games"][1].pop("created_at"),
            ["game 2: a date is not valid."],
        ),
        (
            set_round(2, 1, werewolf_played=1, dealer=6),
            [
                "game 3, round 1: the dealer must be a seat from 0 to 2.",
                "game 3, round 1: whether the Werewolf was played must be true or false.",
            ],
        ),
        (
            lambda d: d["games"][0]["rounds"].__setitem__(1, [1, 2]),
            ["game 1, round 2: not a round record."],
        ),
        (
            # 1.0 is not the whole number 1 (JSON Schema alone would take it).
            set_round(0, 1, number=1.0),
            ["game 1, round 1: rounds must be numbered 1, 2, 3 …"],
        ),
        (
            # Used to be a server error: an unhashable status.
            lambda d: d["games"][0].update(status=["finished"]),
            ["game 1: unknown game status."],
        ),
        (lambda d: d.pop("players"), ["the list of players is missing."]),
    ],
)
def test_each_schema_error_is_one_sentence_with_its_place(ctx, backup_file, change, problems):
    data = backup_file()
    change(data)
    with pytest.raises(exchange.ImportProblem) as refused:
        exchange.parse(json.dumps(data).encode())
    assert list(refused.value.problems) == problems


def test_rule_checks_follow_the_schema_and_keep_their_messages(ctx, backup_file):
    data = backup_file()
    data["games"][2]["seats"][1] = "Ann"  # Ann now sits twice in game 3
    data["games"][0]["history"][1]["version"] = 2  # the same version as the first change
    data["games"][1]["rounds"][0]["hand_size"] = 16  # 4 players: at most 15 cards
    with pytest.raises(exchange.ImportProblem) as refused:
        exchange.parse(json.dumps(data).encode())
    assert list(refused.value.problems) == [
        "game 1: two history entries have the same version.",
        "game 2, round 1: the cards must be 1 to 15.",
        "game 3: a player sits twice.",
    ]


def test_many_problems_are_cut_to_a_readable_list(ctx, backup_file):
    data = backup_file()
    for game in data["games"]:  # 3 + 5 + 2 rounds
        for round_ in game["rounds"]:
            round_["state"] = "done"
    with pytest.raises(exchange.ImportProblem) as refused:
        exchange.parse(json.dumps(data).encode())
    problems = refused.value.problems
    assert len(problems) == exchange.MAX_PROBLEMS_SHOWN + 1
    assert problems[0] == "game 1, round 1: unknown round state."
    assert problems[-1] == "… and 2 more problems."


# --------------------------------------------------------------------------------------------
# Hostile or odd backups (issue 12)
# --------------------------------------------------------------------------------------------


def fresh_instance(tmp_path, name: str = "fresh"):
    """A second, empty instance of the app (its own SQLite file)."""
    other = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / name}.db"))
    with other.app_context():
        db.create_all()
    return other


def secret_game_with_bids_in(client) -> int:
    """A secret-bid game: round 1 scored (bids 1, 0, 0), round 2's bids in (2, 0, 1)."""
    game_id = new_game(bid_rule="free", bid_reveal="secret")
    play.play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    play.trump(client, game_id, 2)
    response = play.post(client, game_id, "rounds/2/bids", {"bid_0": 2, "bid_1": 0, "bid_2": 1})
    assert response.status_code == 303
    return game_id


def snapshot_bids(game: dict, number: int) -> list:
    """Every bid and Cloud bid of round ``number`` in a game record's history entries."""
    found = []
    for change in game["history"]:
        for state in (change["before"], change.get("after")):
            for snapshot in (state or {}).get("rounds", []):
                if snapshot["number"] == number:
                    for key in ("bids", "cloud_bid"):
                        found += snapshots.seat_values(snapshot.get(key)).values()
    return found


def test_the_backup_hides_unrevealed_secret_bids_like_the_game_export(ctx, client):
    game_id = secret_game_with_bids_in(client)
    backup = json.loads(client.get("/history/backup.json").data)
    (game,) = backup["games"]
    assert [(e.get("bid"), e.get("cloud_bid")) for e in game["rounds"][1]["entries"]] == [
        (None, None)
    ] * 3
    assert snapshot_bids(game, 2)
    assert set(snapshot_bids(game, 2)) == {None}
    # The scored round keeps its bids: in the round (its history keeps what each change
    # found before it; what the bids became is the round as written).
    assert [e["bid"] for e in game["rounds"][0]["entries"]] == [1, 0, 0]
    exported = json.loads(client.get(f"/history/{game_id}/export.json").data)["games"][0]
    assert (exported["rounds"], exported["history"]) == (game["rounds"], game["history"])
    assert json.loads(exchange.backup_json())["games"][0]["rounds"] == game["rounds"]


def test_a_restored_secret_round_comes_back_without_its_bids_and_can_be_bid_again(
    ctx, client, tmp_path
):
    secret_game_with_bids_in(client)
    backup = client.get("/history/backup.json").data
    other = fresh_instance(tmp_path)
    with other.app_context():
        assert exchange.import_file(backup).games_added == 1
        game_id = db.session.scalar(sa.select(Game.id))
        round_2 = db.session.scalar(sa.select(Round).filter_by(game_id=game_id, number=2))
        assert round_2.state == "bidding"
        assert [(e.bid, e.cloud_bid) for e in round_2.entries] == [(None, None)] * 3
        again = other.test_client()
        response = play.post(again, game_id, "rounds/2/bids", {"bid_0": 1, "bid_1": 1, "bid_2": 0})
        assert response.status_code == 303
        assert play.tricks(again, game_id, 2, {0: 1, 1: 1, 2: 0}).status_code == 303
        db.engine.dispose()


def test_a_restored_secret_jester_bid_round_gets_its_zeros_back(ctx, client, tmp_path):
    game_id = new_game(bid_rule="free", bid_reveal="secret", jester_bid=True)
    play.trump(client, game_id, 1)
    backup = client.get("/history/backup.json").data
    entries = json.loads(backup)["games"][0]["rounds"][0]["entries"]
    assert [e.get("bid") for e in entries] == [None] * 3
    other = fresh_instance(tmp_path)
    with other.app_context():
        exchange.import_file(backup)
        game_id = db.session.scalar(sa.select(Game.id))
        assert play.tricks(other.test_client(), game_id, 1, {0: 1, 1: 0, 2: 0}).status_code == 303
        round_1 = db.session.scalar(sa.select(Round).filter_by(game_id=game_id, number=1))
        assert [(e.bid, e.tricks) for e in round_1.entries] == [(0, 1), (0, 0), (0, 0)]
        db.engine.dispose()


def test_times_with_an_offset_are_stored_as_that_moment_in_utc(db_ctx):
    seed_variety()
    data = json.loads(exchange.backup_json())
    game = data["games"][0]
    game.update(uid="offset", live_token=None, created_at="2024-05-01T21:30:15.123456+02:00")
    game["history"][0]["created_at"] = "2024-05-01T14:30:15-05:00"
    data["games"] = [game]
    data["players"].append({"name": "Zed", "created_at": "2024-05-02T01:00:00+05:30"})
    exchange.import_file(json.dumps(data).encode())
    again = json.loads(exchange.backup_json())
    (stored,) = [g for g in again["games"] if g["uid"] == "offset"]
    assert stored["created_at"] == "2024-05-01T19:30:15.123456+00:00"
    assert stored["history"][0]["created_at"] == "2024-05-01T19:30:15.000000+00:00"
    zed = next(p for p in again["players"] if p["name"] == "Zed")
    assert zed["created_at"] == "2024-05-01T19:30:00.000000+00:00"


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00"])
def test_a_time_that_is_out_of_range_in_utc_is_refused(ctx, backup_file, when):
    data = backup_file()
    data["games"][0]["created_at"] = when
    with pytest.raises(exchange.ImportProblem) as refused:
        exchange.parse(json.dumps(data).encode())
    assert list(refused.value.problems) == ["game 1: a date is not valid."]


def test_a_decomposed_name_is_the_same_player_and_is_stored_composed(db_ctx):
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    make_game([composed, "Bob", "Cy"], ROUNDS, game_rules=THREE)
    data = json.loads(exchange.backup_json())
    data["players"] = [{"name": decomposed}, {"name": "Bob"}, {"name": "Cy"}, {"name": "Di"}]
    data["players"].append({"name": "Ren\u0065\u0301"})
    game = data["games"][0]
    game.update(uid="nfd", live_token=None, seats=[decomposed, "Bob", "Ren\u00e9"])
    result = exchange.import_file(json.dumps(data).encode())
    assert (result.games_added, result.players_added) == (1, 2)
    names = db.session.scalars(sa.select(Player.name).order_by(Player.id)).all()
    assert names == [composed, "Bob", "Cy", "Di", "Ren\u00e9"]


@pytest.mark.parametrize("name", ["Ann\x00", "\x00Ann", "An\x1bn", "A\tnn", "Ann\x85"])
def test_a_name_with_a_control_character_is_refused(db_app, name):
    with db_app.app_context():
        data = json.loads(exchange.dumps(exchange.envelope("backup", [], [])))
        before = counts()
    data["players"] = [{"name": "Bob"}, {"name": name}]
    response = restore_upload(db_app.test_client(), json.dumps(data).encode())
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "player 2: the name can only hold letters, digits and signs." in page
    with db_app.app_context():
        assert counts() == before


def refused_problems(data) -> list[str]:
    with pytest.raises(exchange.ImportProblem) as refused:
        exchange.parse(data if isinstance(data, bytes) else json.dumps(data).encode())
    return list(refused.value.problems)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: d["games"][0].update(version=2**63),
            "game 1: the version must be at most 2147483647.",
        ),
        (
            lambda d: d["games"][0]["history"][-1].update(version=2**31),
            "game 1: a history entry is not valid.",
        ),
        (
            lambda d: d["games"][0]["history"][-1].update(round_number=2**15),
            "game 1: a history entry is not valid.",
        ),
        (
            lambda d: d["games"][0]["rounds"][0].update(number=2**15),
            "game 1, round 1: rounds must be numbered 1, 2, 3 …",
        ),
        (
            lambda d: d["games"][0].update(uid="x" * 37),
            "game 1: the game identifier must be 1 to 36 characters among a-z, A-Z, 0-9, - and _.",
        ),
        (
            lambda d: d["games"][0].update(uid='x"\r\nSet-Cookie: a=b'),
            "game 1: the game identifier must be 1 to 36 characters among a-z, A-Z, 0-9, - and _.",
        ),
        (
            lambda d: d["games"][0].update(uid="zo\u00eb"),
            "game 1: the game identifier must be 1 to 36 characters among a-z, A-Z, 0-9, - and _.",
        ),
        (
            lambda d: d["games"][0].update(live_token="a/b\x00"),
            "game 1: the live link token is not valid.",
        ),
        (
            lambda d: d["players"][0].update(name=" " * 100_000 + "Ann"),
            # Refused before it is decoded: no real player record is that long.
            "player 1: longer than any real record (1 KB): nothing was read further.",
        ),
        (
            lambda d: d["games"][0]["rounds"][0].update(trump="\x00" * 8),
            "game 1, round 1: the trump is not valid.",
        ),
        (
            lambda d: d["games"][0]["rounds"][0].update(trump_cause="hearts"),
            "game 1, round 1: the trump is not valid.",
        ),
    ],
)
def test_numbers_and_texts_beyond_what_the_database_holds_are_refused(
    ctx, backup_file, change, problem
):
    data = backup_file()
    change(data)
    assert refused_problems(data) == [problem]


def test_a_uid_that_would_break_the_download_header_is_refused_not_stored(client, app):
    data = valid_backup(app)
    data["games"] = data["games"][:1]
    data["games"][0]["uid"] = "a\nb"
    assert restore_upload(client, json.dumps(data).encode()).status_code == 422
    with app.app_context():
        assert db.session.scalar(sa.select(Game.id).where(Game.uid == "a\nb")) is None


def test_a_number_with_thousands_of_digits_is_refused_with_a_message(ctx):
    body = b'{"format": "wizard-scorekeeper", "version": 1, "players": [], "games": [], "x": '
    assert refused_problems(body + b"9" * 5000 + b"}") == [
        "This file holds a number too long to read."
    ]


def test_a_file_with_too_many_players_is_refused_at_once(client, app):
    players = [{"name": f"P{n}"} for n in range(600_000)]
    body = json.dumps({"format": "wizard-scorekeeper", "version": 1, "players": players})
    # Encoded in memory: the test client would spool it to a file it never closes.
    boundary, form = encode_multipart(
        {"backup": FileStorage(io.BytesIO(body.encode()), "backup.json")}
    )
    started = time.perf_counter()
    response = client.post(
        "/history/restore", data=form, content_type=f"multipart/form-data; boundary={boundary}"
    )
    elapsed = time.perf_counter() - started
    assert response.status_code == 422
    assert (
        "This file lists more than 10000 players; at most 10000 can be restored at once."
        in response.get_data(as_text=True)
    )
    assert elapsed < 10, f"took {elapsed:.1f} s"


def test_a_file_with_too_many_games_or_rounds_is_refused_before_its_records_are_read(
    ctx, backup_file
):
    data = backup_file()
    data["games"] = [{}] * 100_001
    assert refused_problems(data) == [
        "This file lists more than 100000 games; at most 100000 can be restored at once."
    ]
    data = backup_file()
    data["games"][1]["rounds"] = [{}] * 61
    data["games"][2]["history"] = [{}] * 100_001
    assert refused_problems(data) == [
        "game 2: it has 61 rounds; a game has at most 60.",
        "game 3: its history has 100001 entries; a game has at most 100000.",
    ]


def test_the_schema_states_the_limits_the_early_checks_use():
    schema = exchange_schema.schema()
    game = schema["$defs"]["game"]["properties"]
    assert schema["properties"]["players"]["maxItems"] == exchange_schema.MAX_PLAYERS
    assert schema["properties"]["games"]["maxItems"] == exchange_schema.MAX_GAMES
    assert game["rounds"]["maxItems"] == exchange_schema.MAX_ROUNDS
    assert game["history"]["maxItems"] == exchange_schema.MAX_HISTORY
    assert game["version"] == {"$ref": "#/$defs/version"}
    assert schema["$defs"]["version"]["maximum"] == exchange_schema.MAX_VERSION == 2**31 - 1
    assert set(schema["$defs"]["suit"]["enum"]) == {*rules.Suit, None}
    assert set(schema["$defs"]["cause"]["enum"]) == {*rules.TrumpCause, None}


def test_restore_looks_players_and_games_up_in_chunks(db_ctx, monkeypatch):
    seed_variety()
    backup = exchange.backup_json().encode()
    monkeypatch.setattr(sys.modules["scorekeeper.exchange.restore"], "LOOKUP_CHUNK", 2)
    queries = []
    sa.event.listen(db.engine, "before_cursor_execute", lambda *args: queries.append(args[2]))
    result = exchange.import_file(backup)
    assert (result.games_skipped, result.players_added) == (3, 0)
    looked_up = [q for q in queries if " IN (" in q.upper() or "= ANY" in q.upper()]
    assert len(looked_up) >= 4  # 5 players and 3 games, 2 at a time


def entry_of(data: dict, position: int) -> dict:
    """History entry ``position`` (from 1) of the first game: the start, then the correction."""
    return data["games"][0]["history"][position - 1]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        # An empty "before" made undo a server error.
        (
            lambda d: entry_of(d, 2).update(before={}),
            "game 1, history entry 2: the state before the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2).update(before=None),
            "game 1, history entry 2: the state before the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2).pop("after"),
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2)["after"]["rounds"][0].pop("state"),
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2)["after"]["rounds"][0].update(tricks=[0, "2", 0]),
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2)["after"].update(status="won"),
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2)["after"].update(finished_at="yesterday"),
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2)["before"].update({"x" * 65: 1}),
            "game 1, history entry 2: the state before the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 1).update(before={"status": "in_progress", "rounds": []}),
            "game 1, history entry 1: the state before the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 1)["after"].pop("players"),
            "game 1, history entry 1: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2).update(action="undo"),  # an undo names what it undid
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        (
            lambda d: entry_of(d, 2).update(action="edit_plan"),  # and a plan edit its plan
            "game 1, history entry 2: the state after the change is not as the app records it.",
        ),
        # What the schema cannot see: the game's seats, cards and rules.
        (
            lambda d: entry_of(d, 2)["before"]["rounds"][0].update(bids=[0, 1]),
            "game 1, history entry 2: a round it records does not fit the game's seats and cards.",
        ),
        (
            lambda d: entry_of(d, 2)["before"]["rounds"][0].update(dealer=4),
            "game 1, history entry 2: a round it records does not fit the game's seats and cards.",
        ),
        (
            lambda d: entry_of(d, 2)["before"]["rounds"][0].update(cloud_seat=5),
            "game 1, history entry 2: a round it records does not fit the game's seats and cards.",
        ),
        (
            lambda d: entry_of(d, 2)["before"]["rules"].update(players=4),
            "game 1, history entry 2: the rules it records are not valid for this game.",
        ),
        (
            lambda d: entry_of(d, 2)["after"]["rules"].update(bid_rule="strict"),
            "game 1, history entry 2: the rules it records are not valid for this game.",
        ),
        (
            lambda d: entry_of(d, 1)["after"].update(first_dealer=3),
            "game 1, history entry 1: the start it records does not fit the game's seats and "
            "rules.",
        ),
        (
            lambda d: entry_of(d, 1)["after"].update(players=["Ann", "B\x00b", "Cy"]),
            "game 1, history entry 1: the start it records does not fit the game's seats and "
            "rules.",
        ),
        (
            lambda d: entry_of(d, 1)["after"].update(players=["Ann", "Bob"]),
            "game 1, history entry 1: the start it records does not fit the game's seats and "
            "rules.",
        ),
        (
            lambda d: entry_of(d, 2).update(
                action="undo",
                after={**entry_of(d, 2)["after"], "undoes": 2, "undone_action": "bid"},
            ),
            "game 1, history entry 2: it undoes a change that is not earlier in its history.",
        ),
    ],
)
def test_a_history_entry_must_be_what_the_app_records(ctx, backup_file, change, problem):
    data = backup_file(version=1)
    change(data)
    assert refused_problems(data) == [problem]


@pytest.mark.parametrize(
    ("versions", "game_version", "problem"),
    [
        # A history version above the game's made every later write to it "changed on another
        # phone" (409), for ever.
        ([2, 4], 3, "game 1: its version (3) must be that of its latest history entry (4)."),
        ([1, 2], 3, "game 1: its version (3) must be that of its latest history entry (2)."),
        ([2, 2], 3, "game 1: two history entries have the same version."),
    ],
)
def test_history_versions_end_at_the_game_s_version(
    ctx, backup_file, versions, game_version, problem
):
    data = backup_file()
    data["games"][0]["version"] = game_version
    for entry, version in zip(data["games"][0]["history"], versions, strict=True):
        entry["version"] = version
    assert refused_problems(data) == [problem]


def test_history_entries_are_stored_in_version_order(ctx):
    data = valid_backup(ctx)
    data["games"][0]["history"].reverse()
    exchange.import_file(json.dumps(data).encode())
    game = db.session.scalar(sa.select(Game).where(Game.uid == data["games"][0]["uid"]))
    assert [change.version for change in game.changes] == [2, 3]


def play_a_game_with_every_kind_of_change(client) -> int:
    """A custom-plan game through the app: bids, a bid taken back, a correction, an undo, a
    plan edit, and the end; every kind of history entry the table writes."""
    game_id = new_game(
        bid_rule="plus_minus_one", plan=rules.RoundPlan("custom", custom=(1, 2, 3, 3))
    )
    play.play_round(client, game_id, 1, 0, [1, 1, 1], [1, 0, 0])
    correction = play.correction([1, 1, 1], [0, 1, 0])
    assert play.post(client, game_id, "rounds/1/edit", correction).status_code == 303
    assert play.post(client, game_id, "undo", {}).status_code == 303
    assert play.post(client, game_id, "plan", {"later": "2"}).status_code == 303
    play.trump(client, game_id, 2)
    play.bid(client, game_id, 2, 2, 1)
    assert play.post(client, game_id, "rounds/2/take-back", {}).status_code == 303
    play.bid(client, game_id, 2, 2, 0)
    play.bid(client, game_id, 2, 0, 1)
    play.bid(client, game_id, 2, 1, 0)
    assert play.tricks(client, game_id, 2, {0: 1, 1: 0, 2: 1}).status_code == 303
    assert play.post(client, game_id, "undo", {}).status_code == 303
    assert play.post(client, game_id, "abandon", {}).status_code == 303
    return game_id


def test_a_game_played_through_the_app_restores_and_undo_still_works(ctx, client, tmp_path):
    play_a_game_with_every_kind_of_change(client)
    backup = client.get("/history/backup.json").data
    actions = [c["action"] for c in json.loads(backup)["games"][0]["history"]]
    assert set(actions) >= {"create_game", "set_trump", "bid", "take_back_bid", "record_round"}
    assert set(actions) >= {"edit_round", "undo", "edit_plan", "abandon"}
    other = fresh_instance(tmp_path)
    with other.app_context():
        assert exchange.import_file(backup).games_added == 1
        assert exchange.backup_json().encode() == backup
        game_id = db.session.scalar(sa.select(Game.id))
        again = other.test_client()
        assert play.post(again, game_id, "undo", {}).status_code == 303  # the abandon
        assert play.post(again, game_id, "undo", {}).status_code == 303  # round 2's tricks
        db.session.expire_all()
        assert db.session.get(Game, game_id).status == "in_progress"
        db.engine.dispose()


def test_history_written_by_older_versions_of_the_app_still_imports(ctx):
    # Before Cloud seats, finish times and plan edits, snapshots and states had fewer keys.
    data = valid_backup_v1(ctx)
    for state in (entry_of(data, 2)["before"], entry_of(data, 2)["after"]):
        del state["finished_at"], state["rules"]
        del state["rounds"][0]["cloud_seat"]
    assert exchange.import_file(json.dumps(data).encode()).games_added == 3


def test_the_schema_names_every_field_of_a_history_snapshot():
    defs = exchange_schema.schema()["$defs"]
    seat_lists = {snapshots.snapshot_key(name) for name in snapshots.SEAT_FIELDS}
    assert set(defs["snapshot"]["properties"]) == {*snapshots.ROUND_FIELDS, *seat_lists}
    assert set(defs["snapshot"]["required"]) == {"number"}
    assert set(defs["snapshot_v1"]["properties"]) == {*snapshots.ROUND_FIELDS, *seat_lists}
    assert set(defs["snapshot_v1"]["required"]) == set(defs["snapshot_v1"]["properties"]) - {
        "cloud_seat"
    }
    undoable = {str(action) for action in ChangeAction} - {"create_game", "undo"}
    assert set(defs["extras"]["properties"]["undone_action"]["enum"]) == undoable
    assert set(defs["state_v1"]["properties"]["undone_action"]["enum"]) == undoable


ODD_VALUES = [None, True, 0, -1, 1.5, 2**31, 7, "", "x" * 70, "hearts", "2024-13-01", [], {}, [1]]


def paths_in(node, path=()):
    """Every place in a JSON document, as a path of keys and indices."""
    yield path
    if isinstance(node, dict | list):
        for key, child in node.items() if isinstance(node, dict) else enumerate(node):
            yield from paths_in(child, (*path, key))


def mutate(data, path, rng) -> None:
    """Put an odd value at ``path`` (or drop the key), if an earlier change left it there."""
    parent = data
    for depth, key in enumerate(path):
        inner = depth < len(path) - 1
        holds = isinstance(parent, dict) and isinstance(key, str) and (key in parent or not inner)
        holds = holds or (isinstance(parent, list) and isinstance(key, int) and key < len(parent))
        if not holds:
            return
        if inner:
            parent = parent[key]
    last = path[-1]
    if isinstance(parent, dict) and rng.random() < 0.2:
        parent.pop(last, None)
    else:
        parent[last] = rng.choice(ODD_VALUES)


def test_the_quick_check_judges_every_file_as_jsonschema_does(ctx, backup_file):
    import random

    base = backup_file()
    base["games"] = base["games"][:2]
    places = list(paths_in(base))[1:]
    quick, full = exchange_schema.quick_check(), exchange_schema.validator()
    rng = random.Random(12)
    refused = 0
    for _ in range(600):
        data = json.loads(json.dumps(base))
        for path in rng.sample(places, rng.choice((1, 1, 2))):
            mutate(data, path, rng)
        assert quick(data) == full.is_valid(data), data
        refused += not quick(data)
    assert 300 < refused < 600  # both kinds of file were tried


def test_the_quick_check_refuses_to_compile_a_keyword_it_does_not_know():
    with pytest.raises(ValueError, match="additionalProperties"):
        exchange_schema._compile({"type": "object", "additionalProperties": False})


CANADIAN = rules.GameRules(
    players=3, plan=rules.RoundPlan("first_n", rounds=3), bid_rule="canadian"
)
# Round 1 as first saved (Bob missed), and as corrected (Bob made it: he now leads alone).
ROUND_1_SAVED, ROUND_1_CORRECTED = ((0, 1, 0), (0, 0, 1)), ((0, 1, 0), (0, 1, 0))
# Round 2, dealt by Bob, who bid last: 1 + 0 + 1 = 2 cards, forbidden to a leader.
ROUND_2 = ((1, 1, 0), (1, 1, 0))


def recorded(number: int, bids: tuple, tricks: tuple) -> dict:
    """The history entry of round ``number`` of a CANADIAN game being saved, as the app
    records it: the round being played before, scored after, and the next round dealt."""
    empty = [None, None, None]
    return {
        "action": "record_round",
        "round_number": number,
        "before": state(snapshot(number, list(bids), empty, "playing"), status="in_progress"),
        "after": state(
            snapshot(number, list(bids), list(tricks)),
            snapshot(number + 1, empty, empty, "bidding"),
            status="in_progress",
        ),
    }


def corrected(number: int, was: tuple, now: tuple) -> dict:
    """The history entry of a correction of round ``number``: (bids, tricks) before, after."""
    return {
        "action": "edit_round",
        "round_number": number,
        "before": state(snapshot(number, *map(list, was)), status="in_progress"),
        "after": state(snapshot(number, *map(list, now)), status="in_progress"),
    }


def canadian_backup(app, changes: list[dict]) -> dict:
    with app.app_context():
        make_game(
            ["Ann", "Bob", "Cy"],
            [ROUND_1_CORRECTED, ROUND_2],
            game_rules=CANADIAN,
            changes=changes,
        )
        data = json.loads(exchange.backup_json())
    version_1(app, data)
    with app.app_context():
        db.session.query(Game).delete()
        db.session.commit()
    for change in data["games"][0]["history"]:
        for side in ("before", "after"):
            change[side]["rules"] = CANADIAN.to_dict()
    return data


RECORD_1 = recorded(1, *ROUND_1_SAVED)
RECORD_2 = recorded(2, *ROUND_2)
EDIT_1 = corrected(1, ROUND_1_SAVED, ROUND_1_CORRECTED)


def test_a_bid_made_forbidden_by_a_later_correction_of_an_earlier_round_is_accepted(app):
    data = canadian_backup(app, [RECORD_1, RECORD_2, EDIT_1])
    with app.app_context():
        assert exchange.import_file(json.dumps(data).encode()).games_added == 1


@pytest.mark.parametrize(
    "changes",
    [
        [],  # no history: nothing shows the bid was allowed when it was made
        [RECORD_1, EDIT_1, RECORD_2],  # the correction came first: round 2 was bid after it
        [RECORD_1, RECORD_2, EDIT_1, corrected(2, ROUND_2, ROUND_2)],
    ],
)
def test_a_forbidden_bid_without_a_later_correction_is_refused(app, changes):
    data = canadian_backup(app, changes)
    problems = refused_problems(data)
    assert len(problems) == 1
    assert problems[0].startswith("game 1, round 2: it breaks the rules of the game: ")


def test_a_plus_minus_one_round_whose_bids_add_up_is_refused(ctx):
    plus = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=3))
    make_game(["Ann", "Bob", "Cy"], ROUNDS[:1], game_rules=plus)
    data = json.loads(exchange.backup_json())
    data["games"][0]["uid"] = "plus-minus-one"
    problems = refused_problems(data)
    assert len(problems) == 1
    assert problems[0].startswith("game 1, round 1: it breaks the rules of the game: ")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            set_round(0, 2, hand_size=3),
            "game 1, round 2: the plan deals 2 cards in this round, not 3.",
        ),
        (
            lambda d: d["games"][2]["rules"]["plan"].update(rounds=1),
            "game 3, round 2: the game's plan has only 1 round.",
        ),
        (
            lambda d: d["games"][0].update(status="in_progress"),
            "game 1: every round of its plan is scored: the game is over, not in progress.",
        ),
        (
            lambda d: d["games"][1].update(status="finished"),
            "game 2: a finished game must have all 10 rounds of its plan scored.",
        ),
        (
            set_round(0, 3, state="playing"),
            "game 1: a finished game must have all 3 rounds of its plan scored.",
        ),
        (
            set_round(1, 4, state="playing"),
            "game 2: only its last round can be still unscored.",
        ),
        (
            set_round(2, 1, state="bidding"),
            "game 3: only its last round can be still unscored.",
        ),
    ],
)
def test_rounds_must_follow_the_plan_and_the_game_s_status(ctx, backup_file, change, problem):
    data = backup_file()
    change(data)
    assert refused_problems(data) == [problem]


def test_an_abandoned_game_may_stop_anywhere_and_a_custom_plan_is_the_current_one(
    ctx, backup_file
):
    data = backup_file()
    data["games"][2]["status"] = "abandoned"  # both its rounds played: abandoned anyway
    data["games"][1]["status"] = "abandoned"  # round 5 still being bid
    # A custom plan whose later rounds were changed: the stored plan is the one in force.
    data["games"][2]["rules"]["plan"] = {"kind": "custom", "custom": [1, 2, 7]}
    assert exchange.content_problems(data) == []


ALREADY = "This backup was already restored: nothing new to add."


def test_a_second_restore_of_the_same_file_says_it_was_already_restored(db_ctx):
    seed_variety()
    backup = exchange.backup_json().encode()
    before = counts()
    result = exchange.import_file(backup)
    assert result.already_restored
    assert (result.games_added, result.players_added, result.games_skipped) == (0, 0, 3)
    assert result.message == ALREADY
    assert counts() == before


def test_a_restore_that_adds_something_is_not_already_restored(db_ctx):
    seed_variety()
    data = json.loads(exchange.backup_json())
    data["games"][0]["version"] += 1  # the same game, changed since: skipped, but not "already"
    data["games"][0]["history"][-1]["version"] += 1
    result = exchange.import_file(json.dumps(data).encode())
    assert not result.already_restored
    assert result.message == "Restored: 0 games added, 0 players added; 3 games were already here."
    data["players"].append({"name": "Newcomer"})
    result = exchange.import_file(json.dumps(data).encode())
    assert (result.already_restored, result.players_added) == (False, 1)


def backup_of_new_games(app, prefix: str) -> bytes:
    """A backup of a variety of games, renamed (identifiers, live links) so that all of
    them are new to the instance it was made on."""
    with app.app_context():
        seed_variety()
        data = json.loads(exchange.backup_json())
    for number, game in enumerate(data["games"]):
        game.update(uid=f"{prefix}-{number}", live_token=f"{prefix}{number:028d}")
    return json.dumps(data).encode()


def test_the_second_of_two_simultaneous_restores_of_one_file_is_already_restored(db_app):
    """A double-tapped upload: if both requests looked the games up before either stored
    them, the second one's insert would clash with the first one's; restores take turns,
    so the second looks after the first has committed (the wait at the barrier gives up)."""
    body = backup_of_new_games(db_app, "twin")
    module = sys.modules["scorekeeper.exchange.restore"]
    real_lookup = module.present_versions
    both_looked = threading.Barrier(2)
    outcome = {}

    def lookup(uids):
        found = real_lookup(uids)
        if threading.current_thread().name.startswith("tap"):
            threading.current_thread().name = "looked"
            with contextlib.suppress(threading.BrokenBarrierError):
                both_looked.wait(timeout=2)
        return found

    def tap(name):
        with db_app.app_context():
            try:
                outcome[name] = exchange.import_file(body)
            except Exception as error:  # the old answer: a "clash" ImportProblem
                outcome[name] = error

    module.present_versions = lookup
    try:
        taps = [threading.Thread(target=tap, args=(n,), name=f"tap{n}") for n in (1, 2)]
        for thread in taps:
            thread.start()
        for thread in taps:
            thread.join(timeout=30)
    finally:
        module.present_versions = real_lookup
    results = sorted(outcome.values(), key=lambda r: getattr(r, "games_added", -1))
    assert [type(r) for r in results] == [exchange.ImportResult] * 2, results
    assert [(r.games_added, r.already_restored) for r in results] == [(0, True), (3, False)]
    assert results[0].message == ALREADY
    with db_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 6


@pytest.fixture
def quick_busy_app(database_config: dict, sqlite_tables) -> Iterator[Flask]:
    """db_app with SQLite's busy timeout at 1 s instead of 5 (the same path, sooner)."""
    yield from _app_with_tables(
        make_config(**database_config, SQLITE_BUSY_TIMEOUT_MS=1000), sqlite_tables
    )


def test_a_restore_behind_a_long_one_waits_for_it_and_is_already_restored(quick_busy_app):
    """The second of two restores of one file, sent while the first is still writing and
    held up longer than a save waits for the database (SQLite's busy timeout, here 1 s,
    twice: the retry): it waits for the first one, then finds its games — "already
    restored", nothing stored twice — instead of a refusal. (PostgreSQL waits on the rows
    anyway.)"""
    db_app = quick_busy_app
    with db_app.app_context():
        timeout = db_app.config["SQLITE_BUSY_TIMEOUT_MS"] / 1000
        hold = 2 * timeout + 1 if db.engine.dialect.name == "sqlite" else 2
        if db.engine.dialect.name == "sqlite":  # the setting reaches every connection
            assert db.session.execute(sa.text("PRAGMA busy_timeout")).scalar() == 1000
    body = backup_of_new_games(db_app, "long")
    module = sys.modules["scorekeeper.exchange.restore"]
    real_events = module._restore_events
    written = threading.Event()
    outcome = {}

    def slow_events(records):
        real_events(records)
        if threading.current_thread().name == "first":
            written.set()  # its games are written, not committed: held past the busy timeout
            time.sleep(hold)

    def restore(name):
        with db_app.app_context():
            try:
                outcome[name] = exchange.import_file(body)
            except Exception as error:
                outcome[name] = error

    module._restore_events = slow_events
    try:
        first = threading.Thread(target=restore, args=("first",), name="first")
        first.start()
        assert written.wait(timeout=30)
        second = threading.Thread(target=restore, args=("second",), name="second")
        second.start()
        for thread in (first, second):
            thread.join(timeout=60)
    finally:
        module._restore_events = real_events
    assert isinstance(outcome["first"], exchange.ImportResult), outcome
    assert isinstance(outcome["second"], exchange.ImportResult), outcome
    assert (outcome["first"].games_added, outcome["second"].games_added) == (3, 0)
    assert outcome["second"].message == ALREADY
    with db_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 6


def test_a_real_clash_still_says_so(db_ctx):
    seed_variety()
    data = json.loads(exchange.backup_json())
    taken = data["games"][0]["live_token"]
    data["games"] = data["games"][1:2]
    data["games"][0].update(uid="another-game", live_token=taken)
    with pytest.raises(exchange.ImportProblem) as refused:
        exchange.import_file(json.dumps(data).encode())
    assert list(refused.value.problems) == [
        "This file clashes with data already here (a live link or history entry)."
    ]


def test_a_second_upload_of_a_restored_file_is_not_an_error_on_the_page(client, app):
    body = json.dumps(valid_backup(app)).encode()
    assert restore_upload(client, body).status_code == 303
    with app.app_context():
        before = counts()
    response = restore_upload(client, body)
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "clashes" not in page
    with app.app_context():
        assert counts() == before


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(version="\ud800"),
        lambda d: d["players"][0].update(name="Ann\ud800"),
        lambda d: d["games"][0]["rules"].update(bid_rule="\udfff"),
        lambda d: entry_of(d, 1)["after"].update(players=["Ann\ud800", "Bob", "Cy"]),
        lambda d: entry_of(d, 2)["before"].update({"note\udc00": 1}),
    ],
)
def test_text_no_encoding_can_hold_is_refused_wherever_it_is(client, app, change):
    data = valid_backup(app)
    change(data)
    body = json.dumps(data).encode()  # ASCII, with the surrogate as an escape: \\ud800
    with app.app_context():
        before = counts()
    response = restore_upload(client, body)
    assert response.status_code == 422
    assert "This file holds text that is not valid Unicode" in response.get_data(as_text=True)
    with app.app_context():
        assert counts() == before


def test_a_file_with_emoji_written_as_surrogate_pairs_is_read(ctx):
    data = valid_backup(ctx)
    data["players"].append({"name": "Ann \U0001f600"})
    body = json.dumps(data).encode()
    assert b"\\ud83d\\ude00" in body
    assert exchange.import_file(body).players_added == 1
    assert "Ann \U0001f600" in db.session.scalars(sa.select(Player.name)).all()


@pytest.mark.parametrize(
    "change",
    [
        # Undo of the correction would put round 2 back unscored, before scored round 3.
        lambda d: entry_of(d, 2)["before"]["rounds"][0].update(state="playing"),
        # ... or scored without its tricks.
        lambda d: entry_of(d, 2)["before"]["rounds"][0].update(tricks=[0, None, 1]),
        # ... or drop round 2 (it is in "after" only), leaving rounds 1 and 3.
        lambda d: entry_of(d, 2)["before"].update(rounds=[]),
    ],
)
def test_a_history_whose_undo_would_break_the_game_is_refused(client, app, change):
    data = valid_backup_v1(app)
    change(data)
    assert refused_problems(data) == [
        "game 1, history entry 2: undoing it would leave the game's rounds out of order or "
        "incomplete."
    ]


def test_every_undo_a_restored_history_allows_leaves_a_game_the_pages_can_show(
    ctx, client, tmp_path
):
    play_a_game_with_every_kind_of_change(client)
    backup = client.get("/history/backup.json").data
    other = fresh_instance(tmp_path)
    with other.app_context():
        exchange.import_file(backup)
        game_id = db.session.scalar(sa.select(Game.id))
        again = other.test_client()
        while play.post(again, game_id, "undo", {}).status_code == 303:
            assert again.get(f"/history/{game_id}").status_code == 200
            assert again.get("/history/").status_code == 200
        db.engine.dispose()


# --------------------------------------------------------------------------------------------
# A compact history (format version 2)
# --------------------------------------------------------------------------------------------


def play_standard_four_player_game(client) -> int:
    """A standard 4-player game (15 rounds) played through the round screen: trump (unless
    the last round's), four bids and the tricks of each round."""
    four = rules.GameRules(players=4)
    game_id = new_game(["Ann", "Bob", "Cara", "Dan"], 0)
    for number, (bids, took) in enumerate(random_rounds(four, seed=1), start=1):
        db.session.expire_all()
        round_ = db.session.get(Game, game_id).rounds[-1]
        if round_.trump_cause is None:
            assert play.trump(client, game_id, number).status_code == 303
        for step in range(4):
            seat = (round_.dealer + 1 + step) % 4
            assert play.bid(client, game_id, number, seat, bids[seat]).status_code == 303
        assert play.tricks(client, game_id, number, dict(enumerate(took))).status_code == 303
    return game_id


def test_a_standard_four_player_game_with_its_history_backs_up_in_20_kb(ctx, client):
    game_id = play_standard_four_player_game(client)
    body = client.get("/history/backup.json").data
    (game,) = json.loads(body)["games"]
    assert game["status"] == "finished"
    assert len(game["history"]) == 90  # the start, 14 trumps, 60 bids, 15 rounds recorded
    assert len(body) <= 20 * 1024, len(body)  # version 1 wrote about 233 KB
    assert db.session.get(Game, game_id).version == 90


def test_a_change_stores_only_what_it_touched(ctx, client):
    game_id = new_game(["Ann", "Bob", "Cy"], 0, bid_rule="free")
    play.trump(client, game_id, 1)
    play.bid(client, game_id, 1, 1, 1)
    changes = db.session.get(Game, game_id).changes
    trump, bid = changes[1], changes[2]
    assert trump.before == {"rounds": [{"number": 1, "trump": None, "trump_cause": None}]}
    assert trump.after == {"rounds": [{"number": 1, "trump": "hearts", "trump_cause": "suit"}]}
    assert bid.before == {"rounds": [{"bids": {"1": None}, "number": 1}]}
    assert bid.after == {"rounds": [{"bids": {"1": 1}, "number": 1}]}
    # The last bid also starts the play; the tricks deal the next round and name it whole.
    play.bid(client, game_id, 1, 2, 0)
    play.bid(client, game_id, 1, 0, 0)
    play.tricks(client, game_id, 1, {0: 0, 1: 1, 2: 0})
    db.session.expire_all()
    record = db.session.get(Game, game_id).changes[-1]
    assert record.before == {
        "rounds": [{"number": 1, "state": "playing", "tricks": [None, None, None]}]
    }
    assert record.after["rounds"][0] == {"number": 1, "state": "scored", "tricks": [0, 1, 0]}
    assert record.after["rounds"][1]["number"] == 2
    assert record.after["rounds"][1]["bids"] == [None, None, None]


def test_compacting_keeps_a_full_snapshot_s_meaning_and_is_stable():
    was = snapshot(2, [0, 1, 1], [0, 1, 1])
    now = snapshot(2, [0, 1, 1], [0, 2, 0])
    before, after = snapshots.compact_states(state(was), state(now))
    assert before == {"rounds": [{"number": 2, "tricks": [0, 1, 1]}]}
    assert after == {"rounds": [{"number": 2, "tricks": [0, 2, 0]}]}
    assert snapshots.compact_states(before, after) == (before, after)
    # The status goes with its finish time; one seat that changed is named alone.
    one = snapshot(2, [0, 1, 1], [0, 1, 1])
    before, after = snapshots.compact_states(
        state(was, status="in_progress"), state({**one, "bids": [0, 1, 2]})
    )
    assert before["status"] == "in_progress"
    assert before["finished_at"] is None
    assert after["finished_at"] == "2024-05-01T20:30:15.123456+00:00"
    assert (before["rounds"][0]["bids"], after["rounds"][0]["bids"]) == ({"2": 1}, {"2": 2})


def history_page(client, game_id: int) -> str:
    """The game page's history, as text (the forms' tokens differ between sessions)."""
    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    history = page.split('id="changes-heading"')[1].split("</section>")[0]
    return " ".join(re.sub(r"<[^>]+>", " ", history).split())


def test_a_compact_backup_restores_an_exact_history_that_undo_walks_back(ctx, client, tmp_path):
    play_a_game_with_every_kind_of_change(client)
    game_id = db.session.scalar(sa.select(Game.id))
    shown = history_page(client, game_id)
    assert "Round 1 recorded" in shown
    backup = client.get("/history/backup.json").data
    assert json.loads(backup)["version"] == 2
    other = fresh_instance(tmp_path)
    with other.app_context():
        assert exchange.import_file(io.BytesIO(backup)).games_added == 1
        restored = db.session.scalar(sa.select(Game.id))
        again = other.test_client()
        assert history_page(again, restored) == shown
        assert again.get("/history/backup.json").data == backup
        sheets = []
        while play.post(again, restored, "undo", {}).status_code == 303:
            sheets.append(again.get(f"/games/{restored}/sheet").status_code)
        assert sheets
        assert set(sheets) == {200}
        db.engine.dispose()


def test_undo_through_a_compact_history_gives_back_each_earlier_state(ctx, client):
    game_id = play_standard_four_player_game(client)
    seen = []
    while True:
        db.session.expire_all()
        game = db.session.get(Game, game_id)
        seen.append(
            (
                game.status,
                [snapshots.round_snapshot(r) for r in game.rounds],
            )
        )
        if play.post(client, game_id, "undo", {}).status_code != 303:
            break
    # Every undo stepped back one change: the last state is the game as it started.
    assert seen[0][0] == "finished"
    assert seen[-1][0] == "in_progress"
    first = seen[-1][1]
    assert len(first) == 1
    assert first[0]["state"] == "bidding"
    assert first[0]["trump"] is None
    assert len(seen) == 90  # 89 changes undone, then nothing left to undo


def test_a_live_token_shorter_than_the_app_makes_them_is_refused_with_its_place(ctx, backup_file):
    data = backup_file()
    data["games"][1]["live_token"] = "a"
    assert refused_problems(data) == ["game 2: the live link token is not valid."]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"format":"wizard-scorekeeper","version":2,"players":[],"games":[],"extra":1}',
            "This file has a key the format does not know at its top level: “extra”.",
        ),
        (
            '{"format":"wizard-scorekeeper","format":"wizard-scorekeeper","version":2}',
            "The key “format” appears twice at the top level of this file.",
        ),
        (
            '{"format":"wizard-scorekeeper","version":2,"players":[{"name":"'
            + "x" * 2000
            + '"}],"games":[]}',
            "player 1: longer than any real record (1 KB): nothing was read further.",
        ),
    ],
)
def test_a_file_is_refused_as_it_is_read_at_the_first_key_or_record_out_of_bounds(text, problem):
    assert refused_problems(text.encode()) == [problem]


def test_players_and_games_past_their_limits_are_not_read_on(ctx):
    # Counted as they come: the refusal names the limit, not the whole file's count.
    players = ",".join(["0"] * 10_001)
    text = f'{{"format":"wizard-scorekeeper","version":2,"players":[{players}],"games":[]}}'
    assert refused_problems(text.encode()) == [
        "This file lists more than 10000 players; at most 10000 can be restored at once."
    ]
    huge = '{"format":"wizard-scorekeeper","version":2,"players":[],"games":[[' + "0," * 1_200_000
    assert refused_problems((huge + "0]]}").encode()) == [
        "game 1: longer than any real record (2048 KB): nothing was read further."
    ]


@pytest.fixture(scope="module")
def club_backup(tmp_path_factory) -> bytes:
    """A club of 60 games with their whole histories (1.1 MB), as the app exports it."""
    return seeded_club_backup(tmp_path_factory.mktemp("club"), 60)


def test_a_club_backup_restores_through_the_page_whatever_its_reads_end_on(
    club_backup, client, app
):
    """A read of the upload that ends on a line break used to be refused as too large
    (Werkzeug's form memory limit, then 64 KB, applied to the file part's buffer)."""
    content_type, body = upload_ending_a_read_on_a_line_break({}, club_backup)
    response = client.post("/history/restore", data=body, content_type=content_type)
    assert response.status_code == 303, response.get_data(as_text=True)[-3000:]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 60
        assert exchange.backup_json().encode() == club_backup
