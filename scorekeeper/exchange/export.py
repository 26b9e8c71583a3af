"""Writing: a game as CSV or JSON, and the whole instance as one backup file.

The JSON layout is ``docs/export-format.md`` (format version 2); each round is written by
:func:`scorekeeper.snapshots.round_export`, the same codec the import reads it back with,
leaving out what is empty, and each history entry keeps what its change touched before it
(:func:`history_record`). A backup is written piece by piece (:func:`backup_chunks`), a few
games at a time, so a club's history is never held in memory whole.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from .. import queries, records, rules, snapshots
from ..extensions import db
from ..models import Change, ChangeAction, Game, Player, Round, RoundState
from .events import event_records
from .schema import FORMAT, VERSION

# Characters a spreadsheet reads as the start of a formula (OWASP "CSV injection"). A first
# character is compared after NFKC, which folds the full-width and small forms some
# spreadsheets also take for them (＝ ＋ － ＠, ﹦ ﹢ ﹣) to these; the minus sign too.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\u2212")
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
    "bid_rule",
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
    first = unicodedata.normalize("NFKC", text[:1])
    return "'" + text if first.startswith(FORMULA_STARTS) else text


def game_csv(game: Game, delimiter: str = ",") -> str:
    """One row per player per round; every number comes from the rules module's sheet.

    ``delimiter`` is the separator the reader's spreadsheet expects (";" where the decimal
    mark is a comma)."""
    sheet = records.sheet_of(game)
    game_rules = records.rules_of(game)
    names = records.player_names(game)
    scored = [r for r in game.rounds if r.state == RoundState.SCORED]
    secret = secret_rounds(game)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    date = timestamp(game.created_at)
    for round_, row in zip(scored, sheet.rows, strict=True):
        hidden = row.number in secret  # never for a scored round; the one rule decides
        # The bid rule that bound this round: free where "from hand N" leaves it free.
        binding = rules.bid_rule_applies(game_rules, row.number, row.hand_size)
        bid_rule = game_rules.bid_rule if binding else rules.BidRule.FREE
        for seat, cell in enumerate(row.cells):
            changed = cell.effective_bid if cell.effective_bid != cell.bid else None
            values = (
                game.uid,
                date,
                row.number,
                row.hand_size,
                names[row.dealer],
                csv_trump(round_),
                seat + 1,
                names[seat],
                None if hidden else cell.bid,
                None if hidden else changed,
                cell.tricks,
                "yes" if cell.made else "no",
                cell.points,
                cell.total,
                bid_rule,
            )
            writer.writerow([neutralise(value) for value in values])
    return out.getvalue()


def csv_trump(round_: Round) -> str:
    """A round's trump in the CSV: its suit, ``none`` for no trump, empty when the trump
    was not recorded (a paper sheet's empty trump cell: no cause either)."""
    if round_.trump:
        return round_.trump
    return "none" if round_.trump_cause else ""


def secret_rounds(game: Game) -> set[int]:
    """Rounds whose bids nobody may see yet (secret bids before the tricks are in, hidden
    bids sealed on the players' phones before the last one is in).

    The one place every file written here asks (game CSV, game JSON and the backup), so a
    bid not revealed yet never leaves the server; it is :func:`rules.bids_are_secret`'s
    decision, round by round.
    """
    game_rules = records.rules_of(game)
    return {
        round_.number
        for round_ in game.rounds
        if rules.bids_are_secret(
            game_rules, round_.state == RoundState.SCORED, round_.state == RoundState.BIDDING
        )
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


def lean(record: Mapping[str, Any]) -> dict[str, Any]:
    """A round or entry record without its empty fields (null, or false): a reader takes a
    field left out as null (false for ``werewolf_played`` and ``bomb_played``)."""
    return {
        key: value for key, value in record.items() if value is not None and value is not False
    }


def lean_round(record: Mapping[str, Any]) -> dict[str, Any]:
    """A round as version 2 writes it: empty fields left out, in the round and its entries."""
    return lean({**record, "entries": [lean(entry) for entry in record["entries"]]})


def history_record(change: Change, secret: set[int]) -> dict[str, Any]:
    """One history entry as the file keeps it (format version 2).

    ``before`` is what the change touched, as it was (:func:`snapshots.compact_states`),
    with the rounds it dealt named in ``new_rounds``; what each was after the change is the
    next change's ``before``, or the game as written, so it is not repeated. ``after`` is
    kept only for what it says besides (the start, an undo, a plan edit). Secret bids not
    revealed yet are blanked (:func:`without_secret_bids`).
    """
    record: dict[str, Any] = {
        "version": change.version,
        "action": change.action,
        "round_number": change.round_number,
        "created_at": timestamp(change.created_at),
    }
    before, after = snapshots.compact_states(change.before, change.after)
    if change.action == ChangeAction.CREATE_GAME or not (
        isinstance(before, Mapping) and isinstance(after, Mapping) and "rounds" in after
    ):
        # The start (or a hand-made entry that is not a state): as stored.
        record["before"] = without_secret_bids(before, secret)
        record["after"] = without_secret_bids(after, secret)
        return record
    before = dict(without_secret_bids(before, secret))
    was = {data["number"] for data in before["rounds"]}
    dealt = [data["number"] for data in after["rounds"] if data["number"] not in was]
    if dealt:
        before["new_rounds"] = dealt
    record["before"] = before
    besides = {
        key: value
        for key, value in after.items()
        if key not in snapshots.STATE_FIELDS and key != "rounds"
    }
    if besides:
        record["after"] = besides
    return record


def game_data(game: Game, *, with_result: bool = False, with_token: bool = False) -> dict:
    """A game as JSON-ready data: its facts, and optionally the computed result.

    Secret bids of a round not scored yet are blanked, in the round and in every history
    entry of it (:func:`secret_rounds`): in a game export anyone at the table can download
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
            lean_round(snapshots.round_export(round_, hide_bids=round_.number in secret))
            for round_ in game.rounds
        ],
        "history": [history_record(change, secret) for change in game.changes],
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


def player_records(players: Iterable[Player]) -> list[dict[str, Any]]:
    """The players a file names, in the roster's order."""
    return [
        {"id": p.id, "name": p.name, "created_at": timestamp(p.created_at)}
        for p in sorted(players, key=lambda p: (p.name_key, p.id))
    ]


def envelope(kind: str, players: Iterable[Player], games: list[dict]) -> dict:
    """The file around the games: format, version, kind and the players they name."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": kind,
        "players": player_records(players),
        "games": games,
    }


def _line(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def file_chunks(
    kind: str,
    players: Iterable[dict],
    games: Iterable[dict],
    events: Iterable[dict] | None = None,
) -> Iterator[str]:
    """A file's text in pieces, in its fixed layout: the envelope's keys in a fixed order
    (format, version, kind, players, games), then one line per player and one per game, each
    with its keys sorted. The same data always gives the same bytes."""
    head = {"format": FORMAT, "version": VERSION, "kind": kind}
    yield _line(head)[:-1] + ',\n"players":['
    separator = "\n"
    for player in players:
        yield separator + _line(player)
        separator = ",\n"
    yield '\n],\n"games":['
    separator = "\n"
    for game in games:
        yield separator + _line(game)
        separator = ",\n"
    if events is not None:
        # After the games: a restore adds the events once their games are in.
        yield '\n],\n"events":['
        separator = "\n"
        for event in events:
            yield separator + _line(event)
            separator = ",\n"
    yield "\n]}\n"


def dumps(data: Mapping) -> str:
    """A whole file as text, in the layout :func:`file_chunks` writes."""
    return "".join(
        file_chunks(data.get("kind", "backup"), data["players"], data["games"], data.get("events"))
    )


def game_json(game: Game) -> str:
    """One game as a file anyone at the table may download: secret bids stay hidden."""
    players = [seat.player for seat in game.seats]
    data = game_data(game, with_result=True)
    return dumps(envelope("game", players, [data]))


def full_query() -> sa.Select[tuple[Game]]:
    """Games with everything an export writes, history included, loaded in fixed queries."""
    return queries.game_query(with_changes=True)


# Games loaded (with their rounds and history) per query while a backup is written.
GAMES_PER_QUERY = 50


def _consistent_reads() -> None:
    """Read the whole backup from one snapshot of the database: SQLite's transaction is
    one already; PostgreSQL's is made REPEATABLE READ (each query would see the latest
    commit otherwise, and a game changed meanwhile would be written half old, half new)."""
    if db.engine.dialect.name == "postgresql":
        db.session.rollback()
        db.session.connection(execution_options={"isolation_level": "REPEATABLE READ"})


def backup_chunks() -> Iterator[str]:
    """Every player and every game, with history, as the text of one file, in pieces (secret
    bids hidden too): the games are read :data:`GAMES_PER_QUERY` at a time."""
    _consistent_reads()
    players = player_records(db.session.scalars(sa.select(Player)).all())
    ids = db.session.scalars(sa.select(Game.id).order_by(Game.created_at, Game.uid)).all()

    def games() -> Iterator[dict]:
        for start in range(0, len(ids), GAMES_PER_QUERY):
            chunk = ids[start : start + GAMES_PER_QUERY]
            loaded = {
                game.id: game
                for game in db.session.scalars(full_query().where(Game.id.in_(chunk)))
            }
            for game_id in chunk:
                yield game_data(loaded[game_id], with_token=True)
            # What was loaded is let go: the session keeps only what is referenced.
            loaded.clear()

    yield from file_chunks("backup", players, games(), event_records())


def backup_json() -> str:
    """Every player and every game, with history, as one file (secret bids hidden too)."""
    return "".join(backup_chunks())
