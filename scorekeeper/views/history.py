"""Past games: the filtered list, a game's page (sheet, chart, rules, history), replay,
exports, and the whole-instance backup and restore."""

import math
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from werkzeug.exceptions import RequestEntityTooLarge
from wtforms import IntegerField, SelectField
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import NumberRange, Optional

from .. import charts, exchange, history_labels, messages, records, rules
from ..extensions import db, htmx
from ..models import Game, Player, Seat

bp = Blueprint("history", __name__, url_prefix="/history")

PER_PAGE = 20


@bp.context_processor
def labels() -> dict[str, Any]:
    return {"status_label": lambda status: history_labels.STATUS_LABELS.get(status, status)}


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


class PageField(IntegerField):
    def process_formdata(self, valuelist: list[str]) -> None:
        try:
            super().process_formdata(valuelist)
        except ValueError:
            self.data = None
            raise ValueError(_("The page must be a whole number.")) from None


def choice_list(labels: dict, any_label: Any) -> list[SelectChoice]:
    """Options for a filter: "any" (empty value) first, then each known value."""
    return [SelectChoice("", any_label)] + [
        SelectChoice(str(key), label) for key, label in labels.items()
    ]


class PeriodFilter(FlaskForm):
    """Games started between these days, both ends included (each optional).

    A FlaskForm for its translated built-in messages; filters are GETs, so no CSRF token.
    """

    class Meta:
        csrf = False

    date_from = DayField(_l("From"), validators=[Optional()])
    date_to = DayField(_l("To"), validators=[Optional()])

    def validate(self, extra_validators: Any = None) -> bool:
        ok = super().validate(extra_validators)
        if self.date_from.data and self.date_to.data and self.date_from.data > self.date_to.data:
            self.date_to.errors.append(_("The end date is before the start date."))
            ok = False
        return ok


class GamesFilter(PeriodFilter):
    """The games list's filters: all optional, read from the query string (no CSRF: a GET)."""

    player = SelectField(_l("Player"), default="")
    status = SelectField(
        _l("Status"),
        default="",
        choices=choice_list(history_labels.STATUS_LABELS, _l("Any status")),
    )
    plan = SelectField(
        _l("Round plan"),
        default="",
        choices=choice_list(messages.PLAN_LABELS, _l("Any plan")),
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


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def period_conditions(date_from: date | None, date_to: date | None) -> list[Any]:
    """Games started within the days given (UTC), both ends included."""
    conditions = []
    if date_from:
        conditions.append(Game.created_at >= day_start(date_from))
    if date_to:
        conditions.append(Game.created_at < day_start(date_to + timedelta(days=1)))
    return conditions


def filter_conditions(form: GamesFilter) -> list[Any]:
    conditions = period_conditions(form.date_from.data, form.date_to.data)
    if form.player.data:
        conditions.append(Game.seats.any(Seat.player_id == int(form.player.data)))
    if form.status.data:
        conditions.append(Game.status == form.status.data)
    # The rules are stored as JSON; both SQLite and PostgreSQL can compare a path in it.
    if form.plan.data:
        conditions.append(Game.rules[("plan", "kind")].as_string() == form.plan.data)
    if form.bid_rule.data:
        conditions.append(Game.rules["bid_rule"].as_string() == form.bid_rule.data)
    return conditions


def page_or_fragment(
    full_template: str, fragment_template: str, status: int = 200, **context: Any
) -> Response:
    """The fragment for htmx's own requests, the full page otherwise (one source of HTML)."""
    partial = bool(htmx) and not htmx.boosted
    template = fragment_template if partial else full_template
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


def game_row(game: Game) -> dict[str, Any]:
    """What a list row shows about a game; the leaders and winners come from the sheet."""
    sheet = records.sheet_of(game)
    game_rules = records.rules_of(game)
    # Winners of a finished game; the leaders while it is still being played.
    highlight = sheet.winners or (
        sheet.leaders if game.status == "in_progress" and sheet.rows else ()
    )
    return {
        "highlight": highlight,
        "game": game,
        "names": records.player_names(game),
        "sheet": sheet,
        "rounds_played": len(sheet.rows),
        "rounds_planned": game_rules.round_count,
        "rules_summary": messages.rules_summary(game_rules),
    }


@bp.get("/")
def games() -> Response:
    players = db.session.execute(sa.select(Player.id, Player.name).order_by(Player.name_key))
    form = GamesFilter(formdata=request.args)
    form.player.choices = [SelectChoice("", _("Any player"))] + [
        SelectChoice(str(pid), name) for pid, name in players
    ]
    context: dict[str, Any] = {"form": form, "rows": [], "page": 1, "pages": 1, "total": 0}
    if not form.validate():
        return page_or_fragment("history/games.html", "history/_games.html", 422, **context)
    conditions = filter_conditions(form)
    total = db.session.scalar(sa.select(sa.func.count(Game.id)).where(*conditions)) or 0
    pages = max(1, math.ceil(total / PER_PAGE))
    page = form.page.data or 1
    context.update(total=total, pages=pages, page=page)
    if page > pages:
        form.page.errors = [
            _("There is no page %(page)d; the last is %(last)d.", page=page, last=pages)
        ]
        return page_or_fragment("history/games.html", "history/_games.html", 404, **context)
    found = db.session.scalars(
        records.game_query()
        .where(*conditions)
        .order_by(Game.created_at.desc(), Game.id.desc())
        .limit(PER_PAGE)
        .offset((page - 1) * PER_PAGE)
    ).all()
    context["rows"] = [game_row(game) for game in found]
    return page_or_fragment("history/games.html", "history/_games.html", **context)


def load_game(game_id: int) -> Game:
    game = db.session.scalar(exchange.full_query().where(Game.id == game_id))
    if game is None:
        abort(404)
    return game


@bp.get("/<int:game_id>")
def game(game_id: int) -> str:
    game = load_game(game_id)
    game_rules = records.rules_of(game)
    sheet = records.sheet_of(game)
    names = records.player_names(game)
    chart = charts.running_totals_chart(sheet, names, game_rules.round_count)
    history = history_labels.history_items(game.changes, names)
    return render_template(
        "history/game.html",
        game=game,
        game_rules=game_rules,
        rules_details=messages.rules_details(game_rules),
        sheet=sheet,
        names=names,
        chart=chart,
        history=history,
    )


@bp.get("/<int:game_id>/replay")
def replay(game_id: int) -> Response:
    """The game as it stood after one round: that round's entries and the standings."""
    game = load_game(game_id)
    game_rules = records.rules_of(game)
    sheet = records.sheet_of(game)
    names = records.player_names(game)
    played = len(sheet.rows)
    raw = request.args.get("round", "1" if played else "0")
    context: dict[str, Any] = {"game": game, "names": names, "played": played, "error": None}
    try:
        number = int(raw)
    except ValueError:
        number = -1
    if not 0 <= number <= played:
        context["error"] = _("Choose a round from 0 to %(last)d.", last=played)
        number = 0
    status = 422 if context["error"] else 200
    totals = sheet.totals_before(number + 1)
    standings = sorted(
        (
            {
                "seat": seat,
                "name": names[seat],
                "total": totals[seat],
                "rank": rank,
                "cell": sheet.rows[number - 1].cells[seat] if number else None,
            }
            for seat, rank in enumerate(rules.rank(totals))
        ),
        key=lambda line: (line["rank"], line["seat"]),
    )
    context.update(
        number=number,
        row=sheet.rows[number - 1] if number else None,
        standings=standings,
        chart=charts.running_totals_chart(sheet, names, game_rules.round_count, upto=number),
    )
    return page_or_fragment("history/replay.html", "history/_replay.html", status, **context)


def download(body: str, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def file_stem(game: Game) -> str:
    created = game.created_at or datetime.now(UTC)
    return f"wizard-{created:%Y-%m-%d}-{game.uid[:8]}"


@bp.get("/<int:game_id>/export.csv")
def export_csv(game_id: int) -> Response:
    game = load_game(game_id)
    # A byte-order mark makes spreadsheet programs read the names as UTF-8.
    body = "\ufeff" + exchange.game_csv(game)
    return download(body, "text/csv", file_stem(game) + ".csv")


@bp.get("/<int:game_id>/export.json")
def export_json(game_id: int) -> Response:
    game = load_game(game_id)
    return download(exchange.game_json(game), "application/json", file_stem(game) + ".json")


class RestoreForm(FlaskForm):
    backup = FileField(
        _l("Backup file"), validators=[FileRequired(_l("Choose a backup file to restore."))]
    )


@bp.get("/backup")
def backup() -> str:
    return render_template("history/backup.html", form=RestoreForm(), result=None)


@bp.get("/backup.json")
def backup_download() -> Response:
    today = datetime.now(UTC).date()
    return download(exchange.backup_json(), "application/json", f"wizard-backup-{today}.json")


@bp.post("/restore")
def restore() -> Response | tuple[str, int]:
    form = RestoreForm()
    if not form.validate_on_submit():
        return render_template("history/backup.html", form=form, result=None), 422
    try:
        result = exchange.import_file(form.backup.data.read())
    except exchange.ImportProblem as problem:
        form.backup.errors = list(problem.problems)
        return render_template("history/backup.html", form=form, result=None), 422
    flash(
        _(
            "Restored: %(games)d games and %(players)d players added; "
            "%(skipped)d games were already here.",
            games=result.games_added,
            players=result.players_added,
            skipped=result.games_skipped,
        ),
        "restore",
    )
    return redirect(url_for("history.backup"), 303)


@bp.errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> tuple[str, int]:
    """An upload over the size limit: the restore page with the reason next to the field."""
    # formdata=None: reading the oversized body again would raise the same error.
    form = RestoreForm(formdata=None)
    limit = current_app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
    form.backup.errors = [
        _("This file is too large: backups up to %(limit)d MB can be restored.", limit=limit)
    ]
    return render_template("history/backup.html", form=form, result=None), 413
