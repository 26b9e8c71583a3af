"""The history's forms: filters of the games list and of a player's statistics, and restore.

Filters are GETs: they carry no CSRF token, and ``FlaskForm`` is used for its translated
built-in messages.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask_wtf.file import FileField, FileRequired
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import NumberRange, Optional

from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from ..i18n import viewer_zone
from ..queries import GameFilter
from ..wording import messages
from ..wording.history import STATUS_LABELS
from .base import Form, SelectField, WholeNumberField

FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2999, 12, 31)


class DayField(DateField):
    """A date in the query string, with a message that says how to write it."""

    def process_formdata(self, valuelist: list[str]) -> None:
        try:
            super().process_formdata(valuelist)
        except ValueError:
            self.data = None
            raise ValueError(_("Write the date as YYYY-MM-DD, e.g. 2024-05-31.")) from None
        # Day arithmetic at the ends of the calendar overflows: no game is that old or new.
        if self.data is not None and not FIRST_DAY <= self.data <= LAST_DAY:
            self.data = None
            raise ValueError(_("Choose a date between 2000 and 2999."))


class PageField(WholeNumberField):
    def process_formdata(self, valuelist: list[str]) -> None:
        try:
            super().process_formdata(valuelist)
        except ValueError:
            raise ValueError(_("The page must be a whole number.")) from None


def choice_list(labels: dict, any_label: Any) -> list[SelectChoice]:
    """Options for a filter: "any" (empty value) first, then each known value."""
    return [SelectChoice("", any_label)] + [
        SelectChoice(str(key), label) for key, label in labels.items()
    ]


class PeriodFilter(Form):
    """Games started between these days, both ends included (each optional)."""

    class Meta:
        csrf = False

    date_from = DayField(_l("From"), validators=[Optional()])
    date_to = DayField(_l("To"), validators=[Optional()])

    # The query parameters this filter reads (what a kept page's key holds of the URL).
    READS: tuple[str, ...] = ("date_from", "date_to")

    def validate(self, extra_validators: Any = None) -> bool:
        ok = super().validate(extra_validators)
        if self.date_from.data and self.date_to.data and self.date_from.data > self.date_to.data:
            self.date_to.errors.append(_("The end date is before the start date."))
            ok = False
        return ok


class GamesFilter(PeriodFilter):
    """The games list's filters: all optional, read from the query string."""

    player = SelectField(_l("Player"), default="")
    status = SelectField(
        _l("Status"), default="", choices=choice_list(STATUS_LABELS, _l("Any status"))
    )
    plan = SelectField(
        _l("Round plan"), default="", choices=choice_list(messages.PLAN_LABELS, _l("Any plan"))
    )
    bid_rule = SelectField(
        _l("Bid rule"),
        default="",
        choices=choice_list(messages.BID_RULE_LABELS, _l("Any bid rule")),
    )
    page = PageField(
        _l("Page"),
        validators=[Optional(), NumberRange(min=1, message=_l("Pages start at 1."))],
    )

    FILTERS = ("player", "status", "plan", "bid_rule", "date_from", "date_to")
    READS = (*FILTERS, "page")

    def chosen_count(self) -> int:
        """How many filters narrow the list, as asked (a refused date counts too)."""
        return sum(1 for name in self.FILTERS if any(self[name].raw_data or ()))

    def shown_open(self) -> bool:
        """Whether the filters are shown unfolded: a filter is chosen or refused, or the list
        comes from the filters themselves (clearing the last one keeps them open)."""
        return bool(self.errors) or any(self[name].raw_data for name in self.FILTERS)

    def set_players(self, players: list[tuple[int, str]]) -> None:
        """Offer these players (id, name) in the player filter."""
        self.player.choices = [SelectChoice("", _("Any player"))] + [
            SelectChoice(str(player_id), name) for player_id, name in players
        ]

    def game_filter(self) -> GameFilter:
        """The chosen filters (call after a successful ``validate``)."""
        return GameFilter(
            player_id=int(self.player.data) if self.player.data else None,
            status=self.status.data or None,
            plan=self.plan.data or None,
            bid_rule=self.bid_rule.data or None,
            date_from=self.date_from.data,
            date_to=self.date_to.data,
            zone=viewer_zone(),
        )


class RestoreForm(Form):
    backup = FileField(
        _l("Backup file"), validators=[FileRequired(_l("Choose a backup file to restore."))]
    )
