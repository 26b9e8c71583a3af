"""The shape of a backup or game export: ``export-format.schema.json`` (JSON Schema 2020-12).

:func:`shape_problems` first counts the file's lists against the schema's limits, then asks
:func:`quick_check` (the schema compiled to plain Python) whether the file has its shape;
only a file that has not is validated with the ``jsonschema`` library, whose errors become
one translated sentence each with its place ("game 3, round 2: …"). What needs the game's
rules or other records is checked afterwards by :mod:`.restore`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from itertools import islice
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from .. import rules
from ..i18n import gettext as _
from ..i18n import ngettext

FORMAT = "wizard-scorekeeper"
# The version this app writes; it reads every version in READABLE (1: whole snapshots in each
# history entry, 2: only what each change touched).
VERSION = 2
READABLE = (1, 2)
SCHEMA_FILE = "export-format.schema.json"
# The database's limits, which the schema states; a game's own rules may narrow them.
MAX_SEATS = 6
MAX_CARDS = 20
# Versions are 32-bit integers in the database.
MAX_VERSION = 2**31 - 1
# How much one file may hold, also stated by the schema (maxItems): counted before any record
# is read, so a file with 600,000 players is refused at once instead of after a minute.
MAX_PLAYERS = 10_000
MAX_GAMES = 100_000
MAX_ROUNDS = rules.MAX_PLANNED_ROUNDS  # what a real game can have
MAX_HISTORY = 100_000
# The schema's errors read at most: enough for the problems shown, quick on a file of errors.
MAX_ERRORS_READ = 1_000

Path = tuple[str | int, ...]


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the format (versions 1 and 2), as shipped beside this module."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def _whole_number(_checker: object, value: object) -> bool:
    # JSON Schema counts 1.0 as an integer; the format writes whole numbers without a fraction.
    return isinstance(value, int) and not isinstance(value, bool)


def utc_time(value: str) -> datetime:
    """A time of the file as the moment it names, in UTC: one with an offset is converted
    (21:30+02:00 is 19:30 UTC), one without is UTC already. Raises ValueError when it is not
    ISO 8601 or the moment falls outside the years 1 to 9999 in UTC."""
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise ValueError(value) from None


def _iso_time(value: object) -> bool:
    if not isinstance(value, str):
        return True  # "type" judges non-strings
    try:
        utc_time(value)
    except ValueError:
        return False
    return True


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` with each local ``{"$ref": "#/$defs/name"}`` replaced by that definition."""
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node


@cache
def validator() -> jsonschema.protocols.Validator:
    """A validator for :func:`schema`: integers are JSON integers, times ISO 8601.

    The references are inlined first: looking them up per record would make a club's
    backup take three times as long to check.
    """
    types = Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole_number)
    cls = jsonschema.validators.extend(Draft202012Validator, type_checker=types)
    formats = jsonschema.FormatChecker(formats=())
    formats.checks("date-time")(_iso_time)
    full = schema()
    return cls(_inline(full, full.get("$defs", {})), format_checker=formats)


# --- a quick yes or no for a whole file ----------------------------------------------------

Check = Callable[[Any], bool]
# Keywords that only describe; the quick check reads every other keyword the schema uses and
# refuses to compile one it does not know, so it can never pass what the schema refuses.
_NOTES = frozenset({"$schema", "$id", "$defs", "title", "description"})
_JSON_TYPES: dict[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: _whole_number(None, value),
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}


def _same(a: object, b: object) -> bool:
    """JSON equality for ``enum`` and ``const``: true and 1 differ, as for jsonschema."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _compile(node: Mapping[str, Any]) -> Check:
    """One check for an (inlined) schema node: true when :func:`validator` finds no error.

    The keywords compile to closures, so a club's backup is judged in a fraction of the time
    jsonschema takes (which finds *where* a file is wrong, for the messages).
    """
    checks: list[Check] = []
    unknown = set(node) - _NOTES - set(_KEYWORDS)
    if unknown:
        raise ValueError(f"the quick check does not know {sorted(unknown)}")
    for keyword, build in _KEYWORDS.items():
        if keyword in node:
            check = build(node)
            if check is not None:
                checks.append(check)
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _type(node: Mapping[str, Any]) -> Check:
    kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
    tests = [_JSON_TYPES[kind] for kind in kinds]
    return lambda value: any(test(value) for test in tests)


def _enum(node: Mapping[str, Any]) -> Check:
    options = node["enum"]
    return lambda value: any(_same(value, option) for option in options)


def _const(node: Mapping[str, Any]) -> Check:
    return lambda value: _same(value, node["const"])


def _minimum(node: Mapping[str, Any]) -> Check:
    low = node["minimum"]
    return lambda value: not _is_number(value) or value >= low


def _maximum(node: Mapping[str, Any]) -> Check:
    high = node["maximum"]
    return lambda value: not _is_number(value) or value <= high


def _min_length(node: Mapping[str, Any]) -> Check:
    low = node["minLength"]
    return lambda value: not isinstance(value, str) or len(value) >= low


def _max_length(node: Mapping[str, Any]) -> Check:
    high = node["maxLength"]
    return lambda value: not isinstance(value, str) or len(value) <= high


def _pattern(node: Mapping[str, Any]) -> Check:
    search = re.compile(node["pattern"]).search
    return lambda value: not isinstance(value, str) or search(value) is not None


def _format(node: Mapping[str, Any]) -> Check | None:
    if node["format"] != "date-time":
        return None  # formats other than date-time are not checked (as by validator())
    return _iso_time


def _required(node: Mapping[str, Any]) -> Check:
    names = node["required"]
    return lambda value: not isinstance(value, dict) or all(name in value for name in names)


def _properties(node: Mapping[str, Any]) -> Check:
    known = {name: _compile(sub) for name, sub in node["properties"].items()}

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        return all(test(value[name]) for name, test in known.items() if name in value)

    return check


def _property_names(node: Mapping[str, Any]) -> Check:
    test = _compile(node["propertyNames"])
    return lambda value: not isinstance(value, dict) or all(test(key) for key in value)


def _items(node: Mapping[str, Any]) -> Check:
    test = _compile(node["items"])
    return lambda value: not isinstance(value, list) or all(test(item) for item in value)


def _min_items(node: Mapping[str, Any]) -> Check:
    low = node["minItems"]
    return lambda value: not isinstance(value, list) or len(value) >= low


def _max_items(node: Mapping[str, Any]) -> Check:
    high = node["maxItems"]
    return lambda value: not isinstance(value, list) or len(value) <= high


def _all_of(node: Mapping[str, Any]) -> Check:
    tests = [_compile(sub) for sub in node["allOf"]]
    return lambda value: all(test(value) for test in tests)


def _if(node: Mapping[str, Any]) -> Check:
    condition = _compile(node["if"])
    then = _compile(node.get("then", {}))
    otherwise = _compile(node.get("else", {}))
    return lambda value: then(value) if condition(value) else otherwise(value)


def _nothing(_node: Mapping[str, Any]) -> None:
    return None  # read with "if"


# Cheap keywords first: a wrong type stops before the properties are walked.
_KEYWORDS: dict[str, Callable[[Mapping[str, Any]], Check | None]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minimum": _minimum,
    "maximum": _maximum,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "format": _format,
    "required": _required,
    "minItems": _min_items,
    "maxItems": _max_items,
    "propertyNames": _property_names,
    "properties": _properties,
    "items": _items,
    "allOf": _all_of,
    "if": _if,
    "then": _nothing,
    "else": _nothing,
}


@cache
def quick_check() -> Check:
    """Whether a file has the schema's shape, as :func:`validator` would judge it, only faster
    (a 13 MB backup: under a second instead of five). Only a file it refuses is walked by
    jsonschema, to say where and why."""
    full = schema()
    return _compile(_inline(full, full.get("$defs", {})))


# --- places and sentences ------------------------------------------------------------------


def located(where: str, message: str) -> str:
    """A problem with its place in front ("game 3: …"), or alone when it concerns the file."""
    return f"{where}: {message}" if where else message


def player_place(number: int) -> str:
    """The place of the ``number``-th player record (from 1)."""
    return _("player %(number)d", number=number)


def game_place(number: int) -> str:
    """The place of the ``number``-th game record (from 1)."""
    return _("game %(number)d", number=number)


def round_place(game: str, number: int) -> str:
    """The place of the ``number``-th round record (from 1) of a game."""
    return _("%(game)s, round %(number)d", game=game, number=number)


def history_place(game: str, number: int) -> str:
    """The place of the ``number``-th history entry (from 1) of a game."""
    return _("%(game)s, history entry %(number)d", game=game, number=number)


def state_message(side: str) -> str:
    """A history entry's ``before`` or ``after`` is not what the app records for its action."""
    if side == "before":
        return _("the state before the change is not as the app records it.")
    return _("the state after the change is not as the app records it.")


def cards_message(top: int) -> str:
    """The rule for a round's number of cards."""
    return _("the cards must be 1 to %(max)d.", max=top)


def seat_message(field: str, players: int) -> str:
    """The rule for ``first_dealer``, ``dealer`` or ``cloud_seat``: a seat of the game."""
    last = players - 1
    if field == "first_dealer":
        return _("the first dealer must be a seat from 0 to %(last)d.", last=last)
    if field == "cloud_seat":
        return _("the Cloud's player must be a seat from 0 to %(last)d.", last=last)
    return _("the dealer must be a seat from 0 to %(last)d.", last=last)


def count_problems(data: Any, first_game: int = 0) -> list[str]:
    """The lists of the file longer than the schema allows, counted before anything else is
    read (each too long a list is one sentence); ``data["games"]`` may be a part of the
    file's games, the first of them its game number ``first_game + 1``."""
    problems = []
    players, games = data.get("players"), data.get("games")
    if isinstance(players, list) and len(players) > MAX_PLAYERS:
        problems.append(
            ngettext(
                "This file lists %(num)d player; at most %(max)d can be restored at once.",
                "This file lists %(num)d players; at most %(max)d can be restored at once.",
                len(players),
                max=MAX_PLAYERS,
            )
        )
    if isinstance(games, list) and len(games) > MAX_GAMES:
        problems.append(
            ngettext(
                "This file lists %(num)d game; at most %(max)d can be restored at once.",
                "This file lists %(num)d games; at most %(max)d can be restored at once.",
                len(games),
                max=MAX_GAMES,
            )
        )
    if problems or not isinstance(games, list):
        return problems
    for number, game in enumerate(games, start=first_game + 1):
        if not isinstance(game, Mapping):
            continue
        rounds, history = game.get("rounds"), game.get("history")
        if isinstance(rounds, list) and len(rounds) > MAX_ROUNDS:
            problems.append(
                located(
                    game_place(number),
                    ngettext(
                        "it has %(num)d round; a game has at most %(max)d.",
                        "it has %(num)d rounds; a game has at most %(max)d.",
                        len(rounds),
                        max=MAX_ROUNDS,
                    ),
                )
            )
        if isinstance(history, list) and len(history) > MAX_HISTORY:
            problems.append(
                located(
                    game_place(number),
                    ngettext(
                        "its history has %(num)d entry; a game has at most %(max)d.",
                        "its history has %(num)d entries; a game has at most %(max)d.",
                        len(history),
                        max=MAX_HISTORY,
                    ),
                )
            )
    return problems


def _game_messages(kind: str) -> dict[str, str]:
    date = _("a date is not valid.")
    return {
        "uid": _("the game identifier is missing.")
        if kind == "required"
        else _("the game identifier must be 1 to 36 characters among a-z, A-Z, 0-9, - and _."),
        "status": _("unknown game status."),
        "created_at": date,
        "updated_at": date,
        "finished_at": date,
        "version": _("the version must be at most %(max)d.", max=MAX_VERSION)
        if kind == "maximum"
        else _("the version must be 1 or more."),
        "live_token": _("the live link token is not valid."),
        "rules": _("its rules are not valid."),
        "seats": _("the seats must be a list of player names."),
        "rounds": _("the rounds are missing."),
        "history": _("the history is not a list."),
    }


def _round_messages() -> dict[str, str]:
    trump = _("the trump is not valid.")
    return {
        "number": _("rounds must be numbered 1, 2, 3 …"),
        "state": _("unknown round state."),
        "trump": trump,
        "trump_cause": trump,
        "werewolf_trump": trump,
        "werewolf_played": _("whether the Werewolf was played must be true or false."),
        "bomb_played": _("whether the Bomb was played must be true or false."),
        "entries": _("the entries are missing."),
    }


def _entry_messages(top: int) -> dict[str, str]:
    return {
        "bid": _("a bid must be empty or a whole number from 0 to %(max)d.", max=top),
        "cloud_bid": _(
            "a bid changed by the Cloud must be empty or a whole number from 0 to %(max)d.",
            max=top,
        ),
        "tricks": _("tricks must be empty or a whole number from 0 to %(max)d.", max=top),
    }


def _not_valid(field: str | int) -> str:
    return _("%(field)s is not valid.", field=str(field)[:40])


# --- from schema errors to sentences -------------------------------------------------------


def _document_order(error: ValidationError) -> tuple[tuple[bool, str | int], ...]:
    # At one depth of one container the keys are all indices or all names.
    return tuple((isinstance(key, str), key) for key in error.absolute_path)


def _paths(error: ValidationError) -> Iterator[tuple[Path, str]]:
    """Where the error is, and which keyword found it: for a missing key, the place of that
    key ("required")."""
    path = tuple(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, Mapping):
        for name in error.validator_value:
            if name not in error.instance:
                yield (*path, name), "required"
    else:
        yield path, str(error.validator)


class _Limits:
    """Each game's number of players and largest hand, as far as its rules can be read."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.known: dict[int, tuple[int, int]] = {}

    def of(self, index: int) -> tuple[int, int]:
        if index not in self.known:
            self.known[index] = (MAX_SEATS, MAX_CARDS)
            game = self.data["games"][index]
            if isinstance(game, Mapping):
                try:
                    game_rules = rules.GameRules.from_dict(game.get("rules"))
                except (rules.RulesError, TypeError):
                    pass  # the rules' own problem is reported; the limits stay the widest
                else:
                    self.known[index] = (game_rules.players, game_rules.max_hand_size)
        return self.known[index]


def _describe(path: Path, limits: _Limits, kind: str, shift: int = 0) -> str:
    """The sentence for the record or key at ``path``, with its place (the games listed are
    the file's from its game number ``shift + 1``)."""
    if len(path) > 1 and path[0] == "games" and isinstance(path[1], int):
        index = path[1]
        place = game_place(index + 1 + shift)
        match path[2:]:
            case ():
                return located(place, _("not a game record."))
            case ("rounds", int(round_number), *rest):
                where = round_place(place, round_number + 1)
                return located(where, _describe_round(rest, *limits.of(index)))
            case ("history", int(entry), "before" | "after" as side, *_):
                return located(history_place(place, entry + 1), state_message(side))
            case rest:
                return located(place, _describe_game(list(rest), *limits.of(index), kind))
    match path:
        case ("players",):
            return _("the list of players is missing.")
        case ("games",):
            return _("the list of games is missing.")
        case ("players", int(number)):
            return located(player_place(number + 1), _("not a player record."))
        case ("players", int(number), "name", *_):
            return located(player_place(number + 1), _("the name must have 1 to 40 characters."))
        case ("players", int(number), *_):
            return located(player_place(number + 1), _("the date is not valid."))
    return _not_valid(".".join(str(key) for key in path) or "file")


def _describe_game(path: list[str | int], players: int, _top: int, kind: str) -> str:
    match path:
        case ["seats", int(), *_]:
            return _("every seat must name a player of the file.")
        case ["first_dealer", *_]:
            return seat_message("first_dealer", players)
        case ["history", _, *_]:
            return _("a history entry is not valid.")
        case [str(field), *_]:
            return _game_messages(kind).get(field, _not_valid(field))
    return _not_valid(".".join(str(key) for key in path))


def _describe_round(path: list[str | int], players: int, top: int) -> str:
    match path:
        case []:
            return _("not a round record.")
        case ["hand_size", *_]:
            return cards_message(top)
        case ["dealer" | "cloud_seat" as field, *_]:
            return seat_message(field, players)
        case ["entries", int()] | ["entries", int(), "seat", *_]:
            return _("an entry names no seat.")
        case ["entries", int(), str(field), *_]:
            return _entry_messages(top).get(field, _not_valid(field))
        case [str(field), *_]:
            return _round_messages().get(field, _not_valid(field))
    return _not_valid(".".join(str(key) for key in path))


def shape_problems(data: Any, first_game: int = 0) -> list[str]:
    """Every way the file breaks the schema, one sentence each, in the file's order.

    Lists longer than the schema allows are reported alone, before any record is read; of
    the other errors the first :data:`MAX_ERRORS_READ` are described. ``data["games"]`` may
    be a part of the file's games (read a few at a time), the first its number
    ``first_game + 1``.
    """
    if isinstance(data, Mapping) and (too_many := count_problems(data, first_game)):
        return too_many
    if quick_check()(data):
        return []
    limits = _Limits(data)
    found = islice(validator().iter_errors(data), MAX_ERRORS_READ)
    errors = sorted(found, key=_document_order)
    sentences = (
        _describe(path, limits, kind, first_game)
        for error in errors
        for path, kind in _paths(error)
    )
    return list(dict.fromkeys(sentences))
