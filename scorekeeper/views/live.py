"""The read-only live view: the standings on the other phones at the table.

It polls every few seconds and costs almost nothing while the game does not change: each
answer carries the game's version as its ETag, and a poll whose ``If-None-Match`` still
matches gets an empty 304 after one small query.
"""

from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for

from ..models import Game
from ..queries import live_version, live_version_outside, load_game, read_game, seat_links
from .addresses import ANNOUNCED_FILE, public_url, remember_announced
from .addresses import qr_svg as _qr
from .rendering import read_only, render, viewer_tag
from .table_screen import board_context

bp = Blueprint("live", __name__)

# Kept importable from here (the CLI and tests name them so).
__all__ = ["ANNOUNCED_FILE", "remember_announced"]


def _etag(game_id: int, version: int, part: str) -> str:
    # The viewer's language and time zone too: the same version reads differently in each.
    return f"{part}-{game_id}-{version}-{viewer_tag()}"


def _conditional(token: str, part: str) -> tuple[int, str] | Response:
    """The game's id and current ETag, or a ready 304 when the phone is up to date: then
    after one small query outside the page's session (a poll as cheap as /healthz)."""
    if request.if_none_match:
        known = live_version_outside(token)
        if known is not None:
            etag = _etag(known.id, known.version, part)
            if request.if_none_match.contains_weak(etag):
                return read_only(etag, lambda: Response(status=304))
    # Changed (or a first visit): the version the page is rendered and kept by, read in the
    # page's own session.
    found = live_version(token)
    if found is None:
        abort(404)
    return found.id, _etag(found.id, found.version, part)


def live_context(game: Game) -> dict[str, Any]:
    return board_context(game) | {
        "poll_seconds": current_app.config.get("LIVE_POLL_SECONDS", 3),
        "board_url": url_for("live.board", token=game.live_token),
        # As the header sends it (quoted): the page skips swapping an unchanged board.
        "board_etag": f'W/"{_etag(game.id, game.version, "board")}"',
    }


def _serve(token: str, part: str, template: str) -> Response:
    checked = _conditional(token, part)
    if isinstance(checked, Response):
        return checked
    game_id, etag = checked
    # The same for every phone until the game changes; a phone asks every time (no-cache)
    # and gets a 304 until then.
    return read_only(
        etag, lambda: Response(render_template(template, **live_context(read_game(game_id))))
    )


@bp.get("/live/<token>")
def page(token: str) -> Response:
    """The live view's page (it includes the board, which refreshes itself)."""
    return _serve(token, "page", "live/page.html")


@bp.get("/live/<token>/board")
def board(token: str) -> Response:
    """The part of the live view that polls: round, trump, bids and standings."""
    return _serve(token, "board", "live/_board.html")


@bp.get("/games/<int:game_id>/share")
def share(game_id: int) -> Response:
    """The live link for the other phones, as text and as a QR code; and each player's own
    link (to bid on their own phone), made, renewed or turned off here."""
    game = load_game(game_id)
    url = public_url("live.page", token=game.live_token)
    links = seat_links(game)
    phones = []
    for seat in game.seats:
        token = links.get(seat.position)
        seat_url = public_url("seat.page", token=token) if token else None
        phones.append((seat.position, seat.player.name, seat_url, _qr(seat_url)))
    return render("live/share.html", game=game, url=url, qr=_qr(url), phones=phones)
