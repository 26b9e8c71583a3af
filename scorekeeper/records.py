"""Turn stored games into the inputs of :mod:`scorekeeper.rules`.

Everything that needs a score sheet (the table, the live view, history, statistics,
export) goes through here, so the rules module stays the only place scores come from.
"""

import json
from collections.abc import Iterable, Sequence

from . import rules
from .models import Game, Round, RoundState


def rules_of(game: Game) -> rules.GameRules:
    """The rules a game is played under, as the rules module's value.

    Read once per loaded game: a round screen asks nine times, and each reading checks the
    whole set again (a fifteenth of a table step, cProfile). Kept on the instance with the
    stored value it was read from; a write stores a new value (the JSON column is never
    changed in place), and an expired or reloaded game gives another, so a change is read."""
    stored = game.rules
    kept = game.__dict__.get("_rules_read")
    if kept is not None and kept[0] is stored:
        return kept[1]
    read = rules.GameRules.from_dict(stored)
    game.__dict__["_rules_read"] = (stored, read)
    return read


def read_rules_of(games: Iterable[Game]) -> None:
    """Read the rules of many games at once (an event's tables), as :func:`rules_of` reads
    each: games stored with the same value share one reading, checked once (an event's games
    mostly are; a check was a tenth of an event board, cProfile)."""
    read: dict[str, rules.GameRules] = {}
    for game in games:
        stored = game.rules
        written = json.dumps(stored, sort_keys=True)
        found = read.get(written)
        if found is None:
            found = read[written] = rules.GameRules.from_dict(stored)
        game.__dict__["_rules_read"] = (stored, found)


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
