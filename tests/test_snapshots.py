"""The round codec: history snapshots (undo) and export records from one list of fields."""

import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper import snapshots
from scorekeeper.extensions import db
from scorekeeper.models import Entry, Round
from tests.factories import make_game

maybe_count = st.none() | st.integers(0, 20)
maybe_word = st.none() | st.sampled_from(["clubs", "hearts", "none", "wizard", "jester"])


@st.composite
def stored_rounds(draw: st.DrawFn) -> Round:
    """Any round the database can hold, with an entry for every seat."""
    players = draw(st.integers(3, 6))
    round_ = Round(
        number=draw(st.integers(1, 20)),
        hand_size=draw(st.integers(1, 20)),
        dealer=draw(st.integers(0, players - 1)),
        state=draw(st.sampled_from(["bidding", "playing", "scored"])),
        trump=draw(maybe_word),
        trump_cause=draw(maybe_word),
        werewolf_played=draw(st.booleans()),
        werewolf_trump=draw(maybe_word),
        bomb_played=draw(st.booleans()),
        cloud_seat=draw(st.none() | st.integers(0, players - 1)),
    )
    for seat in range(players):
        round_.entries.append(
            Entry(
                seat=seat,
                bid=draw(maybe_count),
                cloud_bid=draw(maybe_count),
                tricks=draw(maybe_count),
            )
        )
    return round_


def scored_round() -> Round:
    round_ = Round(
        number=2,
        hand_size=2,
        dealer=1,
        state="scored",
        trump="hearts",
        trump_cause="suit",
        werewolf_played=False,
        werewolf_trump=None,
        bomb_played=True,
        cloud_seat=0,
    )
    for seat, (bid, cloud, tricks) in enumerate([(1, 2, 1), (0, None, 0), (1, None, 0)]):
        round_.entries.append(Entry(seat=seat, bid=bid, cloud_bid=cloud, tricks=tricks))
    return round_


def test_a_snapshot_has_the_history_format_stored_databases_hold():
    assert snapshots.round_snapshot(scored_round()) == {
        "number": 2,
        "hand_size": 2,
        "dealer": 1,
        "state": "scored",
        "trump": "hearts",
        "trump_cause": "suit",
        "werewolf_played": False,
        "werewolf_trump": None,
        "bomb_played": True,
        "cloud_seat": 0,
        "bids": [1, 0, 1],
        "cloud_bid": [2, None, None],
        "tricks": [1, 0, 0],
    }


def test_an_export_record_has_the_documented_format():
    assert snapshots.round_export(scored_round()) == {
        "number": 2,
        "hand_size": 2,
        "dealer": 1,
        "state": "scored",
        "trump": "hearts",
        "trump_cause": "suit",
        "werewolf_played": False,
        "werewolf_trump": None,
        "bomb_played": True,
        "cloud_seat": 0,
        "entries": [
            {"seat": 0, "bid": 1, "cloud_bid": 2, "tricks": 1},
            {"seat": 1, "bid": 0, "cloud_bid": None, "tricks": 0},
            {"seat": 2, "bid": 1, "cloud_bid": None, "tricks": 0},
        ],
    }


def test_hiding_bids_blanks_bids_and_cloud_bids_only():
    hidden = snapshots.round_export(scored_round(), hide_bids=True)
    assert [(e["bid"], e["cloud_bid"], e["tricks"]) for e in hidden["entries"]] == [
        (None, None, 1),
        (None, None, 0),
        (None, None, 0),
    ]
    snap = snapshots.hide_snapshot_bids(snapshots.round_snapshot(scored_round()))
    assert (snap["bids"], snap["cloud_bid"], snap["tricks"]) == (
        [None, None, None],
        [None, None, None],
        [1, 0, 0],
    )
    # Hand-made history entries without the lists are left as they are.
    assert snapshots.hide_snapshot_bids({"number": 1}) == {"number": 1}


@given(stored_rounds())
def test_snapshot_then_apply_gives_the_same_round(round_):
    data = snapshots.round_snapshot(round_)
    copy = Round(number=round_.number)
    snapshots.apply_snapshot(copy, data)
    assert snapshots.round_snapshot(copy) == data
    assert snapshots.round_export(copy) == snapshots.round_export(round_)


@given(stored_rounds())
def test_export_then_import_gives_the_same_round(round_):
    data = snapshots.round_export(round_)
    copy = snapshots.round_from_export(data)
    assert snapshots.round_export(copy) == data
    assert snapshots.round_snapshot(copy) == snapshots.round_snapshot(round_)


def test_apply_writes_onto_the_stored_entries_like_undo(ctx):
    game = make_game(["Ann", "Bob", "Cy"], [((1, 0, 0), (1, 0, 0)), ((0, 1, 1), (0, 2, 0))])
    round_ = game.rounds[1]
    before = snapshots.round_snapshot(round_)
    entry_ids = [entry.id for entry in round_.entries]
    round_.state, round_.trump = "playing", "spades"
    for entry in round_.entries:
        entry.bid, entry.tricks = 2, None
    db.session.commit()
    snapshots.apply_snapshot(round_, before)
    db.session.commit()
    db.session.expire_all()
    stored = db.session.get(Round, round_.id)
    assert snapshots.round_snapshot(stored) == before
    assert [entry.id for entry in stored.entries] == entry_ids


def test_an_older_snapshot_without_newer_fields_takes_the_column_defaults():
    round_ = scored_round()
    snapshots.apply_snapshot(
        round_,
        {"number": 2, "hand_size": 2, "dealer": 1, "state": "playing", "bids": [0, 1, 1]},
    )
    assert (round_.werewolf_played, round_.bomb_played, round_.trump) == (False, False, None)
    assert [(e.bid, e.cloud_bid, e.tricks) for e in round_.entries] == [
        (0, None, None),
        (1, None, None),
        (1, None, None),
    ]


def test_a_round_missing_a_seat_keeps_the_lists_indexed_by_seat():
    round_ = Round(number=5, hand_size=9, dealer=0, state="bidding")
    round_.entries.append(Entry(seat=1, bid=3))
    data = snapshots.round_snapshot(round_)
    assert data["bids"] == [None, 3]
    copy = Round(number=5)
    snapshots.apply_snapshot(copy, data)
    assert {e.seat: e.bid for e in copy.entries} == {0: None, 1: 3}


def test_the_field_lists_name_every_stored_column():
    # A new column must be added to ROUND_FIELDS or SEAT_FIELDS, or history and backups lose it.
    rounds = set(sa.inspect(Round).columns.keys())
    entries = set(sa.inspect(Entry).columns.keys())
    assert rounds == {"id", "game_id", *snapshots.ROUND_FIELDS}
    assert entries == {"id", "round_id", "seat", *snapshots.SEAT_FIELDS}
