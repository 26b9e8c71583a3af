"""The read-only live view: the standings on the other phones at the table.

It polls every few seconds and costs almost nothing while the game does not change: each
answer carries the game's version as its ETag, and a poll whose ``If-None-Match`` still
matches gets an empty 304 after one small query.
"""

import contextlib
import ipaddress
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Blueprint, Response, abort, current_app, render_template, request, url_for

from ..models import Game
from ..queries import live_version, load_game, seat_links
from .rendering import kept_html, render, viewer_tag
from .table_screen import table_context

bp = Blueprint("live", __name__)

# The address `flask announce` printed at start (the LAN address), kept in the instance folder.
ANNOUNCED_FILE = "announced_url"


def _etag(game_id: int, version: int, part: str) -> str:
    # The viewer's language and time zone too: the same version reads differently in each.
    return f"{part}-{game_id}-{version}-{viewer_tag()}"


def _conditional(token: str, part: str) -> tuple[int, str] | Response:
    """The game's id and current ETag, or a ready 304 when the phone is up to date."""
    found = live_version(token)
    if found is None:
        abort(404)
    etag = _etag(found.id, found.version, part)
    if etag in request.if_none_match:
        response = Response(status=304)
        response.set_etag(etag)
        response.cache_control.no_cache = True
        return response
    return found.id, etag


def _live_response(template: str, etag: str, context: Callable[[], dict[str, Any]]) -> Response:
    # The same for every phone until the game changes: rendered once per version (the ETag).
    response = Response(
        kept_html((etag, template), lambda: render_template(template, **context()))
    )
    response.set_etag(etag)
    # Keep a copy but ask every time: the answer is a 304 until the game changes.
    response.cache_control.no_cache = True
    return response


def live_context(game: Game) -> dict[str, Any]:
    return table_context(game) | {
        "poll_seconds": current_app.config.get("LIVE_POLL_SECONDS", 3),
        "board_url": url_for("live.board", token=game.live_token),
        # As the header sends it (quoted): the page skips swapping an unchanged board.
        "board_etag": f'"{_etag(game.id, game.version, "board")}"',
    }


def _serve(token: str, part: str, template: str) -> Response:
    checked = _conditional(token, part)
    if isinstance(checked, Response):
        return checked
    game_id, etag = checked
    return _live_response(template, etag, lambda: live_context(load_game(game_id)))


@bp.get("/live/<token>")
def page(token: str) -> Response:
    """The live view's page (it includes the board, which refreshes itself)."""
    return _serve(token, "page", "live/page.html")


@bp.get("/live/<token>/board")
def board(token: str) -> Response:
    """The part of the live view that polls: round, trump, bids and standings."""
    return _serve(token, "board", "live/_board.html")


def remember_announced(instance_path: str, url: str) -> None:
    """Keep the address announced at start, for links opened at localhost (best effort)."""
    with contextlib.suppress(OSError):
        (Path(instance_path) / ANNOUNCED_FILE).write_text(url + "\n", encoding="utf-8")


def _announced() -> str | None:
    try:
        text = (Path(current_app.instance_path) / ANNOUNCED_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text.strip() or None


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _port(parts: Any) -> int:
    try:
        port = parts.port
    except ValueError:
        return -1
    return port or (443 if parts.scheme == "https" else 80)


def public_base() -> str | None:
    """The address other phones reach this app at, when the request's own is not it:
    ``PUBLIC_URL`` when the host set one, else — for a page opened at localhost — the address
    ``flask announce`` printed for the same port. None: the request's address is right (behind
    a proxy, ProxyFix made it so)."""
    if configured := current_app.config.get("PUBLIC_URL"):
        return str(configured)
    here = urlsplit(request.host_url)
    if not _is_loopback(here.hostname):
        return None
    announced = _announced()
    if announced is None:
        return None
    there = urlsplit(announced)
    if there.scheme not in ("http", "https") or not there.hostname:
        return None
    # An address announced for another server (another port) is not this one's.
    return announced if _port(there) == _port(here) else None


def public_url(endpoint: str, **values: Any) -> str:
    """An absolute link for another phone (see :func:`public_base`)."""
    base = public_base()
    if base is None:
        return url_for(endpoint, _external=True, **values)
    path = url_for(endpoint, **values)
    root = request.script_root
    if root and path.startswith(root):
        path = path[len(root) :]
    return base.rstrip("/") + path


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


def _qr(url: str | None) -> str | None:
    # No fixed size: the SVG scales to its box through its viewBox.
    if url is None:
        return None
    return segno.make(url, error="m").svg_inline(
        border=2, dark="#1d232b", light="#ffffff", omitsize=True
    )
