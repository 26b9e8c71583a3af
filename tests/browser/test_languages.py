"""A whole round in Portuguese and in German at phone size, and every step at 320 px in each
language: chosen on the page, or taken from the browser's language."""

import pytest
from playwright.sync_api import Page, expect

from tests.factories import new_game

NARROW = {"width": 320, "height": 640}
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


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


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


@pytest.mark.parametrize("language", ["pt", "es", "it", "de", "fr"])
def test_every_step_fits_320_px_in_each_language(phone, live_server, screenshot, language):
    page = phone(locale=language)
    page.set_viewport_size(NARROW)
    game_id = start_game(live_server)
    page.goto(f"{live_server.url}/games/{game_id}")
    for step in ("trump", "bids", "tricks"):
        no_sideways_scroll(page)
        for button in page.locator(".suit").all():
            # The suit's name fits its button ("Diamantes", "Karo", "Quadri" …).
            name = button.locator(".suit-name")
            if name.count():
                assert name.bounding_box()["width"] <= button.bounding_box()["width"]
        screenshot(page, f"language-{language}-320-{step}")
        if step == "trump":
            page.locator(".trump-row").first.locator("button.suit").nth(2).click()
            page.wait_for_selector(".bid-form")
        elif step == "bids":
            for value in (1, 0, 0):
                version = page.locator("#table").get_attribute("data-version")
                page.locator(f'.bid-button[value="{value}"]').click()
                expect(page.locator("#table")).not_to_have_attribute("data-version", version)
    page.goto(f"{live_server.url}/games/new")
    no_sideways_scroll(page)
    screenshot(page, f"language-{language}-320-setup")
    page.goto(f"{live_server.url}/rules")
    no_sideways_scroll(page)


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
