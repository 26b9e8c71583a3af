"""The event board as a projector and a phone show it: a club night of 40 players, every
standings line on one 1920 x 1080 screen without the site's navigation, the points as large
as the other figures, and on a phone nothing scrolling sideways inside its box."""

from playwright.sync_api import Page, expect

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Event, Game
from tests.browser.page_states import setup_client
from tests.play_helpers import correction, play_round, post

FIRST = ["Annabelle", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald", "Gus"]
LAST = ["Okonkwo-Smith", "Lee", "Castellanos", "Ng", "Van der Berg", "Ó Súilleabháin"]
NAMES = [f"{FIRST[n % 7]} {LAST[n % 6]} {n}" for n in range(40)]


def forty_player_event(app, corrected: bool = False) -> str:
    """A 40-player event whose first session (one round a table) is played, the first table's
    game corrected after it ended if ``corrected`` (the board then says so); its token."""
    with setup_client(app) as client:
        response = client.post(
            "/events/new",
            data={
                "action": "create",
                "name": "Autumn open",
                "day": "2026-11-14",
                "table_size": "4",
                "session_count": "3",
                "method": "placement",
                "plan": "first_n",
                "plan_rounds": "1",
                "bid_rule": "free",
                "bid_reveal": "open",
                "first_dealer": "random",
                "seats": NAMES,
            },
        )
        event_id = int(response.headers["Location"].rsplit("/", 1)[1])
        client.post(f"/events/{event_id}/draw", data={"seed": "40"})
        client.post(f"/events/{event_id}/start")
        event = db.session.get(Event, event_id)
        for number, table in enumerate(event.sessions[0].tables):
            game = db.session.get(Game, table.game_id)
            size = len(game.seats)
            took = [1 if seat == number % size else 0 for seat in range(size)]
            bids = [
                1 if seat in (number % size, (number + 1) % size) else 0 for seat in range(size)
            ]
            dealer = rules.dealer_seat(game.first_dealer, 1, size)
            assert play_round(client, game.id, 1, dealer, bids, took).status_code == 303
            if corrected and number == 0:
                fixed = correction([0] * size, took)
                assert post(client, game.id, "rounds/1/edit", fixed).status_code == 303
        return db.session.get(Event, event_id).board_token


# Boxes that scroll sideways (their content wider than they are), and how far.
SIDEWAYS = """() => Array.from(document.querySelectorAll('body *'))
  .filter(el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
                && el.scrollWidth > el.clientWidth + 1)
  .map(el => `${el.tagName}.${el.className}: ${el.scrollWidth - el.clientWidth} px`)"""


def font_size(locator) -> float:
    return float(locator.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))


def test_every_standings_line_of_forty_players_fits_a_projector(browser, live_server, screenshot):
    token = forty_player_event(live_server.app, corrected=True)
    projector = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        board = projector.new_page()
        board.goto(f"{live_server.url}/events/board/{token}")
        lines = board.locator(".event-standings tbody tr")
        expect(lines).to_have_count(40)
        expect(board.locator(".event-flag")).to_be_visible()
        screenshot(board, "event-board-40-1920")
        assert board.locator("nav, .topbar").count() == 0, "no site navigation on the board"
        below = [
            (index, box["y"] + box["height"])
            for index in range(40)
            if (box := lines.nth(index).bounding_box())["y"] + box["height"] > 1080
        ]
        assert not below, f"standings lines below the screen (line, bottom): {below}"
        assert board.evaluate("window.scrollY") == 0
        # The points, the line's figure that ranks it, are at least as large as the others.
        first = lines.first
        points = font_size(first.locator("td.total"))
        others = [font_size(cell) for cell in first.locator("td:not(.total)").all()]
        assert points >= max(others), (points, others)
    finally:
        projector.close()


def test_the_board_on_a_phone_scrolls_nothing_sideways(phone, live_server, screenshot):
    token = forty_player_event(live_server.app)
    page: Page = phone()
    problems = []
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(f"{live_server.url}/events/board/{token}")
        expect(page.locator(".event-standings tbody tr")).to_have_count(40)
        problems += [f"{width} px: {found}" for found in page.evaluate(SIDEWAYS)]
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        if overflow > 0:
            problems.append(f"{width} px: the page scrolls sideways by {overflow} px")
        for header in page.locator(".event-standings th", has_text="Bid sum").all():
            box, holder = header.bounding_box(), page.locator(".event-standings").bounding_box()
            if box["x"] + box["width"] > holder["x"] + holder["width"] + 0.5:
                problems.append(f"{width} px: 'Bid sum' is cut off")
        screenshot(page, f"event-board-40-{width}")
        standings = page.locator(".event-standings .table-scroll").first
        standings.screenshot(path=str(screenshot.folder / f"event-standings-40-{width}.png"))
    assert not problems, "\n".join(problems)
