"""Paper sheets: the players and rules of a sheet to print, and a finished sheet to enter.

Both pages ask the same things first — the players in seat order, who dealt first, the
round plan and the bid rule — so both forms share :class:`SheetSetupForm`. The grid of a
finished sheet (a bid and tricks per player and round, a trump per round) has as many
cells as the plan has rounds, so it is read by :meth:`PaperGameForm.cells` from the posted
data rather than declared field by field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from wtforms import BooleanField, HiddenField, StringField
from wtforms.fields import DateField, TimeField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from .. import rules
from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from ..models import name_key
from ..wording import messages
from .base import KEY_CHECKS, SelectField, new_request_key, whole_number
from .setup import MoreRulesFields, clean_name, name_problem

SEATS = range(1, rules.MAX_PLAYERS + 1)
# A seat as the grid's controls post it (0-based).
SEAT_INDEXES = range(rules.MAX_PLAYERS)
# Plans a paper sheet can follow (a custom plan needs its list of cards, Maximus its 5 deals:
# both are as easy to write down, so all are offered).
PLAN_KINDS = tuple(rules.PlanKind)
DEFAULT_ROUNDS = "5"
# The most rounds a custom plan on paper may have (a sheet's grid is one page of the form).
MAX_CUSTOM_ROUNDS = 60
# What a trump cell may say: not noted, a suit, or no trump.
NOT_NOTED = ""
NO_TRUMP = "none"
TRUMP_CHOICES = (NOT_NOTED, *(suit.value for suit in rules.SUIT_ORDER), NO_TRUMP)


def cell_name(kind: str, number: int, seat: int) -> str:
    """The name of one cell of the grid: ``bid_3_0`` is seat 0's bid in round 3."""
    return f"{kind}_{number}_{seat}"


def trump_name(number: int) -> str:
    return f"trump_{number}"


def dealer_name(number: int) -> str:
    """The name of a round's dealer control (the dealer changed at the table, if so)."""
    return f"dealer_{number}"


def cloud_name(number: int) -> str:
    """The name of a round's Cloud control: who changed their bid, and which way."""
    return f"cloud_{number}"


def werewolf_name(number: int) -> str:
    """The name of a round's Werewolf control: the trump it made, if it was played."""
    return f"werewolf_{number}"


def cloud_choices(players: int) -> list[str]:
    """The values of a Cloud control: nobody, then each seat's +1 and -1 (``2:+1``)."""
    return ["", *(f"{seat}:{step:+d}" for seat in range(players) for step in (1, -1))]


def bomb_name(number: int) -> str:
    """The name of a round's "the Bomb was played" box."""
    return f"bomb_{number}"


class SheetSetupForm(MoreRulesFields):
    """The players in seat order (up to six names, the empty ones left out), the first
    dealer, the round plan and the bid rule; then, as setup asks them, how bids were made,
    the tie-break and the Jubilee cards."""

    seat_1 = StringField()
    seat_2 = StringField()
    seat_3 = StringField()
    seat_4 = StringField()
    seat_5 = StringField()
    seat_6 = StringField()
    first_dealer = SelectField(
        _l("First dealer"),
        choices=[SelectChoice(str(seat - 1), str(seat)) for seat in SEATS],
        default="0",
        validate_choice=False,
    )
    plan = SelectField(
        _l("Round plan"),
        choices=[SelectChoice(kind.value, kind.value) for kind in PLAN_KINDS],
        default=rules.PlanKind.STANDARD.value,
    )
    plan_rounds = StringField(_l("Rounds (first rounds only)"), default=DEFAULT_ROUNDS)
    plan_custom = StringField(_l("Cards per round (custom)"))
    saboteur = BooleanField()
    jester_bid = BooleanField()
    bid_rule = SelectField(
        _l("Bid rule"),
        choices=[SelectChoice(rule.value, rule.value) for rule in rules.BidRule],
        default=rules.BidRule.PLUS_MINUS_ONE.value,
    )

    # Rule problems about the players show at the first seat; the plan's at the plan.
    PROBLEM_FIELDS: ClassVar[Mapping[str, str]] = {"players": "seat_1", "jubilee": "bomb"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for seat in SEATS:
            self[f"seat_{seat}"].label.text = _("Seat %(number)d", number=seat)
        self.saboteur.label.text = messages.variant_label("saboteur")
        self.jester_bid.label.text = messages.variant_label("jester_bid")
        self.first_dealer.choices = [
            SelectChoice(str(seat - 1), _("Seat %(number)d", number=seat)) for seat in SEATS
        ]
        self.plan.choices = [
            SelectChoice(kind.value, messages.plan_label(kind)) for kind in PLAN_KINDS
        ]
        self.bid_rule.choices = [
            SelectChoice(rule.value, messages.bid_rule_label(rule)) for rule in rules.BidRule
        ]

    def problem_key(self, problem: rules.Problem) -> str:
        key = super().problem_key(problem)
        return key if key in self else "plan" if key.startswith("plan") else "form"

    def seat_fields(self) -> list[StringField]:
        return [self[f"seat_{seat}"] for seat in SEATS]

    def names(self) -> list[str]:
        """The names typed, in seat order, the empty seats left out."""
        return [name for name in (clean_name(f.data or "") for f in self.seat_fields()) if name]

    def validate(self, extra_validators: Any = None) -> bool:
        """The fields' own checks, then the names: each under its seat (every field's
        errors are reset when it validates, so the seats are checked after all of them)."""
        valid = super().validate(extra_validators)
        seen: set[str] = set()
        for seat_field in self.seat_fields():
            name = clean_name(seat_field.data or "")
            if not name:
                continue
            if problem := name_problem(name):
                seat_field.errors = [*seat_field.errors, problem]
            elif name_key(name) in seen:
                seat_field.errors = [
                    *seat_field.errors,
                    _("%(name)s is at the table twice.", name=name),
                ]
            seen.add(name_key(name))
        if len(self.names()) < rules.MIN_PLAYERS:
            self.seat_1.errors = [
                *self.seat_1.errors,
                _("Name at least %(min)d players, in seat order.", min=rules.MIN_PLAYERS),
            ]
        return valid and not any(f.errors for f in self.seat_fields())

    def dealer_seat(self) -> int | None:
        """The seat that dealt first, when it is one of the named players."""
        return whole_number(self.first_dealer.data, 0, len(self.names()) - 1)

    def round_plan(self) -> rules.RoundPlan | None:
        kind = self.plan.data
        if kind == rules.PlanKind.FIRST_N:
            rounds = whole_number((self.plan_rounds.data or "").strip())
            if rounds is None:
                self.add_message("plan", _("Type the number of rounds, e.g. 5."))
                return None
            return rules.RoundPlan(kind=kind, rounds=rounds)
        if kind == rules.PlanKind.CUSTOM:
            words = (self.plan_custom.data or "").replace(",", " ").replace(";", " ").split()
            if len(words) > MAX_CUSTOM_ROUNDS:
                self.add_message(
                    "plan", _("A plan has at most %(max)d rounds.", max=MAX_CUSTOM_ROUNDS)
                )
                return None
            sizes = [whole_number(word) for word in words]
            if not sizes or None in sizes:
                self.add_message(
                    "plan", _("Write the cards per round as numbers, e.g. 1, 2, 3, 5.")
                )
                return None
            return rules.RoundPlan(kind=kind, custom=tuple(sizes))  # type: ignore[arg-type]
        return rules.RoundPlan(kind=kind)

    def game_rules(self) -> rules.GameRules | None:
        """The rules chosen, checked by the rules module (None, with the messages on the
        form, when they cannot be played or another field is refused)."""
        sheet_rules, sound = self.checked_rules()
        return sheet_rules if sound else None

    def checked_rules(self) -> tuple[rules.GameRules | None, bool]:
        """The rules of the sheet the players and choices typed make, whatever else the
        form refuses (a name twice, an empty seat as first dealer, the date): the grid is
        still drawn for them, so nothing typed in it is lost. None when no sheet can be
        drawn (fewer than three players, a plan or rules that cannot be played); then
        whether the whole form is sound. The messages are on the form."""
        sound = self.validate()
        # A choice that is none of the options (a forged post) draws no sheet.
        chosen = (self.plan, self.bid_rule, self.bid_reveal, self.tie_break)
        if len(self.names()) < rules.MIN_PLAYERS or any(f.errors for f in chosen):
            return None, False
        if self.dealer_seat() is None:
            self.first_dealer.errors = [
                *self.first_dealer.errors,
                _("Choose who dealt first: one of the seats named above."),
            ]
            sound = False
        plan = self.round_plan()
        if plan is None:
            return None, False
        try:
            sheet_rules = rules.GameRules(
                players=len(self.names()),
                plan=plan,
                bid_rule=self.bid_rule.data,
                saboteur=bool(self.saboteur.data),
                jester_bid=bool(self.jester_bid.data),
                bid_reveal=self.bid_reveal.data,
                tie_break=self.tie_break.data,
                jubilee=self.jubilee_cards(),
            )
        except rules.RulesError as error:
            self.add_problems(error.problems, self.names())
            return None, False
        return sheet_rules, sound


class BlankSheetForm(SheetSetupForm):
    """The players and rules of a blank sheet to print (a GET: no token)."""

    class Meta:
        csrf = False


class PlayedField(DateField):
    """The day the game was played."""

    def process_formdata(self, valuelist: list[str]) -> None:
        try:
            super().process_formdata(valuelist)
        except ValueError:
            self.data = None
            raise ValueError(_("Write the date as YYYY-MM-DD, e.g. 2024-05-31.")) from None


class PlayedTimeField(TimeField):
    """The time the game began."""

    def process_formdata(self, valuelist: list[str]) -> None:
        try:
            super().process_formdata(valuelist)
        except ValueError:
            self.data = None
            raise ValueError(_("Write the time as HH:MM, e.g. 20:30.")) from None


@dataclass(frozen=True)
class RoundCells:
    """One round of the grid as typed: a bid and tricks per seat (``None``: empty or not a
    number, see ``unreadable``), and the trump noted (``""`` not noted); the dealer chosen
    when the table changed it (``None``: the deal passed on), and whether the Bomb was
    played (only read when it is in play)."""

    number: int
    bids: dict[int, int | None]
    tricks: dict[int, int | None]
    trump: str
    unreadable: frozenset[str]
    dealer: int | None = None
    bomb_played: bool = False
    cloud: tuple[int, int] | None = None
    werewolf: str | None = None


class PaperGameForm(SheetSetupForm):
    """A game played on paper: who, when and under which rules, then the grid."""

    action = StringField()
    request_key = HiddenField(default=new_request_key, validators=KEY_CHECKS)
    played_on = PlayedField(
        _l("Played on"), validators=[InputRequired(_l("Give the day the game was played."))]
    )
    played_at = PlayedTimeField(
        _l("Began at"),
        validators=[InputRequired(_l("Give the time the game began."))],
        format="%H:%M",
    )

    def played(self, zone: ZoneInfo) -> datetime | None:
        """When the game began, as a UTC time (the day and time are the viewer's, in
        ``zone``: a zoneinfo zone, which gives the offset in force on that day)."""
        day: date | None = self.played_on.data
        clock: time | None = self.played_at.data
        if day is None or clock is None:
            return None
        return datetime.combine(day, clock, tzinfo=zone).astimezone(UTC)

    def cells(self, game_rules: rules.GameRules, posted: Mapping[str, str]) -> list[RoundCells]:
        """The grid as posted, one entry per round of the plan."""
        found = []
        for number in range(1, game_rules.round_count + 1):
            bids: dict[int, int | None] = {}
            tricks: dict[int, int | None] = {}
            unreadable = set()
            for seat in range(game_rules.players):
                for kind, into in (("bid", bids), ("tricks", tricks)):
                    name = cell_name(kind, number, seat)
                    text = (posted.get(name) or "").strip()
                    into[seat] = whole_number(text, 0, 99) if text else None
                    if text and into[seat] is None:
                        unreadable.add(name)
            trump = posted.get(trump_name(number)) or NOT_NOTED
            # Any seat of the table (a value that is none is the deal passing on).
            dealer = whole_number(posted.get(dealer_name(number)), 0, game_rules.players - 1)
            cloud = posted.get(cloud_name(number)) or ""
            werewolf = posted.get(werewolf_name(number)) or NOT_NOTED
            found.append(
                RoundCells(
                    number,
                    bids,
                    tricks,
                    trump if trump in TRUMP_CHOICES else NOT_NOTED,
                    frozenset(unreadable),
                    dealer if number > 1 else None,
                    game_rules.jubilee.bomb and bool(posted.get(bomb_name(number))),
                    _cloud(cloud) if game_rules.jubilee.cloud else None,
                    werewolf
                    if game_rules.jubilee.werewolf and werewolf in TRUMP_CHOICES[1:]
                    else None,
                )
            )
        return found


def _cloud(value: str) -> tuple[int, int] | None:
    """A Cloud control's value (``2:+1``) as (seat, step); None for nobody or anything else."""
    seat, _, step = value.partition(":")
    number = whole_number(seat, 0, rules.MAX_PLAYERS - 1)
    if number is None or step not in ("+1", "-1"):
        return None
    return number, int(step)
