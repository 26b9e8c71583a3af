"""At the table: the round screen, each step of a round, corrections, undo and the end.

Every write goes through :func:`_write`: parse the form, let the rules decide (in
:mod:`scorekeeper.gameplay`), store through :func:`scorekeeper.changes.apply_change`, then
answer with the table fragment (htmx) or a redirect back to the table (plain form post).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, jsonify, redirect, request, url_for
from flask_htmx import make_response as htmx_response

from .. import changes, gameplay, rules
from ..extensions import htmx
from ..forms import table as forms
from ..forms.base import Form
from ..i18n import gettext as _
from ..models import ChangeAction, Game, GameStatus, Round, RoundState
from ..queries import (
    data_version,
    entered_on_paper,
    game_version,
    load_game,
    read_game,
    reload_game,
)
from ..records import rules_of
from .offline_table import kept_answer, offline_data, unavailable_reason, unavailable_text
from .rendering import page_tag, render, render_read_only
from .table_screen import (
    RESENT,
    STALE,
    resent_with_other_values,
    sealed_basis,
    sheet_context,
    store,
    table_context,
    table_etag,
)

bp = Blueprint("play", __name__, url_prefix="/games")


def render_table(game: Game, status: int = 200, **context: Any) -> Response:
    """The round screen: the table fragment for htmx, else the whole page."""
    return render("play/table.html", "play/_table.html", status, **table_context(game, **context))


@bp.get("/<int:game_id>")
def table(game_id: int) -> Response:
    return render_table(read_game(game_id))


@bp.get("/<int:game_id>/poll")
def table_poll(game_id: int) -> Response:
    """The round screen while bids come in from the players' own phones: the game's version
    as ETag, so a poll is a 304 until a bid (or anything else) is stored."""
    version = game_version(game_id)
    if version is None:
        abort(404)
    etag = table_etag(game_id, version)
    # The screen's forms carry this phone's own keys: a 304 keeps them, a 200 brings new ones.
    response = (
        Response(status=304) if request.if_none_match.contains_weak(etag) else table(game_id)
    )
    response.set_etag(etag, weak=True)
    response.cache_control.no_cache = True
    return response


@bp.get("/<int:game_id>/offline")
def offline_plan(game_id: int) -> Response:
    """What the table phone needs to keep rounds while the server cannot be reached (the
    offline plan, in the viewer's language): fetched by offline.js beside the table page,
    never inlined into it (the first load stays small)."""
    response = jsonify(offline_data(load_game(game_id)))
    response.cache_control.no_cache = True
    response.vary.add("Cookie")
    response.vary.add("Accept-Language")
    return response


# --- writing -------------------------------------------------------------------------------


def _write(
    game_id: int,
    number: int | None,
    form: forms.GameWriteForm,
    action: ChangeAction,
    change: Callable[[Game, Round | None], dict[str, Any] | None],
    *,
    rounds_touched: list[int] | None = None,
    sealed: bool = False,
    screen: dict[str, Any] | None = None,
) -> Response:
    """A write from the round screen: answered with the table, or a redirect to it.

    ``sealed``: hidden or secret bids, which stand on the current version when only other
    players' sealed bids came in since the page was shown (:func:`sealed_basis`). ``screen``:
    what a refused entry's table shows besides (the bid pad of the bid being changed)."""
    screen = screen or {}
    game = load_game(game_id)
    choices = forms.posted_choices(form)
    if not form.validate_on_submit():
        return render_table(game, 422, errors=form.messages(), choices=choices, **screen)
    if (recorded := changes.applied_change(form.request_key.data)) is not None:
        if resent_with_other_values(form, recorded):
            return render_table(game, 409, notice=str(RESENT))
        return done(game_id)
    round_ = None
    if number is not None:
        round_ = gameplay.open_round(game)
        if round_ is None or round_.number != number:
            if form.version.data != game.version:
                # Another phone moved the game on (it saved this round): nothing was stored.
                return render_table(game, 409, notice=str(STALE))
            notice = _("Round %(number)s is not the round being played.", number=number)
            return render_table(game, 422, notice=notice, choices=choices)
    touched = rounds_touched if rounds_touched is not None else ([number] if number else [])
    basis = sealed_basis(game, form) if sealed else None
    refusal = store(game, form, action, touched, lambda: change(game, round_), version=basis)
    if refusal is not None:
        return render_table(
            refusal.game,
            refusal.status,
            errors=form.messages(),
            notice=refusal.notice,
            choices=choices,
            **(screen if refusal.status == 422 else {}),
        )
    return done(game_id)


def done(game_id: int, *, endpoint: str = "play.table", swap: bool = True) -> Response:
    """After a successful write: the fresh table for htmx (``swap``), else go to ``endpoint``."""
    if htmx and swap:
        return render_table(reload_game(game_id))
    target = url_for(endpoint, game_id=game_id)
    if htmx:
        return htmx_response(redirect=target)
    return redirect(target, 303)


@bp.post("/<int:game_id>/rounds/<int:number>/trump")
def trump(game_id: int, number: int) -> Response:
    form = forms.TrumpForm()

    def change(game: Game, round_: Round | None) -> None:
        cause, suit = form.cause_and_trump()
        gameplay.set_trump(game, round_, cause, suit)

    return _write(game_id, number, form, ChangeAction.SET_TRUMP, change)


@bp.post("/<int:game_id>/rounds/<int:number>/dealer")
def dealer(game_id: int, number: int) -> Response:
    form = forms.DealerForm()
    return _write(
        game_id,
        number,
        form,
        ChangeAction.CHANGE_DEALER,
        lambda game, round_: gameplay.change_dealer(game, round_, form.dealer.data),
    )


@bp.post("/<int:game_id>/rounds/<int:number>/bid")
def bid(game_id: int, number: int) -> Response:
    form = forms.BidForm()
    return _write(
        game_id,
        number,
        form,
        ChangeAction.BID,
        lambda game, round_: gameplay.record_bid(game, round_, form.seat.data, form.bid.data),
    )


@bp.post("/<int:game_id>/rounds/<int:number>/bids")
def bids(game_id: int, number: int) -> Response:
    players = len(load_game(game_id).seats)
    form = forms.bids_form(players)
    return _write(
        game_id,
        number,
        form,
        ChangeAction.BIDS,
        lambda game, round_: gameplay.record_bids(
            game, round_, forms.seat_values(form, "bid", players)
        ),
        sealed=True,
    )


@bp.route("/<int:game_id>/rounds/<int:number>/bids/<int:seat>", methods=["GET", "POST"])
def change_bid(game_id: int, number: int, seat: int) -> Response:
    """A bid already made in the round being played: tapped, it shows the bid pad for that
    player (GET); the new bid is checked again with every other bid and stored (POST)."""
    if request.method == "GET":
        game = load_game(game_id)
        round_ = gameplay.open_round(game)
        if (
            round_ is None
            or round_.number != number
            or not gameplay.bid_can_change(game, round_, seat)
        ):
            notice = _("This bid can no longer be changed.")
            return render_table(game, 404, notice=notice)
        return render_table(game, changing_seat=seat)
    form = forms.ChangeBidForm()
    return _write(
        game_id,
        number,
        form,
        ChangeAction.CHANGE_BID,
        lambda game, round_: gameplay.change_bid(game, round_, seat, form.bid.data),
        screen={"changing_seat": seat},
    )


@bp.post("/<int:game_id>/rounds/<int:number>/take-back")
def take_back_bid(game_id: int, number: int) -> Response:
    form = forms.PlainWriteForm()
    return _write(game_id, number, form, ChangeAction.TAKE_BACK_BID, gameplay.clear_last_bid)


@bp.post("/<int:game_id>/rounds/<int:number>/werewolf")
def werewolf(game_id: int, number: int) -> Response:
    form = forms.WerewolfForm()
    return _write(
        game_id,
        number,
        form,
        ChangeAction.WEREWOLF,
        lambda game, round_: gameplay.set_werewolf(game, round_, form.new_trump()),
    )


@bp.post("/<int:game_id>/rounds/<int:number>/tricks")
def tricks(game_id: int, number: int) -> Response:
    players = len(load_game(game_id).seats)
    form = forms.tricks_form(players)

    def change(game: Game, round_: Round | None) -> None:
        if round_ is not None and rules.bids_are_secret(rules_of(game), scored=False):
            # "Everyone made their bid" is not offered while the bids are secret: taken
            # from a forged post it would fill in the sealed bids, and its refusal ("the
            # tricks add up to N") would tell their sum. The tricks typed count, as shown.
            form.all_made.data = ""
        values, cloud, bomb = form.outcome(gameplay.bids_of(round_), players)
        gameplay.record_tricks(game, round_, values, cloud=cloud, bomb=bomb)

    return _write(game_id, number, form, ChangeAction.RECORD_ROUND, change)


@bp.post("/<int:game_id>/rounds/<int:number>/kept")
def kept_round(game_id: int, number: int) -> Response:
    """A round kept on the table phone while the server could not be reached, sent whole
    with its own request key (sent again, it is stored once) and checked again by the rules.
    Answered in JSON for offline.js: stored; a conflict (the round here is another one:
    both are shown, the table chooses); refused (the rules say why); retry (a race)."""
    game = load_game(game_id)
    if (reason := unavailable_reason(game)) is not None:
        # Hidden or secret bids, the Jubilee cards, the players' own phones: the plan has no
        # rounds for the phone to keep, so no kept round is looked at, stored or answered with
        # the server's round (its bids may be sealed).
        return kept_answer(game, 403, "refused", problems=[unavailable_text(reason)])
    players = len(game.seats)
    form = forms.kept_round_form(players)
    if not form.validate_on_submit():
        return kept_answer(game, 422, "refused", problems=_flat(form.messages()))
    bids = forms.seat_values(form, "bid", players)
    tricks, cloud, bomb = form.outcome(bids, players)
    cause, suit = forms.split_trump(form.trump.data)
    scored = next(
        (r for r in game.rounds if r.number == number and r.state == RoundState.SCORED), None
    )
    if (recorded := changes.applied_change(form.request_key.data)) is not None:
        # Stored already only if that key saved this very round of this game: a key of
        # another round or game (or another change) stored nothing here.
        where = (recorded.game_id, recorded.round_number, recorded.action)
        elsewhere = where != (game.id, number, ChangeAction.RECORD_ROUND)
        if elsewhere or resent_with_other_values(form, recorded):
            return kept_answer(game, 409, "conflict", server_round=scored)
        return kept_answer(game, 200, "stored")
    if scored is not None:
        if gameplay.kept_round_matches(game, scored, cause, suit, bids, tricks):
            return kept_answer(game, 200, "stored")  # another phone saved it just so
        return kept_answer(game, 409, "conflict", server_round=scored)
    round_ = gameplay.open_round(game)
    if round_ is None or round_.number != number or game.status != GameStatus.IN_PROGRESS:
        notice = _("Round %(number)s is not the round being played.", number=number)
        return kept_answer(game, 422, "refused", problems=[notice])

    def change() -> None:
        gameplay.record_kept_round(
            game,
            round_,
            cause=cause,
            trump=suit,
            bids=bids,
            tricks=tricks,
            cloud=cloud,
            bomb=bomb,
            dealt=(form.dealer.data, form.cards.data),
            replace=replace,
        )

    # A kept round stands on what the round holds, checked entry by entry (the phone could
    # not see the versions written meanwhile, some by its own late requests); replacing what
    # the round holds ("keep ours") stands on the version the table chose on.
    replace = bool(form.replace.data)
    try:
        refusal = store(
            game,
            form,
            ChangeAction.RECORD_ROUND,
            [number],
            change,
            version=None if replace else game.version,
        )
    except gameplay.KeptRoundDiffers:
        fresh = reload_game(game_id)
        return kept_answer(fresh, 409, "conflict", server_round=gameplay.open_round(fresh))
    if refusal is None:
        return kept_answer(reload_game(game_id), 200, "stored")
    if refusal.status == 422:
        return kept_answer(refusal.game, 422, "refused", problems=_flat(form.messages()))
    if replace:  # changed again since the table chose: show it what is there now
        fresh = refusal.game
        return kept_answer(fresh, 409, "conflict", server_round=gameplay.open_round(fresh))
    return kept_answer(refusal.game, 409, "retry")


def _flat(messages: dict[str, list[str]]) -> list[str]:
    found: list[str] = []
    for texts in messages.values():
        found.extend(text for text in texts if text not in found)
    return found


@bp.post("/<int:game_id>/undo")
def undo(game_id: int) -> Response:
    form = forms.PlainWriteForm()
    game = load_game(game_id)
    target = changes.undoable(game)
    if target is None:
        return render_table(game, 422, notice=_("There is nothing to undo."))
    return _write(
        game_id,
        None,
        form,
        ChangeAction.UNDO,
        lambda game, _round: changes.undo(game, target),
        rounds_touched=changes.rounds_of(target),
    )


@bp.post("/<int:game_id>/abandon")
def abandon(game_id: int) -> Response:
    form = forms.PlainWriteForm()
    return _write(
        game_id, None, form, ChangeAction.ABANDON, lambda game, _round: gameplay.abandon(game)
    )


@bp.post("/<int:game_id>/again")
def play_again(game_id: int) -> Response:
    form = forms.PlainWriteForm()
    game = load_game(game_id)
    if not form.validate_on_submit():
        return render_table(game, 422, errors=form.messages())
    if game.status != GameStatus.FINISHED:
        notice = _("A new game with the same players starts once this one is over.")
        return render_table(game, 422, notice=notice)
    new_game = gameplay.play_again(game, form.request_key.data)
    return done(new_game.id, swap=False)


@bp.route("/<int:game_id>/plan", methods=["GET", "POST"])
def later_rounds(game_id: int) -> Response:
    """A custom plan: change the cards of the rounds after the one being played."""
    game = load_game(game_id)
    current = gameplay.open_round(game)
    if not rules_of(game).plan_editable or current is None:
        abort(404, _("Only a custom plan of a game in progress can change."))
    form = forms.LaterRoundsForm()
    if request.method == "GET":
        form.show_later(rules_of(game).hand_sizes[current.number :])
        return render("play/plan.html", **table_context(game), form=form)
    if form.validate_on_submit():
        refusal = store(
            game,
            form,
            ChangeAction.EDIT_PLAN,
            [],
            lambda: gameplay.edit_later_rounds(game, form.sizes()),
        )
        if refusal is None:
            return done(game_id, swap=False)
        game = refusal.game
    context = table_context(game, errors=form.messages())
    return render("play/plan.html", None, 422, **context, form=form)


# --- the score sheet and corrections -------------------------------------------------------


@bp.get("/<int:game_id>/sheet")
def sheet(game_id: int) -> Response:
    # Only reads (corrections open their own pages): the same for every phone.
    return render_read_only(
        page_tag("sheet", game_id, data_version()),
        "play/sheet.html",
        None,
        lambda: sheet_context(read_game(game_id)) | {"on_paper": entered_on_paper(game_id)},
    )


def render_edit(
    game: Game,
    round_: Round,
    form: Form,
    *,
    status: int = 200,
    notice: str | None = None,
) -> Response:
    """The correction page of a played round: the posted values, else the stored round."""
    choices = forms.posted_choices(form) if form.is_submitted() else forms.round_choices(round_)
    game_rules = rules_of(game)
    return render(
        "play/edit_round.html",
        None,
        status,
        **table_context(game, errors=form.messages(), notice=notice, choices=choices),
        edit_round=round_,
        edit_bidders=rules.bid_order(game_rules, round_.dealer),
        trump_options=rules.trump_choice(game_rules, round_.number, round_.hand_size).options,
    )


@bp.route("/<int:game_id>/rounds/<int:number>/edit", methods=["GET", "POST"])
def edit_round(game_id: int, number: int) -> Response:
    game = load_game(game_id)
    round_ = next(
        (r for r in game.rounds if r.number == number and r.state == RoundState.SCORED), None
    )
    if round_ is None:
        abort(404, _("Round %(number)s has not been played yet.", number=number))
    players = len(game.seats)
    form = forms.edit_round_form(players)
    if request.method == "GET":
        return render_edit(game, round_, form)

    def change() -> None:
        bids = forms.seat_values(form, "bid", players)
        values, cloud, bomb = form.outcome(bids, players)
        cause, suit = forms.split_trump(form.trump.data)
        gameplay.edit_round(
            game, round_, cause=cause, trump=suit, bids=bids, tricks=values, cloud=cloud, bomb=bomb
        )

    if not form.validate_on_submit():
        return render_edit(game, round_, form, status=422)
    refusal = store(game, form, ChangeAction.EDIT_ROUND, [number], change)
    if refusal is not None:
        fresh = next(r for r in refusal.game.rounds if r.number == number)
        return render_edit(refusal.game, fresh, form, status=refusal.status, notice=refusal.notice)
    return done(game_id, endpoint="play.sheet", swap=False)
