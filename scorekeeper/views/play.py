"""At the table: the round screen, each step of a round, corrections, undo and the end.

Every write goes through :func:`_write`: parse the form, let the rules decide, store
through :func:`scorekeeper.games.apply_change`, then answer with the table fragment (htmx)
or a redirect back to the table (plain form post).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_htmx import make_response as htmx_response
from flask_wtf import FlaskForm

from .. import games, history_labels, messages, play_forms, rules
from ..extensions import db, htmx
from ..models import Game, GameStatus, Round, RoundState
from ..records import game_query, player_names, round_records, rules_of, sheet_of

bp = Blueprint("play", __name__, url_prefix="/games")

Errors = dict[str, list[str]]


def new_request_key() -> str:
    """A fresh key for one rendered form: its retries and double taps share it."""
    return secrets.token_urlsafe(16)


def standings_order(sheet: rules.ScoreSheet) -> list[int]:
    """Seats from first place down; ties keep seat order."""
    return sorted(range(sheet.players), key=lambda seat: (sheet.ranks[seat], seat))


@bp.record_once
def _template_helpers(state: Any) -> None:
    state.app.jinja_env.globals.update(
        trump_label=messages.trump_label,
        trump_symbol=messages.trump_symbol,
        suit_name=messages.suit_name,
        cause_label=messages.cause_label,
        reveal_label=messages.reveal_label,
        rules_summary=messages.rules_summary,
        problem_message=messages.problem_message,
        forbidden_message=messages.forbidden_bid_message,
        action_label=history_labels.action_label,
        standings_order=standings_order,
    )


# --- reading -------------------------------------------------------------------------------


def load_game(game_id: int) -> Game:
    game = db.session.scalar(game_query().where(Game.id == game_id))
    if game is None:
        abort(404, _("There is no game %(number)s.", number=game_id))
    return game


def step_of(game: Game, round_: Round | None) -> str:
    """Which part of the round the table is at: trump, bids, tricks, or the end."""
    if round_ is None:
        return "finished" if game.status == GameStatus.FINISHED else "closed"
    if game.status != GameStatus.IN_PROGRESS:
        return "closed"
    if not games.trump_is_set(round_):
        return "trump"
    if round_.state == RoundState.BIDDING:
        return "bids"
    return "tricks"


def table_context(
    game: Game,
    *,
    errors: Errors | None = None,
    notice: str | None = None,
    kept: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the round screen shows, computed by the rules module."""
    game_rules = rules_of(game)
    names = player_names(game)
    sheet = sheet_of(game)
    round_ = games.open_round(game)
    step = step_of(game, round_)
    context: dict[str, Any] = {
        "game": game,
        "rules": game_rules,
        "names": names,
        "sheet": sheet,
        "round": round_,
        "step": step,
        "errors": errors or {},
        "notice": notice,
        "kept": kept or {},
        "request_key": new_request_key,
        "undo_change": games.undoable(game),
        "flags": rules.flagged_rounds(game_rules, round_records(game)),
        "winner_names": [names[seat] for seat in sheet.winners],
        "dealer_can_change": False,
    }
    if round_ is not None and step != "closed":
        bids = games.bids_of(round_)
        if step == "tricks" and not kept:
            context["kept"] = games.undone_outcome(game, round_)
        context |= {
            "bids": bids,
            "bid_order": rules.bid_order(game_rules, round_.dealer),
            "first_lead": rules.first_lead(round_.dealer, game_rules.players),
            "trump_choice": rules.trump_choice(game_rules, round_.number, round_.hand_size),
            "next_bidder": games.next_bidder(game_rules, round_),
            "forbidden": rules.forbidden_bid(
                game_rules, round_.number, round_.hand_size, round_.dealer, bids, sheet.totals
            ),
            "bid_total": sum(b for b in bids.values() if b is not None),
            "required_tricks": rules.required_trick_total(round_.hand_size, False),
            "prefill": (prefill := tricks_prefill(context["kept"])),
            "remaining": rules.remaining_tricks(
                round_.hand_size, prefill, bool(context["kept"].get("bomb"))
            ),
            "all_made_possible": rules.everyone_made_bid_possible(round_.hand_size, bids, False),
            "secret": rules.bids_are_secret(game_rules, round_.state == RoundState.SCORED),
            "dealer_can_change": games.dealer_can_change(game_rules, round_),
        }
    return context


def tricks_prefill(kept: dict[str, Any]) -> dict[int, int]:
    """Tricks shown as already chosen (from posted or restored form values), by seat."""
    return {
        int(key.removeprefix("tricks_")): int(value)
        for key, value in kept.items()
        if key.removeprefix("tricks_").isdigit() and str(value).isdigit()
    }


def render_table(game: Game, status: int = 200, **context: Any) -> Response:
    template = "play/_table.html" if htmx else "play/table.html"
    body = render_template(template, **table_context(game, **context))
    response = Response(body, status=status)
    response.vary.add("HX-Request")
    return response


@bp.get("/<int:game_id>")
def table(game_id: int) -> Response:
    return render_table(load_game(game_id))


# --- writing -------------------------------------------------------------------------------


def problems_to_errors(problems: tuple[rules.Problem, ...], names: list[str]) -> Errors:
    """Place each rule problem next to its field (``bid_2``, ``tricks``, ``trump`` …)."""
    errors: Errors = {}
    for problem in problems:
        key = problem.field or "form"
        if problem.seat is not None and problem.field in ("bid", "tricks"):
            key = f"{problem.field}_{problem.seat}"
        errors.setdefault(key, []).append(messages.problem_message(problem, names))
    return errors


def form_errors(form: FlaskForm) -> Errors:
    return {name: [str(message) for message in found] for name, found in form.errors.items()}


STALE = _l("Changed on another phone: this is the latest state. Check it and enter again.")


@dataclass
class Refusal:
    """Why a write was not stored, with the game as it is now."""

    status: int
    game: Game
    errors: Errors = field(default_factory=dict)
    notice: str | None = None


def store(
    game: Game,
    form: FlaskForm,
    action: str,
    rounds_touched: list[int],
    change: Callable[[], dict[str, Any] | None],
) -> Refusal | None:
    """Store one write through :func:`games.apply_change`; None when it is stored (or was)."""
    try:
        games.apply_change(
            game,
            version=form.version.data,
            request_key=form.request_key.data,
            action=action,
            rounds_touched=rounds_touched,
            change=change,
        )
    except games.AlreadyApplied:
        return None
    except games.StaleGame:
        db.session.expire_all()
        return Refusal(409, load_game(game.id), notice=str(STALE))
    except games.RulesRejected as rejected:
        db.session.expire_all()
        fresh = load_game(game.id)
        return Refusal(
            422, fresh, errors=problems_to_errors(rejected.problems, player_names(fresh))
        )
    return None


def _write(
    game_id: int,
    number: int | None,
    form: FlaskForm,
    action: str,
    change: Callable[[Game, Round | None], dict[str, Any] | None],
    *,
    rounds_touched: list[int] | None = None,
) -> Response:
    """A write from the round screen: answered with the table, or a redirect to it."""
    game = load_game(game_id)
    kept = dict(request.form)
    if not form.validate_on_submit():
        return render_table(game, 422, errors=form_errors(form), kept=kept)
    if games.already_applied(form.request_key.data):
        return done(game_id)
    round_ = None
    if number is not None:
        round_ = games.open_round(game)
        if round_ is None or round_.number != number:
            notice = _("Round %(number)s is not the round being played.", number=number)
            return render_table(game, 422, notice=notice, kept=kept)
    touched = rounds_touched if rounds_touched is not None else ([number] if number else [])
    refusal = store(game, form, action, touched, lambda: change(game, round_))
    if refusal is not None:
        return render_table(
            refusal.game, refusal.status, errors=refusal.errors, notice=refusal.notice, kept=kept
        )
    return done(game_id)


def done(game_id: int, *, endpoint: str = "play.table", swap: bool = True) -> Response:
    """After a successful write: the fresh table for htmx (``swap``), else go to ``endpoint``."""
    if htmx and swap:
        db.session.expire_all()
        return render_table(load_game(game_id))
    target = url_for(endpoint, game_id=game_id)
    if htmx:
        return htmx_response(redirect=target)
    return redirect(target, 303)


@bp.post("/<int:game_id>/rounds/<int:number>/trump")
def trump(game_id: int, number: int) -> Response:
    form = play_forms.TrumpForm()

    def change(game: Game, round_: Round | None) -> None:
        cause, suit = form.cause_and_trump()
        games.set_trump(game, round_, cause, suit)

    return _write(game_id, number, form, "set_trump", change)


@bp.post("/<int:game_id>/rounds/<int:number>/dealer")
def dealer(game_id: int, number: int) -> Response:
    form = play_forms.DealerForm()
    return _write(
        game_id,
        number,
        form,
        "change_dealer",
        lambda game, round_: games.change_dealer(game, round_, form.dealer.data),
    )


@bp.post("/<int:game_id>/rounds/<int:number>/bid")
def bid(game_id: int, number: int) -> Response:
    form = play_forms.BidForm()
    return _write(
        game_id,
        number,
        form,
        "bid",
        lambda game, round_: games.record_bid(game, round_, form.seat.data, form.bid.data),
    )


@bp.post("/<int:game_id>/rounds/<int:number>/bids")
def bids(game_id: int, number: int) -> Response:
    players = len(load_game(game_id).seats)
    form = play_forms.bids_form(players)
    return _write(
        game_id,
        number,
        form,
        "bids",
        lambda game, round_: games.record_bids(
            game, round_, play_forms.seat_values(form, "bid", players)
        ),
    )


@bp.post("/<int:game_id>/rounds/<int:number>/take-back")
def take_back_bid(game_id: int, number: int) -> Response:
    form = play_forms.PlainWriteForm()
    return _write(game_id, number, form, "take_back_bid", games.clear_last_bid)


@bp.post("/<int:game_id>/rounds/<int:number>/werewolf")
def werewolf(game_id: int, number: int) -> Response:
    form = play_forms.WerewolfForm()
    return _write(
        game_id,
        number,
        form,
        "werewolf",
        lambda game, round_: games.set_werewolf(game, round_, form.new_trump()),
    )


def _outcome(
    form: FlaskForm, bids: Mapping[int, int | None], players: int
) -> tuple[dict[int, int | None], rules.CloudChange | None, bool]:
    """Tricks, Cloud change and Bomb from a tricks or correction form, given the round's bids."""
    bomb = bool(form.bomb.data)
    cloud = None
    if form.cloud_seat.data is not None and form.cloud_change.data:
        seat = form.cloud_seat.data
        bid = bids.get(seat) if 0 <= seat < players else None
        # Without a bid there is nothing to change: the rules report the seat, not a number.
        new_bid = bid + form.cloud_change.data if bid is not None else 0
        cloud = rules.CloudChange(seat, new_bid)
    tricks = play_forms.seat_values(form, "tricks", players)
    if form.all_made.data:
        tricks = {seat: bids.get(seat) or 0 for seat in range(players)}
        if cloud is not None:
            tricks[cloud.seat] = cloud.new_bid
    return tricks, cloud, bomb


@bp.post("/<int:game_id>/rounds/<int:number>/tricks")
def tricks(game_id: int, number: int) -> Response:
    players = len(load_game(game_id).seats)
    form = play_forms.tricks_form(players)

    def change(game: Game, round_: Round | None) -> None:
        values, cloud, bomb = _outcome(form, games.bids_of(round_), players)
        games.record_tricks(game, round_, values, cloud=cloud, bomb=bomb)

    return _write(game_id, number, form, "record_round", change)


@bp.post("/<int:game_id>/undo")
def undo(game_id: int) -> Response:
    form = play_forms.PlainWriteForm()
    game = load_game(game_id)
    target = games.undoable(game)
    if target is None:
        return render_table(game, 422, notice=_("There is nothing to undo."))
    numbers = sorted(
        {r["number"] for r in target.before["rounds"]}
        | {r["number"] for r in target.after["rounds"]}
    )
    return _write(
        game_id,
        None,
        form,
        "undo",
        lambda game, _round: games.undo(game, target),
        rounds_touched=numbers,
    )


@bp.post("/<int:game_id>/abandon")
def abandon(game_id: int) -> Response:
    form = play_forms.PlainWriteForm()
    return _write(game_id, None, form, "abandon", lambda game, _round: games.abandon(game))


@bp.post("/<int:game_id>/again")
def play_again(game_id: int) -> Response:
    form = play_forms.PlainWriteForm()
    game = load_game(game_id)
    if not form.validate_on_submit():
        return render_table(game, 422, errors=form_errors(form))
    if game.status != GameStatus.FINISHED:
        notice = _("A new game with the same players starts once this one is over.")
        return render_table(game, 422, notice=notice)
    new_game = games.play_again(game, form.request_key.data)
    return done(new_game.id, swap=False)


@bp.route("/<int:game_id>/plan", methods=["GET", "POST"])
def later_rounds(game_id: int) -> Response | str:
    """A custom plan: change the cards of the rounds after the one being played."""
    game = load_game(game_id)
    current = games.open_round(game)
    if rules_of(game).plan.kind is not rules.PlanKind.CUSTOM or current is None:
        abort(404, _("Only a custom plan of a game in progress can change."))
    form = play_forms.LaterRoundsForm()
    later = rules_of(game).hand_sizes[current.number :]
    if request.method == "GET":
        form.later.data = ", ".join(str(size) for size in later)
        return render_template("play/plan.html", **table_context(game), form=form)
    if form.validate_on_submit():
        refusal = store(
            game, form, "edit_plan", [], lambda: games.edit_later_rounds(game, form.sizes())
        )
        if refusal is None:
            return done(game_id, swap=False)
        game = refusal.game
        errors = refusal.errors
    else:
        errors = form_errors(form)
    context = table_context(game, errors=errors)
    return Response(render_template("play/plan.html", **context, form=form), 422)


# --- the score sheet and corrections -------------------------------------------------------


@bp.get("/<int:game_id>/sheet")
def sheet(game_id: int) -> Response:
    game = load_game(game_id)
    context = table_context(game)
    response = Response(render_template("play/sheet.html", **context))
    response.vary.add("HX-Request")
    return response


def edit_values(round_: Round, form: FlaskForm) -> dict[str, Any]:
    """What the correction page shows as chosen: the posted values, else the stored round."""
    if form.is_submitted():
        return {
            name: (field.raw_data[0] if field.raw_data else None)
            for name, field in form._fields.items()
            if name not in ("csrf_token", "version", "request_key")
        } | {"bomb": bool(form.bomb.data)}
    values: dict[str, Any] = {
        "trump": f"{round_.trump_cause or ''}:{round_.trump or ''}",
        "bomb": round_.bomb_played,
        "cloud_seat": round_.cloud_seat,
        "cloud_change": None,
    }
    for entry in round_.entries:
        values[f"bid_{entry.seat}"] = entry.bid
        values[f"tricks_{entry.seat}"] = entry.tricks
        if entry.cloud_bid is not None and entry.bid is not None:
            values["cloud_change"] = entry.cloud_bid - entry.bid
    return values


def render_edit(
    game: Game,
    round_: Round,
    form: FlaskForm,
    *,
    errors: Errors | None = None,
    notice: str | None = None,
) -> str:
    """The correction page of a played round."""
    return render_template(
        "play/edit_round.html",
        **table_context(game, errors=errors, notice=notice),
        edit_round=round_,
        chosen=edit_values(round_, form),
        trump_causes=rules.trump_choice(rules_of(game), round_.number, round_.hand_size),
    )


@bp.route("/<int:game_id>/rounds/<int:number>/edit", methods=["GET", "POST"])
def edit_round(game_id: int, number: int) -> Response | str:
    game = load_game(game_id)
    round_ = next(
        (r for r in game.rounds if r.number == number and r.state == RoundState.SCORED), None
    )
    if round_ is None:
        abort(404, _("Round %(number)s has not been played yet.", number=number))
    players = len(game.seats)
    form = play_forms.edit_round_form(players)
    if request.method == "GET":
        return render_edit(game, round_, form)

    def change(game: Game, round_: Round | None) -> None:
        bids = play_forms.seat_values(form, "bid", players)
        values, cloud, bomb = _outcome(form, bids, players)
        cause, suit = (form.trump.data or ":").partition(":")[::2]
        games.edit_round(
            game,
            round_,
            cause=cause or None,
            trump=suit or None,
            bids=bids,
            tricks=values,
            cloud=cloud,
            bomb=bomb,
        )

    if not form.validate_on_submit():
        errors = form_errors(form)
        return Response(render_edit(game, round_, form, errors=errors), 422)
    refusal = store(game, form, "edit_round", [number], lambda: change(game, round_))
    if refusal is not None:
        round_ = next(r for r in refusal.game.rounds if r.number == number)
        body = render_edit(
            refusal.game, round_, form, errors=refusal.errors, notice=refusal.notice
        )
        return Response(body, refusal.status)
    return done(game_id, endpoint="play.sheet", swap=False)
