"""Geometry of the running-totals chart, drawn as SVG on the server (no charting script).

The numbers come from a :class:`rules.ScoreSheet`; this module only places them on a plane.
The template ``history/_chart.html`` turns the geometry into SVG elements.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .. import rules

WIDTH = 360
HEIGHT = 220
# Room for the value labels on the left and the round numbers below.
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 28
# Dash patterns as well as colours: lines stay apart in grey print and for colour blindness.
DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 4", "1 2")


@dataclass(frozen=True)
class Tick:
    value: int
    position: float


@dataclass(frozen=True)
class Series:
    seat: int
    name: str
    path: str
    points: tuple[tuple[float, float], ...]
    dash: str
    total: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    zero_y: float
    series: tuple[Series, ...]
    rounds: int
    shown_rounds: int
    markers: bool
    # Totals by seat before round 1 and after each shown round: the table alternative.
    totals: tuple[tuple[int, ...], ...]


def nice_step(span: float, target_ticks: int = 5) -> int:
    """A round step (1, 2 or 5 times a power of ten, at least 10) giving about that many ticks."""
    raw = max(span, 1) / target_ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return max(10, int(factor * power))
    return max(10, int(10 * power))


def running_totals(sheet: rules.ScoreSheet) -> list[tuple[int, ...]]:
    """Totals by seat before the first round (all zero) and after each round."""
    return [(0,) * sheet.players] + [tuple(c.total for c in row.cells) for row in sheet.rows]


def running_totals_chart(
    sheet: rules.ScoreSheet,
    names: Sequence[str],
    planned_rounds: int,
    upto: int | None = None,
) -> Chart:
    """Lines of each player's running total over the rounds, drawn up to round ``upto``.

    The axes always span the whole game, so stepping through a replay does not rescale.
    """
    totals = running_totals(sheet)
    rounds = max(planned_rounds, len(sheet.rows), 1)
    shown = len(sheet.rows) if upto is None else max(0, min(upto, len(sheet.rows)))
    values = [value for row in totals for value in row]
    step = nice_step(max(values) - min(min(values), 0))
    low = step * math.floor(min(min(values), 0) / step)
    high = step * math.ceil(max(max(values), step) / step)
    right = WIDTH - RIGHT
    bottom = HEIGHT - BOTTOM

    def x_of(number: int) -> float:
        return round(LEFT + (right - LEFT) * number / rounds, 1)

    def y_of(value: int) -> float:
        return round(bottom - (bottom - TOP) * (value - low) / (high - low), 1)

    label_every = 1 if rounds <= 10 else 2 if rounds <= 20 else 5
    x_ticks = tuple(
        Tick(number, x_of(number))
        for number in range(0, rounds + 1)
        # The last round is always labelled; a regular label too close before it is dropped.
        if number == rounds or (number % label_every == 0 and rounds - number >= label_every)
    )
    y_ticks = tuple(Tick(value, y_of(value)) for value in range(low, high + 1, step))
    series = []
    for seat, name in enumerate(names):
        points = tuple((x_of(number), y_of(row[seat])) for number, row in enumerate(totals))
        points = points[: shown + 1]
        path = "M" + " L".join(f"{x:g},{y:g}" for x, y in points)
        series.append(
            Series(
                seat=seat,
                name=name,
                path=path,
                points=points,
                dash=DASHES[seat % len(DASHES)],
                total=totals[shown][seat],
            )
        )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        zero_y=y_of(0),
        series=tuple(series),
        rounds=rounds,
        shown_rounds=shown,
        markers=rounds <= 15,
        totals=tuple(totals[: shown + 1]),
    )
