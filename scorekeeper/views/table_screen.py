"""What the round screen shows (the table phone and the live view alike).

Not a blueprint: the play and live blueprints both render it. Every number and every
"may this happen now" comes from :mod:`scorekeeper.rules`.
"""

from __future__ import annotations

from typing import Any

from .. import changes, gameplay, rules
from ..forms.table import Choices, chosen_numbers, saved_choices
from ..models import Game, GameStatus, RoundState
from ..records import player_names, round_records, rules_of, sheet_of
from ..visitor_marks import new_request_key


def table_context(
    game: Game,
    *,
    errors: dict[str, list[str]] | None = None,
    notice: str | None = None,
    choices: Choices | None = None,
) -> dict[str, Any]:
    """Everything the round screen shows. ``choices`` are the inputs shown as chosen (a
    refused entry comes back as it was posted)."""
    game_rules = rules_of(game)
    names = player_names(game)
    sheet = sheet_of(game)
    round_ = gameplay.open_round(game)
    step = gameplay.step_of(game, round_)
    in_progress = game.status == GameStatus.IN_PROGRESS
    context: dict[str, Any] = {
        "game": game,
        "rules": game_rules,
        "names": names,
        "sheet": sheet,
        "standings": sheet.standings,
        "highlighted": sheet.highlighted(in_progress),
        "round": round_,
        "step": step,
        "playing": step in gameplay.PLAYING_STEPS,
        "in_progress": in_progress,
        "plan_editable": in_progress and game_rules.plan_editable,
        "errors": errors or {},
        "notice": notice,
        "choices": choices or {},
        "request_key": new_request_key,
        "undo_change": changes.undoable(game),
        "flags": rules.flagged_rounds(game_rules, round_records(game)),
        "winner_names": [names[seat] for seat in sheet.winners],
        "dealer_can_change": False,
    }
    if round_ is None or step == gameplay.Step.CLOSED:
        return context
    bids = gameplay.bids_of(round_)
    if step == gameplay.Step.TRICKS and not choices:
        context["choices"] = saved_choices(changes.undone_outcome(game, round_))
    prefill = chosen_numbers(context["choices"], "tricks", game_rules.players)
    bomb_chosen = bool(context["choices"].get("bomb"))
    context |= {
        "bids": bids,
        "bid_order": rules.bid_order(game_rules, round_.dealer),
        "play_order": rules.play_order(round_.dealer, game_rules.players),
        "first_lead": rules.first_lead(round_.dealer, game_rules.players),
        "trump_choice": rules.trump_choice(game_rules, round_.number, round_.hand_size),
        "trump_in_force": rules.trump_in_force(
            round_.trump, round_.werewolf_played, round_.werewolf_trump
        ),
        "werewolf_trumps": rules.WEREWOLF_TRUMPS,
        "next_bidder": gameplay.next_bidder(game_rules, round_),
        "take_back_seat": rules.last_bidder_so_far(game_rules, round_.dealer, bids),
        "forbidden": rules.forbidden_bid(
            game_rules, round_.number, round_.hand_size, round_.dealer, bids, sheet.totals
        ),
        "bid_total": sum(b for b in bids.values() if b is not None),
        "required_tricks": rules.required_trick_total(round_.hand_size, False),
        "required_tricks_bomb": rules.required_trick_total(round_.hand_size, True),
        "prefill": prefill,
        "remaining": rules.remaining_tricks(round_.hand_size, prefill, bomb_chosen),
        "all_made_possible": rules.everyone_made_bid_possible(round_.hand_size, bids, False),
        "secret": rules.bids_are_secret(game_rules, round_.state == RoundState.SCORED),
        "dealer_can_change": gameplay.dealer_can_change(game_rules, round_),
    }
    return context
