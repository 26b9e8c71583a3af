"""Setting up a game: players in seat order, the first dealer and the rules.

Every control on the page submits the one setup form. Seat changes (add, move, remove)
only re-render the form — the whole page without JavaScript, the form fragment for htmx —
and store nothing; "Start game" checks everything and creates the game.
"""

from typing import Any

from flask import Blueprint, Response, redirect, request, url_for
from flask_htmx import make_response as htmx_response

from .. import changes, gameplay, rules
from ..extensions import htmx
from ..forms import setup as forms
from ..forms.base import new_request_key, whole_number
from ..i18n import gettext as _
from ..models import name_key
from ..queries import RosterName, last_started_rules, roster_by_games_played
from ..records import stored_rules
from .rendering import render

bp = Blueprint("setup", __name__)

SEAT_MOVES = {"up": -1, "down": 1}


def render_form(form: forms.NewGameForm, roster: list[RosterName], status: int = 200) -> Response:
    """The setup form: the fragment for htmx, else the full page (which includes it)."""
    return render("setup/new.html", "setup/_form.html", status, **form_context(form, roster))


def form_context(form: forms.NewGameForm, roster: list[RosterName]) -> dict[str, Any]:
    seated = set(map(name_key, form.seats.data))
    return {
        "form": form,
        # Each name left with its button's label, as plain text: formatted by the template's
        # filter, each name went through Markup's escaping helpers (70 names: a seventh of
        # the form's rendering, timed); the page escapes the label once, as any text.
        "roster": [
            (player.name, _("Add %(name)s", name=player.name))
            for player in roster
            if player.name_key not in seated
        ],
        "max_players": rules.MAX_PLAYERS,
        "name_max_length": forms.NAME_MAX_LENGTH,
        "random_dealer": forms.RANDOM_DEALER,
        "plan_kinds": list(rules.PlanKind),
        "bid_rules": list(rules.BidRule),
        "bid_reveals": list(rules.BidReveal),
        "tie_breaks": list(rules.TieBreak),
        "table_notes": rules.TABLE_ONLY_RULES,
    }


def seat_action(form: forms.NewGameForm, action: str, roster: list[RosterName]) -> bool:
    """Apply one seat control ("add", "add:<name>", "up:2", "down:0", "remove:3").

    Returns False when the control was refused (the reason is in the form).
    """
    verb, _, argument = action.partition(":")
    if verb == "add":
        added = form.add_player(
            argument or form.new_name.data, {p.name_key: p.name for p in roster}
        )
        if added and not argument:
            form.new_name.data = ""
        return added
    seat = whole_number(argument, 0, rules.MAX_PLAYERS - 1)
    if seat is not None:
        if verb in SEAT_MOVES:
            form.move_player(seat, SEAT_MOVES[verb])
        elif verb == "remove":
            form.remove_player(seat)
    return True


def start_game(form: forms.NewGameForm, roster: list[RosterName]) -> Response:
    """Check everything and create the game; on any problem the form comes back (422)."""
    # A name typed but not yet added joins the table rather than being lost.
    if form.new_name.data.strip() and not seat_action(form, "add", roster):
        return render_form(form, roster, 422)
    if not form.validate():
        return render_form(form, roster, 422)
    game_rules = form.game_rules()
    if game_rules is None:
        return render_form(form, roster, 422)
    digest = form.digest()
    started = changes.applied_change(form.request_key.data)
    if started is not None and started.request_digest not in (None, digest):
        # The page was used to start a game, then changed and sent again: say so, and let
        # the next tap start the game as it is now chosen.
        form.request_key.data = new_request_key()
        form.add_message(
            "form",
            _(
                "A game was already started from this page with other choices (it is in the"
                " history). Check the choices and tap “Start game” again for a new one."
            ),
        )
        return render_form(form, roster, 409)
    game = gameplay.create_game(
        form.names(),
        form.first_dealer_seat(),
        game_rules,
        form.request_key.data,
        request_digest=digest,
    )
    target = url_for("play.table", game_id=game.id)
    if htmx:
        return htmx_response(redirect=target)
    return redirect(target, 303)


def first_form() -> forms.NewGameForm:
    """The form as a visit opens it: with the rules of the last game started here, else the
    official rules (the form's defaults). Rules that no longer read are left out."""
    stored = last_started_rules()
    try:
        last = stored_rules(stored) if stored is not None else None
    except (rules.RulesError, TypeError):
        last = None
    return forms.NewGameForm(data=forms.choices_of(last) if last else None)


@bp.route("/games/new", methods=["GET", "POST"])
def new_game() -> Response:
    if request.method == "GET":
        return render_form(first_form(), roster_by_games_played())
    form = forms.NewGameForm()
    roster = roster_by_games_played()
    action = form.action.data or ""
    if action == "start":
        return start_game(form, roster)
    if action == "enter":
        # Enter pressed in a text box: add the name typed; elsewhere it just keeps the values.
        action = "add" if form.new_name.data.strip() else ""
    # Seat controls store nothing; CSRF was already checked for the whole app.
    ok = seat_action(form, action, roster)
    form.focus_name = action == "add" and ok
    return render_form(form, roster, 200 if ok else 422)
