"""Player statistics over finished games, computed from the rules module's score sheets.

Nothing here scores a round: points, totals, "made" and winners all come from
:func:`rules.score_sheet`; this module only counts and averages them.
"""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .. import rules


@dataclass(frozen=True)
class PlayedGame:
    """One finished game as seen from one player's seat."""

    game_id: int
    created_at: datetime
    seat: int
    player_ids: tuple[int, ...]
    names: tuple[str, ...]
    sheet: rules.ScoreSheet

    @property
    def final_total(self) -> int:
        return self.sheet.totals[self.seat]


@dataclass(frozen=True)
class GameTotal:
    """A game by its final total for one player (the best and worst game)."""

    game_id: int
    created_at: datetime
    final_total: int


@dataclass(frozen=True)
class Rate:
    hits: int
    tries: int

    @property
    def value(self) -> float | None:
        """The share of hits, or ``None`` when there was nothing to count."""
        return self.hits / self.tries if self.tries else None


@dataclass(frozen=True)
class Misses:
    """Rounds whose bid was missed in one direction, and the average size of the miss."""

    rounds: int
    tricks: int

    @property
    def average(self) -> float | None:
        return self.tricks / self.rounds if self.rounds else None


@dataclass(frozen=True)
class HeadToHead:
    player_id: int
    name: str
    games: int
    ahead: int
    behind: int
    level: int


@dataclass(frozen=True)
class PlayerStats:
    games: int
    wins: int
    win_rate: Rate
    average_score: float | None
    best: GameTotal | None
    worst: GameTotal | None
    bids: Rate
    by_hand_size: tuple[tuple[int, Rate], ...]
    over: Misses
    under: Misses
    zero_bids: Rate
    longest_streak: int
    head_to_head: tuple[HeadToHead, ...]


@dataclass(frozen=True)
class SeatFigures:
    """One seat's bidding in one game: the parts :func:`player_stats` adds up over games.

    ``streak_first`` and ``streak_last`` are the bids met before the first miss and after the
    last one, ``streak_best`` the longest run within the game; with no miss (``missed`` false)
    all three are ``hits``. ``by_hand_size`` maps a hand size to (bids met, bids).
    """

    bids: int
    hits: int
    zero_bids: int
    zero_hits: int
    over: Misses
    under: Misses
    missed: bool
    streak_first: int
    streak_last: int
    streak_best: int
    by_hand_size: dict[int, tuple[int, int]]


def seat_figures(sheet: rules.ScoreSheet, seat: int) -> SeatFigures:
    """The bidding figures of ``seat`` in one game, as :func:`player_stats` counts them."""
    bids = hits = zero_bids = zero_hits = run = best = 0
    first: int | None = None
    over = [0, 0]
    under = [0, 0]
    by_size: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in sheet.rows:
        cell = row.cells[seat]
        if cell.effective_bid is None:
            continue
        bids += 1
        by_size[row.hand_size][1] += 1
        zero_bids += cell.effective_bid == 0
        if cell.made:
            hits += 1
            by_size[row.hand_size][0] += 1
            zero_hits += cell.effective_bid == 0
            run += 1
            best = max(best, run)
            continue
        if first is None:
            first = run
        run = 0
        miss = over if cell.effective_bid > cell.tricks else under
        miss[0] += 1
        miss[1] += abs(cell.effective_bid - cell.tricks)
    return SeatFigures(
        bids=bids,
        hits=hits,
        zero_bids=zero_bids,
        zero_hits=zero_hits,
        over=Misses(*over),
        under=Misses(*under),
        missed=first is not None,
        streak_first=run if first is None else first,
        streak_last=run,
        streak_best=best,
        by_hand_size={size: (met, tried) for size, (met, tried) in sorted(by_size.items())},
    )


def player_stats(player_id: int, games: Sequence[PlayedGame]) -> PlayerStats:
    """Every figure of the player page, over these finished games.

    Games count in the order they were played (then by id), which matters for the streak.
    A round counts towards the bid figures when the player bid in it (not as Saboteur
    dealer), using the bid that scored (after a Cloud change).
    """
    ordered = sorted(games, key=lambda g: (g.created_at, g.game_id))
    wins = sum(g.seat in g.sheet.winners for g in ordered)
    hits = tries = zero_hits = zero_tries = streak = longest = 0
    over = [0, 0]
    under = [0, 0]
    by_size: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for game in ordered:
        for row in game.sheet.rows:
            cell = row.cells[game.seat]
            if cell.effective_bid is None:
                continue
            tries += 1
            by_size[row.hand_size][1] += 1
            if cell.effective_bid == 0:
                zero_tries += 1
            if cell.made:
                hits += 1
                by_size[row.hand_size][0] += 1
                zero_hits += cell.effective_bid == 0
                streak += 1
                longest = max(longest, streak)
                continue
            streak = 0
            miss = over if cell.effective_bid > cell.tricks else under
            miss[0] += 1
            miss[1] += abs(cell.effective_bid - cell.tricks)
    totals = [g.final_total for g in ordered]
    best = max(ordered, key=lambda g: g.final_total, default=None)
    worst = min(ordered, key=lambda g: g.final_total, default=None)
    return PlayerStats(
        games=len(ordered),
        wins=wins,
        win_rate=Rate(wins, len(ordered)),
        average_score=sum(totals) / len(totals) if totals else None,
        best=GameTotal(best.game_id, best.created_at, best.final_total) if best else None,
        worst=GameTotal(worst.game_id, worst.created_at, worst.final_total) if worst else None,
        bids=Rate(hits, tries),
        by_hand_size=tuple((size, Rate(*counts)) for size, counts in sorted(by_size.items())),
        over=Misses(*over),
        under=Misses(*under),
        zero_bids=Rate(zero_hits, zero_tries),
        longest_streak=longest,
        head_to_head=head_to_head(player_id, ordered),
    )


def head_to_head(player_id: int, games: Sequence[PlayedGame]) -> tuple[HeadToHead, ...]:
    """For each other player: games together, and who finished with the higher total."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    names: dict[int, str] = {}
    for game in games:
        mine = game.final_total
        for seat, other in enumerate(game.player_ids):
            if other == player_id:
                continue
            names[other] = game.names[seat]
            theirs = game.sheet.totals[seat]
            line = counts[other]
            line[0] += 1
            line[1 if mine > theirs else 2 if mine < theirs else 3] += 1
    lines = [HeadToHead(other, names[other], *line) for other, line in counts.items()]
    return tuple(sorted(lines, key=lambda h: (-h.games, h.name.casefold(), h.player_id)))
