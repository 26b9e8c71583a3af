"""Events (a club night or a tournament): splitting players into tables, drawing the seatings
of each session and the standings across every game (pure: no Flask, no database).

Players are given as ids (any hashable, sortable value). Everything drawn is reproducible:
the same players, the same seed and the same earlier games give the same seating.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from .. import rules

MIN_TABLE = rules.MIN_PLAYERS
MAX_TABLE = rules.MAX_PLAYERS
MIN_SEED = 1
MAX_SEED = 999_999

Seating = tuple[tuple[Any, ...], ...]


class SeatingError(ValueError):
    """The players cannot be seated as asked; ``code`` says why (the caller words it)."""

    def __init__(self, code: str, **values: Any) -> None:
        super().__init__(code)
        self.code = code
        self.values = values


# --- splitting into tables -----------------------------------------------------------------


def table_sizes(players: int, preferred: int) -> tuple[int, ...]:
    """How many players sit at each table, largest first: as few tables as the preferred size
    allows, the players spread as evenly as possible, every table 3–6 (14 at a preferred 4:
    4 + 4 + 3 + 3). Raises :class:`SeatingError` for fewer than 3 players."""
    if not MIN_TABLE <= preferred <= MAX_TABLE:
        raise SeatingError("table_size", min=MIN_TABLE, max=MAX_TABLE)
    if players < MIN_TABLE:
        raise SeatingError("too_few_players", min=MIN_TABLE, count=players)
    tables = math.ceil(players / preferred)
    # Never a table below 3 (fewer tables) nor above 6 (more tables).
    tables = max(min(tables, players // MIN_TABLE), math.ceil(players / MAX_TABLE))
    base, extra = divmod(players, tables)
    return (base + 1,) * extra + (base,) * (tables - extra)


def check_seating(seating: Seating) -> None:
    """Raise :class:`SeatingError` when a player sits at two tables (or twice at one) or a
    table has fewer than 3 or more than 6 players."""
    seen: set[Any] = set()
    for number, table in enumerate(seating, start=1):
        if not MIN_TABLE <= len(table) <= MAX_TABLE:
            raise SeatingError("table_size_out_of_range", table=number, count=len(table))
        for player in table:
            if player in seen:
                raise SeatingError("player_twice", player=player)
            seen.add(player)


# --- drawing seatings ----------------------------------------------------------------------


def new_seed(rng: random.Random | None = None) -> int:
    """A seed to show on the page (six digits at most: easy to read out and type again)."""
    return (rng or random.SystemRandom()).randint(MIN_SEED, MAX_SEED)


def opponents(seatings: Iterable[Seating]) -> Counter[frozenset[Any]]:
    """How often each pair of players sat at one table in the given sessions."""
    met: Counter[frozenset[Any]] = Counter()
    for seating in seatings:
        for table in seating:
            met.update(frozenset(pair) for pair in itertools.combinations(table, 2))
    return met


def repeat_count(seatings: Iterable[Seating]) -> int:
    """Meetings beyond the first: each pair that sat together k times counts k − 1."""
    return sum(times - 1 for times in opponents(seatings).values() if times > 1)


# A repeated opponent costs more than any spread in the standings can: repeats come first.
_REPEAT_WEIGHT = 10_000


def _table_cost(table: Sequence[Any], place: Mapping[Any, int], met: Counter) -> int:
    cost = 0
    for a, b in itertools.combinations(table, 2):
        cost += _REPEAT_WEIGHT * met[frozenset((a, b))] + abs(place[a] - place[b])
    return cost


def draw_seating(
    players: Sequence[Any],
    preferred: int,
    seed: int,
    *,
    ranking: Sequence[Any] | None = None,
    earlier: Sequence[Seating] = (),
) -> Seating:
    """The seating of one session: tables (largest first), each in seat order (clockwise).

    Without a ``ranking`` (the first session) the players are shuffled by ``seed``. With one
    (the players best first, as the standings stand) the draw is Swiss: neighbours in the
    standings share a table, then players are swapped between tables while that lowers the
    number of opponents met before in ``earlier`` sessions (first) and the spread of
    standings at a table (second). Seat order at each table is shuffled by ``seed``.
    """
    players = list(players)
    if len(set(players)) != len(players):
        raise SeatingError("player_twice", player=_first_twice(players))
    sizes = table_sizes(len(players), preferred)
    rng = random.Random(seed)
    if ranking is None:
        order = sorted(players, key=repr)
        rng.shuffle(order)
    else:
        ranked = [player for player in ranking if player in set(players)]
        # Players without a standing yet (just arrived) join at the bottom, in a drawn order.
        newcomers = sorted((p for p in players if p not in set(ranked)), key=repr)
        rng.shuffle(newcomers)
        order = ranked + newcomers
    if ranking is None:
        tables = [list(group) for group in _cut(order, sizes)]
    else:
        met = opponents(earlier)
        tables = _fill_tables(order, sizes, met)
        tables = _search(tables, {player: index for index, player in enumerate(order)}, met)
    for table in tables:
        rng.shuffle(table)
    return tuple(tuple(table) for table in tables)


def _first_twice(players: Sequence[Any]) -> Any:
    seen: set[Any] = set()
    for player in players:
        if player in seen:
            return player
        seen.add(player)
    return None  # pragma: no cover - called only when there is one


def _cut(order: Sequence[Any], sizes: Sequence[int]) -> list[Sequence[Any]]:
    groups, start = [], 0
    for size in sizes:
        groups.append(order[start : start + size])
        start += size
    return groups


def _fill_tables(order: Sequence[Any], sizes: Sequence[int], met: Counter) -> list[list[Any]]:
    """Swiss tables: each table starts with the best player left and takes the next best
    who met its players least often before (standings order decides among equals)."""
    left = list(order)
    tables = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size:
            index = min(
                range(len(left)),
                key=lambda i: (sum(met[frozenset((left[i], p))] for p in table), i),
            )
            table.append(left.pop(index))
        tables.append(table)
    return tables


# Kicks tried to get out of a seating with repeats that no single swap removes.
_KICKS = 60


def _search(tables: list[list[Any]], place: Mapping[Any, int], met: Counter) -> list[list[Any]]:
    """Descend from the Swiss tables; while opponents still repeat, move one player of a
    repeated pair to another table (whatever it costs) and descend again, keeping the best
    seating found (iterated local search, in a fixed order: reproducible)."""
    _improve(tables, place, met)
    best = [list(table) for table in tables]
    best_cost = sum(_table_cost(table, place, met) for table in best)
    for kick in range(_KICKS):
        if best_cost < _REPEAT_WEIGHT:
            break
        tables = [list(table) for table in best]
        repeated = [
            (t, i)
            for t, table in enumerate(tables)
            for i, player in enumerate(table)
            if any(met[frozenset((player, other))] for other in table if other != player)
        ]
        t1, i = repeated[kick % len(repeated)]
        t2 = (t1 + 1 + kick // len(repeated)) % len(tables)
        if t2 == t1:
            continue
        j = kick % len(tables[t2])
        tables[t1][i], tables[t2][j] = tables[t2][j], tables[t1][i]
        _improve(tables, place, met)
        cost = sum(_table_cost(table, place, met) for table in tables)
        if cost < best_cost:
            best, best_cost = tables, cost
    return best


def _improve(tables: list[list[Any]], place: Mapping[Any, int], met: Counter) -> None:
    """Swap players between tables while a swap lowers the cost (a deterministic descent:
    tables, then seats, in order; the best swap of each pass is taken)."""
    costs = [_table_cost(table, place, met) for table in tables]
    while True:
        best: tuple[int, int, int, int, int, int, int] | None = None
        for t1, t2 in itertools.combinations(range(len(tables)), 2):
            for i, j in itertools.product(range(len(tables[t1])), range(len(tables[t2]))):
                a, b = tables[t1][i], tables[t2][j]
                one = [*tables[t1][:i], b, *tables[t1][i + 1 :]]
                two = [*tables[t2][:j], a, *tables[t2][j + 1 :]]
                c1, c2 = _table_cost(one, place, met), _table_cost(two, place, met)
                gain = costs[t1] + costs[t2] - c1 - c2
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, t1, t2, i, j, c1, c2)
        if best is None:
            return
        _gain, t1, t2, i, j, c1, c2 = best
        tables[t1][i], tables[t2][j] = tables[t2][j], tables[t1][i]
        costs[t1], costs[t2] = c1, c2


def swap_players(seating: Seating, a: Any, b: Any) -> Seating:
    """The seating with players ``a`` and ``b`` in each other's seats."""
    found = {player for table in seating for player in table}
    for player in (a, b):
        if player not in found:
            raise SeatingError("not_seated", player=player)
    if a == b:
        raise SeatingError("same_player", player=a)
    swapped = {a: b, b: a}
    return tuple(tuple(swapped.get(p, p) for p in table) for table in seating)


# --- standings -----------------------------------------------------------------------------


class Method(StrEnum):
    """How an event's standings count each game."""

    # A share of the players beaten at the table (ties half): 1 for a win alone, 0 for last,
    # the same worth at a table of three as at a table of six.
    PLACEMENT = "placement"
    # The game scores added up.
    SCORE = "score"


@dataclass(frozen=True)
class GameSeat:
    """One player's line in one of the event's games."""

    player: Any
    total: int
    bids_met: int
    bid_sum: int


@dataclass(frozen=True)
class TableGame:
    """One table's game as the standings use it: its seats and whether it counts.

    ``counts`` is false for a game still being played (it counts once it ends) and for a
    game stopped before any round was scored; a game stopped later counts as it stood.
    """

    key: Any
    seats: tuple[GameSeat, ...]
    counts: bool = True


@dataclass(frozen=True)
class GameResult:
    """What one game brought one player: the placement share and the game's figures."""

    key: Any
    points: Fraction
    total: int
    bids_met: int
    bid_sum: int


@dataclass(frozen=True)
class Standing:
    """One player's line in the event's standings."""

    player: Any
    rank: int
    points: Fraction
    games: int
    score: int
    bids_met: int
    bid_sum: int
    results: tuple[GameResult, ...] = field(default=())

    @property
    def sort_key(self) -> tuple[Fraction, int, int, int]:
        return (self.points, self.score, self.bids_met, self.bid_sum)


def placement_shares(totals: Sequence[int]) -> tuple[Fraction, ...]:
    """Each seat's share of the other players it beat (a tie beats half a player): 1 for a
    win alone, 0 for last alone; a table of n players hands out n / 2 in all."""
    others = len(totals) - 1
    if others <= 0:
        return tuple(Fraction(0) for _ in totals)
    shares = []
    for seat, total in enumerate(totals):
        beaten = sum(other < total for other in totals)
        tied = sum(other == total for index, other in enumerate(totals) if index != seat)
        shares.append(Fraction(2 * beaten + tied, 2 * others))
    return tuple(shares)


def standings(
    players: Iterable[Any], games: Iterable[TableGame], method: Method | str
) -> tuple[Standing, ...]:
    """The event's standings, best first: by placement points (or the sum of scores), then the
    tie-breaks in order — sum of scores, bids met, sum of bids. Players equal on all of them
    share a rank (1, 2, 2, 4) and keep the order given in ``players``.
    """
    method = Method(method)
    order = list(dict.fromkeys(players))
    results: dict[Any, list[GameResult]] = {player: [] for player in order}
    for game in games:
        if not game.counts:
            continue
        shares = placement_shares([seat.total for seat in game.seats])
        for seat, share in zip(game.seats, shares, strict=True):
            if seat.player not in results:
                results[seat.player] = []
                order.append(seat.player)
            results[seat.player].append(
                GameResult(game.key, share, seat.total, seat.bids_met, seat.bid_sum)
            )
    # Placement points are sums of shares with small denominators (4, 6, 8, 10): counted as
    # whole numbers of 1/unit, with the Fractions made once per line. Summing and sorting
    # Fractions was two fifths of an event board's time (cProfile, 60 players).
    unit = math.lcm(*{r.points.denominator for mine in results.values() for r in mine})
    lines = []
    keys: dict[Any, tuple[int, int, int, int]] = {}
    for player in order:
        mine = results[player]
        score = sum(result.total for result in mine)
        bids_met = sum(result.bids_met for result in mine)
        bid_sum = sum(result.bid_sum for result in mine)
        if method is Method.PLACEMENT:
            units = sum(r.points.numerator * (unit // r.points.denominator) for r in mine)
            points = Fraction(units, unit)
        else:
            units, points = score, Fraction(score)
        keys[player] = (units, score, bids_met, bid_sum)
        lines.append(
            Standing(
                player=player,
                rank=0,
                points=points,
                games=len(mine),
                score=score,
                bids_met=bids_met,
                bid_sum=bid_sum,
                results=tuple(mine),
            )
        )
    position = {player: index for index, player in enumerate(order)}
    lines.sort(key=lambda line: (*(-part for part in keys[line.player]), position[line.player]))
    # Sorted best first: a line equal to the one before shares its rank (1, 2, 2, 4).
    ranked: list[Standing] = []
    for index, line in enumerate(lines):
        tied = ranked and keys[ranked[-1].player] == keys[line.player]
        ranked.append(_with_rank(line, ranked[-1].rank if tied else index + 1))
    return tuple(ranked)


def _with_rank(line: Standing, rank: int) -> Standing:
    return Standing(
        line.player,
        rank,
        line.points,
        line.games,
        line.score,
        line.bids_met,
        line.bid_sum,
        line.results,
    )


def ranking(lines: Sequence[Standing]) -> list[Any]:
    """The players best first, as :func:`draw_seating` takes them for a Swiss session."""
    return [line.player for line in lines]


def leaders(totals: Mapping[Any, int]) -> list[Any]:
    """The players with the highest total at one table (several when tied)."""
    if not totals:
        return []
    top = max(totals.values())
    return [player for player, total in totals.items() if total == top]


def changed_since(shown: Sequence[Standing], now: Sequence[Standing]) -> bool:
    """Whether the standings moved since they were last shown (a corrected game)."""
    return _fingerprint(shown) != _fingerprint(now)


def _fingerprint(lines: Sequence[Standing]) -> list[tuple[Any, ...]]:
    return [(line.player, line.rank, *line.sort_key, line.games) for line in lines]


def standings_fingerprint(lines: Sequence[Standing]) -> str:
    """A short text that changes whenever the standings change (kept with a shown board)."""
    return "|".join(",".join(str(value) for value in item) for item in _fingerprint(lines))


def repeat_table(seatings: Sequence[Seating]) -> Mapping[Hashable, int]:
    """Each player's number of opponents met more than once over the given sessions."""
    met = opponents(seatings)
    count: Counter[Any] = Counter()
    for pair, times in met.items():
        if times > 1:
            for player in pair:
                count[player] += times - 1
    return dict(count)
