"""Playing rounds in a real browser at phone size: taps, rules, failures, two phones."""

import random

import pytest
from playwright.sync_api import Page, expect

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Game
from scorekeeper.queries import game_query
from scorekeeper.records import sheet_of
from tests.factories import new_game


def start_game(live_server, names=("Ann", "Bob", "Cara"), first_dealer=0, **options) -> int:
    with live_server.app.app_context():
        return new_game(names, first_dealer, **options)


def stored_sheet(live_server, game_id: int) -> tuple[rules.ScoreSheet, list[rules.RoundRecord]]:
    from scorekeeper.records import round_records

    with live_server.app.app_context():
        game = db.session.scalar(game_query().where(Game.id == game_id))
        return sheet_of(game), round_records(game)


class Taps:
    """Counts the interactions a player makes on the page."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def tap(self, locator) -> None:
        self.count += 1
        locator.click()

    def trump(self, name: str = "Hearts") -> None:
        self.tap(self.page.locator(".trump-row").first.get_by_role("button", name=name))
        self.page.wait_for_selector(".bid-form, .tricks-form, .all-bids")

    def bid(self, value: int) -> None:
        before = self.page.locator("#table").get_attribute("data-version")
        self.tap(self.page.locator(f'.bid-button[value="{value}"]'))
        expect(self.page.locator("#table")).not_to_have_attribute("data-version", before)

    def tricks(self, seat: int, value: int) -> None:
        self.tap(
            self.page.locator(f'label.chip:has(input[name="tricks_{seat}"][value="{value}"])')
        )

    def save_round(self) -> None:
        before = self.page.locator("#table").get_attribute("data-version")
        self.tap(self.page.get_by_role("button", name="Save round"))
        expect(self.page.locator("#table")).not_to_have_attribute("data-version", before)


def allowed_bid(page: Page, wanted: int) -> int:
    """The wanted bid, or a neighbour when the page has it disabled (the forbidden bid)."""
    button = page.locator(f'.bid-button[value="{wanted}"]')
    if button.is_disabled():
        return wanted - 1 if wanted > 0 else wanted + 1
    return wanted


def set_up_through_the_page(page: Page, url: str, names: tuple[str, ...], dealer: str) -> int:
    """Type the players in seat order, pick the first dealer, start; returns the game id."""
    page.goto(f"{url}/games/new")
    for name in names:
        page.get_by_placeholder("New player’s name").fill(name)
        page.get_by_role("button", name="Add", exact=True).click()
        expect(page.locator(".setup-seat")).to_have_count(names.index(name) + 1)
    page.locator(".setup-dealers label", has_text=dealer).click()
    page.get_by_role("button", name="Start game").click()
    expect(page.locator("#table")).to_be_visible()
    return int(page.locator("#table").get_attribute("data-game"))


def test_a_whole_three_player_game_matches_the_rules_module(page, live_server, screenshot):
    game_id = set_up_through_the_page(page, live_server.url, ("Ann", "Bob", "Cara"), "Ann")
    taps = Taps(page)
    chance = random.Random(7)
    players = 3
    for number, hand in enumerate(rules.GameRules(players=3).hand_sizes, start=1):
        dealer = (number - 1) % players
        expect(page.locator("h1").first).to_contain_text(f"Round {number} of 20")
        if number < 20:
            taps.trump()
        bids = {}
        for step in range(players):
            seat = (dealer + 1 + step) % players
            bids[seat] = allowed_bid(page, chance.randint(0, hand))
            taps.bid(bids[seat])
        # Tricks: random split of the hand, the last player is filled in by the page.
        split = [0] * players
        for _ in range(hand):
            split[chance.randrange(players)] += 1
        order = [(dealer + 1 + step) % players for step in range(players)]
        for seat in order[:-1]:
            taps.tricks(seat, split[seat])
        expect(
            page.locator(f'input[name="tricks_{order[-1]}"][value="{split[order[-1]]}"]')
        ).to_be_checked()
        if number == 5:
            screenshot(page, "play-tricks-light")
        taps.save_round()
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    sheet, records = stored_sheet(live_server, game_id)
    assert len(records) == 20
    expected = rules.score_sheet(rules.GameRules(players=3), records)
    shown = [
        int(page.locator(".standings tr", has_text=name).locator(".total").inner_text())
        for name in ("Ann", "Bob", "Cara")
    ]
    assert shown == list(expected.totals) == list(sheet.totals)
    screenshot(page, "play-finished-light")
    page.get_by_role("link", name="Score sheet").click()
    expect(page.locator("table.score-sheet tbody tr")).to_have_count(20)
    screenshot(page, "play-sheet-light")


def test_a_round_takes_at_most_two_taps_per_player_plus_three(page, live_server):
    game_id = start_game(live_server, names=("Ann", "Bob", "Cara", "Dan"))
    page.goto(f"{live_server.url}/games/{game_id}")
    taps = Taps(page)
    taps.trump()
    for value in (0, 0, 0, 0):
        taps.bid(allowed_bid(page, value))
    for seat in (1, 2, 3):
        taps.tricks(seat, 0)
    taps.save_round()
    expect(page.locator("h1").first).to_contain_text("Round 2 of 15")
    assert taps.count <= 2 * 4 + 3


def test_plus_minus_one_forbidden_bid_is_shown_and_refused(page, live_server, screenshot):
    game_id = start_game(live_server, names=("Ann", "Bob", "Cara", "Dan"), first_dealer=3)
    page.goto(f"{live_server.url}/games/{game_id}")
    taps = Taps(page)
    taps.trump()
    for value in (0, 0, 0):
        taps.bid(value)
    forbidden = page.locator('.bid-button[value="1"]')
    expect(forbidden).to_be_disabled()
    expect(page.locator(".forbidden-reason")).to_contain_text("±1: the bids may not add up to 1")
    screenshot(page, "play-bids-forbidden-light")
    # A tampered page that submits it anyway is refused with the reason.
    forbidden.evaluate("button => button.removeAttribute('disabled')")
    forbidden.click()
    expect(page.locator(".field-error")).to_contain_text("may not bid 1")
    expect(page.locator(".bid-form")).to_be_visible()


def test_canadian_forbidden_bid_only_for_the_leader(page, live_server):
    game_id = start_game(live_server, bid_rule="canadian", first_dealer=2)
    page.goto(f"{live_server.url}/games/{game_id}")
    taps = Taps(page)
    # Round 1: Cara deals. Ann 1 (makes it), Bob 0, Cara 0; Ann leads afterwards alone.
    taps.trump()
    for value in (1, 0, 0):
        taps.bid(value)
    taps.tricks(0, 1)
    taps.tricks(1, 0)
    taps.save_round()
    # Round 2: Ann deals and bids last while leading alone: 2 - (0 + 0) = 2 is forbidden.
    taps.trump()
    taps.bid(0)
    taps.bid(0)
    expect(page.locator('.bid-button[value="2"]')).to_be_disabled()
    expect(page.locator(".forbidden-reason")).to_contain_text("Canadian")
    expect(page.locator('.bid-button[value="0"]')).to_be_enabled()


def test_a_round_with_javascript_disabled(phone, live_server, screenshot):
    game_id = start_game(live_server, bid_rule="free")
    page = phone(java_script_enabled=False)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator(".trump-row").first.get_by_role("button", name="Spades").click()
    for value in (1, 0, 0):
        page.locator(f'.bid-button[value="{value}"]').click()
    # Bob bid first (1), then Cara (0), then Ann, the dealer (0); Bob took the trick.
    page.locator('label.chip:has(input[name="tricks_0"][value="0"])').click()
    page.locator('label.chip:has(input[name="tricks_1"][value="1"])').click()
    page.locator('label.chip:has(input[name="tricks_2"][value="0"])').click()
    screenshot(page, "play-tricks-nojs")
    page.get_by_role("button", name="Save round").click()
    expect(page.locator("h1").first).to_contain_text("Round 2 of 20")
    sheet, _records = stored_sheet(live_server, game_id)
    assert sheet.totals == (20, 30, 20)


def test_a_second_phone_that_saved_first_gets_changed_on_another_phone(phone, live_server):
    game_id = start_game(live_server)
    one, two = phone(), phone()
    one.goto(f"{live_server.url}/games/{game_id}")
    two.goto(f"{live_server.url}/games/{game_id}")
    Taps(two).trump("Clubs")
    one.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
    expect(one.locator(".notice")).to_contain_text("Changed on another phone")
    expect(one.locator(".round-facts")).to_contain_text("♣")


def test_a_failed_request_says_not_saved_and_keeps_the_entries(page, live_server):
    game_id = start_game(live_server, bid_rule="free")
    page.goto(f"{live_server.url}/games/{game_id}")
    taps = Taps(page)
    taps.trump()
    for value in (1, 0, 0):
        taps.bid(value)
    taps.tricks(1, 0)
    taps.tricks(2, 0)
    page.route("**/tricks", lambda route: route.abort())
    page.get_by_role("button", name="Save round").click()
    expect(page.locator("#net-status")).to_contain_text("Not saved")
    expect(page.locator('input[name="tricks_0"][value="1"]')).to_be_checked()
    page.unroute("**/tricks")
    taps.save_round()
    expect(page.locator("#net-status")).to_be_hidden()
    expect(page.locator("h1").first).to_contain_text("Round 2 of 20")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screens_for_a_person_to_look_at(phone, live_server, screenshot, scheme):
    game_id = start_game(
        live_server,
        names=("Ann", "Bob", "Cara", "Dan"),
        jubilee=rules.JubileeCards(bomb=True, cloud=True),
    )
    page = phone(color_scheme=scheme)
    page.goto(f"{live_server.url}/games/{game_id}")
    screenshot(page, f"play-trump-{scheme}")
    taps = Taps(page)
    taps.trump()
    taps.bid(1)
    taps.bid(0)
    screenshot(page, f"play-bids-{scheme}")
    taps.bid(0)
    taps.bid(1)
    screenshot(page, f"play-tricks-{scheme}")
    taps.tricks(1, 1)
    taps.tricks(2, 0)
    taps.tricks(3, 0)
    taps.save_round()
    page.get_by_role("link", name="Score sheet").click()
    screenshot(page, f"play-sheet-{scheme}")


def test_ticking_the_bomb_fills_the_last_player_in_again(page, live_server):
    game_id = start_game(
        live_server,
        bid_rule="free",
        plan=rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(3,)),
        jubilee=rules.JubileeCards(bomb=True),
    )
    page.goto(f"{live_server.url}/games/{game_id}")
    taps = Taps(page)
    taps.trump()
    for value in (1, 1, 0):
        taps.bid(value)
    taps.tricks(1, 1)
    taps.tricks(2, 1)
    expect(page.locator('input[name="tricks_0"][value="1"]')).to_be_checked()
    page.get_by_text("The Bomb was played").click()
    expect(page.locator('input[name="tricks_0"][value="0"]')).to_be_checked()
    expect(page.locator("[data-remaining]")).to_have_text("0")
    taps.save_round()
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
