"""Within reach on a small phone: Undo and the score sheet on the first screen of every table
step, the tricks countdown beside Save, 44 px tap targets, Enter that never says "everyone
made it", and focus that follows the steps (a whole round by keyboard: test_keyboard.py)."""

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from scorekeeper import rules
from tests.factories import new_game
from tests.play_helpers import bid, play_round, trump

SIZES = {320: {"width": 320, "height": 568}, 390: {"width": 390, "height": 844}}
FOUR = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri")
SIX = (*FOUR, "Evangeline", "Fitzgerald")
FORMS = {"trump": "trump-form", "bids": "bid-form", "tricks": "tricks-form"}


@contextmanager
def table_client(live_server) -> Iterator:
    """The app's test client with CSRF off, to put a game at a step before the phone opens it."""
    app = live_server.app
    app.config["WTF_CSRF_ENABLED"] = False
    try:
        with app.app_context():
            yield app.test_client()
    finally:
        app.config["WTF_CSRF_ENABLED"] = True


def game_at_bids(live_server, names=FOUR, **options) -> int:
    """A game whose first round has its trump and one bid (so Undo has something to undo)."""
    with table_client(live_server) as client:
        game_id = new_game(names, bid_rule="free", **options)
        trump(client, game_id, 1)
        bid(client, game_id, 1, 1, 0)
    return game_id


def game_at_tricks(live_server, names=FOUR, hand=15) -> int:
    """A game at the tricks step of a round of ``hand`` cards (a custom plan)."""
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(hand, 1))
    with table_client(live_server) as client:
        game_id = new_game(names, bid_rule="free", plan=plan)
        trump(client, game_id, 1)
        players = len(names)
        for step in range(players):
            bid(client, game_id, 1, (1 + step) % players, 2)
    return game_id


def in_first_screen(page: Page, locator) -> None:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    assert box is not None, f"{locator} is not shown"
    assert box["y"] >= 0, f"{locator} at {box} is above the screen"
    assert box["y"] + box["height"] <= height, f"{locator} at {box} is below the first screen"


def screen(page: Page, name: str) -> None:
    """What the first screen shows (the step and the bar pinned to its bottom), for a person
    to look at; written beside the full-page screenshots."""
    folder = Path(os.environ.get("SCREENSHOT_DIR", "test-artifacts/screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow} px"


@pytest.mark.parametrize("width", [320, 390])
def test_undo_and_the_sheet_are_on_the_first_screen_of_every_step(phone, live_server, width):
    """Round 2 of a game with six long names and 9 cards: trump, bids, then tricks."""
    players = len(SIX)
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 9))
    with table_client(live_server) as client:
        game_id = new_game(SIX, bid_rule="free", plan=plan)
        play_round(client, game_id, 1, 0, [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    page = phone()
    page.set_viewport_size(SIZES[width])
    bar = page.locator(".action-bar")
    for step in ("trump", "bids", "tricks"):
        page.goto(f"{live_server.url}/games/{game_id}")
        expect(page.locator(".trump-form, .bid-form, .tricks-form")).to_have_class(
            re.compile(FORMS[step])
        )
        no_sideways_scroll(page)
        in_first_screen(page, bar.get_by_role("link", name="Score sheet"))
        in_first_screen(page, bar.get_by_role("link", name="Live view"))
        in_first_screen(page, bar.get_by_role("button", name="Undo"))
        screen(page, f"reach-{step}-{width}")
        with table_client(live_server) as client:
            if step == "trump":
                trump(client, game_id, 2)
            elif step == "bids":
                for seat in range(players):
                    bid(client, game_id, 2, (2 + seat) % players, 2)
    # The countdown and Save stay together above the bar however far the chips scroll.
    save = page.get_by_role("button", name="Save round", exact=True)
    for _ in range(3):
        in_first_screen(page, page.locator(".countdown"))
        in_first_screen(page, save)
        in_first_screen(page, bar.get_by_role("button", name="Undo"))
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(100)
    page.locator('label.chip:has(input[name="tricks_5"][value="9"])').click()
    expect(page.locator("[data-remaining]")).to_have_text("0")


def tap_targets_below(page: Page, minimum: int = 44) -> list[str]:
    """Every control on the table screen and in the top bar smaller than ``minimum`` px."""
    return page.evaluate(
        """minimum => {
          const small = [];
          const controls = document.querySelectorAll(
            '.topbar a, #table :is(a, button, label.chip, summary, select)');
          for (const el of controls) {
            if (el.closest('.visually-hidden, .last-round, [hidden]')) continue;
            const box = el.getBoundingClientRect();
            if (box.width === 0 && box.height === 0) continue;
            if (box.width < minimum || box.height < minimum) {
              small.push(`${el.tagName} "${el.textContent.trim().slice(0, 30)}" ` +
                         `${Math.round(box.width)}x${Math.round(box.height)}`);
            }
          }
          return small;
        }""",
        minimum,
    )


@pytest.mark.parametrize("width", [320, 390])
def test_tap_targets_on_the_table_steps_are_at_least_44_px(phone, live_server, width):
    page = phone()
    page.set_viewport_size(SIZES[width])
    game_id = game_at_bids(live_server)
    page.goto(f"{live_server.url}/games/{game_id}")
    assert tap_targets_below(page) == [], "bids step"
    page.locator(".action-bar").get_by_role("button", name="Undo").click()
    page.locator(".action-bar").get_by_role("button", name="Undo").click()
    expect(page.locator(".trump-form")).to_be_visible()
    page.locator("summary", has_text="Someone else deals").click()
    assert tap_targets_below(page) == [], "trump step"
    page.goto(f"{live_server.url}/games/{game_at_tricks(live_server, SIX, hand=10)}")
    assert tap_targets_below(page) == [], "tricks step"


def posted_forms(page: Page) -> list[str]:
    bodies: list[str] = []
    page.on("request", lambda r: r.method == "POST" and bodies.append(r.post_data or ""))
    return bodies


@pytest.mark.parametrize("javascript", [True, False])
def test_enter_on_a_chip_never_saves_everyone_made_it(phone, live_server, javascript):
    game_id = game_at_tricks(live_server, ("Ann", "Bob", "Cara"), hand=6)
    page = phone(java_script_enabled=javascript)
    page.goto(f"{live_server.url}/games/{game_id}")
    everyone = page.get_by_role("button", name="Everyone made their bid")
    expect(everyone).to_be_visible()
    bodies = posted_forms(page)
    # Bob bid 2 but took 3: one chip, then Enter.
    page.locator('label.chip:has(input[name="tricks_1"][value="3"])').click()
    if javascript:
        expect(everyone).to_be_hidden()  # offered only while no trick is entered
    page.locator('input[name="tricks_1"][value="3"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator(".error-summary")).to_be_visible()
    assert bodies, "Enter sent the form"
    assert all("all_made" not in body for body in bodies), bodies
    expect(page.locator('input[name="tricks_1"][value="3"]')).to_be_checked()


def test_focus_lands_on_the_next_control_and_the_step_is_announced(page, live_server):
    """After each swap the focus waits on what the table needs next (the next bidder's
    buttons, then the first player's chips) and one polite region says whose turn it is."""
    with live_server.app.app_context():
        game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free")
    page.goto(f"{live_server.url}/games/{game_id}")
    # Keyboard only: Tab to the trump button and press it.
    hearts = page.locator(".trump-row").first.get_by_role("button", name="Hearts")
    hearts.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#step-title")).to_contain_text("Bids")
    announcer = page.locator("[role=status][aria-live=polite]").last
    expect(announcer).to_have_text("Round 1: Bob bids")
    assert page.get_by_role("button", name="Hearts").count() == 0
    for name in ("Cara", "Ann"):
        expect(page.locator('.bid-button[value="0"]')).to_be_focused()
        page.keyboard.press("Enter")
        expect(announcer).to_have_text(f"Round 1: {name} bids")
    expect(page.locator('.bid-button[value="0"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#step-title")).to_contain_text("Tricks")
    expect(announcer).to_have_text("Round 1: enter the tricks")
    # Bob leads: his chips come first.
    expect(page.locator('input[name="tricks_1"][value="0"]')).to_be_focused()


def test_a_refused_entry_is_announced_once_and_marks_its_field(page, live_server):
    game_id = game_at_tricks(live_server, ("Ann", "Bob", "Cara"), hand=3)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator('label.chip:has(input[name="tricks_1"][value="3"])').click()
    page.locator('label.chip:has(input[name="tricks_2"][value="3"])').click()
    page.get_by_role("button", name="Save round", exact=True).click()
    expect(page.locator(".error-summary")).to_be_visible()
    # One alert (the summary); the message beside the chips describes them.
    assert page.locator("#table [role=alert]").count() == 1
    groups = page.locator('.chips[aria-invalid="true"]')
    expect(groups.first).to_be_visible()
    described = groups.first.get_attribute("aria-describedby")
    assert described
    assert page.locator(f"#{described.split()[0]}").count() == 1
