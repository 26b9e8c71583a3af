"""Issue 21 against stored data and files: games stored before the rules changes show the same
sheet and totals; the new options go through export, backup and restore; inconsistent files
are refused with their place."""

import csv
import io
import json

import pytest

from scorekeeper import exchange, records, rules
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests import play_helpers as play
from tests.factories import make_game, new_game, random_rounds
from tests.test_exchange import fresh_instance, restore_upload

NAMES = {3: ["Ann", "Bob", "Cy"], 4: ["Ann", "Bob", "Cy", "Dan"]}
NAMES[5] = [*NAMES[4], "Eve"]
NAMES[6] = [*NAMES[5], "Flo"]

# The rules of a game of each plan exactly as the code before issue 21 stored them
# (GameRules.to_dict then): no plan start, no bid_rule_from, the on/off tie-break.
# With them, the hand sizes that code dealt.
BEFORE = [
    ({"kind": "standard"}, 3, tuple(range(1, 21))),
    ({"kind": "first_n", "rounds": 5}, 4, (1, 2, 3, 4, 5)),
    ({"kind": "quick"}, 3, (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 20)),
    ({"kind": "quick"}, 4, (1, 3, 5, 7, 9, 11, 13, 15)),
    ({"kind": "quick"}, 5, (1, 3, 5, 7, 9, 11, 12)),
    ({"kind": "quick"}, 6, (1, 3, 5, 7, 9, 10)),
    ({"kind": "tournament"}, 5, (2, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
    ({"kind": "maximus"}, 6, (10, 10, 10, 10, 10)),
    ({"kind": "custom", "custom": [1, 3, 2]}, 3, (1, 3, 2)),
]


def rules_as_stored_before(plan: dict, players: int, tie_break_by_bids: bool) -> dict:
    return {
        "players": players,
        "plan": plan,
        "bid_rule": "plus_minus_one",
        "bid_reveal": "open",
        "saboteur": False,
        "jester_bid": False,
        "jubilee": {
            "bomb": False,
            "cloud": False,
            "werewolf": False,
            "dragon": False,
            "fairy": False,
            "bomb_cancels_bids": False,
        },
        "table_notes": ["juggler"],
        "tie_break_by_bids": tie_break_by_bids,
    }


def points(bid: int, took: int) -> int:
    """The score of one bid, counted here by hand (not by the rules module)."""
    return 20 + 10 * took if bid == took else -10 * abs(bid - took)


@pytest.mark.parametrize(("plan", "players", "sizes"), BEFORE)
def test_a_game_stored_before_shows_the_same_sheet_and_totals(ctx, client, plan, players, sizes):
    stored = rules_as_stored_before(plan, players, tie_break_by_bids=True)
    game_rules = rules.GameRules.from_dict(stored)
    assert game_rules.hand_sizes == sizes
    facts = random_rounds(game_rules, seed=players)
    game = make_game(NAMES[players], facts, game_rules=game_rules)
    # The row as the code before wrote it, not as this code would.
    game.rules = stored
    db.session.commit()
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game.rules == stored
    sheet = records.sheet_of(game)
    expected = [sum(points(bids[s], took[s]) for bids, took in facts) for s in range(players)]
    assert list(sheet.totals) == expected
    assert [row.hand_size for row in sheet.rows] == list(sizes)
    assert sheet.finished
    best = max(expected)
    leaders = [s for s in range(players) if expected[s] == best]
    bid_sums = [sum(bids[s] for bids, _ in facts) for s in range(players)]
    top_bids = max(bid_sums[s] for s in leaders)
    assert list(sheet.winners) == [s for s in leaders if bid_sums[s] == top_bids]
    page = client.get(f"/history/{game.id}").get_data(as_text=True)
    assert ", ".join(str(size) for size in sizes) in page
    for total in expected:
        assert str(abs(total)) in page


def test_an_old_backup_restores_with_the_hand_sizes_it_was_played_with(ctx, tmp_path):
    stored = rules_as_stored_before({"kind": "quick"}, 3, tie_break_by_bids=False)
    game_rules = rules.GameRules.from_dict(stored)
    game = make_game(NAMES[3], random_rounds(game_rules, seed=3), game_rules=game_rules)
    game.rules = stored
    db.session.commit()
    totals = records.sheet_of(game).totals
    backup = exchange.backup_json()
    other = fresh_instance(tmp_path)
    with other.app_context():
        result = exchange.import_file(backup.encode())
        assert result.games_added == 1
        restored = db.session.scalar(db.select(Game))
        assert restored.rules == stored
        assert records.sheet_of(restored).totals == totals
        assert records.rules_of(restored).hand_sizes[:2] == (1, 3)
        assert exchange.backup_json() == backup
        db.engine.dispose()


def finished_game_with_every_new_option() -> int:
    """A finished game of 1, 3 and 3 cards under ±1 from 3 cards, the tie-break by bids met,
    the Cloud and the Juggler: Ann and Bob end level, Ann met more bids."""
    game_rules = rules.GameRules(
        3,
        plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 3, 3)),
        bid_rule=rules.BidRule.PLUS_MINUS_ONE,
        bid_rule_from=3,
        tie_break=rules.TieBreak.BIDS_MET,
        jubilee=rules.JubileeCards(cloud=True),
        table_notes=("juggler",),
    )
    facts = [
        ((0, 0, 1), (0, 1, 0)),  # 1 card, Ann deals: free, so her 0 may make the bids even
        ((0, 2, 2), (0, 2, 1)),  # 3 cards
        ((0, 1, 1), (0, 1, 2)),  # 60, 60, -30: level; bids met 3 to 2 (bid sums 0 to 3)
    ]
    game = make_game(NAMES[3], facts, game_rules=game_rules)
    return game.id


def test_every_new_option_round_trips_through_export_backup_and_restore(ctx, client, tmp_path):
    game_id = finished_game_with_every_new_option()
    game = db.session.get(Game, game_id)
    sheet = records.sheet_of(game)
    assert sheet.totals == (60, 60, -30)
    assert sheet.bids_met == (3, 2, 0)
    assert sheet.bid_sums == (0, 3, 4)
    assert sheet.winners == (0,)
    exported = json.loads(client.get(f"/history/{game_id}/export.json").get_data(as_text=True))
    written = exported["games"][0]["rules"]
    assert (written["bid_rule_from"], written["tie_break"]) == (3, "bids_met")
    assert exported["games"][0]["result"]["winners"] == ["Ann"]
    text = client.get(f"/history/{game_id}/export.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert [row["bid_rule"] for row in rows if row["seat"] == "1"] == [
        "free",
        "plus_minus_one",
        "plus_minus_one",
    ]
    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    assert "±1 from 3 cards" in page
    assert "Ann wins on the tie-break: 3 bids met to 2" in page
    backup = exchange.backup_json()
    other = fresh_instance(tmp_path)
    with other.app_context():
        assert exchange.import_file(backup.encode()).games_added == 1
        restored = db.session.scalar(db.select(Game))
        assert records.rules_of(restored) == records.rules_of(game)
        assert records.sheet_of(restored) == sheet
        assert exchange.backup_json() == backup
        db.engine.dispose()


def backup_of_the_new_options(app) -> dict:
    with app.app_context():
        finished_game_with_every_new_option()
        data = json.loads(exchange.backup_json())
    game = data["games"][0]
    game["uid"] = "00000000-0000-0000-0000-000000000021"
    game.pop("live_token")
    return data


def cloud_holder_without_a_trick(data: dict) -> None:
    # Round 2: the Cloud went to Cy (bid 2 → 1), who took no trick in this version.
    round_ = data["games"][0]["rounds"][1]
    round_["cloud_seat"] = 2
    for entry, took in zip(round_["entries"], (2, 1, 0), strict=True):
        entry["tricks"] = took
    round_["entries"][2]["cloud_bid"] = 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["games"][0]["rules"].update(bid_rule="free"),
            "its rules are not valid: Only ±1 and Canadian can start from a hand size, not Free.",
        ),
        (
            lambda d: d["games"][0]["rules"].update(bid_rule_from=21),
            "its rules are not valid: The bid rule can start from 1 to 20 cards with this many"
            " players, not 21.",
        ),
        (
            lambda d: d["games"][0]["rules"].update(tie_break_by_bids=True),
            "its rules are not valid: The tie-break is given twice and the two do not agree",
        ),
        (
            lambda d: d["games"][0]["rules"].update(bid_rule_from=1),
            "round 1: it breaks the rules of the game: ±1",
        ),
        (
            lambda d: d["games"][0]["rules"].update(plan={"kind": "quick", "start": 3}),
            "its rules are not valid: Quick play starts with 1 or 2 cards, not 3.",
        ),
        (
            cloud_holder_without_a_trick,
            "round 2: it breaks the rules of the game: seat 3 has the Cloud, so won its trick",
        ),
    ],
)
def test_an_inconsistent_file_is_refused_with_its_place(client, app, change, message):
    data = backup_of_the_new_options(app)
    change(data)
    response = restore_upload(client, json.dumps(data).encode())
    page = response.get_data(as_text=True)
    assert response.status_code == 422, page
    assert message in page.replace("&#39;", "'")
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 1


def test_the_trump_step_of_the_last_round_asks_for_the_card_with_the_juggler(ctx, client):
    game_id = new_game(
        bid_rule="free",
        plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(20,)),
        table_notes=("juggler",),
    )
    game = db.session.get(Game, game_id)
    assert game.rounds[0].trump_cause is None, "not filled in as 'no card left'"
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Jester" in page
    assert "No card left" not in page


def test_play_again_after_a_game_stored_before_deals_quick_play_as_published(ctx, client):
    stored = rules_as_stored_before({"kind": "quick"}, 3, tie_break_by_bids=True)
    game_rules = rules.GameRules.from_dict(stored)
    game = make_game(NAMES[3], random_rounds(game_rules, seed=1), game_rules=game_rules)
    game.rules = stored
    db.session.commit()
    response = play.post(client, game.id, "again", {"request_key": "again-21"})
    assert response.status_code == 303
    again = db.session.scalar(db.select(Game).where(Game.previous_game_id == game.id))
    assert again.rules["plan"] == {"kind": "quick", "start": 2}
    assert again.rules["tie_break"] == "bid_sum"
    assert records.rules_of(db.session.get(Game, game.id)).hand_sizes[0] == 1


def test_rules_read_once_per_stored_value_tell_equal_looking_values_apart():
    """records.stored_rules keeps one reading per stored value: values that compare equal
    but are not the same JSON (True and 1, 4 and 4.0) are read each on their own, and one
    that does not read is refused every time, not remembered."""
    assert records.stored_rules({"players": 4, "saboteur": True}).saboteur is True
    with pytest.raises(rules.RulesError):
        records.stored_rules({"players": 4, "saboteur": 1})
    with pytest.raises(rules.RulesError):
        records.stored_rules({"players": 4, "saboteur": 1})
    assert records.stored_rules({"players": 4}).players == 4
    with pytest.raises(rules.RulesError):
        records.stored_rules({"players": 4.0})
    text = json.dumps({"players": 5, "plan": {"kind": "custom", "custom": [1, 2]}})
    assert records.stored_rules_text(text).plan.custom == (1, 2)
    assert records.stored_rules_text(text) is records.stored_rules_text(text)
