"""Reading: check a backup or game export completely, then add what is new in one transaction.

A file is checked in three steps, each refusing it with every problem found: it must be
JSON of this format and version (and hold only text an encoding can store); its records
must have the shape of ``export-format.schema.json`` (:mod:`.schema`), history entries as
the app records them included; and what the schema cannot see must hold — names as the
roster reads them, games not repeated, seats naming the file's players, history versions
ending at the game's and its entries fitting the game, and every round against the game's
plan, status and rules. A file with any problem changes nothing; a file already restored
adds nothing and says so.

The file is read in bounded memory (:mod:`.reading`): its players first, then its games one
at a time, twice — once to check them all, then, only if every check passed, to write them
in one transaction a few games per statement. A history entry of format version 2 keeps
only what its change touched before it; what that was after the change is read off the next
entries and the game's rounds (:func:`decode_history`), and the app stores both.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import re
import time
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

import sqlalchemy as sa
from flask_babel import format_date

from .. import records, results, rules, snapshots
from ..changes import lost_race
from ..extensions import db
from ..i18n import gettext as _
from ..i18n import ngettext
from ..models import (
    ON_PAPER,
    Change,
    ChangeAction,
    Entry,
    Game,
    GameStatus,
    LadderRating,
    Player,
    PlayerAlias,
    PlayerChange,
    Round,
    RoundState,
    Seat,
    analyze,
    name_key,
    raise_data_version,
    sqlite_write_lock,
)
from ..wording import messages
from . import reading
from .events import EventsProblem, restore_events
from .schema import (
    FORMAT,
    MAX_ERRORS_READ,
    MAX_GAMES,
    MAX_PLAYERS,
    READABLE,
    VERSION,
    cards_message,
    count_problems,
    game_place,
    history_place,
    located,
    player_place,
    quick_check,
    round_place,
    seat_message,
    shape_problems,
    state_message,
    utc_time,
)

MAX_PROBLEMS_SHOWN = 8
# Names or game identifiers looked up per query (SQLite takes at most 32,766 parameters in
# one statement, PostgreSQL 65,535).
LOOKUP_CHUNK = 500
# Games written per statement while a file is restored.
GAMES_PER_BATCH = 100
# The longest name the roster keeps (the players table's column).
NAME_MAX = 40
# How long a restore waits for another one in progress to finish (a club's 2,000 games take
# well under a minute), and how often it looks. PostgreSQL's advisory lock for it (with the
# schema's hash as its second key: schemas of one database restore independently).
RESTORE_WAIT_SECONDS = 300
RESTORE_POLL_SECONDS = 0.1
RESTORE_LOCK = 0x5C0E_4EEA


class ImportProblem(ValueError):
    """The file cannot be imported; ``problems`` are sentences to show next to the field."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


@dataclass
class ImportResult:
    """What a restore did: players and games added, and the games that were already here.

    ``already_restored``: every game of the file is here already, at the same version, and
    so is every player: nothing was added (a second upload of the same file, or the second
    of a double tap). :attr:`message` says it in a sentence for the page.
    """

    players_added: int = 0
    games_added: int = 0
    games_skipped: int = 0
    skipped_uids: list[str] = field(default_factory=list)
    already_restored: bool = False

    @property
    def message(self) -> str:
        """What the restore did, as one sentence to show."""
        if self.already_restored:
            return _("This backup was already restored: nothing new to add.")
        games = ngettext("%(num)d game added", "%(num)d games added", self.games_added)
        players = ngettext("%(num)d player added", "%(num)d players added", self.players_added)
        skipped = ngettext(
            "%(num)d game was already here",
            "%(num)d games were already here",
            self.games_skipped,
        )
        return _(
            "Restored: %(games)s, %(players)s; %(skipped)s.",
            games=games,
            players=players,
            skipped=skipped,
        )


def parse_time(value: str) -> datetime:
    """A time from the file (checked ISO 8601) as that moment in UTC, the way the database
    keeps times: one with an offset is converted, one without is UTC already."""
    return utc_time(value)


# A surrogate written as a JSON escape (\ud800): JSON reads a pair of them as one character
# (an emoji), but one alone is text no encoding holds (nothing could store or show it).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogates(node: Any) -> bool:
    """Whether any text of the file (a value or a key) holds a lone surrogate."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts: Any = (item,)
        elif isinstance(item, dict):
            texts = item.keys()
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
            continue
        else:
            continue
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


def _not_json(line: int, column: int) -> ImportProblem:
    return ImportProblem(
        [
            _(
                "This file is not valid JSON (line %(line)d, column %(column)d).",
                line=line,
                column=column,
            )
        ]
    )


# The top-level keys of the format (schema.json's properties); any other is refused with its
# name as soon as it is read, so a file of millions of keys is not read to its end.
TOP_LEVEL_KEYS = frozenset({"format", "version", "kind", "players", "games", "events"})
# The longest text of one record read: a real game with its whole history is ~20 KB (a
# corrected, undone-and-redone one a few times that), a player ~60 bytes. A longer record is
# refused before it is decoded, so a file of one huge array never fills the memory. The
# events are read whole: a club's year of events (tables, seatings, standings) is ~1 MB.
MAX_CHARS = {"games": 2 * 1024 * 1024, "players": 1024, "events": 8 * 1024 * 1024, "": 1024}


def _too_long(error: reading.TooLong) -> ImportProblem:
    if error.key == "games" and error.index is not None:
        where = game_place(error.index + 1)
    elif error.key == "players" and error.index is not None:
        where = player_place(error.index + 1)
    else:
        where = _("the key “%(key)s”", key=error.key[:40])
    return ImportProblem(
        [
            located(
                where,
                _(
                    "longer than any real record (%(max)d KB): nothing was read further.",
                    max=error.limit // 1024,
                ),
            )
        ]
    )


def _values(stream: BinaryIO) -> Iterator[tuple[str, Any]]:
    """The file's top-level keys and values, its players and games one at a time (key
    ``"games[]"``, after ``"games["`` where the list begins; the same for ``players``), with
    every problem of the text itself raised as an :class:`ImportProblem`: not UTF-8, not
    JSON, nested too deeply, a number too long to read, a lone surrogate, a record too long,
    a key the format does not know or one given twice."""
    values = reading.top_level(stream, ("players", "games"), MAX_CHARS)
    seen: set[str] = set()
    while True:
        try:
            key, value, text = next(values)
        except StopIteration:
            return
        except UnicodeDecodeError:
            raise ImportProblem(
                [_("This file is not text. Choose a backup saved by this app.")]
            ) from None
        except reading.JsonSyntaxError as error:
            raise _not_json(error.line, error.column) from None
        except reading.NestedTooDeeply:
            raise ImportProblem([_("This file is not valid JSON (nested too deeply).")]) from None
        except reading.NotAnObject:
            raise _not_this_format() from None
        except reading.TooLong as error:
            raise _too_long(error) from None
        except ValueError:
            # Python reads whole numbers of at most 4300 digits.
            raise ImportProblem([_("This file holds a number too long to read.")]) from None
        # Only a value with surrogate escapes is walked (a club's backup has none, or emoji).
        if _SURROGATE_ESCAPE.search(text) and _lone_surrogates(value):
            raise ImportProblem(
                [_("This file holds text that is not valid Unicode (a lone surrogate).")]
            )
        if not key.endswith("[]"):
            name = key.removesuffix("[")
            if name not in TOP_LEVEL_KEYS:
                raise ImportProblem(
                    [
                        _(
                            "This file has a key the format does not know at its top level: "
                            "“%(key)s”.",
                            key=name[:40],
                        )
                    ]
                )
            if name in seen:
                raise ImportProblem(
                    [_("The key “%(key)s” appears twice at the top level of this file.", key=name)]
                )
            seen.add(name)
        yield key, value


def _not_this_format() -> ImportProblem:
    return ImportProblem([_("This file is not a Wizard Scorekeeper backup or game export.")])


def _refuse(problems: list[str], more: int = 0) -> None:
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        more += len(problems) - len(shown)
        if more:
            shown.append(
                ngettext("… and %(num)d more problem.", "… and %(num)d more problems.", more)
            )
        raise ImportProblem(shown)


class _Problems:
    """Problems found so far: the first few to show, and how many more there were."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.more = 0

    def add(self, problems: Iterable[str]) -> None:
        for problem in problems:
            if len(self.shown) < MAX_PROBLEMS_SHOWN:
                self.shown.append(problem)
            else:
                self.more += 1

    def __bool__(self) -> bool:
        return bool(self.shown)

    def refuse(self) -> None:
        _refuse(self.shown, self.more)


@dataclass
class _Head:
    """What a file says besides its games: checked, with the players' roster keys."""

    version: int
    players: list[dict]
    keys: set[str]


# The envelope's keys a file must give before its games to be checked in one pass.
_HEAD_KEYS = frozenset({"format", "version", "players"})


def _read_head(stream: BinaryIO) -> tuple[dict[str, Any], int | None]:
    """The file's keys other than its games (``games`` is ``[]`` when the file lists them),
    and how many games it lists when that had to be counted: this app writes its players
    before its games, but a file that lists them after (version 1 sorted its keys) is read
    through once first."""
    stream.seek(0)
    head: dict[str, Any] = {}
    count = None
    for key, value in _values(stream):
        if key == "games[":
            head["games"] = []
            if head.keys() >= _HEAD_KEYS:
                break
            count = 0
        elif key == "games[]":
            count = (count or 0) + 1
            if count > MAX_GAMES:
                raise ImportProblem(_too_many_games(count))
        elif key == "players[":
            head["players"] = []
        elif key == "players[]":
            head["players"].append(value)
            if len(head["players"]) > MAX_PLAYERS:
                raise ImportProblem(_too_many_players())
        else:
            head[key] = value
    return head, count


def _check_head(head: dict[str, Any], count: int | None) -> _Head:
    """Format, version, the envelope's shape and the players' names: step by step."""
    if head.get("format") != FORMAT:
        raise _not_this_format()
    version = head.get("version")
    if type(version) is not int or version not in READABLE:
        raise ImportProblem(
            [
                _(
                    "This file is format version %(found)s; this app reads version %(known)d.",
                    found=str(version)[:20],
                    known=VERSION,
                )
            ]
        )
    if count is not None and count > MAX_GAMES:
        raise ImportProblem(_too_many_games(count))
    _refuse(shape_problems(head))
    problems = []
    keys: set[str] = set()
    for number, player in enumerate(head["players"], start=1):
        problem = name_problem(player["name"])
        if problem is None:
            keys.add(player_key(player["name"]))
        else:
            problems.append(located(player_place(number), problem))
    _refuse(problems)
    return _Head(version, head["players"], keys)


def _too_many_games(count: int) -> list[str]:
    # Counted up to one more than the limit: the rest is never read.
    return [
        _(
            "This file lists more than %(max)d games; at most %(max)d can be restored at once.",
            max=MAX_GAMES,
        )
    ]


def _too_many_players() -> list[str]:
    return [
        _(
            "This file lists more than %(max)d players; at most %(max)d can be restored at once.",
            max=MAX_PLAYERS,
        )
    ]


def _games(stream: BinaryIO) -> Iterator[Any]:
    """The file's games, one at a time; one more than MAX_GAMES refuses the file there."""
    stream.seek(0)
    count = 0
    for key, value in _values(stream):
        if key == "games[]":
            count += 1
            if count > MAX_GAMES:
                raise ImportProblem(_too_many_games(count))
            yield value


def check_file(stream: BinaryIO) -> _Head:
    """Check a whole file, reading one game at a time; raises :class:`ImportProblem` with
    every problem of the first step that found any: the text, the format and version, the
    lists' lengths, the shape of every record, then what the schema cannot see."""
    head = _check_head(*_read_head(stream))
    counts, shapes, contents = _Problems(), _Problems(), _Problems()
    envelope = {"format": FORMAT, "version": head.version, "players": []}
    uids: set[str] = set()
    count = 0
    for index, game in enumerate(_games(stream)):
        count += 1
        if count > MAX_GAMES:
            continue  # only counted now: too many games is all that is reported
        part = {**envelope, "games": [game]}
        if found := count_problems(part, first_game=index):
            counts.add(found)
        if counts:
            continue  # a list too long: only those are reported
        if len(shapes.shown) + shapes.more >= MAX_ERRORS_READ:
            # Enough described: a game of the wrong shape is only counted as one more.
            if not quick_check()(part):
                shapes.add([""])
            continue
        found = shape_problems(part, first_game=index)
        shapes.add(found)
        if found or shapes:
            continue
        contents.add(_file_game_problems(game, index + 1, head, uids))
    if count > MAX_GAMES:
        raise ImportProblem(_too_many_games(count))
    for problems in (counts, shapes, contents):
        problems.refuse()
    return head


def _file_game_problems(game: dict, number: int, head: _Head, uids: set[str]) -> list[str]:
    """What the schema cannot see in one game of the file (its shape checked)."""
    where = game_place(number)
    problems = []
    if game["uid"] in uids:
        problems.append(located(where, _("this game appears twice in the file.")))
    uids.add(game["uid"])
    return problems + _game_problems(game, where, head.keys, head.version)


def parse(raw: bytes) -> dict:
    """Read and check a whole file given as bytes; raises :class:`ImportProblem` with every
    problem found. (A restore checks the file as it reads it: :func:`import_file`.)"""
    check_file(io.BytesIO(raw))
    return json.loads(raw.decode("utf-8-sig"))


# --- what the schema cannot see ------------------------------------------------------------


def clean_name(name: str) -> str:
    """A name as the roster stores it: spaces collapsed, accents composed (NFC)."""
    return unicodedata.normalize("NFC", " ".join(name.split()))


def player_key(name: str) -> str:
    """The roster identity of a name in the file: "Zoë" typed decomposed is the same player."""
    return name_key(clean_name(name))


# Characters nobody types or sees in a name: control characters (NUL, escapes, tabs …), lone
# surrogates (no text encoding holds them) and code points Unicode has not assigned.
_NOT_IN_NAMES = frozenset({"Cc", "Cs", "Cn"})


def name_problem(name: str) -> str | None:
    """What is wrong with a player's name in the file, or None."""
    if any(unicodedata.category(char) in _NOT_IN_NAMES for char in name):
        return _("the name can only hold letters, digits and signs.")
    if not (0 < len(player_key(name)) <= NAME_MAX and len(clean_name(name)) <= NAME_MAX):
        return _("the name must have 1 to 40 characters.")
    return None


def content_problems(data: dict) -> list[str]:
    """Problems of a whole file of the right shape: names, repeated games, seats, game rules
    and histories (a restore checks a file this way one game at a time: :func:`check_file`)."""
    problems: list[str] = []
    keys: set[str] = set()
    for number, player in enumerate(data["players"], start=1):
        problem = name_problem(player["name"])
        if problem is None:
            keys.add(player_key(player["name"]))
        else:
            problems.append(located(player_place(number), problem))
    head = _Head(data["version"], data["players"], keys)
    uids: set[str] = set()
    for number, game in enumerate(data["games"], start=1):
        problems.extend(_file_game_problems(game, number, head, uids))
    return problems


def _game_problems(game: dict, where: str, player_keys: set[str], version: int) -> list[str]:
    """The game's rules, its seats against the file's players, its rounds and its history."""
    try:
        game_rules = rules.GameRules.from_dict(game["rules"])
    except rules.RulesError as error:
        reasons = "; ".join(messages.problem_message(p) for p in error.problems)
        return [located(where, _("its rules are not valid: %(reasons)s", reasons=reasons))]
    except TypeError:
        return [located(where, _("its rules are not valid."))]
    players = game_rules.players
    if len(game["seats"]) != players:
        return [located(where, _("it needs %(count)d seats, one per player.", count=players))]
    problems = []
    seat_keys = [player_key(name) for name in game["seats"]]
    if not (all(seat_keys) and set(seat_keys) <= player_keys):
        problems.append(_("every seat must name a player of the file."))
    if len(set(seat_keys)) != players:
        problems.append(_("a player sits twice."))
    if game["first_dealer"] >= players:
        problems.append(seat_message("first_dealer", players))
    raw_history = game.get("history", [])
    versions = [change["version"] for change in raw_history]
    if len(set(versions)) != len(versions):
        problems.append(_("two history entries have the same version."))
    elif versions and max(versions) != game["version"]:
        # The next write is based on the game's version and records the one after it.
        problems.append(
            _(
                "its version (%(game)d) must be that of its latest history entry (%(last)d).",
                game=game["version"],
                last=max(versions),
            )
        )
    problems = [located(where, problem) for problem in problems]
    if problems:
        return problems
    history, found = decode_history(game, players, version, where)
    if found:
        return found
    game = {**game, "history": history}
    problems += _history_problems(history, game_rules, where)
    problems += _round_problems(game, game_rules, where)
    return problems or _undo_problems(game, game_rules, where)


def _file_state(game: dict, players: int) -> dict[str, Any]:
    """The game as the file writes it, as the history's states name it: status, finish
    time, rules and each round's whole snapshot by number."""
    return {
        "status": game["status"],
        "finished_at": game.get("finished_at"),
        "rules": game["rules"],
        "rounds": {data["number"]: _snapshot_of(data, players) for data in game["rounds"]},
    }


def _project(snapshot: Mapping[str, Any], key: str, named: Any) -> Any:
    """The value of ``key`` in a whole snapshot, in the shape a delta names it: a seat field
    an object names seat by seat gets those seats only."""
    value = snapshot.get(key)
    if key in snapshots.SEAT_KEYS and isinstance(named, Mapping):
        values = snapshots.seat_values(value)
        return {seat: values.get(int(seat)) for seat in named}
    return value


def decode_history(
    game: dict, players: int, version: int, where: str
) -> tuple[list[dict], list[str]]:
    """The game's history as the app stores it (oldest first, before and after as
    :func:`scorekeeper.snapshots.compact_states` keeps them), and the problems that keep it
    from being read.

    Version 1 gives each entry's whole before and after (compacted when stored). Version 2
    gives each entry's ``before`` (what it touched, as it was, and the rounds it dealt);
    what that was after the change is read walking back from the game as the file writes it.
    """
    entries = sorted(game.get("history", []), key=lambda change: change["version"])
    position = {id(change): number for number, change in enumerate(game.get("history", []), 1)}
    stored: list[dict] = []
    if version == 1:
        return entries, []  # whole before and after: compacted when stored
    state = _file_state(game, players)
    problems: list[str] = []
    for change in reversed(entries):
        if change["action"] == ChangeAction.CREATE_GAME:
            stored.append(change)
            continue
        before = dict(change["before"])
        dealt = before.pop("new_rounds", [])
        rounds = state["rounds"]
        after: dict[str, Any] = {
            name: state[name] for name in snapshots.STATE_FIELDS if name in before
        }
        after["rounds"] = []
        broken = any(number not in rounds for number in dealt)
        for data in before["rounds"]:
            number = data["number"]
            if number in dealt:
                broken = True
            elif number in rounds:
                after["rounds"].append(
                    {key: _project(rounds[number], key, value) for key, value in data.items()}
                )
            elif "hand_size" not in data or "dealer" not in data:
                broken = True  # a round the change removed is written whole
        if broken:
            place = history_place(where, position[id(change)])
            problems.append(located(place, state_message("before")))
            continue
        after["rounds"].extend(rounds[number] for number in sorted(dealt))
        after["rounds"].sort(key=lambda data: data["number"])
        after |= change.get("after") or {}
        stored.append({**change, "before": before, "after": after})
        state = snapshots.step_back(state, before, dealt, players)
    stored.reverse()
    return stored, problems


def _history_problems(history: list[dict], game_rules: rules.GameRules, where: str) -> list[str]:
    """What the schema cannot see in each entry: its rounds against the game's seats and cards,
    the rules it records, and the change an undo names."""
    problems = []
    by_version = {change["version"]: change for change in history}
    same_rules = {json.dumps(game_rules.to_dict(), sort_keys=True)}
    for number, change in enumerate(history, start=1):
        if change["action"] == ChangeAction.CREATE_GAME:
            found = _start_problems(change["after"], game_rules, same_rules)
        else:
            found = []
            for state in (change["before"], change["after"]):
                found += _state_problems(state, game_rules, same_rules)
            if change["action"] == ChangeAction.UNDO:
                undone = by_version.get(change["after"]["undoes"])
                if (
                    undone is None
                    or undone["version"] >= change["version"]
                    or undone["action"] in (ChangeAction.CREATE_GAME, ChangeAction.UNDO)
                    or undone["action"] != change["after"]["undone_action"]
                ):
                    found.append(_("it undoes a change that is not earlier in its history."))
        place = history_place(where, number)
        problems.extend(located(place, problem) for problem in dict.fromkeys(found))
    return problems


def _undo_problems(game: dict, game_rules: rules.GameRules, where: str) -> list[str]:
    """Undo steps back through the history, putting each change's ``before`` back (see
    :func:`scorekeeper.changes.undo`): every game it can lead to must still be one the
    score sheet can be computed for — rounds numbered 1, 2, 3 …, the scored ones first with
    every bid and every player's tricks, then at most one being played. ``game["history"]``
    is as the app stores it (:func:`decode_history`)."""
    players = game_rules.players
    rounds = {data["number"]: _snapshot_of(data, players) for data in game["rounds"]}
    saboteur = dict.fromkeys(rounds, game_rules.saboteur)
    in_force = game_rules.saboteur
    history = game.get("history", [])
    position = {change["version"]: number for number, change in enumerate(history, start=1)}
    undone = {c["after"]["undoes"] for c in history if c["action"] == ChangeAction.UNDO}
    for change in sorted(history, key=lambda change: change["version"], reverse=True):
        if change["action"] in (ChangeAction.CREATE_GAME, ChangeAction.UNDO):
            continue
        if change["version"] in undone:
            continue
        before, after = change["before"], change["after"]
        if "rules" in before:
            in_force = bool(before["rules"].get("saboteur", False))
        kept = {snapshot["number"]: snapshot for snapshot in before["rounds"]}
        for snapshot in after["rounds"]:
            if snapshot["number"] not in kept:
                rounds.pop(snapshot["number"], None)
        complete = True
        for number, snapshot in kept.items():
            if number not in rounds and ("hand_size" not in snapshot or "dealer" not in snapshot):
                complete = False
            rounds[number] = snapshots.overlay_round(rounds.get(number), snapshot, players)
            saboteur[number] = in_force
        if not (complete and _sheet_can_be_made(rounds, saboteur)):
            place = history_place(where, position[change["version"]])
            message = _("undoing it would leave the game's rounds out of order or incomplete.")
            return [located(place, message)]
    return []


def _snapshot_of(round_: dict, players: int) -> dict:
    """A round of the file as a whole history snapshot (lists by seat)."""
    by_seat = {entry["seat"]: entry for entry in round_["entries"]}
    data = {key: value for key, value in round_.items() if key != "entries"}
    for name in snapshots.SEAT_FIELDS:
        values = [by_seat.get(seat, {}).get(name) for seat in range(players)]
        data[snapshots.snapshot_key(name)] = values
    return snapshots.full_snapshot(data, players)


def _sheet_can_be_made(rounds: Mapping[int, dict], saboteur: Mapping[int, bool]) -> bool:
    """Whether these rounds (snapshots by number) make a score sheet: see
    :func:`rules.score_sheet`, which refuses rounds out of sequence or missing a number."""
    numbers = sorted(rounds)
    if numbers != list(range(1, len(numbers) + 1)):
        return False
    states = [rounds[number]["state"] for number in numbers]
    scored = states.count(RoundState.SCORED)
    if RoundState.SCORED in states[scored:] or len(states) - scored > 1:
        return False
    for number in numbers[:scored]:
        snapshot = rounds[number]
        sits_out = snapshot["dealer"] if saboteur.get(number) else None
        if any(took is None for took in snapshot["tricks"]) or any(
            bid is None for seat, bid in enumerate(snapshot["bids"]) if seat != sits_out
        ):
            return False
    return True


def _rules_fit(data: dict, game_rules: rules.GameRules, valid: set[str]) -> bool:
    """Whether rules a history entry records are rules for this game (its players); ``valid``
    remembers rules found good, as every entry of a game records the same few."""
    text = json.dumps(data, sort_keys=True)
    if text in valid:
        return True
    try:
        fits = rules.GameRules.from_dict(data).players == game_rules.players
    except (rules.RulesError, TypeError):
        return False
    if fits:
        valid.add(text)
    return fits


def _start_problems(after: dict, game_rules: rules.GameRules, valid: set[str]) -> list[str]:
    """The start of the game: a name per seat, a first dealer among them, rules for them."""
    players = game_rules.players
    if (
        len(after["players"]) != players
        or any(name_problem(name) for name in after["players"])
        or after["first_dealer"] >= players
        or not _rules_fit(after["rules"], game_rules, valid)
    ):
        return [_("the start it records does not fit the game's seats and rules.")]
    return []


def _state_problems(state: dict, game_rules: rules.GameRules, valid: set[str]) -> list[str]:
    """A before/after state: rounds of this game's seats and cards (what undo would write
    back), rules for this game's players (what undo of a plan edit would put back). A round
    is checked for the fields it names; a seat field listing every seat lists each player's."""
    found = []
    players, top = game_rules.players, game_rules.max_hand_size
    for snapshot in state["rounds"]:
        named = [snapshot[key] for key in snapshots.SEAT_KEYS if key in snapshot]
        by_seat = [snapshots.seat_values(values) for values in named]
        values = [value for seat_values in by_seat for value in seat_values.values()]
        seats = [seat for seat_values in by_seat for seat in seat_values]
        if (
            any(isinstance(values, list) and len(values) != players for values in named)
            or any(seat >= players for seat in seats)
            or (snapshot.get("dealer") or 0) >= players
            or (snapshot.get("cloud_seat") or 0) >= players
            or (snapshot.get("hand_size") or 0) > top
            or any(value is not None and value > top for value in values)
        ):
            found.append(_("a round it records does not fit the game's seats and cards."))
    if "rules" in state and not _rules_fit(state["rules"], game_rules, valid):
        found.append(_("the rules it records are not valid for this game."))
    return found


def _round_problems(game: dict, game_rules: rules.GameRules, where: str) -> list[str]:
    """Each round within the game's seats and the cards of its plan; the scored rounds first
    and the status they give; then the scored ones against the rules."""
    players, top = game_rules.players, game_rules.max_hand_size
    # The plan as stored is the one in force: a custom plan's edit keeps the dealt rounds.
    plan = game_rules.hand_sizes
    problems: list[str] = []
    scored: list[rules.RoundRecord] = []
    for number, round_ in enumerate(game["rounds"], start=1):
        found = []
        if round_["number"] != number:
            found.append(_("rounds must be numbered 1, 2, 3 …"))
        if round_["hand_size"] > top:
            found.append(cards_message(top))
        elif number > len(plan):
            found.append(
                ngettext(
                    "the game's plan has only %(num)d round.",
                    "the game's plan has only %(num)d rounds.",
                    len(plan),
                )
            )
        elif round_["hand_size"] != plan[number - 1]:
            found.append(
                ngettext(
                    "the plan deals %(num)d card in this round, not %(found)d.",
                    "the plan deals %(num)d cards in this round, not %(found)d.",
                    plan[number - 1],
                    found=round_["hand_size"],
                )
            )
        for name in ("dealer", "cloud_seat"):
            if (round_.get(name) or 0) >= players:
                found.append(seat_message(name, players))
        seats = [entry["seat"] for entry in round_["entries"]]
        if max(seats, default=0) >= players:
            found.append(_("an entry names no seat."))
        if len(set(seats)) != len(seats):
            found.append(_("a seat has two entries."))
        if not found and round_["state"] == RoundState.SCORED:
            if (
                any(entry.get("tricks") is None for entry in round_["entries"])
                or len(seats) != players
            ):
                found.append(_("a scored round needs every player's tricks."))
            else:
                scored.append(_record(number, round_, players))
        problems.extend(located(round_place(where, number), problem) for problem in found)
    if problems:
        return problems
    problems = [located(where, problem) for problem in _progress_problems(game, len(plan))]
    if problems:
        return problems
    return _scored_round_problems(game_rules, scored, game.get("history", []), where)


def _progress_problems(game: dict, planned: int) -> list[str]:
    """The rounds' states and the game's status as the table leaves them: the scored rounds
    first, then at most one being played; a finished game has its whole plan scored, a game
    in progress has not (an abandoned one stopped wherever it was)."""
    states = [round_["state"] for round_ in game["rounds"]]
    scored = states.count(RoundState.SCORED)
    if RoundState.SCORED in states[scored:] or len(states) - scored > 1:
        return [_("only its last round can be still unscored.")]
    if game["status"] == GameStatus.FINISHED and scored != planned:
        return [
            ngettext(
                "a finished game must have all %(num)d round of its plan scored.",
                "a finished game must have all %(num)d rounds of its plan scored.",
                planned,
            )
        ]
    if game["status"] == GameStatus.IN_PROGRESS and scored == planned:
        return [_("every round of its plan is scored: the game is over, not in progress.")]
    return []


def _record(number: int, round_: dict, players: int) -> rules.RoundRecord:
    entries = [
        (e["seat"], e.get("bid"), e.get("cloud_bid"), e["tricks"]) for e in round_["entries"]
    ]
    return records.record_from(
        number,
        round_["hand_size"],
        round_["dealer"],
        bool(round_.get("bomb_played")),
        entries,
        players,
    )


def _corrected_after(history: list[dict]) -> Callable[[int], bool]:
    """Whether the history shows round ``number`` saved (recorded or corrected) and, after
    that, a correction of an earlier round: the only way the app stores a bid the running
    totals as they are now forbid. Undone changes do not count."""
    undone = {c["after"]["undoes"] for c in history if c["action"] == ChangeAction.UNDO}
    saved: dict[int, int] = {}
    corrections: list[tuple[int, int]] = []
    for change in history:
        number = change.get("round_number")
        if change["version"] in undone or number is None:
            continue
        if change["action"] in (ChangeAction.RECORD_ROUND, ChangeAction.EDIT_ROUND):
            saved[number] = max(saved.get(number, 0), change["version"])
        if change["action"] == ChangeAction.EDIT_ROUND:
            corrections.append((number, change["version"]))

    def corrected_after(number: int) -> bool:
        return number in saved and any(
            earlier < number and version > saved[number] for earlier, version in corrections
        )

    return corrected_after


def _scored_round_problems(
    game_rules: rules.GameRules, scored: list[rules.RoundRecord], history: list[dict], where: str
) -> list[str]:
    """Each scored round against the game's rules, with the totals before it.

    A bid the totals as they are now forbid is excused only when a correction can have
    caused it (see :func:`rules.flagged_rounds`): the bid is allowed whoever leads (the
    Canadian rule binds a player leading alone; ±1 binds whatever the totals), and the
    history shows an earlier round corrected after this one was saved. The app keeps and
    flags such a round, so a restore accepts it. So it does in a game entered from a
    paper sheet (its start says ``on_paper``): the sheet keeps a forbidden bid as it was
    played, and flags it. Any other forbidden bid is refused.
    """
    try:
        sheet = rules.score_sheet(game_rules, scored)
    except rules.RulesError as error:
        reasons = "; ".join(dict.fromkeys(messages.problem_message(p) for p in error.problems))
        return [
            located(
                where, _("its rounds break the rules of the game: %(reasons)s", reasons=reasons)
            )
        ]
    corrected_after = _corrected_after(history)
    on_paper = any(
        change["action"] == ChangeAction.CREATE_GAME
        and isinstance(change.get("after"), dict)
        and change["after"].get(ON_PAPER) is True
        for change in history
    )
    problems = []
    for record in scored:
        found = rules.validate_round(game_rules, record, sheet.totals_before(record.number))
        if any(p.code == rules.ProblemCode.FORBIDDEN_BID for p in found) and (
            on_paper
            or (corrected_after(record.number) and _forbidden_only_by_totals(game_rules, record))
        ):
            found = tuple(p for p in found if p.code != rules.ProblemCode.FORBIDDEN_BID)
        if found:
            reasons = "; ".join(
                dict.fromkeys(messages.problem_message(p, with_round=False) for p in found)
            )
            problems.append(
                located(
                    round_place(where, record.number),
                    _("it breaks the rules of the game: %(reasons)s", reasons=reasons),
                )
            )
    return problems


def _forbidden_only_by_totals(game_rules: rules.GameRules, record: rules.RoundRecord) -> bool:
    """Whether the round's bids pass the bid rule with other running totals (nobody ahead)."""
    level = rules.validate_bids(
        game_rules,
        record.number,
        record.hand_size,
        record.dealer,
        dict(enumerate(record.bids)),
        (0,) * game_rules.players,
    )
    return all(p.code != rules.ProblemCode.FORBIDDEN_BID for p in level)


# --- writing -------------------------------------------------------------------------------


def restore(data: dict) -> ImportResult:
    """Add the players and games of a whole, checked file that are not here yet, in the
    caller's transaction (a restore reads a file one game at a time: :func:`import_file`)."""
    result = _write(data["players"], iter(data["games"]), data["version"])
    _restore_events(data.get("events"))
    return result


def _restore_events(records: Any) -> None:
    """The file's events, after its players and games (:mod:`.events`)."""
    try:
        restore_events(records)
    except EventsProblem as problem:
        raise ImportProblem(problem.problems) from None


def _file_events(stream: BinaryIO) -> Any:
    """The file's ``events`` (None in a file without them), read after its games."""
    stream.seek(0)
    for key, value in _values(stream):
        if key == "events":
            return value
    return None


def _write(players: list[dict], games: Iterator[dict], version: int) -> ImportResult:
    """Add the file's players and games that are not here yet, in the caller's transaction,
    :data:`GAMES_PER_BATCH` games per statement.

    Players are matched by name (case, spaces and Unicode composition ignored), then by a
    name they had before a rename or merge (an alias), games by their identifier. When
    every game is here already at its version, and every player, nothing is added and the
    result says the file was already restored.
    """
    result = ImportResult()
    wanted = {player_key(p["name"]): p for p in players}
    ids = {
        key: player_id
        for keys in _chunks(list(wanted))
        for key, player_id in db.session.execute(
            sa.select(Player.name_key, Player.id).where(Player.name_key.in_(keys))
        )
    }
    ids |= {
        key: player_id
        for keys in _chunks([key for key in wanted if key not in ids])
        for key, player_id in db.session.execute(
            sa.select(PlayerAlias.name_key, PlayerAlias.player_id).where(
                PlayerAlias.name_key.in_(keys)
            )
        )
    }
    new_entries = [(key, entry) for key, entry in sorted(wanted.items()) if key not in ids]
    free = _free_player_ids([entry.get("id") for _key, entry in new_entries])
    kept = {key: free.pop(entry["id"]) for key, entry in new_entries if entry.get("id") in free}
    # The players keeping their id first, then the sequence past them: a new id given to
    # the others cannot be one of theirs.
    for renumbered in (False, True):
        for key, entry in new_entries:
            if (key not in kept) != renumbered:
                continue
            new = Player(clean_name(entry["name"]))
            if key in kept:
                new.id = kept[key]  # the player's links (/players/<id>) still hold
            if entry.get("created_at"):
                new.created_at = parse_time(entry["created_at"])
            db.session.add(new)
            db.session.flush()
            ids[key] = new.id
            result.players_added += 1
        if kept and not renumbered:
            _players_sequence_past_ids()
    all_here = True
    while batch := list(_take(games, GAMES_PER_BATCH)):
        present = present_versions([game["uid"] for game in batch])
        new_games = []
        for game in batch:
            if game["uid"] in present:
                all_here = all_here and present[game["uid"]] == game["version"]
                result.games_skipped += 1
                result.skipped_uids.append(game["uid"])
            else:
                new_games.append(game)
        _insert_games(new_games, ids, version)
        result.games_added += len(new_games)
    if result.games_skipped and all_here and not (result.games_added or result.players_added):
        result.already_restored = True
    return result


def _free_player_ids(wanted: list[Any]) -> dict[int, int]:
    """The ids among ``wanted`` (a file's player ids) that no player here has, nor had: not
    on the roster, not in its log (a player merged away may come back by an undo), not in
    a ladder's rows. A restore into an empty instance keeps every one."""
    candidates = sorted({i for i in wanted if isinstance(i, int) and not isinstance(i, bool)})
    taken: set[int] = set()
    for chunk in _chunks(candidates):
        for column in (
            Player.id,
            PlayerChange.player_id,
            PlayerChange.other_id,
            LadderRating.player_id,
        ):
            taken.update(db.session.scalars(sa.select(column).where(column.in_(chunk))))
    return {i: i for i in candidates if i not in taken}


def _players_sequence_past_ids() -> None:
    """PostgreSQL: players inserted with their ids leave the id sequence behind; it goes on
    after the highest id (never back: ids of players merged away stay unused)."""
    if db.session.get_bind().dialect.name != "postgresql":
        return
    db.session.execute(
        sa.text(
            "SELECT setval(pg_get_serial_sequence('players', 'id'), GREATEST("
            "(SELECT max(id) FROM players), nextval(pg_get_serial_sequence('players', 'id'))))"
        )
    )


def _take(items: Iterator[dict], count: int) -> Iterator[dict]:
    for _number in range(count):
        item = next(items, None)
        if item is None:
            return
        yield item


def present_versions(uids: list[str]) -> dict[str, int]:
    """The games of these identifiers that are here already, with their versions."""
    found: dict[str, int] = {}
    for chunk in _chunks(uids):
        query = sa.select(Game.uid, Game.version).where(Game.uid.in_(chunk))
        found.update((uid, version) for uid, version in db.session.execute(query))
    return found


def _chunks(values: list[str]) -> Iterator[list[str]]:
    """``values`` in pieces of :data:`LOOKUP_CHUNK`, one query each: a single IN list of a
    whole file's names would exceed what SQLite or PostgreSQL take in one statement."""
    for start in range(0, len(values), LOOKUP_CHUNK):
        yield values[start : start + LOOKUP_CHUNK]


def _insert_games(games: list[dict], player_ids: Mapping[str, int], version: int) -> None:
    """Insert checked games with their seats, rounds, entries and history: one statement per
    table for all of them (an ORM object per row would take several times as long)."""
    if not games:
        return
    raise_data_version(db.session())  # bulk inserts do not go through the ORM's flush
    game_ids = db.session.scalars(
        sa.insert(Game).returning(Game.id, sort_by_parameter_order=True),
        [_game_row(data) for data in games],
    ).all()
    seats, rounds, entries, changes = [], [], [], []
    for game_id, data in zip(game_ids, games, strict=True):
        seated: dict[int, str] = {}
        for position, name in enumerate(data["seats"]):
            player_id = player_ids[player_key(name)]
            if player_id in seated:
                raise ImportProblem([_merged_at_one_table(data, seated[player_id], name)])
            seated[player_id] = name
            seats.append({"game_id": game_id, "player_id": player_id, "position": position})
        game_rules = rules.GameRules.from_dict(data["rules"])
        for round_data in data["rounds"]:
            round_ = snapshots.round_from_export(round_data)
            _bring_back_hidden_bids(round_, game_rules)
            row = {name: getattr(round_, name) for name in snapshots.ROUND_FIELDS}
            rounds.append({**row, "game_id": game_id})
            entries.append(
                [
                    {"seat": entry.seat, **{n: getattr(entry, n) for n in snapshots.SEAT_FIELDS}}
                    for entry in round_.entries
                ]
            )
        history, _problems = decode_history(data, game_rules.players, version, "")
        for change in history:
            before, after = snapshots.compact_states(change.get("before"), change.get("after"))
            changes.append(
                {
                    "game_id": game_id,
                    "version": change["version"],
                    "action": change["action"],
                    "round_number": change.get("round_number"),
                    "before": before,
                    "after": after,
                    "created_at": parse_time(change["created_at"]),
                }
            )
    db.session.execute(sa.insert(Seat), seats)
    if rounds:
        round_ids = db.session.scalars(
            sa.insert(Round).returning(Round.id, sort_by_parameter_order=True), rounds
        ).all()
        rows = [
            {**entry, "round_id": round_id}
            for round_id, round_entries in zip(round_ids, entries, strict=True)
            for entry in round_entries
        ]
        if rows:
            db.session.execute(sa.insert(Entry), rows)
    if changes:
        db.session.execute(sa.insert(Change), changes)
    # Each batch's results with its games, in the restore's transaction (bulk inserts do
    # not go through the ORM, which notes the games whose results are due).
    results.store(db.session(), game_ids)


def _merged_at_one_table(data: dict, first: str, second: str) -> str:
    """Why a game of the file cannot be added: two of its players are one player here."""
    return _(
        "The game of %(date)s seats %(first)s and %(second)s, who are one player here (renamed"
        " or merged): it cannot be added.",
        date=format_date(parse_time(data["created_at"]), "medium"),
        first=clean_name(first),
        second=clean_name(second),
    )


def _game_row(data: dict) -> dict[str, Any]:
    return {
        "uid": data["uid"],
        "live_token": data.get("live_token") or uuid.uuid4().hex,
        "status": data["status"],
        "rules": data["rules"],
        "first_dealer": data["first_dealer"],
        "version": data["version"],
        "created_at": parse_time(data["created_at"]),
        "updated_at": parse_time(data["updated_at"]),
        "finished_at": parse_time(data["finished_at"]) if data.get("finished_at") else None,
    }


def _bring_back_hidden_bids(round_: Round, game_rules: rules.GameRules) -> None:
    """A round whose secret bids the file left out (the export hides bids not revealed yet)
    comes back as the table can go on with it: waiting for the bids again, or with the
    Jester bid's zeros, which the rules decide. A round that kept its bids (a file written
    before backups hid them) is left as it is."""
    if not rules.bids_are_secret(game_rules, round_.state == RoundState.SCORED):
        return
    bidders = rules.bid_order(game_rules, round_.dealer)
    entries = {entry.seat: entry for entry in round_.entries}
    if all(seat in entries and entries[seat].bid is not None for seat in bidders):
        return
    if game_rules.jester_bid:
        for seat in bidders:
            if seat in entries:
                entries[seat].bid = 0
        return
    round_.state = RoundState.BIDDING
    for entry in round_.entries:
        entry.bid = entry.cloud_bid = None


def import_file(source: bytes | BinaryIO) -> ImportResult:
    """Check and restore a file (its bytes, or a binary file open for reading that can be
    read again from the start) in one transaction; on any problem nothing is stored.

    The file is read twice, one game at a time: once to check it all (:func:`check_file`),
    then to write it, so memory holds a few games, never the whole file.

    Two restores at once (a double tap, or two phones) are checked side by side, then take
    turns (:func:`restore_turn`): the second begins after the first has committed, finds
    its games and answers "already restored" (or adds what is still missing). Only a real
    clash — a live link or game identifier of another game — refuses the file.
    """
    stream = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    head = check_file(stream)
    with restore_turn():
        return _import_checked(stream, head)


def _busy_restoring() -> ImportProblem:
    return ImportProblem(
        [_("Another change was being saved at the same moment: restore it again.")]
    )


@contextlib.contextmanager
def restore_turn() -> Iterator[None]:
    """Restores of one database take turns, from every thread, process and host: the second
    waits (up to :data:`RESTORE_WAIT_SECONDS`) until the first has committed or failed, and
    only then begins its transaction — so it reads what the first stored, and a file the
    first restored is "already restored" however long the first one took (SQLite's write
    lock alone waits only its busy timeout). PostgreSQL: an advisory lock, held on a
    connection of its own (a lock taken inside the restore's transaction would come after
    its snapshot). SQLite: a lock on a file beside the database."""
    engine = db.engine
    deadline = time.monotonic() + RESTORE_WAIT_SECONDS
    if engine.dialect.name == "postgresql":
        keys = {"key": RESTORE_LOCK}
        schema_key = sa.func.hashtext(sa.func.current_schema())
        take = sa.select(sa.func.pg_try_advisory_lock(sa.bindparam("key"), schema_key))
        release = sa.select(sa.func.pg_advisory_unlock(sa.bindparam("key"), schema_key))
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            while not connection.scalar(take, keys):
                if time.monotonic() > deadline:
                    raise _busy_restoring()
                time.sleep(RESTORE_POLL_SECONDS)
            try:
                yield
            finally:
                connection.scalar(release, keys)
        return
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        yield  # a database of this process alone: its write lock is the turn
        return
    try:
        lock = open(f"{database}.restore-lock", "a+b")  # noqa: SIM115 — closed by the with below
    except OSError:  # a folder the app cannot write in: SQLite's write lock alone
        yield
        return
    with lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise _busy_restoring() from None
                time.sleep(RESTORE_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _import_checked(stream: BinaryIO, head: _Head) -> ImportResult:
    """Restore a checked file in one transaction (retried once after losing a race to a
    write that is not a restore)."""
    for attempt in (1, 2):
        # Whatever this session read before, the restore reads and writes in one transaction.
        db.session.rollback()
        try:
            with sqlite_write_lock():
                result = _write(head.players, _games(stream), head.version)
                _restore_events(_file_events(stream))
                db.session.commit()
        except sa.exc.IntegrityError:
            db.session.rollback()
            if attempt == 2:
                raise ImportProblem(
                    [_("This file clashes with data already here (a live link or history entry).")]
                ) from None
        except sa.exc.OperationalError as error:
            db.session.rollback()
            if not lost_race(error):
                raise
            if attempt == 2:
                raise _busy_restoring() from None
        except Exception:
            db.session.rollback()
            raise
        else:
            if result.games_added:
                # A club restored into a new instance: SQLite's planner sees its size.
                analyze(db.engine)
            return result
    raise AssertionError("unreachable")  # pragma: no cover
