"""An event's forms: setting it up (players, table size, sessions, rules, standings), drawing
a session, swapping two players, players leaving and arriving, and the buttons."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from wtforms import HiddenField, RadioField, StringField
from wtforms.validators import ValidationError

from .. import rules
from ..events import MAX_EVENT_PLAYERS, MAX_SESSIONS
from ..i18n import gettext as _
from ..models import name_key
from ..reports import events as plan
from .base import KEY_CHECKS, Form, new_request_key, whole_number
from .history import FIRST_DAY, LAST_DAY
from .setup import SECTIONS, NewGameForm, clean_name, name_problem

EVENT_NAME_MAX_LENGTH = 80
DEFAULT_SESSIONS = "3"
DEFAULT_TABLE_SIZE = "4"

# The sections of the event page, top to bottom: the setup's rule sections after its own.
EVENT_SECTIONS: dict[str, tuple[str, ...]] = {
    "name": ("name",),
    "day": ("day",),
    "seats": ("seats",),
    "new_name": ("new_name",),
    "table_size": ("table_size",),
    "session_count": ("session_count",),
    "method": ("method",),
    **{key: fields for key, fields in SECTIONS.items() if key not in ("seats", "new_name")},
}


class NewEventForm(NewGameForm):
    """Setting up an event. The players' list works like the setup's seats (one hidden input
    per player, every control a submit button: "add", "add:<name>", "remove:<n>", "create"),
    and the rules are the setup's own fields, read for each table size."""

    name = StringField(filters=[lambda value: value or ""])
    day = StringField(default=lambda: date.today().isoformat())
    table_size = RadioField(choices=["3", "4", "5", "6"], default=DEFAULT_TABLE_SIZE)
    session_count = StringField(default=DEFAULT_SESSIONS)
    method = RadioField(choices=[m.value for m in plan.Method], default=plan.Method.PLACEMENT)
    plan = RadioField(
        choices=[kind.value for kind in rules.PlanKind], default=rules.PlanKind.TOURNAMENT.value
    )
    request_key = HiddenField(default=new_request_key, validators=KEY_CHECKS)

    def add_player(self, typed: str, roster: dict[str, str]) -> bool:
        """Add a player to the event (a roster name or a new one), as setup seats one."""
        name = clean_name(typed)
        listed = {name_key(seat): seat for seat in self.seats.data}
        if problem := name_problem(name):
            self.add_message("new_name", problem)
        elif name_key(name) in listed:
            self.add_message(
                "new_name", _("%(name)s is already at this event.", name=listed[name_key(name)])
            )
        elif len(self.seats.data) >= MAX_EVENT_PLAYERS:
            self.add_message(
                "new_name", _("An event has at most %(max)d players.", max=MAX_EVENT_PLAYERS)
            )
        else:
            self.seats.data.append(roster.get(name_key(name), name))
            return True
        return False

    def validate_name(self, field: StringField) -> None:
        text = " ".join(field.data.split())
        if not text:
            raise ValidationError(_("Give the event a name."))
        if len(text) > EVENT_NAME_MAX_LENGTH:
            raise ValidationError(
                _("A name has at most %(max)d characters.", max=EVENT_NAME_MAX_LENGTH)
            )

    def validate_day(self, field: StringField) -> None:
        if self.event_day() is None:
            raise ValidationError(_("Write the date as YYYY-MM-DD, e.g. 2024-05-31."))

    def validate_session_count(self, field: StringField) -> None:
        if whole_number(field.data, 1, MAX_SESSIONS) is None:
            raise ValidationError(
                _("Type the number of sessions, from 1 to %(max)d.", max=MAX_SESSIONS)
            )

    def validate_seats(self, field: Any) -> None:
        seen: set[str] = set()
        for name in (clean_name(value) for value in field.data):
            if problem := name_problem(name):
                raise ValidationError(problem)
            if name_key(name) in seen:
                raise ValidationError(_("%(name)s is on the list twice.", name=name))
            seen.add(name_key(name))
        if len(seen) < plan.MIN_TABLE:
            raise ValidationError(
                _(
                    "Too few players for a table: %(count)d playing, a table needs at least"
                    " %(min)d.",
                    count=len(seen),
                    min=plan.MIN_TABLE,
                )
            )
        if len(seen) > MAX_EVENT_PLAYERS:
            raise ValidationError(
                _("An event has at most %(max)d players.", max=MAX_EVENT_PLAYERS)
            )

    def event_name(self) -> str:
        return " ".join(self.name.data.split())

    def event_day(self) -> date | None:
        try:
            day = date.fromisoformat((self.day.data or "").strip())
        except ValueError:
            return None
        return day if FIRST_DAY <= day <= LAST_DAY else None

    def sessions(self) -> int:
        return whole_number(self.session_count.data, 1, MAX_SESSIONS) or 1

    def preferred_size(self) -> int:
        return whole_number(self.table_size.data, 3, 6) or 4

    def table_sizes(self) -> Sequence[int]:
        return plan.table_sizes(max(len(self.seats.data), plan.MIN_TABLE), self.preferred_size())

    def rules_template(self) -> dict[str, Any] | None:
        """The rules every table plays (without the number of players), checked for each
        table size the players split into; None with the problems filed on the page."""
        found = None
        for size in sorted(set(self.table_sizes()), reverse=True):
            found = self.rules_for(size)
            if found is None:
                return None
        return found.to_dict() if found is not None else None

    def rules_for(self, size: int) -> rules.GameRules | None:
        # The setup's rules reading counts the seats for the players: for an event it reads
        # the same choices once per table size (the list of players is put back after).
        players = self.seats.data
        self.seats.data = [""] * size
        try:
            return self.game_rules()
        finally:
            self.seats.data = players

    def messages_for(self, section: str) -> Sequence[str]:
        found = self.messages()
        return [text for name in EVENT_SECTIONS.get(section, ()) for text in found.get(name, ())]

    def first_section_with_messages(self) -> str | None:
        return next((section for section in EVENT_SECTIONS if self.messages_for(section)), None)


class EventButtonForm(Form):
    """A button of the event page (start the games, finish the event): CSRF only."""


class DrawForm(Form):
    """Draw the next session's seating; a seed typed in draws that seating again."""

    seed = StringField(filters=[lambda value: (value or "").strip()])

    def validate_seed(self, field: StringField) -> None:
        if field.data and whole_number(field.data, plan.MIN_SEED, plan.MAX_SEED) is None:
            raise ValidationError(
                _(
                    "Type a seed from %(min)d to %(max)d, or leave it empty for a new one.",
                    min=plan.MIN_SEED,
                    max=plan.MAX_SEED,
                )
            )

    def chosen_seed(self) -> int | None:
        return whole_number(self.seed.data, plan.MIN_SEED, plan.MAX_SEED)


class SwapForm(Form):
    """Swap two players of the session drawn (their ids, chosen from the seated players)."""

    first = StringField()
    second = StringField()

    def validate_first(self, field: StringField) -> None:
        if whole_number(field.data, 1) is None:
            raise ValidationError(_("Choose two players of this session."))

    def validate_second(self, field: StringField) -> None:
        if whole_number(field.data, 1) is None:
            raise ValidationError(_("Choose two players of this session."))

    def players(self) -> tuple[int, int]:
        return whole_number(self.first.data, 1) or 0, whole_number(self.second.data, 1) or 0


class ArriveForm(Form):
    """A player arriving between sessions: a roster name or a new one."""

    new_name = StringField(filters=[lambda value: value or ""])

    def validate_new_name(self, field: StringField) -> None:
        if problem := name_problem(clean_name(field.data)):
            raise ValidationError(problem)

    def typed_name(self) -> str:
        return clean_name(self.new_name.data)


class LeaveForm(Form):
    """A player leaving (or coming back) between sessions."""

    player = StringField()

    def validate_player(self, field: StringField) -> None:
        if whole_number(field.data, 1) is None:
            raise ValidationError(_("Choose a player who is still playing."))

    def player_id(self) -> int:
        return whole_number(self.player.data, 1) or 0
