"""Renaming and merging players: statistics, ladder, undo, import and the page's refusals."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

import pytest
import sqlalchemy as sa

from scorekeeper import exchange, queries, ratings, roster, rules
from scorekeeper.extensions import db
from scorekeeper.models import (
    HandResult,
    Ladder,
    Player,
    PlayerAlias,
    PlayerChange,
    Seat,
    SeatResult,
)
from scorekeeper.reports.stats import player_stats
from tests.factories import BASE_TIME, make_game, random_rounds
from tests.test_stats import oracle_games

NAMES = ["Ann", "Bob", "Cy", "Soenke", "Sönke"]


def play_games(count: int = 24, seed: int = 3) -> None:
    """Random finished and unfinished games among NAMES in which Soenke and Sönke never sit
    together (the same person typed two ways)."""
    rng = random.Random(seed)
    for n in range(count):
        me = "Soenke" if n % 2 else "Sönke"
        seated = [*rng.sample(["Ann", "Bob", "Cy"], rng.randint(2, 3)), me]
        rng.shuffle(seated)
        plan = rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=rng.randint(1, 3))
        game_rules = rules.GameRules(players=len(seated), plan=plan, bid_rule="free")
        rounds = random_rounds(game_rules, seed=n)
        make_game(
            seated,
            rounds if n % 5 else rounds[:-1],
            game_rules=game_rules,
            created_at=BASE_TIME + timedelta(hours=n),
            commit=False,
        )
    db.session.commit()


def ids() -> dict[str, int]:
    return dict(db.session.execute(sa.select(Player.name, Player.id)).all())


def every_stats() -> dict[int, object]:
    return {pid: queries.player_stats(pid, []) for pid in ids().values()}


def ladder_rows() -> list[tuple]:
    table = ratings.standings(ratings.ALL_TIME, None, 1)
    return [
        (s.player_id, s.name, round(s.rating.mu, 9), round(s.rating.sigma, 9), s.games, s.wins)
        for s in (*table.ranked, *table.unranked)
    ]


def stored_facts() -> dict[str, list[tuple]]:
    """The roster as stored: players, seats, aliases, and the seat results' players."""
    return {
        "players": sorted(
            db.session.execute(sa.select(Player.id, Player.name, Player.name_key)).all()
        ),
        "created": sorted(db.session.execute(sa.select(Player.id, Player.created_at)).all()),
        "seats": sorted(
            db.session.execute(
                sa.select(Seat.id, Seat.game_id, Seat.player_id, Seat.position)
            ).all()
        ),
        "aliases": sorted(
            db.session.execute(sa.select(PlayerAlias.name_key, PlayerAlias.player_id))
        ),
        "results": sorted(
            db.session.execute(
                sa.select(SeatResult.game_id, SeatResult.seat, SeatResult.player_id)
            ).all()
        ),
        "hands": sorted(
            db.session.execute(
                sa.select(HandResult.game_id, HandResult.seat, HandResult.player_id)
            ).all()
        ),
    }


def test_statistics_after_a_merge_are_those_of_the_union_of_the_games(db_ctx):
    play_games()
    before = ids()
    soenke, sonke = before["Soenke"], before["Sönke"]
    union = {g.game_id for g in oracle_games(soenke)} | {g.game_id for g in oracle_games(sonke)}
    # The stored results and the ladder exist before the merge: they must follow it.
    every_stats()
    ladder_rows()
    db.session.rollback()

    roster.merge(soenke, sonke, "merge-1")

    assert "Soenke" not in ids()
    games = oracle_games(sonke)
    assert {g.game_id for g in games} == union
    for name, pid in ids().items():
        assert queries.player_stats(pid, []) == player_stats(pid, oracle_games(pid)), name
    merged = queries.player_stats(sonke, [])
    assert merged.games == len(union)
    assert not any(
        line.player_id == soenke for line in queries.player_stats(before["Ann"], []).head_to_head
    )
    # The ladder is rated again over the moved games: the same as one computed afresh.
    db.session.rollback()
    merged_ladder = ladder_rows()
    assert soenke not in {row[0] for row in merged_ladder}
    db.session.execute(sa.delete(Ladder))
    db.session.commit()
    assert ladder_rows() == merged_ladder


def test_undoing_the_merge_restores_both_players_exactly(db_ctx):
    play_games()
    soenke, sonke = ids()["Soenke"], ids()["Sönke"]
    roster.rename(sonke, "Sönke K.", "rename-0")  # an alias of the survivor before the merge
    stats_before, ladder_before = every_stats(), ladder_rows()
    db.session.rollback()
    facts_before = stored_facts()

    change = roster.merge(soenke, sonke, "merge-1")
    db.session.rollback()
    assert stored_facts() != facts_before
    assert ladder_rows() != ladder_before
    roster.undo(change.id, "undo-1")
    db.session.rollback()

    assert stored_facts() == facts_before
    assert every_stats() == stats_before
    db.session.rollback()
    assert ladder_rows() == ladder_before
    assert db.session.get(PlayerChange, change.id).undone_at is not None


def test_undo_is_refused_while_a_later_change_concerns_the_same_players(db_ctx):
    play_games(count=6)
    soenke, sonke = ids()["Soenke"], ids()["Sönke"]
    merge = roster.merge(soenke, sonke, "merge-1")
    rename = roster.rename(sonke, "Sönke K.", "rename-1")
    with pytest.raises(roster.RosterRefused) as refused:
        roster.undo(merge.id, "undo-1")
    assert refused.value.reason == roster.Refusal.LATER_CHANGE
    roster.undo(rename.id, "undo-2")
    roster.undo(merge.id, "undo-3")
    assert {"Soenke", "Sönke"} <= set(ids())
    with pytest.raises(roster.RosterRefused) as again:
        roster.undo(merge.id, "undo-4")
    assert again.value.reason == roster.Refusal.ALREADY_UNDONE


def test_undo_of_a_merge_is_refused_when_the_old_name_is_taken_again(db_ctx):
    play_games(count=4)
    change = roster.merge(ids()["Soenke"], ids()["Sönke"], "merge-1")
    make_game(["Soenke", "Ann", "Bob"])  # typed again at setup: a new player
    with pytest.raises(roster.RosterRefused) as refused:
        roster.undo(change.id, "undo-1")
    assert refused.value.reason == roster.Refusal.NAME_TAKEN_SINCE


def test_merging_players_who_played_together_is_refused_and_stores_nothing(db_ctx):
    make_game(["Ann", "Bob", "Cy"])
    facts = stored_facts()
    with pytest.raises(roster.RosterRefused) as refused:
        roster.merge(ids()["Ann"], ids()["Bob"], "merge-1")
    assert refused.value.reason == roster.Refusal.PLAYED_TOGETHER
    assert stored_facts() == facts
    assert db.session.scalar(sa.select(sa.func.count()).select_from(PlayerChange)) == 0


def test_a_double_tap_merges_once(db_ctx):
    play_games(count=4)
    soenke, sonke = ids()["Soenke"], ids()["Sönke"]
    first = roster.merge(soenke, sonke, "merge-1")
    with pytest.raises(roster.AlreadyApplied) as twin:
        roster.merge(soenke, sonke, "merge-1")
    assert twin.value.change.id == first.id


def test_import_after_a_merge_or_rename_creates_no_duplicate(db_ctx):
    play_games(count=6)
    backup = exchange.backup_json()
    one_game = json.loads(exchange.game_json(db.session.scalars(queries.game_query()).first()))
    roster.merge(ids()["Soenke"], ids()["Sönke"], "merge-1")
    roster.rename(ids()["Ann"], "Anna", "rename-1")
    players = sorted(ids())

    result = exchange.import_file(backup.encode())
    assert (result.players_added, result.games_added, result.already_restored) == (0, 0, True)
    assert sorted(ids()) == players

    # A new game that names the old names goes to the players they now belong to.
    one_game["games"][0]["uid"] = "00000000-0000-4000-8000-000000000001"
    one_game["games"][0]["live_token"] = None
    names = one_game["games"][0]["seats"]
    result = exchange.import_file(json.dumps(one_game).encode())
    assert (result.players_added, result.games_added) == (0, 1)
    assert sorted(ids()) == players
    new_id = db.session.scalar(sa.select(Seat.game_id).order_by(Seat.game_id.desc()).limit(1))
    seated = db.session.scalars(
        sa.select(Player.name).join(Seat).where(Seat.game_id == new_id).order_by(Seat.position)
    ).all()
    current = {"Ann": "Anna", "Soenke": "Sönke"}
    assert seated == [current.get(name, name) for name in names]


def test_a_file_game_seating_both_merged_names_is_refused_with_a_reason(db_ctx):
    make_game(["Soenke", "Ann", "Bob"])
    make_game(["Sönke", "Ann", "Bob"], created_at=BASE_TIME + timedelta(days=1))
    together = json.loads(exchange.game_json(db.session.scalars(queries.game_query()).first()))
    game = together["games"][0]
    game["uid"] = "00000000-0000-4000-8000-000000000002"
    game["live_token"] = None
    game["seats"] = ["Soenke", "Ann", "Sönke"]
    together["players"].append({"name": "Sönke"})
    roster.merge(ids()["Soenke"], ids()["Sönke"], "merge-1")
    players = sorted(ids())
    with pytest.raises(exchange.ImportProblem) as problem:
        exchange.import_file(json.dumps(together).encode())
    assert "one player here" in problem.value.problems[0]
    assert sorted(ids()) == players


def test_rename_checks_the_name_as_setup_does(db_ctx):
    make_game(["Ann", "Bob", "Cy"])
    ann = ids()["Ann"]
    with pytest.raises(roster.RosterRefused) as taken:
        roster.rename(ann, "  BOB ", "r1")
    assert taken.value.reason == roster.Refusal.NAME_TAKEN
    with pytest.raises(roster.RosterRefused) as same:
        roster.rename(ann, " Ann ", "r2")
    assert same.value.reason == roster.Refusal.SAME_NAME
    change = roster.rename(ann, "ann", "r3")  # only the case: no alias needed
    assert change.before["aliases"] == []
    roster.undo(change.id, "u3")
    assert "Ann" in ids()


# --- the pages -------------------------------------------------------------------------------


def test_rename_on_the_page_shows_at_once_everywhere_and_can_be_undone(client, ctx):
    make_game(["Ann", "Bob", "Cy"])
    ann = ids()["Ann"]
    assert "Ann" in client.get(f"/players/{ann}").get_data(as_text=True)  # kept per data version
    assert "Ann" in client.get("/history/").get_data(as_text=True)
    page = client.get(f"/players/{ann}/edit").get_data(as_text=True)
    assert f'action="/players/{ann}/rename"' in page

    answer = client.post(
        f"/players/{ann}/rename", data={"name": " Anna  Lena ", "request_key": "k1"}
    )
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Renamed from Ann to Anna Lena." in page
    assert ">Anna Lena</h1>" in client.get(f"/players/{ann}").get_data(as_text=True)
    assert "Anna Lena" in client.get("/history/").get_data(as_text=True)

    change = db.session.scalar(sa.select(PlayerChange.id))
    answer = client.post(f"/players/{ann}/changes/{change}/undo", data={"request_key": "k2"})
    assert answer.status_code == 303
    assert ">Ann</h1>" in client.get(f"/players/{ann}").get_data(as_text=True)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("   ", "Type a name first."),
        ("A\x00b", "A name can only hold letters, digits and signs."),
        ("x" * 41, "A name has at most 40 characters."),
        ("bob", "There is already a player named Bob."),
        ("Ann", "Ann is the name already."),
    ],
)
def test_a_refused_rename_says_why_next_to_the_field_and_stores_nothing(
    client, ctx, name, message
):
    make_game(["Ann", "Bob", "Cy"])
    ann = ids()["Ann"]
    answer = client.post(f"/players/{ann}/rename", data={"name": name, "request_key": "k1"})
    assert answer.status_code == 422
    page = answer.get_data(as_text=True)
    assert re.search(
        r'<p class="field-error" id="name-error" role="alert">[^<]*' + re.escape(message), page
    )
    assert 'aria-invalid="true"' in page
    assert sorted(ids()) == ["Ann", "Bob", "Cy"]
    assert db.session.scalar(sa.select(sa.func.count()).select_from(PlayerChange)) == 0


def test_merge_on_the_page_and_its_refusal(client, ctx):
    make_game(["Ann", "Bob", "Soenke"])
    make_game(["Ann", "Cy", "Sönke"], created_at=BASE_TIME + timedelta(days=1))
    soenke, sonke, ann = ids()["Soenke"], ids()["Sönke"], ids()["Ann"]

    refused = client.post(f"/players/{soenke}/merge", data={"into": ann, "request_key": "k0"})
    assert refused.status_code == 422
    assert "Soenke and Ann played in the same game (May 1, 2024)" in refused.get_data(as_text=True)
    unchosen = client.post(f"/players/{soenke}/merge", data={"into": "", "request_key": "k0"})
    assert "Choose the player to merge into." in unchosen.get_data(as_text=True)

    answer = client.post(f"/players/{soenke}/merge", data={"into": sonke, "request_key": "k1"})
    assert answer.headers["Location"] == f"/players/{sonke}/edit"
    page = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Soenke merged into Sönke." in page
    # The merged player's saved link leads to the player kept.
    assert client.get(f"/players/{soenke}").headers["Location"] == f"/players/{sonke}"
    # A double tap lands on the same page, and merges nothing more.
    again = client.post(f"/players/{soenke}/merge", data={"into": sonke, "request_key": "k1"})
    assert again.headers["Location"] == f"/players/{sonke}/edit"

    change = db.session.scalar(sa.select(PlayerChange.id))
    assert f'action="/players/{sonke}/changes/{change}/undo"' in page
    client.post(f"/players/{sonke}/changes/{change}/undo", data={"request_key": "k2"})
    assert client.get(f"/players/{soenke}").status_code == 200
