"""Words on the pages as a fluent player reads them: counts agree with their nouns, no English
left on the Portuguese and Italian pages, French punctuation spaced as the glossary says."""

import html
import re

import pytest
import sqlalchemy as sa

from scorekeeper import ratings, rules
from scorekeeper.extensions import db
from scorekeeper.models import Player
from tests.factories import make_game
from tests.test_i18n import catalogue

ONE_CARD = rules.GameRules(
    players=3,
    bid_rule=rules.BidRule.FREE,
    plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1,)),
)


def visible_text(response) -> str:
    """The page's text as shown: no tags, no style or script, entities decoded."""
    page = response.get_data(as_text=True)
    page = re.sub(r"<(style|script)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def in_language(client, path: str, language: str) -> str:
    client.set_cookie("lang", language)
    return visible_text(client.get(path))


@pytest.mark.parametrize(
    ("language", "one_miss"),
    [
        ("en", "10 points lost in 1 missed bid."),
        ("pt", "10 pontos perdidos em 1 previsão errada."),
        ("es", "10 puntos perdidos en 1 apuesta fallada."),
        ("it", "10 punti persi in 1 puntata mancata."),
        ("de", "10 Punkte verloren in 1 verfehlten Ansage."),
        ("fr", "10 points perdus sur 1 annonce ratée."),
    ],
)
def test_one_missed_bid_is_said_in_the_singular(client, ctx, language, one_miss):
    # Ann bid 1 and took none: one missed bid, 10 points lost.
    make_game(["Ann", "Bob", "Cy"], [([1, 0, 0], [0, 1, 0])], game_rules=ONE_CARD)
    ann = db.session.scalar(sa.select(Player.id).where(Player.name == "Ann"))
    page = in_language(client, f"/players/{ann}", language)
    assert one_miss in page


@pytest.mark.parametrize("language", ["pt", "it"])
def test_no_rating_left_in_english_on_the_player_and_ladder_pages(client, ctx, language):
    for _number in range(3):
        make_game(["Ann", "Bob", "Cy"], [([1, 0, 0], [1, 0, 0])], game_rules=ONE_CARD)
    ratings.refresh(ratings.ALL_TIME, None)
    ann = db.session.scalar(sa.select(Player.id).where(Player.name == "Ann"))
    for path in (f"/players/{ann}", "/ladder/?season=all"):
        page = in_language(client, path, language)
        assert not re.search(r"\brating", page, re.I), (path, page)


def test_no_replay_left_in_english_on_the_italian_home_page(client):
    assert not re.search(r"\breplay\b", in_language(client, "/", "it"), re.I)


def test_french_spaces_each_mark_as_the_glossary_says():
    """U+00A0 before ":", the narrow U+202F before ";", "!" and "?" (docs/glossary-fr.md)."""
    wrong = []
    for message in catalogue("fr"):
        texts = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in texts:
            for mark in re.finditer(r"([\u00a0\u202f])([:;!?])", text):
                wanted = "\u00a0" if mark.group(2) == ":" else "\u202f"
                if mark.group(1) != wanted:
                    wrong.append(text[max(0, mark.start() - 20) : mark.end() + 5])
    assert not wrong, wrong
