"""Playing a game: start it, then each step of a round, corrections and the end.

Each command checks the entry with :mod:`scorekeeper.rules` (raising :class:`RulesRejected`
with the problems) and changes the game in memory; the caller runs it inside
:func:`scorekeeper.changes.apply_change`, which versions, records and commits it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

import sqlalchemy as sa

from . import rules
from .changes import already_applied, begin_write
from .extensions import db
from .models import (
    ON_PAPER,
    Change,
    ChangeAction,
    Entry,
    Game,
    GameStatus,
    Player,
    Round,
    RoundState,
    Seat,
    name_key,
)
from .models import utcnow as now
from .records import record_from, rules_of, sheet_of

P = rules.ProblemCode


class RulesRejected(Exception):
    """The entry breaks a game rule; ``problems`` say which and why."""

    def __init__(self, problems: Iterable[rules.Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__(", ".join(problem.code for problem in self.problems))


# --- reading -------------------------------------------------------------------------------


def open_round(game: Game) -> Round | None:
    """The round being played (not yet scored), if any."""
    for round_ in game.rounds:
        if round_.state != RoundState.SCORED:
            return round_
    return None


def bids_of(round_: Round) -> dict[int, int | None]:
    return {entry.seat: entry.bid for entry in round_.entries}


def tricks_of(round_: Round) -> dict[int, int | None]:
    return {entry.seat: entry.tricks for entry in round_.entries}


def trump_is_set(round_: Round) -> bool:
    return round_.trump_cause is not None


def next_bidder(game_rules: rules.GameRules, round_: Round) -> int | None:
    """The seat whose bid is due in an open-bid round, or None when all have bid."""
    return rules.next_bidder(game_rules, round_.dealer, bids_of(round_))


def dealer_can_change(game_rules: rules.GameRules, round_: Round) -> bool:
    """Whether the round's dealer may still change (see :func:`rules.dealer_can_change`)."""
    scored = round_.state == RoundState.SCORED
    return rules.dealer_can_change(game_rules, scored, bids_of(round_))


class Step(StrEnum):
    """Where the table is: a step of the round being played, or the game's end."""

    TRUMP = "trump"
    BIDS = "bids"
    TRICKS = "tricks"
    FINISHED = "finished"
    CLOSED = "closed"


PLAYING_STEPS = frozenset({Step.TRUMP, Step.BIDS, Step.TRICKS})


def step_of(game: Game, round_: Round | None) -> Step:
    """Which part of the round the table is at: trump, bids, tricks, or the end."""
    if round_ is None:
        return Step.FINISHED if game.status == GameStatus.FINISHED else Step.CLOSED
    if game.status != GameStatus.IN_PROGRESS:
        return Step.CLOSED
    if not trump_is_set(round_):
        return Step.TRUMP
    if round_.state == RoundState.BIDDING:
        return Step.BIDS
    return Step.TRICKS


# --- building rounds -----------------------------------------------------------------------


def new_round(game: Game, number: int, hand_size: int, dealer: int) -> Round:
    """Add round ``number`` with an empty entry per seat, and the automatic trump if any."""
    game_rules = rules_of(game)
    round_ = Round(number=number, hand_size=hand_size, dealer=dealer, state=RoundState.BIDDING)
    round_.entries = [Entry(seat=seat) for seat in range(len(game.seats))]
    choice = rules.trump_choice(game_rules, number, hand_size)
    if choice.automatic is not None:
        cause, trump = choice.automatic
        round_.trump_cause = cause.value
        round_.trump = trump.value if trump else None
    if game_rules.jester_bid:
        # Jester bid: everyone who bids bids zero, so there is no bidding step.
        _jester_bids(game_rules, round_)
        round_.state = RoundState.PLAYING
    game.rounds.append(round_)
    return round_


def _jester_bids(game_rules: rules.GameRules, round_: Round) -> None:
    bidders = set(rules.bid_order(game_rules, round_.dealer))
    for entry in round_.entries:
        entry.bid = 0 if entry.seat in bidders else None


def _resolve_players(names: Sequence[str]) -> list[Player]:
    keys = [name_key(name) for name in names]
    existing = {
        player.name_key: player
        for player in db.session.scalars(sa.select(Player).where(Player.name_key.in_(keys)))
    }
    return [existing.get(key) or Player(name) for key, name in zip(keys, names, strict=True)]


def create_game(
    names: Sequence[str],
    first_dealer: int,
    game_rules: rules.GameRules,
    request_key: str | None = None,
    *,
    request_digest: str | None = None,
    previous: Game | None = None,
    on_paper: bool = False,
) -> Game:
    """Start a game: seats in the given (clockwise) order, the first round ready to play.

    Names matching a roster player ignoring case and spaces are that player; others join
    the roster. A repeated ``request_key`` (a double tap on "Start") returns the game the
    first request created instead of a second one (the caller compares ``request_digest``
    to tell a double tap from the same page sent again with other choices). ``previous`` is
    the finished game this one plays again; ``on_paper``: a game played on paper, entered
    afterwards (its start says so, and so does its history in a backup).
    """
    begin_write()
    if (earlier := game_started_by(request_key)) is not None:
        return earlier
    if already_applied(request_key):
        request_key = None  # a key of some other change: not a repeat of this start
    if previous is not None and (again := played_again(previous)) is not None:
        return again
    for attempt in (1, 2):
        try:
            game = add_game(
                names,
                first_dealer,
                game_rules,
                request_key,
                request_digest=request_digest,
                previous=previous,
                on_paper=on_paper,
            )
            db.session.commit()
            return game
        except sa.exc.IntegrityError:
            db.session.rollback()
            if (earlier := game_started_by(request_key)) is not None:
                return earlier
            if previous is not None and (again := played_again(previous)) is not None:
                return again
            if attempt == 2:
                raise
            # Another game added one of these new players first: they are on the roster now.
            begin_write()
    raise AssertionError("unreachable")


def add_game(
    names: Sequence[str],
    first_dealer: int,
    game_rules: rules.GameRules,
    request_key: str | None = None,
    *,
    request_digest: str | None = None,
    previous: Game | None = None,
    on_paper: bool = False,
) -> Game:
    """A new game added to the caller's transaction (flushed, not committed): for a write
    that makes several games at once and stores all of them or none (an event's session).
    The caller began the write (:func:`begin_write`) and commits or rolls back."""
    game = Game(rules=game_rules.to_dict(), first_dealer=first_dealer, version=1)
    if previous is not None:
        game.previous_game_id = previous.id
    players = _resolve_players(names)
    for position, player in enumerate(players):
        game.seats.append(Seat(player=player, position=position))
    db.session.add(game)
    db.session.flush()
    new_round(game, 1, rules.hand_size(game_rules, 1), first_dealer)
    db.session.add(
        Change(
            game_id=game.id,
            version=1,
            action=ChangeAction.CREATE_GAME,
            round_number=1,
            before=None,
            after={
                "players": [player.name for player in players],
                "first_dealer": first_dealer,
                "rules": game.rules,
                **({ON_PAPER: True} if on_paper else {}),
            },
            request_key=request_key or None,
            request_digest=request_digest,
        )
    )
    db.session.flush()
    return game


def game_started_by(request_key: str | None) -> Game | None:
    """The game a "Start game" request with this key created, if any."""
    if not request_key:
        return None
    return db.session.scalar(
        sa.select(Game)
        .join(Change, Change.game_id == Game.id)
        .where(Change.request_key == request_key, Change.action == ChangeAction.CREATE_GAME)
    )


# --- the steps of a round ------------------------------------------------------------------


def _check(problems: Iterable[rules.Problem]) -> None:
    problems = tuple(problems)
    if problems:
        raise RulesRejected(problems)


def _require_open(game: Game, round_: Round) -> None:
    if game.status != GameStatus.IN_PROGRESS or round_.state == RoundState.SCORED:
        raise RulesRejected([rules.Problem(P.ROUND_CLOSED, "round", round_number=round_.number)])


def _require_trump(round_: Round) -> None:
    if not trump_is_set(round_):
        raise RulesRejected([rules.Problem(P.TRUMP_FIRST, "trump", round_number=round_.number)])


def set_trump(game: Game, round_: Round, cause: str | None, trump: str | None) -> None:
    """Record what was turned up and the trump it gives (checked by the rules)."""
    _require_open(game, round_)
    game_rules = rules_of(game)
    _check(rules.validate_trump(game_rules, round_.number, round_.hand_size, cause, trump))
    round_.trump_cause = cause
    resolved = rules.resolve_trump(game_rules, round_.number, round_.hand_size, cause, trump)
    round_.trump = resolved.value if resolved else None


def set_werewolf(game: Game, round_: Round, trump: str | None) -> None:
    """The Werewolf's holder replaced the trump (a suit, or ``None`` for no trump)."""
    _require_open(game, round_)
    game_rules = rules_of(game)
    _check(
        rules.validate_trump(
            game_rules,
            round_.number,
            round_.hand_size,
            round_.trump_cause,
            round_.trump,
            werewolf_trump=trump,
        )
    )
    replaced = rules.trump_in_force(None, True, trump)
    round_.werewolf_played = True
    round_.werewolf_trump = replaced.value if replaced else None


def change_dealer(game: Game, round_: Round, dealer: int) -> None:
    """Before bidding starts the dealer may change; later rounds rotate on from them."""
    _require_open(game, round_)
    game_rules = rules_of(game)
    if not 0 <= dealer < game_rules.players:
        raise RulesRejected(
            [
                rules.Problem(
                    P.DEALER_OUT_OF_RANGE,
                    "dealer",
                    values={"value": dealer, "max": game_rules.players - 1},
                )
            ]
        )
    if not dealer_can_change(game_rules, round_):
        raise RulesRejected([rules.Problem(P.BIDDING_STARTED, "dealer")])
    round_.dealer = dealer
    if game_rules.jester_bid:
        # With Saboteur the new dealer is the one who does not bid.
        _jester_bids(game_rules, round_)


def record_bid(game: Game, round_: Round, seat: int, bid: int) -> None:
    """One player's bid in an open-bid round, in bid order."""
    _require_open(game, round_)
    _require_trump(round_)
    game_rules = rules_of(game)
    if seat != next_bidder(game_rules, round_):
        raise RulesRejected([rules.Problem(P.NOT_BIDDERS_TURN, "seat", seat)])
    bids = bids_of(round_) | {seat: bid}
    totals = sheet_of(game).totals
    problems = rules.validate_bids(
        game_rules, round_.number, round_.hand_size, round_.dealer, bids, totals
    )
    _check(p for p in problems if p.code != P.BID_MISSING)
    _entry(round_, seat).bid = bid
    if next_bidder(game_rules, round_) is None:
        round_.state = RoundState.PLAYING


def bid_can_change(game: Game, round_: Round, seat: int) -> bool:
    """Whether ``seat``'s bid in the round being played may be changed now."""
    return round_.state != RoundState.SCORED and rules.bid_can_change(
        rules_of(game), bids_of(round_), seat, round_.state == RoundState.BIDDING
    )


def change_bid(game: Game, round_: Round, seat: int, bid: int) -> None:
    """Change a bid already made in the round being played (before its tricks are saved).

    Checked again with every other bid: refused when the new bid breaks a rule; a later bid
    it makes forbidden stays, flagged on the table screen (:func:`flagged_bids`)."""
    _require_open(game, round_)
    _require_trump(round_)
    if not bid_can_change(game, round_, seat):
        raise RulesRejected([rules.Problem(P.NOT_BIDDERS_TURN, "seat", seat)])
    game_rules = rules_of(game)
    bids = bids_of(round_) | {seat: bid}
    refused, _flagged = rules.validate_bid_change(
        game_rules,
        round_.number,
        round_.hand_size,
        round_.dealer,
        bids,
        seat,
        sheet_of(game).totals,
    )
    _check(refused)
    _entry(round_, seat).bid = bid


def flagged_bids(
    game: Game, round_: Round, sheet: rules.ScoreSheet | None = None
) -> tuple[rules.Problem, ...]:
    """The bids of the round being played that break the bid rule now (a bid changed before
    them made them forbidden): to be changed before the round is saved. ``sheet``: the
    game's score sheet, when the caller has it."""
    bids = bids_of(round_)
    if round_.state == RoundState.SCORED or rules.bids_are_secret(
        rules_of(game), False, round_.state == RoundState.BIDDING
    ):
        return ()
    totals = (sheet if sheet is not None else sheet_of(game)).totals
    problems = rules.validate_bids(
        rules_of(game), round_.number, round_.hand_size, round_.dealer, bids, totals
    )
    return tuple(p for p in problems if p.code == P.FORBIDDEN_BID)


def record_bids(game: Game, round_: Round, bids: Mapping[int, int | None]) -> None:
    """All bids at once (hidden or secret reveal): those not made yet on the players' own
    phones. A sealed bid stands; the table, which cannot see it, may not send one for that
    seat (whether it matched would tell the bid)."""
    _require_open(game, round_)
    _require_trump(round_)
    game_rules = rules_of(game)
    totals = sheet_of(game).totals
    sealed = {seat: bid for seat, bid in bids_of(round_).items() if bid is not None}
    if game_rules.bid_reveal is not rules.BidReveal.OPEN and sealed:
        _check(
            rules.Problem(P.NOT_BIDDERS_TURN, "bid", seat)
            for seat in sealed
            if bids.get(seat) is not None
        )
        bids = dict(bids) | sealed
    _check(
        rules.validate_bids(
            game_rules, round_.number, round_.hand_size, round_.dealer, bids, totals
        )
    )
    for entry in round_.entries:
        entry.bid = bids.get(entry.seat)
    round_.state = RoundState.PLAYING


def seal_bid(game: Game, round_: Round, seat: int, bid: int) -> None:
    """One player's bid from their own phone in a hidden or secret round: any bidder, in any
    order, once. It stays sealed (:func:`rules.bids_are_secret`) until the last bidder's is in,
    which reveals them all at once."""
    _require_open(game, round_)
    _require_trump(round_)
    game_rules = rules_of(game)
    bids = bids_of(round_)
    if (
        game_rules.bid_reveal is rules.BidReveal.OPEN
        or round_.state != RoundState.BIDDING
        or seat not in rules.bid_order(game_rules, round_.dealer)
        or bids.get(seat) is not None
    ):
        raise RulesRejected([rules.Problem(P.NOT_BIDDERS_TURN, "seat", seat)])
    bids |= {seat: bid}
    totals = sheet_of(game).totals
    problems = rules.validate_bids(
        game_rules, round_.number, round_.hand_size, round_.dealer, bids, totals
    )
    _check(p for p in problems if p.code != P.BID_MISSING)
    _entry(round_, seat).bid = bid
    if all(bids.get(s) is not None for s in rules.bid_order(game_rules, round_.dealer)):
        round_.state = RoundState.PLAYING


def only_sealed_bids_since(game: Game, version: int | None) -> bool:
    """Whether every change after ``version`` is another player's sealed bid: a sealed bid
    does not depend on the others (nobody sees them), so it need not be entered again."""
    if version is None or not 1 <= version < game.version:
        return False
    later = [change for change in game.changes if change.version > version]
    return len(later) == game.version - version and all(
        change.action == ChangeAction.SEAL_BID for change in later
    )


def clear_last_bid(game: Game, round_: Round) -> None:
    """Take back the most recent bid of an open-bid round (a mis-tap)."""
    _require_open(game, round_)
    seat = rules.last_bidder_so_far(rules_of(game), round_.dealer, bids_of(round_))
    if seat is None:
        raise RulesRejected([rules.Problem(P.NO_BID_TO_TAKE_BACK, "bid")])
    _entry(round_, seat).bid = None
    round_.state = RoundState.BIDDING


def _entry(round_: Round, seat: int) -> Entry:
    return next(entry for entry in round_.entries if entry.seat == seat)


def _record_for(
    round_: Round, tricks: Mapping[int, int | None], cloud: rules.CloudChange | None, bomb: bool
) -> rules.RoundRecord:
    """The round as it would be stored with these tricks, for the rules to check."""
    entries = [
        (entry.seat, entry.bid, _cloud_bid(entry.seat, cloud), tricks.get(entry.seat))
        for entry in round_.entries
    ]
    return record_from(
        round_.number, round_.hand_size, round_.dealer, bomb, entries, len(round_.entries)
    )


def _cloud_bid(seat: int, cloud: rules.CloudChange | None) -> int | None:
    return cloud.new_bid if cloud and cloud.seat == seat else None


def _store_outcome(
    round_: Round, tricks: Mapping[int, int | None], cloud: rules.CloudChange | None, bomb: bool
) -> None:
    for entry in round_.entries:
        entry.tricks = tricks.get(entry.seat)
        entry.cloud_bid = _cloud_bid(entry.seat, cloud)
    round_.bomb_played = bomb
    round_.cloud_seat = cloud.seat if cloud else None


# Problems whose numbers would reveal a secret bid before the round is scored.
_BID_REVEALING = frozenset({P.CLOUD_BID_OUT_OF_RANGE, P.CLOUD_CHANGE_NOT_ONE})


def _without_bids(problem: rules.Problem) -> rules.Problem:
    if problem.code in _BID_REVEALING:
        return rules.Problem(P.CLOUD_CHANGE_IMPOSSIBLE, "cloud", problem.seat)
    return problem


def record_tricks(
    game: Game,
    round_: Round,
    tricks: Mapping[int, int | None],
    *,
    cloud: rules.CloudChange | None = None,
    bomb: bool = False,
) -> None:
    """Score the round; then deal the next one (dealer passes on) or finish the game."""
    _require_open(game, round_)
    _require_trump(round_)
    if round_.state != RoundState.PLAYING:
        raise RulesRejected([rules.Problem(P.BIDS_FIRST, "tricks", round_number=round_.number)])
    game_rules = rules_of(game)
    totals = sheet_of(game).totals
    problems = rules.validate_round(game_rules, _record_for(round_, tricks, cloud, bomb), totals)
    if game_rules.bid_reveal == rules.BidReveal.SECRET:
        problems = tuple(_without_bids(problem) for problem in problems)
    _check(problems)
    _store_outcome(round_, tricks, cloud, bomb)
    round_.state = RoundState.SCORED
    if round_.number >= game_rules.round_count:
        game.status = GameStatus.FINISHED
        game.finished_at = now()
    else:
        number = round_.number + 1
        new_round(
            game,
            number,
            rules.hand_size(game_rules, number),
            rules.next_seat(round_.dealer, game_rules.players),
        )


class KeptRoundDiffers(Exception):
    """The round being played already holds other entries than a round kept on the table
    phone: another phone entered them meanwhile. Nothing is stored; the table chooses."""


def kept_round_differs(
    round_: Round,
    cause: str | None,
    trump: str | None,
    bids: Mapping[int, int | None],
    dealt: tuple[int | None, int | None] = (None, None),
) -> bool:
    """Whether what the round being played holds (a trump, some bids; its dealer and cards,
    ``dealt``, where the phone says) differs from a round kept on the table phone: what both
    have must be the same."""
    dealer, cards = dealt
    if (dealer is not None and dealer != round_.dealer) or (
        cards is not None and cards != round_.hand_size
    ):
        return True
    if trump_is_set(round_) and (round_.trump_cause, round_.trump) != (cause, trump):
        return True
    if round_.werewolf_played:
        return True
    return any(bid is not None and bids.get(seat) != bid for seat, bid in bids_of(round_).items())


def _kept_trump(
    game_rules: rules.GameRules, round_: Round, cause: str | None, trump: str | None
) -> tuple[str | None, str | None]:
    """The trump of a kept round as the round stores it (the automatic one where nothing is
    asked); refused by the rules when it is not allowed."""
    automatic = rules.trump_choice(game_rules, round_.number, round_.hand_size).automatic
    if automatic is not None:
        return automatic[0].value, automatic[1].value if automatic[1] else None
    _check(rules.validate_trump(game_rules, round_.number, round_.hand_size, cause, trump))
    resolved = rules.resolve_trump(game_rules, round_.number, round_.hand_size, cause, trump)
    return cause, resolved.value if resolved else None


def kept_round_matches(
    game: Game,
    round_: Round,
    cause: str | None,
    trump: str | None,
    bids: Mapping[int, int | None],
    tricks: Mapping[int, int | None],
) -> bool:
    """Whether a scored round is the one kept on the table phone (sent again after another
    phone saved it just the same, or after its answer was lost): then nothing is to do."""
    try:
        trump_kept = _kept_trump(rules_of(game), round_, cause, trump)
    except RulesRejected:
        return False
    seats = range(len(round_.entries))
    return (
        (round_.trump_cause, round_.trump) == trump_kept
        and not round_.werewolf_played
        and round_.cloud_seat is None
        and not round_.bomb_played
        and all(bids_of(round_).get(seat) == bids.get(seat) for seat in seats)
        and all(tricks_of(round_).get(seat) == tricks.get(seat) for seat in seats)
    )


def record_kept_round(
    game: Game,
    round_: Round,
    *,
    cause: str | None,
    trump: str | None,
    bids: Mapping[int, int | None],
    tricks: Mapping[int, int | None],
    cloud: rules.CloudChange | None = None,
    bomb: bool = False,
    dealt: tuple[int | None, int | None] = (None, None),
    replace: bool = False,
) -> None:
    """A round kept on the table phone while the server could not be reached, stored whole:
    trump, bids and tricks, each checked by the rules as if entered step by step (the bid
    rule with the totals as they are here, now). Entries the round already holds must agree
    (:class:`KeptRoundDiffers`), unless the table chose to ``replace`` them with the kept
    round's ("keep ours")."""
    _require_open(game, round_)
    game_rules = rules_of(game)
    cause, trump = _kept_trump(game_rules, round_, cause, trump)
    if not replace and kept_round_differs(round_, cause, trump, bids, dealt):
        raise KeptRoundDiffers
    round_.trump_cause, round_.trump = cause, trump
    round_.werewolf_played, round_.werewolf_trump = False, None
    _check(
        rules.validate_bids(
            game_rules, round_.number, round_.hand_size, round_.dealer, bids, sheet_of(game).totals
        )
    )
    for entry in round_.entries:
        entry.bid = bids.get(entry.seat)
    round_.state = RoundState.PLAYING
    record_tricks(game, round_, tricks, cloud=cloud, bomb=bomb)


def edit_round(
    game: Game,
    round_: Round,
    *,
    cause: str | None,
    trump: str | None,
    bids: Mapping[int, int | None],
    tricks: Mapping[int, int | None],
    cloud: rules.CloudChange | None,
    bomb: bool,
) -> None:
    """Correct a scored round. Its own rules are checked against the totals before it;
    later rounds are not rewritten (the score sheet flags any whose bid rule no longer holds).
    """
    game_rules = rules_of(game)
    if round_.state != RoundState.SCORED:
        raise RulesRejected(
            [rules.Problem(P.ROUND_NOT_SCORED, "round", round_number=round_.number)]
        )
    if game.status == GameStatus.ABANDONED:
        raise RulesRejected([rules.Problem(P.GAME_NOT_IN_PROGRESS, "game")])
    totals = sheet_of(game).totals_before(round_.number)
    problems = list(
        rules.validate_trump(game_rules, round_.number, round_.hand_size, cause, trump)
    )
    for entry in round_.entries:
        entry.bid = bids.get(entry.seat)
    problems += rules.validate_round(game_rules, _record_for(round_, tricks, cloud, bomb), totals)
    _check(problems)
    resolved = rules.resolve_trump(game_rules, round_.number, round_.hand_size, cause, trump)
    round_.trump_cause = cause
    round_.trump = resolved.value if resolved else None
    _store_outcome(round_, tricks, cloud, bomb)


def edit_later_rounds(game: Game, later: Sequence[int]) -> dict[str, Any]:
    """A custom plan's rounds after the one being played get new hand sizes (or are dropped).

    The rounds already dealt keep theirs; the rules module checks the whole new plan.
    """
    game_rules = rules_of(game)
    current = open_round(game)
    if not game_rules.plan_editable or current is None:
        raise RulesRejected([rules.Problem(P.PLAN_NOT_EDITABLE, "plan")])
    dealt = tuple(round_.hand_size for round_ in game.rounds)
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=dealt + tuple(later))
    try:
        game.rules = game_rules.with_plan(plan).to_dict()
    except rules.RulesError as error:
        raise RulesRejected(error.problems) from error
    return {"plan": list(plan.custom)}


def abandon(game: Game) -> None:
    """Stop a game early; its rounds are kept and it shows as abandoned."""
    if game.status != GameStatus.IN_PROGRESS:
        raise RulesRejected([rules.Problem(P.GAME_NOT_IN_PROGRESS, "game")])
    game.status = GameStatus.ABANDONED


def played_again(game: Game) -> Game | None:
    """The game started by "Play again" after ``game``, if any."""
    return db.session.scalar(sa.select(Game).where(Game.previous_game_id == game.id))


def play_again(game: Game, request_key: str | None = None) -> Game:
    """A new game with the same players, seats and rules; the next player deals first.

    Once per game: a second "Play again" (another tab, another phone) opens that game.
    """
    if (again := played_again(game)) is not None:
        return again
    game_rules = rules_of(game).for_a_new_game()
    names = [seat.player.name for seat in game.seats]
    first_dealer = rules.next_seat(game.first_dealer, game_rules.players)
    return create_game(names, first_dealer, game_rules, request_key, previous=game)
