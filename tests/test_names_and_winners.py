"""Names cut to fit a narrow score sheet, and the winner in words (pure functions)."""

from types import SimpleNamespace

import pytest

from scorekeeper.wording.formats import short_names
from scorekeeper.wording.winners import winner_words

NAMES = ("Ann", "Bob", "Cara", "Dan")


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        # Long names are cut where they part from every other name, with a full stop.
        (["Anneliese", "Antonio", "Bob"], ["Ann.", "Ant.", "Bob"]),
        (
            ["Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald"],
            ["Ann.", "Bar.", "Cor.", "Dmitri", "Eva.", "Fit."],
        ),
        # A short name stays whole and a longer one beginning with it is cut after it.
        (["Ann", "Anneliese"], ["Ann", "Anne."]),
        (["Antonella", "Antonio", "Anna"], ["Antone.", "Antoni.", "Anna"]),
        # Case is ignored when comparing, kept when shown.
        (["anneliese", "ANNELORE", "Annalena"], ["anneli.", "ANNELO.", "Anna."]),
        # Two names that differ only at the end cannot be cut: both stay whole.
        (["Francesca", "Francesco"], ["Francesca", "Francesco"]),
        (["Christina", "Christinas"], ["Christina", "Christinas"]),
        # Never cut right after a space.
        (["Mary Jane", "Mary Ann", "Maria"], ["Mary J.", "Mary A.", "Maria"]),
    ],
)
def test_short_names_are_the_shortest_unique_beginnings(names, shown):
    assert short_names(names) == shown


def test_short_names_of_any_table_are_unique_and_begin_their_names():
    names = ["Giovanni", "Giovanna", "Gianluca", "Gianluigi", "Giorgio", "Gio"]
    shown = short_names(names)
    assert len(set(shown)) == len(names)
    for name, short in zip(names, shown, strict=True):
        assert short == name or (name.startswith(short.removesuffix(".")) and len(short) <= 8)


def sheet(totals, bid_sums, leaders, winners, bids_met=(0, 0, 0, 0)):
    return SimpleNamespace(
        totals=totals, bid_sums=bid_sums, leaders=leaders, winners=winners, bids_met=bids_met
    )


@pytest.fixture(autouse=True)
def _request_context(app):
    with app.test_request_context():
        yield


def test_nobody_has_won_a_game_still_being_played():
    assert winner_words(sheet((10, 0, 0, 0), (1, 0, 0, 0), (0,), ()), NAMES) is None


def test_a_clear_winner_has_points_with_their_unit():
    words = winner_words(sheet((200, 10, 0, 1), (9, 3, 2, 1), (0,), (0,)), NAMES)
    assert words.headline == "Ann wins with 200 points!"
    assert words.note is None
    assert words.summary == "Won by Ann · 200 points"
    one = winner_words(sheet((1, 0, 0, 0), (1, 0, 0, 0), (0,), (0,)), NAMES)
    assert one.summary == "Won by Ann · 1 point"


def test_the_tie_break_is_named_with_both_sums_in_every_form():
    tied = sheet((70, 70, 40, 70), (12, 9, 3, 7), (0, 1, 3), (0,))
    words = winner_words(tied, NAMES, tie_break=True)
    assert words.headline == "Ann wins on the tie-break: 12 bids to 9"
    assert words.summary == words.headline
    assert words.note == (
        "Tied on 70 points with Bob and Dan; the higher sum of bids over the game decides."
    )


def test_a_shared_win_says_the_bids_could_not_break_it_when_that_rule_is_played():
    shared = sheet((70, 70, 40, 0), (5, 5, 3, 7), (0, 1), (0, 1))
    words = winner_words(shared, NAMES, tie_break=True)
    assert words.headline == words.summary == "Shared win: Ann and Bob, 70 points each."
    assert words.note == "The tie-break by bids could not decide: 5 bids each."
    assert winner_words(shared, NAMES).note is None


def test_a_tie_broken_by_bids_met_names_the_bids_met():
    tied = sheet((70, 70, 40, 70), (2, 9, 3, 7), (0, 1, 3), (0,), bids_met=(8, 6, 1, 5))
    words = winner_words(tied, NAMES, "bids_met")
    assert words.headline == words.summary == "Ann wins on the tie-break: 8 bids met to 6"
    assert words.note == (
        "Tied on 70 points with Bob and Dan; more bids met over the game decide."
    )
    shared = sheet((70, 70, 40, 0), (5, 9, 3, 7), (0, 1), (0, 1), bids_met=(4, 4, 0, 0))
    note = winner_words(shared, NAMES, "bids_met").note
    assert note == "The tie-break by bids met could not decide: 4 bids met each."
    # The older on/off form still reads: True is the sum of bids.
    assert winner_words(shared, NAMES, False).note is None
