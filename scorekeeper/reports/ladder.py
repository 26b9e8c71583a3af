"""The club ladder's ratings, and the small chart of one player's rating over time (pure).

A rating is a multiplayer skill estimate from openskill's Plackett-Luce model (Weng and Lin,
2011): each player has a mean skill ``mu`` and an uncertainty ``sigma``; after every finished
game the players' places move them. The rating shown and ranked by is the conservative
``mu - 3 sigma`` (the library's ordinal): a new player starts at 0 and climbs as the model
grows sure of them. Places come from the rules module's ranks (tied totals share a place).

Given the same games in the same order, :func:`rate_games` gives the same numbers: the model
parameters are fixed here, and the players of a game are handed to the model in one order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.metadata import version

from openskill.models import PlackettLuce, PlackettLuceRating

from .. import rules
from .charts import Tick

# The library's defaults, written out: a new release changing a default must not change
# the club's ratings silently. tau keeps sigma from shrinking to nothing (ratings keep
# moving); no margin of victory (only places count, not points); sigma may grow back.
MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
TAU = MU / 300
KAPPA = 0.0001
# What a stored ladder was computed with: another model or library release computes again.
MODEL = f"openskill {version('openskill')} plackett-luce mu={MU} sigma={SIGMA:.6f} tau={TAU:.6f}"


def model() -> PlackettLuce:
    """The rating model, with every parameter fixed."""
    return PlackettLuce(
        mu=MU,
        sigma=SIGMA,
        beta=BETA,
        kappa=KAPPA,
        tau=TAU,
        margin=0.0,
        limit_sigma=False,
        balance=False,
    )


@dataclass(frozen=True)
class Rating:
    """A player's skill estimate: the mean and its uncertainty."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """The rating shown and ranked by: mu − 3 sigma, the skill the player very probably
        has at least (0 for a new player)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Finish:
    """One player's place in one finished game (1 is first; tied players share a place)."""

    player_id: int
    place: int


@dataclass(frozen=True)
class GameFinish:
    """A finished game as the ladder sees it: who finished where."""

    game_id: int
    finishes: tuple[Finish, ...]


@dataclass(frozen=True)
class RatedFinish:
    """A player's place in a game and their rating after it."""

    player_id: int
    place: int
    rating: Rating


def places(totals: Sequence[int]) -> tuple[int, ...]:
    """Each seat's place from the final totals: the rules module's ranks (1, 2, 2, 4)."""
    return rules.rank(totals)


def rate_games(
    games: Iterable[GameFinish], before: Mapping[int, Rating] | None = None
) -> Iterator[tuple[int, tuple[RatedFinish, ...]]]:
    """For each game in the order given, its id and each player's rating after it, starting
    from the ratings ``before`` (players not in it start new). Within a game the players are
    given to the model by place, then player id, so the order of ``finishes`` does not
    matter; tied players share a rank (level players tied stay level)."""
    rater = model()
    current: dict[int, Rating] = dict(before or {})
    for game in games:
        finishes = sorted(game.finishes, key=lambda finish: (finish.place, finish.player_id))
        teams = [
            [PlackettLuceRating(*_mu_sigma(current.get(finish.player_id, Rating())))]
            for finish in finishes
        ]
        after = rater.rate(teams, ranks=[float(finish.place) for finish in finishes])
        rated = []
        for finish, (player,) in zip(finishes, after, strict=True):
            rating = Rating(player.mu, player.sigma)
            current[finish.player_id] = rating
            rated.append(RatedFinish(finish.player_id, finish.place, rating))
        yield game.game_id, tuple(rated)


def _mu_sigma(rating: Rating) -> tuple[float, float]:
    return rating.mu, rating.sigma


# --- the rating chart ----------------------------------------------------------------------

WIDTH = 360
HEIGHT = 150
LEFT, RIGHT, TOP, BOTTOM = 36, 10, 10, 24
# More points than this are thinned out evenly (the first and the last always kept): a
# line of a thousand games is no clearer than one of a hundred and twenty.
MAX_POINTS = 120


@dataclass(frozen=True)
class RatingPoint:
    """The rating after one game."""

    game_number: int  # 1 for the player's first rated game
    played_at: datetime
    rating: float


@dataclass(frozen=True)
class RatingChart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    y_ticks: tuple[Tick, ...]
    path: str
    last: tuple[float, float]
    points: tuple[RatingPoint, ...]  # the points drawn, oldest first
    games: int


def rating_step(span: float) -> int:
    """A round tick step (1, 2 or 5 times a power of ten) giving three to six ticks."""
    power = 1
    while True:
        for factor in (1, 2, 5):
            if span <= 5 * factor * power:
                return factor * power
        power *= 10


def thinned(points: Sequence[RatingPoint], limit: int = MAX_POINTS) -> tuple[RatingPoint, ...]:
    """At most ``limit`` of the points, evenly spread, the first and the last included."""
    if len(points) <= limit:
        return tuple(points)
    last = len(points) - 1
    picks = sorted({round(index * last / (limit - 1)) for index in range(limit)})
    return tuple(points[index] for index in picks)


def rating_chart(points: Sequence[RatingPoint], games: int | None = None) -> RatingChart | None:
    """A line of the rating after each game, over the games in order (``None`` for none);
    ``games``: how many there were, when ``points`` are already thinned.

    The axis includes 0, where every player starts."""
    if not points:
        return None
    drawn = thinned(points)
    values = [point.rating for point in drawn] + [0.0]
    step = rating_step(max(values) - min(values))
    low = step * math.floor(min(values) / step)
    high = step * math.ceil(max(values) / step)
    if high == low:
        high = low + step
    right = WIDTH - RIGHT
    bottom = HEIGHT - BOTTOM
    first_game, last_game = drawn[0].game_number, drawn[-1].game_number

    def x_of(number: int) -> float:
        if last_game == first_game:
            return float(right)
        return round(LEFT + (right - LEFT) * (number - first_game) / (last_game - first_game), 1)

    def y_of(value: float) -> float:
        return round(bottom - (bottom - TOP) * (value - low) / (high - low), 1)

    coordinates = [(x_of(point.game_number), y_of(point.rating)) for point in drawn]
    if len(coordinates) == 1:
        # One game: a short level line ending at the point, so there is something to see.
        coordinates.insert(0, (float(LEFT), coordinates[0][1]))
    return RatingChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        y_ticks=tuple(Tick(v, y_of(v)) for v in range(low, high + 1, step)),
        path="M" + " L".join(f"{x:g},{y:g}" for x, y in coordinates),
        last=coordinates[-1],
        points=drawn,
        games=len(points) if games is None else games,
    )
