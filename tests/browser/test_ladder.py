"""The club ladder on a small phone: it fits, its controls are large enough, choosing a season
swaps the ladder in place (htmx) with no console error, and the player's rating chart shows."""

from datetime import UTC, datetime, timedelta

import pytest

from scorekeeper import rules
from tests.browser.conftest import console_errors
from tests.factories import make_game, random_rounds

NAMES = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline")

# Every link, button and select on the page at least 44 px both ways.
SMALL = """() => [...document.querySelectorAll('a[href], button, select')]
  .filter(el => !el.closest('.visually-hidden'))
  .map(el => [el.textContent.trim().slice(0, 20), el.getBoundingClientRect()])
  .filter(([, box]) => box.width && (box.width < 44 || box.height < 44))
  .map(([words, box]) => `${words} ${Math.round(box.width)}x${Math.round(box.height)}`)"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_ladder_at_320_px_and_a_season_chosen_in_place(phone, live_server, screenshot, scheme):
    with live_server.app.app_context():
        old = datetime.now(UTC) - timedelta(days=500)
        for n in range(6):
            game_rules = rules.GameRules(players=4, bid_rule="free")
            seats = [NAMES[(n + k) % 5] for k in range(4)]
            when = old if n == 0 else datetime.now(UTC) - timedelta(days=n)
            make_game(
                seats, random_rounds(game_rules, seed=n), game_rules=game_rules, created_at=when
            )
    page = phone(color_scheme=scheme)
    page.set_viewport_size({"width": 320, "height": 640})
    errors = console_errors(page)
    page.goto(live_server.url + "/ladder/?min_games=5")
    assert page.locator(".ladder-table").count() == 2  # ranked, and not ranked yet
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
    assert page.evaluate(SMALL) == []
    screenshot(page, f"ladder-320-{scheme}")
    page.select_option("#season", "12m")
    page.wait_for_url("**season=12m**")
    # The old game is out of the season: four games each, too few for five.
    page.get_by_text("Nobody has played 5 finished games in this season yet.").wait_for()
    assert page.locator(".ladder-table").count() == 1
    page.get_by_role("link", name="Dmitri").first.click()
    page.wait_for_url("**/players/**")
    assert page.locator(".rating-line").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
    screenshot(page, f"ladder-player-320-{scheme}")
    assert errors == []
