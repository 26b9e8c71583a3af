"""The roster's words: why a rename, merge or undo was refused, and the lines of its log."""

from __future__ import annotations

from flask_babel import format_date

from ..i18n import gettext as _
from ..i18n import ngettext
from ..models import PlayerChange, RosterAction
from ..roster import GAMES_NAMED, Refusal, RosterRefused
from .formats import names_list


def refusal_message(refused: RosterRefused) -> str:
    """The sentence shown next to the input of a refused roster change."""
    details = refused.details
    reason = refused.reason
    if reason == Refusal.SAME_NAME:
        return _("%(name)s is the name already.", name=details["name"])
    if reason == Refusal.NAME_TAKEN:
        return _(
            "There is already a player named %(name)s. To make them one player, merge instead.",
            name=details["name"],
        )
    if reason == Refusal.NO_TARGET:
        return _("Choose the player to merge into.")
    if reason == Refusal.SAME_PLAYER:
        return _("Choose another player: a player cannot be merged into themselves.")
    if reason == Refusal.PLAYED_TOGETHER:
        games = details["games"]
        days = names_list(format_date(day, "medium") for _id, day in games[:GAMES_NAMED])
        if len(games) > GAMES_NAMED:
            days += " …"
        return ngettext(
            "%(name)s and %(other)s played in the same game (%(days)s): merged, one player"
            " would sit at that table twice. Only players who never played together can be"
            " merged.",
            "%(name)s and %(other)s played in the same %(num)d games (%(days)s): merged,"
            " one player would sit at those tables twice. Only players who never played"
            " together can be merged.",
            len(games),
            name=details["name"],
            other=details["other"],
            days=days,
        )
    if reason == Refusal.SAME_EVENT:
        return ngettext(
            "%(name)s and %(other)s are both players of the event %(events)s: merged, one"
            " player would be there twice.",
            "%(name)s and %(other)s are both players of the events %(events)s: merged, one"
            " player would be there twice.",
            len(details["events"]),
            name=details["name"],
            other=details["other"],
            events=names_list(details["events"]),
        )
    if reason == Refusal.ALREADY_UNDONE:
        return _("This change was undone already.")
    if reason == Refusal.LATER_CHANGE:
        return _(
            "A later change concerns the same players (%(change)s): undo that one first.",
            change=change_line(details["change"]),
        )
    if reason == Refusal.NAME_TAKEN_SINCE:
        return _(
            "The old name is taken now: %(name)s plays under it. Rename %(name)s first.",
            name=details["name"],
        )
    if reason == Refusal.BUSY:
        return _("The players were being changed at the same moment: look and try again.")
    return _("This player is not on the roster any more.")


def change_line(change: PlayerChange) -> str:
    """What a change of the roster did, in one sentence."""
    if change.action == RosterAction.RENAME:
        return _(
            "Renamed from %(old)s to %(new)s.", old=change.before["name"], new=change.after["name"]
        )
    return _(
        "%(name)s merged into %(other)s.",
        name=change.before["name"],
        other=change.before.get("into_name", change.after["name"]),
    )
