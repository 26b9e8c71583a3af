"""Writing a game: every change goes through :func:`apply_change`.

Each write names the game version it was based on (optimistic concurrency: a stale write
is refused with :class:`StaleGame`) and carries a request key, so a double tap or a retried
request is recognised (:class:`AlreadyApplied`) instead of recorded twice. Every write
appends a :class:`~scorekeeper.models.Change` with the affected rounds before and after,
which is the game's history and what undo restores. The game rules themselves are checked
by :mod:`scorekeeper.rules`; this module only stores what passed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from . import rules
from .extensions import db
from .models import Change, Entry, Game, GameStatus, Player, Round, RoundState, Seat, name_key
from .models import utcnow as now
from .records import rules_of, sheet_of


class StaleGame(Exception):
    """The write was based on an older version of the game: another phone changed it."""


class AlreadyApplied(Exception):
    """This exact request was already recorded (a double tap or a retry)."""


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
    bids = bids_of(round_)
    for seat in rules.bid_order(game_rules, round_.dealer):
        if bids.get(seat) is None:
            return seat
    return None


# --- snapshots for the history and undo ----------------------------------------------------


def snapshot(round_: Round) -> dict[str, Any]:
    """Everything stored about a round, as JSON-ready data."""
    entries = sorted(round_.entries, key=lambda entry: entry.seat)
    return {
        "number": round_.number,
        "hand_size": round_.hand_size,
        "dealer": round_.dealer,
        "state": round_.state,
        "trump": round_.trump,
        "trump_cause": round_.trump_cause,
        "werewolf_played": round_.werewolf_played,
        "werewolf_trump": round_.werewolf_trump,
        "bomb_played": round_.bomb_played,
        "cloud_seat": round_.cloud_seat,
        "bids": [entry.bid for entry in entries],
        "cloud_bid": [entry.cloud_bid for entry in entries],
        "tricks": [entry.tricks for entry in entries],
    }


def _state(game: Game, numbers: Iterable[int]) -> dict[str, Any]:
    wanted = set(numbers)
    return {
        "status": game.status,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        # The rules change only when a custom plan's later rounds are edited.
        "rules": game.rules,
        "rounds": [snapshot(r) for r in game.rounds if r.number in wanted],
    }


def _restore(game: Game, state: Mapping[str, Any], numbers: Iterable[int]) -> None:
    """Put the given rounds (and the status) back as ``state`` recorded them."""
    kept = {data["number"]: data for data in state["rounds"]}
    for round_ in list(game.rounds):
        if round_.number in numbers and round_.number not in kept:
            game.rounds.remove(round_)
    db.session.flush()
    by_number = {round_.number: round_ for round_ in game.rounds}
    for number, data in kept.items():
        round_ = by_number.get(number)
        if round_ is None:
            round_ = new_round(game, number, data["hand_size"], data["dealer"])
        for key in (
            "hand_size",
            "dealer",
            "state",
            "trump",
            "trump_cause",
            "werewolf_played",
            "werewolf_trump",
            "bomb_played",
            "cloud_seat",
        ):
            setattr(round_, key, data.get(key))
        for entry in round_.entries:
            entry.bid = data["bids"][entry.seat]
            entry.cloud_bid = data["cloud_bid"][entry.seat]
            entry.tricks = data["tricks"][entry.seat]
    game.status = state["status"]
    if "rules" in state:
        game.rules = state["rules"]
    finished = state.get("finished_at")
    game.finished_at = datetime.fromisoformat(finished) if finished else None


# --- the one write path --------------------------------------------------------------------


def already_applied(request_key: str | None) -> bool:
    """Whether a request with this key was recorded already (a double tap or a retry)."""
    if not request_key:
        return False
    found = sa.select(Change.id).where(Change.request_key == request_key)
    return db.session.scalar(found) is not None


def apply_change(
    game: Game,
    *,
    version: int | None,
    request_key: str | None,
    action: str,
    rounds_touched: Sequence[int],
    change: Callable[[], dict[str, Any] | None],
) -> Change:
    """Run ``change`` on ``game`` as one recorded, versioned, idempotent write.

    ``rounds_touched`` are the round numbers whose before/after go into the history (a round
    created by the change is included too). Raises :class:`AlreadyApplied`,
    :class:`StaleGame` or whatever ``change`` raises (then nothing is stored).
    """
    if already_applied(request_key):
        raise AlreadyApplied
    if version != game.version:
        raise StaleGame
    before = _state(game, rounds_touched)
    try:
        created = {id(r) for r in game.rounds}
        extra = change()
        touched = set(rounds_touched) | {r.number for r in game.rounds if id(r) not in created}
        db.session.flush()
        after = _state(game, touched) | (extra or {})
        before["rounds"] = [r for r in before["rounds"] if r["number"] in touched]
        # The WHERE on the version makes two simultaneous writers race safely: one wins.
        updated = db.session.execute(
            sa.update(Game)
            .where(Game.id == game.id, Game.version == version)
            .values(version=Game.version + 1, updated_at=now())
            .execution_options(synchronize_session=False)
        )
        if updated.rowcount != 1:
            # Lost the race: to a twin of this very request (a double tap), or to another phone.
            db.session.rollback()
            if already_applied(request_key):
                raise AlreadyApplied
            raise StaleGame
        record = Change(
            game_id=game.id,
            version=version + 1,
            action=action,
            round_number=min(touched) if touched else None,
            before=before,
            after=after,
            request_key=request_key or None,
        )
        db.session.add(record)
        db.session.commit()
    except sa.exc.IntegrityError as error:
        db.session.rollback()
        if already_applied(request_key):
            raise AlreadyApplied from error
        raise StaleGame from error
    except BaseException:
        db.session.rollback()
        raise
    db.session.refresh(game)
    return record


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
) -> Game:
    """Start a game: seats in the given (clockwise) order, the first round ready to play.

    Names matching a roster player ignoring case and spaces are that player; others join
    the roster. A repeated ``request_key`` (a double tap on "Start") returns the game the
    first request created instead of a second one.
    """
    if (earlier := game_started_by(request_key)) is not None:
        return earlier
    if already_applied(request_key):
        request_key = None  # a key of some other change: not a repeat of this start
    game = Game(rules=game_rules.to_dict(), first_dealer=first_dealer, version=1)
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
            action="create_game",
            round_number=1,
            before=None,
            after={
                "players": [player.name for player in players],
                "first_dealer": first_dealer,
                "rules": game.rules,
            },
            request_key=request_key or None,
        )
    )
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        if (earlier := game_started_by(request_key)) is not None:
            return earlier
        raise
    return game


def game_started_by(request_key: str | None) -> Game | None:
    """The game a "Start game" request with this key created, if any."""
    if not request_key:
        return None
    return db.session.scalar(
        sa.select(Game)
        .join(Change, Change.game_id == Game.id)
        .where(Change.request_key == request_key, Change.action == "create_game")
    )


# --- the steps of a round ------------------------------------------------------------------


def _check(problems: Iterable[rules.Problem]) -> None:
    problems = tuple(problems)
    if problems:
        raise RulesRejected(problems)


def _require_open(game: Game, round_: Round) -> None:
    if game.status != GameStatus.IN_PROGRESS or round_.state == RoundState.SCORED:
        raise RulesRejected([rules.Problem("round_closed", "round", round_number=round_.number)])


def _require_trump(round_: Round) -> None:
    if not trump_is_set(round_):
        raise RulesRejected([rules.Problem("trump_first", "trump", round_number=round_.number)])


def dealer_can_change(game_rules: rules.GameRules, round_: Round) -> bool:
    """Whether bidding has not started yet, so the round's dealer may still change."""
    if round_.state == RoundState.SCORED:
        return False
    return game_rules.jester_bid or all(bid is None for bid in bids_of(round_).values())


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
    round_.werewolf_played = True
    round_.werewolf_trump = trump


def change_dealer(game: Game, round_: Round, dealer: int) -> None:
    """Before bidding starts the dealer may change; later rounds rotate on from them."""
    _require_open(game, round_)
    game_rules = rules_of(game)
    if not 0 <= dealer < game_rules.players:
        raise RulesRejected(
            [
                rules.Problem(
                    "dealer_out_of_range",
                    "dealer",
                    values={"value": dealer, "max": game_rules.players - 1},
                )
            ]
        )
    if not dealer_can_change(game_rules, round_):
        raise RulesRejected([rules.Problem("bidding_started", "dealer")])
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
        raise RulesRejected([rules.Problem("not_bidders_turn", "seat", seat)])
    bids = bids_of(round_) | {seat: bid}
    totals = sheet_of(game).totals
    problems = rules.validate_bids(
        game_rules, round_.number, round_.hand_size, round_.dealer, bids, totals
    )
    _check(p for p in problems if p.code != "bid_missing")
    _entry(round_, seat).bid = bid
    if next_bidder(game_rules, round_) is None:
        round_.state = RoundState.PLAYING


def record_bids(game: Game, round_: Round, bids: Mapping[int, int | None]) -> None:
    """All bids at once (hidden or secret reveal)."""
    _require_open(game, round_)
    _require_trump(round_)
    game_rules = rules_of(game)
    totals = sheet_of(game).totals
    _check(
        rules.validate_bids(
            game_rules, round_.number, round_.hand_size, round_.dealer, bids, totals
        )
    )
    for entry in round_.entries:
        entry.bid = bids.get(entry.seat)
    round_.state = RoundState.PLAYING


def clear_last_bid(game: Game, round_: Round) -> None:
    """Take back the most recent bid of an open-bid round (a mis-tap)."""
    _require_open(game, round_)
    game_rules = rules_of(game)
    bids = bids_of(round_)
    given = [
        seat for seat in rules.bid_order(game_rules, round_.dealer) if bids.get(seat) is not None
    ]
    if not given or game_rules.jester_bid:
        raise RulesRejected([rules.Problem("no_bid_to_take_back", "bid")])
    _entry(round_, given[-1]).bid = None
    round_.state = RoundState.BIDDING


def _entry(round_: Round, seat: int) -> Entry:
    return next(entry for entry in round_.entries if entry.seat == seat)


def _record_for(
    round_: Round, tricks: Mapping[int, int | None], cloud: rules.CloudChange | None, bomb: bool
) -> rules.RoundRecord:
    bids = bids_of(round_)
    players = len(round_.entries)
    return rules.RoundRecord(
        number=round_.number,
        hand_size=round_.hand_size,
        dealer=round_.dealer,
        bids=tuple(bids.get(seat) for seat in range(players)),
        tricks=tuple(tricks.get(seat) for seat in range(players)),  # type: ignore[misc]
        cloud=cloud,
        bomb_played=bomb,
    )


def _store_outcome(
    round_: Round, tricks: Mapping[int, int | None], cloud: rules.CloudChange | None, bomb: bool
) -> None:
    for entry in round_.entries:
        entry.tricks = tricks.get(entry.seat)
        entry.cloud_bid = cloud.new_bid if cloud and cloud.seat == entry.seat else None
    round_.bomb_played = bomb
    round_.cloud_seat = cloud.seat if cloud else None


# Problems whose numbers would reveal a secret bid before the round is scored.
_BID_REVEALING = frozenset({"cloud_bid_out_of_range", "cloud_change_not_one"})


def _without_bids(problem: rules.Problem) -> rules.Problem:
    if problem.code in _BID_REVEALING:
        return rules.Problem("cloud_change_impossible", "cloud", problem.seat)
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
        raise RulesRejected([rules.Problem("bids_first", "tricks", round_number=round_.number)])
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
            [rules.Problem("round_not_scored", "round", round_number=round_.number)]
        )
    if game.status == GameStatus.ABANDONED:
        raise RulesRejected([rules.Problem("game_not_in_progress", "game")])
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


def undoable(game: Game) -> Change | None:
    """The most recent change that undo would revert (undo steps back one change at a time)."""
    undone = {c.after["undoes"] for c in game.changes if c.action == "undo" and c.after}
    for change in reversed(game.changes):
        if change.action not in ("create_game", "undo") and change.version not in undone:
            return change
    return None


def undo(game: Game, change: Change) -> dict[str, Any]:
    """Put the rounds and status back as they were before ``change``."""
    numbers = {r["number"] for r in change.before["rounds"]} | {
        r["number"] for r in change.after["rounds"]
    }
    _restore(game, change.before, numbers)
    return {"undoes": change.version, "undone_action": change.action}


def undone_outcome(game: Game, round_: Round) -> dict[str, str]:
    """The tricks (and Bomb, Cloud) of ``round_`` as saved before the latest change undid it.

    After "undo" of a saved round the tricks screen offers them again, as form values, so
    fixing one number does not mean entering the whole round again.
    """
    if not game.changes or game.changes[-1].action != "undo":
        return {}
    undone_version = game.changes[-1].after.get("undoes")
    undone = next((c for c in game.changes if c.version == undone_version), None)
    if undone is None or undone.action != "record_round":
        return {}
    saved = next((r for r in undone.after["rounds"] if r["number"] == round_.number), None)
    if saved is None:
        return {}
    values = {f"tricks_{seat}": str(v) for seat, v in enumerate(saved["tricks"]) if v is not None}
    if saved.get("bomb_played"):
        values["bomb"] = "y"
    for seat, (bid, cloud_bid) in enumerate(zip(saved["bids"], saved["cloud_bid"], strict=True)):
        if cloud_bid is not None and bid is not None:
            values |= {"cloud_seat": str(seat), "cloud_change": str(cloud_bid - bid)}
    return values


def edit_later_rounds(game: Game, later: Sequence[int]) -> dict[str, Any]:
    """A custom plan's rounds after the one being played get new hand sizes (or are dropped).

    The rounds already dealt keep theirs; the rules module checks the whole new plan.
    """
    game_rules = rules_of(game)
    current = open_round(game)
    if game_rules.plan.kind is not rules.PlanKind.CUSTOM or current is None:
        raise RulesRejected([rules.Problem("plan_not_editable", "plan")])
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
        raise RulesRejected([rules.Problem("game_not_in_progress", "game")])
    game.status = GameStatus.ABANDONED


def play_again(game: Game, request_key: str | None = None) -> Game:
    """A new game with the same players, seats and rules; the next player deals first."""
    game_rules = rules_of(game)
    names = [seat.player.name for seat in game.seats]
    first_dealer = rules.next_seat(game.first_dealer, game_rules.players)
    return create_game(names, first_dealer, game_rules, request_key)
