"""The base of every form: WTForms' own errors plus the game rules' problems, by field."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from babel import support
from flask import current_app
from flask_wtf import FlaskForm
from markupsafe import Markup, escape
from wtforms import IntegerField, widgets
from wtforms import SelectField as WTFormsSelectField
from wtforms.i18n import messages_path
from wtforms.validators import Optional, Regexp

from .. import rules
from ..i18n import lazy_gettext as _l
from ..i18n import locale_name
from ..wording import messages

# A number as a page posts it: ASCII digits, an optional minus, at most nine digits — never
# "²", Arabic-Indic digits or a 5,000-digit string (int() would take some of them).
_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")
# What the database's integer columns hold.
LARGEST = 2**31 - 1


def new_request_key() -> str:
    """A fresh key for one rendered form: its retries and double taps share it, so what it
    sends is stored once (changes.apply_change)."""
    return secrets.token_urlsafe(16)


def whole_number(text: object, low: int = 0, high: int = LARGEST) -> int | None:
    """``text`` as a whole number from ``low`` to ``high`` (plain digits only), else None.

    The one reading of a number a user or a page sent: every form and view uses it.
    """
    value = str(text).strip() if text is not None else ""
    if not _WHOLE_NUMBER.fullmatch(value):
        return None
    number = int(value)
    return number if low <= number <= high else None


class WholeNumberField(IntegerField):
    """A whole number from ``low`` to ``high`` read by :func:`whole_number`; anything else is
    a clear message on the field (and no data)."""

    def __init__(self, *args: Any, low: int = 0, high: int = LARGEST, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.low, self.high = low, high

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist or valuelist[0] in ("", None):
            self.data = None
            return
        self.data = whole_number(valuelist[0], self.low, self.high)
        if self.data is None:
            raise ValueError(_l("Not a number this page can use: reload the page."))


# The key a rendered form carries (secrets.token_urlsafe): retries and double taps share it.
REQUEST_KEY = Regexp(r"^[A-Za-z0-9_-]{1,64}$", message=_l("The page is incomplete: reload it."))
# A request key field: left out is fine (no double-tap check); anything else must be a key
# the app hands out — a key of spaces or line breaks too (Optional would let it through).
KEY_CHECKS = [Optional(strip_whitespace=False), REQUEST_KEY]


# Per-seat inputs are named after the thing and the seat: ``bid_2``, ``tricks_0``.
SEAT_FIELDS = frozenset({"bid", "tricks"})


class Select(widgets.Select):
    """WTForms' select, its plain options written in one format each: WTForms builds every
    option's attributes through ``html_params`` (sorting and escaping a dict), and the games
    list's four filters (seventy options) cost 1.5 ms that way against 0.3 (timed; cProfile
    put them at a fifth of the page). The markup is WTForms' own; an option with attributes
    of its own takes WTForms' path."""

    @classmethod
    def render_option(cls, choice: Any, **kwargs: Any) -> Markup:
        if choice.render_kw or kwargs:
            return super().render_option(choice, **kwargs)
        value = str(choice.value) if isinstance(choice.value, bool) else choice.value
        label = escape(choice.label or choice.value)
        selected = "selected " if choice.selected else ""
        return Markup(f'<option {selected}value="{escape(value)}">{label}</option>')


class SelectField(WTFormsSelectField):
    """WTForms' SelectField with :class:`Select` as its widget."""

    widget = Select()


def seat_field_name(kind: str, seat: int) -> str:
    """The name of a per-seat input (``bid_2``): the one place that spells it."""
    return f"{kind}_{seat}"


@functools.lru_cache(maxsize=16)
def _wtforms_catalogue(locale: str) -> support.Translations:
    return support.Translations.load(messages_path(), [locale], domain="wtforms")


class Form(FlaskForm):
    """A form whose messages all live on it: each field's, then each rule problem's.

    ``PROBLEM_FIELDS`` maps a rule problem's ``field`` (before any dot) to the input that
    shows it, where the two names differ.
    """

    PROBLEM_FIELDS: ClassVar[Mapping[str, str]] = {}

    class Meta:
        def get_translations(self, form: Any) -> Any:
            """WTForms' own words (a field's default label, its messages) in the request's
            language. Flask-WTF reads WTForms' catalogue from disk for every request that
            makes a form (a twentieth of the setup page, cProfile); the catalogue of each
            language is read once here, as Flask-WTF would read it."""
            if not current_app.config.get("WTF_I18N_ENABLED", True):
                return super().get_translations(form)  # type: ignore[misc]
            return _wtforms_catalogue(locale_name())

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

    def digest(self) -> str:
        """A fingerprint of what was posted (every input but the CSRF token): a request sent
        again with other values is told apart from a double tap."""
        posted = sorted(
            (field.name, [str(value) for value in field.raw_data or ()])
            for field in self
            if field.name != "csrf_token"
        )
        return hashlib.sha256(json.dumps(posted).encode()).hexdigest()

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
