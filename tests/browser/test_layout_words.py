"""Words laid out on a phone as they read: the score sheet's place row stays inside its column
in every language, and a game's list of players puts each comma right after its name."""

import pytest
from playwright.sync_api import Page

from scorekeeper import rules
from scorekeeper.i18n import LANGUAGES
from tests.browser.page_states import setup_client
from tests.factories import make_game, random_rounds

NAMES = ("Ida", "Bartholomew", "Cy", "Dee", "Evangeline", "Fo")

# How far the place row's label runs past its column's right edge (its divider), measured on
# the text itself (a word hidden beside the "#" still took its room), and whether any of it
# is hidden text.
PLACE_LABEL = """() => {
  const th = document.querySelector('.score-sheet tr.places th');
  const range = document.createRange();
  range.selectNodeContents(th);
  const border = parseFloat(getComputedStyle(th).borderRightWidth);
  const divider = th.getBoundingClientRect().right - border;
  return {past: range.getBoundingClientRect().right - divider,
          hidden: th.querySelectorAll('.visually-hidden, [aria-hidden]').length,
          text: th.textContent.trim()};
}"""

# For each name followed by a comma: the room between what the eye sees of the name (its
# box when it has a border, else its letters) and the comma.
GAPS_BEFORE_COMMAS = """() => {
  const gaps = [];
  for (const link of document.querySelectorAll('.players-line a')) {
    const after = link.nextSibling;
    const text = after && after.nodeType === Node.TEXT_NODE ? after.textContent : '';
    if (!text.startsWith(',')) continue;
    const comma = document.createRange();
    comma.setStart(after, 0); comma.setEnd(after, 1);
    const letters = document.createRange();
    letters.selectNodeContents(link);
    const style = getComputedStyle(link);
    const boxed = parseFloat(style.borderRightWidth) > 0;
    const edge = (boxed ? link : letters).getBoundingClientRect().right;
    gaps.push([link.textContent.trim(), Math.round(comma.getBoundingClientRect().left - edge)]);
  }
  return gaps;
}"""


def open_in(page: Page, url: str, language: str, width: int) -> None:
    page.context.add_cookies([{"name": "lang", "value": language, "url": url}])
    page.set_viewport_size({"width": width, "height": 844})


@pytest.mark.parametrize("players", [4, 5, 6])
def test_the_place_row_label_stays_in_its_column_in_every_language(
    phone, live_server, screenshot, players
):
    game_rules = rules.GameRules(players=players, bid_rule=rules.BidRule.FREE)
    with setup_client(live_server.app):
        game = make_game(NAMES[:players], random_rounds(game_rules, 2), game_rules=game_rules).id
    page = phone()
    problems = []
    for language in LANGUAGES:
        for width in (320, 390):
            open_in(page, live_server.url, language, width)
            page.goto(f"{live_server.url}/games/{game}/sheet")
            found = page.evaluate(PLACE_LABEL)
            if found["past"] > 0 or found["hidden"]:
                problems.append(f"{language} at {width} px, {players} players: {found}")
            if language == "pt" and width == 320 and players == 4:
                page.locator(".score-sheet tfoot").scroll_into_view_if_needed()
                screenshot(page, "sheet-place-row-pt-320")
    assert not problems, "\n".join(problems)


def test_a_games_players_are_listed_with_each_comma_after_its_name(phone, live_server, screenshot):
    with setup_client(live_server.app):
        game = make_game(NAMES[:4]).id
    page = phone()
    problems = []
    for language in LANGUAGES:
        for width in (320, 390):
            open_in(page, live_server.url, language, width)
            page.goto(f"{live_server.url}/history/{game}")
            gaps = page.evaluate(GAPS_BEFORE_COMMAS)
            if language == "pt" and width == 320:
                page.locator(".game-header").screenshot(
                    path=str(screenshot.folder / "game-players-pt-320.png")
                )
            assert gaps, "the list has commas"
            problems += [
                f"{language} at {width} px: {name} ({gap} px)" for name, gap in gaps if gap > 3
            ]
    assert not problems, "\n".join(problems)
