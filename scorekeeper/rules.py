"""The rules of Wizard as the score keeper models them, and the scoring.

This module is the single source of truth for the game: pages, forms, the history and the
statistics all ask it. It is pure Python — no Flask, no database, no I/O.

Conventions: seats are 0-based and clockwise (seat ``s + 1`` sits to the left of seat ``s``);
round numbers are 1-based. Every rejection is a :class:`Problem` value with a stable ``code``,
the field or seat it concerns and the numbers involved, so pages can show (and translate) a
precise message. Validation functions return a tuple of problems (empty when all is well);
constructors and resolvers raise :class:`RulesError`, which carries the same problems.

Summary of the game rules (see ``DESIGN.md`` §2):

* 3–6 players. The deal passes clockwise every round; bidding and the first lead start with
  the player left of the dealer, and the dealer bids last.
* Round plans decide the cards dealt per round (standard, first N rounds, quick play,
  tournament, Maximus, custom).
* The deck is 60 cards plus every special card in play (Dragon, Fairy, Bomb, Cloud,
  Werewolf, Juggler), so with any of them a card is left to turn even in the last round.
* Trump comes from the card turned up after the deal: a suit, a Jester (no trump), a Wizard
  (the dealer picks a suit), or nothing when every card was dealt (no trump).
* Bids are 0 … cards. Under ±1 the last bidder may not make the bids add up to the cards;
  under Canadian only a last bidder strictly in the lead is bound, and zero is always allowed;
  either may apply only from a hand size on.
* Tricks add up to the cards (one less when the Jubilee Bomb was played).
* A bid met exactly scores 20 + 10 per trick; a missed bid loses 10 per trick of difference.
* The highest total wins; ties share the win, or the tie-break chosen at setup decides (the
  higher sum of bids, or more bids met).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import EllipsisType
from typing import Any, Final

__all__ = [
    "BASE_DECK",
    "MAX_PLANNED_ROUNDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SPECIAL_CARDS",
    "SUIT_ORDER",
    "TABLE_ONLY_RULES",
    "WEREWOLF_NOT_PLAYED",
    "WEREWOLF_TRUMPS",
    "BidReveal",
    "BidRule",
    "CloudChange",
    "ForbiddenBid",
    "GameRules",
    "JubileeCards",
    "OfflinePlan",
    "OfflineRound",
    "OfflineUnavailable",
    "PlanKind",
    "Problem",
    "ProblemCode",
    "ProblemValues",
    "RoundPlan",
    "RoundRecord",
    "RulesError",
    "ScoreSheet",
    "SheetCell",
    "SheetRow",
    "Suit",
    "TieBreak",
    "TrumpCause",
    "TrumpChoice",
    "bid_order",
    "bid_rule_applies",
    "bids_are_secret",
    "cards_left_to_turn",
    "dealer_can_change",
    "dealer_seat",
    "everyone_made_bid_possible",
    "first_lead",
    "flagged_rounds",
    "forbidden_bid",
    "hand_size",
    "is_final_round",
    "last_bidder_so_far",
    "next_bidder",
    "next_seat",
    "offline_plan",
    "play_order",
    "quick_play_start",
    "rank",
    "remaining_tricks",
    "required_trick_total",
    "resolve_trump",
    "round_points",
    "score_sheet",
    "special_cards",
    "standings",
    "trump_choice",
    "trump_in_force",
    "trump_suits_allowed",
    "validate_bids",
    "validate_cloud",
    "validate_round",
    "validate_rules",
    "validate_tricks",
    "validate_trump",
]


# --------------------------------------------------------------------------------------------
# Constants and enumerations
# --------------------------------------------------------------------------------------------


class Suit(StrEnum):
    """The four suits (shown as ♣ ♦ ♥ ♠ or as the edition's colours/races)."""

    CLUBS = "clubs"
    DIAMONDS = "diamonds"
    HEARTS = "hearts"
    SPADES = "spades"


SUIT_ORDER: Final[tuple[Suit, ...]] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
"""Suit order used by Maximus (♣ ♦ ♥ ♠); also the display order."""


class TrumpCause(StrEnum):
    """Why a round has the trump it has."""

    SUIT = "suit"  # a suit card turned up: trump is that suit
    JESTER = "jester"  # a Jester turned up: no trump
    WIZARD = "wizard"  # a Wizard turned up: the dealer chooses a suit; no trump not allowed
    NONE_LEFT = "none_left"  # every card was dealt: no trump, filled in automatically
    DRAGON = "dragon"  # Jubilee card turned up: the dealer chooses a suit
    CLOUD = "cloud"  # Jubilee card turned up: the dealer chooses a suit
    WEREWOLF = "werewolf"  # Jubilee card turned up: the dealer chooses a suit
    FAIRY = "fairy"  # Jubilee card turned up: no trump
    BOMB = "bomb"  # Jubilee card turned up: no trump
    FIXED = "fixed"  # Maximus: trump fixed by the round number


class PlanKind(StrEnum):
    """Which round plan a game follows."""

    STANDARD = "standard"
    FIRST_N = "first_n"
    QUICK = "quick"
    TOURNAMENT = "tournament"
    MAXIMUS = "maximus"
    CUSTOM = "custom"


class BidRule(StrEnum):
    """The restriction on the last bidder (one per game)."""

    FREE = "free"
    PLUS_MINUS_ONE = "plus_minus_one"
    CANADIAN = "canadian"
    CANADIAN_FINAL = "canadian_final"


class TieBreak(StrEnum):
    """What decides between players level on points at the end (one per game)."""

    SHARED = "shared"  # nothing: tied players share the win
    BID_SUM = "bid_sum"  # the higher sum of bids over the game (the US rules)
    BIDS_MET = "bids_met"  # more bids met over the game (Amigo qualifiers)


class BidReveal(StrEnum):
    """How bids are made: in order and open, written down together, or kept secret."""

    OPEN = "open"
    HIDDEN = "hidden"
    SECRET = "secret"


MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 6
BASE_DECK: Final = 60
MAXIMUS_ROUNDS: Final = 5
# The longest round plan: a custom one of one-card rounds may deal each card of the deck once
# (no other plan is longer); a backup's game with more rounds is not a real game.
MAX_PLANNED_ROUNDS: Final = BASE_DECK

TABLE_ONLY_RULES: Final[tuple[str, ...]] = (
    "foresight",
    "gizzard_fester",
    "pull_one",
    "dragon",
    "fairy",
    "juggler",
)
"""Rules played at the table that never change a score; kept with the game for the record."""

SPECIAL_CARDS: Final[tuple[str, ...]] = ("dragon", "fairy", "bomb", "cloud", "werewolf", "juggler")
"""The special cards that can be added to the 60: each one in play is one more card in the
deck, whether it changes the score keeping (Jubilee cards) or only the play (table notes)."""

_TABLE_NOTE_CARDS: Final = frozenset({"dragon", "fairy", "juggler"})

WEREWOLF_TRUMPS: Final[tuple[Suit | None, ...]] = (*SUIT_ORDER, None)
"""What the Werewolf's holder may make the trump: any suit, or no trump (``None``)."""

WEREWOLF_NOT_PLAYED: Final[EllipsisType] = ...
"""Default of ``werewolf_trump``: the Werewolf did not replace the trump this round."""

_CHOOSE_SUIT: Final = frozenset(
    {TrumpCause.SUIT, TrumpCause.WIZARD, TrumpCause.DRAGON, TrumpCause.CLOUD, TrumpCause.WEREWOLF}
)
_NO_TRUMP_WORDS: Final = frozenset({"", "none"})

_TOURNAMENT: Final[Mapping[int, tuple[int, ...]]] = {
    3: (2, 4, 6, 8, 10, 12, 14, 16, 18, 20),
    4: (1, 3, 5, 7, 9, 11, 12, 13, 14, 15),
    5: (2, 4, 5, 6, 7, 8, 9, 10, 11, 12),
    6: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
}


# --------------------------------------------------------------------------------------------
# Problems (errors as data)
# --------------------------------------------------------------------------------------------


class ProblemCode(StrEnum):
    """Every reason the rules (and the order of play at the table) can reject something.

    Stable values: pages translate them, and stored or exported problems keep them.
    """

    BID_MISSING = "bid_missing"
    BID_OUT_OF_RANGE = "bid_out_of_range"
    BID_REVEAL_INVALID = "bid_reveal_invalid"
    BID_RULE_FROM_INVALID = "bid_rule_from_invalid"
    BID_RULE_FROM_NOT_APPLICABLE = "bid_rule_from_not_applicable"
    BID_RULE_FROM_OUT_OF_RANGE = "bid_rule_from_out_of_range"
    BID_RULE_INVALID = "bid_rule_invalid"
    BID_RULE_NEEDS_OPEN_BIDS = "bid_rule_needs_open_bids"
    BIDDING_STARTED = "bidding_started"
    BIDS_FIRST = "bids_first"
    BOMB_NOT_IN_PLAY = "bomb_not_in_play"
    CLOUD_BID_OUT_OF_RANGE = "cloud_bid_out_of_range"
    CLOUD_CHANGE_IMPOSSIBLE = "cloud_change_impossible"
    CLOUD_CHANGE_NOT_ONE = "cloud_change_not_one"
    CLOUD_HOLDER_NO_TRICK = "cloud_holder_no_trick"
    CLOUD_NOT_IN_PLAY = "cloud_not_in_play"
    CLOUD_SEAT_HAS_NO_BID = "cloud_seat_has_no_bid"
    DEALER_DOES_NOT_BID = "dealer_does_not_bid"
    DEALER_OUT_OF_RANGE = "dealer_out_of_range"
    DRAGON_AND_FAIRY_TOGETHER = "dragon_and_fairy_together"
    FIELD_UNKNOWN = "field_unknown"
    FORBIDDEN_BID = "forbidden_bid"
    GAME_NOT_IN_PROGRESS = "game_not_in_progress"
    HAND_SIZE_OUT_OF_RANGE = "hand_size_out_of_range"
    JESTER_BID_NOT_ZERO = "jester_bid_not_zero"
    JUBILEE_INVALID = "jubilee_invalid"
    NO_BID_TO_TAKE_BACK = "no_bid_to_take_back"
    NOT_BIDDERS_TURN = "not_bidders_turn"
    PLAN_CUSTOM_EMPTY = "plan_custom_empty"
    PLAN_CUSTOM_TOO_LONG = "plan_custom_too_long"
    PLAN_CUSTOM_NOT_APPLICABLE = "plan_custom_not_applicable"
    PLAN_HAND_SIZE_OUT_OF_RANGE = "plan_hand_size_out_of_range"
    PLAN_INVALID = "plan_invalid"
    PLAN_KIND_INVALID = "plan_kind_invalid"
    PLAN_NOT_EDITABLE = "plan_not_editable"
    PLAN_ROUNDS_MISSING = "plan_rounds_missing"
    PLAN_ROUNDS_NOT_APPLICABLE = "plan_rounds_not_applicable"
    PLAN_ROUNDS_OUT_OF_RANGE = "plan_rounds_out_of_range"
    PLAN_START_NOT_APPLICABLE = "plan_start_not_applicable"
    PLAN_START_OUT_OF_RANGE = "plan_start_out_of_range"
    PLAYERS_INVALID = "players_invalid"
    PLAYERS_MISSING = "players_missing"
    PLAYERS_OUT_OF_RANGE = "players_out_of_range"
    ROUND_CLOSED = "round_closed"
    ROUND_NOT_SCORED = "round_not_scored"
    ROUND_NUMBER_OUT_OF_RANGE = "round_number_out_of_range"
    ROUND_OUT_OF_SEQUENCE = "round_out_of_sequence"
    ROUND_SHAPE = "round_shape"
    RULES_INVALID = "rules_invalid"
    SEAT_OUT_OF_RANGE = "seat_out_of_range"
    TABLE_NOTE_REPEATED = "table_note_repeated"
    TABLE_NOTE_UNKNOWN = "table_note_unknown"
    TABLE_NOTES_INVALID = "table_notes_invalid"
    TIE_BREAK_CONFLICT = "tie_break_conflict"
    TIE_BREAK_INVALID = "tie_break_invalid"
    TOTALS_LENGTH = "totals_length"
    TRICKS_MISSING = "tricks_missing"
    TRICKS_OUT_OF_RANGE = "tricks_out_of_range"
    TRICKS_TOTAL = "tricks_total"
    TRUMP_CAUSE_INVALID = "trump_cause_invalid"
    TRUMP_CAUSE_MISSING = "trump_cause_missing"
    TRUMP_CAUSE_NOT_ALLOWED = "trump_cause_not_allowed"
    TRUMP_FIRST = "trump_first"
    TRUMP_INVALID = "trump_invalid"
    TRUMP_NOT_ALLOWED = "trump_not_allowed"
    TRUMP_SUIT_REQUIRED = "trump_suit_required"
    VALUE_INVALID = "value_invalid"
    WEREWOLF_NOT_IN_PLAY = "werewolf_not_in_play"


_PROBLEM_CODES: Final = frozenset(code.value for code in ProblemCode)


class ProblemValues(Mapping[str, int | str]):
    """An immutable, hashable mapping of the numbers (or names) a problem concerns.

    It compares equal to any mapping with the same content, e.g. a plain ``dict``.
    """

    __slots__ = ("_items",)

    def __init__(self, values: Mapping[str, int | str] | None = None) -> None:
        items = {} if values is None else dict(values)
        normal = {
            str(key): (str(value) if isinstance(value, StrEnum) else value)
            for key, value in items.items()
        }
        self._items: tuple[tuple[str, int | str], ...] = tuple(sorted(normal.items()))

    def __getitem__(self, key: str) -> int | str:
        for name, value in self._items:
            if name == key:
                return value
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(dict(self._items))


@dataclass(frozen=True)
class Problem:
    """One reason something was rejected: a stable code plus what it concerns.

    ``code`` is stable snake_case (pages translate it); ``field`` names the input concerned;
    ``seat`` the player; ``values`` the numbers involved; ``round_number`` the round.
    """

    code: ProblemCode | str
    field: str | None = None
    seat: int | None = None
    values: Mapping[str, int | str] = dataclasses.field(default_factory=ProblemValues)
    round_number: int | None = None

    def __post_init__(self) -> None:
        # A known code given as text is the enum member; an unknown one (from a newer
        # version, say) stays text and pages fall back to a generic message.
        if not isinstance(self.code, ProblemCode) and self.code in _PROBLEM_CODES:
            object.__setattr__(self, "code", ProblemCode(self.code))
        if not isinstance(self.values, ProblemValues):
            object.__setattr__(self, "values", ProblemValues(self.values))

    def to_dict(self) -> dict[str, Any]:
        """The problem as JSON-ready data (keys with no value are left out)."""
        data: dict[str, Any] = {"code": self.code}
        if self.field is not None:
            data["field"] = self.field
        if self.seat is not None:
            data["seat"] = self.seat
        if self.values:
            data["values"] = dict(self.values)
        if self.round_number is not None:
            data["round_number"] = self.round_number
        return data


class RulesError(ValueError):
    """Raised with every problem found when something breaks the rules."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        return ", ".join(problem.code for problem in self.problems)

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of the problems, in order."""
        return tuple(problem.code for problem in self.problems)


def _raise_if(problems: Sequence[Problem]) -> None:
    if problems:
        raise RulesError(problems)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: object) -> int | str:
    """A value as it may appear in ``Problem.values``."""
    if _is_int(value):
        return value
    if value is None:
        return "none"
    return str(value)[:60]


# --------------------------------------------------------------------------------------------
# Round plans
# --------------------------------------------------------------------------------------------


def _max_hand(players: int) -> int:
    return BASE_DECK // players


_QUICK_STARTS: Final = (1, 2)


def quick_play_start(players: int) -> int:
    """The cards of the first round of quick play as published: 2 where the full deal is even
    (3, 5, 6 players), 1 where it is odd (4 players), so every hand is 2 more than the last."""
    return 2 if _max_hand(players) % 2 == 0 else 1


@dataclass(frozen=True)
class RoundPlan:
    """The cards dealt in each round.

    * standard — 1, 2, 3 … up to 60 ÷ players;
    * first N rounds — the standard plan cut after N rounds (``rounds`` = N);
    * quick play — +2 cards each round, ending with the full deal 60 ÷ players, from
      ``start`` cards: 2 where the full deal is even, 1 where it is odd (:func:`quick_play_start`,
      the default). Games stored before the published plan started with 1 whatever the
      players and end with a +1 step (1, 3 … 19, 20): ``start`` = 1 keeps them as played;
    * tournament — 10 fixed rounds per player count;
    * Maximus — 5 rounds, every card dealt each round;
    * custom — any list of hand sizes 1 … 60 ÷ players (``custom``).
    """

    kind: PlanKind = PlanKind.STANDARD
    rounds: int | None = None
    custom: tuple[int, ...] = ()
    start: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.kind, str) and self.kind in PlanKind.__members__.values():
            object.__setattr__(self, "kind", PlanKind(self.kind))
        if isinstance(self.custom, list):
            object.__setattr__(self, "custom", tuple(self.custom))

    def problems(self, players: int) -> tuple[Problem, ...]:
        """Everything wrong with this plan for a table of ``players`` (3–6) players."""
        if not isinstance(self.kind, PlanKind):
            return (
                Problem(
                    ProblemCode.PLAN_KIND_INVALID, "plan", values={"value": _shown(self.kind)}
                ),
            )
        found: list[Problem] = []
        if self.kind is PlanKind.FIRST_N:
            standard = _max_hand(players)
            if not _is_int(self.rounds):
                found.append(
                    Problem(
                        ProblemCode.PLAN_ROUNDS_MISSING, "plan", values={"max": standard, "min": 1}
                    )
                )
            elif not 1 <= self.rounds <= standard:
                found.append(
                    Problem(
                        ProblemCode.PLAN_ROUNDS_OUT_OF_RANGE,
                        "plan",
                        values={"value": self.rounds, "min": 1, "max": standard},
                    )
                )
        elif self.rounds is not None:
            found.append(
                Problem(ProblemCode.PLAN_ROUNDS_NOT_APPLICABLE, "plan", values={"kind": self.kind})
            )
        if self.kind is PlanKind.QUICK:
            if self.start is not None and self.start not in _QUICK_STARTS:
                found.append(
                    Problem(
                        ProblemCode.PLAN_START_OUT_OF_RANGE,
                        "plan",
                        values={"value": _shown(self.start), "min": 1, "max": 2},
                    )
                )
        elif self.start is not None:
            found.append(
                Problem(ProblemCode.PLAN_START_NOT_APPLICABLE, "plan", values={"kind": self.kind})
            )
        if self.kind is PlanKind.CUSTOM:
            found.extend(self._custom_problems(players))
        elif self.custom:
            found.append(
                Problem(ProblemCode.PLAN_CUSTOM_NOT_APPLICABLE, "plan", values={"kind": self.kind})
            )
        return tuple(found)

    def _custom_problems(self, players: int) -> list[Problem]:
        if not isinstance(self.custom, tuple) or not self.custom:
            return [Problem(ProblemCode.PLAN_CUSTOM_EMPTY, "plan")]
        if len(self.custom) > MAX_PLANNED_ROUNDS:
            return [
                Problem(
                    ProblemCode.PLAN_CUSTOM_TOO_LONG,
                    "plan",
                    values={"value": len(self.custom), "max": MAX_PLANNED_ROUNDS},
                )
            ]
        top = _max_hand(players)
        return [
            Problem(
                ProblemCode.PLAN_HAND_SIZE_OUT_OF_RANGE,
                "plan",
                values={"round": number, "value": _shown(size), "min": 1, "max": top},
            )
            for number, size in enumerate(self.custom, start=1)
            if not (_is_int(size) and 1 <= size <= top)
        ]

    def hand_sizes(self, players: int) -> tuple[int, ...]:
        """The cards dealt in each round, first round first, for ``players`` players."""
        _raise_if(_players_problems(players))
        _raise_if(self.problems(players))
        top = _max_hand(players)
        match self.kind:
            case PlanKind.STANDARD:
                return tuple(range(1, top + 1))
            case PlanKind.FIRST_N:
                return tuple(range(1, self.rounds + 1))
            case PlanKind.QUICK:
                start = quick_play_start(players) if self.start is None else self.start
                return (*range(start, top, 2), top)
            case PlanKind.TOURNAMENT:
                return _TOURNAMENT[players]
            case PlanKind.MAXIMUS:
                return (top,) * MAXIMUS_ROUNDS
            case _:
                return self.custom

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-ready data: ``kind``, plus ``rounds`` (first N), ``custom`` or
        ``start`` (quick play)."""
        data: dict[str, Any] = {"kind": str(self.kind)}
        if self.rounds is not None:
            data["rounds"] = self.rounds
        if self.custom:
            data["custom"] = list(self.custom)
        if self.start is not None:
            data["start"] = self.start
        return data


def _players_problems(players: object) -> tuple[Problem, ...]:
    if not _is_int(players):
        return (
            Problem(ProblemCode.PLAYERS_INVALID, "players", values={"value": _shown(players)}),
        )
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return (
            Problem(
                ProblemCode.PLAYERS_OUT_OF_RANGE,
                "players",
                values={"value": players, "min": MIN_PLAYERS, "max": MAX_PLAYERS},
            ),
        )
    return ()


# --------------------------------------------------------------------------------------------
# Game rules
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JubileeCards:
    """Which Jubilee-edition special cards are in play (Dragon and Fairy only together).

    ``bomb_cancels_bids`` is the house rule "the Bomb cancels the round's bids": in a round
    where the Bomb was played every player scores 10 per trick taken (off by default).
    """

    bomb: bool = False
    cloud: bool = False
    werewolf: bool = False
    dragon: bool = False
    fairy: bool = False
    bomb_cancels_bids: bool = False

    @property
    def count(self) -> int:
        """How many Jubilee special cards are in play (see :func:`special_cards` for the deck)."""
        return sum(
            bool(card) for card in (self.bomb, self.cloud, self.werewolf, self.dragon, self.fairy)
        )

    def to_dict(self) -> dict[str, bool]:
        """The cards as JSON-ready data."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


_BOOL_FIELDS: Final = ("saboteur", "jester_bid")
_LEGACY_TIE_BREAK: Final = "tie_break_by_bids"
_ORDERED_RULES: Final = (BidRule.PLUS_MINUS_ONE, BidRule.CANADIAN, BidRule.CANADIAN_FINAL)
# The rules that may start from a hand size on; "Canadian, final hand" already names its round.
_THRESHOLD_RULES: Final = (BidRule.PLUS_MINUS_ONE, BidRule.CANADIAN)


@dataclass(frozen=True)
class GameRules:
    """Everything chosen at setup that decides how a game is played and scored.

    Building it checks the choices and raises :class:`RulesError` listing every problem:
    3–6 players; a valid round plan; hidden or secret bids only with the free bid rule
    (nobody bids last, so ±1 and Canadian cannot apply); Dragon and Fairy only together;
    table notes only from :data:`TABLE_ONLY_RULES`. Strings are accepted for the enums.

    ``bid_rule_from`` is the house rule "±1 (or Canadian) from hand N": the bid rule binds
    only in rounds of at least that many cards (1, the default: always). ``tie_break`` decides
    between players level on points. Quick play without a ``start`` gets the published one.
    """

    players: int
    plan: RoundPlan = field(default_factory=RoundPlan)
    bid_rule: BidRule = BidRule.PLUS_MINUS_ONE
    bid_reveal: BidReveal = BidReveal.OPEN
    saboteur: bool = False
    jester_bid: bool = False
    jubilee: JubileeCards = field(default_factory=JubileeCards)
    table_notes: tuple[str, ...] = ()
    bid_rule_from: int = 1
    tie_break: TieBreak = TieBreak.SHARED

    def __post_init__(self) -> None:
        if isinstance(self.bid_rule, str) and self.bid_rule in BidRule.__members__.values():
            object.__setattr__(self, "bid_rule", BidRule(self.bid_rule))
        if isinstance(self.bid_reveal, str) and self.bid_reveal in BidReveal.__members__.values():
            object.__setattr__(self, "bid_reveal", BidReveal(self.bid_reveal))
        if isinstance(self.tie_break, str) and self.tie_break in TieBreak.__members__.values():
            object.__setattr__(self, "tie_break", TieBreak(self.tie_break))
        if isinstance(self.table_notes, list):
            object.__setattr__(self, "table_notes", tuple(self.table_notes))
        _raise_if(self._problems())
        if self.plan.kind is PlanKind.QUICK and self.plan.start is None:
            start = quick_play_start(self.players)
            object.__setattr__(self, "plan", dataclasses.replace(self.plan, start=start))

    def _problems(self) -> list[Problem]:
        found = list(_players_problems(self.players))
        if not isinstance(self.plan, RoundPlan):
            found.append(Problem(ProblemCode.PLAN_INVALID, "plan"))
        elif not found:
            found.extend(self.plan.problems(self.players))
        if not isinstance(self.bid_rule, BidRule):
            found.append(
                Problem(
                    ProblemCode.BID_RULE_INVALID,
                    "bid_rule",
                    values={"value": _shown(self.bid_rule)},
                )
            )
        if not isinstance(self.bid_reveal, BidReveal):
            found.append(
                Problem(
                    ProblemCode.BID_REVEAL_INVALID,
                    "bid_reveal",
                    values={"value": _shown(self.bid_reveal)},
                )
            )
        elif self.bid_reveal is not BidReveal.OPEN and self.bid_rule in _ORDERED_RULES:
            found.append(
                Problem(
                    ProblemCode.BID_RULE_NEEDS_OPEN_BIDS,
                    "bid_rule",
                    values={"bid_rule": _shown(self.bid_rule), "bid_reveal": self.bid_reveal},
                )
            )
        found.extend(
            Problem(ProblemCode.VALUE_INVALID, name, values={"value": _shown(getattr(self, name))})
            for name in _BOOL_FIELDS
            if not isinstance(getattr(self, name), bool)
        )
        found.extend(self._threshold_problems(found))
        if not isinstance(self.tie_break, TieBreak):
            found.append(
                Problem(
                    ProblemCode.TIE_BREAK_INVALID,
                    "tie_break",
                    values={"value": _shown(self.tie_break)},
                )
            )
        found.extend(self._jubilee_problems())
        found.extend(self._notes_problems())
        return found

    def _threshold_problems(self, found: Sequence[Problem]) -> list[Problem]:
        value = self.bid_rule_from
        if not _is_int(value):
            return [
                Problem(
                    ProblemCode.BID_RULE_FROM_INVALID,
                    "bid_rule_from",
                    values={"value": _shown(value)},
                )
            ]
        if value == 1:
            return []
        if self.bid_rule not in _THRESHOLD_RULES:
            return [
                Problem(
                    ProblemCode.BID_RULE_FROM_NOT_APPLICABLE,
                    "bid_rule_from",
                    values={"value": value, "bid_rule": _shown(self.bid_rule)},
                )
            ]
        top = _max_hand(self.players) if not _players_problems(self.players) else value
        if not 1 <= value <= top:
            return [
                Problem(
                    ProblemCode.BID_RULE_FROM_OUT_OF_RANGE,
                    "bid_rule_from",
                    values={"value": value, "min": 1, "max": top},
                )
            ]
        return []

    def _jubilee_problems(self) -> list[Problem]:
        cards = self.jubilee
        if not isinstance(cards, JubileeCards):
            return [Problem(ProblemCode.JUBILEE_INVALID, "jubilee")]
        found = [
            Problem(
                ProblemCode.VALUE_INVALID, f"jubilee.{f.name}", values={"value": _shown(value)}
            )
            for f in dataclasses.fields(cards)
            if not isinstance(value := getattr(cards, f.name), bool)
        ]
        if cards.dragon != cards.fairy:
            missing = "fairy" if cards.dragon else "dragon"
            found.append(
                Problem(
                    ProblemCode.DRAGON_AND_FAIRY_TOGETHER, "jubilee", values={"missing": missing}
                )
            )
        return found

    def _notes_problems(self) -> list[Problem]:
        if not isinstance(self.table_notes, tuple):
            return [Problem(ProblemCode.TABLE_NOTES_INVALID, "table_notes")]
        found = [
            Problem(ProblemCode.TABLE_NOTE_UNKNOWN, "table_notes", values={"value": _shown(note)})
            for note in self.table_notes
            if note not in TABLE_ONLY_RULES
        ]
        duplicates = sorted(
            {note for note in self.table_notes if self.table_notes.count(note) > 1}
        )
        found.extend(
            Problem(ProblemCode.TABLE_NOTE_REPEATED, "table_notes", values={"value": _shown(note)})
            for note in duplicates
        )
        return found

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """The cards dealt in each round of the plan."""
        return self.plan.hand_sizes(self.players)

    @property
    def round_count(self) -> int:
        """How many rounds the game has."""
        return len(self.hand_sizes)

    @property
    def plan_editable(self) -> bool:
        """Whether the hand sizes of later rounds may change mid-game: only a custom plan."""
        return self.plan.kind is PlanKind.CUSTOM

    @property
    def deck_size(self) -> int:
        """60 cards plus one per special card in play (see :func:`special_cards`)."""
        return BASE_DECK + len(special_cards(self))

    @property
    def max_hand_size(self) -> int:
        """The largest possible hand: 60 ÷ players (rounded down)."""
        return _max_hand(self.players)

    def to_dict(self) -> dict[str, Any]:
        """The rules as JSON-ready data (str, int, bool, list, dict only) with stable keys."""
        return {
            "players": self.players,
            "plan": self.plan.to_dict(),
            "bid_rule": str(self.bid_rule),
            "bid_reveal": str(self.bid_reveal),
            "saboteur": self.saboteur,
            "jester_bid": self.jester_bid,
            "jubilee": self.jubilee.to_dict(),
            "table_notes": list(self.table_notes),
            "bid_rule_from": self.bid_rule_from,
            "tie_break": str(self.tie_break),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRules:
        """Rebuild rules from :meth:`to_dict` output; any bad data raises :class:`RulesError`.

        Missing keys take their defaults (``players`` is required); unknown keys are refused.
        ``tie_break_by_bids`` is the older on/off form of ``tie_break`` (True: the sum of
        bids), still read; a file giving both must say the same in each.
        A quick-play plan without ``start`` was written before quick play followed the
        published plan, when it started with 1 card for every table: it keeps that start.
        """
        if not isinstance(data, Mapping):
            raise RulesError([Problem(ProblemCode.RULES_INVALID, "rules")])
        found: list[Problem] = []
        kwargs: dict[str, Any] = {}
        names = {f.name for f in dataclasses.fields(cls)}
        found.extend(
            Problem(ProblemCode.FIELD_UNKNOWN, str(key)[:60])
            for key in data
            if key not in names and key != _LEGACY_TIE_BREAK
        )
        if _LEGACY_TIE_BREAK in data:
            kwargs["tie_break"] = _legacy_tie_break(data, found)
        if "players" not in data:
            found.append(Problem(ProblemCode.PLAYERS_MISSING, "players"))
        for key in names & set(data):
            value = data[key]
            if key == "plan":
                value = _plan_from_data(value, found)
            elif key == "jubilee":
                value = _jubilee_from_data(value, found)
            elif key == "table_notes":
                value = _notes_from_data(value, found)
            kwargs[key] = value
        _raise_if(found)
        return cls(**kwargs)

    def for_a_new_game(self) -> GameRules:
        """The same choices as a new game plays them: quick play from the published start (a
        game stored before keeps its own start, but "play again" is a new game)."""
        if self.plan.kind is PlanKind.QUICK:
            return self.with_plan(RoundPlan(PlanKind.QUICK))
        return self

    def with_plan(self, plan: RoundPlan) -> GameRules:
        """The same rules with another round plan (e.g. custom future rounds edited mid-game)."""
        return dataclasses.replace(self, plan=plan)


def _legacy_tie_break(data: Mapping[str, Any], found: list[Problem]) -> object:
    """``tie_break`` from the older switch ``tie_break_by_bids`` (True: the sum of bids)."""
    by_bids = data[_LEGACY_TIE_BREAK]
    if not isinstance(by_bids, bool):
        found.append(
            Problem(
                ProblemCode.VALUE_INVALID, _LEGACY_TIE_BREAK, values={"value": _shown(by_bids)}
            )
        )
        return data.get("tie_break", TieBreak.SHARED)
    if "tie_break" not in data:
        return TieBreak.BID_SUM if by_bids else TieBreak.SHARED
    if by_bids != (data["tie_break"] == TieBreak.BID_SUM):
        found.append(
            Problem(
                ProblemCode.TIE_BREAK_CONFLICT,
                "tie_break",
                values={"value": _shown(data["tie_break"]), "by_bids": str(by_bids).lower()},
            )
        )
    return data["tie_break"]


def _plan_from_data(value: object, found: list[Problem]) -> object:
    if not isinstance(value, Mapping):
        found.append(Problem(ProblemCode.PLAN_INVALID, "plan"))
        return value
    unknown = [key for key in value if key not in ("kind", "rounds", "custom", "start")]
    found.extend(Problem(ProblemCode.FIELD_UNKNOWN, f"plan.{str(key)[:60]}") for key in unknown)
    custom = value.get("custom", ())
    if not isinstance(custom, list | tuple):
        found.append(Problem(ProblemCode.PLAN_INVALID, "plan.custom"))
        custom = ()
    kind = value.get("kind", PlanKind.STANDARD)
    # Stored before the published quick play: it started with 1, and a stored game never
    # changes under a new rule.
    start = value.get("start", 1 if kind == PlanKind.QUICK else None)
    return RoundPlan(kind=kind, rounds=value.get("rounds"), custom=tuple(custom), start=start)


def _jubilee_from_data(value: object, found: list[Problem]) -> object:
    if not isinstance(value, Mapping):
        found.append(Problem(ProblemCode.JUBILEE_INVALID, "jubilee"))
        return value
    names = {f.name for f in dataclasses.fields(JubileeCards)}
    found.extend(
        Problem(ProblemCode.FIELD_UNKNOWN, f"jubilee.{str(key)[:60]}")
        for key in value
        if key not in names
    )
    return JubileeCards(**{key: value[key] for key in names & set(value)})


def _notes_from_data(value: object, found: list[Problem]) -> object:
    if not isinstance(value, list | tuple):
        found.append(Problem(ProblemCode.TABLE_NOTES_INVALID, "table_notes"))
        return value
    return tuple(value)


def validate_rules(**kwargs: Any) -> tuple[Problem, ...]:
    """Every problem with these setup choices (the keyword arguments of :class:`GameRules`).

    Returns an empty tuple when the rules are valid; never raises.
    """
    names = {f.name for f in dataclasses.fields(GameRules)}
    found = [
        Problem(ProblemCode.FIELD_UNKNOWN, str(key)[:60]) for key in kwargs if key not in names
    ]
    if "players" not in kwargs:
        found.append(Problem(ProblemCode.PLAYERS_MISSING, "players"))
    if found:
        return tuple(found)
    try:
        GameRules(**kwargs)
    except RulesError as error:
        return error.problems
    return ()


# --------------------------------------------------------------------------------------------
# Rounds and seats
# --------------------------------------------------------------------------------------------


def _round_problem(rules: GameRules, round_number: object) -> tuple[Problem, ...]:
    count = rules.round_count
    if _is_int(round_number) and 1 <= round_number <= count:
        return ()
    return (
        Problem(
            ProblemCode.ROUND_NUMBER_OUT_OF_RANGE,
            "round_number",
            values={"value": _shown(round_number), "min": 1, "max": count},
        ),
    )


def hand_size(rules: GameRules, round_number: int) -> int:
    """The cards dealt in round ``round_number`` (1-based) of the plan."""
    _raise_if(_round_problem(rules, round_number))
    return rules.hand_sizes[round_number - 1]


def is_final_round(rules: GameRules, round_number: int) -> bool:
    """Whether this is the last planned round (where "Canadian, final hand" applies)."""
    return round_number == rules.round_count


def next_seat(seat: int, players: int) -> int:
    """The seat to the left (clockwise), where the deal passes to."""
    return (seat + 1) % players


def dealer_seat(first_dealer: int, round_number: int, players: int) -> int:
    """The dealer of a round when the deal passed clockwise every round from ``first_dealer``.

    When the dealer was changed mid-game, later rounds rotate on from the actual dealer:
    call it with that dealer and the round numbers counted from there (or use
    :func:`next_seat`).
    """
    return (first_dealer + round_number - 1) % players


def play_order(dealer: int, players: int) -> tuple[int, ...]:
    """Every seat in the order of play: the player left of the dealer first, the dealer last."""
    return tuple((dealer + step) % players for step in range(1, players + 1))


def bid_order(rules: GameRules, dealer: int) -> tuple[int, ...]:
    """The seats that bid, in order: left of the dealer first, the dealer last.

    With Saboteur the dealer does not bid, so the player right of the dealer bids last.
    """
    order = play_order(dealer, rules.players)
    return order[:-1] if rules.saboteur else order


def first_lead(dealer: int, players: int) -> int:
    """The seat that leads the first trick: the player left of the dealer."""
    return next_seat(dealer, players)


def special_cards(rules: GameRules) -> tuple[str, ...]:
    """The special cards in the deck, in :data:`SPECIAL_CARDS` order: the Jubilee cards in
    play and the Dragon, Fairy and Juggler listed as table notes (a card named both ways is
    one card)."""
    cards = rules.jubilee
    jubilee = {"dragon": cards.dragon, "fairy": cards.fairy, "bomb": cards.bomb}
    jubilee |= {"cloud": cards.cloud, "werewolf": cards.werewolf}
    noted = _TABLE_NOTE_CARDS & set(rules.table_notes)
    return tuple(card for card in SPECIAL_CARDS if jubilee.get(card) or card in noted)


def cards_left_to_turn(rules: GameRules, hand_size: int) -> bool:
    """Whether a card is left after the deal to turn up for trump.

    The deck has 60 cards plus one per special card in play (:func:`special_cards`), so with
    any of them a card is left even when 60 ÷ players cards each were dealt.
    """
    return rules.deck_size - hand_size * rules.players > 0


# --------------------------------------------------------------------------------------------
# Trump
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrumpChoice:
    """What the user may say about the trump of a round.

    ``causes`` lists what may have been turned up (empty when the trump is automatic);
    ``automatic`` is ``(cause, trump)`` when nothing needs asking: ``(NONE_LEFT, None)`` when
    every card was dealt, ``(FIXED, suit-or-None)`` in Maximus.
    """

    causes: tuple[TrumpCause, ...]
    automatic: tuple[TrumpCause, Suit | None] | None = None

    @property
    def options(self) -> tuple[tuple[TrumpCause, tuple[Suit | None, ...]], ...]:
        """Each cause with the trumps it permits, in display order (``None`` = no trump).

        When the trump is automatic that is the one option, with its one trump.
        """
        if self.automatic is not None:
            cause, trump = self.automatic
            return ((cause, (trump,)),)
        return tuple((cause, trump_suits_allowed(cause)) for cause in self.causes)


def _maximus_trump(round_number: int) -> Suit | None:
    return SUIT_ORDER[round_number - 1] if round_number <= len(SUIT_ORDER) else None


def trump_choice(rules: GameRules, round_number: int, hand_size: int) -> TrumpChoice:
    """What can decide the trump this round.

    Maximus fixes it (♣ ♦ ♥ ♠, then no trump). When every card was dealt there is no trump.
    Otherwise the turned-up card decides: a suit, a Jester (no trump) or a Wizard (the dealer
    picks a suit); with Jubilee cards in play also a Dragon, Cloud or Werewolf (the dealer
    picks a suit) or a Fairy or Bomb (no trump).
    """
    if rules.plan.kind is PlanKind.MAXIMUS:
        _raise_if(_round_problem(rules, round_number))
        return TrumpChoice((), (TrumpCause.FIXED, _maximus_trump(round_number)))
    if not cards_left_to_turn(rules, hand_size):
        return TrumpChoice((), (TrumpCause.NONE_LEFT, None))
    cards = rules.jubilee
    specials = (
        (TrumpCause.DRAGON, cards.dragon),
        (TrumpCause.CLOUD, cards.cloud),
        (TrumpCause.WEREWOLF, cards.werewolf),
        (TrumpCause.FAIRY, cards.fairy),
        (TrumpCause.BOMB, cards.bomb),
    )
    causes = (TrumpCause.SUIT, TrumpCause.JESTER, TrumpCause.WIZARD)
    return TrumpChoice(causes + tuple(cause for cause, on in specials if on))


def trump_suits_allowed(cause: TrumpCause | str) -> tuple[Suit | None, ...]:
    """The trumps a cause permits (``None`` = no trump).

    A suit turned up, a Wizard, Dragon, Cloud or Werewolf: one of the four suits. A Jester,
    Fairy, Bomb or no card left: no trump. Fixed (Maximus): the round decides, so any.
    """
    parsed = _parse_cause(cause)
    if parsed is None or isinstance(parsed, _Bad):
        raise RulesError(
            [Problem(ProblemCode.TRUMP_CAUSE_INVALID, "trump", values={"value": _shown(cause)})]
        )
    cause = parsed
    if cause in _CHOOSE_SUIT:
        return SUIT_ORDER
    if cause is TrumpCause.FIXED:
        return (*SUIT_ORDER, None)
    return (None,)


class _Bad:
    """Marker for a value that could not be read."""


_BAD: Final = _Bad()


def _parse_trump(value: object) -> Suit | _Bad | None:
    if value is None or isinstance(value, Suit):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _NO_TRUMP_WORDS:
            return None
        if word in Suit.__members__.values():
            return Suit(word)
    return _BAD


def _parse_cause(value: object) -> TrumpCause | _Bad | None:
    if value is None or isinstance(value, TrumpCause):
        return value
    if isinstance(value, str) and value in TrumpCause.__members__.values():
        return TrumpCause(value)
    return _BAD


def validate_trump(
    rules: GameRules,
    round_number: int,
    hand_size: int,
    cause: TrumpCause | str | None,
    trump: Suit | str | None,
    werewolf_trump: Suit | str | EllipsisType | None = WEREWOLF_NOT_PLAYED,
) -> tuple[Problem, ...]:
    """Check the trump recorded for a round.

    The cause must be one the round allows (see :func:`trump_choice`) and the trump one that
    cause permits: a Wizard needs a suit, a Jester means no trump. When the trump is automatic
    the cause and trump may be left ``None`` (or given as the automatic ones).

    The Werewolf's holder may replace the trump with any suit or with no trump:
    ``werewolf_trump`` is left at its default (:data:`WEREWOLF_NOT_PLAYED`) when that did not
    happen, else it is the new trump (a suit, or ``None`` for no trump). Trumps may be given
    as :class:`Suit`, as its value, or ``None`` / ``""`` / ``"none"`` for no trump.
    """
    found: list[Problem] = []
    choice = trump_choice(rules, round_number, hand_size)
    parsed_cause = _parse_cause(cause)
    parsed_trump = _parse_trump(trump)
    if isinstance(parsed_trump, _Bad):
        found.append(Problem(ProblemCode.TRUMP_INVALID, "trump", values={"value": _shown(trump)}))
    if isinstance(parsed_cause, _Bad):
        found.append(
            Problem(ProblemCode.TRUMP_CAUSE_INVALID, "trump", values={"value": _shown(cause)})
        )
    elif choice.automatic is not None:
        auto_cause, auto_trump = choice.automatic
        if parsed_cause not in (None, auto_cause):
            found.append(_cause_not_allowed(parsed_cause, auto_cause))
        elif not isinstance(parsed_trump, _Bad) and parsed_trump not in (None, auto_trump):
            found.append(_trump_not_allowed(auto_cause, parsed_trump))
    elif parsed_cause is None:
        found.append(Problem(ProblemCode.TRUMP_CAUSE_MISSING, "trump"))
    elif parsed_cause not in choice.causes:
        found.append(_cause_not_allowed(parsed_cause, None))
    elif not isinstance(parsed_trump, _Bad):
        if parsed_trump is None and parsed_cause in _CHOOSE_SUIT:
            found.append(
                Problem(ProblemCode.TRUMP_SUIT_REQUIRED, "trump", values={"cause": parsed_cause})
            )
        elif parsed_trump not in trump_suits_allowed(parsed_cause):
            found.append(_trump_not_allowed(parsed_cause, parsed_trump))
    if werewolf_trump is not WEREWOLF_NOT_PLAYED:
        if not rules.jubilee.werewolf:
            found.append(Problem(ProblemCode.WEREWOLF_NOT_IN_PLAY, "werewolf_trump"))
        elif isinstance(_parse_trump(werewolf_trump), _Bad):
            found.append(
                Problem(
                    ProblemCode.TRUMP_INVALID,
                    "werewolf_trump",
                    values={"value": _shown(werewolf_trump)},
                )
            )
    return tuple(found)


def _cause_not_allowed(cause: TrumpCause, automatic: TrumpCause | None) -> Problem:
    values: dict[str, int | str] = {"cause": cause}
    if automatic is not None:
        values["automatic"] = automatic
    return Problem(ProblemCode.TRUMP_CAUSE_NOT_ALLOWED, "trump", values=values)


def _trump_not_allowed(cause: TrumpCause, trump: Suit | None) -> Problem:
    return Problem(
        ProblemCode.TRUMP_NOT_ALLOWED, "trump", values={"cause": cause, "trump": _shown(trump)}
    )


def resolve_trump(
    rules: GameRules,
    round_number: int,
    hand_size: int,
    cause: TrumpCause | str | None,
    trump: Suit | str | None,
    werewolf_trump: Suit | str | EllipsisType | None = WEREWOLF_NOT_PLAYED,
) -> Suit | None:
    """The trump in force for the round (``None`` = no trump).

    The Werewolf's replacement wins over everything; otherwise an automatic trump (no card
    left, Maximus) applies; otherwise the recorded one. Raises :class:`RulesError` when the
    inputs fail :func:`validate_trump`.
    """
    _raise_if(validate_trump(rules, round_number, hand_size, cause, trump, werewolf_trump))
    if werewolf_trump is not WEREWOLF_NOT_PLAYED:
        return _parse_trump(werewolf_trump)
    choice = trump_choice(rules, round_number, hand_size)
    if choice.automatic is not None:
        return choice.automatic[1]
    return _parse_trump(trump)


def trump_in_force(
    trump: Suit | str | None, werewolf_played: bool, werewolf_trump: Suit | str | None
) -> Suit | None:
    """The trump that counts for a recorded round: the Werewolf's replacement, once played,
    wins over the turned-up trump (``None`` = no trump; unreadable text counts as none)."""
    chosen = _parse_trump(werewolf_trump if werewolf_played else trump)
    return None if isinstance(chosen, _Bad) else chosen


# --------------------------------------------------------------------------------------------
# Bids
# --------------------------------------------------------------------------------------------


def next_bidder(rules: GameRules, dealer: int, bids: Mapping[int, int | None]) -> int | None:
    """The seat whose bid is due in an open-bid round, or ``None`` when everyone has bid."""
    return next((seat for seat in bid_order(rules, dealer) if bids.get(seat) is None), None)


def last_bidder_so_far(
    rules: GameRules, dealer: int, bids: Mapping[int, int | None]
) -> int | None:
    """The seat whose bid was made last, which may be taken back (a mis-tap), or ``None``.

    With Jester bid the bids are not made by anyone, so none can be taken back.
    """
    if rules.jester_bid:
        return None
    given = [seat for seat in bid_order(rules, dealer) if bids.get(seat) is not None]
    return given[-1] if given else None


def dealer_can_change(rules: GameRules, scored: bool, bids: Mapping[int, int | None]) -> bool:
    """Whether the dealer of a round may still change: before bidding starts (with Jester
    bid, where nobody bids, until the round is scored)."""
    if scored:
        return False
    return rules.jester_bid or all(bid is None for bid in bids.values())


@dataclass(frozen=True)
class ForbiddenBid:
    """The one bid the last bidder may not make, and why."""

    seat: int
    value: int
    rule: BidRule
    hand_size: int
    bids_so_far: int  # sum of the earlier bids


def bid_rule_applies(rules: GameRules, round_number: int, hand_size: int) -> bool:
    """Whether the game's bid rule binds the last bidder in this round at all.

    Never under the free rule or with hidden or secret bids (nobody bids last), nor with
    Jester bid; "Canadian, final hand" only in the last round; ±1 and Canadian only in
    rounds of at least ``bid_rule_from`` cards (the house rule "from hand N", 1 = always).
    """
    if rules.bid_rule is BidRule.FREE or rules.bid_reveal is not BidReveal.OPEN:
        return False
    if rules.jester_bid or hand_size < rules.bid_rule_from:
        return False
    return rules.bid_rule is not BidRule.CANADIAN_FINAL or is_final_round(rules, round_number)


def _leads_alone(seat: int, totals: Sequence[int]) -> bool:
    others = [total for other, total in enumerate(totals) if other != seat]
    return totals[seat] > max(others)


def _totals(rules: GameRules, totals_before: Sequence[int]) -> tuple[int, ...]:
    totals = tuple(totals_before)
    if not totals:
        return (0,) * rules.players
    if len(totals) != rules.players:
        raise RulesError(
            [
                Problem(
                    ProblemCode.TOTALS_LENGTH,
                    "totals_before",
                    values={"value": len(totals), "players": rules.players},
                )
            ]
        )
    return totals


def forbidden_bid(
    rules: GameRules,
    round_number: int,
    hand_size: int,
    dealer: int,
    bids: Mapping[int, int | None],
    totals_before: Sequence[int],
) -> ForbiddenBid | None:
    """The bid the last bidder may not make this round, or ``None`` when any bid is allowed.

    ±1: the last bidder may not make the bids add up to the cards, unless that number is
    outside 0 … cards. Canadian: the same, but only when the last bidder is strictly in the
    lead (not tied) before the round, and bidding zero is always allowed. Canadian, final
    hand: Canadian in the last round only. Nothing is forbidden under the free rule, with
    Jester bid, in a round smaller than the rule's threshold (:func:`bid_rule_applies`), or
    until every earlier bidder has bid. ``totals_before`` are the running
    totals by seat before the round (an empty sequence means all zero); the last bidder's
    own entry in ``bids`` is ignored.
    """
    totals = _totals(rules, totals_before)
    if not bid_rule_applies(rules, round_number, hand_size):
        return None
    *earlier, last = bid_order(rules, dealer)
    earlier_bids = [bids.get(seat) for seat in earlier]
    if not all(_is_int(bid) for bid in earlier_bids):
        return None
    so_far = sum(earlier_bids)
    value = hand_size - so_far
    if not 0 <= value <= hand_size:
        return None
    if rules.bid_rule is not BidRule.PLUS_MINUS_ONE and (
        value == 0 or not _leads_alone(last, totals)
    ):
        return None
    return ForbiddenBid(last, value, rules.bid_rule, hand_size, so_far)


def _seat_problems(players: int, entries: Mapping[int, object], field_name: str) -> list[Problem]:
    return [
        Problem(
            ProblemCode.SEAT_OUT_OF_RANGE,
            field_name,
            values={"value": _shown(seat), "max": players - 1},
        )
        for seat in entries
        if not (_is_int(seat) and 0 <= seat < players)
    ]


def _dealer_problems(rules: GameRules, dealer: object) -> list[Problem]:
    if _is_int(dealer) and 0 <= dealer < rules.players:
        return []
    return [
        Problem(
            ProblemCode.DEALER_OUT_OF_RANGE,
            "dealer",
            values={"value": _shown(dealer), "max": rules.players - 1},
        )
    ]


def validate_bids(
    rules: GameRules,
    round_number: int,
    hand_size: int,
    dealer: int,
    bids: Mapping[int, int | None],
    totals_before: Sequence[int],
) -> tuple[Problem, ...]:
    """Check a round's bids.

    Every bidder bids a whole number 0 … cards; with Saboteur the dealer does not bid; with
    Jester bid every bid is zero; and the last bidder may not make the forbidden bid of the
    game's bid rule (see :func:`forbidden_bid`).
    """
    found = _dealer_problems(rules, dealer) + _seat_problems(rules.players, bids, "bid")
    if found:
        return tuple(found)
    for seat in bid_order(rules, dealer):
        bid = bids.get(seat)
        if bid is None:
            found.append(Problem(ProblemCode.BID_MISSING, "bid", seat, {"hand_size": hand_size}))
        elif not _is_int(bid) or not 0 <= bid <= hand_size:
            found.append(
                Problem(
                    ProblemCode.BID_OUT_OF_RANGE,
                    "bid",
                    seat,
                    {"value": _shown(bid), "min": 0, "max": hand_size, "hand_size": hand_size},
                )
            )
        elif rules.jester_bid and bid != 0:
            found.append(Problem(ProblemCode.JESTER_BID_NOT_ZERO, "bid", seat, {"value": bid}))
    if rules.saboteur and bids.get(dealer) is not None:
        found.append(
            Problem(
                ProblemCode.DEALER_DOES_NOT_BID, "bid", dealer, {"value": _shown(bids.get(dealer))}
            )
        )
    forbidden = forbidden_bid(rules, round_number, hand_size, dealer, bids, totals_before)
    if forbidden is not None and bids.get(forbidden.seat) == forbidden.value:
        found.append(
            Problem(
                ProblemCode.FORBIDDEN_BID,
                "bid",
                forbidden.seat,
                {
                    "value": forbidden.value,
                    "hand_size": hand_size,
                    "rule": forbidden.rule,
                    "bids_so_far": forbidden.bids_so_far,
                },
            )
        )
    return tuple(found)


def bids_are_secret(rules: GameRules, scored: bool, bidding: bool = False) -> bool:
    """Whether a round's bids must stay off every screen: secret bids until the tricks are in,
    and hidden bids while the round is still ``bidding`` (the bids made on the players' own
    phones are sealed until the last one is in, then revealed together)."""
    if rules.bid_reveal is BidReveal.SECRET:
        return not scored
    return rules.bid_reveal is BidReveal.HIDDEN and bidding and not scored


def bid_can_change(
    rules: GameRules, bids: Mapping[int, int | None], seat: int, bidding: bool
) -> bool:
    """Whether ``seat``'s bid, already made in the round being played, may be changed (a
    mis-tap noticed later): only a bid that is shown, so never with Jester bid (nobody bids),
    never a secret bid, and a hidden one only once all are revealed (``bidding`` is over)."""
    if rules.jester_bid or bids_are_secret(rules, False, bidding):
        return False
    return bids.get(seat) is not None


def validate_bid_change(
    rules: GameRules,
    round_number: int,
    hand_size: int,
    dealer: int,
    bids: Mapping[int, int | None],
    seat: int,
    totals_before: Sequence[int],
) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
    """Check a change of ``seat``'s bid (``bids`` hold the new one): the problems that refuse
    it, and those it only flags.

    Every bid is checked again with the others (see :func:`validate_bids`); a bid still to
    come is no problem. The changed bid itself is refused when it breaks a rule (the forbidden
    bid when ``seat`` bids last); a later bid that the change makes forbidden is flagged, to
    be changed in turn, since that player bid in good faith.
    """
    found = [
        problem
        for problem in validate_bids(rules, round_number, hand_size, dealer, bids, totals_before)
        if problem.code != ProblemCode.BID_MISSING
    ]
    flagged = tuple(p for p in found if p.code == ProblemCode.FORBIDDEN_BID and p.seat != seat)
    return tuple(p for p in found if p not in flagged), flagged


def validate_cloud(
    hand_size: int, bids: Mapping[int, int | None], seat: int, new_bid: int
) -> tuple[Problem, ...]:
    """Check a Cloud change: the player who won the Cloud's trick changes their bid.

    The new bid is exactly one more or one less than their bid and stays within 0 … cards.
    Only one player changes per round; afterwards the bids may add up to the cards.
    """
    old = bids.get(seat)
    if not _is_int(old):
        return (Problem(ProblemCode.CLOUD_SEAT_HAS_NO_BID, "cloud", seat),)
    if not _is_int(new_bid) or not 0 <= new_bid <= hand_size:
        return (
            Problem(
                ProblemCode.CLOUD_BID_OUT_OF_RANGE,
                "cloud",
                seat,
                {"value": _shown(new_bid), "min": 0, "max": hand_size, "hand_size": hand_size},
            ),
        )
    if abs(new_bid - old) != 1:
        return (
            Problem(
                ProblemCode.CLOUD_CHANGE_NOT_ONE, "cloud", seat, {"bid": old, "value": new_bid}
            ),
        )
    return ()


# --------------------------------------------------------------------------------------------
# Tricks and points
# --------------------------------------------------------------------------------------------


def required_trick_total(hand_size: int, bomb_played: bool) -> int:
    """The tricks add up to the cards, one less when the Bomb was played (nobody wins it)."""
    return hand_size - 1 if bomb_played else hand_size


def validate_tricks(
    rules: GameRules, hand_size: int, tricks: Mapping[int, int | None], bomb_played: bool
) -> tuple[Problem, ...]:
    """Check a round's tricks: each player took 0 … cards, and they add up to the cards.

    When the Bomb was played the tricks add up to one less than the cards.
    """
    found = _seat_problems(rules.players, tricks, "tricks")
    if bomb_played and not rules.jubilee.bomb:
        found.append(Problem(ProblemCode.BOMB_NOT_IN_PLAY, "bomb"))
    complete = True
    for seat in range(rules.players):
        value = tricks.get(seat)
        if value is None:
            complete = False
            found.append(
                Problem(ProblemCode.TRICKS_MISSING, "tricks", seat, {"hand_size": hand_size})
            )
        elif not _is_int(value) or not 0 <= value <= hand_size:
            complete = False
            found.append(
                Problem(
                    ProblemCode.TRICKS_OUT_OF_RANGE,
                    "tricks",
                    seat,
                    {"value": _shown(value), "min": 0, "max": hand_size, "hand_size": hand_size},
                )
            )
    required = required_trick_total(hand_size, bomb_played)
    if complete:
        total = sum(tricks[seat] for seat in range(rules.players))
        if total != required:
            found.append(
                Problem(
                    ProblemCode.TRICKS_TOTAL,
                    "tricks",
                    values={"total": total, "required": required, "hand_size": hand_size},
                )
            )
    return tuple(found)


def remaining_tricks(hand_size: int, tricks: Mapping[int, int | None], bomb_played: bool) -> int:
    """The tricks not yet given to anybody while entering them (negative: too many given)."""
    given = sum(value for value in tricks.values() if _is_int(value))
    return required_trick_total(hand_size, bomb_played) - given


def everyone_made_bid_possible(
    hand_size: int, bids: Mapping[int, int | None], bomb_played: bool
) -> bool:
    """Whether everyone can have made their bid: the bids add up to the tricks to be won.

    A missing bid (the Saboteur dealer) counts as zero tricks.
    """
    total = sum(value for value in bids.values() if _is_int(value))
    return total == required_trick_total(hand_size, bomb_played)


def round_points(
    bid: int | None, tricks: int, *, saboteur_dealer: bool = False, bomb_cancels: bool = False
) -> int:
    """A player's points for a round.

    Bid met exactly: 20 + 10 per trick. Missed: −10 per trick of difference, over or under.
    The Saboteur dealer scores +20 whatever the tricks. With the house rule "the Bomb cancels
    the bids", in a round where the Bomb was played everyone else scores 10 per trick taken.
    """
    if saboteur_dealer:
        return 20
    if bomb_cancels:
        return 10 * tricks
    if bid is None:
        raise RulesError([Problem(ProblemCode.BID_MISSING, "bid")])
    if bid == tricks:
        return 20 + 10 * tricks
    return -10 * abs(bid - tricks)


# --------------------------------------------------------------------------------------------
# Rounds as stored, score sheet, corrections
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CloudChange:
    """The Cloud's holder changed their bid to ``new_bid`` this round."""

    seat: int
    new_bid: int


@dataclass(frozen=True)
class RoundRecord:
    """One completed (scored) round as stored; ``bids`` and ``tricks`` are by seat.

    The Saboteur dealer's bid is ``None``. ``bids`` keeps the original bids; a Cloud change is
    kept apart in ``cloud``.
    """

    number: int
    hand_size: int
    dealer: int
    bids: tuple[int | None, ...]
    tricks: tuple[int, ...]
    cloud: CloudChange | None = None
    bomb_played: bool = False


@dataclass(frozen=True)
class SheetCell:
    """One player's line in one round of the score sheet.

    ``effective_bid`` is the bid that scored (after a Cloud change); ``made`` says whether it
    was met exactly (never for the Saboteur dealer, who has no bid); ``total`` is the running
    total after this round.
    """

    bid: int | None
    effective_bid: int | None
    tricks: int
    points: int
    total: int
    made: bool


@dataclass(frozen=True)
class SheetRow:
    """One round of the score sheet; ``cells`` are by seat; ``bomb_played``: one trick lost."""

    number: int
    hand_size: int
    dealer: int
    cells: tuple[SheetCell, ...]
    bomb_played: bool = False


@dataclass(frozen=True)
class ScoreSheet:
    """A game's score sheet so far: rows, running totals, ranks, leaders and winners; by seat
    also the sum of bids and the bids met over the game (what the tie-breaks compare)."""

    players: int
    rows: tuple[SheetRow, ...]
    totals: tuple[int, ...]
    ranks: tuple[int, ...]
    leaders: tuple[int, ...]
    bid_sums: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]
    bids_met: tuple[int, ...] = ()

    @property
    def standings(self) -> tuple[int, ...]:
        """Seats from first place down; tied players keep seat order."""
        return standings(self.ranks)

    def highlighted(self, in_progress: bool) -> tuple[int, ...]:
        """The seats shown as winning: the winners of a finished game, the leaders of a game
        still being played once a round is scored, nobody in a game stopped early."""
        if self.finished:
            return self.winners
        return self.leaders if in_progress and self.rows else ()

    def totals_before(self, round_number: int) -> tuple[int, ...]:
        """The running totals by seat before round ``round_number`` (up to the next round)."""
        if not (_is_int(round_number) and 1 <= round_number <= len(self.rows) + 1):
            raise RulesError(
                [
                    Problem(
                        ProblemCode.ROUND_NUMBER_OUT_OF_RANGE,
                        "round_number",
                        values={
                            "value": _shown(round_number),
                            "min": 1,
                            "max": len(self.rows) + 1,
                        },
                    )
                ]
            )
        if round_number == 1:
            return (0,) * self.players
        return tuple(cell.total for cell in self.rows[round_number - 2].cells)


def rank(totals: Sequence[int]) -> tuple[int, ...]:
    """Competition ranks by seat: 1 is best, tied players share a rank (1, 2, 2, 4)."""
    return tuple(1 + sum(other > total for other in totals) for total in totals)


def standings(ranks: Sequence[int]) -> tuple[int, ...]:
    """Seats from first place down, given their ranks; tied players keep seat order."""
    return tuple(sorted(range(len(ranks)), key=lambda seat: (ranks[seat], seat)))


def _best(seats: Iterable[int], key: Sequence[int]) -> tuple[int, ...]:
    seats = tuple(seats)
    top = max(key[seat] for seat in seats)
    return tuple(seat for seat in seats if key[seat] == top)


def _tie_broken(
    tie_break: TieBreak, leaders: tuple[int, ...], bid_sums: Sequence[int], bids_met: Sequence[int]
) -> tuple[int, ...]:
    """The winners among the leaders: all of them, or those best on the tie-break."""
    if tie_break is TieBreak.BID_SUM:
        return _best(leaders, bid_sums)
    if tie_break is TieBreak.BIDS_MET:
        return _best(leaders, bids_met)
    return leaders


def _round_shape_problem(record: RoundRecord, players: int) -> Problem:
    values = {"bids": len(record.bids), "tricks": len(record.tricks), "players": players}
    return Problem(ProblemCode.ROUND_SHAPE, "round", values=values)


def _record_problems(rules: GameRules, record: RoundRecord, expected: int) -> list[Problem]:
    players = rules.players
    number = record.number
    found: list[Problem] = []
    if number != expected:
        found.append(
            Problem(
                ProblemCode.ROUND_OUT_OF_SEQUENCE,
                "round_number",
                values={"value": _shown(number), "expected": expected},
            )
        )
    if len(record.bids) != players or len(record.tricks) != players:
        found.append(_round_shape_problem(record, players))
        return [dataclasses.replace(problem, round_number=number) for problem in found]
    found.extend(_dealer_problems(rules, record.dealer))
    if not found:
        saboteur_dealer = record.dealer if rules.saboteur else None
        found.extend(
            Problem(ProblemCode.BID_MISSING, "bid", seat)
            for seat, bid in enumerate(record.bids)
            if bid is None and seat != saboteur_dealer
        )
    return [dataclasses.replace(problem, round_number=number) for problem in found]


def score_sheet(rules: GameRules, rounds: Sequence[RoundRecord]) -> ScoreSheet:
    """The score sheet for the rounds played so far (given in round order).

    Each bid met exactly scores 20 + 10 per trick, a missed bid −10 per trick of difference
    (a Cloud change counts). Totals run on; ranks share ties; the leaders have the highest
    total. After the last planned round the leaders win (sharing the win), or — with a
    tie-break — those of them with the highest sum of bids, or the most bids met, over the
    game (still sharing the win if level on that too).
    Raises :class:`RulesError` if a record is malformed (numbering, lengths, missing bid).
    """
    players = rules.players
    found: list[Problem] = []
    for expected, record in enumerate(rounds, start=1):
        found.extend(_record_problems(rules, record, expected))
    _raise_if(found)
    totals = [0] * players
    bid_sums = [0] * players
    bids_met = [0] * players
    rows: list[SheetRow] = []
    cancels = rules.jubilee.bomb_cancels_bids
    for record in rounds:
        cells: list[SheetCell] = []
        for seat in range(players):
            bid = record.bids[seat]
            effective = bid
            if record.cloud is not None and record.cloud.seat == seat:
                effective = record.cloud.new_bid
            tricks = record.tricks[seat]
            points = round_points(
                effective,
                tricks,
                saboteur_dealer=rules.saboteur and seat == record.dealer,
                bomb_cancels=cancels and record.bomb_played,
            )
            totals[seat] += points
            bid_sums[seat] += bid or 0
            made = effective is not None and effective == tricks
            bids_met[seat] += made
            cells.append(SheetCell(bid, effective, tricks, points, totals[seat], made))
        rows.append(
            SheetRow(
                record.number, record.hand_size, record.dealer, tuple(cells), record.bomb_played
            )
        )
    leaders = _best(range(players), totals)
    finished = len(rows) >= rules.round_count
    winners: tuple[int, ...] = ()
    if finished:
        winners = _tie_broken(rules.tie_break, leaders, bid_sums, bids_met)
    return ScoreSheet(
        players=players,
        rows=tuple(rows),
        totals=tuple(totals),
        ranks=rank(totals),
        leaders=leaders,
        bid_sums=tuple(bid_sums),
        finished=finished,
        winners=winners,
        bids_met=tuple(bids_met),
    )


def validate_round(
    rules: GameRules, record: RoundRecord, totals_before: Sequence[int]
) -> tuple[Problem, ...]:
    """Check one round as it is about to be stored: its bids, the Cloud change and the tricks.

    Combines :func:`validate_bids`, :func:`validate_cloud` (only with the Cloud in play) and
    :func:`validate_tricks`; the Cloud's holder won the Cloud's trick, so took at least one.
    Every problem carries the round number.
    """
    players = rules.players
    found: list[Problem] = []
    if len(record.bids) != players or len(record.tricks) != players:
        found.append(_round_shape_problem(record, players))
    else:
        top = rules.max_hand_size
        if not (_is_int(record.hand_size) and 1 <= record.hand_size <= top):
            found.append(
                Problem(
                    ProblemCode.HAND_SIZE_OUT_OF_RANGE,
                    "hand_size",
                    values={"value": _shown(record.hand_size), "min": 1, "max": top},
                )
            )
            if not _is_int(record.hand_size):
                # Bids and tricks are checked against the cards: without a number, they cannot.
                return tuple(dataclasses.replace(p, round_number=record.number) for p in found)
        bids = dict(enumerate(record.bids))
        found.extend(
            validate_bids(
                rules, record.number, record.hand_size, record.dealer, bids, totals_before
            )
        )
        cloud_ok = False
        if record.cloud is not None:
            if not rules.jubilee.cloud:
                found.append(Problem(ProblemCode.CLOUD_NOT_IN_PLAY, "cloud"))
            else:
                cloud = validate_cloud(
                    record.hand_size, bids, record.cloud.seat, record.cloud.new_bid
                )
                found.extend(cloud)
                cloud_ok = not cloud
        found.extend(
            validate_tricks(
                rules, record.hand_size, dict(enumerate(record.tricks)), record.bomb_played
            )
        )
        if cloud_ok and record.tricks[record.cloud.seat] == 0:
            # The Cloud goes to whoever won its trick: they took one trick at least.
            found.append(Problem(ProblemCode.CLOUD_HOLDER_NO_TRICK, "tricks", record.cloud.seat))
    return tuple(dataclasses.replace(problem, round_number=record.number) for problem in found)


def flagged_rounds(
    rules: GameRules, rounds: Sequence[RoundRecord], sheet: ScoreSheet | None = None
) -> tuple[Problem, ...]:
    """Recorded rounds whose bids no longer pass the bid rule, with the totals as they are now.

    After a correction the running totals before later rounds change, so the Canadian rule
    may bind a different player. Such rounds are reported (each problem carries its round
    number), never rewritten. ``sheet``: these rounds' score sheet, when the caller has it.
    """
    if sheet is None:
        sheet = score_sheet(rules, rounds)
    found: list[Problem] = []
    for record in rounds:
        problems = validate_bids(
            rules,
            record.number,
            record.hand_size,
            record.dealer,
            dict(enumerate(record.bids)),
            sheet.totals_before(record.number),
        )
        found.extend(
            dataclasses.replace(problem, round_number=record.number) for problem in problems
        )
    return tuple(found)


# --------------------------------------------------------------------------------------------
# The rest of the game as tables, for the table phone while the server cannot be reached
# --------------------------------------------------------------------------------------------


class OfflineUnavailable(StrEnum):
    """Why a game's rounds cannot be checked on the phone alone: the server must see them."""

    SEALED_BIDS = "sealed_bids"  # hidden or secret bids are sealed by the server
    JUBILEE_CARDS = "jubilee_cards"  # the Bomb, Cloud or Werewolf change a round's shape


@dataclass(frozen=True)
class OfflineRound:
    """One round still to play, as the table phone needs it without the server.

    ``forbidden`` is the last bidder's forbidden bid looked up by the sum of the earlier
    bids (index 0 … cards; ``None``: any bid; a sum past the end forbids nothing);
    ``leader_only``: the Canadian rules, where it binds only when the last bidder is alone
    in the lead before the round. ``trump`` lists each cause with the trumps it permits;
    ``trump_automatic``: nothing is asked (the server fills it in).
    """

    number: int
    hand_size: int
    dealer: int
    bid_order: tuple[int, ...]
    play_order: tuple[int, ...]
    trump: tuple[tuple[TrumpCause, tuple[Suit | None, ...]], ...]
    trump_automatic: bool
    forbidden: tuple[int | None, ...]
    leader_only: bool
    required_tricks: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with short keys (it travels to the phone with every table page)."""
        data: dict[str, Any] = {
            "n": self.number,
            "cards": self.hand_size,
            "dealer": self.dealer,
            "order": list(self.bid_order),
            "trump": [
                [str(cause), [None if suit is None else str(suit) for suit in suits]]
                for cause, suits in self.trump
            ],
            "tricks": self.required_tricks,
        }
        if self.play_order != self.bid_order:
            data["play"] = list(self.play_order)  # Saboteur: the dealer plays, not bids
        if self.trump_automatic:
            data["auto"] = True
        if any(value is not None for value in self.forbidden):
            data["forbid"] = list(self.forbidden)
            if self.leader_only:
                data["leader"] = True
        return data


@dataclass(frozen=True)
class OfflinePlan:
    """The rest of a game as lookup tables: its rounds from the one being played, and the
    points of every bid and tricks pair (``points[bid][tricks]``). ``unavailable`` says why
    the phone cannot keep rounds on its own (then there are no rounds)."""

    rounds: tuple[OfflineRound, ...]
    points: tuple[tuple[int, ...], ...]
    dealer_points: int | None = None
    jester_bid: bool = False
    unavailable: OfflineUnavailable | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data for the table phone's script."""
        if self.unavailable is not None:
            return {"unavailable": str(self.unavailable)}
        data: dict[str, Any] = {
            "rounds": [round_.to_dict() for round_ in self.rounds],
            "points": [list(row) for row in self.points],
        }
        if self.dealer_points is not None:
            data["dealer_points"] = self.dealer_points
        if self.jester_bid:
            data["jester_bid"] = True
        return data


def offline_unavailable(rules: GameRules) -> OfflineUnavailable | None:
    """Why a game's rounds cannot be kept on the table phone and sent later (``None``: they
    can): what :func:`offline_plan` says, and what the kept-round write path refuses on."""
    if rules.bid_reveal is not BidReveal.OPEN:
        return OfflineUnavailable.SEALED_BIDS
    cards = rules.jubilee
    if cards.bomb or cards.cloud or cards.werewolf:
        return OfflineUnavailable.JUBILEE_CARDS
    return None


def _earlier_bids(earlier: Sequence[int], total: int, hand_size: int) -> dict[int, int]:
    """Bids of the earlier bidders adding up to ``total`` (each within 0 … cards)."""
    bids = {}
    for seat in earlier:
        bids[seat] = min(total, hand_size)
        total -= bids[seat]
    return bids


def _forbidden_table(
    rules: GameRules, number: int, hand_size: int, dealer: int
) -> tuple[int | None, ...]:
    """:func:`forbidden_bid` for every sum of the earlier bids, with the last bidder alone
    in the lead (what the Canadian rules ask before they bind)."""
    *earlier, last = bid_order(rules, dealer)
    leading = tuple(1 if seat == last else 0 for seat in range(rules.players))
    table = []
    for total in range(hand_size + 1):
        bids = _earlier_bids(earlier, total, hand_size)
        forbidden = forbidden_bid(rules, number, hand_size, dealer, bids, leading)
        table.append(None if forbidden is None else forbidden.value)
    return tuple(table)


def offline_plan(rules: GameRules, round_number: int, dealer: int) -> OfflinePlan:
    """The rounds from ``round_number`` (the one being played, dealt by ``dealer``) to the
    end, as tables the table phone looks up while the server cannot be reached.

    Each round has its cards, dealer (the deal passes on clockwise), bid order, trump
    choice, the tricks to give out and the last bidder's forbidden bid for every sum of the
    earlier bids (from :func:`forbidden_bid`); the points of every bid and tricks pair come
    from :func:`round_points`. Hidden or secret bids and the Bomb, Cloud and Werewolf need
    the server: the plan then says so and has no rounds.
    """
    unavailable = offline_unavailable(rules)
    if unavailable is not None:
        return OfflinePlan((), (), unavailable=unavailable)
    top = rules.max_hand_size
    points = tuple(
        tuple(round_points(bid, tricks) for tricks in range(top + 1)) for bid in range(top + 1)
    )
    rounds = []
    for number in range(round_number, rules.round_count + 1):
        cards = hand_size(rules, number)
        choice = trump_choice(rules, number, cards)
        rounds.append(
            OfflineRound(
                number=number,
                hand_size=cards,
                dealer=dealer,
                bid_order=bid_order(rules, dealer),
                play_order=play_order(dealer, rules.players),
                trump=choice.options,
                trump_automatic=choice.automatic is not None,
                forbidden=_forbidden_table(rules, number, cards, dealer),
                leader_only=rules.bid_rule is not BidRule.PLUS_MINUS_ONE,
                required_tricks=required_trick_total(cards, False),
            )
        )
        dealer = next_seat(dealer, rules.players)
    return OfflinePlan(
        tuple(rounds),
        points,
        dealer_points=round_points(None, 0, saboteur_dealer=True) if rules.saboteur else None,
        jester_bid=rules.jester_bid,
    )
