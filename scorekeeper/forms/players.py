"""The roster's forms: rename a player, merge them into another, undo a change."""

from __future__ import annotations

from collections.abc import Sequence

from wtforms import HiddenField, StringField
from wtforms.validators import ValidationError

from ..i18n import lazy_gettext as _l
from .base import KEY_CHECKS, Form, SelectField, new_request_key, whole_number
from .setup import NAME_MAX_LENGTH, clean_name, name_problem


class RosterForm(Form):
    """A roster change: one key per rendered form, so a double tap does it once."""

    request_key = HiddenField(default=new_request_key, validators=KEY_CHECKS)


class RenameForm(RosterForm):
    name = StringField(
        _l("New name"),
        filters=[lambda value: value or ""],
        render_kw={"maxlength": NAME_MAX_LENGTH, "autocomplete": "off"},
    )

    def validate_name(self, field: StringField) -> None:
        # The same rules as a name typed at setup.
        if problem := name_problem(clean_name(field.data)):
            raise ValidationError(problem)


class MergeForm(RosterForm):
    into = SelectField(_l("Merge into"), validate_choice=False)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.into_id: int | None = None

    def set_players(self, players: Sequence[tuple[int, str]]) -> None:
        """The players this one may be merged into (id, name), in name order."""
        self.into.choices = [("", _l("Choose a player")), *((str(i), n) for i, n in players)]

    def validate_into(self, field: SelectField) -> None:
        chosen = whole_number(field.data, 1)
        offered = {value for value, _label in field.choices or () if value}
        if chosen is None or str(chosen) not in offered:
            raise ValidationError(_l("Choose the player to merge into."))
        self.into_id = chosen


class UndoForm(RosterForm):
    """A button: the change to undo is in the address."""
