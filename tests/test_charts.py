"""The running-totals chart geometry."""

import pytest

from scorekeeper import rules
from scorekeeper.reports import charts

RULES = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=4), bid_rule="free")


def sheet(rounds):
    return rules.score_sheet(
        RULES,
        [
            rules.RoundRecord(n, n, (n - 1) % 3, bids, tricks)
            for n, (bids, tricks) in enumerate(rounds, start=1)
        ],
    )


@pytest.mark.parametrize(
    ("span", "step"), [(0, 10), (40, 10), (90, 20), (130, 50), (260, 100), (700, 200)]
)
def test_nice_step_gives_round_steps(span, step):
    assert charts.nice_step(span) == step


def test_lines_start_at_zero_and_follow_the_sheet_totals():
    # Ann 30, 40... Bob -10 after round 1; Cy 20.
    played = sheet([((1, 1, 0), (1, 0, 0)), ((2, 0, 0), (2, 0, 0))])
    chart = charts.running_totals_chart(played, ["Ann", "Bob", "Cy"], RULES.round_count)
    assert chart.totals == ((0, 0, 0), (30, -10, 20), (70, 10, 40))
    assert [tick.value for tick in chart.x_ticks] == [0, 1, 2, 3, 4]
    # The value axis includes zero and the extremes, on round steps.
    values = [tick.value for tick in chart.y_ticks]
    assert values[0] <= -10
    assert values[-1] >= 70
    assert 0 in values
    ann, bob, _cy = chart.series
    assert len(ann.points) == 3
    # Higher totals are drawn higher (smaller y); all lines start on the zero line.
    assert ann.points[0][1] == bob.points[0][1] == chart.zero_y
    assert ann.points[2][1] < bob.points[2][1]
    # The x axis spans all planned rounds, not just those played.
    assert ann.points[2][0] < chart.right
    assert ann.path.startswith("M")
    assert ann.path.count("L") == 2
    assert (ann.total, bob.total) == (70, 10)


def test_replay_draws_up_to_a_round_on_the_same_axes():
    played = sheet([((1, 1, 0), (1, 0, 0)), ((2, 0, 0), (2, 0, 0))])
    full = charts.running_totals_chart(played, ["A", "B", "C"], 4)
    partial = charts.running_totals_chart(played, ["A", "B", "C"], 4, upto=1)
    assert partial.y_ticks == full.y_ticks
    assert partial.series[0].points == full.series[0].points[:2]
    assert partial.series[0].total == 30
    assert partial.totals == full.totals[:2]


def test_no_rounds_gives_a_flat_chart_without_errors():
    chart = charts.running_totals_chart(sheet([]), ["A", "B", "C"], 4)
    assert all(series.path.count("L") == 0 for series in chart.series)
    assert chart.y_ticks[0].value == 0
