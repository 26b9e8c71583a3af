"""A whole round by keyboard alone: after every swap the focus waits on the control the table
needs next, and a round of six takes no more than 2 × 6 + 8 key presses."""

from playwright.sync_api import Page, expect

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Game
from scorekeeper.queries import game_query
from scorekeeper.records import round_records
from tests.browser.conftest import console_errors
from tests.browser.page_states import setup_client
from tests.factories import new_game
from tests.play_helpers import bid, trump

SIX = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald")
# Dealer Anneliese (seat 0): Bartholomew bids first and leads, Anneliese bids last.
BID_ORDER = (1, 2, 3, 4, 5, 0)
BIDS = {1: 1, 2: 0, 3: 2, 4: 0, 5: 1, 0: 0}
TRICKS = {1: 1, 2: 0, 3: 1, 4: 1, 5: 1}  # Anneliese's 0 is filled in by the page


class Keyboard:
    """Presses keys on the page and counts them."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.presses = 0

    def press(self, key: str) -> None:
        self.presses += 1
        self.page.keyboard.press(key)


def focused_is(page: Page, locator) -> None:
    expect(locator).to_be_focused()


def test_a_six_player_round_by_keyboard_alone(page, live_server):
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(4, 4))
    with live_server.app.app_context():
        game_id = new_game(SIX, bid_rule="free", plan=plan)
    page.goto(f"{live_server.url}/games/{game_id}")
    keys = Keyboard(page)
    announcer = page.locator("body > [role=status][aria-live=polite]")

    # From the top of the page: the first Tab reaches "Skip to content", which goes to the
    # trump buttons; Tab on to the trump turned up (Hearts) and press it.
    keys.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    focused_is(page, skip)
    assert skip.bounding_box()["y"] >= 0, "shown while it has the focus"
    keys.press("Enter")
    trumps = page.locator(".trump-row").first.locator("button")
    focused_is(page, trumps.first)
    hearts = trumps.filter(has_text="Hearts")
    while not hearts.evaluate("button => button === document.activeElement"):
        keys.press("Tab")
        assert keys.presses <= 6, "Hearts is the third trump button"
    keys.press("Enter")

    # Bids: focus waits on the next bidder's buttons; one digit bids.
    for position, seat in enumerate(BID_ORDER):
        expect(page.locator(".bid-form .prompt")).to_contain_text(SIX[seat])
        focused_is(page, page.locator('.bid-button[value="0"]'))
        if position == 0:
            expect(announcer).to_have_text(f"Round 1: {SIX[seat]} bids")
        keys.press(str(BIDS[seat]))

    # Tricks: focus on the first player's chips (in play order); a digit chooses and moves on.
    expect(announcer).to_have_text("Round 1: enter the tricks")
    for seat, took in TRICKS.items():
        focused_is(page, page.locator(f'input[name="tricks_{seat}"][value="0"]'))
        keys.press(str(took))
        expect(page.locator(f'input[name="tricks_{seat}"][value="{took}"]')).to_be_checked()
    # The last player is filled in, and focus waits on Save beside the countdown at 0.
    expect(page.locator('input[name="tricks_0"][value="0"]')).to_be_checked()
    expect(page.locator("[data-remaining]")).to_have_text("0")
    save = page.locator(".save-row").get_by_role("button", name="Save round")
    focused_is(page, save)
    keys.press("Enter")

    # The next round opens on its trump buttons.
    expect(page.locator(".round-head h1")).to_contain_text("Round 2")
    focused_is(page, page.locator(".trump-form button[name=trump]").first)
    expect(announcer).to_have_text("Round 2: what was turned up for trump?")
    assert keys.presses <= 2 * len(SIX) + 8, keys.presses

    with live_server.app.app_context():
        game = db.session.scalar(game_query().where(Game.id == game_id))
        first = round_records(game)[0]
    assert first.bids == tuple(BIDS[seat] for seat in range(6))
    assert first.tricks == (0, *(TRICKS[seat] for seat in range(1, 6)))


def test_two_digits_make_a_bid_of_ten_or_more(page, live_server):
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(12, 1))
    with live_server.app.app_context():
        game_id = new_game(("Ann", "Bob", "Cara", "Dan"), bid_rule="free", plan=plan)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator(".trump-row").first.get_by_role("button", name="Hearts").press("Enter")
    focused_is(page, page.locator('.bid-button[value="0"]'))
    page.keyboard.press("1")  # could begin 10, 11 or 12: waits on 1
    focused_is(page, page.locator('.bid-button[value="1"]'))
    page.keyboard.press("1")
    expect(page.locator(".bid-list li.done").first).to_contain_text("11")
    focused_is(page, page.locator('.bid-button[value="0"]'))
    page.keyboard.press("1")
    page.keyboard.press("Enter")  # a bid of 1 as it is
    expect(page.locator(".bid-list li.done").nth(1)).to_contain_text("1")
    focused_is(page, page.locator('.bid-button[value="0"]'))
    page.keyboard.press("3")  # cannot begin a larger number: sent at once
    expect(page.locator(".bid-list li.done").nth(2)).to_contain_text("3")


FOUR = ("Ann", "Bob", "Cara", "Dan")


def four_at_tricks(live_server) -> int:
    """A four-player game at round 1's tricks (3 cards; Ann deals, Bob bids first)."""
    plan = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(3, 3))
    with setup_client(live_server.app) as client:
        game_id = new_game(FOUR, bid_rule="free", plan=plan)
        assert trump(client, game_id, 1).status_code == 303
        for seat in (1, 2, 3, 0):
            assert bid(client, game_id, 1, seat, 1 if seat in (1, 2) else 0).status_code == 303
    return game_id


def test_the_tricks_step_costs_one_tab_per_player_and_every_bid_stays_changeable(
    page, live_server, screenshot
):
    game_id = four_at_tricks(live_server)
    errors = console_errors(page)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator(".skip-link").focus()
    page.keyboard.press("Enter")
    play_order = (1, 2, 3, 0)
    focused_is(page, page.locator(f'input[name="tricks_{play_order[0]}"][value="0"]'))
    # One Tab from a player's chips to the next player's: no stop in between.
    for seat in play_order[1:]:
        page.keyboard.press("Tab")
        focused_is(page, page.locator(f'input[name="tricks_{seat}"][value="0"]'))
    page.keyboard.press("Tab")
    focused_is(page, page.locator(".save-row").get_by_role("button", name="Save round"))

    # Past Save, one stop opens every bid of the round to change it.
    page.keyboard.press("Tab")
    change = page.locator(".bid-changes > summary")
    focused_is(page, change)
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    focused_is(page, page.locator(".bid-changes a", has_text="Bob"))
    screenshot(page, "tricks-change-a-bid-390")
    page.keyboard.press("Tab")
    cara = page.locator(".bid-changes a", has_text="Cara")
    focused_is(page, cara)
    page.keyboard.press("Enter")
    expect(page.locator("#step-title")).to_have_text("Change the bid of Cara")

    # A tap on a bid in a player's row opens the same pad, and htmx logs nothing.
    page.get_by_role("link", name="Keep this bid").click()
    page.locator(".player-row legend a.bid-made").first.click()
    expect(page.locator("#step-title")).to_have_text("Change the bid of Bob")
    assert not errors, errors
