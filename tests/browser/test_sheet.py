"""The score sheet at phone size: the table's sheet page and a past game's page share it."""

import pytest
from playwright.sync_api import expect

from scorekeeper import rules
from scorekeeper.extensions import db
from tests.browser.conftest import PHONE, console_errors
from tests.factories import make_game, random_rounds

LONG_NAMES = ["Alexandra", "Bartholomew", "Cy", "Dorothea", "Evangeline", "Fay"]


@pytest.fixture
def games(live_server):
    """Games in progress: 4 players with 12 rounds, 6 players with 8 (long names)."""
    with live_server.app.app_context():
        four = rules.GameRules(players=4)
        four_id = make_game(
            LONG_NAMES[:4], random_rounds(four, 12, seed=4), game_rules=four, first_dealer=1
        ).id
        five = rules.GameRules(players=5)
        five_id = make_game(LONG_NAMES[:5], random_rounds(five, 8, seed=5), game_rules=five).id
        six = rules.GameRules(players=6)
        six_id = make_game(LONG_NAMES, random_rounds(six, 8, seed=6), game_rules=six).id
        db.session.commit()
    return {4: four_id, 5: five_id, 6: six_id}


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def sheet_overflow(page) -> int:
    """How far the sheet scrolls sideways inside its box (0: it fits)."""
    return page.locator(".sheet-scroll").evaluate("box => box.scrollWidth - box.clientWidth")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("players", [4, 5, 6])
def test_sheet_fits_four_or_five_players_and_scrolls_six_under_a_sticky_round_column(
    phone, live_server, games, screenshot, scheme, players
):
    page = phone(color_scheme=scheme)
    errors = console_errors(page)
    for where, path in [
        ("play", f"/games/{games[players]}/sheet"),
        ("history", f"/history/{games[players]}"),
    ]:
        page.goto(live_server.url + path)
        assert page_width(page) <= PHONE["width"]
        expect(page.locator(".score-sheet tbody tr")).to_have_count(12 if players == 4 else 8)
        if players < 6:
            assert sheet_overflow(page) == 0, f"{players} players fit without scrolling"
        else:
            assert sheet_overflow(page) > 0
            box = page.locator(".sheet-scroll")
            round_cell = page.locator(".score-sheet tbody th").first
            left = round_cell.bounding_box()["x"]
            box.evaluate("box => box.scrollBy(120, 0)")
            page.wait_for_function("() => document.querySelector('.sheet-scroll').scrollLeft > 0")
            assert round_cell.bounding_box()["x"] == pytest.approx(left, abs=1)
            box.evaluate("box => box.scrollTo(0, 0)")
        links = page.locator(".score-sheet a.round-number")
        expect(links).to_have_count((12 if players == 4 else 8) if where == "play" else 0)
        screenshot(page, f"sheet-{where}-{players}-{scheme}")
    assert errors == []


SIX_LONG = ["Anneliese", "Antonio", "Bartholomew", "Cordelia", "Evangeline", "Evelina"]


def test_six_long_names_at_320_px_short_unique_and_sticky(phone, live_server, screenshot):
    """Names cut to their shortest unique beginning (the whole name still there for screen
    readers), the names' row stuck to the top of the sheet and the round column to its left."""
    with live_server.app.app_context():
        six = rules.GameRules(players=6)
        game_id = make_game(SIX_LONG, random_rounds(six, 10, seed=7), game_rules=six).id
    page = phone()
    page.set_viewport_size({"width": 320, "height": 568})
    page.goto(f"{live_server.url}/games/{game_id}/sheet")
    assert page_width(page) <= 320
    heads = page.locator(".score-sheet thead .player-head")
    shown = [text.strip() for text in heads.locator(".name-short").all_inner_texts()]
    assert shown == ["Ann.", "Ant.", "Bar.", "Cor.", "Eva.", "Eve."]
    for name in SIX_LONG:
        expect(page.get_by_role("columnheader", name=name, exact=True)).to_have_count(1)
    expect(heads.first).to_have_attribute("title", "Anneliese")
    screenshot(page, "sheet-six-long-names-320")

    # Down: the names stay on top of the sheet's box.
    box = page.locator(".sheet-scroll")
    box.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.querySelector('.sheet-scroll').offsetTop)")
    head = heads.first
    top = box.bounding_box()["y"]
    box.evaluate("box => box.scrollBy(0, 400)")
    page.wait_for_function("() => document.querySelector('.sheet-scroll').scrollTop > 0")
    assert head.bounding_box()["y"] == pytest.approx(top + 1, abs=2)
    # Sideways: the round numbers stay on the left.
    round_cell = page.locator(".score-sheet tbody th").nth(6)
    left = round_cell.bounding_box()["x"]
    box.evaluate("box => box.scrollBy(200, 0)")
    page.wait_for_function("() => document.querySelector('.sheet-scroll').scrollLeft > 0")
    assert round_cell.bounding_box()["x"] == pytest.approx(left, abs=1)
    assert head.bounding_box()["y"] == pytest.approx(top + 1, abs=2)
    screenshot(page, "sheet-six-long-names-320-scrolled")
    assert page_width(page) <= 320
