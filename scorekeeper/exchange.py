"""Export games as CSV and JSON; back up and restore the whole instance.

The JSON format is described in ``docs/export-format.md``. A game export and a backup share
one envelope (``format``, ``version``, ``kind``, ``players``, ``games``), so either can be
imported. Restoring checks the whole file first and writes it in one transaction: a file
with any problem changes nothing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from flask_babel import gettext as _
from sqlalchemy.orm import selectinload

from . import messages, records, rules
from .extensions import db
from .models import Change, Entry, Game, GameStatus, Player, Round, RoundState, Seat, name_key

FORMAT = "wizard-scorekeeper"
VERSION = 1
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
ROUND_FIELDS = (
    "trump",
    "trump_cause",
    "werewolf_played",
    "werewolf_trump",
    "bomb_played",
    "cloud_seat",
)
MAX_PROBLEMS_SHOWN = 8


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


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


def game_csv(game: Game) -> str:
    """One row per player per round; every number comes from the rules module's sheet."""
    sheet = records.sheet_of(game)
    names = records.player_names(game)
    scored = [r for r in game.rounds if r.state == RoundState.SCORED]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    date = timestamp(game.created_at)
    for round_, row in zip(scored, sheet.rows, strict=True):
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
                cell.bid,
                changed,
                cell.tricks,
                "yes" if cell.made else "no",
                cell.points,
                cell.total,
            )
            writer.writerow([neutralise(value) for value in values])
    return out.getvalue()


def secret_rounds(game: Game) -> set[int]:
    """Rounds whose bids nobody may see yet (secret bids before the tricks are in)."""
    game_rules = records.rules_of(game)
    return {
        round_.number
        for round_ in game.rounds
        if rules.bids_are_secret(game_rules, round_.state == RoundState.SCORED)
    }


def without_secret_bids(state: Any, secret: set[int]) -> Any:
    """A history snapshot with the bids of secret rounds blanked out."""
    if not secret or not isinstance(state, Mapping) or not isinstance(state.get("rounds"), list):
        return state
    rounds = [
        {**r, "bids": [None] * len(r["bids"]), "cloud_bid": [None] * len(r["cloud_bid"])}
        if r.get("number") in secret
        else r
        for r in state["rounds"]
    ]
    return {**state, "rounds": rounds}


def game_data(
    game: Game,
    *,
    with_result: bool = False,
    with_token: bool = False,
    hide_secret_bids: bool = False,
) -> dict:
    """A game as JSON-ready data: its facts, and optionally the computed result.

    ``hide_secret_bids`` blanks secret bids of the round being played (a download anyone at
    the table can make); the host's backup keeps them so a restore loses nothing.
    """
    secret = secret_rounds(game) if hide_secret_bids else set()
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
            {
                "number": round_.number,
                "hand_size": round_.hand_size,
                "dealer": round_.dealer,
                "state": round_.state,
                **{name: getattr(round_, name) for name in ROUND_FIELDS},
                "entries": [
                    {
                        "seat": entry.seat,
                        "bid": None if round_.number in secret else entry.bid,
                        "cloud_bid": None if round_.number in secret else entry.cloud_bid,
                        "tricks": entry.tricks,
                    }
                    for entry in round_.entries
                ],
            }
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
    players = [seat.player for seat in game.seats]
    data = game_data(game, with_result=True, hide_secret_bids=True)
    return dumps(envelope("game", players, [data]))


def full_query() -> sa.Select[tuple[Game]]:
    return records.game_query().options(selectinload(Game.changes))


def backup_json() -> str:
    """Every player and every game, with history, as one file."""
    players = db.session.scalars(sa.select(Player)).all()
    games = db.session.scalars(full_query().order_by(Game.created_at, Game.uid)).all()
    return dumps(envelope("backup", players, [game_data(g, with_token=True) for g in games]))


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


class ImportProblem(ValueError):
    """The file cannot be imported; ``problems`` are sentences to show next to the field."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


@dataclass
class ImportResult:
    players_added: int = 0
    games_added: int = 0
    games_skipped: int = 0
    skipped_uids: list[str] = field(default_factory=list)


class _Checker:
    """Collects problems with a location such as "game 3, round 2"."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}" if where else message)

    def need(self, ok: bool, where: str, message: str) -> bool:
        if not ok:
            self.add(where, message)
        return ok


def _is_int(value: object, low: int, high: int | None = None) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= low
        and (high is None or value <= high)
    )


def _is_time(value: object, optional: bool = False) -> bool:
    if value is None:
        return optional
    return isinstance(value, str) and _parse_time(value) is not None


def _parse_time(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def parse(raw: bytes) -> dict:
    """Read and check a file; raises :class:`ImportProblem` with every problem found."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ImportProblem(
            [_("This file is not text. Choose a backup saved by this app.")]
        ) from None
    except RecursionError:
        raise ImportProblem([_("This file is not valid JSON (nested too deeply).")]) from None
    except json.JSONDecodeError as error:
        raise ImportProblem(
            [
                _(
                    "This file is not valid JSON (line %(line)d, column %(column)d).",
                    line=error.lineno,
                    column=error.colno,
                )
            ]
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ImportProblem([_("This file is not a Wizard Scorekeeper backup or game export.")])
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise ImportProblem(
            [
                _(
                    "This file is format version %(found)s; this app reads version %(known)d.",
                    found=str(version)[:20],
                    known=VERSION,
                )
            ]
        )
    checker = _Checker()
    _check_envelope(data, checker)
    if checker.problems:
        shown = checker.problems[:MAX_PROBLEMS_SHOWN]
        more = len(checker.problems) - len(shown)
        if more:
            shown.append(_("… and %(count)d more problems.", count=more))
        raise ImportProblem(shown)
    return data


def _check_envelope(data: dict, checker: _Checker) -> None:
    players = data.get("players")
    games = data.get("games")
    if not checker.need(isinstance(players, list), "", _("the list of players is missing.")):
        return
    if not checker.need(isinstance(games, list), "", _("the list of games is missing.")):
        return
    keys: set[str] = set()
    for number, entry in enumerate(players, start=1):
        where = _("player %(number)d", number=number)
        if not checker.need(isinstance(entry, dict), where, _("not a player record.")):
            continue
        name = entry.get("name")
        if not checker.need(
            isinstance(name, str) and 0 < len(name_key(name)) <= 40,
            where,
            _("the name must have 1 to 40 characters."),
        ):
            continue
        checker.need(
            _is_time(entry.get("created_at"), optional=True), where, _("the date is not valid.")
        )
        keys.add(name_key(name))
    uids: set[str] = set()
    for number, game in enumerate(games, start=1):
        where = _("game %(number)d", number=number)
        if checker.need(isinstance(game, dict), where, _("not a game record.")):
            _check_game(game, where, keys, uids, checker)


def _check_game(game: dict, where: str, keys: set[str], uids: set[str], checker: _Checker) -> None:
    uid = game.get("uid")
    if not checker.need(
        isinstance(uid, str) and 0 < len(uid) <= 36, where, _("the game identifier is missing.")
    ):
        return
    checker.need(uid not in uids, where, _("this game appears twice in the file."))
    uids.add(uid)
    checker.need(
        game.get("status") in {s.value for s in GameStatus}, where, _("unknown game status.")
    )
    for name in ("created_at", "updated_at"):
        checker.need(_is_time(game.get(name)), where, _("a date is not valid."))
    checker.need(
        _is_time(game.get("finished_at"), optional=True), where, _("a date is not valid.")
    )
    checker.need(_is_int(game.get("version"), 1), where, _("the version must be 1 or more."))
    token = game.get("live_token")
    checker.need(
        token is None or (isinstance(token, str) and 0 < len(token) <= 32),
        where,
        _("the live link token is not valid."),
    )
    try:
        game_rules = rules.GameRules.from_dict(game.get("rules"))
    except rules.RulesError as error:
        reasons = "; ".join(messages.problem_message(p) for p in error.problems)
        checker.add(where, _("its rules are not valid: %(reasons)s", reasons=reasons))
        return
    except TypeError:
        checker.add(where, _("its rules are not valid."))
        return
    players = game_rules.players
    seats = game.get("seats")
    if not checker.need(
        isinstance(seats, list) and len(seats) == players,
        where,
        _("it needs %(count)d seats, one per player.", count=players),
    ):
        return
    seat_keys = [name_key(s) if isinstance(s, str) else "" for s in seats]
    checker.need(
        all(seat_keys) and set(seat_keys) <= keys,
        where,
        _("every seat must name a player of the file."),
    )
    checker.need(len(set(seat_keys)) == players, where, _("a player sits twice."))
    checker.need(
        _is_int(game.get("first_dealer"), 0, players - 1),
        where,
        _("the first dealer is not a seat."),
    )
    _check_rounds(game, game_rules, where, checker)
    _check_history(game, where, checker)


def _check_rounds(game: dict, game_rules: rules.GameRules, where: str, checker: _Checker) -> None:
    rounds = game.get("rounds")
    if not checker.need(isinstance(rounds, list), where, _("the rounds are missing.")):
        return
    players = game_rules.players
    top = game_rules.max_hand_size
    scored: list[rules.RoundRecord] = []
    problems_before = len(checker.problems)
    for index, round_ in enumerate(rounds, start=1):
        here = _("%(game)s, round %(number)d", game=where, number=index)
        if not checker.need(isinstance(round_, dict), here, _("not a round record.")):
            return
        checker.need(round_.get("number") == index, here, _("rounds must be numbered 1, 2, 3 …"))
        size = round_.get("hand_size")
        ok = checker.need(
            _is_int(size, 1, top), here, _("the cards must be 1 to %(max)d.", max=top)
        )
        ok &= checker.need(_is_int(round_.get("dealer"), 0, players - 1), here, _("bad dealer."))
        state = round_.get("state")
        ok &= checker.need(state in {s.value for s in RoundState}, here, _("unknown round state."))
        for name in ("trump", "trump_cause", "werewolf_trump"):
            value = round_.get(name)
            ok &= checker.need(
                value is None or (isinstance(value, str) and len(value) <= 16),
                here,
                _("bad trump."),
            )
        for name in ("werewolf_played", "bomb_played"):
            ok &= checker.need(isinstance(round_.get(name), bool), here, _("bad Jubilee card."))
        cloud_seat = round_.get("cloud_seat")
        ok &= checker.need(
            cloud_seat is None or _is_int(cloud_seat, 0, players - 1), here, _("bad Cloud seat.")
        )
        entries = round_.get("entries")
        if not checker.need(isinstance(entries, list), here, _("the entries are missing.")):
            return
        bids: list[int | None] = [None] * players
        tricks: list[int | None] = [None] * players
        cloud: rules.CloudChange | None = None
        seen: set[int] = set()
        for entry in entries:
            if not (isinstance(entry, dict) and _is_int(entry.get("seat"), 0, players - 1)):
                checker.add(here, _("an entry names no seat."))
                ok = False
                continue
            seat = entry["seat"]
            ok &= checker.need(seat not in seen, here, _("a seat has two entries."))
            seen.add(seat)
            for name in ("bid", "cloud_bid", "tricks"):
                value = entry.get(name)
                ok &= checker.need(
                    value is None or _is_int(value, 0, 20), here, _("bids and tricks are 0 to 20.")
                )
            bids[seat], tricks[seat] = entry.get("bid"), entry.get("tricks")
            if entry.get("cloud_bid") is not None:
                cloud = rules.CloudChange(seat=seat, new_bid=entry["cloud_bid"])
        if not ok or state != RoundState.SCORED:
            continue
        if not checker.need(
            all(t is not None for t in tricks),
            here,
            _("a scored round needs every player's tricks."),
        ):
            continue
        scored.append(
            rules.RoundRecord(
                number=index,
                hand_size=size,
                dealer=round_["dealer"],
                bids=tuple(bids),
                tricks=tuple(tricks),
                cloud=cloud,
                bomb_played=round_["bomb_played"],
            )
        )
    if len(checker.problems) == problems_before:
        _check_scored_rounds(game_rules, scored, where, checker)


def _check_scored_rounds(
    game_rules: rules.GameRules, scored: list[rules.RoundRecord], where: str, checker: _Checker
) -> None:
    """Each scored round against the game's rules, with the totals before it."""
    try:
        sheet = rules.score_sheet(game_rules, scored)
    except rules.RulesError as error:
        reasons = "; ".join(dict.fromkeys(messages.problem_message(p) for p in error.problems))
        checker.add(
            where, _("its rounds break the rules of the game: %(reasons)s", reasons=reasons)
        )
        return
    for record in scored:
        problems = rules.validate_round(game_rules, record, sheet.totals_before(record.number))
        # A correction may later make an earlier bid "forbidden" under the Canadian rule; the
        # app flags such rounds but keeps them, so a restore must accept them too.
        problems = tuple(p for p in problems if p.code != "forbidden_bid")
        if problems:
            here = _("%(game)s, round %(number)d", game=where, number=record.number)
            reasons = "; ".join(
                dict.fromkeys(messages.problem_message(p, with_round=False) for p in problems)
            )
            checker.add(here, _("it breaks the rules of the game: %(reasons)s", reasons=reasons))


def _check_history(game: dict, where: str, checker: _Checker) -> None:
    history = game.get("history", [])
    if not checker.need(isinstance(history, list), where, _("the history is not a list.")):
        return
    versions: set[int] = set()
    for change in history:
        ok = isinstance(change, dict)
        ok = ok and _is_int(change.get("version"), 1) and change["version"] not in versions
        ok = ok and isinstance(change.get("action"), str) and 0 < len(change["action"]) <= 32
        ok = ok and (change.get("round_number") is None or _is_int(change["round_number"], 1))
        ok = ok and all(
            change.get(k) is None or isinstance(change[k], dict) for k in ("before", "after")
        )
        ok = ok and _is_time(change.get("created_at"))
        if not checker.need(ok, where, _("a history entry is not valid.")):
            return
        versions.add(change["version"])


def restore(data: dict) -> ImportResult:
    """Add the file's players and games that are not here yet, in the caller's transaction.

    Players are matched by name (case and spaces ignored), games by their identifier.
    """
    result = ImportResult()
    wanted = {name_key(p["name"]): p for p in data["players"]}
    for game in data["games"]:
        for name in game["seats"]:
            wanted.setdefault(name_key(name), {"name": name, "created_at": None})
    existing = {
        p.name_key: p
        for p in db.session.scalars(sa.select(Player).where(Player.name_key.in_(list(wanted))))
    }
    for key, entry in sorted(wanted.items()):
        if key not in existing:
            new = Player(entry["name"])
            if entry.get("created_at"):
                new.created_at = _parse_time(entry["created_at"])
            db.session.add(new)
            existing[key] = new
            result.players_added += 1
    uids = [g["uid"] for g in data["games"]]
    present = set(db.session.scalars(sa.select(Game.uid).where(Game.uid.in_(uids))))
    for game in data["games"]:
        if game["uid"] in present:
            result.games_skipped += 1
            result.skipped_uids.append(game["uid"])
            continue
        db.session.add(_build_game(game, existing))
        result.games_added += 1
    db.session.flush()
    return result


def _build_game(data: dict, players: Mapping[str, Player]) -> Game:
    game = Game(
        uid=data["uid"],
        status=data["status"],
        rules=data["rules"],
        first_dealer=data["first_dealer"],
        version=data["version"],
        created_at=_parse_time(data["created_at"]),
        updated_at=_parse_time(data["updated_at"]),
        finished_at=_parse_time(data["finished_at"]) if data.get("finished_at") else None,
    )
    if data.get("live_token"):
        game.live_token = data["live_token"]
    for position, name in enumerate(data["seats"]):
        game.seats.append(Seat(player=players[name_key(name)], position=position))
    for round_data in data["rounds"]:
        round_ = Round(
            number=round_data["number"],
            hand_size=round_data["hand_size"],
            dealer=round_data["dealer"],
            state=round_data["state"],
            **{name: round_data.get(name) for name in ROUND_FIELDS},
        )
        for entry in sorted(round_data["entries"], key=lambda e: e["seat"]):
            round_.entries.append(
                Entry(
                    seat=entry["seat"],
                    bid=entry.get("bid"),
                    cloud_bid=entry.get("cloud_bid"),
                    tricks=entry.get("tricks"),
                )
            )
        game.rounds.append(round_)
    for change in data.get("history", []):
        game.changes.append(
            Change(
                version=change["version"],
                action=change["action"],
                round_number=change.get("round_number"),
                before=change.get("before"),
                after=change.get("after"),
                created_at=_parse_time(change["created_at"]),
            )
        )
    return game


def import_file(raw: bytes) -> ImportResult:
    """Check and restore a file in one transaction; on any problem nothing is stored."""
    data = parse(raw)
    try:
        result = restore(data)
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        raise ImportProblem(
            [_("This file clashes with data already here (a live link or history entry).")]
        ) from None
    except Exception:
        db.session.rollback()
        raise
    return result
