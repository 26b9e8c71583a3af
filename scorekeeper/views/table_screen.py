"""What the round screen shows (the table phone, the live view and a player's own phone
alike), and how a write from a round screen is stored.

Not a blueprint: the play, live and seat blueprints all use it. Every number and every
"may this happen now" comes from :mod:`scorekeeper.rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import changes, gameplay, rules
from ..forms import table as forms
from ..forms.base import new_request_key
from ..forms.table import Choices, chosen_numbers, saved_choices
from ..i18n import lazy_gettext as _l
from ..models import Change, ChangeAction, Game, GameStatus, RoundState
from ..queries import reload_game
from ..records import player_names, round_records, rules_of
from ..wording import history
from .offline_table import plan_tag
from .rendering import viewer_tag


def table_etag(game_id: int, version: int) -> str:
    """The round screen's tag for its poll (``table_poll``'s ETag, and the screen's own
    ``data-etag``): the game's version and what of the viewer the screen varies by, so a
    poll answered with what is shown already is not swapped in over the chips being tapped."""
    return f"table-{game_id}-{version}-{viewer_tag()}"


def sheet_context(game: Game) -> dict[str, Any]:
    """What the score sheet's page shows: the sheet, its highlights and the rounds to check
    (none of the round screen's step, undo or history)."""
    game_rules = rules_of(game)
    records = round_records(game)
    sheet = rules.score_sheet(game_rules, records)
    in_progress = game.status == GameStatus.IN_PROGRESS
    return {
        "game": game,
        "rules": game_rules,
        "names": player_names(game),
        "sheet": sheet,
        "highlighted": sheet.highlighted(in_progress),
        "in_progress": in_progress,
        "flags": rules.flagged_rounds(game_rules, records, sheet),
    }


def board_context(
    game: Game,
    *,
    errors: dict[str, list[str]] | None = None,
    notice: str | None = None,
) -> dict[str, Any]:
    """What every round screen shows (the table phone, the live view, a player's own phone):
    the round's head, the bids made so far, the bid the rules forbid next and the standings."""
    game_rules = rules_of(game)
    names = player_names(game)
    scored = round_records(game)
    sheet = rules.score_sheet(game_rules, scored)
    round_ = gameplay.open_round(game)
    step = gameplay.step_of(game, round_)
    in_progress = game.status == GameStatus.IN_PROGRESS
    context: dict[str, Any] = {
        "game": game,
        "rules": game_rules,
        "names": names,
        # The scored rounds as the rules read them, for the table's checks (read once).
        "scored_rounds": scored,
        "sheet": sheet,
        "standings": sheet.standings,
        "highlighted": sheet.highlighted(in_progress),
        "round": round_,
        "step": step,
        "playing": step in gameplay.PLAYING_STEPS,
        "in_progress": in_progress,
        "errors": errors or {},
        "notice": notice,
        "winner_names": [names[seat] for seat in sheet.winners],
    }
    if round_ is None or step == gameplay.Step.CLOSED:
        return context
    stored_bids = gameplay.bids_of(round_)
    secret = rules.bids_are_secret(
        game_rules, round_.state == RoundState.SCORED, round_.state == RoundState.BIDDING
    )
    # Bids not revealed yet are not even handed to the templates: who has bid, never what.
    bids = {seat: None for seat in stored_bids} if secret else stored_bids
    return context | {
        "bids": bids,
        "secret": secret,
        "has_bid": {seat: bid is not None for seat, bid in stored_bids.items()},
        "bid_order": rules.bid_order(game_rules, round_.dealer),
        "first_lead": rules.first_lead(round_.dealer, game_rules.players),
        "trump_in_force": rules.trump_in_force(
            round_.trump, round_.werewolf_played, round_.werewolf_trump
        ),
        "next_bidder": gameplay.next_bidder(game_rules, round_),
        "forbidden": rules.forbidden_bid(
            game_rules, round_.number, round_.hand_size, round_.dealer, bids, sheet.totals
        ),
        "bid_total": sum(b for b in bids.values() if b is not None),
    }


def table_context(
    game: Game,
    *,
    errors: dict[str, list[str]] | None = None,
    notice: str | None = None,
    choices: Choices | None = None,
    changing_seat: int | None = None,
) -> dict[str, Any]:
    """Everything the table phone's round screen shows: the board, and the controls to enter,
    change and undo. ``choices`` are the inputs shown as chosen (a refused entry comes back as
    it was posted); ``changing_seat``: the player whose bid was tapped to change it (the bid
    pad for them instead of the step)."""
    context = board_context(game, errors=errors, notice=notice)
    game_rules, names, sheet = context["rules"], context["names"], context["sheet"]
    round_, step = context["round"], context["step"]
    context |= {
        "table_etag": f'W/"{table_etag(game.id, game.version)}"',
        "plan_editable": context["in_progress"] and game_rules.plan_editable,
        "choices": choices or {},
        "request_key": new_request_key,
        "undo_change": changes.undoable(game),
        "undone": history.undone_notice(game, names),
        "flags": rules.flagged_rounds(game_rules, context["scored_rounds"], sheet),
        "dealer_can_change": False,
        "changing_seat": None,
        "changeable": {},
        "flagged_bids": (),
        "offline_tag": plan_tag(game, sheet),
    }
    if round_ is None or step == gameplay.Step.CLOSED:
        return context
    bids = context["bids"]
    if step == gameplay.Step.TRICKS and not choices:
        context["choices"] = saved_choices(changes.undone_outcome(game, round_))
    prefill = chosen_numbers(context["choices"], "tricks", game_rules.players)
    bomb_chosen = bool(context["choices"].get("bomb"))
    context |= {
        "play_order": rules.play_order(round_.dealer, game_rules.players),
        "trump_choice": rules.trump_choice(game_rules, round_.number, round_.hand_size),
        "werewolf_trumps": rules.WEREWOLF_TRUMPS,
        "take_back_seat": rules.last_bidder_so_far(game_rules, round_.dealer, bids),
        "required_tricks": rules.required_trick_total(round_.hand_size, False),
        "required_tricks_bomb": rules.required_trick_total(round_.hand_size, True),
        "prefill": prefill,
        "remaining": rules.remaining_tricks(round_.hand_size, prefill, bomb_chosen),
        "all_made_possible": rules.everyone_made_bid_possible(round_.hand_size, bids, False),
        "dealer_can_change": gameplay.dealer_can_change(game_rules, round_),
        # Each bid made that a tap may change, and the bids a change made forbidden.
        "changeable": {seat: gameplay.bid_can_change(game, round_, seat) for seat in bids},
        "flagged_bids": gameplay.flagged_bids(game, round_, sheet),
        # What offline.js starts from when a save cannot reach the server (never a sealed bid).
        "bids_by_seat": ",".join(
            "" if bids.get(seat) is None else str(bids[seat]) for seat in range(len(names))
        ),
    }
    if changing_seat is not None and context["changeable"].get(changing_seat):
        context["changing_seat"] = changing_seat
    return context


# --- storing a write from a round screen ----------------------------------------------------


STALE = _l("Changed on another phone: this is the latest state. Check it and enter again.")
RESENT = _l(
    "Not saved: this page was already saved with other entries. This is what was stored;"
    " enter the change again if it should be different."
)


def resent_with_other_values(form: forms.GameWriteForm, recorded: Change | None) -> bool:
    """Whether a request already recorded comes again with other values (the page was sent,
    then changed and sent again): not a double tap, and not to be dropped in silence."""
    return (
        recorded is not None
        and recorded.request_digest is not None
        and recorded.request_digest != form.digest()
    )


@dataclass
class Refusal:
    """Why a write was not stored, with the game as it is now."""

    status: int
    game: Game
    notice: str | None = None


def store(
    game: Game,
    form: forms.GameWriteForm,
    action: ChangeAction,
    rounds_touched: list[int],
    change: Callable[[], dict[str, Any] | None],
    *,
    version: int | None = None,
) -> Refusal | None:
    """Store one write through :func:`changes.apply_change`; None when it is stored (or was).

    ``version``: the version the write stands on, when not the posted one (see
    :func:`sealed_basis`). A refusal by the rules puts the problems on ``form``, next to the
    inputs concerned.
    """
    try:
        changes.apply_change(
            game,
            version=form.version.data if version is None else version,
            request_key=form.request_key.data,
            action=action,
            rounds_touched=rounds_touched,
            change=change,
            request_digest=form.digest(),
        )
    except changes.AlreadyApplied as repeat:
        if resent_with_other_values(form, repeat.change):
            return Refusal(409, reload_game(game.id), notice=str(RESENT))
        return None
    except changes.StaleGame:
        return Refusal(409, reload_game(game.id), notice=str(STALE))
    except gameplay.RulesRejected as rejected:
        fresh = reload_game(game.id)
        form.add_problems(rejected.problems, player_names(fresh))
        return Refusal(422, fresh)
    return None


def sealed_basis(game: Game, form: forms.GameWriteForm) -> int | None:
    """The version a hidden or secret round's bids may stand on: the current one when only
    other players' sealed bids came in since the page was shown (nobody could see them, so
    nothing the entry was based on changed); else the posted one."""
    posted = form.version.data
    if gameplay.only_sealed_bids_since(game, posted):
        return game.version
    return posted
