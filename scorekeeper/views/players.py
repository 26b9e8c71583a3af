"""The players: the roster with games played, each player's statistics, and renaming,
merging and undoing either."""

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    request,
    url_for,
)
from werkzeug.exceptions import NotFound

from .. import queries, ratings, roster
from ..forms.history import PeriodFilter
from ..forms.players import MergeForm, RenameForm, UndoForm
from ..i18n import gettext as _
from ..i18n import viewer_zone
from ..reports import bidding
from ..reports.ladder import rating_chart
from ..wording import bidding as bidding_words
from ..wording import roster as roster_words
from .rendering import page_tag, provisional, render, render_read_only

bp = Blueprint("players", __name__, url_prefix="/players")


@bp.get("/")
def index() -> Response:
    return render_read_only(
        page_tag("players", queries.data_version()),
        "players/index.html",
        None,
        lambda: {"roster": queries.roster_with_finished_games()},
    )


@bp.get("/<int:player_id>")
def player(player_id: int) -> Response:
    # The same for everyone asking for the same period until something is stored (the
    # ratings depend on every game).
    try:
        return render_read_only(
            page_tag("player", player_id, queries.data_version()),
            "players/player.html",
            "players/_stats.html",
            lambda: player_context(player_id),
        )
    except NotFound:
        # A saved link of a player merged away leads to the player kept; 302, not 301: an
        # undo of the merge brings the old page back.
        if (kept := roster.merged_into(player_id)) is None:
            raise
        return redirect(url_for("players.player", player_id=kept, **request.args), 302)


def player_context(player_id: int) -> tuple[int, dict[str, Any]]:
    found = queries.load_player(player_id)
    form = PeriodFilter(formdata=request.args)
    history = ratings.rating_history(found.id, current_app.config["PLAYER_LADDER_WAIT_SECONDS"])
    if history.updating:
        provisional()  # the ratings shown are about to change without a new data version
    context: dict[str, Any] = {
        "player": found,
        "form": form,
        "stats": None,
        "rating_chart": rating_chart(history.points, history.games),
        "ratings_updating": history.updating,
    }
    if not form.validate():
        return 422, context
    conditions = queries.period_conditions(form.date_from.data, form.date_to.data, viewer_zone())
    if conditions:
        context["stats"] = queries.player_stats(found.id, conditions)
        context["bidding"] = queries.bidding_figures(found.id, conditions)
    else:  # all time: stored with the results, read in two small queries
        context["stats"], context["bidding"] = queries.stored_figures(found.id)
    context["bidding_words"] = bidding_words
    context["bidding_findings"] = bidding.findings
    return 200, context


# --- renaming and merging ------------------------------------------------------------------


@bp.get("/<int:player_id>/edit")
def edit(player_id: int) -> Response:
    return render_edit(player_id)


def render_edit(
    player_id: int,
    status: int = 200,
    *,
    rename_form: RenameForm | None = None,
    merge_form: MergeForm | None = None,
    undo_form: UndoForm | None = None,
    refused_change: int | None = None,
) -> Response:
    """The page with the rename and merge forms and the player's log (a refused form comes
    back with its message; the statistics are not computed here)."""
    found = queries.load_player(player_id)
    if rename_form is None:
        rename_form = RenameForm(formdata=None, data={"name": found.name})
    if merge_form is None:
        merge_form = MergeForm(formdata=None)
    merge_form.set_players([(i, name) for i, name in queries.player_choices() if i != found.id])
    return render(
        "players/edit.html",
        None,
        status,
        player=found,
        rename_form=rename_form,
        merge_form=merge_form,
        undo_form=undo_form or UndoForm(formdata=None),
        refused_change=refused_change,
        log=roster.log_of(found.id),
        change_line=roster_words.change_line,
    )


def _done(player_id: int, message: str | None) -> Response:
    if message:
        flash(message, "roster")
    return redirect(url_for("players.edit", player_id=player_id), 303)


@bp.post("/<int:player_id>/rename")
def rename(player_id: int) -> Response:
    found = queries.load_player(player_id)
    form = RenameForm()
    if not form.validate():
        return render_edit(found.id, 422, rename_form=form)
    try:
        change = roster.rename(found.id, form.name.data, form.request_key.data)
    except roster.AlreadyApplied:
        return _done(found.id, None)
    except roster.RosterRefused as refused:
        form.name.errors = [roster_words.refusal_message(refused)]
        return render_edit(player_id, 422, rename_form=form)
    return _done(player_id, roster_words.change_line(change))


@bp.post("/<int:player_id>/merge")
def merge(player_id: int) -> Response:
    form = MergeForm()
    form.set_players([(i, name) for i, name in queries.player_choices() if i != player_id])
    if not form.validate() or form.into_id is None:
        return render_edit(player_id, 422, merge_form=form)
    # A double tap: the first tap took the player off the roster, so look for it first.
    done = roster.applied_change(form.request_key.data)
    if done is not None and done.player_id == player_id and done.other_id is not None:
        return _done(done.other_id, None)
    found = queries.load_player(player_id)
    try:
        change = roster.merge(found.id, form.into_id, form.request_key.data)
    except roster.AlreadyApplied as applied:
        return _done(applied.change.other_id or found.id, None)
    except roster.RosterRefused as refused:
        form.into.errors = [roster_words.refusal_message(refused)]
        return render_edit(player_id, 422, merge_form=form)
    return _done(form.into_id, roster_words.change_line(change))


@bp.post("/<int:player_id>/changes/<int:change_id>/undo")
def undo(player_id: int, change_id: int) -> Response:
    """Undo a change of this player's log; the page of ``player_id`` comes back."""
    found = queries.load_player(player_id)
    change = roster.change_of(change_id)
    if change is None or found.id not in (change.player_id, change.other_id):
        abort(404, description=_("This change is not in the log of %(name)s.", name=found.name))
    form = UndoForm()
    if not form.validate():
        return render_edit(found.id, 422, undo_form=form, refused_change=change_id)
    try:
        roster.undo(change_id, form.request_key.data)
    except roster.AlreadyApplied:
        return _done(player_id, None)
    except roster.RosterRefused as refused:
        form.add_message("form", roster_words.refusal_message(refused))
        return render_edit(player_id, 409, undo_form=form, refused_change=change_id)
    return _done(player_id, _("Undone: %(change)s", change=roster_words.change_line(change)))
