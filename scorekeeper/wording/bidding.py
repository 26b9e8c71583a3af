"""The bidding statistics in words: what stands out, and the labels of the bidding tables."""

from __future__ import annotations

from ..i18n import gettext as _
from ..i18n import ngettext
from ..reports import bidding
from .formats import percent


def place_label(place: bidding.PositionTally) -> str:
    """A place in the bidding: "First", "2nd place" …, "Last"."""
    if place.last:
        return _("Last to bid")
    if place.place == 1:
        return _("First to bid")
    return _("Bidding in place %(place)d", place=place.place)


def direction_label(loss: bidding.Loss) -> str:
    """A kind of miss: over- or under-bid, at a number of cards."""
    if loss.direction == "over":
        return ngettext(
            "Over-bid with %(num)d card", "Over-bid with %(num)d cards", loss.hand_size
        )
    return ngettext("Under-bid with %(num)d card", "Under-bid with %(num)d cards", loss.hand_size)


def finding_sentence(finding: bidding.Finding, name: str) -> str:
    """One thing that stands out, in a sentence that names the player (neutrally)."""
    v = finding.values
    code = finding.code
    if code in ("over_from", "over_between", "under_from", "under_between"):
        numbers = {
            "name": name,
            "low": v["low"],
            "high": v["high"],
            "share": percent(float(v["share"])),
            "count": v["count"],
            "misses": v["misses"],
        }
        if code == "over_from":
            text = _(
                "%(name)s bid over with %(low)d cards or more: %(share)s of the missed bids"
                " (%(count)d of %(misses)d).",
                **numbers,
            )
        elif code == "over_between":
            text = _(
                "%(name)s bid over with %(low)d to %(high)d cards: %(share)s of the missed"
                " bids (%(count)d of %(misses)d).",
                **numbers,
            )
        elif code == "under_from":
            text = _(
                "%(name)s bid under with %(low)d cards or more: %(share)s of the missed bids"
                " (%(count)d of %(misses)d).",
                **numbers,
            )
        else:
            text = _(
                "%(name)s bid under with %(low)d to %(high)d cards: %(share)s of the missed"
                " bids (%(count)d of %(misses)d).",
                **numbers,
            )
        return text
    if code in ("forced_lower", "forced_higher"):
        return _(
            "%(name)s met %(forced)s of the bids the bid rule restricted (%(forced_rounds)d"
            " rounds) and %(free)s of the free bids (%(free_rounds)d rounds).",
            name=name,
            forced=percent(float(v["forced"])),
            forced_rounds=v["forced_rounds"],
            free=percent(float(v["free"])),
            free_rounds=v["free_rounds"],
        )
    if code.startswith("position"):
        numbers = {
            "name": name,
            "rate": percent(float(v["rate"])),
            "rounds": v["rounds"],
            "overall": percent(float(v["overall"])),
            "place": v["place"],
        }
        if code == "position_last":
            return _(
                "%(name)s met the fewest bids when bidding last: %(rate)s (%(rounds)d rounds),"
                " against %(overall)s of all bids.",
                **numbers,
            )
        if code == "position_first":
            return _(
                "%(name)s met the fewest bids when bidding first: %(rate)s (%(rounds)d rounds),"
                " against %(overall)s of all bids.",
                **numbers,
            )
        return _(
            "%(name)s met the fewest bids when bidding in place %(place)d: %(rate)s"
            " (%(rounds)d rounds), against %(overall)s of all bids.",
            **numbers,
        )
    return _(
        "%(name)s met %(rate)s of the zero bids (%(rounds)d rounds), against %(overall)s of"
        " all bids.",
        name=name,
        rate=percent(float(v["rate"])),
        rounds=v["rounds"],
        overall=percent(float(v["overall"])),
    )
