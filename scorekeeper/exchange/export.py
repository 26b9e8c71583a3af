"""Writing: a game as CSV or JSON, and the whole instance as one backup file.

The JSON layout is ``docs/export-format.md`` (format version 1); each round is written by
:func:`scorekeeper.snapshots.round_export`, the same codec the import reads it back with.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from .. import queries, records, rules, snapshots
from ..extensions import db
from ..models import Game, Player, RoundState
from .schema import FORMAT, VERSION

# Characters a spreadsheet reads as the start of a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = (
    "game",
    "date",
    "round",
    "cards",
    "dealer",
    "trump",
    "seat",
    "player",
    "bid",
    "changed_bid",
    "tricks",
    "made",
    "points",
    "total",
)


def timestamp(value: datetime | None) -> str | None:
    """A stored time as ISO 8601 in UTC; SQLite hands back naive times, which are UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def neutralise(cell: object) -> str:
    """A CSV cell a spreadsheet shows as text: formula starters get a leading quote.

    Negative numbers are quoted too ("'-30"): one rule for every cell is safer than guessing.
    """
    text = "" if cell is None else str(cell)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def game_csv(game: Game, delimiter: str = ",") -> str:
    """One row per player per round; every number comes from the rules module's sheet.

    ``delimiter`` is the separator the reader's spreadsheet expects (";" where the decimal
    mark is a comma)."""
    sheet = records.sheet_of(game)
    names = records.player_names(game)
    scored = [r for r in game.rounds if r.state == RoundState.SCORED]
    secret = secret_rounds(game)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    date = timestamp(game.created_at)
    for round_, row in zip(scored, sheet.rows, strict=True):
        hidden = row.number in secret  # never for a scored round; the one rule decides
        for seat, cell in enumerate(row.cells):
            changed = cell.effective_bid if cell.effective_bid != cell.bid else None
            values = (
                game.uid,
                date,
                row.number,
                row.hand_size,
                names[row.dealer],
                round_.trump or "none",
                seat + 1,
                names[seat],
                None if hidden else cell.bid,
                None if hidden else changed,
                cell.tricks,
                "yes" if cell.made else "no",
                cell.points,
                cell.total,
            )
            writer.writerow([neutralise(value) for value in values])
    return out.getvalue()


def secret_rounds(game: Game) -> set[int]:
    """Rounds whose bids nobody may see yet (secret bids before the tricks are in).

    The one place every file written here asks (game CSV, game JSON and the backup), so a
    bid not revealed yet never leaves the server; it is :func:`rules.bids_are_secret`'s
    decision, round by round.
    """
    game_rules = records.rules_of(game)
    return {
        round_.number
        for round_ in game.rounds
        if rules.bids_are_secret(game_rules, round_.state == RoundState.SCORED)
    }


def without_secret_bids(state: Any, secret: set[int]) -> Any:
    """A history before/after state with the bids of secret rounds blanked out."""
    if not secret or not isinstance(state, Mapping) or not isinstance(state.get("rounds"), list):
        return state
    rounds = [
        snapshots.hide_snapshot_bids(r)
        if isinstance(r, Mapping) and r.get("number") in secret
        else r
        for r in state["rounds"]
    ]
    return {**state, "rounds": rounds}


def game_data(game: Game, *, with_result: bool = False, with_token: bool = False) -> dict:
    """A game as JSON-ready data: its facts, and optionally the computed result.

    Secret bids of a round not scored yet are blanked, in the round and in every history
    snapshot of it (:func:`secret_rounds`): in a game export anyone at the table can download
    and in the host's backup alike. A restore brings such a round back without its bids.
    """
    secret = secret_rounds(game)
    data: dict[str, Any] = {
        "uid": game.uid,
        "status": game.status,
        "created_at": timestamp(game.created_at),
        "updated_at": timestamp(game.updated_at),
        "finished_at": timestamp(game.finished_at),
        "version": game.version,
        "first_dealer": game.first_dealer,
        "rules": game.rules,
        "seats": [seat.player.name for seat in game.seats],
        "rounds": [
            snapshots.round_export(round_, hide_bids=round_.number in secret)
            for round_ in game.rounds
        ],
        "history": [
            {
                "version": change.version,
                "action": change.action,
                "round_number": change.round_number,
                "before": without_secret_bids(change.before, secret),
                "after": without_secret_bids(change.after, secret),
                "created_at": timestamp(change.created_at),
            }
            for change in game.changes
        ],
    }
    if with_token:
        data["live_token"] = game.live_token
    if with_result:
        sheet = records.sheet_of(game)
        data["result"] = {
            "totals": list(sheet.totals),
            "ranks": list(sheet.ranks),
            "winners": [data["seats"][seat] for seat in sheet.winners],
        }
    return data


def envelope(kind: str, players: Iterable[Player], games: list[dict]) -> dict:
    """The file around the games: format, version, kind and the players they name."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": kind,
        "players": [
            {"name": p.name, "created_at": timestamp(p.created_at)}
            for p in sorted(players, key=lambda p: (p.name_key, p.id))
        ],
        "games": games,
    }


def dumps(data: Mapping) -> str:
    """Stable text: the same data always gives the same bytes (backups can be compared)."""
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def game_json(game: Game) -> str:
    """One game as a file anyone at the table may download: secret bids stay hidden."""
    players = [seat.player for seat in game.seats]
    data = game_data(game, with_result=True)
    return dumps(envelope("game", players, [data]))


def full_query() -> sa.Select[tuple[Game]]:
    """Games with everything an export writes, history included, loaded in fixed queries."""
    return queries.game_query(with_changes=True)


def backup_json() -> str:
    """Every player and every game, with history, as one file (secret bids hidden too)."""
    players = db.session.scalars(sa.select(Player)).all()
    games = db.session.scalars(full_query().order_by(Game.created_at, Game.uid)).all()
    return dumps(envelope("backup", players, [game_data(g, with_token=True) for g in games]))
