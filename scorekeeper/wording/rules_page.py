"""The rules page: every variant the app offers, what it changes and how the app applies it.

Each entry has an anchor (``bid_rule-canadian``) so the setup page links straight to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import rules
from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from . import messages


@dataclass(frozen=True)
class RuleEntry:
    """One choice of the setup page, explained."""

    anchor: str
    name: str
    summary: str
    details: str
    mark: str = ""  # "Official" or "House rule" (messages.rule_mark); none for table notes


@dataclass(frozen=True)
class RuleGroup:
    """A heading of the rules page and its entries."""

    anchor: str
    title: str
    entries: tuple[RuleEntry, ...]


def anchor(group: str, value: object) -> str:
    """The id of one choice on the rules page: ``bid_rule-plus_minus_one``."""
    return f"{group}-{value}"


_DETAILS = {
    # Bid rules
    anchor("bid_rule", rules.BidRule.FREE): _l(
        "Every player may bid anything from zero to the number of cards, and the bids may add "
        "up to the cards, so everyone can make their bid in the same round. The app only "
        "checks that each bid is in range."
    ),
    anchor("bid_rule", rules.BidRule.PLUS_MINUS_ONE): _l(
        "The last bidder may not bid the number that makes all the bids add up to the cards in "
        "the hand, so at least one player must miss. The app shows the forbidden bid and the "
        "reason before the last bidder bids, and refuses it if it is entered anyway. When that "
        "number is below zero or above the cards, every bid is allowed."
    ),
    anchor("bid_rule", rules.BidRule.CANADIAN): _l(
        "Like ±1, but only when the last bidder is clearly in the lead before the round: a "
        "higher total than everyone else, not a tie. Even then, bidding zero is always allowed. "
        "The app reads the lead from the score sheet before each round."
    ),
    anchor("bid_rule", rules.BidRule.CANADIAN_FINAL): _l(
        "The Canadian rule in the last round of the game only; every other round is free."
    ),
    anchor("bid_rule", "from"): _l(
        "Many groups leave the first rounds free and play ±1 or Canadian only from some hand "
        "size on: with “from 3 cards” the rounds of 1 and 2 cards are free, and from 3 cards "
        "the bid rule binds. 1 means every round. The app shows the forbidden bid, refuses it "
        "and flags corrections only in the rounds the rule binds, and the game's rules say it "
        "(“±1 from 3 cards”)."
    ),
    # Round plans
    anchor("plan", rules.PlanKind.STANDARD): _l(
        "One card in the first round and one more every round, until the whole deck is dealt: "
        "20, 15, 12 or 10 rounds for 3, 4, 5 or 6 players. In the last round no card is left to "
        "turn up, so there is no trump; the app fills that in — unless a special card is in "
        "the deck (see “Special cards in the deck” below)."
    ),
    anchor("plan", rules.PlanKind.FIRST_N): _l(
        "The standard plan, stopped after the number of rounds you choose: for a shorter evening."
    ),
    anchor("plan", rules.PlanKind.QUICK): _l(
        "The published short game: two more cards every round, ending with the full deal. "
        "With 3, 5 or 6 players it starts with 2 cards (2, 4 … 20, 12 or 10), with 4 players "
        "with 1 (1, 3 … 15). Games stored before the app followed the published plan keep the "
        "cards they were played with (1, 3, 5 …)."
    ),
    anchor("plan", rules.PlanKind.TOURNAMENT): _l(
        "Ten rounds whose hand sizes depend on the number of players, so every table plays the "
        "same length of game (with four players: 1, 3, 5, 7, 9, 11, 12, 13, 14 and 15 cards)."
    ),
    anchor("plan", rules.PlanKind.MAXIMUS): _l(
        "Five rounds in which every card is dealt. The trump is fixed: clubs, diamonds, hearts, "
        "spades, then no trump in the fifth round. The app sets it for you."
    ),
    anchor("plan", rules.PlanKind.CUSTOM): _l(
        "Your own list of cards per round. The rounds not dealt yet can still be changed "
        "during the game (“Later rounds” at the table)."
    ),
    # Bid reveal
    anchor("bid_reveal", rules.BidReveal.OPEN): _l(
        "Players say their bids aloud in turn, starting left of the dealer; the dealer bids "
        "last. The app takes them in that order, which is what ±1 and Canadian need."
    ),
    anchor("bid_reveal", rules.BidReveal.HIDDEN): _l(
        "Everyone writes a bid down at the same time; the bids are entered together and then "
        "shown. Nobody bids last, so only the free bid rule goes with it."
    ),
    anchor("bid_reveal", rules.BidReveal.SECRET): _l(
        "Like hidden bids, but the bids stay off every screen, the live view and the exports "
        "until the tricks of the round are entered."
    ),
    # Variants
    anchor("variant", "saboteur"): _l(
        "The dealer does not bid and scores 20 points that round, whatever happens. The player "
        "right of the dealer bids last, so ±1 and Canadian bind them."
    ),
    anchor("variant", "jester_bid"): _l(
        "Every player bids zero in every round, so the app skips bidding and goes straight "
        "from the trump to the tricks."
    ),
    # Tie-breaks
    anchor("tie_break", rules.TieBreak.SHARED): _l(
        "Players who finish level on points share the win, as the base game has it."
    ),
    anchor("tie_break", rules.TieBreak.BID_SUM): _l(
        "When players finish level on points, the one whose bids over the whole game add up "
        "to more wins, as the US rules have it. Level on that too, they share the win."
    ),
    anchor("tie_break", rules.TieBreak.BIDS_MET): _l(
        "When players finish level on points, the one who met their bid in more rounds wins, "
        "as Amigo's qualifying tournaments play it. Level on that too, they share the win."
    ),
    # Jubilee cards
    anchor("jubilee", "bomb"): _l(
        "Nobody wins the trick that holds the Bomb, so the tricks of that round add up to one "
        "less than the cards. Tick “The Bomb was played” when you enter the tricks. Turned up "
        "for trump, the Bomb means no trump."
    ),
    anchor("jubilee", "bomb_cancels_bids"): _l(
        "A house rule some groups play: in a round where the Bomb was played the bids do not "
        "count, and every player scores 10 points per trick taken."
    ),
    anchor("jubilee", "cloud"): _l(
        "After bidding, whoever wins the Cloud's trick changes their bid by exactly one, up or "
        "down, staying within 0 and the cards. The round is scored with the new bid and the "
        "sheet shows both. Turned up for trump, the dealer chooses the suit."
    ),
    anchor("jubilee", "werewolf"): _l(
        "Its holder may replace the trump with any suit or with no trump; record it with "
        "“The Werewolf changed the trump”. Turned up for trump, the dealer chooses the suit."
    ),
    anchor("jubilee", "dragon_fairy"): _l(
        "The Dragon wins any trick the Fairy is not in; the Fairy loses every trick except one "
        "with the Dragon. They change who wins tricks, not how they score. Turned up for trump, "
        "the Dragon lets the dealer choose the suit and the Fairy means no trump."
    ),
}

_TABLE_NOTE_DETAILS = {
    "foresight": _l(
        "In the first round nobody looks at their own card: each player holds it to their "
        "forehead and bids from the cards the others show."
    ),
    "gizzard_fester": _l(
        "Whoever plays a Wizard must call “Gizzard!”, or it counts as a Jester; whoever plays "
        "a Jester must call “Fester!”, or it counts as a Wizard."
    ),
    "pull_one": _l(
        "After the bids, each player may draw one card from the hand of the neighbour on their "
        "right."
    ),
    "dragon": _l(
        "The Dragon, which beats even a Wizard, is in the deck. It changes who wins tricks, "
        "not how they score."
    ),
    "fairy": _l(
        "The Fairy is in the deck: it loses every trick except one with the Dragon in it."
    ),
    "juggler": _l(
        "The Juggler, a card worth 7½ in all four suits, is in the deck. It changes who wins "
        "tricks, not how they score."
    ),
}

_MARKS_EXPLAINED = _l(
    "Each choice is marked “Official” when the published rules have it (the base game, its "
    "published variants and the Jubilee cards) or “House rule” when groups add it at their "
    "table. A new game starts from the rules of the last game started here; the very first "
    "from the official rules, with free bids."
)


# The groups of the setup page, in its order: anchor, title, choices, name and summary.
_GROUPS: tuple[tuple[str, object, tuple, Callable, Callable], ...] = (
    ("plan", _l("Round plan"), tuple(rules.PlanKind), messages.plan_label,
     messages.plan_explanation),
    ("bid_rule", _l("Bid rule"), tuple(rules.BidRule), messages.bid_rule_label,
     messages.bid_rule_explanation),
    ("bid_reveal", _l("Bids"), tuple(rules.BidReveal), messages.reveal_label,
     messages.reveal_explanation),
    ("variant", _l("Variants"), ("saboteur", "jester_bid"),
     messages.variant_label, messages.variant_explanation),
    ("tie_break", _l("Tie-break"), tuple(rules.TieBreak), messages.tie_break_label,
     messages.tie_break_explanation),
    ("jubilee", _l("Jubilee edition cards"),
     ("bomb", "bomb_cancels_bids", "cloud", "werewolf", "dragon_fairy"),
     messages.jubilee_label, messages.jubilee_explanation),
)  # fmt: skip


def marks_explained() -> str:
    """What "Official" and "House rule" mean, and which rules a new game starts from."""
    return str(_MARKS_EXPLAINED)


def _entry(key: str, value: object, name: str, summary: str) -> RuleEntry:
    details = str(_DETAILS[anchor(key, value)])
    return RuleEntry(anchor(key, value), name, summary, details, messages.rule_mark(key, value))


def _deck_entry() -> RuleEntry:
    # The names come from the rules module's list, so the page says what the deck counts.
    names = ", ".join(messages.special_card_label(card) for card in rules.SPECIAL_CARDS)
    return RuleEntry(
        "deck",
        _("Special cards in the deck"),
        _("Each special card in play is one more card."),
        _(
            "The deck has 60 cards, plus each special card in play: %(cards)s, whether it "
            "is chosen among the Jubilee cards or listed as played at the table. With any of "
            "them a card is left after the full deal, so the app asks for the card turned up "
            "for trump even in the last round.",
            cards=names,
        ),
        _("Official"),
    )


def rule_groups() -> tuple[RuleGroup, ...]:
    """Every choice of the setup page, grouped as the setup page groups them."""
    groups = [
        RuleGroup(
            key,
            str(title),
            tuple(_entry(key, v, name(v), summary(v)) for v in values),
        )
        for key, title, values, name, summary in _GROUPS
    ]
    bid_group = groups[1]
    threshold = _entry(
        "bid_rule", "from", _("From a hand size on"), _("±1 or Canadian only from N cards on.")
    )
    groups[1] = RuleGroup(bid_group.anchor, bid_group.title, (*bid_group.entries, threshold))
    jubilee = groups[-1]
    groups[-1] = RuleGroup(jubilee.anchor, jubilee.title, (*jubilee.entries, _deck_entry()))
    notes = tuple(
        RuleEntry(
            anchor("table_note", note),
            messages.table_note_label(note),
            messages.table_note_explanation(note),
            str(_TABLE_NOTE_DETAILS[note]),
        )
        for note in rules.TABLE_ONLY_RULES
    )
    return (*groups, RuleGroup("table_note", str(_l("Played at the table")), notes))
