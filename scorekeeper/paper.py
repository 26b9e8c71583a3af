"""Games played on paper: a finished sheet checked by the rules module, then stored through
the one write path as if it had been played round by round.

A paper sheet is a record of what happened at the table, so a bid the bid rule forbade is
*flagged* (the rules module's own problem, kept to show with the sheet), never refused;
whatever cannot have happened — a bid or tricks outside 0 … cards, tricks that do not add
up, an empty cell — is refused, with the problem filed under its cell, and nothing is
stored.

Storing starts the game (:func:`gameplay.create_game`, version 1) and then saves each round
as one recorded change (:func:`changes.apply_change`, action ``record_round``), exactly as
the table would have: the history, undo, the score sheet, statistics and the ladder see an
ordinary finished game. It began at the time written on the sheet and is finished then too
(the ladder orders games by that moment); the changes keep the time they were entered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from . import gameplay, rules
from .changes import AlreadyApplied, StaleGame, apply_change
from .models import ChangeAction, Game, GameStatus, Round, RoundState
from .queries import reload_game
from .records import round_records, rules_of

P = rules.ProblemCode
# The problems a paper sheet records instead of refusing: the bid rule, broken at the table.
FLAGGED = frozenset({P.FORBIDDEN_BID})
# Attempts at one round when another request (a double tap) saves the same sheet at once.
ATTEMPTS = 3


@dataclass(frozen=True)
class PaperRound:
    """One round as written on the sheet: the bids and tricks by seat, and the trump noted
    (a suit's value, ``"none"`` for no trump, ``""`` when the sheet does not say); the
    dealer when the table changed it (``None``: the deal passed on), whether the Bomb was
    played, the Cloud's change (its seat and +1 or -1) and the Werewolf's trump (``None``:
    not played; a suit's value, or ``"none"`` for no trump)."""

    number: int
    bids: tuple[int | None, ...]
    tricks: tuple[int | None, ...]
    trump: str = ""
    dealer: int | None = None
    bomb_played: bool = False
    cloud: tuple[int, int] | None = None
    werewolf: str | None = None


@dataclass
class SheetCheck:
    """What the rules module says about a whole sheet: the problems that refuse it (each
    with its round; the cell is its field and seat), and the broken bid rules it records."""

    refused: list[rules.Problem] = field(default_factory=list)
    flags: list[rules.Problem] = field(default_factory=list)
    records: list[rules.RoundRecord] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.refused


def dealers(
    game_rules: rules.GameRules, first_dealer: int, changed: Mapping[int, int] | None = None
) -> list[int]:
    """The dealer of every round: the deal passes clockwise from the first dealer; a dealer
    changed at the table (``changed``: round number to seat) deals that round, and the
    rounds after it rotate on from them."""
    found: list[int] = []
    for number in range(1, game_rules.round_count + 1):
        in_turn = first_dealer if number == 1 else rules.next_seat(found[-1], game_rules.players)
        found.append((changed or {}).get(number, in_turn))
    return found


def changed_dealers(rounds: Sequence[PaperRound]) -> dict[int, int]:
    """The rounds whose dealer the table changed, and who dealt them."""
    return {paper.number: paper.dealer for paper in rounds if paper.dealer is not None}


def bids_as_played(
    game_rules: rules.GameRules, dealer: int, typed: Sequence[int | None]
) -> tuple[int | None, ...]:
    """The bids of a round as the rules have them: with Jester bid everyone who bids bid
    zero (the sheet has nothing to say); with Saboteur the dealer's empty cell is no bid."""
    bidders = set(rules.bid_order(game_rules, dealer))
    if game_rules.jester_bid:
        return tuple(0 if seat in bidders else None for seat in range(len(typed)))
    return tuple(typed)


def cloud_change(
    bids: Sequence[int | None], cloud: tuple[int, int] | None
) -> rules.CloudChange | None:
    """The Cloud's change as the rules module has it: the seat and its bid moved by the
    step written (the rules module refuses a seat with no bid, or a bid out of 0 … cards)."""
    if cloud is None:
        return None
    seat, step = cloud
    bid = bids[seat] if 0 <= seat < len(bids) else None
    return rules.CloudChange(seat=seat, new_bid=(bid if bid is not None else 0) + step)


def check_sheet(
    game_rules: rules.GameRules, first_dealer: int, rounds: Sequence[PaperRound]
) -> SheetCheck:
    """Check every round of a sheet with :func:`rules.validate_round`, against the running
    totals before it (as the Canadian rule needs them). A forbidden bid is flagged, anything
    else refuses the sheet; the totals go on from the rounds that can be scored."""
    check = SheetCheck()
    sizes = game_rules.hand_sizes
    totals: tuple[int, ...] = (0,) * game_rules.players
    scored: list[rules.RoundRecord] = []
    played_by = dealers(game_rules, first_dealer, changed_dealers(rounds))
    for paper, dealer in zip(rounds, played_by, strict=True):
        bids = bids_as_played(game_rules, dealer, paper.bids)
        record = rules.RoundRecord(
            number=paper.number,
            hand_size=sizes[paper.number - 1],
            dealer=dealer,
            bids=bids,
            tricks=paper.tricks,  # type: ignore[arg-type]
            cloud=cloud_change(bids, paper.cloud),
            bomb_played=paper.bomb_played,
        )
        problems = rules.validate_round(game_rules, record, totals)
        check.flags.extend(p for p in problems if p.code in FLAGGED)
        refused = [p for p in problems if p.code not in FLAGGED]
        check.refused.extend(refused)
        if refused:
            continue
        check.records.append(record)
        if len(scored) == paper.number - 1:
            scored.append(record)
            totals = rules.score_sheet(game_rules, scored).totals
    return check


def _trump_of(
    game_rules: rules.GameRules, number: int, noted: str
) -> tuple[str | None, str | None]:
    """(cause, trump) of a round: automatic where the rules fix it, else as noted."""
    choice = rules.trump_choice(game_rules, number, rules.hand_size(game_rules, number))
    if choice.automatic is not None:
        cause, suit = choice.automatic
        return cause.value, suit.value if suit else None
    if noted == "none":
        return rules.TrumpCause.JESTER.value, None
    if noted in {suit.value for suit in rules.SUIT_ORDER}:
        return rules.TrumpCause.SUIT.value, noted
    return None, None


def _save_round(game: Game, round_: Round, paper: PaperRound, played_at: datetime) -> None:
    """Fill in one round as the sheet has it, score it, and deal the next (or finish)."""
    game_rules = rules.GameRules.from_dict(game.rules)
    round_.trump_cause, round_.trump = _trump_of(game_rules, round_.number, paper.trump)
    round_.bomb_played = paper.bomb_played
    if paper.werewolf is not None:
        round_.werewolf_played = True
        round_.werewolf_trump = None if paper.werewolf == "none" else paper.werewolf
    bids = bids_as_played(game_rules, round_.dealer, paper.bids)
    cloud = cloud_change(bids, paper.cloud)
    round_.cloud_seat = cloud.seat if cloud else None
    for entry in round_.entries:
        entry.bid = bids[entry.seat]
        entry.tricks = paper.tricks[entry.seat]
        entry.cloud_bid = cloud.new_bid if cloud and cloud.seat == entry.seat else None
    round_.state = RoundState.SCORED
    if round_.number == 1:
        game.created_at = played_at
    if round_.number >= game_rules.round_count:
        game.status = GameStatus.FINISHED
        game.finished_at = played_at
    else:
        number = round_.number + 1
        gameplay.new_round(
            game,
            number,
            rules.hand_size(game_rules, number),
            rules.next_seat(round_.dealer, game_rules.players),
        )


def round_key(request_key: str | None, number: int, step: str = "") -> str | None:
    """The request key of one round's change: the sheet's key, the round and the step (a
    double tap finds each round already saved)."""
    if not request_key:
        return None
    return f"{request_key[:48]}-{number}" + (f"-{step}" if step else "")


def store(
    names: Sequence[str],
    first_dealer: int,
    game_rules: rules.GameRules,
    played_at: datetime,
    rounds: Sequence[PaperRound],
    request_key: str | None,
    request_digest: str | None = None,
) -> Game:
    """Store a checked sheet (see :func:`check_sheet`) as a finished game: started, then
    each round saved as its own recorded change. A repeated ``request_key`` (a double tap on
    "Store") finishes or finds the game the first request stored."""
    game = gameplay.create_game(
        list(names),
        first_dealer,
        game_rules,
        request_key,
        request_digest=request_digest,
        on_paper=True,
    )
    for paper in rounds:
        for _attempt in range(ATTEMPTS):
            round_ = next((r for r in game.rounds if r.number == paper.number), None)
            if round_ is None or round_.state == RoundState.SCORED:
                break
            try:
                if paper.dealer is not None and paper.dealer != round_.dealer:
                    # The dealer changed at the table: recorded as the table records it.
                    apply_change(
                        game,
                        version=game.version,
                        request_key=round_key(request_key, paper.number, "dealer"),
                        action=ChangeAction.CHANGE_DEALER,
                        rounds_touched=[paper.number],
                        change=lambda game=game, round_=round_, paper=paper: (
                            gameplay.change_dealer(game, round_, paper.dealer or 0)
                        ),
                    )
                apply_change(
                    game,
                    version=game.version,
                    request_key=round_key(request_key, paper.number),
                    action=ChangeAction.RECORD_ROUND,
                    rounds_touched=[paper.number],
                    change=lambda game=game, round_=round_, paper=paper: _save_round(
                        game, round_, paper, played_at
                    ),
                )
                break
            except (AlreadyApplied, StaleGame):
                # A twin request saved this round (or another) first: read the game again.
                game = reload_game(game.id)
    return game


def flags_of(game: Game) -> tuple[rules.Problem, ...]:
    """The rounds of a stored game whose bids break the bid rule, as the rules module finds
    them with the totals as they are now."""
    return rules.flagged_rounds(rules_of(game), round_records(game))
