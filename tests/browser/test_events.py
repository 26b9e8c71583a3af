"""An event in a real browser: an organiser sets up ten players, three table phones play their
games, the board on a projector and a phone show the standings; every event page passes axe
and fits a 320 px screen."""

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Event, Game
from tests.browser.test_small_screens import SMALL_TARGETS

NAMES = ["Ann", "Bob", "Cara", "Dev", "Eli", "Fumi", "Gil", "Hana", "Ivo", "Jun"]
ROUNDS = 2


def set_up_event(page: Page, url: str) -> int:
    page.goto(f"{url}/events/new")
    page.get_by_label("Name of the event").fill("Thursday club night")
    for count, name in enumerate(NAMES, start=1):
        page.get_by_placeholder("New player’s name").fill(name)
        page.get_by_role("button", name="Add", exact=True).click()
        expect(page.locator(".event-players .setup-seat")).to_have_count(count)
    page.locator(".setup-dealers label", has_text="4").click()
    page.get_by_label("Sessions (rounds of play)").fill("2")
    page.locator("label.setup-choice", has=page.locator('input[value="first_n"]')).click()
    page.get_by_label("Rounds to play").fill(str(ROUNDS))
    page.locator("label.setup-choice", has=page.locator('input[value="free"]')).click()
    page.get_by_role("button", name="Create event").click()
    expect(page.locator("h1")).to_have_text("Thursday club night")
    return int(page.url.rsplit("/", 1)[1])


def play_table(page: Page, live_server, link: str) -> None:
    """One table phone plays its whole game: the first bidder bids every card and takes them."""
    page.goto(link)
    game_id = int(page.locator("#table").get_attribute("data-game"))
    with live_server.app.app_context():
        game = db.session.get(Game, game_id)
        players, first_dealer = len(game.seats), game.first_dealer
    for number in range(1, ROUNDS + 1):
        page.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
        page.wait_for_selector(".bid-form")
        for step in range(players):
            before = page.locator("#table").get_attribute("data-version")
            page.locator(f'.bid-button[value="{number if step == 0 else 0}"]').click()
            expect(page.locator("#table")).not_to_have_attribute("data-version", before)
        dealer = rules.dealer_seat(first_dealer, number, players)
        first = (dealer + 1) % players
        for seat in range(players):
            took = number if seat == first else 0
            page.locator(f'label.chip:has(input[name="tricks_{seat}"][value="{took}"])').click()
        before = page.locator("#table").get_attribute("data-version")
        page.get_by_role("button", name="Save round").click()
        expect(page.locator("#table")).not_to_have_attribute("data-version", before)


def check_page(page: Page, axe: Axe, name: str, problems: list[str]) -> None:
    results = axe.run(page)
    if results.violations_count:
        problems.append(f"{name}: {results.generate_report()}")
    if page.locator("h1").count() != 1:
        problems.append(f"{name}: not one <h1>")
    problems += [f"{name}: {small}" for small in page.evaluate(SMALL_TARGETS, 44)]
    page.set_viewport_size({"width": 320, "height": 568})
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    if overflow > 0:
        problems.append(f"{name}: scrolls sideways by {overflow} px at 320 px")
    page.set_viewport_size({"width": 390, "height": 844})


def test_an_evening_of_three_tables_from_setup_to_standings(
    browser, phone, live_server, screenshot
):
    organiser = phone()
    axe = Axe()
    problems: list[str] = []
    organiser.goto(f"{live_server.url}/events/new")
    check_page(organiser, axe, "new event", problems)
    event_id = set_up_event(organiser, live_server.url)
    organiser.get_by_label("Seed (optional)").fill("2026")
    organiser.get_by_role("button", name="Draw the seating").click()
    expect(organiser.locator(".event-seed")).to_contain_text("2026")
    expect(organiser.locator(".event-table")).to_have_count(3)
    check_page(organiser, axe, "seating drawn", problems)
    organiser.get_by_role("button", name="Start the games").click()
    links = organiser.get_by_role("link", name="Open as the table phone")
    expect(links).to_have_count(3)
    table_links = [links.nth(i).get_attribute("href") for i in range(3)]
    check_page(organiser, axe, "games started", problems)
    screenshot(organiser, "event-organiser-390")

    with live_server.app.app_context():
        token = db.session.get(Event, event_id).board_token
    board_url = f"{live_server.url}/events/board/{token}"
    projector = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        board = projector.new_page()
        board.goto(board_url)
        expect(board.locator(".event-progress")).to_have_count(3)
        expect(board.locator(".event-progress").first).to_contain_text(f"Round 1 of {ROUNDS}")

        for link in table_links:
            play_table(phone(), live_server, link)

        # The board follows by itself (it polls, and answers 304 until something changes).
        expect(board.locator(".event-progress", has_text="Finished")).to_have_count(
            3, timeout=20_000
        )
        expect(board.locator(".event-standings tbody tr")).to_have_count(10)
        screenshot(board, "event-board-1920")
        standings = board.locator(".event-standings tbody tr")
        first_points = standings.first.locator("td.total").inner_text()
        assert re.fullmatch(r"\d\.\d\d", first_points)
    finally:
        projector.close()

    viewer = phone()
    viewer.goto(board_url)
    expect(viewer.locator(".event-standings tbody tr")).to_have_count(10)
    check_page(viewer, axe, "board on a phone", problems)
    screenshot(viewer, "event-board-390")

    organiser.goto(f"{live_server.url}/events/{event_id}/results")
    expect(organiser.locator(".event-games li")).to_have_count(3)
    check_page(organiser, axe, "results", problems)
    organiser.goto(f"{live_server.url}/events/{event_id}/cards")
    check_page(organiser, axe, "table cards", problems)
    organiser.goto(f"{live_server.url}/events/{event_id}")
    organiser.get_by_role("button", name="Draw the seating").click()
    expect(organiser.locator(".event-table")).to_have_count(3 + 3)
    check_page(organiser, axe, "second session drawn", problems)
    for scheme in ("dark",):
        dark = phone(color_scheme=scheme)
        dark.goto(board_url)
        check_page(dark, axe, f"board ({scheme})", problems)
    assert not problems, "\n".join(problems)


FAR_ZONE = "Pacific/Auckland"
CORRECTION_FLAG = "Standings changed: a game was corrected after it ended."


def set_up_small_event(page: Page, url: str, names: list[str]) -> int:
    """Three players, one table, two sessions of one round each."""
    page.goto(f"{url}/events/new")
    page.get_by_label("Name of the event").fill("Late night")
    for count, name in enumerate(names, start=1):
        page.get_by_placeholder("New player’s name").fill(name)
        page.get_by_role("button", name="Add", exact=True).click()
        expect(page.locator(".event-players .setup-seat")).to_have_count(count)
    page.locator(".setup-dealers label", has_text="3").click()
    page.get_by_label("Sessions (rounds of play)").fill("2")
    page.locator("label.setup-choice", has=page.locator('input[value="first_n"]')).click()
    page.get_by_label("Rounds to play").fill("1")
    page.locator("label.setup-choice", has=page.locator('input[value="free"]')).click()
    page.get_by_role("button", name="Create event").click()
    expect(page.locator("h1")).to_have_text("Late night")
    return int(page.url.rsplit("/", 1)[1])


def test_a_game_corrected_before_the_next_draw_is_flagged_far_from_utc(
    browser, phone, live_server, screenshot
):
    """The issue's evening, with every browser in Auckland: Ann wins the first session's
    one-card game, the round is corrected on the score sheet so that Cid wins, before the
    second session is drawn. The organiser's page and the projector's board say that the
    standings changed, then and after the next draw."""
    names = ["Ann", "Bob", "Cid"]
    organiser = phone(timezone_id=FAR_ZONE)
    event_id = set_up_small_event(organiser, live_server.url, names)
    organiser.get_by_role("button", name="Draw the seating").click()
    organiser.get_by_role("button", name="Start the games").click()
    link = organiser.get_by_role("link", name="Open as the table phone").get_attribute("href")
    with live_server.app.app_context():
        event = db.session.get(Event, event_id)
        token = event.board_token
        game = db.session.get(Game, event.sessions[0].tables[0].game_id)
        seat_of = {seat.player.name: seat.position for seat in game.seats}
        dealer = game.first_dealer
    bid_order = [(dealer + step) % 3 for step in range(1, 4)]

    projector = browser.new_context(viewport={"width": 1920, "height": 1080}, timezone_id=FAR_ZONE)
    try:
        board = projector.new_page()
        board.goto(f"{live_server.url}/events/board/{token}")

        table = phone(timezone_id=FAR_ZONE)
        table.goto(link)
        # Each tap waits for its own answer: a tap while the previous answer is swapped in
        # can land on the part being replaced, and be lost.
        before = table.locator("#table").get_attribute("data-version")
        table.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
        expect(table.locator("#table")).not_to_have_attribute("data-version", before)
        for seat in bid_order:
            before = table.locator("#table").get_attribute("data-version")
            value = 1 if seat == seat_of["Ann"] else 0
            table.locator(f'.bid-button[value="{value}"]').click()
            expect(table.locator("#table")).not_to_have_attribute("data-version", before)
        for seat in range(3):
            took = 1 if seat == seat_of["Ann"] else 0
            table.locator(f'label.chip:has(input[name="tricks_{seat}"][value="{took}"])').click()
        table.get_by_role("button", name="Save round").click()
        expect(table.locator(".winner")).to_contain_text("Ann")
        expect(board.locator(".event-standings tbody tr").first).to_contain_text("Ann")

        # The correction, on the score sheet: Cid bid the card and took it, Ann bid nothing.
        table.get_by_role("link", name="Score sheet").click()
        table.get_by_role("link", name="Correct round 1").click()
        for seat in range(3):
            value = 1 if seat == seat_of["Cid"] else 0
            for field in ("bid", "tricks"):
                table.locator(
                    f'label.chip:has(input[name="{field}_{seat}"][value="{value}"])'
                ).click()
        table.get_by_role("button", name="Save correction").click()
        expect(table.locator("table.score-sheet")).to_be_visible()

        # The board follows by itself and says why its standings moved.
        first_line = board.locator(".event-standings tbody tr").first
        expect(first_line).to_contain_text("Cid", timeout=20_000)
        expect(first_line.locator("td.total")).to_have_text("1.00")
        expect(board.locator(".event-flag")).to_contain_text(CORRECTION_FLAG)
        expect(board.locator(".event-flag")).to_contain_text("Session 1, table 1")
        screenshot(board, "event-board-corrected-1920")
        organiser.goto(f"{live_server.url}/events/{event_id}")
        expect(organiser.locator(".event-flag")).to_contain_text(CORRECTION_FLAG)
        expect(organiser.locator(".event-table", has_text="Cid")).to_contain_text("corrected")

        # Drawing the next session closes the first: the correction stays flagged.
        organiser.get_by_role("button", name="Draw the seating").click()
        expect(organiser.locator(".event-seed")).to_be_visible()
        expect(organiser.locator(".event-flag")).to_contain_text("Session 1, table 1")
        board.reload()
        expect(board.locator(".event-flag")).to_contain_text("Session 1, table 1")
        expect(board.locator(".event-standings tbody tr").first).to_contain_text("Cid")
    finally:
        projector.close()
