"""A player's own phone: the round, the trump and — when it is their turn, or at once with
hidden or secret bids — their bid pad, through a link whose token is the only key.

The page polls like the live view (the game's version as ETag, a 304 while nothing changes)
and is kept per seat token, never shared between seats: it shows the seat's own bid. Bids
from here go through the same commands and the same versioned write as the table's
(:func:`scorekeeper.gameplay.record_bid`, :func:`scorekeeper.gameplay.seal_bid`); a hidden or
secret round's bids stay sealed, on every screen but the bidder's own, until the last is in.
The links themselves are made and revoked from the table's share page (password-protected
like the table; the seat pages are not, as the live view is not).
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from .. import changes, gameplay, rules, seat_links
from ..extensions import htmx
from ..forms import table as forms
from ..forms.base import new_request_key
from ..i18n import gettext as _
from ..models import ChangeAction, Game
from ..queries import load_game, read_game, reload_game, seat_version
from ..queries import seat_links as links_by_seat
from ..records import rules_of
from .rendering import viewer_tag
from .table_screen import (
    RESENT,
    STALE,
    board_context,
    resent_with_other_values,
    sealed_basis,
    store,
)

bp = Blueprint("seat", __name__)


def _etag(game_id: int, seat: int, version: int) -> str:
    # The viewer's language and time zone too: the same version reads differently in each.
    return f"seat-{game_id}-{seat}-{version}-{viewer_tag()}"


def _link(token: str) -> tuple[int, int, int]:
    """The game id, seat and version behind a seat link; a 404 for any other token."""
    found = seat_version(token)
    if found is None:
        abort(404)
    return found.id, found.position, found.version


def seat_context(
    game: Game,
    seat: int,
    token: str,
    *,
    errors: dict[str, list[str]] | None = None,
    notice: str | None = None,
) -> dict[str, Any]:
    """What a player's phone shows: the round as the table sees it, their own bid, and the
    bid pad when they may bid now (with the forbidden bid the table would strike)."""
    context = board_context(game, errors=errors, notice=notice)
    round_ = context["round"]
    own_bid = None
    can_bid = False
    waiting: list[str] = []
    if round_ is not None:
        own_bid = gameplay.bids_of(round_).get(seat)
        if context["step"] == gameplay.Step.BIDS:
            if context["rules"].bid_reveal is rules.BidReveal.OPEN:
                can_bid = context["next_bidder"] == seat
            else:
                can_bid = seat in context["bid_order"] and own_bid is None
                waiting = [
                    context["names"][s] for s in context["bid_order"] if not context["has_bid"][s]
                ]
    return context | {
        "seat": seat,
        "own_bid": own_bid,
        "can_bid": can_bid,
        "waiting": waiting,
        "token": token,
        "request_key": new_request_key,
        "poll_seconds": current_app.config.get("LIVE_POLL_SECONDS", 3),
        "pad_url": url_for("seat.pad", token=token),
        "pad_etag": f'W/"{_etag(game.id, seat, game.version)}"',
    }


def _serve(token: str, template: str) -> Response:
    game_id, seat, version = _link(token)
    etag = _etag(game_id, seat, version)
    if request.if_none_match.contains_weak(etag):
        response = Response(status=304)
    else:
        # The bid pad's form carries this phone's own keys: a 304 keeps them.
        response = Response(
            render_template(template, **seat_context(read_game(game_id), seat, token))
        )
    response.set_etag(etag, weak=True)
    response.cache_control.no_cache = True
    return response


@bp.get("/seat/<token>")
def page(token: str) -> Response:
    """A player's own phone: the whole page (it includes the part that polls)."""
    return _serve(token, "seat/page.html")


@bp.get("/seat/<token>/pad")
def pad(token: str) -> Response:
    """The part of a player's page that polls: round, trump, their bid pad, standings."""
    return _serve(token, "seat/_pad.html")


def _answer(game: Game, seat: int, token: str, status: int = 200, **extra: Any) -> Response:
    template = "seat/_pad.html" if htmx and not htmx.boosted else "seat/page.html"
    response = Response(
        render_template(template, **seat_context(game, seat, token, **extra)), status
    )
    response.vary.add("HX-Request")
    return response


def _done(game_id: int, seat: int, token: str) -> Response:
    if htmx:
        return _answer(reload_game(game_id), seat, token)
    return redirect(url_for("seat.page", token=token), 303)


@bp.post("/seat/<token>/bid")
def bid(token: str) -> Response:
    """This seat's bid: in turn with open bids, sealed until all are in with hidden or secret
    bids. Refused like the table's (stale page 409, broken rule 422): nothing is stored."""
    game_id, seat, _version = _link(token)
    game = load_game(game_id)
    form = forms.SeatBidForm()
    if not form.validate_on_submit():
        return _answer(game, seat, token, 422, errors=form.messages())
    if (recorded := changes.applied_change(form.request_key.data)) is not None:
        if resent_with_other_values(form, recorded):
            return _answer(game, seat, token, 409, notice=str(RESENT))
        return _done(game_id, seat, token)
    round_ = gameplay.open_round(game)
    if round_ is None or round_.number != form.round.data:
        if form.version.data != game.version:
            return _answer(game, seat, token, 409, notice=str(STALE))
        notice = _("Round %(number)s is not the round being played.", number=form.round.data)
        return _answer(game, seat, token, 422, notice=notice)
    sealed = rules_of(game).bid_reveal is not rules.BidReveal.OPEN
    if sealed:
        refusal = store(
            game,
            form,
            ChangeAction.SEAL_BID,
            [round_.number],
            lambda: gameplay.seal_bid(game, round_, seat, form.bid.data),
            version=sealed_basis(game, form),
        )
    else:
        refusal = store(
            game,
            form,
            ChangeAction.BID,
            [round_.number],
            lambda: gameplay.record_bid(game, round_, seat, form.bid.data),
        )
    if refusal is not None:
        return _answer(
            refusal.game,
            seat,
            token,
            refusal.status,
            errors=form.messages(),
            notice=refusal.notice,
        )
    return _done(game_id, seat, token)


# --- the links, made and revoked at the table ------------------------------------------------


@bp.post("/games/<int:game_id>/seat-links")
def renew_links(game_id: int) -> Response:
    """New links: for the seat chosen, or for every seat without one. A seat's earlier link
    stops working."""
    game = load_game(game_id)
    form = forms.SeatLinksForm()
    if not form.validate_on_submit():
        abort(422, _("The page is incomplete: reload it."))
    if form.seat.data is None:
        have = set(links_by_seat(game))
        seat_links.renew(game, [s.position for s in game.seats if s.position not in have])
    else:
        seat_links.renew(game, [form.seat.data])
    return redirect(url_for("live.share", game_id=game_id) + "#own-phones", 303)


@bp.post("/games/<int:game_id>/seat-links/off")
def end_link(game_id: int) -> Response:
    """Turn one seat's link off: that phone gets a 404 from now on."""
    game = load_game(game_id)
    form = forms.SeatLinksForm()
    if not form.validate_on_submit() or form.seat.data is None:
        abort(422, _("The page is incomplete: reload it."))
    seat_links.end(game, form.seat.data)
    return redirect(url_for("live.share", game_id=game_id) + "#own-phones", 303)
