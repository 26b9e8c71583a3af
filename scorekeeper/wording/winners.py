"""Who won, in words: one source for the table's end screen, the live view, a past game's page
and the games list, so a tie decided by the bids is named the same way everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .. import rules
from ..i18n import ngettext
from .formats import names_list


class Standing(Protocol):
    """What the words need of a game's result, by seat: the rules module's
    :class:`~scorekeeper.rules.ScoreSheet`, or the games list's stored outcome."""

    @property
    def totals(self) -> Sequence[int]: ...
    @property
    def bid_sums(self) -> Sequence[int]: ...
    @property
    def bids_met(self) -> Sequence[int]: ...
    @property
    def leaders(self) -> Sequence[int]: ...
    @property
    def winners(self) -> Sequence[int]: ...


@dataclass(frozen=True)
class WinnerWords:
    """``headline``: who won and how ("Dan wins on the tie-break: 12 bids to 9");
    ``note``: the tie behind it, if any; ``summary``: the headline as short as a line of the
    games list allows ("Won by Dan · 200 points")."""

    headline: str
    note: str | None
    summary: str


def _tie_break_of(tie_break: rules.TieBreak | str | bool) -> rules.TieBreak:
    # True / False: the older on/off tie-break by the sum of bids.
    if isinstance(tie_break, bool):
        return rules.TieBreak.BID_SUM if tie_break else rules.TieBreak.SHARED
    try:
        return rules.TieBreak(tie_break)
    except ValueError:
        return rules.TieBreak.SHARED


def winner_words(
    sheet: Standing,
    names: Sequence[str],
    tie_break: rules.TieBreak | str | bool = rules.TieBreak.SHARED,
) -> WinnerWords | None:
    """The winners of a finished game with their points and, when the points were tied, what
    the game's tie-break (``GameRules.tie_break``) decided, with both figures; None while
    nobody has won.

    One winner among several leaders can only come from the tie-break (the sum of bids, or
    the bids met); with a tie-break, a shared win adds that it could not break the tie.
    """
    kind = _tie_break_of(tie_break)
    winners = tuple(sheet.winners)
    if not winners:
        return None
    top = sheet.totals[winners[0]]
    winner_names = names_list(names[seat] for seat in winners)
    others = [seat for seat in sheet.leaders if seat not in winners]
    if len(winners) == 1 and others:
        return _won_on_tie_break(sheet, names, kind, winners[0], others)
    if len(winners) == 1:
        headline = ngettext(
            "%(name)s wins with %(num)d point!",
            "%(name)s wins with %(num)d points!",
            top,
            name=winner_names,
        )
        summary = ngettext(
            "Won by %(names)s · %(num)d point",
            "Won by %(names)s · %(num)d points",
            top,
            names=winner_names,
        )
        return WinnerWords(headline, None, summary)
    headline = ngettext(
        "Shared win: %(names)s, %(num)d point each.",
        "Shared win: %(names)s, %(num)d points each.",
        top,
        names=winner_names,
    )
    note = None
    if kind is rules.TieBreak.BID_SUM:
        note = ngettext(
            "The tie-break by bids could not decide: %(num)d bid each.",
            "The tie-break by bids could not decide: %(num)d bids each.",
            sheet.bid_sums[winners[0]],
        )
    elif kind is rules.TieBreak.BIDS_MET:
        note = ngettext(
            "The tie-break by bids met could not decide: %(num)d bid met each.",
            "The tie-break by bids met could not decide: %(num)d bids met each.",
            sheet.bids_met[winners[0]],
        )
    return WinnerWords(headline, note, headline)


def _won_on_tie_break(
    sheet: Standing,
    names: Sequence[str],
    kind: rules.TieBreak,
    winner: int,
    others: Sequence[int],
) -> WinnerWords:
    top = sheet.totals[winner]
    tied_with = names_list(names[seat] for seat in others)
    if kind is rules.TieBreak.BIDS_MET:
        headline = ngettext(
            "%(name)s wins on the tie-break: %(num)d bid met to %(other)d",
            "%(name)s wins on the tie-break: %(num)d bids met to %(other)d",
            sheet.bids_met[winner],
            name=names[winner],
            other=max(sheet.bids_met[seat] for seat in others),
        )
        note = ngettext(
            "Tied on %(num)d point with %(names)s; more bids met over the game decide.",
            "Tied on %(num)d points with %(names)s; more bids met over the game decide.",
            top,
            names=tied_with,
        )
        return WinnerWords(headline, note, headline)
    headline = ngettext(
        "%(name)s wins on the tie-break: %(num)d bid to %(other)d",
        "%(name)s wins on the tie-break: %(num)d bids to %(other)d",
        sheet.bid_sums[winner],
        name=names[winner],
        other=max(sheet.bid_sums[seat] for seat in others),
    )
    note = ngettext(
        "Tied on %(num)d point with %(names)s; the higher sum of bids over the game decides.",
        "Tied on %(num)d points with %(names)s; the higher sum of bids over the game decides.",
        top,
        names=tied_with,
    )
    return WinnerWords(headline, note, headline)
