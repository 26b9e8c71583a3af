"""A finished paper sheet entered in Chromium: by keyboard alone (the keys counted) and on a
phone, each browser in a time zone far from UTC; the stored game is the sheet the test adds
up itself, dated as the sheet says in that zone; a broken bid rule is flagged, bad cells
are refused next to the cell with nothing stored; and the printed sheets (A4 and Letter)
are one page each."""

import os
import re
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from playwright.sync_api import Page, expect

from scorekeeper.extensions import db
from scorekeeper.models import Game
from scorekeeper.queries import game_query
from scorekeeper.records import sheet_of
from tests.test_paper import paper_sheet

NAMES = ("Ann", "Bob", "Cy", "Di")
# Bob (seat 1) deals first; round 5 is Bob's deal again, and he makes the bids add up to 5.
BROKEN_ROUND = 5
TRUMP_KEYS = {"h": "hearts", "c": "clubs", "d": "diamonds", "s": "spades", "n": None}
ARTIFACTS = Path(os.environ.get("SCREENSHOT_DIR", "test-artifacts/screenshots"))


def the_sheet():
    rounds, _ = paper_sheet(seed=11)
    rounds[BROKEN_ROUND - 1] = ([1, 1, 1, 2], rounds[BROKEN_ROUND - 1][1])
    totals = [0, 0, 0, 0]
    for bids, tricks in rounds:
        for seat in range(4):
            b, t = bids[seat], tricks[seat]
            totals[seat] += 20 + 10 * t if b == t else -10 * abs(b - t)
    return rounds, totals


class Keyboard:
    """Presses keys on the page and counts them."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.presses = 0

    def press(self, key: str) -> None:
        self.presses += 1
        self.page.keyboard.press(key)

    def type(self, text: str) -> None:
        for key in text:
            self.press(key)


def stored_game(live_server):
    with live_server.app.app_context():
        game = db.session.scalars(game_query()).one()
        return game, sheet_of(game)


def assert_stored_as_written(live_server, rounds, totals, played, trumps=None):
    """The game stored is the sheet, begun at ``played`` (the day and time typed, in the
    browser's zone)."""
    game, sheet = stored_game(live_server)
    assert [[c.bid for c in row.cells] for row in sheet.rows] == [list(b) for b, _ in rounds]
    assert [[c.tricks for c in row.cells] for row in sheet.rows] == [list(t) for _, t in rounds]
    assert list(sheet.totals) == totals
    assert sheet.finished
    assert game.created_at.replace(tzinfo=UTC) == played.astimezone(UTC)
    if trumps is not None:
        assert [r.trump for r in game.rounds][:-1] == trumps


def typed_moment(page: Page, zone: str) -> datetime:
    """The day and time the entry form holds, in ``zone``."""
    day = date.fromisoformat(page.locator("#played_on").input_value())
    clock = time.fromisoformat(page.locator("#played_at").input_value())
    return datetime.combine(day, clock, tzinfo=ZoneInfo(zone))


def first_visit(page: Page, url: str) -> None:
    """Open the entry page as a browser new to the app: its zone told, the page shown once
    more in it (app.js), the time offered then (the minute of now, there)."""
    page.goto(f"{url}/paper/new")
    page.wait_for_function("document.cookie.includes('tz=')")
    expect(page.locator("form[data-times]")).to_have_attribute(
        "data-times", page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone")
    )


def test_a_first_visit_from_far_away_offers_the_day_and_time_there(phone, live_server):
    for zone in ("Pacific/Auckland", "America/Sao_Paulo"):
        page = phone(timezone_id=zone)
        first_visit(page, live_server.url)
        now = datetime.now(ZoneInfo(zone))
        offered = typed_moment(page, zone)
        assert timedelta(0) <= now - offered < timedelta(minutes=2), (zone, offered, now)


def test_a_paper_sheet_by_keyboard_alone(phone, live_server):
    rounds, totals = the_sheet()
    zone = "Pacific/Auckland"
    page = phone(timezone_id=zone)
    page.set_viewport_size({"width": 1100, "height": 900})
    first_visit(page, live_server.url)
    keys = Keyboard(page)

    # The players, who dealt first, the day: "Skip to content", then one field after another.
    keys.press("Tab")
    keys.press("Enter")
    for name in NAMES:
        keys.press("Tab")
        keys.type(name)
    expect(page.locator("#seat_4")).to_be_focused()
    keys.press("Tab")  # seat 5
    keys.press("Tab")  # seat 6
    keys.press("Tab")
    expect(page.locator("#first_dealer")).to_be_focused()
    keys.press("ArrowDown")  # Seat 2: Bob
    for _field in ("plan", "plan_rounds", "plan_custom", "bid_rule", "saboteur", "jester"):
        keys.press("Tab")
    keys.press("Tab")  # "More rules" (closed: the official ones)
    for _field in ("played_on",):
        keys.press("Tab")
    expect(page.locator("#played_on")).to_be_focused()
    keys.type("03022024")  # the browser's mm/dd/yyyy
    keys.press("Tab")  # the time: as it was filled in (now)
    played = typed_moment(page, zone)
    assert played.date() == date(2024, 3, 2)
    keys.press("Tab")
    keys.press("Enter")  # "Show the grid"
    setup_keys = keys.presses

    # The grid: the focus waits in its first cell; a number and Tab for every cell, a letter
    # and Tab for the trump of each round (the last one deals every card: no trump).
    expect(page.locator("#bid_1_0")).to_be_focused()
    trumps = []
    letters = list(TRUMP_KEYS)
    for number, (bids, tricks) in enumerate(rounds, start=1):
        if number > 1:
            # The round's dealer, as the deal passes on (a change at the table is chosen here).
            expect(page.locator(f'select[name="dealer_{number}"]')).to_be_focused()
            keys.press("Tab")
        for seat in range(4):
            keys.type(str(bids[seat]))
            keys.press("Tab")
            keys.type(str(tricks[seat]))
            keys.press("Tab")
        if number < len(rounds):
            letter = letters[number % len(letters)]
            keys.press(letter)
            trumps.append(TRUMP_KEYS[letter])
            keys.press("Tab")
    expect(page.get_by_role("button", name="Store the game")).to_be_focused()
    keys.press("Enter")
    grid_keys = keys.presses - setup_keys

    expect(page.get_by_text("The paper sheet is stored")).to_be_visible()
    expect(page.get_by_text("Bid rule broken at the table")).to_be_visible()
    expect(page.locator(".flags li", has_text=f"Round {BROKEN_ROUND}: ±1")).to_have_count(1)
    assert_stored_as_written(live_server, rounds, totals, played, trumps)

    cells = 15 * 4 * 2
    digits = sum(len(str(v)) for bids, tricks in rounds for v in (*bids, *tricks))
    # Every cell: its digits and a Tab; every trump: a letter and a Tab; a Tab past each
    # round's dealer after the first; then Enter.
    assert grid_keys == digits + cells + 2 * 14 + 14 + 1
    assert digits <= 2 * cells
    print(
        f"\nkeys: {setup_keys} for the setup, {grid_keys} for the grid ({cells} cells,"
        f" {digits} digits, 14 trumps)"
    )


def test_a_paper_sheet_on_a_phone_refused_then_stored(phone, live_server, screenshot):
    rounds, totals = the_sheet()
    zone = "America/Sao_Paulo"
    page = phone(timezone_id=zone)
    page.set_default_timeout(10_000)
    first_visit(page, live_server.url)
    for seat, name in enumerate(NAMES, start=1):
        page.get_by_label(f"Seat {seat}", exact=True).fill(name)
    page.get_by_label("First dealer").select_option("1")
    # Late in the evening there: the next day already in UTC.
    page.get_by_label("Played on").fill("2024-03-02")
    page.get_by_label("Began at").fill("22:45")
    played = datetime(2024, 3, 2, 22, 45, tzinfo=ZoneInfo(zone))
    page.get_by_role("button", name="Show the grid").click()
    expect(page.locator("#bid_1_0")).to_be_visible()
    for number, (bids, tricks) in enumerate(rounds, start=1):
        for seat in range(4):
            page.locator(f"#bid_{number}_{seat}").fill(str(bids[seat]))
            page.locator(f"#tricks_{number}_{seat}").fill(str(tricks[seat]))
    # Two mistakes: Cy's 7 tricks in round 3 (of 3 cards), and a letter for Di's bid in 9.
    page.locator("#tricks_3_2").fill("7")
    page.locator("#bid_9_3").fill("x")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"scrolls sideways by {overflow} px"
    screenshot(page, "paper-grid-phone")
    page.get_by_role("button", name="Store the game").click()

    expect(page.get_by_text("Nothing was stored: correct the cells marked below.")).to_be_visible()
    message = page.locator("#tricks_3_2-error")
    expect(message).to_have_text("Cy can take 0 to 3 tricks, not 7.")
    expect(page.locator("#bid_9_3-error")).to_have_text("Type a number, e.g. 2.")
    # Next to the cell: the line right under its round, and the cell points to it.
    cell = page.locator("#tricks_3_2")
    expect(cell).to_have_attribute("aria-describedby", "tricks_3_2-error")
    expect(cell).to_be_focused()  # the first cell to correct
    gap = message.bounding_box()["y"] - (cell.bounding_box()["y"] + cell.bounding_box()["height"])
    assert 0 <= gap < 200
    screenshot(page, "paper-grid-phone-refused")
    with live_server.app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 0

    page.locator("#tricks_3_2").fill(str(rounds[2][1][2]))
    page.locator("#bid_9_3").fill(str(rounds[8][0][3]))
    page.get_by_role("button", name="Store the game").click()
    expect(page.get_by_text("The paper sheet is stored")).to_be_visible()
    expect(page.locator(".flags li", has_text=f"Round {BROKEN_ROUND}: ±1")).to_have_count(1)
    assert_stored_as_written(live_server, rounds, totals, played)
    screenshot(page, "paper-sheet-phone")


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


def test_the_printed_sheets_are_one_page_on_a4_and_letter(browser, live_server):
    rounds, _ = the_sheet()
    page = browser.new_page(viewport={"width": 1000, "height": 1400})
    try:
        query = "seat_1=Ann&seat_2=Bob&seat_3=Cy&seat_4=Di&first_dealer=1&plan=standard"
        page.goto(f"{live_server.url}/paper/blank?{query}&bid_rule=plus_minus_one")
        expect(page.locator(".print-sheet tbody tr")).to_have_count(15)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for paper in ("A4", "Letter"):
            pdf = page.pdf(format=paper, print_background=False)
            (ARTIFACTS / f"paper-blank-{paper}.pdf").write_bytes(pdf)
            assert pdf_pages(pdf) == 1, paper
        # The finished sheet of a game, with its chart.
        with live_server.app.app_context():
            from tests.test_paper import SETUP, grid

            app = live_server.app
            app.config["WTF_CSRF_ENABLED"] = False
            try:
                client = app.test_client()
                stored = client.post("/paper/new", data=SETUP | grid(rounds) | {"action": "store"})
            finally:
                app.config["WTF_CSRF_ENABLED"] = True
        page.goto(live_server.url + stored.headers["Location"].split("?")[0])
        expect(page.locator(".print-chart .chart-svg")).to_be_visible()
        for paper in ("A4", "Letter"):
            pdf = page.pdf(format=paper, print_background=False)
            (ARTIFACTS / f"paper-sheet-{paper}.pdf").write_bytes(pdf)
            assert pdf_pages(pdf) == 1, paper
    finally:
        page.close()
