"""Past games: the filtered list, a game's page (sheet, chart, rules, history), replay,
exports, and the whole-instance backup and restore."""

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    request,
    stream_with_context,
    url_for,
)
from werkzeug.exceptions import RequestEntityTooLarge

from .. import exchange, queries, records, rules
from ..forms.base import whole_number
from ..forms.history import GamesFilter, RestoreForm
from ..i18n import gettext as _
from ..models import Game, GameStatus
from ..reports import charts
from ..wording import history as history_words
from ..wording import messages
from ..wording.formats import csv_separator
from .rendering import page_tag, render, render_read_only

bp = Blueprint("history", __name__, url_prefix="/history")


def game_row(
    listing: queries.GameListing, described: dict[str, tuple[str, int]]
) -> dict[str, Any]:
    """What a list row shows about a game; the leaders and winners come from its stored
    results (the rules module's sheet, kept per game). ``described`` holds the rules' words
    and round count by stored rules text: a page's games are played under a few rules, each
    described once (per row, they were a tenth of the list's context; pyinstrument)."""
    outcome = listing.outcome
    text = listing.game.rules_text
    if text not in described:
        described[text] = (messages.rules_summary(listing.rules), listing.rules.round_count)
    summary, round_count = described[text]
    return {
        "highlight": outcome.highlighted,
        "game": listing.game,
        "names": listing.names,
        "sheet": outcome,
        "rounds_played": outcome.scored_rounds,
        "rounds_planned": round_count,
        "rules_summary": summary,
        "tie_break": listing.rules.tie_break,
    }


@bp.get("/")
def games() -> Response:
    # The same for everyone with the same filters (in the address, part of the tag) until
    # something is stored.
    return render_read_only(
        page_tag("games", queries.data_version()),
        "history/games.html",
        "history/_games.html",
        games_context,
    )


def games_context() -> tuple[int, dict[str, Any]]:
    form = GamesFilter(formdata=request.args)
    form.set_players(queries.player_choices())
    context: dict[str, Any] = {"form": form, "rows": [], "page": 1, "pages": 1, "total": 0}
    if not form.validate():
        return 422, context
    page = form.page.data or 1
    found = queries.games_page(form.game_filter(), page)
    pages = found.pages
    context.update(total=found.total, pages=pages, page=page)
    if page > pages:
        form.page.errors = [
            _("There is no page %(page)d; the last is %(last)d.", page=page, last=pages)
        ]
        return 404, context
    described: dict[str, tuple[str, int]] = {}
    context["rows"] = [game_row(listing, described) for listing in found.listings]
    return 200, context


def load_game(game_id: int) -> Game:
    return queries.load_game(game_id, with_changes=True)


def played(game: Game) -> dict[str, Any]:
    """A past game with its rules, score sheet and names (every history page shows them)."""
    game_rules = records.rules_of(game)
    scored = records.round_records(game)
    sheet = rules.score_sheet(game_rules, scored)
    names = records.player_names(game)
    return {
        "game": game,
        "game_rules": game_rules,
        # The scored rounds as the rules read them (the sheet's, for the game page's checks).
        "scored_rounds": scored,
        "sheet": sheet,
        "names": names,
        "winner_names": [names[seat] for seat in sheet.winners],
        "highlighted": sheet.highlighted(game.status == GameStatus.IN_PROGRESS),
    }


@bp.get("/<int:game_id>")
def game(game_id: int) -> Response:
    # The same for every viewer until something is stored (a rename shows here too).
    return render_read_only(
        page_tag("game", game_id, queries.data_version()),
        "history/game.html",
        None,
        lambda: game_context(game_id),
    )


def game_context(game_id: int) -> dict[str, Any]:
    context = played(queries.read_game(game_id))
    game_rules, sheet, names = context["game_rules"], context["sheet"], context["names"]
    return context | {
        "flags": rules.flagged_rounds(game_rules, context["scored_rounds"], sheet),
        "on_paper": queries.entered_on_paper(game_id),
        "rules_details": messages.rules_details(game_rules),
        "chart": charts.running_totals_chart(sheet, names, game_rules.round_count),
        "history": history_words.game_history(context["game"], names),
    }


@bp.get("/<int:game_id>/replay")
def replay(game_id: int) -> Response:
    """The game as it stood after one round: that round's entries and the standings."""
    return render_read_only(
        page_tag("replay", game_id, queries.data_version()),
        "history/replay.html",
        "history/_replay.html",
        lambda: replay_context(game_id),
    )


def replay_context(game_id: int) -> tuple[int, dict[str, Any]]:
    context = played(queries.read_game(game_id))
    game_rules, sheet, names = context["game_rules"], context["sheet"], context["names"]
    played_rounds = len(sheet.rows)
    raw = request.args.get("round", "1" if played_rounds else "0")
    context |= {"played": played_rounds, "error": None}
    number = whole_number(raw, 0, played_rounds)
    if number is None:
        context["error"] = _("Choose a round from 0 to %(last)d.", last=played_rounds)
        number = 0
    status = 422 if context["error"] else 200
    totals = sheet.totals_before(number + 1)
    ranks = rules.rank(totals)
    standings = [
        {
            "seat": seat,
            "name": names[seat],
            "total": totals[seat],
            "rank": ranks[seat],
            "cell": sheet.rows[number - 1].cells[seat] if number else None,
        }
        for seat in rules.standings(ranks)
    ]
    context.update(
        number=number,
        row=sheet.rows[number - 1] if number else None,
        standings=standings,
        chart=charts.running_totals_chart(sheet, names, game_rules.round_count, upto=number),
    )
    return status, context


def download(body: str | Iterator[str], mimetype: str, filename: str) -> Response:
    """A file to save; ``body`` may come in pieces (a backup is written as it is sent)."""
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
    body = "\ufeff" + exchange.game_csv(game, delimiter=csv_separator())
    return download(body, "text/csv", file_stem(game) + ".csv")


@bp.get("/<int:game_id>/export.json")
def export_json(game_id: int) -> Response:
    game = load_game(game_id)
    return download(exchange.game_json(game), "application/json", file_stem(game) + ".json")


@bp.get("/backup")
def backup() -> Response:
    return render("history/backup.html", form=RestoreForm(), result=None)


@bp.get("/backup.json")
def backup_download() -> Response:
    today = datetime.now(UTC).date()
    # Sent as it is written, a few games at a time: a club's backup is never held whole.
    body = stream_with_context(exchange.backup_chunks())
    return download(body, "application/json", f"wizard-backup-{today}.json")


@bp.post("/restore")
def restore() -> Response:
    form = RestoreForm()
    if not form.validate_on_submit():
        return render("history/backup.html", None, 422, form=form, result=None)
    try:
        # The upload (spooled to a file when large) is read one game at a time.
        result = exchange.import_file(form.backup.data.stream)
    except exchange.ImportProblem as problem:
        # A browser never fills a file input in again: the message says which file it was.
        refused = _("%(file)s was not restored.", file=_file_name(form.backup.data))
        form.backup.errors = [refused, *problem.problems]
        return render("history/backup.html", None, 422, form=form, result=None)
    flash(result.message, "restore")
    return redirect(url_for("history.backup"), 303)


def _file_name(upload: Any) -> str:
    """The name the browser gave an uploaded file (its last part, at most 80 characters)."""
    name = str(getattr(upload, "filename", None) or "").replace("\\", "/").rsplit("/", 1)[-1]
    return name[:80] or _("The file")


@bp.errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> Response:
    """An upload over the size limit: the restore page with the reason next to the field."""
    # formdata=None: reading the oversized body again would raise the same error.
    form = RestoreForm(formdata=None)
    limit = current_app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
    form.backup.errors = [
        _("This file is too large: backups up to %(limit)d MB can be restored.", limit=limit)
    ]
    return render("history/backup.html", None, 413, form=form, result=None)
