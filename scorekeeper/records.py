"""Turn stored games into the inputs of :mod:`scorekeeper.rules`.

Everything that needs a score sheet (the table, the live view, history, statistics,
export) goes through here, so the rules module stays the only place scores come from.
"""

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cachetools import LRUCache, cached

from . import rules
from .models import Game, Round, RoundState

# The rules read from stored values, by the value as written: a club plays under a handful of
# rule sets, and reading one checks the whole set (GameRules.from_dict, 29 µs; a round
# screen, a sheet, a live board and a game's page each read their game's). A GameRules is
# frozen and holds only immutable values, so one reading serves every request and thread; a
# stored value that does not read raises each time and is never kept.
_READ_RULES: LRUCache[str, rules.GameRules] = LRUCache(maxsize=256)
_READ_RULES_LOCK = threading.Lock()


@cached(_READ_RULES, key=lambda stored: f"value {stored!r}", lock=_READ_RULES_LOCK)
def stored_rules(stored: Mapping[str, Any]) -> rules.GameRules:
    """The rules of a stored JSON value (as decoded: str, int, float, bool, None, lists and
    dicts), read once per process for each value. Its ``repr`` is the key: it tells every
    such value apart (``1`` from ``True`` and ``1.0``), and the same rules written in
    another key order are only read once more. (Keys say which kind they are: a ``repr``
    and a JSON text can be the same string.)"""
    return rules.GameRules.from_dict(stored)


@cached(_READ_RULES, key=lambda text: f"text {text}", lock=_READ_RULES_LOCK)
def stored_rules_text(text: str) -> rules.GameRules:
    """The rules of a stored JSON text (the games list reads the column as text), read once
    per process for each text."""
    return rules.GameRules.from_dict(json.loads(text))


def rules_of(game: Game) -> rules.GameRules:
    """The rules a game is played under, as the rules module's value.

    Read once per loaded game: a round screen asks nine times (a fifteenth of a table step,
    cProfile, when each asking read the stored value again). Kept on the instance with the
    stored value it was read from; a write stores a new value (the JSON column is never
    changed in place), and an expired or reloaded game gives another, so a change is read."""
    stored = game.rules
    kept = game.__dict__.get("_rules_read")
    if kept is not None and kept[0] is stored:
        return kept[1]
    read = stored_rules(stored)
    game.__dict__["_rules_read"] = (stored, read)
    return read


def record_from(
    number: int,
    hand_size: int,
    dealer: int,
    bomb_played: bool,
    entries: Iterable[tuple[int, int | None, int | None, int | None]],
    players: int,
) -> rules.RoundRecord:
    """A round for the rules module from stored (or about to be stored) values: the one
    builder of :class:`rules.RoundRecord`, used for the sheet, for checking an entry and for
    statistics.

    ``entries`` are (seat, bid, cloud_bid, tricks); a ``cloud_bid`` marks the Cloud's change.
    A missing number stays ``None`` (the rules report it).
    """
    bids: list[int | None] = [None] * players
    tricks: list[int | None] = [None] * players
    cloud = None
    for seat, bid, cloud_bid, took in entries:
        bids[seat] = bid
        tricks[seat] = took
        if cloud_bid is not None:
            cloud = rules.CloudChange(seat=seat, new_bid=cloud_bid)
    return rules.RoundRecord(
        number=number,
        hand_size=hand_size,
        dealer=dealer,
        bids=tuple(bids),
        tricks=tuple(tricks),  # type: ignore[arg-type]
        cloud=cloud,
        bomb_played=bomb_played,
    )


def round_record(round_: Round, players: int) -> rules.RoundRecord:
    """A scored round as the rules module sees it (bids and tricks by seat)."""
    entries = ((e.seat, e.bid, e.cloud_bid, e.tricks) for e in round_.entries)
    return record_from(
        round_.number, round_.hand_size, round_.dealer, round_.bomb_played, entries, players
    )


def round_records(game: Game) -> list[rules.RoundRecord]:
    """The game's scored rounds, in order."""
    players = len(game.seats)
    return [
        round_record(round_, players)
        for round_ in game.rounds
        if round_.state == RoundState.SCORED
    ]


def sheet_of(game: Game) -> rules.ScoreSheet:
    """The score sheet of a game so far, computed by the rules module."""
    return rules.score_sheet(rules_of(game), round_records(game))


def player_names(game: Game) -> Sequence[str]:
    """Names by seat."""
    return [seat.player.name for seat in game.seats]
