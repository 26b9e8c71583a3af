"""A whole evening on the server exactly as ``make run`` starts it (``flask serve``: gunicorn,
2 workers × 4 threads), with six phones: one opens New game first and goes on to watch, the
table's phone sets up a 4-player game with hidden bids, Bob and Cara bid on their own phones
(one of them a 320 px phone), two phones follow the live view; a round is corrected on the
sheet and the correction undone, the server is restarted in the middle of a round, then
"Play again" and the second game on a German phone, then the history, a player's page and
the ladder. Every total asserted is computed here from the bids and tricks entered."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.phones import Phones, add_player, no_problem_shown
from tests.evening_play import points
from tests.real_server import RealServer, served

pytestmark = pytest.mark.real_server

NAMES = ("Ann", "Bob", "Cara", "Dan")
SMALL_PHONE = {"width": 320, "height": 568}
# (bids, tricks) by seat, three rounds of 1, 2 and 3 cards; each game has one winner.
FIRST_GAME = [
    ([0, 1, 0, 0], [0, 1, 0, 0]),
    ([1, 0, 1, 0], [1, 0, 1, 0]),
    ([1, 1, 0, 1], [2, 1, 0, 0]),
]
# The correction of round 1, made after round 2: Ann took the trick, not Bob.
CORRECTED_TRICKS = [1, 0, 0, 0]
SECOND_GAME = [
    ([0, 0, 1, 0], [0, 0, 1, 0]),
    ([0, 0, 0, 2], [0, 0, 0, 2]),
    ([1, 1, 1, 1], [1, 1, 1, 0]),
]
GERMAN = {"save bids": "Ansagen speichern", "save round": "Runde speichern"}
# A restart waits for migrations and both workers: on two busy cores, seconds.
RESTARTED = 90_000


def totals(rounds: list[tuple[list[int], list[int]]]) -> list[int]:
    sums = [0] * len(NAMES)
    for bids, took in rounds:
        for seat in range(len(NAMES)):
            sums[seat] += points(bids[seat], took[seat])
    return sums


def winner(rounds) -> tuple[str, int]:
    sums = totals(rounds)
    best = max(sums)
    (seat,) = [seat for seat, total in enumerate(sums) if total == best]
    return NAMES[seat], best


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RealServer]:
    # The phones poll every second (LIVE_POLL_SECONDS), so that the test waits less.
    with served(tmp_path / "instance", settings={"LIVE_POLL_SECONDS": "1"}) as server:
        yield server


@pytest.fixture
def phones(browser: Browser) -> Iterator[Phones]:
    phones = Phones(browser)
    yield phones
    phones.close()


def expect_totals(scope, sums: list[int], timeout: int = 15_000) -> None:
    """The standings as a player reads them: each name's total."""
    for name, total in zip(NAMES, sums, strict=True):
        row = scope.locator(".standings tbody tr", has_text=name)
        expect(row.locator(".total")).to_have_text(str(total), timeout=timeout)


def path_of(link: str) -> str:
    """A link the app made, opened at the address the phones reach this server at
    (the app may name the host's LAN address; the test server listens on loopback only)."""
    parts = urlsplit(link)
    return parts.path


def tap_chip(page: Page, field: str, value: int) -> None:
    page.locator(f'label.chip:has(input[name="{field}"][value="{value}"])').click()


def tap_chips(page: Page, chips: dict[str, int]) -> None:
    """Tap each chip once: they stay tapped while the table's poll brings in the bids made
    on the players' phones (app.js keeps them)."""
    for field, value in chips.items():
        tap_chip(page, field, value)
    for field, value in chips.items():
        expect(page.locator(f'input[name="{field}"][value="{value}"]')).to_be_checked()


def version_changes(page: Page, tap) -> None:
    """Tap, and the game moves on (its version); else fail with what the phone says."""
    before = page.locator("#table").get_attribute("data-version")
    tap()
    page.wait_for_function(
        "before => document.getElementById('table')?.dataset.version !== before"
        " || document.querySelector('#table .error-summary, #table .notice:not(.undone)')"
        " || !document.getElementById('net-status').hidden",
        arg=before,
    )
    # "Undone: …" after an Undo is what the phone should say, not a refusal.
    said = page.locator(
        "#table .error-summary, #table .notice:not(.undone), #net-status:not([hidden])"
    )
    if said.count():
        pytest.fail(f"the phone says {said.first.inner_text()!r}")


def test_an_evening_with_six_phones_on_the_real_server(server, phones):
    first = phones.open("first visitor")
    table = phones.open("table")
    bob = phones.open("Bob's phone")
    cara = phones.open("Cara's phone", viewport=SMALL_PHONE)
    watcher = phones.open("watcher")
    german = phones.open("German phone", locale="de-DE")

    # Another phone opens New game first; the table's phone comes second and sets up.
    first.goto(server.url + "/games/new")
    # Each worker keeps its own copy of a kept page: a few reloads, so that the first
    # visitor's copy is on both whichever the table's requests reach.
    for _ in range(5):
        first.reload()
    expect(first.get_by_role("heading", name="New game")).to_be_visible()
    table.goto(server.url + "/")
    table.get_by_role("link", name="Start a new game").click()
    for name in NAMES:
        add_player(table, phones, name)
    expect(table.locator(".setup-seat-name")).to_have_text(list(NAMES))
    table.locator(".setup-dealers label", has_text="Ann").click()
    table.get_by_text("First rounds only").click()
    table.locator("#plan_rounds").fill("3")
    table.get_by_text("Free", exact=True).click()
    table.locator(".setup-more > summary").click()
    table.get_by_text("Hidden", exact=True).click()
    table.get_by_role("button", name="Start game").click()
    expect(table.locator("#table")).to_be_visible()
    no_problem_shown(table, phones)
    expect(table.locator("h1").first).to_contain_text("Round 1 of 3")

    # Live view: the watchers' link and a link for every player.
    table.get_by_role("link", name="Live view").click()
    live = path_of(table.locator(".qr figcaption a").first.get_attribute("href"))
    make_links = table.get_by_role("button", name="Make a link for every player")
    make_links.click()
    expect(make_links).to_have_count(0)  # the page after the post, every player with a link
    seat_links = {
        item.locator("h3").inner_text(): path_of(
            item.locator("figcaption a").get_attribute("href")
        )
        for item in table.locator(".phone-links li").all()
    }
    assert set(seat_links) == set(NAMES)
    bob.goto(server.url + seat_links["Bob"])
    cara.goto(server.url + seat_links["Cara"])
    expect(bob.locator(".seat-who")).to_have_text("Phone of Bob")
    expect(cara.locator("#seat-pad")).to_contain_text("once the trump is turned up")
    first.goto(server.url + live)
    watcher.goto(server.url + live)
    expect(watcher.locator("#live-board")).to_contain_text("not turned yet")
    table.get_by_role("link", name="Back to the table").click()

    played: list = []

    def play_round(bids, took, *, restart_before_saving=False):
        number = len(played) + 1
        expect(table.locator("h1").first).to_contain_text(f"Round {number} of 3")
        table.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
        expect(table.locator(".all-bids")).to_be_visible()
        # Bob and Cara bid on their own phones, which show the pad by themselves (polling).
        for phone, seat in ((bob, 1), (cara, 2)):
            phone.locator("#seat-pad .bid-buttons").get_by_role(
                "button", name=str(bids[seat]), exact=True
            ).click()
            expect(phone.locator(".seat-bid")).to_contain_text(str(bids[seat]))
        expect(bob.locator(".seat-status")).to_have_text(re.compile(r"Waiting for: Dan and Ann"))
        # Hidden: the table sees who bid on a phone, not what.
        expect(table.locator(".sealed-bid")).to_have_count(2)
        tap_chips(table, {f"bid_{seat}": bids[seat] for seat in (0, 3)})
        version_changes(table, table.get_by_role("button", name="Save bids").click)
        no_problem_shown(table, phones)
        # All bids in: shown at the table's tricks step and on the live view.
        for seat, name in enumerate(NAMES):
            expect(table.locator("fieldset.player-row legend", has_text=name)).to_contain_text(
                f"bid {bids[seat]}"
            )
        for seat in range(len(NAMES)):
            tap_chip(table, f"tricks_{seat}", took[seat])
        if restart_before_saving:
            # The host restarts the server while the table has the tricks entered: the save
            # fails visibly, the entries stay, and the same tap saves once it is back.
            server.stop()
            table.get_by_role("button", name="Save round").click()
            expect(table.locator("#net-status")).to_contain_text("Not saved")
            for seat in range(len(NAMES)):
                entered = table.locator(f'input[name="tricks_{seat}"][value="{took[seat]}"]')
                expect(entered).to_be_checked()
            server.start()
            table.get_by_role("button", name="Save round").click()
            expect(table.locator("#net-status")).to_be_hidden(timeout=RESTARTED)
        else:
            version_changes(table, table.get_by_role("button", name="Save round").click)
        played.append((bids, took))
        wait = RESTARTED if restart_before_saving else 15_000
        for phone in (table, first, watcher, bob, cara):
            expect_totals(phone, totals(played), timeout=wait)

    play_round(*FIRST_GAME[0])
    play_round(*FIRST_GAME[1])

    # A correction on the sheet: round 1, Ann took the trick, not Bob; then its Undo.
    table.get_by_role("link", name="Score sheet").click()
    sheet_totals = table.locator("table.score-sheet tfoot tr.totals td")
    expect(sheet_totals).to_have_text([str(total) for total in totals(played)])
    table.get_by_role("link", name="Correct round 1").click()
    for seat, value in enumerate(CORRECTED_TRICKS):
        tap_chip(table, f"tricks_{seat}", value)
    table.get_by_role("button", name="Save correction").click()
    corrected = [(FIRST_GAME[0][0], CORRECTED_TRICKS), played[1]]
    expect(sheet_totals).to_have_text([str(total) for total in totals(corrected)])
    for phone in (first, watcher, bob):
        expect_totals(phone, totals(corrected))
    table.get_by_role("link", name="Back to the table").click()
    version_changes(table, table.locator(".action-bar").get_by_role("button", name="Undo").click)
    no_problem_shown(table, phones)
    expect_totals(table, totals(played))
    for phone in (first, watcher, cara):
        expect_totals(phone, totals(played))

    play_round(*FIRST_GAME[2], restart_before_saving=True)
    name, best = winner(played)
    for phone in (table, first, watcher, bob, cara):
        expect(phone.locator(".winner")).to_have_text(f"{name} wins with {best} points!")
    assert server.starts == 2

    # Play again: same players and rules, the next dealer; played on a German phone.
    version_changes(
        table,
        table.get_by_role("button", name="Play again (same players and rules, next dealer)").click,
    )
    expect(table.locator("h1").first).to_contain_text("Round 1 of 3")
    expect(table.locator(".round-facts")).to_contain_text("Dealer: Bob")
    german.goto(server.url + "/")
    expect(german.locator("html")).to_have_attribute("lang", "de")
    german.locator(".continue-list a", has_text="Ann").click()
    second: list = []
    for number, (bids, took) in enumerate(SECOND_GAME, start=1):
        expect(german.locator("h1").first).to_contain_text(f"Runde {number} von 3")
        german.locator(".trump-row").first.get_by_role("button", name="Herz").click()
        tap_chips(german, {f"bid_{seat}": bids[seat] for seat in range(len(NAMES))})
        version_changes(german, german.get_by_role("button", name=GERMAN["save bids"]).click)
        for seat in range(len(NAMES)):
            tap_chip(german, f"tricks_{seat}", took[seat])
        version_changes(german, german.get_by_role("button", name=GERMAN["save round"]).click)
        no_problem_shown(german, phones)
        second.append((bids, took))
        expect_totals(german, totals(second))
    second_name, second_best = winner(second)
    expect(german.locator(".winner")).to_have_text(
        f"{second_name} gewinnt mit {second_best} Punkten!"
    )

    # The history lists both games with their winners, newest first.
    table.goto(server.url + "/history/")
    expect(table.locator(".game-row")).to_have_count(2)
    expect(table.locator(".game-row .game-outcome")).to_have_text(
        [f"Won by {second_name} · {second_best} points", f"Won by {name} · {best} points"]
    )
    # Bob's page: his two games, his win, his best and worst totals.
    table.get_by_role("link", name="Players").first.click()
    table.locator(".roster-link", has_text="Bob").click()
    expect(table.get_by_role("heading", name="Bob", exact=True)).to_be_visible()
    bob_totals = [totals(played)[1], totals(second)[1]]
    figures = {
        "Games": "2",
        "Wins": str([name, second_name].count("Bob")),
        "Best game": str(max(bob_totals)),
        "Worst game": str(min(bob_totals)),
    }
    for label, value in figures.items():
        figure = table.locator(".figure", has=table.locator("dt", has_text=label))
        expect(figure.locator(".figure-value")).to_have_text(value)
    # The ladder: every player with two finished games, and the wins of each.
    table.get_by_role("link", name="Ladder").first.click()
    for player in NAMES:
        wins = [name, second_name].count(player)
        row = table.locator(".ladder-table tr", has=table.get_by_role("link", name=player))
        expect(row.locator(".ladder-figures")).to_contain_text(
            f"2 finished games · {wins} win{'' if wins == 1 else 's'}"
        )
    assert phones.refused == []
