"""Events: set one up, draw each session's seating, start the tables' games, the board for a
projector, and the results with every game (CSV and JSON).

Every write is a real form posting to its own address; a refusal comes back as the event
page with the message next to the input (422), a success redirects to the page (303).
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from cachetools import LRUCache
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

from .. import events as service
from .. import rules
from ..exchange.export import neutralise
from ..forms import events as forms
from ..forms.base import Form
from ..forms.setup import NAME_MAX_LENGTH
from ..i18n import gettext as _
from ..models import Event
from ..queries import EventRead, read_event, roster_by_games_played
from ..reports import events as plan
from ..wording import formats, messages
from .addresses import public_url, qr_svg
from .rendering import read_only, render, viewer_tag

bp = Blueprint("events", __name__)

# --- setting up ----------------------------------------------------------------------------


def _setup_context(form: forms.NewEventForm) -> dict[str, Any]:
    roster = roster_by_games_played()
    listed = {p.name_key for p in roster if p.name in form.seats.data}
    return {
        "form": form,
        "roster": [player for player in roster if player.name_key not in listed],
        "max_players": forms.MAX_EVENT_PLAYERS,
        "name_max_length": NAME_MAX_LENGTH,
        "plan_kinds": [kind for kind in rules.PlanKind if kind != rules.PlanKind.CUSTOM],
        "bid_rules": list(rules.BidRule),
        "bid_reveals": list(rules.BidReveal),
        "tie_breaks": list(rules.TieBreak),
        "table_notes": rules.TABLE_ONLY_RULES,
        "methods": [messages.Choice(m.value, method_label(m.value)) for m in plan.Method],
        "sizes": _sizes_preview(form),
    }


def _sizes_preview(form: forms.NewEventForm) -> tuple[int, ...]:
    if len(form.seats.data) < plan.MIN_TABLE:
        return ()
    return plan.table_sizes(len(form.seats.data), form.preferred_size())


@bp.get("/events")
def index() -> Response:
    return render("events/index.html", events=service.recent_events())


@bp.route("/events/new", methods=["GET", "POST"])
def new_event() -> Response:
    form = forms.NewEventForm()
    if request.method == "GET":
        return render("events/new.html", **_setup_context(form))
    roster = {p.name_key: p.name for p in roster_by_games_played()}
    action = form.action.data or ""
    if action == "enter":
        action = "add" if (form.new_name.data or "").strip() else ""
    verb, _sep, argument = action.partition(":")
    status = 200
    if verb == "add":
        if form.add_player(argument or form.new_name.data, roster):
            if not argument:
                form.new_name.data = ""
            form.focus_name = not argument
        else:
            status = 422
    elif verb == "remove":
        index = forms.whole_number(argument, 0, forms.MAX_EVENT_PLAYERS)
        if index is not None and index < len(form.seats.data):
            del form.seats.data[index]
    elif verb == "create":
        return _create(form, roster)
    return render("events/new.html", None, status, **_setup_context(form))


def _create(form: forms.NewEventForm, roster: dict[str, str]) -> Response:
    if (form.new_name.data or "").strip() and not form.add_player(form.new_name.data, roster):
        return render("events/new.html", None, 422, **_setup_context(form))
    if not form.validate():
        return render("events/new.html", None, 422, **_setup_context(form))
    template = form.rules_template()
    if template is None:
        return render("events/new.html", None, 422, **_setup_context(form))
    day = form.event_day()
    assert day is not None  # validated above
    try:
        event = service.create_event(
            name=form.event_name(),
            day=day,
            names=form.names(),
            table_size=form.preferred_size(),
            session_count=form.sessions(),
            rules_template=template,
            method=form.method.data or plan.Method.PLACEMENT,
            request_key=form.request_key.data,
        )
    except service.EventRefused as refused:
        form.add_message(refused.field, refused.message)
        return render("events/new.html", None, 422, **_setup_context(form))
    return redirect(url_for("events.page", event_id=event.id), 303)


# --- the organiser's page ------------------------------------------------------------------


def _points(event: Event, points: Fraction) -> str:
    if event.method == plan.Method.SCORE:
        return formats.whole(int(points))
    return formats.two_decimals(float(points))


def standings_rows(event: Event) -> list[dict[str, Any]]:
    names = service.player_names(event)
    return [
        {
            "rank": line.rank,
            "name": names.get(line.player, "?"),
            "player_id": line.player,
            "points": _points(event, line.points),
            "games": line.games,
            "score": line.score,
            "bids_met": line.bids_met,
            "bid_sum": line.bid_sum,
        }
        for line in service.event_standings(event)
    ]


def event_context(event: Event) -> dict[str, Any]:
    """Everything the organiser's page and the results show of an event (the board shows
    less: :func:`board_context`)."""
    latest = service.latest_session(event)
    sessions = [
        {
            "session": session,
            "tables": [service.table_progress(event, table) for table in session.tables],
            "over": service.session_over(session),
        }
        for session in event.sessions
    ]
    drawn = latest is not None and latest.started_at is None
    playing = latest is not None and latest.started_at is not None
    playing = playing and not service.session_over(latest)
    next_number = (latest.number + (0 if drawn else 1)) if latest else 1
    return {
        "event": event,
        "sessions": sessions,
        "latest": latest,
        "drawn": drawn,
        "playing": playing,
        "can_draw": event.finished_at is None
        and not playing
        and (drawn or next_number <= event.session_count),
        "can_finish": event.finished_at is None
        and latest is not None
        and service.session_over(latest),
        "next_number": next_number,
        "standings": standings_rows(event),
        "corrected": service.corrected_tables(event),
        "active": [e for e in event.players if e.active],
        "left": [e for e in event.players if not e.active],
        "rules_text": messages.rules_summary(service.rules_for(event, event.table_size)),
        "method_label": method_label(event.method),
    }


def method_label(method: str) -> str:
    if method == plan.Method.SCORE:
        return _("Sum of game scores")
    return _("Placement points: the share of the table beaten, ties sharing")


def _page_context(event: Event) -> dict[str, Any]:
    context = event_context(event)
    board_url = public_url("events.board", token=event.board_token)
    links = {}
    if context["latest"] is not None:
        for table in context["latest"].tables:
            if table.game_id is not None:
                url = public_url("play.table", game_id=table.game_id)
                links[table.number] = (url, qr_svg(url))
    return context | {
        "board_url": board_url,
        "board_qr": qr_svg(board_url),
        "table_links": links,
        "draw_form": forms.DrawForm(),
        "swap_form": forms.SwapForm(),
        "arrive_form": forms.ArriveForm(),
        "leave_form": forms.LeaveForm(),
        "button_form": forms.EventButtonForm(),
    }


def _event_page(event_id: int, status: int = 200, **forms_given: Form) -> Response:
    event = service.load_event(event_id)
    return render("events/page.html", None, status, **(_page_context(event) | forms_given))


@bp.get("/events/<int:event_id>")
def page(event_id: int) -> Response:
    return _event_page(event_id)


def _write(
    event_id: int,
    form: Form,
    name: str,
    action: Callable[[], object],
    anchor: str,
) -> Response:
    """Run one organiser's write: the page again with the message on a refusal (422)."""
    if not form.validate():
        return _event_page(event_id, 422, **{name: form})
    try:
        action()
    except service.EventRefused as refused:
        form.add_message(refused.field, refused.message)
        return _event_page(event_id, 422, **{name: form})
    return redirect(url_for("events.page", event_id=event_id, _anchor=anchor), 303)


@bp.post("/events/<int:event_id>/draw")
def draw(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.DrawForm()
    return _write(
        event_id,
        form,
        "draw_form",
        lambda: service.draw_session(event_id, form.chosen_seed()),
        "seating",
    )


@bp.post("/events/<int:event_id>/swap")
def swap(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.SwapForm()
    return _write(
        event_id,
        form,
        "swap_form",
        lambda: service.swap_players(event_id, *form.players()),
        "seating",
    )


@bp.post("/events/<int:event_id>/start")
def start(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.EventButtonForm()
    return _write(event_id, form, "button_form", lambda: service.start_session(event_id), "tables")


@bp.post("/events/<int:event_id>/finish")
def finish(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.EventButtonForm()
    return _write(
        event_id, form, "button_form", lambda: service.finish_event(event_id), "standings"
    )


@bp.post("/events/<int:event_id>/arrive")
def arrive(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.ArriveForm()
    return _write(
        event_id,
        form,
        "arrive_form",
        lambda: service.player_arrives(event_id, form.typed_name()),
        "players",
    )


@bp.post("/events/<int:event_id>/leave")
def leave(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.LeaveForm()
    return _write(
        event_id,
        form,
        "leave_form",
        lambda: service.player_leaves(event_id, form.player_id()),
        "players",
    )


@bp.post("/events/<int:event_id>/return")
def come_back(event_id: int) -> Response:
    service.load_event(event_id)
    form = forms.LeaveForm()
    return _write(
        event_id,
        form,
        "leave_form",
        lambda: service.player_returns(event_id, form.player_id()),
        "players",
    )


@bp.get("/events/<int:event_id>/cards")
def cards(event_id: int) -> Response:
    """Printable table cards: each table's players, its link and QR code."""
    event = service.load_event(event_id)
    latest = service.latest_session(event)
    if latest is None or latest.started_at is None:
        abort(404, description=_("Start the session's games first: then each table has a card."))
    cards = []
    for table in latest.tables:
        url = public_url("play.table", game_id=table.game_id)
        cards.append((service.table_progress(event, table), url, qr_svg(url)))
    return render("events/cards.html", event=event, session=latest, cards=cards)


# --- the board (read-only, polls itself) ---------------------------------------------------


def board_context(event: Event | EventRead) -> dict[str, Any]:
    """What the board shows of an event: the latest session's tables, the standings."""
    latest = service.latest_session(event)
    return {
        "event": event,
        "latest": latest,
        "drawn": latest is not None and latest.started_at is None,
        "sessions": [{"tables": [service.table_progress(event, table) for table in latest.tables]}]
        if latest is not None
        else [],
        "standings": standings_rows(event),
        "corrected": service.corrected_tables(event),
        "method_label": method_label(event.method),
    }


def _board_etag(part: str, event_id: int, version: str) -> str:
    # The viewer's language and time zone too: the same version reads differently in each.
    return f"event-{part}-{event_id}-{version}-{viewer_tag()}"


def _board(token: str, part: str, template: str) -> Response:
    """The board, or the part of it that polls: the same for every viewer until something
    it shows changes (its tag: the event's and its games' versions); each viewer asks every
    time (no-cache) and gets a 304 until then: after one small query outside the page's
    session, as the live board's polls."""
    if request.if_none_match and (known := service.board_version_outside(token)) is not None:
        etag = _board_etag(part, *known)
        if request.if_none_match.contains_weak(etag):
            return read_only(etag, lambda: Response(status=304))
    found = service.board_version(token)
    if found is None:
        abort(404)
    event_id, version = found
    etag = _board_etag(part, event_id, version)

    def render_board() -> str:
        context = board_context(read_event(event_id)) | {
            "poll_seconds": current_app.config.get("LIVE_POLL_SECONDS", 3),
            "part_url": url_for("events.board_part", token=token),
            "board_etag": 'W/"' + etag.replace("-" + part + "-", "-part-") + '"',
        }
        return render_template(template, **context)

    def make() -> Response:
        # The one page still rendered once per version in each process (see _BOARDS).
        # Its links carry the path prefix (a proxy's X-Forwarded-Prefix): that too.
        key = (etag, template, request.host, request.root_path, request.path)
        with _BOARDS_LOCK:
            if (done := _BOARDS.get(key)) is None:
                done = _BOARDS[key] = render_board()
        return Response(done)

    return read_only(etag, make)


# The event board, rendered once per board version (its tag: the event's and its games'
# versions, the viewer's language and zone) in each process and kept for the viewers whose
# polls arrive after the same save. The standings are a value derived from every game of the
# event, and DESIGN.md (§5) has a derived value computed once, never by every visitor at
# once: at a club night 200 phones poll a 30-table board after each save. Rendered for each
# of them (bench/events.py on 2026-12-07, from queries.read_event: 5-10 ms a board) the board
# was 0.09x /healthz against 0.62x with this. It holds no visitor's value (the board has no
# form). It goes once the event's standings are stored with the facts in the write path
# (issue #29), which makes the board cheap by itself.
_BOARDS: LRUCache[tuple[str, ...], str] = LRUCache(maxsize=32)
_BOARDS_LOCK = threading.Lock()


@bp.get("/events/board/<token>")
def board(token: str) -> Response:
    """The event board for a projector: every table's progress and the standings."""
    return _board(token, "page", "events/board.html")


@bp.get("/events/board/<token>/part")
def board_part(token: str) -> Response:
    """The part of the board that polls."""
    return _board(token, "part", "events/_board.html")


# --- results -------------------------------------------------------------------------------


@bp.get("/events/<int:event_id>/results")
def results(event_id: int) -> Response:
    event = service.load_event(event_id)
    return render("events/results.html", **event_context(event))


def results_data(event: Event) -> dict[str, Any]:
    """The event's standings and every game, as the JSON export gives them."""
    names = service.player_names(event)
    return {
        "event": {
            "uid": event.uid,
            "name": event.name,
            "day": event.day.isoformat(),
            "table_size": event.table_size,
            "sessions": event.session_count,
            "method": event.method,
            "rules": event.rules,
            "finished": event.finished_at is not None,
        },
        "standings": [
            {
                "rank": line.rank,
                "player": names.get(line.player),
                "points": str(line.points),
                "games": line.games,
                "score": line.score,
                "bids_met": line.bids_met,
                "bid_sum": line.bid_sum,
            }
            for line in service.event_standings(event)
        ],
        "games": [
            {
                "session": session.number,
                "table": progress.number,
                "game_uid": progress.game.uid if progress.game else None,
                "status": progress.status,
                "rounds_scored": progress.scored,
                "rounds_planned": progress.planned,
                "players": list(progress.names),
                "totals": list(progress.totals),
            }
            for session in event.sessions
            for progress in (service.table_progress(event, t) for t in session.tables)
        ],
    }


@bp.get("/events/<int:event_id>/results.json")
def results_json(event_id: int) -> Response:
    event = service.load_event(event_id)
    response = current_app.json.response(results_data(event))
    response.headers["Content-Disposition"] = f'attachment; filename="event-{event.id}.json"'
    return response


@bp.get("/events/<int:event_id>/results.csv")
def results_csv(event_id: int) -> Response:
    event = service.load_event(event_id)
    data = results_data(event)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["rank", "player", "points", "games", "score", "bids_met", "bid_sum"])
    for line in data["standings"]:
        points = Fraction(line["points"])
        writer.writerow(
            [
                line["rank"],
                neutralise(line["player"] or ""),
                f"{float(points):.4f}" if event.method == plan.Method.PLACEMENT else line["score"],
                line["games"],
                line["score"],
                line["bids_met"],
                line["bid_sum"],
            ]
        )
    writer.writerow([])
    writer.writerow(["session", "table", "status", "rounds", "player", "total"])
    for game in data["games"]:
        for name, total in zip(game["players"], game["totals"] or [None] * 6, strict=False):
            writer.writerow(
                [
                    game["session"],
                    game["table"],
                    game["status"],
                    f"{game['rounds_scored']}/{game['rounds_planned']}",
                    neutralise(name),
                    total if total is not None else "",
                ]
            )
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="event-{event.id}.csv"'
    return response
