"""The club ladder's choices: the season and how many games a player needs to be ranked.

A GET form like the history filters: no CSRF token, defaults when nothing is asked.
"""

from __future__ import annotations

from datetime import date, timedelta

from wtforms.fields.choices import SelectChoice

from ..i18n import lazy_gettext as _l
from .base import Form, SelectField

SEASONS = {
    "all": _l("All time"),
    "year": _l("This year"),
    "12m": _l("Last 12 months"),
}
MIN_GAMES = (1, 3, 5, 10, 20, 50)


def season_start(season: str, today: date) -> date | None:
    """The first day of a season, in the viewer's calendar (``None``: every game). "This year"
    starts on 1 January; "last 12 months" on the day after the same date a year ago."""
    if season == "year":
        return date(today.year, 1, 1)
    if season == "12m":
        try:
            year_ago = today.replace(year=today.year - 1)
        except ValueError:  # 29 February: the year before has none
            year_ago = date(today.year - 1, 2, 28)
        return year_ago + timedelta(days=1)
    return None


class LadderFilter(Form):
    class Meta:
        csrf = False

    season = SelectField(
        _l("Season"),
        default="all",
        choices=[SelectChoice(key, label) for key, label in SEASONS.items()],
    )
    min_games = SelectField(
        _l("Games to be ranked"),
        default="3",
        choices=[SelectChoice(str(number), str(number)) for number in MIN_GAMES],
    )

    def first_day(self, today: date) -> date | None:
        """The chosen season's first day (call after a successful ``validate``)."""
        return season_start(self.season.data, today)
