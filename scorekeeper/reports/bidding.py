"""Statistics that teach bidding: where one player's bids go wrong, and what it costs.

Every number comes from the rules module: the score sheet says whether a bid was met and
what it scored, :func:`rules.forbidden_bid` whether the bid rule bound the player (the last
bidder under ±1, or Canadian with a forbidden bid in force), :func:`rules.bid_order` where
the player sat in the bidding. This module only counts. Each figure carries its sample size,
and :func:`findings` names what stands out, as codes and numbers for a page to word.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from .. import rules

# Fewer rounds than this in a group, and a finding about it is not worth saying.
MIN_SAMPLE = 5
# A difference of hit rates worth naming (ten percentage points).
NOTABLE_GAP = 0.10
# Hand sizes grouped for the sentences: small, middle and large hands.
HAND_BANDS: tuple[tuple[int, int], ...] = ((1, 3), (4, 7), (8, 20))


@dataclass(frozen=True)
class BidGame:
    """One finished game as seen from one player's seat: its rules and scored rounds."""

    game_id: int
    created_at: datetime
    seat: int
    rules: rules.GameRules
    rounds: tuple[rules.RoundRecord, ...]


@dataclass(frozen=True)
class Tally:
    """Rounds with a bid, split into met, over (fewer tricks than bid) and under (more)."""

    rounds: int = 0
    met: int = 0
    over: int = 0
    under: int = 0

    FIELDS: ClassVar[tuple[str, ...]] = ("rounds", "met", "over", "under")

    @property
    def hit_rate(self) -> float | None:
        return self.met / self.rounds if self.rounds else None

    @property
    def over_rate(self) -> float | None:
        return self.over / self.rounds if self.rounds else None

    @property
    def under_rate(self) -> float | None:
        return self.under / self.rounds if self.rounds else None


# The last bidder's place, whatever the table's size: the last bid is one group.
LAST_PLACE = 99


@dataclass(frozen=True)
class PositionTally:
    """A place in the bid order: ``place`` 1 is first, 2 second …; every last bidder is one
    group (``last``, with ``place`` :data:`LAST_PLACE`), as the bid rule binds only them."""

    place: int
    last: bool
    tally: Tally


@dataclass(frozen=True)
class Loss:
    """Points lost to missed bids of one kind: over or under, at one hand size."""

    direction: str  # "over" or "under"
    hand_size: int
    misses: int
    points: int  # the penalties added up: a positive number of points lost


@dataclass(frozen=True)
class BiddingStats:
    """Every figure of the bidding section of a player's page."""

    all_bids: Tally
    forced: Tally
    free: Tally
    by_hand_size: tuple[tuple[int, Tally], ...]
    by_position: tuple[PositionTally, ...]
    zero: Tally
    misses: int
    points_lost: int
    losses: tuple[Loss, ...]  # largest first


@dataclass(frozen=True)
class Finding:
    """Something that stands out, for a page to put in a sentence: ``code`` says which kind,
    ``values`` the numbers (rates as fractions, counts as ints)."""

    code: str
    values: dict[str, int | float | str]
    weight: float  # how much it stands out; findings come largest first


def _place_in_bidding(game_rules: rules.GameRules, dealer: int, seat: int) -> int:
    order = rules.bid_order(game_rules, dealer)
    place = order.index(seat)
    return LAST_PLACE if place == len(order) - 1 else place + 1


def bidding_stats(games: Iterable[BidGame]) -> BiddingStats:
    """The bidding figures over these games.

    A round counts when the player bid in it (not as Saboteur dealer), with the bid that
    scored (after a Cloud change). A bid is *forced* when the rules module finds a forbidden
    bid for this player in that round (with the totals as they stood before it); every other
    bid is *free*. Points lost are the penalties of the missed bids (10 per trick of
    difference), grouped by over or under and hand size, largest first.
    """
    return add_up(
        seat_bidding(
            game.rules, game.rounds, rules.score_sheet(game.rules, game.rounds), game.seat
        )
        for game in games
    )


# A seat's figures (:func:`seat_bidding`), stored with its game's results as JSON: one flat
# list of ints, four for each thing counted — its code, then met, over, under (a tally) or
# misses, points lost, 0 (a loss). Codes: BY_SIZE + hand size, BY_PLACE + place in the
# bidding, FORCED, ZERO, OVER_LOST / UNDER_LOST + hand size. Flat, so that a player page
# adding up thousands of seats decodes and sums little.
SeatBidding = list[int]
BY_SIZE, BY_PLACE, FORCED, ZERO, OVER_LOST, UNDER_LOST = 1000, 2000, 3000, 4000, 5000, 6000


def seat_bidding(
    game_rules: rules.GameRules,
    records: Sequence[rules.RoundRecord],
    sheet: rules.ScoreSheet,
    seat: int,
) -> SeatBidding:
    """What one seat of one game adds to the bidding figures (see :func:`bidding_stats`):
    its scored rounds ``records`` and their ``sheet``. Added up by :func:`add_up`."""
    counts: dict[int, list[int]] = {}

    def count(code: int, bid: int, tricks: int) -> None:
        counts.setdefault(code, [0, 0, 0])[0 if bid == tricks else 1 if bid > tricks else 2] += 1

    for record, row in zip(records, sheet.rows, strict=True):
        cell = row.cells[seat]
        bid = cell.effective_bid
        if bid is None:
            continue
        tricks = cell.tricks
        count(BY_SIZE + row.hand_size, bid, tricks)
        count(BY_PLACE + _place_in_bidding(game_rules, record.dealer, seat), bid, tricks)
        if bid == 0:
            count(ZERO, bid, tricks)
        bound = rules.forbidden_bid(
            game_rules,
            record.number,
            record.hand_size,
            record.dealer,
            dict(enumerate(record.bids)),
            sheet.totals_before(record.number),
        )
        if bound is not None and bound.seat == seat:
            count(FORCED, bid, tricks)
        if not cell.made and cell.points < 0:
            loss = counts.setdefault(
                (OVER_LOST if bid > tricks else UNDER_LOST) + row.hand_size, [0, 0, 0]
            )
            loss[0] += 1
            loss[1] -= cell.points
    return [number for code in sorted(counts) for number in (code, *counts[code])]


def _tally(counts: Sequence[int]) -> Tally:
    met, over, under = counts
    return Tally(met + over + under, met, over, under)


def _sums(figures: Iterable[SeatBidding | None]) -> dict[int, list[int]]:
    sums: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    for seat in figures:
        for at in range(0, len(seat or ()), 4):
            known = sums[seat[at]]  # type: ignore[index]
            known[0] += seat[at + 1]  # type: ignore[index]
            known[1] += seat[at + 2]  # type: ignore[index]
            known[2] += seat[at + 3]  # type: ignore[index]
    return sums


def summed(figures: Iterable[SeatBidding | None]) -> SeatBidding:
    """What these seats add, as one seat's figures: ``add_up([summed(seats)])`` is
    ``add_up(seats)`` (a player's stored all-time figures keep this)."""
    sums = _sums(figures)
    return [number for code in sorted(sums) for number in (code, *sums[code])]


def add_up(figures: Iterable[SeatBidding | None]) -> BiddingStats:
    """The bidding figures of a player from what each of their seats adds (stored with the
    results, or made by :func:`seat_bidding`); a seat without figures adds nothing."""
    sums = _sums(figures)

    def kind(base: int) -> dict[int, list[int]]:
        return {code - base: counts for code, counts in sums.items() if base <= code < base + 1000}

    by_size = {size: _tally(counts) for size, counts in kind(BY_SIZE).items()}
    all_bids = Tally(
        *(sum(getattr(tally, name) for tally in by_size.values()) for name in Tally.FIELDS)
    )
    forced = _tally(sums.get(FORCED, [0, 0, 0]))
    free = Tally(*(getattr(all_bids, name) - getattr(forced, name) for name in Tally.FIELDS))
    lost = [
        Loss(direction, size, misses, points)
        for direction, base in (("over", OVER_LOST), ("under", UNDER_LOST))
        for size, (misses, points, _) in kind(base).items()
    ]
    lost.sort(key=lambda loss: (-loss.points, -loss.misses, loss.hand_size, loss.direction))
    return BiddingStats(
        all_bids=all_bids,
        forced=forced,
        free=free,
        by_hand_size=tuple(sorted(by_size.items())),
        by_position=tuple(
            PositionTally(place, place == LAST_PLACE, _tally(counts))
            for place, counts in sorted(kind(BY_PLACE).items())
        ),
        zero=_tally(sums.get(ZERO, [0, 0, 0])),
        misses=all_bids.over + all_bids.under,
        points_lost=sum(loss.points for loss in lost),
        losses=tuple(lost),
    )


def _band_of(size: int) -> tuple[int, int]:
    return next(band for band in HAND_BANDS if band[0] <= size <= band[1])


def _miss_pattern(stats: BiddingStats) -> Finding | None:
    """The kind of miss (over or under, in a band of hand sizes) that makes up the largest
    share of all misses."""
    if stats.misses < MIN_SAMPLE:
        return None
    counts: dict[tuple[str, tuple[int, int]], int] = defaultdict(int)
    for size, tally in stats.by_hand_size:
        counts["over", _band_of(size)] += tally.over
        counts["under", _band_of(size)] += tally.under
    (direction, (low, high)), count = max(
        counts.items(), key=lambda item: (item[1], item[0][0] == "over", -item[0][1][0])
    )
    share = count / stats.misses
    code = f"{direction}_{'from' if high == HAND_BANDS[-1][1] else 'between'}"
    return Finding(
        code,
        {"low": low, "high": high, "share": share, "count": count, "misses": stats.misses},
        share,
    )


def _forced_gap(stats: BiddingStats) -> Finding | None:
    forced, free = stats.forced, stats.free
    if forced.rounds < MIN_SAMPLE or free.rounds < MIN_SAMPLE:
        return None
    forced_rate, free_rate = forced.met / forced.rounds, free.met / free.rounds
    gap = forced_rate - free_rate
    if abs(gap) < NOTABLE_GAP:
        return None
    return Finding(
        "forced_lower" if gap < 0 else "forced_higher",
        {
            "forced": forced_rate,
            "forced_rounds": forced.rounds,
            "free": free_rate,
            "free_rounds": free.rounds,
        },
        abs(gap),
    )


def _weakest_position(stats: BiddingStats) -> Finding | None:
    overall = stats.all_bids.hit_rate
    candidates = [p for p in stats.by_position if p.tally.rounds >= MIN_SAMPLE]
    if overall is None or len(candidates) < 2:
        return None
    worst = min(candidates, key=lambda p: (p.tally.met / p.tally.rounds, p.place))
    rate = worst.tally.met / worst.tally.rounds
    gap = overall - rate
    if gap < NOTABLE_GAP:
        return None
    code = "position_last" if worst.last else "position_first" if worst.place == 1 else "position"
    return Finding(
        code,
        {
            "place": worst.place,
            "rate": rate,
            "rounds": worst.tally.rounds,
            "overall": overall,
        },
        gap,
    )


def _zero_bids(stats: BiddingStats) -> Finding | None:
    overall = stats.all_bids.hit_rate
    zero = stats.zero
    if overall is None or zero.rounds < MIN_SAMPLE:
        return None
    rate = zero.met / zero.rounds
    gap = rate - overall
    if abs(gap) < NOTABLE_GAP:
        return None
    return Finding(
        "zero_lower" if gap < 0 else "zero_higher",
        {"rate": rate, "rounds": zero.rounds, "overall": overall},
        abs(gap),
    )


def findings(stats: BiddingStats, limit: int = 3) -> tuple[Finding, ...]:
    """What stands out in these figures, most striking first (at most ``limit``): the kind
    of miss that makes up most misses, forced bids met more or less often than free ones, the
    place in the bidding with the lowest hit rate, zero bids. Each needs at least
    :data:`MIN_SAMPLE` rounds behind it, and a gap in hit rates of :data:`NOTABLE_GAP`."""
    found = [
        finding
        for finding in (
            _miss_pattern(stats),
            _forced_gap(stats),
            _weakest_position(stats),
            _zero_bids(stats),
        )
        if finding is not None
    ]
    found.sort(key=lambda finding: -finding.weight)
    return tuple(found[:limit])
