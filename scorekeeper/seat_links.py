"""Each player's own phone: a link per seat whose unguessable token is the only key.

A link lets its holder see the round and bid for that one seat (:mod:`scorekeeper.views.seat`);
it is not a fact of the game (no version, no history). A new link replaces a seat's token, so
the old one stops working at once; turning it off deletes it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

import sqlalchemy as sa

from .changes import begin_write
from .extensions import db
from .models import Game, Seat, SeatLink


def new_token() -> str:
    """192 random bits, URL-safe: not to be guessed, nor found by trying."""
    return secrets.token_urlsafe(24)


def renew(game: Game, positions: Iterable[int]) -> None:
    """A fresh link for each of these seats (positions outside the game are ignored)."""
    by_position = {seat.position: seat.id for seat in game.seats}
    begin_write()
    for position in positions:
        seat_id = by_position.get(position)
        if seat_id is None:
            continue
        link = db.session.get(SeatLink, seat_id)
        if link is None:
            db.session.add(SeatLink(seat_id=seat_id, token=new_token()))
        else:
            link.token = new_token()
    db.session.commit()


def end(game: Game, position: int) -> None:
    """Turn a seat's link off: its token stops working at once."""
    begin_write()
    db.session.execute(
        sa.delete(SeatLink).where(
            SeatLink.seat_id.in_(
                sa.select(Seat.id).where(Seat.game_id == game.id, Seat.position == position)
            )
        )
    )
    db.session.commit()
