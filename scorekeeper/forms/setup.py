"""Setting up a game: players in seat order, the first dealer and the rules."""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from wtforms import (
    BooleanField,
    Field,
    HiddenField,
    RadioField,
    SelectMultipleField,
    StringField,
)
from wtforms.validators import ValidationError
from wtforms.widgets import CheckboxInput, ListWidget

from .. import rules
from ..i18n import gettext as _
from ..models import name_key
from .base import KEY_CHECKS, Form, new_request_key, whole_number

NAME_MAX_LENGTH = 40
RANDOM_DEALER = "random"
DEFAULT_FIRST_ROUNDS = "5"

# The parts of the setup page that show messages, top to bottom, and the fields of each.
SECTIONS: dict[str, tuple[str, ...]] = {
    "seats": ("seats",),
    "new_name": ("new_name",),
    "first_dealer": ("first_dealer",),
    "plan": ("plan", "plan_rounds", "plan_custom"),
    "bid_rule": ("bid_rule", "bid_rule_from"),
    "bid_reveal": ("bid_reveal",),
    "variants": ("saboteur", "jester_bid", "tie_break"),
    "jubilee": ("bomb", "bomb_cancels_bids", "cloud", "werewolf", "dragon_fairy"),
    "table_notes": ("table_notes",),
    "form": ("form",),
}


def clean_name(name: str) -> str:
    """A typed name as it is stored: surrounding spaces dropped, inner runs of spaces single,
    accents composed (NFC)."""
    return unicodedata.normalize("NFC", " ".join(name.split()))


def has_control_characters(name: str) -> bool:
    """Whether a name holds characters nobody can type or see (NUL, escapes, …)."""
    return any(unicodedata.category(char) in ("Cc", "Cs", "Cn") for char in name)


def name_problem(name: str) -> str | None:
    """What is wrong with a cleaned name as a player's name (setup and rename alike), or None."""
    if not name:
        return _("Type a name first.")
    if has_control_characters(name):
        return _("A name can only hold letters, digits and signs.")
    # The roster's key too: case folding can lengthen a name ("ﬃ" folds to "ffi").
    if len(name) > NAME_MAX_LENGTH or len(name_key(name)) > NAME_MAX_LENGTH:
        return _("A name has at most %(max)d characters.", max=NAME_MAX_LENGTH)
    return None


class SeatListField(Field):
    """The players' names in seat order, posted as one hidden input per seat."""

    data: list[str]

    def process_data(self, value: object) -> None:
        self.data = list(value) if isinstance(value, list | tuple) else []

    def process_formdata(self, valuelist: list[Any]) -> None:
        self.data = [str(value) for value in valuelist]


class MultiCheckboxField(SelectMultipleField):
    """Several choices as a list of checkboxes."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


def choices_of(game_rules: rules.GameRules) -> dict[str, Any]:
    """The setup form's values that choose ``game_rules`` (a new game starts from the rules
    of the last one: a club plays the same way every week)."""
    plan = game_rules.plan
    cards = game_rules.jubilee
    return {
        "plan": plan.kind.value,
        "plan_rounds": str(plan.rounds) if plan.rounds is not None else DEFAULT_FIRST_ROUNDS,
        "plan_custom": ", ".join(str(size) for size in plan.custom),
        "bid_rule": game_rules.bid_rule.value,
        "bid_rule_from": str(game_rules.bid_rule_from),
        "bid_reveal": game_rules.bid_reveal.value,
        "saboteur": game_rules.saboteur,
        "jester_bid": game_rules.jester_bid,
        "tie_break": game_rules.tie_break.value,
        "bomb": cards.bomb,
        "bomb_cancels_bids": cards.bomb_cancels_bids,
        "cloud": cards.cloud,
        "werewolf": cards.werewolf,
        "dragon_fairy": cards.dragon and cards.fairy,
        "table_notes": list(game_rules.table_notes),
    }


class MoreRulesFields(Form):
    """The rules beyond the plan and the bid rule, as the setup page asks them: how bids
    are made, the tie-break and the Jubilee cards. A paper sheet's form asks them too."""

    bid_reveal = RadioField(
        choices=[reveal.value for reveal in rules.BidReveal], default=rules.BidReveal.OPEN.value
    )
    tie_break = RadioField(
        choices=[kind.value for kind in rules.TieBreak], default=rules.TieBreak.BID_SUM.value
    )
    bomb = BooleanField()
    bomb_cancels_bids = BooleanField()
    cloud = BooleanField()
    werewolf = BooleanField()
    dragon_fairy = BooleanField()

    def jubilee_cards(self) -> rules.JubileeCards:
        """The Jubilee cards chosen (the Dragon and the Fairy together)."""
        dragon_fairy = bool(self.dragon_fairy.data)
        return rules.JubileeCards(
            bomb=bool(self.bomb.data),
            cloud=bool(self.cloud.data),
            werewolf=bool(self.werewolf.data),
            dragon=dragon_fairy,
            fairy=dragon_fairy,
            # The house rule is about the Bomb: without the Bomb it has no meaning.
            bomb_cancels_bids=bool(self.bomb.data and self.bomb_cancels_bids.data),
        )

    def messages_for(self, section: str) -> Sequence[str]:
        """Every message for one section of the page: its fields' errors and rule problems."""
        found = self.messages()
        return [text for name in SECTIONS.get(section, ()) for text in found.get(name, ())]


class NewGameForm(MoreRulesFields):
    """Setting up a game: players in seat order, the first dealer and the rules.

    The seat list lives in the form (hidden inputs), so every seat control is a submit
    button of this one form: ``action`` is "add", "add:<name>", "up:<seat>", "down:<seat>",
    "remove:<seat>" or "start". Only "start" creates anything.
    """

    # Rule problems about the players or the Jubilee cards show at those inputs.
    PROBLEM_FIELDS: ClassVar[Mapping[str, str]] = {"players": "seats", "jubilee": "bomb"}

    action = StringField()
    # One key per setup: a second tap on "Start game" finds the game the first one created.
    request_key = HiddenField(default=new_request_key, validators=KEY_CHECKS)
    seats = SeatListField()
    new_name = StringField(filters=[lambda value: value or ""])
    first_dealer = StringField(default=RANDOM_DEALER)
    plan = RadioField(
        choices=[kind.value for kind in rules.PlanKind], default=rules.PlanKind.STANDARD.value
    )
    plan_rounds = StringField(default=DEFAULT_FIRST_ROUNDS)
    plan_custom = StringField()
    # An empty instance starts from the official rules: free bids, the US tie-break.
    bid_rule = RadioField(
        choices=[rule.value for rule in rules.BidRule], default=rules.BidRule.FREE.value
    )
    bid_rule_from = StringField(default="1")
    saboteur = BooleanField()
    jester_bid = BooleanField()
    table_notes = MultiCheckboxField(choices=list(rules.TABLE_ONLY_RULES))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # After a name was added the cursor goes back to the name box for the next one.
        self.focus_name = False

    def problem_key(self, problem: rules.Problem) -> str:
        key = super().problem_key(problem)
        return key if key in self else "form"

    # -- seat controls ------------------------------------------------------------------------

    def add_player(self, typed: str, roster: dict[str, str]) -> bool:
        """Seat one more player; ``roster`` maps name keys to roster names.

        A name that matches a roster name ignoring case and spaces is that roster player.
        Returns False (with the reason under "new_name") when the name cannot be seated.
        """
        name = clean_name(typed)
        seated = {name_key(seat): seat for seat in self.seats.data}
        if problem := name_problem(name):
            self.add_message("new_name", problem)
        elif name_key(name) in seated:
            self.add_message(
                "new_name", _("%(name)s is already at the table.", name=seated[name_key(name)])
            )
        elif len(self.seats.data) >= rules.MAX_PLAYERS:
            self.add_message(
                "new_name", _("A table has at most %(max)d players.", max=rules.MAX_PLAYERS)
            )
        else:
            self.seats.data.append(roster.get(name_key(name), name))
            return True
        return False

    def move_player(self, seat: int, step: int) -> None:
        """Swap a player with their neighbour (``step`` −1: up, +1: down); the dealer follows."""
        names = self.seats.data
        other = seat + step
        if not (0 <= seat < len(names) and 0 <= other < len(names)):
            return
        names[seat], names[other] = names[other], names[seat]
        dealer = self.chosen_dealer()
        if dealer == seat:
            self.first_dealer.data = str(other)
        elif dealer == other:
            self.first_dealer.data = str(seat)

    def remove_player(self, seat: int) -> None:
        """Take a player off the table; a chosen dealer stays the same person."""
        names = self.seats.data
        if not 0 <= seat < len(names):
            return
        del names[seat]
        dealer = self.chosen_dealer()
        if dealer == seat:
            self.first_dealer.data = RANDOM_DEALER
        elif dealer is not None and dealer > seat:
            self.first_dealer.data = str(dealer - 1)

    def chosen_dealer(self) -> int | None:
        """The seat picked to deal first, or None for "draw at random" (or nothing valid)."""
        if not self.seats.data:
            return None
        return whole_number(self.first_dealer.data, 0, len(self.seats.data) - 1)

    # -- validation ---------------------------------------------------------------------------

    def validate_seats(self, field: SeatListField) -> None:
        seen: set[str] = set()
        for name in (clean_name(value) for value in field.data):
            if not name:
                raise ValidationError(_("A player has no name."))
            if problem := name_problem(name):
                raise ValidationError(problem)
            if name_key(name) in seen:
                raise ValidationError(_("%(name)s is at the table twice.", name=name))
            seen.add(name_key(name))

    def validate_first_dealer(self, field: StringField) -> None:
        if field.data != RANDOM_DEALER and self.chosen_dealer() is None:
            raise ValidationError(_("Choose who deals first."))

    def names(self) -> list[str]:
        """The players' names in seat order, cleaned."""
        return [clean_name(name) for name in self.seats.data]

    def first_dealer_seat(self) -> int:
        """The seat that deals first: the one picked, or one drawn at random."""
        chosen = self.chosen_dealer()
        if chosen is not None:
            return chosen
        return secrets.randbelow(len(self.seats.data))

    def round_plan(self) -> rules.RoundPlan | None:
        """The chosen plan, or None (with a message under "plan") when a number is unreadable."""
        kind = self.plan.data
        if kind == rules.PlanKind.FIRST_N:
            text = (self.plan_rounds.data or "").strip()
            rounds = whole_number(text)
            if text and rounds is None:
                self.add_message("plan", _("Type the number of rounds, e.g. 5."))
                return None
            return rules.RoundPlan(kind=kind, rounds=rounds)
        if kind == rules.PlanKind.CUSTOM:
            words = [word for word in re.split(r"[\s,;.]+", self.plan_custom.data or "") if word]
            sizes = [whole_number(word) for word in words]
            if None in sizes:
                self.add_message(
                    "plan", _("Write the cards per round as numbers, e.g. 1, 2, 3, 5.")
                )
                return None
            return rules.RoundPlan(kind=kind, custom=tuple(sizes))
        return rules.RoundPlan(kind=kind)

    def bid_rule_threshold(self) -> int | None:
        """The hand size the bid rule starts from (1 = every round), or None (with a message
        under "bid_rule") when unreadable. Only ±1 and Canadian have one: under the other
        rules the box is ignored, as the Bomb's house rule is without the Bomb."""
        if self.bid_rule.data not in (rules.BidRule.PLUS_MINUS_ONE, rules.BidRule.CANADIAN):
            return 1
        text = (self.bid_rule_from.data or "").strip()
        if not text:
            return 1
        threshold = whole_number(text)
        if threshold is None:
            self.add_message("bid_rule", _("Type the hand size the bid rule starts from, e.g. 3."))
        return threshold

    def game_rules(self) -> rules.GameRules | None:
        """The rules chosen, checked by the rules module.

        None when something is wrong: each problem's message is then filed under the page
        section it concerns (see :meth:`messages_for`).
        """
        plan = self.round_plan()
        threshold = self.bid_rule_threshold()
        if plan is None or threshold is None:
            return None
        try:
            return rules.GameRules(
                players=len(self.seats.data),
                plan=plan,
                bid_rule=self.bid_rule.data,
                bid_reveal=self.bid_reveal.data,
                saboteur=bool(self.saboteur.data),
                jester_bid=bool(self.jester_bid.data),
                jubilee=self.jubilee_cards(),
                table_notes=tuple(self.table_notes.data or ()),
                bid_rule_from=threshold,
                tie_break=self.tie_break.data,
            )
        except rules.RulesError as error:
            self.add_problems(error.problems, self.names())
            return None

    # -- for the template ---------------------------------------------------------------------

    def first_section_with_messages(self) -> str | None:
        """The first part of the page, top to bottom, that has a message (for a link to it)."""
        return next((section for section in SECTIONS if self.messages_for(section)), None)
