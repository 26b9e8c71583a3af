"""The base of every form: WTForms' own errors plus the game rules' problems, by field."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from flask_wtf import FlaskForm

from .. import rules
from ..wording import messages

# Per-seat inputs are named after the thing and the seat: ``bid_2``, ``tricks_0``.
SEAT_FIELDS = frozenset({"bid", "tricks"})


def seat_field_name(kind: str, seat: int) -> str:
    """The name of a per-seat input (``bid_2``): the one place that spells it."""
    return f"{kind}_{seat}"


class Form(FlaskForm):
    """A form whose messages all live on it: each field's, then each rule problem's.

    ``PROBLEM_FIELDS`` maps a rule problem's ``field`` (before any dot) to the input that
    shows it, where the two names differ.
    """

    PROBLEM_FIELDS: ClassVar[Mapping[str, str]] = {}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # Rule problems about something that is not one input (the trick total, the Cloud).
        self.problem_messages: dict[str, list[str]] = {}

    def problem_key(self, problem: rules.Problem) -> str:
        """Where a rule problem is shown: its input (``bid_2``), else its area."""
        field = (problem.field or "form").split(".")[0]
        if problem.seat is not None and field in SEAT_FIELDS:
            return seat_field_name(field, problem.seat)
        return self.PROBLEM_FIELDS.get(field, field)

    def add_message(self, key: str, message: str) -> None:
        """Show ``message`` next to input ``key`` (or the area of that name)."""
        if key in self:
            self[key].errors = [*self[key].errors, message]
        else:
            self.problem_messages.setdefault(key, []).append(message)

    def add_problems(self, problems: Iterable[rules.Problem], names: Sequence[str]) -> None:
        """Attach each rule problem's message to the input it concerns."""
        for problem in problems:
            self.add_message(self.problem_key(problem), messages.problem_message(problem, names))

    def messages(self) -> dict[str, list[str]]:
        """Every message by input or area; ``"form"`` for the form as a whole."""
        found: dict[str, list[str]] = {}
        for name, field in self._fields.items():
            if field.errors:
                key = "form" if name == "csrf_token" else name
                found.setdefault(key, []).extend(str(error) for error in field.errors)
        if self.form_errors:
            found.setdefault("form", []).extend(str(error) for error in self.form_errors)
        for key, texts in self.problem_messages.items():
            found.setdefault(key, []).extend(texts)
        return found
