"""History in a real browser at phone size: the games filter, the replay, and how it looks."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from scorekeeper import rules
from scorekeeper.extensions import db
from tests.browser.conftest import console_errors
from tests.factories import BASE_TIME, make_game, random_rounds

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]


@pytest.fixture
def seeded(live_server):
    """A finished 4-player game, a 6-player game with long names, and a 3-player one."""
    with live_server.app.app_context():
        four = rules.GameRules(players=4)
        first = make_game(
            NAMES[:4],
            random_rounds(four, seed=1),
            game_rules=four,
            created_at=BASE_TIME,
            changes=[
                {"action": "create_game", "after": {"players": NAMES[:4], "first_dealer": 0}},
                {
                    "action": "edit_round",
                    "round_number": 3,
                    "before": {"rounds": [{"number": 3, "tricks": [1, 1, 1, 0]}]},
                    "after": {"rounds": [{"number": 3, "tricks": [0, 1, 2, 0]}]},
                },
            ],
        )
        six = rules.GameRules(players=6, plan=rules.RoundPlan("tournament"), bid_rule="canadian")
        make_game(
            ["Alexandra", "Bartholomew", "Cy", "Dorothea", "Eve", "Fay"],
            random_rounds(six, 6, seed=2),
            game_rules=six,
            created_at=BASE_TIME + timedelta(days=3),
        )
        three = rules.GameRules(players=3, plan=rules.RoundPlan("quick"), bid_rule="free")
        make_game(
            ["Cy", "Eve", "Fay"],
            random_rounds(three, seed=3),
            game_rules=three,
            created_at=BASE_TIME + timedelta(days=7),
        )
        db.session.commit()
        return first.id


def settled(page) -> None:
    """Wait until htmx has no request, swap or settle going on (the next change is seen)."""
    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    page.wait_for_function(f"() => !document.querySelector('{busy}')")


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_games_list_filter_updates_in_place_and_in_the_address(page, live_server, seeded):
    page.goto(live_server.url + "/history/")
    expect(page.locator(".game-row")).to_have_count(3)
    no_sideways_scroll(page)
    # Folded behind one button: the games come first on a phone.
    expect(page.get_by_label("Player")).to_be_hidden()
    first_game = page.locator(".game-row").first.bounding_box()
    assert first_game["y"] + first_game["height"] < 844 / 2, first_game
    page.locator(".filters-fold > summary").click()
    page.get_by_label("Player").select_option(label="Ann")
    # htmx swaps the list and pushes the filter into the address bar; the filters stay open.
    expect(page.locator(".game-row")).to_have_count(1)
    expect(page).to_have_url(
        f"{live_server.url}/history/?player=1&status=&plan=&bid_rule=&date_from=&date_to="
    )
    expect(page.get_by_text("1 game", exact=True)).to_be_visible()
    expect(page.locator(".filters-fold > summary")).to_have_text(re.compile(r"Filters\s+1 chosen"))
    settled(page)
    page.get_by_label("Round plan").select_option(label="Quick play")
    expect(page.locator(".game-row")).to_have_count(0)
    settled(page)
    page.get_by_label("Player").select_option(label="Any player")
    expect(page.locator(".game-row")).to_have_count(1)
    settled(page)
    expect(page.get_by_label("Player")).to_be_visible()  # no filter left, still open
    # A bad date comes back with its message next to the field, not an error page.
    page.get_by_label("From").fill("2024-06-01")
    expect(page).to_have_url(re.compile("date_from=2024-06-01"))
    page.wait_for_load_state("networkidle")
    page.get_by_label("To").fill("2024-05-01")
    expect(page.get_by_text("The end date is before the start date.")).to_be_visible()
    expect(page.locator("#net-status")).to_be_hidden()
    page.go_back()
    expect(page.locator("#games")).to_be_visible()


def test_replay_steps_through_the_rounds(page, live_server, seeded):
    page.goto(f"{live_server.url}/history/{seeded}/replay")
    expect(page.get_by_text("After round 1 of 15")).to_be_visible()
    page.get_by_role("link", name="Next round").click()
    expect(page.get_by_text("After round 2 of 15")).to_be_visible()
    expect(page).to_have_url(f"{live_server.url}/history/{seeded}/replay?round=2")
    page.get_by_role("link", name="Next round").click()
    expect(page.get_by_text("After round 3 of 15")).to_be_visible()
    page.get_by_role("link", name="Previous round").click()
    expect(page.get_by_text("After round 2 of 15")).to_be_visible()
    # Each line of the chart is drawn up to the round shown.
    assert page.locator(".chart-svg path").first.get_attribute("d").count("L") == 2
    no_sideways_scroll(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_history_pages_at_phone_size(phone, live_server, seeded, screenshot, scheme):
    page = phone(color_scheme=scheme)
    errors = console_errors(page)
    for name, path in [
        ("games", "/history/"),
        ("game", f"/history/{seeded}"),
        ("game-six", f"/history/{seeded + 1}"),
        ("replay", f"/history/{seeded}/replay?round=7"),
        ("player", "/players/1"),
        ("backup", "/history/backup"),
    ]:
        page.goto(live_server.url + path)
        no_sideways_scroll(page)
        screenshot(page, f"history-{name}-{scheme}")
    page.goto(f"{live_server.url}/history/{seeded}")
    page.emulate_media(media="print")
    screenshot(page, f"history-game-print-{scheme}")
    assert errors == []
