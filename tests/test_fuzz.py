"""Fuzz every POST route of the app with hostile and plausible form data (Hypothesis).

The routes are read from ``app.url_map``, so a new POST route is fuzzed without an edit here
(with every known field name when it is not in :data:`ROUTE_FIELDS`). Each example sends one
request, with or without a valid CSRF token, signed in or not, as a plain form post or as
htmx, to a fresh copy of a game in one of the states of :func:`build_templates`. Field
values mix what the page posts (small numbers, ``suit:hearts``, the game's version and a
fresh request key) with what it never posts: "²", "١", a 5,000-digit number, NUL bytes,
100,000 characters, negative numbers, floats, nothing, a field twice, a stale version, a
request key already recorded.

The properties (see :func:`judge`):

* never a 5xx (with ``TESTING`` an unhandled error is raised here with its traceback);
* a refused request — a status other than 2xx/3xx, a 2xx that shows an error
  (``role="alert"``), a redirect to the sign-in page, or any request without a valid CSRF
  token — leaves the database as it was: the game's row, rounds, entries and changes, and the
  row count and largest id of every table;
* an accepted request to a game stores exactly one change (the game's version goes up by
  one; the change carries the posted request key and the route's action, was based on the
  posted version, and stores what the request asked), or is a recognised repeat (its request
  key was recorded before) and stores nothing; starting a game or "play again" adds one game;
  the other routes (language, sign-in, seat buttons) store no game data;
* a redirect never leaves the site.

``bench/fuzz.py`` fires the same generated requests at a gunicorn-served instance.
"""

from __future__ import annotations

import codecs
import copy
import functools
import json
import math
import os
import re
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest
import sqlalchemy as sa
from flask import Flask
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from scorekeeper import changes, create_app, exchange, gameplay, rules, snapshots
from scorekeeper.extensions import db
from scorekeeper.models import Game, RoundState

PASSWORD = "fuzz-password"
# At least this many examples over all routes (each run of a route its share, rounded up).
TOTAL_EXAMPLES = 1400
POSTGRES_EXAMPLES = 450  # and as many again on PostgreSQL, when TEST_DATABASE_URL is set
ERROR_MARK = 'role="alert"'
SUITS = ("clubs", "diamonds", "hearts", "spades")
CAUSES = tuple(cause.value for cause in rules.TrumpCause)
GAME_TABLES = ("players", "games", "seats", "rounds", "entries", "changes")
MAX_SEATS = 7  # six players at most, and one seat no game has


# --- the routes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    endpoint: str
    rule: str
    arguments: tuple[str, ...]

    @property
    def game_write(self) -> bool:
        """A route of one game: an accepted request is one versioned write (or a repeat)."""
        return "game_id" in self.arguments


def post_routes(app: Flask) -> list[Route]:
    """Every route that takes a POST, in a stable order."""
    found = {
        rule.endpoint: Route(rule.endpoint, rule.rule, tuple(sorted(rule.arguments)))
        for rule in app.url_map.iter_rules()
        if "POST" in (rule.methods or ())
    }
    return [found[name] for name in sorted(found)]


# Which fields each known route reads ("name:kind" when the kind of value is not the name's).
_SEAT_BIDS = tuple(f"bid_{seat}:number" for seat in range(MAX_SEATS))
_SEAT_TRICKS = tuple(f"tricks_{seat}:tricks" for seat in range(MAX_SEATS))
_OUTCOME = ("bomb:checkbox", "cloud_seat", "cloud_change", "all_made:checkbox")
_WRITE = ("version", "request_key")
ROUTE_FIELDS: dict[str, tuple[str, ...]] = {
    "setup.new_game": (
        "action",
        "request_key:setup_key",
        "seats:names",
        "new_name:name",
        "first_dealer",
        "plan",
        "plan_rounds",
        "plan_custom",
        "bid_rule",
        "bid_rule_from:number",
        "bid_reveal",
        "saboteur:flag",
        "jester_bid:flag",
        "tie_break",
        "bomb:flag",
        "bomb_cancels_bids:flag",
        "cloud:flag",
        "werewolf:flag",
        "dragon_fairy:flag",
        "table_notes:notes",
    ),
    "play.trump": (*_WRITE, "trump"),
    "play.dealer": (*_WRITE, "dealer:number"),
    "play.bid": (*_WRITE, "seat:seat", "bid:number"),
    "play.bids": (*_WRITE, *_SEAT_BIDS),
    "play.take_back_bid": _WRITE,
    "play.werewolf": (*_WRITE, "trump:werewolf"),
    "play.tricks": (*_WRITE, *_SEAT_TRICKS, *_OUTCOME),
    "play.edit_round": (*_WRITE, "trump", *_SEAT_BIDS, *_SEAT_TRICKS, *_OUTCOME),
    "play.kept_round": (
        *_WRITE,
        "trump",
        *_SEAT_BIDS,
        *_SEAT_TRICKS,
        *_OUTCOME,
        "replace:checkbox",
        "dealer:number",
        "cards:number",
    ),
    "play.undo": _WRITE,
    "play.abandon": _WRITE,
    "play.play_again": _WRITE,
    "play.later_rounds": (*_WRITE, "later"),
    "seat.bid": (*_WRITE, "round:number", "bid:number"),
    "seat.renew_links": ("seat:seat",),
    "seat.end_link": ("seat:seat",),
    "history.restore": ("backup:file",),
    "players.rename": ("request_key", "name:name"),
    "players.merge": ("request_key", "into:text"),
    "players.undo": ("request_key",),
    "main.language": ("lang", "next"),
    "access.login": ("password", "next"),
    "access.logout": (),
}
ALL_FIELDS = tuple(sorted({spec for specs in ROUTE_FIELDS.values() for spec in specs}))
# What an accepted write of each route records (a route missing here is not checked for it).
EXPECTED_ACTION = {
    "play.trump": "set_trump",
    "play.dealer": "change_dealer",
    "play.bid": "bid",
    "play.bids": "bids",
    "play.take_back_bid": "take_back_bid",
    "play.werewolf": "werewolf",
    "play.tricks": "record_round",
    "play.edit_round": "edit_round",
    "play.kept_round": "record_round",
    "play.undo": "undo",
    "play.abandon": "abandon",
    "play.later_rounds": "edit_plan",
}
# A round kept on the table phone while offline stands on what the round holds, checked entry
# by entry, not on the version the phone last saw (unless it replaces what the round holds).
VERSIONLESS_ROUTES = frozenset({"play.kept_round"})
# Routes whose accepted request adds a game instead of changing the one in the address.
NEW_GAME_ROUTES = frozenset({"play.play_again", "setup.new_game"})
# Routes that sign in and out: they may store a sign-in, never game data.
ACCESS_ROUTES = frozenset({"access.login", "access.logout"})
# Routes that make or revoke the players' own seat links: they store seat links, nothing else.
SEAT_LINK_ROUTES = frozenset({"seat.renew_links", "seat.end_link"})
# Posts that take no form token by design (csrf.exempt): the language switch sets only the
# browser's own preference cookie and stores nothing, so a read page can carry it.
TOKENLESS_ROUTES = frozenset({"main.language"})
# Routes that change the roster: what an accepted one may store, and by how much it changes
# the number of players and of the roster's log entries.
ROSTER_ROUTES = {"players.rename": (0, 1), "players.merge": (-1, 1), "players.undo": (None, 0)}
ROSTER_TABLES = frozenset(
    {
        "players",
        "seats",
        "seat_results",
        "hand_results",
        "ladders",
        "ladder_games",
        "player_changes",
        "player_aliases",
        "data_version",
    }
)


# --- games in every state, and cheap copies of them ------------------------------------------


def _write(game: Game, action: str, numbers: Sequence[int], change: Callable[[], Any]) -> None:
    changes.apply_change(
        game,
        version=game.version,
        request_key=uuid.uuid4().hex,
        action=action,
        rounds_touched=list(numbers),
        change=change,
    )


def _first_that_works(attempt: Callable[[int], None], values: Sequence[int]) -> None:
    for value in values:
        try:
            attempt(value)
            return
        except gameplay.RulesRejected:
            db.session.rollback()
    raise AssertionError("no value was accepted")


def _trump(game: Game) -> None:
    round_ = gameplay.open_round(game)
    if gameplay.trump_is_set(round_):
        return
    game_rules = rules.GameRules.from_dict(game.rules)
    cause, suits = rules.trump_choice(game_rules, round_.number, round_.hand_size).options[0]
    suit = suits[0].value if suits[0] else None
    _write(
        game, "set_trump", [round_.number], lambda: gameplay.set_trump(game, round_, cause, suit)
    )


def _bids(game: Game, upto: int | None = None) -> None:
    """Bid (in order, or all at once) until ``upto`` bids are in or the bidding is over."""
    round_ = gameplay.open_round(game)
    game_rules = rules.GameRules.from_dict(game.rules)
    if round_.state != RoundState.BIDDING:
        return
    if game_rules.bid_reveal != rules.BidReveal.OPEN:
        bidders = rules.bid_order(game_rules, round_.dealer)

        def all_bids(value: int) -> None:
            bids = {seat: (value if seat in bidders else None) for seat in range(len(game.seats))}
            _write(game, "bids", [round_.number], lambda: gameplay.record_bids(game, round_, bids))

        _first_that_works(all_bids, range(round_.hand_size + 1))
        return
    made = 0
    while (seat := gameplay.next_bidder(game_rules, round_)) is not None:
        if upto is not None and made >= upto:
            return

        def one_bid(value: int, seat: int = seat) -> None:
            _write(
                game,
                "bid",
                [round_.number],
                lambda: gameplay.record_bid(game, round_, seat, value),
            )

        _first_that_works(one_bid, range(round_.hand_size + 1))
        made += 1


def _tricks(game: Game) -> None:
    """Everyone made their bid where that adds up, else every trick to one player."""
    round_ = gameplay.open_round(game)
    bids = gameplay.bids_of(round_)
    players = len(game.seats)
    options = [{seat: bids.get(seat) or 0 for seat in range(players)}]
    options += [
        {seat: (round_.hand_size if seat == winner else 0) for seat in range(players)}
        for winner in range(players)
    ]

    def save(index: int) -> None:
        tricks = options[index]
        _write(
            game,
            "record_round",
            [round_.number],
            lambda: gameplay.record_tricks(game, round_, tricks),
        )

    _first_that_works(save, range(len(options)))


def _play_rounds(game: Game, count: int) -> None:
    for _ in range(count):
        _trump(game)
        _bids(game)
        _tricks(game)


def _undo(game: Game) -> None:
    target = changes.undoable(game)
    _write(game, "undo", changes.rounds_of(target), lambda: changes.undo(game, target))


def _new(names: Sequence[str], key: str, **options: Any) -> Game:
    game_rules = rules.GameRules(players=len(names), **options)
    return gameplay.create_game(list(names), 0, game_rules, key)


NAMES = ("Ann", "Bob", "Cy", "Di", "Eve", "Fay")
# Each state: how to build it from a new game.
TEMPLATES: dict[str, tuple[int, dict[str, Any], Callable[[Game], None]]] = {
    "trump step": (3, {}, lambda g: None),
    "open bids half done": (4, {}, lambda g: (_play_rounds(g, 2), _trump(g), _bids(g, upto=2))),
    "tricks, Jubilee cards": (
        4,
        {"jubilee": rules.JubileeCards(bomb=True, cloud=True, werewolf=True)},
        lambda g: (_play_rounds(g, 1), _trump(g), _bids(g)),
    ),
    "Werewolf at bids": (
        3,
        {"jubilee": rules.JubileeCards(werewolf=True), "bid_rule": "free"},
        lambda g: (_play_rounds(g, 2), _trump(g)),
    ),
    "hidden bids": (
        3,
        {"bid_reveal": "hidden", "bid_rule": "free"},
        lambda g: (_play_rounds(g, 1), _trump(g)),
    ),
    "secret bids, tricks": (
        5,
        {"bid_reveal": "secret", "bid_rule": "free"},
        lambda g: (_play_rounds(g, 1), _trump(g), _bids(g)),
    ),
    "Jester bid, Saboteur": (
        3,
        {"jester_bid": True, "saboteur": True},
        lambda g: (_play_rounds(g, 1), _trump(g)),
    ),
    "Canadian, last bidder": (
        4,
        {"bid_rule": "canadian"},
        lambda g: (_play_rounds(g, 3), _trump(g), _bids(g, upto=3)),
    ),
    "custom plan": (
        3,
        {"plan": rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 2, 3, 2))},
        lambda g: (_play_rounds(g, 1), _trump(g)),
    ),
    "round saved, then undone": (3, {}, lambda g: (_play_rounds(g, 2), _undo(g))),
    "Maximus": (
        6,
        {"plan": rules.RoundPlan(rules.PlanKind.MAXIMUS)},
        lambda g: _play_rounds(g, 1),
    ),
    "finished": (
        3,
        {"plan": rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=2)},
        lambda g: _play_rounds(g, 2),
    ),
    "abandoned": (
        3,
        {},
        lambda g: (_play_rounds(g, 1), _write(g, "abandon", [], lambda: gameplay.abandon(g))),
    ),
}
TEMPLATE_NAMES = tuple(TEMPLATES)


def build_templates() -> dict[str, int]:
    """Store one game in each state of :data:`TEMPLATES` (inside an app context)."""
    built = {}
    for name, (players, options, advance) in TEMPLATES.items():
        game = _new(NAMES[:players], f"template-{uuid.uuid4().hex}", **options)
        advance(game)
        built[name] = game.id
    return built


def _table(name: str) -> sa.Table:
    return db.metadata.tables[name]


def clone_game(connection: sa.Connection, template_id: int) -> int:
    """Copy a game with its seats, rounds, entries and changes (new ids, new request keys),
    in the database: one INSERT … SELECT per table."""
    games, seats, rounds, entries, history = (
        _table(name) for name in ("games", "seats", "rounds", "entries", "changes")
    )
    row = dict(
        connection.execute(sa.select(games).where(games.c.id == template_id)).one()._mapping
    )
    row.pop("id")
    row |= {"uid": str(uuid.uuid4()), "live_token": uuid.uuid4().hex}
    if "previous_game_id" in row:
        row["previous_game_id"] = None
    game_id = connection.execute(sa.insert(games).values(row)).inserted_primary_key[0]

    def copy_rows(table: sa.Table, **replace: Any) -> None:
        names = [c.name for c in table.c if c.name not in ("id", "game_id")]
        values = [replace.get(name, table.c[name]) for name in names]
        chosen = (
            sa.select(sa.literal(game_id), *values)
            .where(table.c.game_id == template_id)
            .order_by(table.c.id)  # the copies' ids in the originals' order
        )
        connection.execute(sa.insert(table).from_select(["game_id", *names], chosen))

    copy_rows(seats)
    copy_rows(rounds)
    prefix = uuid.uuid4().hex + "-"
    copy_rows(
        history,
        request_key=sa.case(
            (history.c.request_key.is_(None), None),
            else_=sa.literal(prefix) + sa.cast(history.c.id, sa.String),
        ),
    )
    old, new = rounds.alias("old"), rounds.alias("new")
    names = [c.name for c in entries.c if c.name not in ("id", "round_id")]
    chosen = (
        sa.select(new.c.id, *(entries.c[name] for name in names))
        .join(old, old.c.id == entries.c.round_id)
        .join(new, sa.and_(new.c.game_id == game_id, new.c.number == old.c.number))
        .where(old.c.game_id == template_id)
    )
    connection.execute(sa.insert(entries).from_select(["round_id", *names], chosen))
    return game_id


# --- reading the database ----------------------------------------------------------------------


# The login limit's counts: a wrong password is refused (422) and counted on purpose.
LIMIT_TABLES = frozenset({"login_guesses"})


def fingerprint(connection: sa.Connection) -> dict[str, tuple[int, Any]]:
    """Every table's row count and largest id (a row added, removed or replaced shows)."""
    names, query = _fingerprint_query()
    values = connection.execute(query).one()
    return {name: (values[2 * i], values[2 * i + 1]) for i, name in enumerate(names)}


@functools.cache
def _fingerprint_query() -> tuple[list[str], sa.Select]:
    """The tables :func:`fingerprint` looks at and its one query, built once (twice per
    example, building it took 4.5 of its 5 ms: a fifth of an example's time)."""
    columns = []
    names = []
    for table in db.metadata.sorted_tables:
        if table.name in LIMIT_TABLES:
            continue
        names.append(table.name)
        columns.append(sa.select(sa.func.count()).select_from(table).scalar_subquery())
        keys = list(table.primary_key.columns)
        key = keys[0] if len(keys) == 1 and keys[0].type.python_type is int else None
        columns.append(
            sa.select(sa.func.max(key)).scalar_subquery() if key is not None else sa.literal(0)
        )
    return names, sa.select(*columns)


@dataclass(frozen=True)
class GameState:
    """One game as stored: its row, rounds (each with its entries) and changes."""

    row: dict[str, Any]
    rounds: tuple[dict[str, Any], ...]
    changes: tuple[dict[str, Any], ...]

    @property
    def version(self) -> int:
        return self.row["version"]

    @property
    def players(self) -> int:
        return int(self.row["rules"]["players"])

    def round(self, number: int) -> dict[str, Any] | None:
        return next((r for r in self.rounds if r["number"] == number), None)

    def open_round(self) -> dict[str, Any] | None:
        return next((r for r in self.rounds if r["state"] != "scored"), None)

    def scored_rounds(self) -> list[dict[str, Any]]:
        return [r for r in self.rounds if r["state"] == "scored"]

    def keys(self) -> list[str]:
        return [c["request_key"] for c in self.changes if c.get("request_key")]


def game_state(connection: sa.Connection, game_id: int) -> GameState | None:
    games, rounds, entries, history = (
        _table(name) for name in ("games", "rounds", "entries", "changes")
    )
    found = connection.execute(sa.select(games).where(games.c.id == game_id)).one_or_none()
    if found is None:
        return None
    row = dict(found._mapping)
    round_rows = connection.execute(
        sa.select(rounds).where(rounds.c.game_id == game_id).order_by(rounds.c.number)
    ).all()
    entry_rows = connection.execute(
        sa.select(entries)
        .join(rounds, rounds.c.id == entries.c.round_id)
        .where(rounds.c.game_id == game_id)
        .order_by(entries.c.round_id, entries.c.seat)
    ).all()
    by_round: dict[int, list[dict[str, Any]]] = {}
    for entry in entry_rows:
        data = {k: v for k, v in entry._mapping.items() if k not in ("id", "round_id")}
        by_round.setdefault(entry.round_id, []).append(data)
    dumped = []
    for round_row in round_rows:
        data = {k: v for k, v in round_row._mapping.items() if k != "game_id"}
        data["entries"] = by_round.get(data.pop("id"), [])
        dumped.append(data)
    change_rows = connection.execute(
        sa.select(history).where(history.c.game_id == game_id).order_by(history.c.id)
    ).all()
    return GameState(
        row=row,
        rounds=tuple(dumped),
        changes=tuple(dict(c._mapping) for c in change_rows),
    )


def key_recorded(connection: sa.Connection, key: str | None) -> bool:
    """Whether a change with this request key is stored (PostgreSQL stores no NUL)."""
    if not key or ("\x00" in key and connection.dialect.name == "postgresql"):
        return False
    history = _table("changes")
    found = connection.execute(sa.select(history.c.id).where(history.c.request_key == key))
    return found.first() is not None


def follow_up_exists(connection: sa.Connection, game_id: int) -> bool:
    """Whether "play again" of this game already made its one follow-up game."""
    games = _table("games")
    if "previous_game_id" not in games.c:
        return False
    found = connection.execute(sa.select(games.c.id).where(games.c.previous_game_id == game_id))
    return found.first() is not None


# --- what is sent: strategies of symbolic requests --------------------------------------------


@dataclass(frozen=True)
class Sym:
    """A value that depends on the game at the moment of sending (resolved by :func:`resolve`)."""

    name: str

    def __repr__(self) -> str:
        return self.name


VERSION, STALE, AHEAD = Sym("VERSION"), Sym("VERSION-1"), Sym("VERSION+1")
FRESH_KEY, KNOWN_KEY, START_KEY = Sym("FRESH_KEY"), Sym("KNOWN_KEY"), Sym("START_KEY")
GAME, NO_GAME = Sym("GAME"), Sym("NO_GAME")
OPEN_ROUND, SCORED_ROUND, NEXT_ROUND = Sym("OPEN_ROUND"), Sym("SCORED_ROUND"), Sym("NEXT_ROUND")
HAND_SIZE, NEXT_BIDDER, THE_PASSWORD = Sym("HAND_SIZE"), Sym("NEXT_BIDDER"), Sym("PASSWORD")
# The tricks not given out yet by the seats before this one (so the total can add up).
TRICKS_LEFT = Sym("TRICKS_LEFT")


@dataclass(frozen=True)
class UpTo:
    """A number the round's chips offer: 0 to the cards in hand, by position."""

    index: int


@dataclass(frozen=True)
class TrumpOption:
    """One of the trumps the round's screen offers (``cause:suit``), by position."""

    index: int


@dataclass(frozen=True)
class Repeat:
    """A long value, shown short in a failing example: ``text`` repeated ``times``."""

    text: str
    times: int
    prefix: str = ""

    def __repr__(self) -> str:
        return (
            f"{self.prefix!r}+{self.text!r}*{self.times}"
            if self.prefix
            else f"{self.text!r}*{self.times}"
        )

    def __str__(self) -> str:
        return self.prefix + self.text * self.times


@dataclass(frozen=True)
class Export:
    """A game export of template ``index`` as the app writes it (a new uid unless ``same``)."""

    index: int
    same: bool = False


@dataclass(frozen=True)
class Mutated:
    """A game export of template ``index`` with some values replaced: (node number, value)."""

    index: int
    edits: tuple[tuple[int, Any], ...]


HUGE = Repeat("9", 5000)
HOSTILE_NUMBERS = (
    "²", "¹", "³", "¼", "½", "①", "١", "۳", "５", "𝟓", "٣٣", "-1", "-0", "+1", " 1", "1 ",
    "1.0", "1.5", "1e3", "0x1", "1_0", "NaN", "inf", "-inf", "", " ", "\x00", "1\x00", "\x001",
    HUGE, Repeat("9", 5000, "-"), Repeat("9", 19), Repeat("9", 20), str(2**31), str(2**31 - 1),
    str(-(2**31) - 1), str(2**63), "32768", "-32769", "1,2", "true", "None", "[]",
)  # fmt: skip
HOSTILE_TEXT = (
    "", " ", "\x00", "a\x00b", "\r\n", "\t", "x" * 41, "x" * 65, "x" * 1000, "é" * 200,
    "ß" * 40, "ﬃ" * 20, "İ" * 40, "e\u0301" * 30, "\u202eevil", "<script>alert(1)</script>",
    "{{ 7*7 }}", "%(name)s", "%s%s%n", "' OR '1'='1", "../../etc/passwd", "\ufeff", "😀" * 40,
    "\U0010ffff", Repeat("w", 100_000), Repeat("\x00", 1000), "²", HUGE,
)  # fmt: skip
HOSTILE_PATHS = (
    "//evil.example", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example",
    "/\t/evil.example", "javascript:alert(1)", "/%5Cevil.example", "\x00", "/games/new?x=\x00",
)  # fmt: skip


def weighted(*options: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """One of the strategies, each as often as its weight (``st.one_of`` would draw each
    branch alike, and merges repeated ones)."""
    table = tuple(index for index, (weight, _) in enumerate(options) for _ in range(weight))
    strategies = [strategy for _, strategy in options]
    return st.sampled_from(table).flatmap(strategies.__getitem__)


def _text(size: int = 12) -> st.SearchStrategy:
    return st.text(max_size=size)


# The values that have crashed a form before: digits int() refuses though str.isdigit()
# takes them, a number too long for int(), NUL bytes (PostgreSQL refuses them in text).
DIGIT_TRAPS = ("²", "¹", "³", "①", "٣", "５", "𝟓", "1 ³", HUGE, "\x00", "1\x00")


def _percent_escape(error: UnicodeDecodeError) -> tuple[str, int]:
    return "".join(f"%{byte:02X}" for byte in error.object[error.start : error.end]), error.end


codecs.register_error("fuzz.percent", _percent_escape)


def _as_text(value: Any, encoding: str = "multipart") -> str:
    """A posted value as the app reads it: bytes that are not UTF-8 come out as "%FF" from a
    URL-encoded body (as Werkzeug decodes it), else as "\ufffd"."""
    if not isinstance(value, bytes):
        return str(value)
    return value.decode("utf-8", "fuzz.percent" if encoding == "urlencoded" else "replace")


_junk = weighted(
    (5, st.sampled_from(DIGIT_TRAPS)),
    (4, st.sampled_from(HOSTILE_NUMBERS)),
    (3, st.sampled_from(HOSTILE_TEXT)),
    (2, _text()),
    (1, st.integers().map(str)),
    (1, st.floats().map(str)),
    (1, st.binary(max_size=6)),
)
_chip = st.builds(UpTo, st.integers(0, 20))
# What a number field gets when it is the hostile one: mostly the values that crashed.
_odd_number = weighted((3, st.sampled_from(DIGIT_TRAPS)), (2, _junk))
_small = weighted((4, st.integers(0, 2)), (1, st.integers(3, 6))).map(str)
_names = st.sampled_from((*NAMES, "Gus", "ann ", " Bob  ", "Zoë", "Ｚed"))
_valid_trumps = st.sampled_from([f"{c}:{s}" for c in CAUSES for s in (*SUITS, "")])
_near_trumps = st.sampled_from(
    ("suit:", "suit:HEARTS", ":hearts", "wizard:", "suit:hearts:x", "SUIT:hearts", "none", ":")
)


def _joined(words: Sequence[str]) -> st.SearchStrategy:
    """``word:junk``, e.g. ``up:²`` or ``suit:¹``."""
    odd = weighted((1, st.sampled_from(DIGIT_TRAPS)), (1, _junk))
    return st.tuples(st.sampled_from(words), odd).map(lambda p: f"{p[0]}:{_as_text(p[1])}")


SEAT_BUTTONS = (
    "start", "start", "start", "add", "enter", "", "add:Ann", "add:Zed", "up:1", "down:0",
    "remove:2", "remove:0", "up:9",
)  # fmt: skip

# Each kind of field: (what the page posts, what it never posts). Lists post the field once
# per item (the seats, the table notes).
VALUES: dict[str, tuple[st.SearchStrategy, st.SearchStrategy]] = {
    "number": (weighted((5, _chip), (1, _small), (1, st.just(HAND_SIZE))), _odd_number),
    "tricks": (
        weighted(
            (5, st.just("0")), (2, st.just(TRICKS_LEFT)), (1, st.just(HAND_SIZE)), (1, _chip)
        ),
        _odd_number,
    ),
    "seat": (weighted((4, st.just(NEXT_BIDDER)), (1, _small)), _odd_number),
    "version": (
        st.just(VERSION),
        weighted((3, st.sampled_from((STALE, AHEAD))), (2, _odd_number)),
    ),
    "request_key": (st.just(FRESH_KEY), weighted((3, st.just(KNOWN_KEY)), (2, _junk))),
    "setup_key": (st.just(FRESH_KEY), weighted((3, st.just(START_KEY)), (2, _junk))),
    "trump": (
        weighted((3, st.builds(TrumpOption, st.integers(0, 20))), (1, _valid_trumps)),
        weighted((2, _near_trumps), (2, _joined(CAUSES)), (2, _junk)),
    ),
    "werewolf": (
        st.sampled_from((*SUITS, "none")),
        weighted((2, st.sampled_from(("HEARTS", " hearts", "", " ", "None"))), (2, _junk)),
    ),
    "cloud_change": (
        st.sampled_from(("", "", "1", "-1")),
        weighted((1, st.just("−1")), (3, _junk)),
    ),
    "flag": (st.sampled_from(("y", "", "", "")), _junk),
    "checkbox": (st.sampled_from(("", "", "", "y")), _junk),
    "cloud_seat": (weighted((4, st.just("")), (1, _small)), _odd_number),
    "later": (
        st.sampled_from(("5, 6, 7", "1 2", "", "3", "2, 2")),
        weighted((2, st.sampled_from(("0", "21", "1,,2", "2;3", "1 ³", "-1"))), (3, _odd_number)),
    ),
    "action": (
        st.sampled_from(SEAT_BUTTONS),
        weighted((3, _joined(("up", "down", "remove", "add"))), (1, _odd_number)),
    ),
    "name": (weighted((3, st.just("")), (2, _names)), _junk),
    "names": (
        st.lists(_names, min_size=3, max_size=6, unique_by=lambda name: name.strip().casefold()),
        st.lists(weighted((3, _names), (2, _junk)), max_size=8),
    ),
    "first_dealer": (st.sampled_from(("random", "0", "1", "2")), _odd_number),
    "plan": (st.sampled_from([kind.value for kind in rules.PlanKind]), _junk),
    "plan_rounds": (
        st.sampled_from(("5", "1", "3", "")),
        weighted((1, st.just("0")), (3, _odd_number)),
    ),
    "plan_custom": (
        st.sampled_from(("1 2 3", "1, 2, 3, 5", "3", "2;1")),
        weighted((1, st.sampled_from(("", "0", "21", "2.5"))), (3, _odd_number)),
    ),
    "bid_rule": (st.sampled_from([rule.value for rule in rules.BidRule]), _junk),
    "bid_reveal": (st.sampled_from([reveal.value for reveal in rules.BidReveal]), _junk),
    "notes": (
        st.lists(st.sampled_from(rules.TABLE_ONLY_RULES), max_size=3, unique=True),
        st.lists(weighted((1, st.sampled_from(rules.TABLE_ONLY_RULES)), (2, _junk)), max_size=4),
    ),
    "password": (st.just(THE_PASSWORD), weighted((1, st.just("wrong")), (3, _junk))),
    "next": (
        st.sampled_from(("/", "/games/new", "/history/", "")),
        weighted((3, st.sampled_from(HOSTILE_PATHS)), (1, _junk)),
    ),
    "lang": (st.sampled_from(("en", "de", "fr", "es", "it", "pt")), _junk),
    "text": (_small, _junk),
}
_json_values = st.one_of(
    st.sampled_from(
        (None, True, False, -1, 0, 1, 2**31, 2**63, 1.5, "", "\x00", "²", "x" * 1000, "ß" * 40)
    ),
    st.sampled_from(("2024-13-45", "0001-01-01T00:00:00", "9999-12-31T23:59:59-23:59", "HUGE")),
    st.lists(st.integers(-1, 3), max_size=3),
    st.dictionaries(st.sampled_from(("a", "seat", "bid")), st.integers(-1, 3), max_size=2),
    st.integers(),
    _text(),
)
_raw_files = st.one_of(
    st.sampled_from(
        (
            *(
                b"",
                b"{}",
                b"[]",
                b"null",
                b"\xff\xfe\x00",
                b"\x00",
                b"\xef\xbb\xbf{}",
                b"9" * 5000,
            ),
            b"[" * 100_000,
            b'{"format": "wizard-scorekeeper", "version": ' + b"9" * 5000 + b"}",
            b'{"format": "wizard-scorekeeper", "version": 1, "kind": "game"}',
        )
    ),
    st.binary(max_size=64),
)
VALUES["file"] = (
    st.builds(Export, st.integers(0, 99), st.booleans()),
    weighted(
        (
            3,
            st.builds(
                Mutated,
                st.integers(0, 99),
                st.lists(
                    st.tuples(st.integers(0, 10**6), _json_values), min_size=1, max_size=3
                ).map(tuple),
            ),
        ),
        (1, _raw_files),
    ),
)


def _field_spec(spec: str) -> tuple[str, str]:
    name, _, kind = spec.partition(":")
    if not kind:
        kind = name if name in VALUES else "text"
    return name, kind


@dataclass(frozen=True)
class Spec:
    """One request as drawn: values may be :class:`Sym` (resolved against the game)."""

    endpoint: str
    template: str
    path_args: tuple[tuple[str, Any], ...]
    fields: tuple[tuple[str, Any], ...]
    files: tuple[tuple[str, Any], ...]
    csrf: str
    htmx: bool
    signed_in: bool
    encoding: str
    language: str | None
    # The client address: the one all fuzzed sign-ins share (it reaches the limit on wrong
    # passwords), or one of its own.
    shared_address: bool = True


# FlaskForm reads a JSON body as the form: an object of texts ("json"), of numbers, nulls and
# lists ("json typed"), a list of [name, value] pairs ("json pairs"), or anything else.
JSON_ENCODINGS = ("json", "json typed", "json pairs", "json scalar")
FORM_ENCODINGS = ("urlencoded", "multipart")
JSON_SCALARS = ('"abc"', "5", "null", "true", "[1, 2]", '[["a"]]', "[[1, 2, 3]]", "{}", "[]")
CSRF_MODES = weighted(
    (12, st.just("field")),
    (4, st.just("header")),
    (1, st.sampled_from(("missing", "empty", "garbage", "other session", "tampered"))),
)


_GAME_IDS = weighted(
    (30, st.just(GAME)),
    (1, st.just(NO_GAME)),
    (1, st.sampled_from(("0", "2147483647", "2147483648", "-1", "x", "1.0", "²"))),
)
_ODD_ROUNDS = st.sampled_from(("0", "1", "99", "2147483648", "-1", "²", "01"))
_ROUNDS = weighted((14, st.just(OPEN_ROUND)), (2, st.just(SCORED_ROUND)), (1, _ODD_ROUNDS))
_EDITED_ROUNDS = weighted((14, st.just(SCORED_ROUND)), (2, st.just(OPEN_ROUND)), (1, _ODD_ROUNDS))
_OTHER_ARGUMENTS = weighted((3, _small), (1, _junk))
_MODES = weighted((5, st.just("focused")), (2, st.just("chaos")), (2, st.just("plausible")))
_PRESENCE = weighted((6, st.just("odd")), (1, st.just("missing")), (1, st.just("twice")))
_EXTRA = st.lists(st.tuples(st.sampled_from(ALL_FIELDS), _junk), max_size=2)
_ENCODINGS = weighted(
    (1, st.just("multipart")), (6, st.just("urlencoded")), (1, st.sampled_from(JSON_ENCODINGS))
)
_FILE_ENCODINGS = weighted(
    (6, st.just("multipart")), (1, st.just("urlencoded")), (1, st.sampled_from(JSON_ENCODINGS))
)
_SHARED_ADDRESS = weighted((1, st.just(True)), (2, st.just(False)))
_SIGNED_IN = weighted((25, st.just(True)), (1, st.just(False)))
_LANGUAGES = st.sampled_from((None, None, None, None, "de", "fr;q=0.5, pt", "zz", "\x00"))
# The game states each route is mostly sent to (the rest of the time, any state).
PREFERRED_TEMPLATES = {
    "play.trump": ("trump step", "custom plan", "hidden bids"),
    "play.dealer": ("trump step", "custom plan", "Jester bid, Saboteur"),
    "play.bid": ("open bids half done", "Canadian, last bidder", "Werewolf at bids", "Maximus"),
    "play.bids": ("hidden bids",),
    "play.take_back_bid": ("open bids half done", "Canadian, last bidder"),
    "play.werewolf": ("Werewolf at bids", "tricks, Jubilee cards"),
    "play.tricks": (
        "tricks, Jubilee cards",
        "secret bids, tricks",
        "Jester bid, Saboteur",
        "round saved, then undone",
    ),
    "play.edit_round": ("finished", "round saved, then undone", "Canadian, last bidder"),
    "play.later_rounds": ("custom plan",),
    "play.play_again": ("finished",),
}


@functools.cache
def _templates(endpoint: str) -> st.SearchStrategy:
    preferred = PREFERRED_TEMPLATES.get(endpoint)
    anything = st.sampled_from(TEMPLATE_NAMES)
    return weighted((3, st.sampled_from(preferred)), (1, anything)) if preferred else anything


def _path_values(endpoint: str, name: str) -> st.SearchStrategy:
    if name == "game_id":
        return _GAME_IDS
    if name == "number":
        return _EDITED_ROUNDS if "edit" in endpoint else _ROUNDS
    return _OTHER_ARGUMENTS


@functools.cache
def _field_specs(endpoint: str) -> st.SearchStrategy:
    """Which fields a route gets: its own, or (a route this module does not know) any."""
    known = ROUTE_FIELDS.get(endpoint)
    if known is not None:
        return st.just(known)
    return st.lists(st.sampled_from(ALL_FIELDS), max_size=8).map(tuple)


# Kinds of field that are mostly a choice among a few words: less often the hostile one.
MINOR_KINDS = frozenset({"flag", "notes", "bid_rule", "bid_reveal", "plan", "lang"})
# A hostile field matters only with these other fields as the page would post them.
FOCUS_IMPLIES: dict[str, tuple[tuple[str, str], ...]] = {
    "plan_rounds": (("plan", "first_n"), ("action", "start")),
    "plan_custom": (("plan", "custom"), ("action", "start")),
    "first_dealer": (("action", "start"),),
    "seats:names": (("action", "start"),),
    "new_name:name": (("action", "add"),),
}


@functools.cache
def _hostile_choice(specs: tuple[str, ...]) -> st.SearchStrategy:
    """One or two of the fields, the major ones (numbers, texts) four times as often."""
    table = [
        spec for spec in specs for _ in range(1 if _field_spec(spec)[1] in MINOR_KINDS else 4)
    ]
    return st.lists(st.sampled_from(table), min_size=1, max_size=2)


@st.composite
def _fields(draw: st.DrawFn, endpoint: str) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """The fields of a request: mostly as the page posts them, with one or two hostile ones
    (missing, twice, or a value the page never sends), or all of them hostile at random."""
    specs = draw(_field_specs(endpoint))
    mode = draw(_MODES)
    hostile: set[str] = set()
    if mode == "focused" and specs:
        hostile = set(draw(_hostile_choice(specs)))
    implied = dict(pair for spec in hostile for pair in FOCUS_IMPLIES.get(spec, ()))
    fields: list[tuple[str, Any]] = []
    files: list[tuple[str, Any]] = []
    for spec in specs:
        name, kind = _field_spec(spec)
        plausible, odd = VALUES[kind]
        bad = spec in hostile or (mode == "chaos" and draw(st.booleans()))
        presence = draw(_PRESENCE) if bad else "once"
        if presence == "missing":
            continue
        if not bad and name in implied:
            fields.append((name, implied[name]))
            continue
        target = files if kind == "file" else fields
        for strategy in {"once": [plausible], "odd": [odd], "twice": [plausible, odd]}[presence]:
            value = draw(strategy)
            if isinstance(value, list):
                target.extend((name, item) for item in value)
            else:
                target.append((name, value))
    if mode == "chaos":
        fields.extend((_field_spec(spec)[0], value) for spec, value in draw(_EXTRA))
    return fields, files


@st.composite
def request_specs(draw: st.DrawFn, route: Route) -> Spec:
    """A request to ``route``: address, fields, CSRF token, headers, encoding, game state."""
    fields, files = draw(_fields(route.endpoint))
    return Spec(
        endpoint=route.endpoint,
        template=draw(_templates(route.endpoint)) if route.game_write else "",
        path_args=tuple(
            (name, draw(_path_values(route.endpoint, name))) for name in route.arguments
        ),
        fields=tuple(fields),
        files=tuple(files),
        csrf=draw(CSRF_MODES),
        htmx=draw(st.booleans()),
        signed_in=draw(_SIGNED_IN),
        encoding=draw(_FILE_ENCODINGS if files else _ENCODINGS),
        language=draw(_LANGUAGES),
        shared_address=draw(_SHARED_ADDRESS),
    )


# --- resolving a spec against the game ---------------------------------------------------------


class World:
    """What a request may refer to besides its game: CSRF tokens, game exports, start keys.

    Not a dataclass: Hypothesis would print all its fields with a failing example."""

    def __init__(
        self, token: str, other_token: str, exports: list[dict], start_keys: list[str]
    ) -> None:
        self.token, self.other_token = token, other_token
        self.exports, self.start_keys = exports, start_keys

    def __repr__(self) -> str:  # short: Hypothesis prints it with a failing example
        return f"World({len(self.exports)} exports, {len(self.start_keys)} start keys)"


@dataclass
class Request:
    """A request ready to send, and what the judge needs to know about it."""

    endpoint: str
    game_write: bool
    path: str
    fields: list[tuple[str, str | bytes]]
    files: list[tuple[str, str, bytes]]
    headers: dict[str, str]
    encoding: str
    csrf_valid: bool
    game_id: int | None = None

    def values(self, name: str) -> list[Any]:
        """What a form reads under ``name``: texts (a number or None from typed JSON)."""
        found = [_as_text(v, self.encoding) for k, v in self.fields if k == name]
        if self.encoding in (*FORM_ENCODINGS, "json pairs"):
            return found
        if self.encoding == "json":
            return found[-1:]  # a JSON object keeps the last of repeated names
        if self.encoding == "json typed":
            return [_typed(value) for value in found]
        return []

    def first(self, name: str) -> str | None:
        """The first value posted under ``name`` (what a form field reads), as text."""
        found = self.values(name)
        return None if not found or found[0] is None else str(found[0])

    def describe(self, limit: int = 600) -> str:
        """The request in one line (long values shortened), at most ``limit`` characters."""

        def short(value: object) -> str:
            text = repr(value)
            return text if len(text) <= 40 else f"{text[:30]}…({len(text)} chars)"

        fields = ", ".join(f"{k}={short(v)}" for k, v in self.fields if k != "csrf_token")
        files = ", ".join(f"{k}=<file {len(v)} bytes>" for k, _, v in self.files)
        text = f"POST {self.path} [{self.encoding}, csrf {'ok' if self.csrf_valid else 'bad'}"
        text += ", htmx]" if self.headers.get("HX-Request") else "]"
        return f"{text} {fields}{'; ' if files else ''}{files}"[:limit]


def _nodes(data: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(data, dict):
        for key in sorted(data):
            yield from _nodes(data[key], (*path, key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from _nodes(item, (*path, index))


def _set(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


def file_bytes(payload: Any, world: World) -> bytes:
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, Export):
        data = copy.deepcopy(world.exports[payload.index % len(world.exports)])
        if not payload.same:
            for game in data["games"]:
                game["uid"] = str(uuid.uuid4())
        return json.dumps(data).encode()
    data = copy.deepcopy(world.exports[payload.index % len(world.exports)])
    for game in data["games"]:
        game["uid"] = str(uuid.uuid4())
    for number, value in payload.edits:
        nodes = list(_nodes(data))
        data = _set(data, nodes[number % len(nodes)], value)
    text = json.dumps(data, allow_nan=True)
    return text.replace('"HUGE"', "9" * 5000).encode()


def _number(value: str | None) -> int | None:
    """A posted number as a form field reads it (Python's ``int``), or None."""
    if value is None or not value.strip():
        return None
    return int(value)


def resolve(
    spec: Spec, world: World, game_id: int | None, state: GameState | None, route: Route
) -> Request:
    """The request ``spec`` describes, for the game ``game_id`` as ``state`` shows it."""
    open_round = state.open_round() if state else None
    scored = state.scored_rounds() if state else []
    numbers: dict[Sym, int] = {}
    if state is not None:
        last = state.rounds[-1]["number"] if state.rounds else 0
        numbers[OPEN_ROUND] = open_round["number"] if open_round else last
        numbers[SCORED_ROUND] = scored[-1]["number"] if scored else 1
        numbers[NEXT_ROUND] = numbers[OPEN_ROUND] + 1

    def path_value(value: Any) -> str:
        if value == GAME:
            return str(game_id)
        if value == NO_GAME:
            return str((game_id or 0) + 10**6)
        if isinstance(value, Sym):
            return str(numbers.get(value, 1))
        return quote(str(value), safe="")

    path = route.rule
    chosen_round: int | None = None
    for name, value in spec.path_args:
        text = path_value(value)
        if name == "number" and re.fullmatch("[0-9]+", text):
            chosen_round = int(text)
        path = re.sub(rf"<(?:[^:<>]+:)?{name}>", text, path)
    round_ = state.round(chosen_round) if state and chosen_round else None
    round_ = round_ or open_round
    hand_size = round_["hand_size"] if round_ else 1
    next_bidder = None
    if state is not None and open_round is not None:
        game_rules = rules.GameRules.from_dict(state.row["rules"])
        bids = {e["seat"]: e["bid"] for e in open_round["entries"]}
        next_bidder = rules.next_bidder(game_rules, open_round["dealer"], bids)
    own_keys = state.keys() if state else []

    trump_options: list[str] = []
    if state is not None and round_ is not None:
        game_rules = rules.GameRules.from_dict(state.row["rules"])
        choice = rules.trump_choice(game_rules, round_["number"], round_["hand_size"])
        trump_options = [
            f"{cause}:{suit or ''}" for cause, suits in choice.options for suit in suits
        ]
    given_tricks: list[int] = []

    def resolved(value: Any) -> str | bytes:
        if isinstance(value, Repeat):
            return str(value)
        if isinstance(value, UpTo):
            return str(value.index % (hand_size + 1))
        if isinstance(value, TrumpOption):
            return trump_options[value.index % len(trump_options)] if trump_options else ":"
        if not isinstance(value, Sym):
            return value
        return {
            VERSION: lambda: str(state.version if state else 1),
            STALE: lambda: str(state.version - 1 if state else 0),
            AHEAD: lambda: str(state.version + 1 if state else 2),
            FRESH_KEY: lambda: uuid.uuid4().hex,
            KNOWN_KEY: lambda: own_keys[-1] if own_keys else uuid.uuid4().hex,
            START_KEY: lambda: world.start_keys[len(world.start_keys) // 2],
            HAND_SIZE: lambda: str(hand_size),
            NEXT_BIDDER: lambda: str(next_bidder if next_bidder is not None else 0),
            THE_PASSWORD: lambda: PASSWORD,
            TRICKS_LEFT: lambda: str(max(0, hand_size - sum(given_tricks))),
        }[value]()

    def value_of(name: str, value: Any) -> str | bytes:
        text = resolved(value)
        if (
            name.startswith("tricks_")
            and isinstance(text, str)
            and re.fullmatch("[0-9]{1,2}", text)
        ):
            given_tricks.append(int(text))
        return text

    fields = [(name, value_of(name, value)) for name, value in spec.fields]
    files = [(name, "backup.json", file_bytes(payload, world)) for name, payload in spec.files]
    headers: dict[str, str] = {}
    token = {
        "field": world.token,
        "header": world.token,
        "empty": "",
        "garbage": "\x00" + "x" * 90,
        "other session": world.other_token,
        "tampered": world.token[:-3] + ("abc" if not world.token.endswith("abc") else "xyz"),
    }.get(spec.csrf)
    if spec.csrf == "header":
        headers["X-CSRFToken"] = token
    elif token is not None:
        fields.insert(0, ("csrf_token", token))
    if spec.htmx:
        headers["HX-Request"] = "true"
    if spec.language is not None:
        headers["Accept-Language"] = spec.language
    csrf_valid = spec.csrf == "header" or (
        spec.csrf == "field" and spec.encoding in FORM_ENCODINGS
    )
    return Request(
        endpoint=spec.endpoint,
        game_write=route.game_write,
        path=path,
        fields=fields,
        files=files if spec.encoding == "multipart" else [],
        headers=headers,
        encoding=spec.encoding,
        csrf_valid=csrf_valid,
        game_id=game_id,
    )


def _typed(text: str) -> int | str | None:
    """A value as a JSON client would type it: whole numbers as numbers, empty as null."""
    if re.fullmatch(r"-?[0-9]{1,9}", text):
        return int(text)
    return None if text == "" else text


def encode(request: Request) -> tuple[bytes, str]:
    """The request's body and content type."""
    fields = [(name, _as_text(value)) for name, value in request.fields]
    if request.encoding in JSON_ENCODINGS:
        if request.encoding == "json":
            data: Any = dict(fields)
        elif request.encoding == "json typed":
            data = {}
            for name, value in fields:
                data.setdefault(name, []).append(_typed(value))
            data = {name: v[0] if len(v) == 1 else v for name, v in data.items()}
        elif request.encoding == "json pairs":
            data = [list(pair) for pair in fields]
        else:
            return JSON_SCALARS[len(fields) % len(JSON_SCALARS)].encode(), "application/json"
        return json.dumps(data).encode(), "application/json"
    if request.encoding == "urlencoded":
        return urlencode(request.fields).encode(), "application/x-www-form-urlencoded"
    boundary = f"fuzz{uuid.uuid4().hex}"
    parts = []
    for name, value in request.fields:
        data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
    for name, filename, data in request.files:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: application/json\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


# --- judging the answer ----------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    body: str
    location: str | None
    hx_redirect: str | None


@dataclass
class Before:
    tables: dict[str, tuple[int, Any]] | None
    game: GameState | None
    key_recorded: bool
    follow_up: bool = False


def _redirect_target(answer: Answer) -> str | None:
    return answer.location if 300 <= answer.status < 400 else answer.hx_redirect


def refused(request: Request, answer: Answer) -> bool:
    """Not accepted: an error status, an error shown, or "sign in first"."""
    if not 200 <= answer.status < 400:
        return True
    if answer.status < 300 and ERROR_MARK in answer.body:
        return True
    target = _redirect_target(answer)
    return (
        target is not None
        and urlsplit(target).path == "/login"
        and request.endpoint not in ACCESS_ROUTES
    )


def _off_site(target: str) -> bool:
    parts = urlsplit(target)
    return (
        bool(parts.scheme or parts.netloc)
        or not target.startswith("/")
        or target.startswith("//")
        or "\\" in target
        or any(ord(c) < 33 for c in target)
    )


def _table_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, str]:
    return {
        name: f"{before.get(name)} -> {after.get(name)}"
        for name in sorted(set(before) | set(after))
        if before.get(name) != after.get(name)
    }


def _state_diff(before: GameState | None, after: GameState | None) -> str:
    if before is None or after is None:
        return f"game {'appeared' if after else 'vanished'}"
    parts = []
    for key in sorted(set(before.row) | set(after.row)):
        if before.row.get(key) != after.row.get(key):
            parts.append(f"{key}: {before.row.get(key)!r} -> {after.row.get(key)!r}")
    if before.rounds != after.rounds:
        parts.append("rounds differ")
    if before.changes != after.changes:
        parts.append(f"changes {len(before.changes)} -> {len(after.changes)}")
    return "; ".join(parts)


def _snapshot_of(round_: dict[str, Any], players: int) -> dict[str, Any]:
    """A dumped round in the shape of the history's round snapshots."""
    by_seat = {e["seat"]: e for e in round_["entries"]}
    data = {k: v for k, v in round_.items() if k != "entries"}
    seats = range(max(by_seat) + 1) if by_seat else range(0)
    for name, key in (("bid", "bids"), ("cloud_bid", "cloud_bid"), ("tricks", "tricks")):
        data[key] = [by_seat[s][name] if s in by_seat else None for s in seats]
    return data


def _undo_target(state: GameState) -> dict[str, Any] | None:
    undone = {c["after"]["undoes"] for c in state.changes if c["action"] == "undo" and c["after"]}
    for change in reversed(state.changes):
        if change["action"] not in ("create_game", "undo") and change["version"] not in undone:
            return change
    return None


def _asked_tricks(
    request: Request, bids: Mapping[int, int | None], players: int, sealed: bool = False
) -> dict:
    made = request.values("all_made")
    # A hidden field: any text but "" (typed JSON: any but 0 or null). While the bids are
    # secret "everyone made their bid" is ignored: the tricks typed count.
    if made and made[0] and not sealed:
        tricks = {seat: bids.get(seat) or 0 for seat in range(players)}
        seat, change = _number(request.first("cloud_seat")), _number(request.first("cloud_change"))
        if seat is not None and change:
            bid = bids.get(seat) if 0 <= seat < players else None
            tricks[seat] = bid + change if bid is not None else 0
        return tricks
    return {seat: _number(request.first(f"tricks_{seat}")) for seat in range(players)}


def asked_mismatch(request: Request, before: GameState, after: GameState) -> str | None:
    """How the stored change differs from what the request asked, if it does."""
    endpoint = request.endpoint
    number = (
        _number(request.path.split("/rounds/")[1].split("/")[0])
        if "/rounds/" in request.path
        else None
    )
    round_ = after.round(number) if number is not None else None
    entries = {e["seat"]: e for e in round_["entries"]} if round_ else {}
    players = after.players
    if endpoint == "play.trump":
        cause = (request.first("trump") or "").partition(":")[0] or None
        if round_["trump_cause"] != cause:
            return f"trump cause {round_['trump_cause']!r} stored, {cause!r} asked"
    elif endpoint == "play.dealer":
        if round_["dealer"] != _number(request.first("dealer")):
            return f"dealer {round_['dealer']} stored, {request.first('dealer')!r} asked"
    elif endpoint == "play.bid":
        seat, bid = _number(request.first("seat")), _number(request.first("bid"))
        if entries.get(seat, {}).get("bid") != bid:
            return f"bid of seat {seat}: {entries.get(seat)} stored, {bid} asked"
    elif endpoint == "play.bids":
        asked = {s: _number(request.first(f"bid_{s}")) for s in range(players)}
        stored = {s: entries[s]["bid"] for s in entries}
        if stored != asked:
            return f"bids {stored} stored, {asked} asked"
    elif endpoint == "play.tricks":
        bids = {s: e["bid"] for s, e in entries.items()}
        sealed = after.row["rules"].get("bid_reveal") == "secret"
        asked = _asked_tricks(request, bids, players, sealed)
        stored = {s: e["tricks"] for s, e in entries.items()}
        if stored != asked:
            return f"tricks {stored} stored, {asked} asked"
    elif endpoint in ("play.edit_round", "play.kept_round"):
        asked_bids = {s: _number(request.first(f"bid_{s}")) for s in range(players)}
        stored_bids = {s: e["bid"] for s, e in entries.items()}
        asked_tricks = _asked_tricks(request, asked_bids, players)
        stored_tricks = {s: e["tricks"] for s, e in entries.items()}
        if (stored_bids, stored_tricks) != (asked_bids, asked_tricks):
            stored, asked = f"{stored_bids}/{stored_tricks}", f"{asked_bids}/{asked_tricks}"
            return f"bids/tricks {stored} stored, {asked} asked"
    elif endpoint == "play.werewolf":
        # Read as the rules read a trump: case and spaces aside, "" and "none" are no trump.
        asked = (request.first("trump") or "").strip().lower()
        asked = None if asked in ("", "none") else asked
        if not round_["werewolf_played"] or round_["werewolf_trump"] != asked:
            return f"Werewolf trump {round_['werewolf_trump']!r} stored, {asked!r} asked"
    elif endpoint == "play.take_back_bid":
        old = before.round(number)

        def count(r: dict[str, Any]) -> int:
            return sum(e["bid"] is not None for e in r["entries"])

        if count(round_) != count(old) - 1:
            return f"bids {count(old)} -> {count(round_)} after taking one back"
    elif endpoint == "play.abandon":
        if after.row["status"] != "abandoned":
            return f"status {after.row['status']} after abandoning"
    elif endpoint == "play.later_rounds":
        words = (request.first("later") or "").replace(",", " ").split()
        custom = list(after.row["rules"]["plan"]["custom"] or [])
        if custom[len(before.rounds) :] != [int(word) for word in words]:
            return f"plan {custom} stored, later rounds {words} asked"
    elif endpoint == "play.undo":
        target = _undo_target(before)
        if target is None:
            return "undo stored with nothing to undo"
        record = after.changes[-1]
        if (record.get("after") or {}).get("undoes") != target["version"]:
            return f"undo of version {record.get('after')} stored, {target['version']} due"
        restored = {r["number"]: r for r in target["before"]["rounds"]}
        touched = {r["number"] for r in target["before"]["rounds"]}
        touched |= {r["number"] for r in target["after"]["rounds"]}
        for number in sorted(touched):
            now = after.round(number)
            want = restored.get(number)
            if want is None:
                if now is not None:
                    return f"round {number} still there after undo"
                continue
            got = _snapshot_of(now, players) if now else {}
            # A change keeps only what it touched: a seat field may name some seats only.
            for key, value in want.items():
                if key in snapshots.SEAT_KEYS:
                    have = snapshots.seat_values(got.get(key))
                    wrong = any(
                        have.get(seat) != v for seat, v in snapshots.seat_values(value).items()
                    )
                else:
                    wrong = got.get(key) != value
                if wrong:
                    return f"round {number} not restored by undo: {got} != {want}"
        if "status" in target["before"] and after.row["status"] != target["before"]["status"]:
            return "status not restored by undo"
    return None


def invariant_problems(state: GameState) -> list[str]:
    """What a stored game may never hold, whatever was posted."""
    problems = []
    players = state.players
    versions = [c["version"] for c in state.changes]
    if versions and state.version != max(versions):
        problems.append(f"version {state.version} but last change {max(versions)}")
    if [r["number"] for r in state.rounds] != list(range(1, len(state.rounds) + 1)):
        problems.append("round numbers are not 1, 2, 3 …")
    for r in state.rounds:
        where = f"round {r['number']}"
        if r["trump"] not in (*SUITS, None):
            problems.append(f"{where}: trump {r['trump']!r}")
        if r["trump_cause"] not in (*CAUSES, None):
            problems.append(f"{where}: trump cause {r['trump_cause']!r}")
        if r["werewolf_trump"] not in (*SUITS, None):
            problems.append(f"{where}: Werewolf trump {r['werewolf_trump']!r}")
        if not 0 <= r["dealer"] < players:
            problems.append(f"{where}: dealer {r['dealer']}")
        if sorted(e["seat"] for e in r["entries"]) != list(range(players)):
            problems.append(f"{where}: seats {[e['seat'] for e in r['entries']]}")
        for e in r["entries"]:
            for name in ("bid", "tricks", "cloud_bid"):
                if e[name] is not None and not 0 <= e[name] <= r["hand_size"]:
                    problems.append(f"{where}: {name} {e[name]} of seat {e['seat']}")
        if r["state"] == "scored":
            total = sum(e["tricks"] or 0 for e in r["entries"])
            if total not in (r["hand_size"], r["hand_size"] - 1):
                problems.append(f"{where}: {total} tricks of {r['hand_size']}")
    return problems


def _count(tables: Mapping[str, tuple[int, Any]], name: str) -> int:
    return tables[name][0]


def roster_problems(
    endpoint: str,
    before: Mapping[str, tuple[int, Any]] | None,
    after: Mapping[str, tuple[int, Any]] | None,
) -> list[str]:
    """An accepted rename, merge or undo stores only roster rows: one log entry for a rename
    or merge (and one player fewer for a merge), none for an undo (or nothing: a repeat)."""
    if before is None or after is None:
        return []
    changed = _table_changes(before, after)
    outside = {name: change for name, change in changed.items() if name not in ROSTER_TABLES}
    if outside:
        return [f"{endpoint} stored more than the roster: {outside}"]
    if not changed:
        return []
    players, log = ROSTER_ROUTES[endpoint]
    if _count(after, "player_changes") - _count(before, "player_changes") != log:
        return [f"{endpoint}: {changed}, not {log} new log entries"]
    if players is not None and _count(after, "players") - _count(before, "players") != players:
        return [f"{endpoint}: {changed}, not {players} more players"]
    return []


def judge(
    request: Request,
    answer: Answer,
    before: Before,
    tables_after: dict[str, tuple[int, Any]] | None,
    game_after: GameState | None,
) -> list[str]:
    """Every property the request broke (empty when it behaved).

    ``before.tables`` and ``tables_after`` are None when other writers share the database
    (the bench): then only the game in the address is checked, and new games are not.
    """
    problems = []
    if answer.status >= 500:
        problems.append(f"server error {answer.status}")
    target = _redirect_target(answer)
    if target is not None and _off_site(target):
        problems.append(f"redirect off the site: {target!r}")
    was_refused = refused(request, answer)
    known = before.tables is not None and tables_after is not None
    changed = _table_changes(before.tables, tables_after) if known else {}
    game_changed = before.game != game_after
    needs_token = request.endpoint not in TOKENLESS_ROUTES
    if needs_token and not request.csrf_valid and not was_refused:
        problems.append(f"accepted without a valid CSRF token ({answer.status})")
    if was_refused or (needs_token and not request.csrf_valid):
        if changed or game_changed:
            diff = _state_diff(before.game, game_after) if game_changed else ""
            problems.append(f"refused ({answer.status}) but stored: {changed} {diff}")
        return problems
    if request.endpoint == "history.restore":
        return problems  # a restore adds games and players: any number
    if request.endpoint in ROSTER_ROUTES:
        return problems + roster_problems(request.endpoint, before.tables, tables_after)
    if request.endpoint in SEAT_LINK_ROUTES:
        outside = {name: change for name, change in changed.items() if name != "seat_links"}
        if outside or game_changed:
            problems.append(f"{request.endpoint} stored more than seat links: {outside}")
        return problems
    if request.endpoint in ACCESS_ROUTES or not (
        request.game_write or request.endpoint in NEW_GAME_ROUTES
    ):
        game_data = {k: v for k, v in changed.items() if k in GAME_TABLES}
        if (game_data if request.endpoint in ACCESS_ROUTES else changed) or game_changed:
            problems.append(f"{request.endpoint} stored game data: {changed}")
        return problems
    if request.endpoint in NEW_GAME_ROUTES and not known:
        if game_changed:
            problems.append(
                f"{request.endpoint} changed the game: {_state_diff(before.game, game_after)}"
            )
        return problems
    key = request.first("request_key")
    if not changed and not game_changed:
        repeat = before.key_recorded or (
            request.endpoint == "play.play_again" and before.follow_up
        )
        starts = request.endpoint != "setup.new_game" or request.first("action") == "start"
        if starts and not repeat:
            problems.append(f"accepted ({answer.status}) but nothing stored, and not a repeat")
        return problems
    if before.key_recorded and request.endpoint != "play.play_again":
        problems.append(f"a repeated request key stored again: {changed}")
        return problems
    if request.endpoint in NEW_GAME_ROUTES:
        new_games = _count(tables_after, "games") - _count(before.tables, "games")
        new_changes = _count(tables_after, "changes") - _count(before.tables, "changes")
        if new_games != 1 or new_changes != 1 or game_changed:
            problems.append(
                f"expected one new game: {changed} {_state_diff(before.game, game_after)}"
            )
        return problems
    # One versioned write of the game in the address.
    if before.game is None or game_after is None:
        problems.append(f"stored {changed} for a game that is not there")
        return problems
    new_changes = len(game_after.changes) - len(before.game.changes)
    if known:
        if _count(tables_after, "games") != _count(before.tables, "games"):
            problems.append(f"a game write added a game: {changed}")
        if _count(tables_after, "changes") - _count(before.tables, "changes") != new_changes:
            problems.append(f"a game write stored changes of another game: {changed}")
    if game_after.version != before.game.version + 1 or new_changes != 1:
        problems.append(
            f"version {before.game.version} -> {game_after.version}, {new_changes} new changes"
        )
        return problems
    record = game_after.changes[-1]
    try:
        posted = int((request.first("version") or "").strip())
    except ValueError:
        posted = None
    versionless = request.endpoint in VERSIONLESS_ROUTES and not request.first("replace")
    if posted != before.game.version and not versionless:
        problems.append(
            f"stored on version {before.game.version}, posted {request.first('version')!r}"
        )
    if record["version"] != game_after.version:
        problems.append(
            f"change version {record['version']} for game version {game_after.version}"
        )
    if record.get("request_key") != (key or None):
        problems.append(f"change key {record.get('request_key')!r}, posted {key!r}")
    expected = EXPECTED_ACTION.get(request.endpoint)
    if expected is not None and record["action"] != expected:
        problems.append(f"change action {record['action']!r}, route {request.endpoint}")
    try:
        mismatch = asked_mismatch(request, before.game, game_after)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        mismatch = f"stored a request that cannot be read: {error!r}"
    if mismatch:
        problems.append(mismatch)
    problems.extend(invariant_problems(game_after))
    return problems


# --- the test ----------------------------------------------------------------------------------


def _route_app() -> Flask:
    return create_app(
        {"TESTING": True, "SECRET_KEY": "routes", "SQLALCHEMY_DATABASE_URI": "sqlite://"}
    )


ROUTES = post_routes(_route_app())
# A route with many fields gets more runs (one more per ten fields), each its own test.
RUNS = [
    (route, run)
    for route in ROUTES
    for run in range(1 + len(ROUTE_FIELDS.get(route.endpoint, ALL_FIELDS)) // 10)
]
EXAMPLES_PER_RUN = math.ceil(TOTAL_EXAMPLES / len(RUNS))
POSTGRES_EXAMPLES_PER_RUN = math.ceil(POSTGRES_EXAMPLES / len(RUNS))


def run_ids(backend: str) -> list[str]:
    return [f"{backend}-{route.endpoint}{f'-{run + 1}' if run else ''}" for route, run in RUNS]


TOKEN = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def password_set(app: Flask) -> bool:
    return bool(app.config.get("ACCESS_PASSWORD"))


def page_token(client: Any, path: str = "/login") -> str:
    return TOKEN.search(client.get(path).get_data(as_text=True)).group(1)


class Phones:
    """Two test clients: one signed in with the password, one never signed in.

    The fuzz's wrong passwords (from 127.0.0.1) reach the sign-in limit; the phone signs in
    again, after a fuzzed sign-out, from an address of its own."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.stale = {"signed in": True, "stranger": True}
        self.clients: dict[str, Any] = {}
        self.tokens: dict[str, str] = {}
        self.sign_ins = 0

    def get(self, signed_in: bool) -> tuple[Any, str]:
        which = "signed in" if signed_in else "stranger"
        if self.stale[which]:
            client = self.app.test_client()
            token = page_token(client)
            if signed_in:
                self.sign_ins += 1
                address = f"10.0.{self.sign_ins // 256 % 256}.{self.sign_ins % 256}"
                answer = client.post(
                    "/login",
                    data={"csrf_token": token, "password": PASSWORD},
                    environ_base={"REMOTE_ADDR": address},
                )
                assert answer.status_code == 303, answer.status_code
                token = page_token(client, "/games/new")
            self.clients[which], self.tokens[which] = client, token
            self.stale[which] = False
        return self.clients[which], self.tokens[which]

    def used_for(self, endpoint: str, signed_in: bool) -> None:
        if endpoint in ACCESS_ROUTES:
            self.stale["signed in" if signed_in else "stranger"] = True


class Fuzz:
    """The app under test, its phones, and the games requests are sent to copies of."""

    def __init__(self, app: Flask, phones: Phones, world: World, templates: dict) -> None:
        self.app, self.phones, self.world, self.templates = app, phones, world, templates
        self.requests = 0

    def __repr__(self) -> str:  # short: Hypothesis prints it with a failing example
        return f"Fuzz({self.app.config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]})"


def _no_disk_sync(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("PRAGMA synchronous=OFF")


def _fuzz(database: dict, scratch: bool = False) -> Iterator[Fuzz]:
    """The app with CSRF and a password on, a game in every state, two phones."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "fuzz-secret",
            "WTF_CSRF_ENABLED": True,
            "ACCESS_PASSWORD": PASSWORD,
            **database,
        }
    )
    with app.app_context():
        if scratch:  # a scratch SQLite file: no waiting for the disk at each commit
            sa.event.listen(db.engine, "connect", _no_disk_sync)
        db.create_all()
    world, templates = make_world(app)
    yield Fuzz(app, Phones(app), world, templates)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


# One database per module (and xdist worker): each example works on its own copy of a game.
@pytest.fixture(scope="module")
def sqlite_fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite"
    yield from _fuzz({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"}, scratch=True)


@pytest.fixture(scope="module")
def postgres_fuzz() -> Iterator[Fuzz]:
    """As ``postgres_schema`` in conftest (a private schema, dropped afterwards), per module."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        message = "TEST_DATABASE_URL is not set: PostgreSQL leg not run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    schema = f"fuzz_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield from _fuzz(
            {
                "SQLALCHEMY_DATABASE_URI": url,
                "SQLALCHEMY_ENGINE_OPTIONS": {
                    "connect_args": {"options": f"-csearch_path={schema}"},
                    "pool_pre_ping": True,
                },
            }
        )
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def make_world(app: Flask) -> tuple[World, dict[str, int]]:
    """Store a game in each state; what requests may refer to besides their game."""
    with app.app_context():
        templates = build_templates()
        exports = [
            json.loads(exchange.game_json(db.session.get(Game, game_id)))
            for game_id in templates.values()
        ]
        start_keys = [
            c.request_key
            for game_id in templates.values()
            for c in db.session.get(Game, game_id).changes
            if c.action == "create_game"
        ]
        db.session.remove()
    # A token of a session no request of the fuzz uses.
    other = page_token(app.test_client(), "/login" if password_set(app) else "/games/new")
    world = World(token="", other_token=other, exports=exports, start_keys=start_keys)
    return world, templates


FUZZ_SETTINGS = settings(
    deadline=None,
    # One failure per route, shrunk: shrinking several at once takes minutes.
    report_multiple_bugs=False,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


@pytest.mark.parametrize(("route", "run"), RUNS, ids=run_ids("sqlite"))
@settings(FUZZ_SETTINGS, max_examples=EXAMPLES_PER_RUN)
@given(data=st.data())
def test_a_post_never_fails_and_a_refusal_changes_nothing(sqlite_fuzz, route, run, data):
    spec = data.draw(request_specs(route), label="request")
    problems, request, answer = fuzz_once(sqlite_fuzz, route, spec)
    assert not problems, f"{request.describe()} -> {answer.status}: {problems}"


@pytest.mark.postgres
@pytest.mark.parametrize(("route", "run"), RUNS, ids=run_ids("postgresql"))
@settings(FUZZ_SETTINGS, max_examples=POSTGRES_EXAMPLES_PER_RUN)
@given(data=st.data())
def test_the_same_on_postgresql(postgres_fuzz, route, run, data):
    """PostgreSQL refuses what SQLite stores (NUL bytes, over-long text): fewer examples."""
    spec = data.draw(request_specs(route), label="request")
    problems, request, answer = fuzz_once(postgres_fuzz, route, spec)
    assert not problems, f"{request.describe()} -> {answer.status}: {problems}"


def fuzz_once(
    fuzz: Fuzz, route: Route, spec: Spec, report: Callable[[str], None] = note
) -> tuple[list[str], Request, Answer]:
    """Send one request to a fresh copy of a game; what it broke (``report`` is told what is
    sent, before it is: an unhandled error in the app is raised from here)."""
    app, world = fuzz.app, fuzz.world
    client, world.token = fuzz.phones.get(spec.signed_in)
    with app.app_context(), db.engine.begin() as connection:
        game_id = (
            clone_game(connection, fuzz.templates[spec.template]) if route.game_write else None
        )
    with app.app_context(), db.engine.connect() as connection:
        state = game_state(connection, game_id) if game_id else None
        request = resolve(spec, world, game_id, state, route)
        before = Before(
            tables=fingerprint(connection),
            game=state,
            key_recorded=key_recorded(connection, request.first("request_key")),
            follow_up=bool(game_id) and follow_up_exists(connection, game_id),
        )
    report(request.describe())
    body, content_type = encode(request)
    fuzz.requests += 1
    address = (
        "127.0.0.1"
        if spec.shared_address
        else f"10.1.{fuzz.requests // 256 % 256}.{fuzz.requests % 256}"
    )
    try:
        response = client.post(
            request.path,
            data=body,
            content_type=content_type,
            headers=request.headers,
            environ_base={"REMOTE_ADDR": address},
        )
    finally:
        fuzz.phones.used_for(route.endpoint, spec.signed_in)
    answer = Answer(
        response.status_code,
        response.get_data(as_text=True),
        response.headers.get("Location"),
        response.headers.get("HX-Redirect"),
    )
    with app.app_context(), db.engine.connect() as connection:
        tables_after = fingerprint(connection)
        game_after = game_state(connection, game_id) if game_id else None
    return judge(request, answer, before, tables_after, game_after), request, answer


def test_the_fuzz_names_only_routes_the_app_has():
    """A route renamed or removed: its fields here would silently fuzz nothing."""
    endpoints = {route.endpoint for route in ROUTES}
    assert set(ROUTE_FIELDS) <= endpoints, set(ROUTE_FIELDS) - endpoints
    assert endpoints >= TOKENLESS_ROUTES
    assert len(RUNS) * EXAMPLES_PER_RUN >= 1400
