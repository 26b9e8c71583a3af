"""Paper in, paper out: a blank score sheet to print, any game's finished sheet to print,
and a finished paper sheet entered in one grid.

Every page is a real form (the grid is one ``<form method="post">``), so it all works
without JavaScript; printing is the browser's own, with ``static/print.css``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, redirect, request, url_for

from .. import paper, queries, records, rules
from ..forms import paper as forms
from ..i18n import gettext as _
from ..i18n import viewer_zone
from ..models import GameStatus
from ..reports import charts
from ..wording import messages
from .rendering import render

bp = Blueprint("paper", __name__, url_prefix="/paper")

P = rules.ProblemCode
# The name of a cell of the grid (forms.cell_name): not "bid_rule".
_CELL = re.compile(r"(bid|tricks)_[0-9]+_[0-9]+")
_TRUMP = re.compile(r"trump_[0-9]+")
# A round's dealer changed at the table, its Bomb box, its Cloud and its Werewolf; what
# each may say (a seat, a Bomb's "y", a Cloud's "2:+1", a Werewolf's trump).
_ROUND_CHOICE = re.compile(r"(dealer|bomb|cloud|werewolf)_[0-9]+")
_ROUND_VALUES = frozenset(
    ("y", *map(str, forms.SEAT_INDEXES), *forms.cloud_choices(rules.MAX_PLAYERS))
) | frozenset(forms.TRUMP_CHOICES)
# Fields of the entry form that are not shown as fields (their messages are the form's).
_NOT_SHOWN = frozenset({"csrf_token", "request_key", "action"})


# --- the round plan, as both sheets show it ----------------------------------------------


def plan_rows(
    game_rules: rules.GameRules,
    first_dealer: int,
    names: list[str],
    changed: dict[int, int] | None = None,
) -> list[dict[str, Any]]:
    """Each round of the plan: its cards, who deals (and who would in turn, for a dealer
    the table changed: ``changed``), who bids first, and the trump when the rules fix it
    (no card left to turn, Maximus)."""
    rows = []
    played_by = paper.dealers(game_rules, first_dealer, changed)
    for number, dealer in enumerate(played_by, start=1):
        in_turn = (
            first_dealer
            if number == 1
            else rules.next_seat(played_by[number - 2], game_rules.players)
        )
        size = rules.hand_size(game_rules, number)
        choice = rules.trump_choice(game_rules, number, size)
        fixed = None
        if choice.automatic is not None:
            cause, suit = choice.automatic
            fixed = messages.trump_label(suit)
            if cause is rules.TrumpCause.NONE_LEFT:
                fixed = _("No trump (no card left)")
        bidders = rules.bid_order(game_rules, dealer)
        # What a bid cell holds before anything is written: nothing to bid (the Saboteur
        # dealer) or zero (Jester bid).
        fixed_bids = {
            seat: "–" if seat not in bidders else "0"
            for seat in range(game_rules.players)
            if seat not in bidders or game_rules.jester_bid
        }
        rows.append(
            {
                "fixed_bids": fixed_bids,
                "number": number,
                "hand_size": size,
                "dealer": dealer,
                "dealer_name": names[dealer],
                "in_turn": in_turn,
                "dealer_changed": dealer != in_turn,
                "first_bidder": names[rules.bid_order(game_rules, dealer)[0]],
                "fixed_trump": fixed,
            }
        )
    return rows


def rule_reminder(game_rules: rules.GameRules) -> str:
    """The bid rule in one line, for the foot of a printed sheet."""
    return _(
        "Bid rule: %(rule)s. %(explanation)s",
        rule=messages.bid_rule_label(game_rules.bid_rule),
        explanation=messages.bid_rule_explanation(game_rules.bid_rule),
    )


# --- a blank sheet to print ----------------------------------------------------------------


@bp.get("/blank")
def blank() -> Response:
    """The choices of a blank sheet, and the sheet once players are named."""
    chosen = bool(request.args)
    form = forms.BlankSheetForm(formdata=request.args if chosen else None)
    context: dict[str, Any] = {"form": form, "rows": None, "roster": _roster(), **_choices()}
    game_rules = form.game_rules() if chosen else None
    if game_rules is None:
        return render("paper/blank.html", None, 422 if chosen else 200, **context)
    names = form.names()
    dealer = form.dealer_seat() or 0
    context.update(
        names=names,
        game_rules=game_rules,
        rows=plan_rows(game_rules, dealer, names),
        reminder=rule_reminder(game_rules),
        rules_summary=messages.rules_summary(game_rules),
    )
    return render("paper/blank.html", **context)


def _choices() -> dict[str, Any]:
    """The rules module's options the setup part of both pages offers."""
    return {"bid_reveals": list(rules.BidReveal), "tie_breaks": list(rules.TieBreak)}


def _roster() -> list[str]:
    return [player.name for player in queries.roster_by_games_played()]


# --- any game's finished sheet, to print -------------------------------------------------


@bp.get("/games/<int:game_id>")
def sheet(game_id: int) -> Response:
    """A game's sheet as the paper pad has it — bid, tricks and total per player and round —
    with the chart and the rounds whose bid rule was broken."""
    game = queries.load_game(game_id)
    game_rules = records.rules_of(game)
    score = records.sheet_of(game)
    names = list(records.player_names(game))
    rows = plan_rows(game_rules, game.first_dealer, names)
    # The dealer as played (it may have been changed at the table).
    for row, played in zip(rows, score.rows, strict=False):
        row["dealer"] = played.dealer
        row["dealer_name"] = names[played.dealer]
        row["first_bidder"] = names[rules.bid_order(game_rules, played.dealer)[0]]
    trumps = {
        r.number: messages.trump_label(
            rules.trump_in_force(r.trump, r.werewolf_played, r.werewolf_trump)
        )
        for r in game.rounds
        if r.trump_cause is not None
    }
    flags = paper.flags_of(game)
    return render(
        "paper/sheet.html",
        game=game,
        names=names,
        game_rules=game_rules,
        score=score,
        rows=rows,
        trumps=trumps,
        flags=flags,
        flagged={problem.round_number for problem in flags},
        reminder=rule_reminder(game_rules),
        rules_summary=messages.rules_summary(game_rules),
        chart=charts.running_totals_chart(score, names, game_rules.round_count),
        finished=game.status == GameStatus.FINISHED,
    )


# --- a finished paper sheet, entered -----------------------------------------------------


def _now_in_zone() -> datetime:
    return datetime.now(UTC).astimezone(viewer_zone())


def _cell_messages(
    check: paper.SheetCheck,
    cells: list[forms.RoundCells],
    names: list[str],
    only: set[int] | None = None,
) -> dict[str, list[str]]:
    """Each refusal under its cell (``bid_3_0``), or its round (``row_3``) when it concerns
    the whole round (tricks that do not add up); ``only``: of these rounds alone."""
    found: dict[str, list[str]] = {}
    unreadable = {name for round_cells in cells for name in round_cells.unreadable}
    for problem in check.refused:
        if only is not None and problem.round_number not in only:
            continue
        key = f"row_{problem.round_number or 0}"
        if problem.seat is not None and problem.field in ("bid", "tricks"):
            key = forms.cell_name(problem.field, problem.round_number or 0, problem.seat)
        if key in unreadable:
            text = _("Type a number, e.g. 2.")
        else:
            text = messages.problem_message(problem, names)
        if text not in found.get(key, []):
            found.setdefault(key, []).append(text)
    return found


def _entry_page(form: forms.PaperGameForm, status: int, **extra: Any) -> Response:
    context: dict[str, Any] = {
        "form": form,
        "roster": _roster(),
        **_choices(),
        "rows": None,
        "cell_messages": {},
        "message_rounds": set(),
        "flags": [],
        "flagged_cells": set(),
        "posted": request.form,
        "carried": [],
        "offers_now": False,
        "cell_name": forms.cell_name,
        "trump_name": forms.trump_name,
        "dealer_name": forms.dealer_name,
        "bomb_name": forms.bomb_name,
        "cloud_name": forms.cloud_name,
        "werewolf_name": forms.werewolf_name,
        "cloud_choices": forms.cloud_choices,
        "cloud_label": _cloud_choice_label,
        "bombs": set(),
        "trump_choices": forms.TRUMP_CHOICES,
    }
    context.update(extra)
    # Where the keyboard starts (autofocus: the browser scrolls there, script or not): the
    # first refused field of the setup, above the grid; else the first refusal of the grid,
    # a cell or a round (its first tricks: they do not add up); else the grid's first cell
    # when nothing is typed yet (the grid was just shown).
    context["focus_field"] = next(
        (f.name for f in form if f.errors and f.name not in _NOT_SHOWN), None
    )
    first_refusal = next(iter(context["cell_messages"]), None)
    if first_refusal is not None and first_refusal.startswith("row_"):
        first_refusal = forms.cell_name("tricks", int(first_refusal.split("_")[1]), 0)
    context["focus_cell"] = None if context["focus_field"] else first_refusal
    if (
        context["focus_cell"] is None
        and context["focus_field"] is None
        and context["rows"]
        and not _typed(request.form)
    ):
        game_rules, first = context["game_rules"], context["rows"][0]
        no_bid = game_rules.jester_bid or (game_rules.saboteur and first["dealer"] == 0)
        context["focus_cell"] = forms.cell_name("tricks" if no_bid else "bid", 1, 0)
    # The rounds with a message: a line under each shows them next to their cells.
    context["message_rounds"] = {int(key.split("_")[1]) for key in context["cell_messages"]}
    return render("paper/new.html", None, status, **context)


def _cloud_choice_label(value: str, names: list[str]) -> str:
    """An option of a round's Cloud: nobody, or a player and the way their bid changed."""
    seat, _sep, step = value.partition(":")
    if not value:
        return "–"
    return f"{names[int(seat)]} {step.replace('-', '−')}"


def _trump_choice_label(value: str) -> str:
    """An option of a round's trump: the suit's name first, so that typing its first letter
    picks it ("h" for Hearts), then its symbol."""
    if value == forms.NOT_NOTED:
        return "–"
    if value == forms.NO_TRUMP:
        return _("No trump")
    return f"{messages.suit_name(value)} {messages.trump_symbol(value)}"


@bp.route("/new", methods=["GET", "POST"])
def new() -> Response:
    """Enter a finished paper sheet: who played, when, the rules, then the grid; "Check"
    shows the grid (and what the rules say of it), "Store the game" stores it when nothing
    is refused."""
    if request.method == "GET":
        now = _now_in_zone()
        form = forms.PaperGameForm(
            formdata=None, data={"played_on": now.date(), "played_at": now.time()}
        )
        # The day and time offered are now in the viewer's zone: the page says which zone,
        # so that on a first visit (no zone known yet) app.js shows it again in the
        # browser's own.
        return _entry_page(form, 200, offers_now=True)
    form = forms.PaperGameForm()
    # The grid is drawn whenever the players and rules make a sheet, even when another
    # field is refused: what was typed in it comes back (without a grid, it is carried).
    game_rules, sound = form.checked_rules()
    played = form.played(viewer_zone())
    if played is not None and played > datetime.now(UTC):
        form.played_on.errors = [
            *form.played_on.errors,
            _("This moment is still to come: give the day and time the game was played."),
        ]
        sound = False
    if game_rules is None:
        return _entry_page(form, 422, carried=_carried(request.form))
    names = form.names()
    dealer = form.dealer_seat() or 0
    cells = form.cells(game_rules, request.form)
    sheet = [
        paper.PaperRound(
            c.number,
            tuple(c.bids[seat] for seat in range(game_rules.players)),
            tuple(c.tricks[seat] for seat in range(game_rules.players)),
            c.trump,
            c.dealer,
            c.bomb_played,
            c.cloud,
            c.werewolf,
        )
        for c in cells
    ]
    check = paper.check_sheet(game_rules, dealer, sheet)
    grid = {
        "rows": plan_rows(game_rules, dealer, names, paper.changed_dealers(sheet)),
        "bombs": {c.number for c in cells if c.bomb_played},
        "names": names,
        "game_rules": game_rules,
        "trump_label": _trump_choice_label,
        "flags": check.flags,
        "flagged_cells": {
            forms.cell_name("bid", p.round_number or 0, p.seat or 0) for p in check.flags
        },
    }
    if form.action.data != "store":
        # "Check": the grid for these players and rules, with what the rules say of it so
        # far (empty cells are not complaints yet).
        shown = _cell_messages(check, cells, names, only=_typed_rounds(cells))
        return _entry_page(form, 200 if sound else 422, cell_messages=shown, **grid)
    if check.refused or not sound or played is None:
        messages_by_cell = _cell_messages(check, cells, names)
        if messages_by_cell:
            form.add_message("form", _("Nothing was stored: correct the cells marked below."))
        return _entry_page(form, 422, cell_messages=messages_by_cell, **grid)
    game = paper.store(
        names,
        dealer,
        game_rules,
        played,
        sheet,
        form.request_key.data,
        request_digest=form.digest(),
    )
    return redirect(url_for("paper.sheet", game_id=game.id, stored=1), 303)


def _carried(posted: Any) -> list[tuple[str, str]]:
    """Every cell, trump, changed dealer and Bomb typed, to carry in hidden inputs while no
    grid can be drawn (fewer than three players, a plan that cannot be read)."""
    return [
        (key, value[:3] if _CELL.fullmatch(key) else value)
        for key, value in posted.items()
        if value
        and (
            _CELL.fullmatch(key)
            or (_TRUMP.fullmatch(key) and value in forms.TRUMP_CHOICES)
            or (_ROUND_CHOICE.fullmatch(key) and value in _ROUND_VALUES)
        )
    ]


def _typed(posted: Any) -> bool:
    """Whether any cell of the grid holds something."""
    return any(_CELL.fullmatch(key) and value for key, value in posted.items())


def _typed_rounds(cells: list[forms.RoundCells]) -> set[int]:
    """The rounds with something typed in them."""
    return {
        c.number
        for c in cells
        if c.unreadable or any(v is not None for v in (*c.bids.values(), *c.tricks.values()))
    }
