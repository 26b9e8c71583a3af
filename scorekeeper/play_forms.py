"""Forms for recording rounds at the table: one class per step, all carrying the version.

Fields only parse (numbers, choices); whether a value is allowed is decided by
:mod:`scorekeeper.rules` and reported next to the field by the view.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, Field, HiddenField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

NO_TRUMP = "none"


class GameWriteForm(FlaskForm):
    """Every write names the game version it was based on and a key for this one request."""

    version = IntegerField(validators=[InputRequired(_l("The page is incomplete: reload it."))])
    request_key = HiddenField(validators=[Optional(), Length(max=64)])


class TrumpForm(GameWriteForm):
    """The card turned up: ``cause:suit``, e.g. ``suit:hearts``, ``wizard:clubs``, ``jester:``."""

    trump = StringField(
        validators=[InputRequired(_l("Choose the card turned up.")), Length(max=40)]
    )

    def cause_and_trump(self) -> tuple[str, str | None]:
        cause, _, suit = (self.trump.data or "").partition(":")
        return cause, (suit or None)


class DealerForm(GameWriteForm):
    dealer = IntegerField(validators=[InputRequired(_l("Choose the dealer."))])


class BidForm(GameWriteForm):
    seat = IntegerField(validators=[InputRequired(_l("The page is incomplete: reload it."))])
    bid = IntegerField(validators=[InputRequired(_l("Tap a bid."))])


class WerewolfForm(GameWriteForm):
    trump = StringField(validators=[InputRequired(_l("Choose the new trump.")), Length(max=16)])

    def new_trump(self) -> str | None:
        return None if self.trump.data == NO_TRUMP else self.trump.data


class LaterRoundsForm(GameWriteForm):
    """A custom plan's later rounds: hand sizes separated by commas or spaces."""

    later = StringField(validators=[Length(max=200)])

    def sizes(self) -> list[int]:
        return [int(word) for word in (self.later.data or "").replace(",", " ").split()]

    def validate_later(self, field: Field) -> None:
        words = (field.data or "").replace(",", " ").split()
        if not all(word.isdigit() for word in words):
            raise ValidationError(_l("Write the cards of each later round as numbers: 5, 6, 7."))


class PlainWriteForm(GameWriteForm):
    """A button that changes the game (undo, abandon, play again, take back a bid)."""


def seat_field(label: str) -> Field:
    return IntegerField(label, validators=[Optional()])


def seat_values(form: FlaskForm, prefix: str, players: int) -> dict[int, int | None]:
    """The per-seat numbers of a form (``bid_0``, ``tricks_2`` …) by seat."""
    return {seat: form[f"{prefix}_{seat}"].data for seat in range(players)}


def bids_form(players: int) -> GameWriteForm:
    """All bids at once (hidden or secret reveal)."""

    class BidsForm(GameWriteForm):
        pass

    for seat in range(players):
        setattr(BidsForm, f"bid_{seat}", seat_field(_l("Bid")))
    return BidsForm()


class _OutcomeFields(GameWriteForm):
    bomb = BooleanField(_l("The Bomb was played (nobody won that trick)"))
    cloud_seat = IntegerField(validators=[Optional()])
    cloud_change = IntegerField(
        validators=[Optional(), NumberRange(-1, 1, _l("The Cloud changes a bid by 1."))]
    )
    all_made = HiddenField()

    def validate(self, extra_validators: Any = None) -> bool:
        valid = super().validate(extra_validators)
        # Choosing who won the Cloud's trick without the direction would silently change nothing.
        if self.cloud_seat.data is not None and not self.cloud_change.data:
            self.cloud_change.errors = [
                *self.cloud_change.errors,
                str(_l("Choose whether the Cloud made the bid 1 more or 1 less.")),
            ]
            valid = False
        return valid


def tricks_form(players: int) -> GameWriteForm:
    """Tricks per player, and what the Jubilee cards did this round."""

    class TricksForm(_OutcomeFields):
        pass

    for seat in range(players):
        setattr(TricksForm, f"tricks_{seat}", seat_field(_l("Tricks")))
    return TricksForm()


def edit_round_form(players: int) -> GameWriteForm:
    """A whole past round: trump, bids, tricks, Cloud and Bomb."""

    class EditRoundForm(_OutcomeFields):
        trump = StringField(validators=[Optional(), Length(max=40)])

    for seat in range(players):
        setattr(EditRoundForm, f"bid_{seat}", seat_field(_l("Bid")))
        setattr(EditRoundForm, f"tricks_{seat}", seat_field(_l("Tricks")))
    return EditRoundForm()
