"""The roster and each player's statistics over a chosen period."""

import json
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from flask import Blueprint, Response, abort, render_template, request

from .. import records, rules, stats
from ..extensions import db
from ..models import Entry, Game, GameStatus, Player, Round, RoundState, Seat
from .history import PeriodFilter, page_or_fragment, period_conditions

bp = Blueprint("players", __name__, url_prefix="/players")


@bp.get("/")
def index() -> str:
    finished = (
        sa.select(Seat.player_id, sa.func.count(Seat.id).label("games"))
        .join(Game)
        .where(Game.status == GameStatus.FINISHED)
        .group_by(Seat.player_id)
        .subquery()
    )
    roster = db.session.execute(
        sa.select(Player, sa.func.coalesce(finished.c.games, 0))
        .outerjoin(finished, finished.c.player_id == Player.id)
        .order_by(Player.name_key)
    ).all()
    return render_template("players/index.html", roster=roster)


def played_games(player: Player, conditions: list[Any]) -> list[stats.PlayedGame]:
    """The player's finished games in the period, as score sheets, in three queries.

    A regular player has hundreds of games; loading them as ORM objects cost most of the
    page's time, so plain rows are read and turned into the rules module's round records
    (the same conversion as ``records.round_record``).
    """
    chosen = (
        sa.select(Game.id)
        .where(
            Game.status == GameStatus.FINISHED,
            Game.seats.any(Seat.player_id == player.id),
            *conditions,
        )
        .scalar_subquery()
    )
    games = db.session.execute(
        sa.select(Game.id, Game.created_at, Game.rules)
        .where(Game.id.in_(chosen))
        .order_by(Game.created_at, Game.id)
    ).all()
    seats: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for game_id, player_id, name in db.session.execute(
        sa.select(Seat.game_id, Seat.player_id, Player.name)
        .join(Player)
        .where(Seat.game_id.in_(chosen))
        .order_by(Seat.game_id, Seat.position)
    ):
        seats[game_id].append((player_id, name))
    entries: dict[int, dict[int, list[tuple]]] = defaultdict(dict)
    for game_id, *row in db.session.execute(
        sa.select(
            Round.game_id,
            Round.number,
            Round.hand_size,
            Round.dealer,
            Round.bomb_played,
            Entry.seat,
            Entry.bid,
            Entry.cloud_bid,
            Entry.tricks,
        )
        .join(Entry)
        .where(Round.game_id.in_(chosen), Round.state == RoundState.SCORED)
        .order_by(Round.game_id, Round.number, Entry.seat)
    ):
        entries[game_id].setdefault(row[0], []).append(tuple(row))
    rules_cache: dict[str, rules.GameRules] = {}
    played = []
    for game_id, created_at, stored_rules in games:
        key = json.dumps(stored_rules, sort_keys=True)
        if key not in rules_cache:
            rules_cache[key] = rules.GameRules.from_dict(stored_rules)
        game_rules = rules_cache[key]
        ids = tuple(player_id for player_id, _name in seats[game_id])
        records = [round_record(rows, game_rules.players) for rows in entries[game_id].values()]
        played.append(
            stats.PlayedGame(
                game_id=game_id,
                created_at=created_at,
                seat=ids.index(player.id),
                player_ids=ids,
                names=tuple(name for _id, name in seats[game_id]),
                sheet=rules.score_sheet(game_rules, records),
            )
        )
    return played


def round_record(rows: list[tuple], players: int) -> rules.RoundRecord:
    """One scored round from its entry rows.

    Each row is (number, hand_size, dealer, bomb_played, seat, bid, cloud_bid, tricks).
    """
    number, hand_size, dealer, bomb_played = rows[0][:4]
    entries = (tuple(row[4:]) for row in rows)
    return records.record_from(number, hand_size, dealer, bomb_played, entries, players)


@bp.get("/<int:player_id>")
def player(player_id: int) -> Response:
    found = db.session.get(Player, player_id)
    if found is None:
        abort(404)
    form = PeriodFilter(formdata=request.args)
    context: dict[str, Any] = {"player": found, "form": form, "stats": None}
    if not form.validate():
        return page_or_fragment("players/player.html", "players/_stats.html", 422, **context)
    conditions = period_conditions(form.date_from.data, form.date_to.data)
    context["stats"] = stats.player_stats(found.id, played_games(found, conditions))
    return page_or_fragment("players/player.html", "players/_stats.html", **context)
