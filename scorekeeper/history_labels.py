"""Words for what only the history shows: game statuses and the changes of a game.

The rules a game was played under are named by :mod:`scorekeeper.messages`.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from . import messages, rules

STATUS_LABELS = {
    "in_progress": _l("In progress"),
    "finished": _l("Finished"),
    "abandoned": _l("Abandoned"),
}
STATE_LABELS = {
    "bidding": _l("bidding"),
    "playing": _l("playing"),
    "scored": _l("scored"),
}
ACTION_LABELS = {
    "create_game": _l("Game started"),
    "set_trump": _l("Trump recorded"),
    "bid": _l("Bid"),
    "bids": _l("Bids"),
    "take_back_bid": _l("Bid taken back"),
    "werewolf": _l("Werewolf changed the trump"),
    "record_round": _l("Round recorded"),
    "edit_round": _l("Round corrected"),
    "undo": _l("Undone"),
    "change_dealer": _l("Dealer changed"),
    "edit_plan": _l("Round plan changed"),
    "abandon": _l("Game abandoned"),
    "finish": _l("Game finished"),
}
FIELD_LABELS = {
    "status": _l("status"),
    "bids": _l("bids"),
    "tricks": _l("tricks"),
    "dealer": _l("dealer"),
    "hand_size": _l("cards"),
    "trump": _l("trump"),
    "trump_cause": _l("trump turned"),
    "cloud_bid": _l("Cloud bid"),
    "bomb_played": _l("Bomb"),
    "plan": _l("round plan"),
    "number": _l("round"),
    "state": _l("stage"),
    "players": _l("players"),
    "first_dealer": _l("first dealer"),
    "werewolf_played": _l("Werewolf played"),
    "werewolf_trump": _l("Werewolf trump"),
    "undoes": _l("undoes change"),
}
# Seat numbers shown as the player's name.
SEAT_FIELDS = frozenset({"dealer", "first_dealer", "cloud_seat"})
# The rules are shown in full on the game page; repeating them in the history adds nothing.
SKIPPED_FIELDS = frozenset({"rules"})
MAX_CHANGES_SHOWN = 8


@dataclass(frozen=True)
class ChangeLine:
    what: str
    before: str
    after: str


def _shown(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return " · ".join(_shown(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key} {_shown(item)}" for key, item in sorted(value.items()))
    if isinstance(value, str):
        if value in rules.SUIT_ORDER:
            return messages.trump_symbol(value)
        value = STATUS_LABELS.get(value, STATE_LABELS.get(value, value))
    return str(value)[:80]


def change_lines(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    names: Sequence[str] = (),
) -> list[ChangeLine]:
    """What a history entry changed: each differing field as before → after.

    Round snapshots (a ``rounds`` list) are compared round by round; seats are named.
    """
    before = before if isinstance(before, Mapping) else {}
    after = after if isinstance(after, Mapping) else {}
    lines: list[ChangeLine] = []
    for key in [*before, *(k for k in after if k not in before)]:
        if key in SKIPPED_FIELDS or before.get(key) == after.get(key):
            continue
        if key == "rounds":
            lines.extend(_round_lines(before.get(key), after.get(key), names))
        else:
            lines.append(_line(key, before.get(key), after.get(key), names))
    return lines[:MAX_CHANGES_SHOWN]


def _rounds_by_number(value: Any) -> dict[int, Mapping[str, Any]]:
    if not isinstance(value, list):
        return {}
    return {
        r["number"]: r
        for r in value
        if isinstance(r, Mapping) and isinstance(r.get("number"), int)
    }


def _round_lines(before: Any, after: Any, names: Sequence[str]) -> list[ChangeLine]:
    old, new = _rounds_by_number(before), _rounds_by_number(after)
    lines = []
    for number in sorted(set(old) | set(new)):
        was, now = old.get(number, {}), new.get(number, {})
        for key in [*was, *(k for k in now if k not in was)]:
            if key != "number" and was.get(key) != now.get(key):
                line = _line(key, was.get(key), now.get(key), names)
                what = _("round %(number)d, %(what)s", number=number, what=line.what)
                lines.append(ChangeLine(what, line.before, line.after))
    return lines


def _line(key: str, before: Any, after: Any, names: Sequence[str]) -> ChangeLine:
    if key in SEAT_FIELDS:
        before, after = _seat_name(before, names), _seat_name(after, names)
    return ChangeLine(str(FIELD_LABELS.get(key, key)), _shown(before), _shown(after))


def _seat_name(value: Any, names: Sequence[str]) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    return value


def action_label(action: str) -> str:
    return str(ACTION_LABELS.get(action, action))


def names_of(seats: Sequence[int], names: Sequence[str]) -> str:
    return ", ".join(names[seat] for seat in seats)
