"""The one place where rule problems and rule choices become words on a page.

:mod:`scorekeeper.rules` reports every rejection as a :class:`~scorekeeper.rules.Problem`
with a stable code; this module turns each code into a translated sentence, using the
players' names when the caller knows them. The labels and one-line explanations of the
rules chosen at setup live here too, so every page names a rule the same way.

Every function calls Flask-Babel's gettext when it is called (never at import), so the
text follows the request's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from flask import current_app, has_app_context
from markupsafe import Markup, escape

from .. import rules
from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from ..i18n import ngettext

__all__ = [
    "Choice",
    "bid_rule_explanation",
    "bid_rule_label",
    "bid_rule_phrase",
    "cause_explanation",
    "cause_label",
    "forbidden_bid_message",
    "jubilee_explanation",
    "jubilee_label",
    "plan_explanation",
    "plan_label",
    "player_name",
    "problem_message",
    "reveal_explanation",
    "reveal_label",
    "rule_choices",
    "rule_mark",
    "rules_details",
    "rules_summary",
    "special_card_label",
    "suit_name",
    "table_note_explanation",
    "table_note_label",
    "tie_break_explanation",
    "tie_break_label",
    "trump_label",
    "trump_symbol",
    "trump_symbols_hidden",
    "variant_explanation",
    "variant_label",
]


# --------------------------------------------------------------------------------------------
# Labels and explanations of the rules
# --------------------------------------------------------------------------------------------

# Public (like PLAN_LABELS): lazy, so a form can list them as choices at class definition.
BID_RULE_LABELS = {
    rules.BidRule.FREE: _l("Free"),
    rules.BidRule.PLUS_MINUS_ONE: _l("±1"),
    rules.BidRule.CANADIAN: _l("Canadian"),
    rules.BidRule.CANADIAN_FINAL: _l("Canadian, final hand"),
}
_BID_RULE_EXPLANATIONS = {
    rules.BidRule.FREE: _l("Any bid; the bids may add up to the cards."),
    rules.BidRule.PLUS_MINUS_ONE: _l("The last bidder may not make the bids add up to the cards."),
    rules.BidRule.CANADIAN: _l(
        "Like ±1, but only for a last bidder who leads alone; zero is always allowed."
    ),
    rules.BidRule.CANADIAN_FINAL: _l("The Canadian rule, in the last round only."),
}
PLAN_LABELS = {
    rules.PlanKind.STANDARD: _l("Standard"),
    rules.PlanKind.FIRST_N: _l("First rounds only"),
    rules.PlanKind.QUICK: _l("Quick play"),
    rules.PlanKind.TOURNAMENT: _l("Tournament"),
    rules.PlanKind.MAXIMUS: _l("Maximus"),
    rules.PlanKind.CUSTOM: _l("Custom"),
}
_PLAN_EXPLANATIONS = {
    rules.PlanKind.STANDARD: _l("1, 2, 3 … cards, until the deck runs out."),
    rules.PlanKind.FIRST_N: _l("The standard plan, stopped after the rounds you choose."),
    rules.PlanKind.QUICK: _l("Two more cards every round, ending with the full deal."),
    rules.PlanKind.TOURNAMENT: _l("10 rounds, set for the number of players."),
    # No-break spaces keep the four suits together on a narrow screen.
    rules.PlanKind.MAXIMUS: _l(
        "5 rounds, every card dealt; trump ♣\u00a0♦\u00a0♥\u00a0♠, then none."
    ),
    rules.PlanKind.CUSTOM: _l("Your own list of cards per round."),
}
_REVEAL_LABELS = {
    rules.BidReveal.OPEN: _l("Open"),
    rules.BidReveal.HIDDEN: _l("Hidden"),
    rules.BidReveal.SECRET: _l("Secret"),
}
_REVEAL_EXPLANATIONS = {
    rules.BidReveal.OPEN: _l("Said aloud in turn; the dealer bids last."),
    rules.BidReveal.HIDDEN: _l("Written down together, then shown. Free bid rule only."),
    rules.BidReveal.SECRET: _l(
        "Written down together, shown only after the tricks. Free bid rule only."
    ),
}
_SUIT_SYMBOLS = {
    rules.Suit.CLUBS: "♣",
    rules.Suit.DIAMONDS: "♦",
    rules.Suit.HEARTS: "♥",
    rules.Suit.SPADES: "♠",
}
_SUIT_NAMES = {
    rules.Suit.CLUBS: _l("Clubs"),
    rules.Suit.DIAMONDS: _l("Diamonds"),
    rules.Suit.HEARTS: _l("Hearts"),
    rules.Suit.SPADES: _l("Spades"),
}
# Editions that print four colours (each a people: humans, elves, dwarves, giants) instead of
# ♣ ♦ ♥ ♠; an instance shows them with SUIT_STYLE = "colours". The app stores suits the same.
SUIT_STYLES = ("classic", "colours")
_COLOUR_SYMBOL = "●"
_COLOUR_NAMES = {
    rules.Suit.CLUBS: _l("Green"),
    rules.Suit.DIAMONDS: _l("Yellow"),
    rules.Suit.HEARTS: _l("Red"),
    rules.Suit.SPADES: _l("Blue"),
}
_CAUSE_LABELS = {
    rules.TrumpCause.SUIT: _l("Suit card"),
    rules.TrumpCause.JESTER: _l("Jester"),
    rules.TrumpCause.WIZARD: _l("Wizard"),
    rules.TrumpCause.NONE_LEFT: _l("No card left"),
    rules.TrumpCause.DRAGON: _l("Dragon"),
    rules.TrumpCause.CLOUD: _l("Cloud"),
    rules.TrumpCause.WEREWOLF: _l("Werewolf"),
    rules.TrumpCause.FAIRY: _l("Fairy"),
    rules.TrumpCause.BOMB: _l("Bomb"),
    rules.TrumpCause.FIXED: _l("Fixed by Maximus"),
}
_CAUSE_EXPLANATIONS = {
    rules.TrumpCause.SUIT: _l("Its suit is trump."),
    rules.TrumpCause.JESTER: _l("No trump."),
    rules.TrumpCause.WIZARD: _l("The dealer chooses a suit."),
    rules.TrumpCause.NONE_LEFT: _l("Every card was dealt: no trump."),
    rules.TrumpCause.DRAGON: _l("The dealer chooses a suit."),
    rules.TrumpCause.CLOUD: _l("The dealer chooses a suit."),
    rules.TrumpCause.WEREWOLF: _l("The dealer chooses a suit."),
    rules.TrumpCause.FAIRY: _l("No trump."),
    rules.TrumpCause.BOMB: _l("No trump."),
    rules.TrumpCause.FIXED: _l("♣\u00a0♦\u00a0♥\u00a0♠ in rounds 1 to 4, then no trump."),
}
_TABLE_NOTE_LABELS = {
    "foresight": _l("Foresight"),
    "gizzard_fester": _l("Gizzard / Fester"),
    "pull_one": _l("Pull one"),
    "dragon": _l("Dragon"),
    "fairy": _l("Fairy"),
    "juggler": _l("Juggler"),
}
_JUBILEE_LABELS = {
    "bomb": _l("Bomb"),
    "cloud": _l("Cloud"),
    "werewolf": _l("Werewolf"),
    "dragon": _l("Dragon"),
    "fairy": _l("Fairy"),
    "dragon_fairy": _l("Dragon and Fairy"),
    "bomb_cancels_bids": _l("The Bomb cancels the bids"),
}
_JUBILEE_EXPLANATIONS = {
    "bomb": _l("Nobody wins its trick: the tricks add up to one less than the cards."),
    "cloud": _l("Whoever wins its trick changes their bid by one, up or down."),
    "werewolf": _l("Its holder may change the trump, or make it no trump."),
    "dragon": _l("Beats everything but the Fairy."),
    "fairy": _l("Loses to everything but wins against the Dragon."),
    "dragon_fairy": _l("Played together: the Dragon wins all but the Fairy."),
    "bomb_cancels_bids": _l("House rule: in a Bomb round everyone scores 10 per trick."),
}
_VARIANT_LABELS = {
    "saboteur": _l("Saboteur"),
    "jester_bid": _l("Jester bid"),
    "tie_break_by_bids": _l("Tie-break by bids"),
}
_VARIANT_EXPLANATIONS = {
    "saboteur": _l("The dealer does not bid and scores +20 that round."),
    "jester_bid": _l("Everyone bids zero; bidding is skipped."),
    "tie_break_by_bids": _l("Tied winners: the higher sum of bids over the game wins."),
}
TIE_BREAK_LABELS = {
    rules.TieBreak.SHARED: _l("Shared win"),
    rules.TieBreak.BID_SUM: _l("Higher sum of bids"),
    rules.TieBreak.BIDS_MET: _l("More bids met"),
}
_TIE_BREAK_EXPLANATIONS = {
    rules.TieBreak.SHARED: _l("Players level on points share the win."),
    rules.TieBreak.BID_SUM: _l("Level on points: the higher sum of bids over the game wins."),
    rules.TieBreak.BIDS_MET: _l("Level on points: more bids met over the game win."),
}

# Which choices the published rules have (the base game, its published variants and the
# Jubilee cards) and which are rules groups add at their table: the setup page and the rules
# page mark each. Keys are the rules page's anchors (group-value).
_HOUSE_RULES = frozenset(
    {
        "plan-first_n",
        "plan-maximus",
        "plan-custom",
        "bid_rule-plus_minus_one",
        "bid_rule-canadian",
        "bid_rule-canadian_final",
        "bid_rule-from",
        "bid_reveal-hidden",
        "bid_reveal-secret",
        "variant-saboteur",
        "variant-jester_bid",
        "tie_break-bids_met",
        "jubilee-bomb_cancels_bids",
    }
)


def _lookup(table: Mapping[str, object], key: object) -> str:
    """The translated entry for ``key`` (an enum or its value); unknown keys are shown as is."""
    text = table.get(str(key)) if isinstance(key, str) else None
    return str(text) if text is not None else str(key)


def bid_rule_label(rule: rules.BidRule | str) -> str:
    """Short name of a bid rule: "Free", "±1", "Canadian", "Canadian, final hand"."""
    return _lookup(BID_RULE_LABELS, rule)


def bid_rule_explanation(rule: rules.BidRule | str) -> str:
    """One line saying what a bid rule forbids."""
    return _lookup(_BID_RULE_EXPLANATIONS, rule)


def plan_label(plan: rules.RoundPlan | rules.PlanKind | str) -> str:
    """Name of a round plan; for a plan value with its details ("First 5 rounds")."""
    if not isinstance(plan, rules.RoundPlan):
        return _lookup(PLAN_LABELS, plan)
    if plan.kind is rules.PlanKind.FIRST_N and isinstance(plan.rounds, int):
        return ngettext("First round only", "First %(num)d rounds", plan.rounds)
    if plan.kind is rules.PlanKind.CUSTOM and plan.custom:
        return _("Custom: %(sizes)s", sizes=", ".join(str(size) for size in plan.custom))
    return _lookup(PLAN_LABELS, plan.kind)


def plan_explanation(kind: rules.PlanKind | str) -> str:
    """One line saying which cards a plan deals."""
    return _lookup(_PLAN_EXPLANATIONS, kind)


def reveal_label(reveal: rules.BidReveal | str) -> str:
    """Short name of a bid reveal: "Open", "Hidden", "Secret"."""
    return _lookup(_REVEAL_LABELS, reveal)


def reveal_explanation(reveal: rules.BidReveal | str) -> str:
    """One line saying how bids are made and shown."""
    return _lookup(_REVEAL_EXPLANATIONS, reveal)


def colour_suits() -> bool:
    """Whether this instance shows the suits as the editions' four colours."""
    return has_app_context() and current_app.config.get("SUIT_STYLE") == "colours"


def trump_symbol(suit: rules.Suit | str | None) -> str:
    """The suit's symbol (♣ ♦ ♥ ♠, or a coloured dot), or "No trump"."""
    if suit is None or str(suit) not in _SUIT_SYMBOLS:
        return _("No trump")
    return _COLOUR_SYMBOL if colour_suits() else _SUIT_SYMBOLS[rules.Suit(suit)]


def suit_name(suit: rules.Suit | str) -> str:
    """The suit's name: "Clubs", "Diamonds", "Hearts", "Spades" (or "Green", "Red", …)."""
    return _lookup(_COLOUR_NAMES if colour_suits() else _SUIT_NAMES, suit)


def trump_label(suit: rules.Suit | str | None) -> str:
    """A trump as shown on a page: symbol and name ("♥ Hearts"), or "No trump"."""
    if suit is None or str(suit) not in _SUIT_SYMBOLS:
        return _("No trump")
    return f"{trump_symbol(suit)} {suit_name(suit)}"


def trump_symbols_hidden(text: str) -> Markup:
    """``text`` (a sentence with trumps in it, such as a history entry or a problem) as HTML
    in which each suit symbol before its name is hidden from screen readers, as on the round's
    header: they read "Hearts", not "black heart suit Hearts". Everything else is escaped."""
    html = escape(text)
    if not any(symbol in text for symbol in (*_SUIT_SYMBOLS.values(), _COLOUR_SYMBOL)):
        return html  # most sentences: no lookups
    for suit in rules.SUIT_ORDER:
        html = html.replace(
            trump_label(suit),
            Markup('<span class="sym" aria-hidden="true">{}</span> {}').format(
                trump_symbol(suit), suit_name(suit)
            ),
        )
    return html


def cause_label(cause: rules.TrumpCause | str) -> str:
    """What was turned up for trump: "Suit card", "Jester", "Wizard", "Dragon", …"""
    return _lookup(_CAUSE_LABELS, cause)


def cause_explanation(cause: rules.TrumpCause | str) -> str:
    """What the turned-up card means for the trump, in one line."""
    return _lookup(_CAUSE_EXPLANATIONS, cause)


def special_card_label(card: str) -> str:
    """Name of a special card of :data:`rules.SPECIAL_CARDS`: "Dragon", "Juggler", …"""
    return table_note_label(card) if card in _TABLE_NOTE_LABELS else jubilee_label(card)


def table_note_label(note: str) -> str:
    """Name of a table-only rule (one of :data:`rules.TABLE_ONLY_RULES`)."""
    return _lookup(_TABLE_NOTE_LABELS, note)


def table_note_explanation(note: str) -> str:
    """Why a table-only rule is listed: it is played at the table and never changes a score."""
    return _("Played at the table; no effect on the scores.")


def jubilee_label(card: str) -> str:
    """Name of a Jubilee card option: "bomb", "cloud", "werewolf", "dragon_fairy", …"""
    return _lookup(_JUBILEE_LABELS, card)


def jubilee_explanation(card: str) -> str:
    """One line saying what a Jubilee card option does to the score keeping."""
    return _lookup(_JUBILEE_EXPLANATIONS, card)


def tie_break_label(tie_break: rules.TieBreak | str) -> str:
    """Short name of a tie-break: "Shared win", "Higher sum of bids", "More bids met"."""
    return _lookup(TIE_BREAK_LABELS, tie_break)


def tie_break_explanation(tie_break: rules.TieBreak | str) -> str:
    """One line saying what decides between players level on points."""
    return _lookup(_TIE_BREAK_EXPLANATIONS, tie_break)


def rule_mark(group: str, value: object) -> str:
    """ "Official" for a choice the published rules have, "House rule" for one groups add
    (``group`` and ``value`` as on the rules page: "bid_rule", "plus_minus_one")."""
    if f"{group}-{value}" in _HOUSE_RULES:
        return _("House rule")
    return _("Official")


def bid_rule_phrase(game_rules: rules.GameRules) -> str:
    """The bid rule as a game plays it: "±1", or "±1 from 3 cards" with a threshold."""
    label = bid_rule_label(game_rules.bid_rule)
    if game_rules.bid_rule_from <= 1:
        return label
    return _("%(rule)s from %(cards)d cards", rule=label, cards=game_rules.bid_rule_from)


def variant_label(name: str) -> str:
    """Name of an on/off variant: "saboteur", "jester_bid", "tie_break_by_bids"."""
    return _lookup(_VARIANT_LABELS, name)


def variant_explanation(name: str) -> str:
    """One line explaining an on/off variant."""
    return _lookup(_VARIANT_EXPLANATIONS, name)


class Choice(NamedTuple):
    """One option of a setup form (a radio button or a checkbox) in words: its name, the line
    explaining it, the rules page's paragraph about it (``about``, an anchor) with the
    label of the link there, and whether the published rules have it (``mark``)."""

    value: str
    label: str
    explanation: str | None = None
    about: str | None = None
    about_label: str | None = None
    mark: str | None = None


# A group of rule choices (as the rules page's anchors name it): its labels and explanations.
_CHOICE_WORDS: dict[str, tuple[Callable[[str], str], Callable[[str], str]]] = {
    "plan": (plan_label, plan_explanation),
    "bid_rule": (bid_rule_label, bid_rule_explanation),
    "bid_reveal": (reveal_label, reveal_explanation),
    "variant": (variant_label, variant_explanation),
    "tie_break": (tie_break_label, tie_break_explanation),
    "jubilee": (jubilee_label, jubilee_explanation),
}


def rule_choices(group: str, values: Iterable[object], *, marked: bool = True) -> list[Choice]:
    """The options of one rule (``group`` as on the rules page: "plan", "jubilee") as a setup
    form offers them, each with a link to its paragraph there and, if ``marked``, "Official"
    or "House rule". Made here rather than by the template a call at a time: 23 options were
    a third of the setup form (timed)."""
    label_of, explanation_of = _CHOICE_WORDS[group]
    found = []
    for value in values:
        key = str(value)
        label = label_of(key)
        found.append(
            Choice(
                value=key,
                label=label,
                explanation=explanation_of(key),
                about=f"{group}-{key}",
                about_label=_("How “%(name)s” works", name=label),
                mark=rule_mark(group, key) if marked else None,
            )
        )
    return found


def _jubilee_names(cards: rules.JubileeCards) -> list[str]:
    names = [jubilee_label(card) for card in ("bomb", "cloud", "werewolf") if getattr(cards, card)]
    if cards.dragon and cards.fairy:
        names.append(jubilee_label("dragon_fairy"))
    return names


def rules_summary(game_rules: rules.GameRules) -> str:
    """The rules in one short line: "Standard · ±1 · open bids", plus any variants."""
    parts = [
        plan_label(game_rules.plan),
        bid_rule_phrase(game_rules),
        _reveal_phrase(game_rules.bid_reveal),
    ]
    parts += [
        variant_label(name) for name in ("saboteur", "jester_bid") if getattr(game_rules, name)
    ]
    if game_rules.tie_break is not rules.TieBreak.SHARED:
        parts.append(_("Tie-break: %(rule)s", rule=tie_break_label(game_rules.tie_break)))
    jubilee = _jubilee_names(game_rules.jubilee)
    if jubilee:
        parts.append(_("Jubilee: %(cards)s", cards=", ".join(jubilee)))
    return " · ".join(parts)


def _reveal_phrase(reveal: rules.BidReveal | str) -> str:
    phrases = {
        rules.BidReveal.OPEN: _l("open bids"),
        rules.BidReveal.HIDDEN: _l("hidden bids"),
        rules.BidReveal.SECRET: _l("secret bids"),
    }
    return _lookup(phrases, reveal)


def rules_details(game_rules: rules.GameRules) -> list[tuple[str, str]]:
    """Every rule of a game as (what, which) pairs, for a page that lists them in full."""
    details = [
        (_("Players"), str(game_rules.players)),
        (_("Round plan"), plan_label(game_rules.plan)),
        (_("Cards per round"), ", ".join(str(size) for size in game_rules.hand_sizes)),
        (_("Bid rule"), bid_rule_phrase(game_rules)),
        (_("Bids"), reveal_label(game_rules.bid_reveal)),
    ]
    variants = [
        variant_label(name) for name in ("saboteur", "jester_bid") if getattr(game_rules, name)
    ]
    details.append((_("Variants"), ", ".join(variants) or _("none")))
    details.append((_("Tie-break"), tie_break_label(game_rules.tie_break)))
    jubilee = _jubilee_names(game_rules.jubilee)
    if jubilee:
        if game_rules.jubilee.bomb_cancels_bids:
            jubilee.append(jubilee_label("bomb_cancels_bids"))
        details.append((_("Jubilee cards"), ", ".join(jubilee)))
    if game_rules.table_notes:
        notes = ", ".join(table_note_label(note) for note in game_rules.table_notes)
        details.append((_("At the table"), notes))
    return details


# --------------------------------------------------------------------------------------------
# Problems
# --------------------------------------------------------------------------------------------


def player_name(seat: int | None, names: Sequence[str] | None = None) -> str:
    """The name of the player in ``seat`` (0-based), or "seat 3" when names are not known."""
    if seat is None:
        return _("a player")
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return _("seat %(number)d", number=seat + 1)


def forbidden_bid_message(
    forbidden: rules.ForbiddenBid, names: Sequence[str] | None = None
) -> str:
    """Why the last bidder may not make one bid, shown before they bid and when refused."""
    return _forbidden_text(
        forbidden.rule, forbidden.hand_size, forbidden.value, player_name(forbidden.seat, names)
    )


def forbidden_bid_template(rule: rules.BidRule | str) -> str:
    """:func:`forbidden_bid_message` with ``{name}``, ``{value}`` and ``{cards}`` in place of
    the numbers, for the table phone's script to fill in while offline."""
    return _forbidden_text(rule, "{cards}", "{value}", "{name}")


def _forbidden_text(rule: object, hand_size: int | str, value: int | str, name: str) -> str:
    if str(rule) == rules.BidRule.PLUS_MINUS_ONE:
        return _(
            "±1: the bids may not add up to %(hand_size)s, so %(name)s may not bid %(value)s",
            hand_size=hand_size,
            name=name,
            value=value,
        )
    return _(
        "%(rule)s: %(name)s leads alone, so the bids may not add up to %(hand_size)s"
        " (%(name)s may not bid %(value)s; zero is always allowed)",
        rule=bid_rule_label(str(rule)),
        hand_size=hand_size,
        name=name,
        value=value,
    )


def _seat_number(value: int | str) -> int | str:
    """A 0-based seat from ``Problem.values`` as people count it (1-based)."""
    return value + 1 if isinstance(value, int) else value


class _Context:
    """A problem with what its message needs: its values and the player's name."""

    def __init__(self, problem: rules.Problem, names: Sequence[str] | None) -> None:
        self.problem = problem
        self.values = problem.values
        self.name = player_name(problem.seat, names)
        self.names = names


def _get(values: Mapping[str, int | str], key: str, default: int | str = "?") -> int | str:
    return values.get(key, default)


# Each entry turns one problem code into a sentence. The values are those rules.py attaches.
def _players_out_of_range(c: _Context) -> str:
    value, low, high = (
        _get(c.values, "value", 0),
        _get(c.values, "min", rules.MIN_PLAYERS),
        _get(c.values, "max", rules.MAX_PLAYERS),
    )
    if isinstance(value, int) and isinstance(low, int) and value < low:
        return ngettext(
            "Wizard needs at least %(min)s players: add %(num)d more.",
            "Wizard needs at least %(min)s players: add %(num)d more.",
            low - value,
            min=low,
        )
    if isinstance(value, int) and isinstance(high, int) and value > high:
        return ngettext(
            "Wizard is played by at most %(max)s players: take %(num)d off.",
            "Wizard is played by at most %(max)s players: take %(num)d off.",
            value - high,
            max=high,
        )
    return _("Wizard is played by %(min)s to %(max)s players.", min=low, max=high)


def _bid_rule_needs_open_bids(c: _Context) -> str:
    return _(
        "%(rule)s needs open bids: with %(reveal)s nobody bids last. "
        "Choose the free bid rule, or open bids.",
        rule=bid_rule_label(str(_get(c.values, "bid_rule"))),
        reveal=_reveal_phrase(str(_get(c.values, "bid_reveal"))),
    )


def _bid_rule_from_not_applicable(c: _Context) -> str:
    return _(
        "Only ±1 and Canadian can start from a hand size, not %(rule)s.",
        rule=bid_rule_label(str(_get(c.values, "bid_rule"))),
    )


def _dragon_and_fairy(c: _Context) -> str:
    return _(
        "The Dragon and the Fairy are played together: add the %(missing)s too.",
        missing=jubilee_label(str(_get(c.values, "missing"))),
    )


def _trump_cause_not_allowed(c: _Context) -> str:
    automatic = c.values.get("automatic")
    if automatic == rules.TrumpCause.NONE_LEFT:
        return _("Every card was dealt this round: there is no trump to turn up.")
    if automatic == rules.TrumpCause.FIXED:
        return _("In Maximus the trump of each round is fixed.")
    return _(
        "%(cause)s cannot decide the trump in this game.",
        cause=cause_label(str(_get(c.values, "cause"))),
    )


def _trump_text(value: int | str) -> str:
    return trump_label(None if value == "none" else str(value))


def _trump_not_allowed(c: _Context) -> str:
    cause = str(_get(c.values, "cause"))
    trump = _trump_text(_get(c.values, "trump"))
    if cause == rules.TrumpCause.FIXED:
        return _("In Maximus this round's trump is fixed; it is not %(trump)s.", trump=trump)
    known = cause in rules.TrumpCause.__members__.values()
    if known and rules.trump_suits_allowed(cause) == (None,):
        return _(
            "%(cause)s turned up means no trump, not %(trump)s.",
            cause=cause_label(cause),
            trump=trump,
        )
    return _(
        "%(cause)s: the trump is a suit, not %(trump)s.", cause=cause_label(cause), trump=trump
    )


def _trump_suit_required(c: _Context) -> str:
    return _(
        "%(cause)s turned up: the dealer chooses a suit (no trump is not allowed).",
        cause=cause_label(str(_get(c.values, "cause"))),
    )


def _forbidden_bid(c: _Context) -> str:
    return _forbidden_text(
        _get(c.values, "rule", rules.BidRule.PLUS_MINUS_ONE),
        _get(c.values, "hand_size"),
        _get(c.values, "value"),
        c.name,
    )


def _cloud_change_not_one(c: _Context) -> str:
    bid, value = _get(c.values, "bid"), _get(c.values, "value")
    if isinstance(bid, int) and bid == 0:
        return _(
            "The Cloud changes a bid by exactly one: %(name)s bid 0, so only 1, not %(value)s.",
            name=c.name,
            value=value,
        )
    if isinstance(bid, int):
        return _(
            "The Cloud changes a bid by exactly one: %(name)s bid %(bid)s, "
            "so %(lower)s or %(higher)s, not %(value)s.",
            name=c.name,
            bid=bid,
            lower=bid - 1,
            higher=bid + 1,
            value=value,
        )
    return _("The Cloud changes a bid by exactly one, up or down.")


def _tricks_total(c: _Context) -> str:
    total, required = _get(c.values, "total"), _get(c.values, "required")
    if not isinstance(required, int):
        return _("The tricks add up to %(total)s, not the tricks played this round", total=total)
    if required == _get(c.values, "hand_size", required):
        return ngettext(
            "The tricks add up to %(total)s, but %(num)d trick was played this round",
            "The tricks add up to %(total)s, but %(num)d tricks were played this round",
            required,
            total=total,
        )
    return ngettext(
        "The tricks add up to %(total)s, but %(num)d trick was won this round"
        " (the Bomb's trick goes to nobody)",
        "The tricks add up to %(total)s, but %(num)d tricks were won this round"
        " (the Bomb's trick goes to nobody)",
        required,
        total=total,
    )


def _not_in_play(card: str) -> Callable[[_Context], str]:
    def message(c: _Context) -> str:
        return _("The %(card)s is not in play in this game.", card=jubilee_label(card))

    return message


def _simple(text: str) -> Callable[[_Context], str]:
    """A message whose placeholders are filled from the problem's values and the name."""

    def message(c: _Context) -> str:
        # A value the problem lacks is shown as "?" rather than losing the whole sentence.
        variables: dict[str, int | str] = dict.fromkeys(_PLACEHOLDER.findall(text), "?")
        variables.update(name=c.name, field=c.problem.field or "")
        variables.update(c.values)
        if isinstance(c.values.get("value"), int) and c.problem.code in _SEAT_VALUES:
            variables["value"] = _seat_number(c.values["value"])
        if isinstance(c.values.get("max"), int) and c.problem.code in _SEAT_VALUES:
            variables["max"] = _seat_number(c.values["max"])
        return _(text, **variables)

    return message


_PLACEHOLDER = re.compile(r"%\((\w+)\)")

# Codes whose "value" and "max" are 0-based seats, shown counted from 1.
_SEAT_VALUES = frozenset({"seat_out_of_range", "dealer_out_of_range"})

_MESSAGES: dict[str, Callable[[_Context], str]] = {
    # Setup: players and round plan
    "players_invalid": _simple("The number of players must be a whole number."),
    "players_missing": _simple("Choose the players."),
    "players_out_of_range": _players_out_of_range,
    "plan_invalid": _simple("Choose a round plan."),
    "plan_kind_invalid": _simple("“%(value)s” is not a round plan."),
    "plan_rounds_missing": _simple("Say how many rounds to play: 1 to %(max)s."),
    "plan_rounds_out_of_range": _simple(
        "With this many players play 1 to %(max)s rounds, not %(value)s."
    ),
    "plan_rounds_not_applicable": _simple(
        "A number of rounds only goes with the plan “first rounds only”."
    ),
    "plan_custom_empty": _simple("List the cards dealt in each round, e.g. 1, 2, 3, 5."),
    "plan_custom_too_long": _simple("A plan has at most %(max)s rounds, not %(value)s."),
    "plan_custom_not_applicable": _simple("A list of hand sizes only goes with the custom plan."),
    "plan_hand_size_out_of_range": _simple(
        "Round %(round)s: a hand holds 1 to %(max)s cards with this many players, not %(value)s."
    ),
    # Setup: bid rule, reveal, variants, Jubilee cards, table notes
    "bid_rule_invalid": _simple("“%(value)s” is not a bid rule."),
    "bid_reveal_invalid": _simple("“%(value)s” is not a way to reveal bids."),
    "bid_rule_needs_open_bids": _bid_rule_needs_open_bids,
    "bid_rule_from_invalid": _simple("Type the hand size the bid rule starts from, e.g. 3."),
    "bid_rule_from_out_of_range": _simple(
        "The bid rule can start from 1 to %(max)s cards with this many players, not %(value)s."
    ),
    "bid_rule_from_not_applicable": _bid_rule_from_not_applicable,
    "plan_start_out_of_range": _simple("Quick play starts with 1 or 2 cards, not %(value)s."),
    "plan_start_not_applicable": _simple("A first hand size only goes with quick play."),
    "tie_break_invalid": _simple("“%(value)s” is not a tie-break."),
    "tie_break_conflict": _simple(
        "The tie-break is given twice and the two do not agree (“%(value)s”)."
    ),
    "value_invalid": _simple("“%(value)s” is not a yes or no (%(field)s)."),
    "jubilee_invalid": _simple("The Jubilee card choices could not be read."),
    "dragon_and_fairy_together": _dragon_and_fairy,
    "table_notes_invalid": _simple("The table rules could not be read."),
    "table_note_unknown": _simple("“%(value)s” is not a table rule the app knows."),
    "table_note_repeated": _simple("The table rule “%(value)s” is listed twice."),
    "rules_invalid": _simple("The game's rules could not be read."),
    "field_unknown": _simple("Unknown setting “%(field)s”."),
    # Rounds and seats
    "round_number_out_of_range": _simple(
        "There is no round %(value)s: this game has rounds 1 to %(max)s."
    ),
    "round_out_of_sequence": _simple(
        "Round %(value)s is out of order: round %(expected)s is next."
    ),
    "round_shape": _simple(
        "The round needs a bid and tricks for each of the %(players)s players."
    ),
    "hand_size_out_of_range": _simple(
        "A hand holds 1 to %(max)s cards with this many players, not %(value)s."
    ),
    "seat_out_of_range": _simple("There is no seat %(value)s at this table (1 to %(max)s)."),
    "dealer_out_of_range": _simple(
        "There is no seat %(value)s for the dealer at this table (1 to %(max)s)."
    ),
    "totals_length": _simple("The running totals do not match the %(players)s players."),
    # Trump
    "trump_invalid": _simple("“%(value)s” is not a trump: choose a suit or no trump."),
    "trump_cause_invalid": _simple("“%(value)s” is not a card that can be turned up for trump."),
    "trump_cause_missing": _simple("Say which card was turned up for trump."),
    "trump_cause_not_allowed": _trump_cause_not_allowed,
    "trump_not_allowed": _trump_not_allowed,
    "trump_suit_required": _trump_suit_required,
    "werewolf_not_in_play": _not_in_play("werewolf"),
    # Bids
    "bid_missing": _simple("Bid missing for %(name)s."),
    "bid_out_of_range": _simple("%(name)s can bid 0 to %(max)s, not %(value)s."),
    "jester_bid_not_zero": _simple(
        "Jester bid: every bid is zero, so %(name)s cannot bid %(value)s."
    ),
    "dealer_does_not_bid": _simple("Saboteur: the dealer (%(name)s) does not bid."),
    "forbidden_bid": _forbidden_bid,
    # Cloud
    "cloud_not_in_play": _not_in_play("cloud"),
    "cloud_seat_has_no_bid": _simple("%(name)s has no bid for the Cloud to change."),
    "cloud_bid_out_of_range": _simple(
        "With the Cloud, %(name)s's new bid must be 0 to %(max)s, not %(value)s."
    ),
    "cloud_change_not_one": _cloud_change_not_one,
    "cloud_holder_no_trick": _simple(
        "%(name)s has the Cloud, so won its trick: at least 1 trick, not 0."
    ),
    "cloud_change_impossible": _simple(
        "With the Cloud, %(name)s's bid cannot change that way: it must stay 0 to the cards."
    ),
    # Tricks
    "bomb_not_in_play": _not_in_play("bomb"),
    "tricks_missing": _simple("Tricks missing for %(name)s."),
    "tricks_out_of_range": _simple("%(name)s can take 0 to %(max)s tricks, not %(value)s."),
    "tricks_total": _tricks_total,
    # The order of play at the table (scorekeeper.games)
    "not_bidders_turn": _simple("It is not %(name)s's turn to bid: reload the page."),
    "trump_first": _simple("Record the trump first."),
    "bids_first": _simple("Record every bid first."),
    "bidding_started": _simple("Bidding has started: the dealer can no longer change."),
    "no_bid_to_take_back": _simple("There is no bid to take back."),
    "round_closed": _simple("This round is already scored or the game is over."),
    "round_not_scored": _simple("Only a round that was played can be corrected."),
    "game_not_in_progress": _simple("This game is no longer being played."),
    "plan_not_editable": _simple("Only a custom plan of a game in progress can change."),
}

KNOWN_CODES: frozenset[str] = frozenset(_MESSAGES)
"""The problem codes that have a message of their own."""


def fallback_message(problem: rules.Problem) -> str:
    """The message for a code this module does not know yet (it names the code)."""
    return _("This breaks the game's rules (%(code)s).", code=problem.code)


def problem_message(
    problem: rules.Problem, names: Sequence[str] | None = None, *, with_round: bool = False
) -> str:
    """The sentence a page shows for one rule problem.

    ``names`` are the players' names by seat; without them players are called "seat 3".
    With ``with_round`` a problem that carries a round number is prefixed with it
    ("Round 4: …"), for a page that lists problems of several rounds.
    """
    build = _MESSAGES.get(problem.code)
    try:
        text = build(_Context(problem, names)) if build else fallback_message(problem)
    except (KeyError, TypeError, ValueError):
        # A problem with unexpected values still gets a readable sentence.
        text = fallback_message(problem)
    if with_round and problem.round_number is not None:
        return _("Round %(number)d: %(message)s", number=problem.round_number, message=text)
    return text
