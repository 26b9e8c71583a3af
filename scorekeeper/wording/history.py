"""Words for what only the history shows: game statuses and the changes of a game.

Each stored :class:`~scorekeeper.models.Change` becomes one short sentence that names the
players ("Round 2 corrected: Bob's tricks 0 → 1"). The rules a game was played under,
trumps and turned-up cards are named by :mod:`scorekeeper.messages`. The raw before/after
data stays in the JSON export.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask_babel import format_datetime, format_time, to_user_timezone

from .. import rules
from ..changes import FullChange, full_history, undone_change
from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from ..i18n import ngettext, pgettext
from ..models import Change, ChangeAction, Game, GameStatus
from . import messages
from .formats import names_list

STATUS_LABELS = {
    GameStatus.IN_PROGRESS: _l("In progress"),
    GameStatus.FINISHED: _l("Finished"),
    GameStatus.ABANDONED: _l("Abandoned"),
}
ACTION_LABELS = {
    ChangeAction.CREATE_GAME: _l("Game started"),
    ChangeAction.SET_TRUMP: _l("Trump recorded"),
    ChangeAction.BID: _l("Bid"),
    ChangeAction.BIDS: _l("Bids"),
    ChangeAction.SEAL_BID: _l("Bid from a phone"),
    ChangeAction.TAKE_BACK_BID: _l("Bid taken back"),
    ChangeAction.CHANGE_BID: _l("Bid changed"),
    ChangeAction.WEREWOLF: _l("Werewolf changed the trump"),
    ChangeAction.RECORD_ROUND: _l("Round recorded"),
    ChangeAction.EDIT_ROUND: _l("Round corrected"),
    ChangeAction.UNDO: _l("Undone"),
    ChangeAction.CHANGE_DEALER: _l("Dealer changed"),
    ChangeAction.EDIT_PLAN: _l("Round plan changed"),
    ChangeAction.ABANDON: _l("Game abandoned"),
}

# Shown folded: the steps of a round as it is played. Every other action is shown.
STEP_ACTIONS = frozenset(
    {
        ChangeAction.SET_TRUMP,
        ChangeAction.BID,
        ChangeAction.BIDS,
        ChangeAction.SEAL_BID,
        ChangeAction.TAKE_BACK_BID,
        ChangeAction.CHANGE_BID,
        ChangeAction.WEREWOLF,
    }
)
# A suit card (or Maximus) decides the trump plainly; any other card is named with it.
PLAIN_CAUSES = frozenset({rules.TrumpCause.SUIT, rules.TrumpCause.FIXED})


def action_label(action: str) -> str:
    """What a change did, in a few words ("Round recorded")."""
    return str(ACTION_LABELS.get(action, action))


def status_label(status: str) -> str:
    """A game's status in words ("In progress")."""
    return str(STATUS_LABELS.get(status, status))


@dataclass(frozen=True)
class HistoryEntry:
    """One change as a sentence, with when it happened and whether it was undone later."""

    text: str
    created_at: datetime | None
    when: str
    undone: bool = False


@dataclass
class HistoryItem:
    """A line of the history: one change, with the steps of its round folded under it.

    The steps (trump, bids) of a round fold under the recording of that round; steps
    with no recording after them (the round being played, or one undone) stand alone.
    """

    entry: HistoryEntry | None = None
    round_number: int | None = None
    action: str | None = None
    steps: list[HistoryEntry] = field(default_factory=list)
    step_actions: list[str] = field(default_factory=list)

    @property
    def steps_text(self) -> str:
        """What the folded steps were, oldest first: "trump, 4 bids"."""
        return steps_summary(reversed(self.step_actions))

    @property
    def summary(self) -> str:
        """The folded steps with their round: "Round 4: trump, 4 bids"."""
        if self.round_number is None:
            return self.steps_text
        return _("Round %(number)d: %(steps)s", number=self.round_number, steps=self.steps_text)

    def takes_steps_of(self, round_number: int | None) -> bool:
        return self.round_number == round_number and (
            self.entry is None or self.action == ChangeAction.RECORD_ROUND
        )


def game_history(game: Game, names: Sequence[str]) -> list[HistoryItem]:
    """The game's history as the game page shows it: each change with its whole before and
    after (a change stores only what it touched; the rest is read off the game)."""
    return history_items(full_history(game), names)


def history_items(
    changes: Sequence[Change | FullChange], names: Sequence[str]
) -> list[HistoryItem]:
    """The game's history newest first, the steps of each round folded (see HistoryItem).

    Each change's before and after must be whole (:func:`game_history` gives them so)."""
    undone = {
        change.after.get("undoes")
        for change in changes
        if change.action == ChangeAction.UNDO and isinstance(change.after, Mapping)
    }
    started = changes[0].created_at if changes else None
    items: list[HistoryItem] = []
    for change in reversed(changes):
        entry = HistoryEntry(
            describe(change, names),
            change.created_at,
            _when(change.created_at, started),
            change.version in undone,
        )
        if change.action not in STEP_ACTIONS:
            items.append(HistoryItem(entry, change.round_number, change.action))
            continue
        last = items[-1] if items else None
        if last is None or not last.takes_steps_of(change.round_number):
            last = HistoryItem(round_number=change.round_number)
            items.append(last)
        last.steps.append(entry)
        last.step_actions.append(change.action)
    return items


def _when(moment: datetime | None, started: datetime | None) -> str:
    """The time of a change; with the date too when it is not the day the game began."""
    if moment is None:
        return ""
    if started is not None and to_user_timezone(moment).date() == to_user_timezone(started).date():
        return format_time(moment, "short")
    return format_datetime(moment, "short")


def steps_summary(actions: Iterable[str]) -> str:
    """Steps of a round in a few words, in the order given: "trump, 4 bids"."""
    words = []
    # A Counter keeps the order in which each action first came.
    for action, count in Counter(actions).items():
        if action == ChangeAction.SET_TRUMP:
            words.append(_("trump"))
        elif action == ChangeAction.BID:
            words.append(ngettext("%(num)d bid", "%(num)d bids", count))
        elif action == ChangeAction.BIDS:
            words.append(pgettext("a step of a round in the history", "bids"))
        elif action == ChangeAction.SEAL_BID:
            words.append(ngettext("%(num)d bid from a phone", "%(num)d bids from phones", count))
        elif action == ChangeAction.TAKE_BACK_BID:
            words.append(ngettext("%(num)d bid taken back", "%(num)d bids taken back", count))
        elif action == ChangeAction.CHANGE_BID:
            words.append(ngettext("%(num)d bid changed", "%(num)d bids changed", count))
        elif action == ChangeAction.WEREWOLF:
            words.append(_("Werewolf"))
    return ", ".join(words)


def describe(change: Change | FullChange, names: Sequence[str]) -> str:
    """One change as a short sentence that names the players, never the stored fields."""
    try:
        text = _DESCRIBE[change.action](change, names) if change.action in _DESCRIBE else None
    except (AttributeError, KeyError, TypeError, ValueError, IndexError):
        # History restored from an older or hand-made file: say at least what happened.
        text = None
    if text:
        return text
    if change.round_number is not None:
        return _(
            "%(action)s (round %(number)d)",
            action=action_label(change.action),
            number=change.round_number,
        )
    return action_label(change.action)


# --- reading the snapshots -----------------------------------------------------------------


def _rounds(state: Any) -> dict[int, Mapping[str, Any]]:
    """The round snapshots of a before/after state, by round number."""
    if not isinstance(state, Mapping):
        return {}
    found = state.get("rounds")
    if not isinstance(found, list):
        # A single round snapshot (older hand-made histories).
        found = [state] if isinstance(state.get("number"), int) else []
    return {
        snapshot["number"]: snapshot
        for snapshot in found
        if isinstance(snapshot, Mapping) and isinstance(snapshot.get("number"), int)
    }


def _round_pair(change: Change | FullChange) -> tuple[int, Mapping[str, Any], Mapping[str, Any]]:
    """The changed round's number and its snapshot before and after the change."""
    before, after = _rounds(change.before), _rounds(change.after)
    number = change.round_number
    if number is None:
        number = min(after or before)
    return number, before.get(number, {}), after.get(number, {})


def _by_seat(snapshot: Mapping[str, Any], key: str) -> list[Any]:
    values = snapshot.get(key)
    return list(values) if isinstance(values, list) else []


def _seat_changes(was: Mapping[str, Any], now: Mapping[str, Any], key: str) -> list[tuple]:
    """(seat, before, after) for each seat whose value of ``key`` differs."""
    old, new = _by_seat(was, key), _by_seat(now, key)
    size = max(len(old), len(new))
    old += [None] * (size - len(old))
    new += [None] * (size - len(new))
    return [(seat, a, b) for seat, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]


def _name(seat: Any, names: Sequence[str]) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool):
        return messages.player_name(seat, names)
    return messages.player_name(None)


def _number(value: Any) -> str:
    return "–" if value is None else str(value)


def _trump(snapshot: Mapping[str, Any]) -> str:
    """The trump a round snapshot records, with the card that decided it when not a suit card."""
    trump = messages.trump_label(snapshot.get("trump"))
    cause = snapshot.get("trump_cause")
    if cause is None or cause in PLAIN_CAUSES:
        return trump
    return _("%(trump)s (%(card)s)", trump=trump, card=messages.cause_label(cause))


# --- one sentence per action ---------------------------------------------------------------


def _create_game(change: Change | FullChange, names: Sequence[str]) -> str:
    after = change.after or {}
    players = after.get("players")
    shown = [str(name) for name in players] if isinstance(players, list) else list(names)
    first = after.get("first_dealer")
    if isinstance(first, int) and 0 <= first < len(shown):
        return _(
            "Game started: %(players)s; %(dealer)s dealt first",
            players=names_list(shown),
            dealer=shown[first],
        )
    return _("Game started: %(players)s", players=names_list(shown))


def _set_trump(change: Change | FullChange, names: Sequence[str]) -> str:
    number, _was, now = _round_pair(change)
    return _("Trump for round %(number)d: %(trump)s", number=number, trump=_trump(now))


def _werewolf(change: Change | FullChange, names: Sequence[str]) -> str:
    number, _was, now = _round_pair(change)
    return _(
        "Werewolf in round %(number)d: the trump is now %(trump)s",
        number=number,
        trump=messages.trump_label(now.get("werewolf_trump")),
    )


def _change_dealer(change: Change | FullChange, names: Sequence[str]) -> str:
    number, _was, now = _round_pair(change)
    return _(
        "Dealer of round %(number)d changed to %(name)s",
        number=number,
        name=_name(now.get("dealer"), names),
    )


def _bid(change: Change | FullChange, names: Sequence[str]) -> str | None:
    number, was, now = _round_pair(change)
    made = [(seat, bid) for seat, _old, bid in _seat_changes(was, now, "bids") if bid is not None]
    if len(made) != 1:
        return None
    seat, bid = made[0]
    return _(
        "%(name)s bid %(bid)s in round %(number)d",
        name=_name(seat, names),
        bid=bid,
        number=number,
    )


def _bids(change: Change | FullChange, names: Sequence[str]) -> str:
    # No values: with secret bids they stay hidden until the round is scored (the sheet).
    number, _was, _now = _round_pair(change)
    return _("Everyone's bids entered for round %(number)d", number=number)


def _seal_bid(change: Change | FullChange, names: Sequence[str]) -> str | None:
    # Who, never what: until the last bid is in, the others may not learn it.
    number, was, now = _round_pair(change)
    made = [seat for seat, old, new in _seat_changes(was, now, "bids") if new is not None]
    if len(made) != 1:
        return None
    return _(
        "%(name)s bid on their own phone in round %(number)d",
        name=_name(made[0], names),
        number=number,
    )


def _take_back_bid(change: Change | FullChange, names: Sequence[str]) -> str | None:
    number, was, now = _round_pair(change)
    taken = [seat for seat, old, new in _seat_changes(was, now, "bids") if new is None]
    if len(taken) != 1:
        return None
    return _(
        "%(name)s's bid in round %(number)d taken back",
        name=_name(taken[0], names),
        number=number,
    )


def _record_round(change: Change | FullChange, names: Sequence[str]) -> str:
    number, _was, _now = _round_pair(change)
    before, after = change.before or {}, change.after or {}
    if before.get("status") != after.get("status") == GameStatus.FINISHED:
        return _("Round %(number)d recorded; the game is over", number=number)
    return _("Round %(number)d recorded", number=number)


def _edit_round(change: Change | FullChange, names: Sequence[str]) -> str | None:
    number, was, now = _round_pair(change)
    if not was or not now:
        return None
    parts = correction_parts(was, now, names)
    if not parts:
        return _("Round %(number)d saved without a change", number=number)
    return _("Round %(number)d corrected: %(changes)s", number=number, changes=", ".join(parts))


# A no-break space before each arrow keeps "1 → 2" from starting a line with the arrow.
def correction_parts(
    was: Mapping[str, Any], now: Mapping[str, Any], names: Sequence[str]
) -> list[str]:
    """What a correction changed in a round, in the players' words, one phrase each."""
    parts = []
    for seat, old, new in _seat_changes(was, now, "bids"):
        parts.append(
            _(
                "%(name)s's bid %(before)s\u00a0→ %(after)s",
                name=_name(seat, names),
                before=_number(old),
                after=_number(new),
            )
        )
    for seat, _old, new in _seat_changes(was, now, "cloud_bid"):
        name = _name(seat, names)
        if new is None:
            parts.append(_("no Cloud change for %(name)s", name=name))
        else:
            parts.append(_("the Cloud made %(name)s's bid %(bid)s", name=name, bid=new))
    for seat, old, new in _seat_changes(was, now, "tricks"):
        parts.append(
            _(
                "%(name)s's tricks %(before)s\u00a0→ %(after)s",
                name=_name(seat, names),
                before=_number(old),
                after=_number(new),
            )
        )
    if was.get("trump") != now.get("trump") or was.get("trump_cause") != now.get("trump_cause"):
        parts.append(_("trump %(before)s\u00a0→ %(after)s", before=_trump(was), after=_trump(now)))
    if bool(was.get("bomb_played")) != bool(now.get("bomb_played")):
        parts.append(_("the Bomb was played") if now.get("bomb_played") else _("no Bomb"))
    if was.get("werewolf_trump") != now.get("werewolf_trump"):
        parts.append(
            _(
                "Werewolf trump %(before)s\u00a0→ %(after)s",
                before=messages.trump_label(was.get("werewolf_trump")),
                after=messages.trump_label(now.get("werewolf_trump")),
            )
        )
    if was.get("dealer") != now.get("dealer"):
        parts.append(
            _(
                "dealer %(before)s\u00a0→ %(after)s",
                before=_name(was.get("dealer"), names),
                after=_name(now.get("dealer"), names),
            )
        )
    if was.get("hand_size") != now.get("hand_size"):
        parts.append(
            _(
                "cards %(before)s\u00a0→ %(after)s",
                before=_number(was.get("hand_size")),
                after=_number(now.get("hand_size")),
            )
        )
    return parts


def _change_bid(change: Change | FullChange, names: Sequence[str]) -> str | None:
    number, was, now = _round_pair(change)
    changed = _seat_changes(was, now, "bids")
    if len(changed) != 1:
        return None
    seat, old, new = changed[0]
    return _(
        "Round %(number)d: %(name)s's bid %(before)s\u00a0→ %(after)s",
        number=number,
        name=_name(seat, names),
        before=_number(old),
        after=_number(new),
    )


# --- what Undo takes back, in words --------------------------------------------------------


def _one_seat(change: Change | FullChange, key: str = "bids") -> tuple[int, Any, Any] | None:
    """The one seat whose ``key`` the change changed, with before and after; else None.

    A stored change keeps only the seats that changed (``{"2": 1}``); a whole snapshot has
    the list of every seat."""
    _number, was, now = _round_pair(change)
    old, new = was.get(key), now.get(key)
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        changed = [
            (int(seat), old.get(seat), new.get(seat))
            for seat in sorted(old.keys() | new.keys(), key=int)
            if old.get(seat) != new.get(seat)
        ]
    else:
        changed = _seat_changes(was, now, key)
    return changed[0] if len(changed) == 1 else None


def undo_phrase(change: Change | FullChange, names: Sequence[str]) -> str:
    """What undoing ``change`` takes back, as the words after "Undo:" or "Undone:" — naming
    the player when the change was one player's ("Ana's bid of 2 in round 3")."""
    try:
        phrase = _undo_phrase(change, names)
    except (AttributeError, KeyError, TypeError, ValueError, IndexError):
        phrase = None
    if phrase:
        return phrase
    if change.round_number is not None:
        return _(
            "%(action)s (round %(number)d)",
            action=action_label(change.action),
            number=change.round_number,
        )
    return action_label(change.action)


def _undo_phrase(change: Change | FullChange, names: Sequence[str]) -> str | None:
    action, number = change.action, change.round_number
    if action in (ChangeAction.BID, ChangeAction.CHANGE_BID, ChangeAction.TAKE_BACK_BID):
        one = _one_seat(change)
        if one is None:
            return None
        seat, old, new = one
        name = _name(seat, names)
        if action == ChangeAction.BID:
            return _(
                "%(name)s's bid of %(bid)s in round %(number)d", name=name, bid=new, number=number
            )
        if action == ChangeAction.CHANGE_BID:
            return _(
                "%(name)s's bid %(before)s\u00a0→ %(after)s in round %(number)d",
                name=name,
                before=_number(old),
                after=_number(new),
                number=number,
            )
        return _("taking back %(name)s's bid in round %(number)d", name=name, number=number)
    if action == ChangeAction.SEAL_BID:
        # Who, never what: the bid is sealed until the last one is in.
        one = _one_seat(change)
        if one is None:
            return None
        return _(
            "the bid from %(name)s's phone in round %(number)d",
            name=_name(one[0], names),
            number=number,
        )
    phrases = {
        ChangeAction.BIDS: lambda: _("the bids of round %(number)d", number=number),
        ChangeAction.SET_TRUMP: lambda: _("the trump of round %(number)d", number=number),
        ChangeAction.WEREWOLF: lambda: _(
            "the Werewolf's trump in round %(number)d", number=number
        ),
        ChangeAction.CHANGE_DEALER: lambda: _("the new dealer of round %(number)d", number=number),
        ChangeAction.RECORD_ROUND: lambda: _(
            "the tricks and scores of round %(number)d", number=number
        ),
        ChangeAction.EDIT_ROUND: lambda: _("the correction of round %(number)d", number=number),
        ChangeAction.EDIT_PLAN: lambda: _("the change of the round plan"),
        ChangeAction.ABANDON: lambda: _("abandoning the game"),
    }
    if action not in phrases or (number is None and action not in _GAME_WIDE):
        return None
    return phrases[action]()


_GAME_WIDE = frozenset({ChangeAction.EDIT_PLAN, ChangeAction.ABANDON})


def undone_notice(game: Game, names: Sequence[str]) -> str | None:
    """What the game's latest change undid, in words ("Undone: Ana's bid of 2 in round 3"),
    when its latest change is an undo; else None."""
    if not game.changes or game.changes[-1].action != ChangeAction.UNDO:
        return None
    undoes = (game.changes[-1].after or {}).get("undoes")
    undone = undone_change(game, undoes)
    if undone is None:
        return None
    return _("Undone: %(what)s", what=undo_phrase(undone, names))


def _undo(change: Change | FullChange, names: Sequence[str]) -> str:
    undone = (change.after or {}).get("undone_action")
    what = action_label(undone) if isinstance(undone, str) else _("a change")
    if change.round_number is not None:
        return _("Undone: %(what)s (round %(number)d)", what=what, number=change.round_number)
    return _("Undone: %(what)s", what=what)


def _edit_plan(change: Change | FullChange, names: Sequence[str]) -> str:
    plan = (change.after or {})["plan"]
    return _("Round plan changed: %(sizes)s cards", sizes=", ".join(str(n) for n in plan))


def _abandon(change: Change | FullChange, names: Sequence[str]) -> str:
    return _("Game abandoned")


_DESCRIBE: dict[ChangeAction, Callable[[Change | FullChange, Sequence[str]], str | None]] = {
    ChangeAction.CREATE_GAME: _create_game,
    ChangeAction.SET_TRUMP: _set_trump,
    ChangeAction.WEREWOLF: _werewolf,
    ChangeAction.CHANGE_DEALER: _change_dealer,
    ChangeAction.BID: _bid,
    ChangeAction.BIDS: _bids,
    ChangeAction.SEAL_BID: _seal_bid,
    ChangeAction.TAKE_BACK_BID: _take_back_bid,
    ChangeAction.CHANGE_BID: _change_bid,
    ChangeAction.RECORD_ROUND: _record_round,
    ChangeAction.EDIT_ROUND: _edit_round,
    ChangeAction.UNDO: _undo,
    ChangeAction.EDIT_PLAN: _edit_plan,
    ChangeAction.ABANDON: _abandon,
}
