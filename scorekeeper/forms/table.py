"""Forms for recording rounds at the table: one class per step, all carrying the version.

Fields only parse (numbers, choices); whether a value is allowed is decided by
:mod:`scorekeeper.rules` and reported next to the field by the view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wtforms import BooleanField, Field, HiddenField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from .. import rules
from ..changes import SavedOutcome
from ..i18n import lazy_gettext as _l
from ..models import Round
from .base import KEY_CHECKS, Form, WholeNumberField, seat_field_name, whole_number

NO_TRUMP = "none"


class GameWriteForm(Form):
    """Every write names the game version it was based on and a key for this one request."""

    version = WholeNumberField(
        low=1, validators=[InputRequired(_l("The page is incomplete: reload it."))]
    )
    request_key = HiddenField(validators=KEY_CHECKS)


class TrumpForm(GameWriteForm):
    """The card turned up: ``cause:suit``, e.g. ``suit:hearts``, ``wizard:clubs``, ``jester:``."""

    trump = StringField(
        validators=[InputRequired(_l("Choose the card turned up.")), Length(max=40)]
    )

    def cause_and_trump(self) -> tuple[str | None, str | None]:
        return split_trump(self.trump.data)


def split_trump(value: str | None) -> tuple[str | None, str | None]:
    """``cause:suit`` as posted by a trump button or option, e.g. ``wizard:clubs``."""
    cause, _, suit = (value or "").partition(":")
    return (cause or None), (suit or None)


def trump_value(cause: object, trump: object) -> str:
    """The posted value of a trump button or option: ``cause:suit`` (``jester:``)."""
    return f"{cause or ''}:{trump or ''}"


class DealerForm(GameWriteForm):
    dealer = WholeNumberField(validators=[InputRequired(_l("Choose the dealer."))])


class BidForm(GameWriteForm):
    seat = WholeNumberField(validators=[InputRequired(_l("The page is incomplete: reload it."))])
    bid = WholeNumberField(validators=[InputRequired(_l("Tap a bid."))])


class ChangeBidForm(GameWriteForm):
    """A bid already made, changed: the seat is the address's, the new bid the button's."""

    bid = WholeNumberField(validators=[InputRequired(_l("Tap a bid."))])


class SeatBidForm(GameWriteForm):
    """A bid from a player's own phone: the seat is the link's, never a field."""

    round = WholeNumberField(
        low=1, validators=[InputRequired(_l("The page is incomplete: reload it."))]
    )
    bid = WholeNumberField(validators=[InputRequired(_l("Tap a bid."))])


class SeatLinksForm(Form):
    """New links for the players' own phones: every seat, or the one chosen."""

    seat = WholeNumberField(validators=[Optional()], high=rules.MAX_PLAYERS - 1)


class WerewolfForm(GameWriteForm):
    trump = StringField(validators=[InputRequired(_l("Choose the new trump.")), Length(max=16)])

    def new_trump(self) -> str | None:
        return None if self.trump.data == NO_TRUMP else self.trump.data


class LaterRoundsForm(GameWriteForm):
    """A custom plan's later rounds: hand sizes separated by commas or spaces."""

    later = StringField(validators=[Length(max=200)])

    def show_later(self, sizes: Sequence[int]) -> None:
        """Fill the field with the later rounds' hand sizes as they are now."""
        self.later.data = ", ".join(str(size) for size in sizes)

    def sizes(self) -> list[int]:
        return [whole_number(word) for word in (self.later.data or "").replace(",", " ").split()]

    def validate_later(self, field: Field) -> None:
        words = (field.data or "").replace(",", " ").split()
        if not field.raw_data:
            # An empty box ends the game after this round; a missing one is a broken page.
            raise ValidationError(_l("The page is incomplete: reload it."))
        if not all(whole_number(word) is not None for word in words):
            raise ValidationError(_l("Write the cards of each later round as numbers: 5, 6, 7."))


class PlainWriteForm(GameWriteForm):
    """A button that changes the game (undo, abandon, play again, take back a bid)."""


def seat_field(label: str) -> Field:
    return WholeNumberField(label, validators=[Optional()])


def seat_values(form: Form, kind: str, players: int) -> dict[int, int | None]:
    """The per-seat numbers of a form (``bid_0``, ``tricks_2`` …) by seat."""
    return {seat: form[seat_field_name(kind, seat)].data for seat in range(players)}


def bids_form(players: int) -> GameWriteForm:
    """All bids at once (hidden or secret reveal)."""

    class BidsForm(GameWriteForm):
        pass

    for seat in range(players):
        setattr(BidsForm, seat_field_name("bid", seat), seat_field(_l("Bid")))
    return BidsForm()


class _OutcomeFields(GameWriteForm):
    bomb = BooleanField(_l("The Bomb was played (nobody won that trick)"))
    cloud_seat = WholeNumberField(validators=[Optional()])
    cloud_change = WholeNumberField(
        low=-1,
        high=1,
        validators=[Optional(), NumberRange(-1, 1, _l("The Cloud changes a bid by 1."))],
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

    def outcome(
        self, bids: Mapping[int, int | None], players: int
    ) -> tuple[dict[int, int | None], rules.CloudChange | None, bool]:
        """Tricks, Cloud change and Bomb as entered, given the round's bids.

        "Everyone made their bid" gives each player their bid (the Cloud's changed one).
        """
        bomb = bool(self.bomb.data)
        cloud = None
        if self.cloud_seat.data is not None and self.cloud_change.data:
            seat = self.cloud_seat.data
            bid = bids.get(seat) if 0 <= seat < players else None
            # Without a bid there is nothing to change: the rules report the seat, not a number.
            new_bid = bid + self.cloud_change.data if bid is not None else 0
            cloud = rules.CloudChange(seat, new_bid)
        tricks = seat_values(self, "tricks", players)
        if self.all_made.data:
            tricks = {seat: bids.get(seat) or 0 for seat in range(players)}
            if cloud is not None:
                tricks[cloud.seat] = cloud.new_bid
        return tricks, cloud, bomb


def tricks_form(players: int) -> GameWriteForm:
    """Tricks per player, and what the Jubilee cards did this round."""

    class TricksForm(_OutcomeFields):
        pass

    for seat in range(players):
        setattr(TricksForm, seat_field_name("tricks", seat), seat_field(_l("Tricks")))
    return TricksForm()


def edit_round_form(players: int) -> GameWriteForm:
    """A whole past round: trump, bids, tricks, Cloud and Bomb."""

    class EditRoundForm(_OutcomeFields):
        trump = StringField(validators=[Optional(), Length(max=40)])

    for seat in range(players):
        setattr(EditRoundForm, seat_field_name("bid", seat), seat_field(_l("Bid")))
        setattr(EditRoundForm, seat_field_name("tricks", seat), seat_field(_l("Tricks")))
    return EditRoundForm()


def kept_round_form(players: int) -> GameWriteForm:
    """A round kept on the table phone while offline, sent whole: trump, bids and tricks
    (with its dealer and cards as the phone had them); ``replace``: the table chose to keep
    this round over what the round here holds."""

    class KeptRoundForm(_OutcomeFields):
        trump = StringField(validators=[Optional(), Length(max=40)])
        replace = BooleanField()
        # The round as the phone's plan had it: another dealer or hand size here is a conflict.
        dealer = WholeNumberField(validators=[Optional()], high=rules.MAX_PLAYERS - 1)
        cards = WholeNumberField(validators=[Optional()])

    for seat in range(players):
        setattr(KeptRoundForm, seat_field_name("bid", seat), seat_field(_l("Bid")))
        setattr(KeptRoundForm, seat_field_name("tricks", seat), seat_field(_l("Tricks")))
    return KeptRoundForm()


# --- what a re-shown form has chosen ---------------------------------------------------------
# The round screens show chips and buttons as chosen from one mapping of input names to
# posted text: what was posted (a refused entry comes back as it was), what an undo took
# back, or what a played round has stored (its correction page).

Choices = dict[str, Any]


def posted_choices(form: Form) -> Choices:
    """The values the form was posted with, as text, by input name."""
    return {
        field.name: field.raw_data[0]
        for field in form
        if field.raw_data and field.name not in ("csrf_token", "version", "request_key")
    }


def saved_choices(saved: SavedOutcome | None) -> Choices:
    """What the tricks step had saved before an undo took the round back."""
    if saved is None:
        return {}
    choices: Choices = {seat_field_name("tricks", s): str(v) for s, v in saved.tricks.items()}
    if saved.bomb_played:
        choices["bomb"] = "y"
    if saved.cloud_seat is not None:
        choices |= {"cloud_seat": str(saved.cloud_seat), "cloud_change": str(saved.cloud_change)}
    return choices


def round_choices(round_: Round) -> Choices:
    """What a played round has stored, for its correction page."""
    choices: Choices = {"trump": trump_value(round_.trump_cause, round_.trump)}
    if round_.bomb_played:
        choices["bomb"] = "y"
    if round_.cloud_seat is not None:
        choices["cloud_seat"] = str(round_.cloud_seat)
    for entry in round_.entries:
        for kind, value in (("bid", entry.bid), ("tricks", entry.tricks)):
            if value is not None:
                choices[seat_field_name(kind, entry.seat)] = str(value)
        if entry.cloud_bid is not None and entry.bid is not None:
            choices["cloud_change"] = str(entry.cloud_bid - entry.bid)
    return choices


def chosen_numbers(choices: Choices, kind: str, players: int) -> dict[int, int]:
    """The per-seat numbers among ``choices`` that read as small whole numbers, by seat."""
    found = {}
    for seat in range(players):
        value = whole_number(choices.get(seat_field_name(kind, seat)), 0, 99)
        if value is not None:
            found[seat] = value
    return found
