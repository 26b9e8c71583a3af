"""A whole round in Portuguese and in German at phone size: the language chosen on the page,
or taken from the browser's language. (Every step and page at 320 px in each language, and
each suit's name inside its button: test_first_screen.py.)"""

import pytest
from playwright.sync_api import Page, expect

from tests.factories import new_game

# What the table says in each language (from the catalogues: the players' words).
WORDS = {
    "pt": {"round": "Rodada 1", "trump": "Copas", "save": "Salvar rodada"},
    "de": {"round": "Runde 1", "trump": "Herz", "save": "Runde speichern"},
}


def start_game(live_server) -> int:
    with live_server.app.app_context():
        return new_game(("Ann", "Bob", "Cara"), 0, bid_rule="free")


def play_round(page: Page, words: dict) -> None:
    """Trump hearts, everyone bids 0 but the first bidder (1), the first bidder takes it."""
    expect(page.locator("h1")).to_contain_text(words["round"])
    page.locator(".trump-row").first.get_by_role("button", name=words["trump"]).click()
    for value in (1, 0, 0):
        version = page.locator("#table").get_attribute("data-version")
        page.locator(f'.bid-button[value="{value}"]').click()
        expect(page.locator("#table")).not_to_have_attribute("data-version", version)
    page.locator('label.chip:has(input[name="tricks_1"][value="1"])').click()
    page.locator('label.chip:has(input[name="tricks_2"][value="0"])').click()
    version = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name=words["save"], exact=True).click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", version)


def test_a_round_in_portuguese_through_the_language_switch(page, live_server, screenshot):
    game_id = start_game(live_server)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.select_option("#language-choice", "pt")
    expect(page.locator("html")).to_have_attribute("lang", "pt")
    play_round(page, WORDS["pt"])
    expect(page.locator("h1")).to_contain_text("Rodada 2")
    expect(page.locator(".standings")).to_contain_text("Ann")
    screenshot(page, "language-pt-after-round-1")


def test_a_round_in_german_from_the_browser_language(phone, live_server, screenshot):
    page = phone(locale="de-DE")
    game_id = start_game(live_server)
    page.goto(f"{live_server.url}/games/{game_id}")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    play_round(page, WORDS["de"])
    expect(page.locator("h1")).to_contain_text("Runde 2")
    screenshot(page, "language-de-after-round-1")


@pytest.mark.parametrize(
    ("zone", "day"), [("America/Sao_Paulo", "Jun 1, 2024"), ("Asia/Tokyo", "Jun 2, 2024")]
)
def test_the_history_shows_the_browser_s_day_without_asking(phone, live_server, zone, day):
    from datetime import UTC, datetime

    from tests.factories import make_game

    with live_server.app.app_context():
        make_game(created_at=datetime(2024, 6, 2, 1, 30, tzinfo=UTC))
    page = phone(timezone_id=zone)
    page.goto(f"{live_server.url}/history/")
    # The first visit tells the server the zone (a cookie) and shows the list once more.
    expect(page.locator(".game-date")).to_have_text(day)


def test_a_browser_in_the_server_s_zone_gets_the_history_once(phone, live_server):
    """The page says the zone its times are in: a browser already in that zone only leaves
    the cookie for the next page, and the list is not fetched (and painted) twice."""
    page = phone(timezone_id="UTC")  # the instance's zone (TIMEZONE)
    fetched: list[str] = []
    page.on(
        "request", lambda request: request.is_navigation_request() and fetched.append(request.url)
    )
    page.goto(f"{live_server.url}/history/")
    assert page.locator("[data-times]").get_attribute("data-times") == "UTC"
    page.wait_for_function("() => document.cookie.includes('tz=UTC')")
    page.wait_for_load_state("load")
    assert fetched == [f"{live_server.url}/history/"]
