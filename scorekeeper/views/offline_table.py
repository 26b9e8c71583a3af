"""The table phone while the server cannot be reached: what it needs to keep rounds on its own
(the offline plan, with the words it shows), and the answers to a kept round sent later.

Not a blueprint: the play blueprint serves both. Every rule in the plan comes from
:func:`scorekeeper.rules.offline_plan`; the script (``static/offline.js``) only looks it up,
and every kept round is checked again by the rules when it is sent.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import Response, jsonify

from .. import gameplay, rules
from ..i18n import gettext as _
from ..i18n import locale_name, ngettext, pgettext
from ..models import Game, GameStatus, Round, RoundState
from ..queries import seat_links
from ..records import player_names, rules_of, sheet_of
from ..wording import messages

# Why a game's rounds need the server, as the table says when it is offline.
OWN_PHONES = "own_phones"


def plan_tag(game: Game, sheet: rules.ScoreSheet | None = None) -> str:
    """What the offline plan depends on: the round being played, its dealer and the totals
    before it, then a digest of the rules (a custom plan changed mid-game), the names, the
    language its words are in and whether the players bid on their own phones. The table
    screen carries it; the script fetches the plan again only when it changed."""
    round_ = gameplay.open_round(game)
    if round_ is None or game.status != GameStatus.IN_PROGRESS:
        return "over"
    totals = "_".join(str(total) for total in (sheet or sheet_of(game)).totals)
    rest = [rules_of(game).to_dict(), list(player_names(game)), locale_name()]
    rest.append(bool(seat_links(game)))
    digest = hashlib.blake2s(json.dumps(rest, sort_keys=True).encode(), digest_size=5)
    return f"{round_.number}.{round_.dealer}.{totals}.{digest.hexdigest()}"


def unavailable_reason(game: Game) -> str | None:
    """Why this game's rounds cannot be kept on the phone (the rules' reason, or the players'
    own phones): the plan then has no rounds, and a kept round sent anyway is refused."""
    reason = rules.offline_unavailable(rules_of(game))
    if reason is not None:
        return str(reason)
    return OWN_PHONES if seat_links(game) else None


def unavailable_text(reason: str) -> str:
    if reason == OWN_PHONES:
        return _(
            "The players bid on their own phones, which needs the server: note the rounds on"
            " paper until it is back."
        )
    if reason == rules.OfflineUnavailable.SEALED_BIDS:
        return _(
            "Hidden and secret bids need the server: note the rounds on paper until it is back."
        )
    return _(
        "The Bomb, the Cloud and the Werewolf need the server: note the rounds on paper until"
        " it is back."
    )


def _round_words(game_rules: rules.GameRules, number: int, hand_size: int) -> dict[str, str]:
    return {
        "title": _("Round %(number)s of %(count)s", number=number, count=game_rules.round_count),
        "cards_label": ngettext("%(num)s card", "%(num)s cards", hand_size),
    }


def _words(game_rules: rules.GameRules, remaining: int) -> dict[str, Any]:
    """Every text the script shows, in the viewer's language: ``{name}`` and the like are
    filled in by the script; counts come as one text per count."""
    suits = {
        str(suit): [messages.trump_symbol(suit), messages.suit_name(suit)]
        for suit in rules.SUIT_ORDER
    }
    return {
        "offline": _(
            "No connection. This phone keeps the rounds and sends them when the server"
            " answers again."
        ),
        "waiting": [
            ngettext("%(num)s round not sent yet", "%(num)s rounds not sent yet", count)
            for count in range(1, remaining + 1)
        ],
        "not_sent": _("not sent yet"),
        "sending": _("Sending the rounds kept on this phone…"),
        "back": _("The server answers again: this round is sent once it is saved."),
        "blocked": _(
            "The server answers again. Choose which round counts: the rounds after it wait."
        ),
        "trump_question": _("What was turned up for trump?"),
        "causes": {str(cause): messages.cause_label(cause) for cause in rules.TrumpCause},
        "suits": suits,
        "no_trump": _("No trump"),
        "bids": _("Bids"),
        "bids_verb": pgettext("the bid prompt: <name> bids", "bids"),
        "last": _("last"),
        "forbidden": messages.forbidden_bid_template(game_rules.bid_rule),
        "take_back": _("Take back the last bid"),
        "tricks": _("Tricks"),
        "bid": _("Bid"),
        "points": _("Points"),
        "left": _("Tricks left to give out:"),
        "over": _("Too many tricks given out:"),
        "all_made": _("Everyone made their bid"),
        "save": _("Save round"),
        "no_bid": _("dealer, no bid"),
        "bid_of": _("bid %(bid)s", bid="{bid}"),
        "dealer": _("Dealer: %(name)s", name="{name}"),
        "leads": _("Bids first and leads: %(name)s", name="{name}"),
        "trump": _("Trump: %(trump)s", trump="{trump}"),
        "player": _("Player"),
        "total": _("Total"),
        "round": _("Round %(number)s", number="{number}"),
        "correct": _("Correct round %(number)s", number="{number}"),
        "undo": _("Undo"),
        "game_over": _("Game over"),
        "conflict": _(
            "Round %(number)s was saved differently on another phone. Which one counts?",
            number="{number}",
        ),
        "conflict_open": _(
            "Round %(number)s was started differently on another phone. Which one counts?",
            number="{number}",
        ),
        "finish_first": _(
            "Finish round %(number)s on this screen: the rounds kept after it are sent then.",
            number="{number}",
        ),
        "refused": _("Round %(number)s was not saved:", number="{number}"),
        "ours": _("Kept on this phone"),
        "theirs": _("Saved on the server"),
        "keep_ours": _("Keep ours"),
        "keep_theirs": _("Keep theirs"),
        "fix": _("Correct ours"),
        "drop": _("Drop ours"),
        "reload": _("The server answered: reload the page to carry on."),
        "storage_full": _(
            "This phone's storage is full: the rounds kept here are lost if the page is"
            " closed. Note them on paper too."
        ),
    }


def offline_data(game: Game) -> dict[str, Any]:
    """What the table phone keeps to record the rest of the game without the server."""
    game_rules = rules_of(game)
    round_ = gameplay.open_round(game)
    data: dict[str, Any] = {
        "game": game.id,
        "version": game.version,
        "tag": plan_tag(game),
        "names": list(player_names(game)),
        "totals": list(sheet_of(game).totals),
    }
    if round_ is None or game.status != GameStatus.IN_PROGRESS:
        return data | {"plan": {"rounds": []}, "text": _words(game_rules, 1)}
    reason = unavailable_reason(game)
    if reason is not None:
        plan: dict[str, Any] = {"unavailable": reason, "text": unavailable_text(reason)}
    else:
        plan = rules.offline_plan(game_rules, round_.number, round_.dealer).to_dict()
    for planned in plan.get("rounds", ()):
        planned |= _round_words(game_rules, planned["n"], planned["cards"])
    return data | {"plan": plan, "text": _words(game_rules, len(plan.get("rounds", ())) or 1)}


def round_shown(game: Game, round_: Round) -> dict[str, Any]:
    """A round as the server has it, to show beside the phone's: trump, bids, tricks and
    (once scored) points, by seat."""
    scored = round_.state == RoundState.SCORED
    entries = sorted(round_.entries, key=lambda entry: entry.seat)
    # Bids not revealed yet never leave the server, whatever asks for the round.
    sealed = rules.bids_are_secret(rules_of(game), scored, round_.state == RoundState.BIDDING)
    shown: dict[str, Any] = {
        "n": round_.number,
        "trump": f"{round_.trump_cause}:{round_.trump or ''}" if round_.trump_cause else None,
        "bids": [None if sealed else entry.bid for entry in entries],
        "tricks": [entry.tricks if scored else None for entry in entries],
        "scored": scored,
    }
    if scored:
        row = sheet_of(game).rows[round_.number - 1]
        shown["points"] = [cell.points for cell in row.cells]
    return shown


def kept_answer(
    game: Game,
    status: int,
    outcome: str,
    *,
    server_round: Round | None = None,
    problems: list[str] | None = None,
) -> Response:
    """The answer to a kept round: ``outcome`` is stored, conflict, refused or retry; with the
    game's version (what "keep ours" stands on) and the server's round to show beside."""
    body: dict[str, Any] = {"outcome": outcome, "version": game.version}
    if outcome == "stored":  # the standings the rounds still kept on the phone add to
        body["totals"] = list(sheet_of(game).totals)
    if server_round is not None:
        body["server"] = round_shown(game, server_round)
    if problems:
        body["problems"] = problems
    response = jsonify(body)
    response.status_code = status
    response.cache_control.no_store = True
    return response
