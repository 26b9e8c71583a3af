"""Build games for tests: stored directly with the models (:func:`make_game`), or started
through the app's own write path as the setup page does (:func:`new_game`)."""

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy import event

from scorekeeper import gameplay, rules
from scorekeeper.extensions import db
from scorekeeper.models import (
    Change,
    Entry,
    Event,
    Game,
    GameStatus,
    Player,
    Round,
    RoundState,
    Seat,
    name_key,
)

BASE_TIME = datetime(2024, 5, 1, 19, 0, tzinfo=UTC)

# One round as (bids by seat, tricks by seat); bids may hold None for a Saboteur dealer.
RoundFacts = tuple[Sequence[int | None], Sequence[int]]


def player(name: str) -> Player:
    """The roster player with this name, added when new."""
    found = db.session.scalar(sa.select(Player).where(Player.name_key == name_key(name)))
    if found is None:
        found = Player(name)
        db.session.add(found)
        db.session.flush()
    return found


def make_game(
    names: Sequence[str] = ("Ann", "Bob", "Cy"),
    rounds: Sequence[RoundFacts] = (),
    *,
    game_rules: rules.GameRules | None = None,
    status: str | None = None,
    created_at: datetime | None = None,
    first_dealer: int = 0,
    changes: Sequence[dict] = (),
    open_round: bool = False,
    commit: bool = True,
) -> Game:
    """A game with these players (in seat order) and scored rounds.

    The status defaults to finished when every planned round is given, else in progress.
    ``open_round`` adds the next round as just dealt: no trump, no entries yet.
    """
    game_rules = game_rules or rules.GameRules(players=len(names), bid_rule=rules.BidRule.FREE)
    sizes = game_rules.hand_sizes
    if status is None:
        status = GameStatus.FINISHED if len(rounds) == len(sizes) else GameStatus.IN_PROGRESS
    when = created_at or BASE_TIME
    # Look the players up before the game exists: a lookup flushes the session.
    roster = [player(name) for name in names]
    game = Game(
        rules=game_rules.to_dict(),
        first_dealer=first_dealer,
        status=status,
        created_at=when,
        updated_at=when,
        finished_at=when + timedelta(hours=1) if status == GameStatus.FINISHED else None,
    )
    for position, seated in enumerate(roster):
        game.seats.append(Seat(player=seated, position=position))
    for number, (bids, tricks) in enumerate(rounds, start=1):
        round_ = Round(
            number=number,
            hand_size=sizes[number - 1],
            dealer=rules.dealer_seat(first_dealer, number, len(names)),
            state=RoundState.SCORED,
            trump_cause=rules.TrumpCause.JESTER,
        )
        for seat, (bid, took) in enumerate(zip(bids, tricks, strict=True)):
            round_.entries.append(Entry(seat=seat, bid=bid, tricks=took))
        game.rounds.append(round_)
    if open_round:
        number = len(rounds) + 1
        dealer = rules.dealer_seat(first_dealer, number, len(names))
        game.rounds.append(Round(number=number, hand_size=sizes[number - 1], dealer=dealer))
    for version, change in enumerate(changes, start=2):
        game.changes.append(Change(version=version, created_at=when, **change))
    game.version = 1 + len(changes)
    db.session.add(game)
    if commit:
        db.session.commit()
    return game


def empty_event(name: str = "Night", day: date = date(2026, 1, 1)) -> Event:
    """An event with no players or sessions yet (stored): enough for its board and page."""
    found = Event(name=name, day=day, table_size=4, session_count=1, rules={}, method="placement")
    db.session.add(found)
    db.session.commit()
    return found


def new_game(
    names: Sequence[str] = ("Ann", "Bob", "Cara"), first_dealer: int = 0, **options
) -> int:
    """Start a game through :func:`scorekeeper.gameplay.create_game` (round 1 ready, the start
    recorded as version 1); ``options`` are the :class:`~scorekeeper.rules.GameRules`."""
    game_rules = rules.GameRules(players=len(names), **options)
    return gameplay.create_game(list(names), first_dealer, game_rules).id


def random_rounds(
    game_rules: rules.GameRules, count: int | None = None, seed: int = 0
) -> list[RoundFacts]:
    """Rule-abiding random rounds (any bid rule): tricks add up, forbidden bids avoided."""
    rng = random.Random(seed)
    players = game_rules.players
    sizes = game_rules.hand_sizes[: count if count is not None else None]
    made: list[RoundFacts] = []
    for size in sizes:
        tricks = [0] * players
        for _ in range(size):
            tricks[rng.randrange(players)] += 1
        bids = [max(0, min(size, took + rng.choice((-1, 0, 0, 1)))) for took in tricks]
        # Bids that do not add up to the cards are allowed under every bid rule.
        if game_rules.bid_rule is not rules.BidRule.FREE and sum(bids) == size:
            bids[-1] = bids[-1] + 1 if bids[-1] < size else bids[-1] - 1
        made.append((bids, tricks))
    return made


@contextmanager
def counted(app) -> Iterator[list[str]]:
    """The SQL statements run while the block runs (for query-count tests)."""
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)
