"""The table keeps going when the server cannot be reached (issue 30), on the server exactly
as ``make run`` starts it: rounds entered on the table phone while the server is stopped are
kept on the phone, survive a reload, and are stored once each when it is back; a round another
phone saved meanwhile is shown beside ours and the table chooses. Every total asserted is
computed here from the bids and tricks entered (``evening_play.points``), never asked of the
app."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from playwright.sync_api import Browser, Locator, Page, Route, expect

from tests.browser.phones import Phones, tap_and_wait
from tests.evening_play import Played, Table, points
from tests.real_server import RealServer, Visitor, served

pytestmark = pytest.mark.real_server

NAMES = ("Ana", "Ben", "Cleo", "Dev")
# Rounds 1 and 2 of a 4-player ±1 game, played online: (bids, tricks) by seat.
ONLINE = [([0, 1, 1, 0], [0, 1, 0, 0]), ([0, 0, 1, 0], [0, 0, 1, 1])]
# A restart waits for migrations and both workers: on two busy cores, seconds.
STARTED = 90_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    with served(tmp_path_factory.mktemp("offline") / "instance") as server:
        yield server


@pytest.fixture
def phones(browser: Browser) -> Iterator[Phones]:
    phones = Phones(browser)
    yield phones
    phones.close()


def rows(server: RealServer, query: str, game_id: int) -> list[sa.Row]:
    """What the server's database holds (read beside it, as the host would)."""
    engine = sa.create_engine(f"sqlite:///{server.instance / 'scorekeeper.sqlite'}")
    with engine.connect() as db:
        found = db.execute(sa.text(query), {"game": game_id}).all()
    engine.dispose()
    return found


def stored_rounds(server: RealServer, game_id: int) -> dict[int, tuple[list, list, str]]:
    """The scored rounds as the database has them: bids, tricks and trump by round."""
    found: dict[int, tuple[list, list, str]] = {}
    query = (
        "SELECT r.number, e.bid, e.tricks, r.trump_cause, r.trump FROM rounds r"
        " JOIN entries e ON e.round_id = r.id WHERE r.game_id = :game"
        " AND e.tricks IS NOT NULL ORDER BY r.number, e.seat"
    )
    for number, bid, took, cause, trump in rows(server, query, game_id):
        bids, tricks, _trump = found.setdefault(number, ([], [], f"{cause}:{trump or ''}"))
        bids.append(bid)
        tricks.append(took)
    return found


def change_actions(server: RealServer, game_id: int) -> list[tuple[str, int | None]]:
    """Every change of the game's history: what it did, to which round."""
    query = "SELECT action, round_number FROM changes WHERE game_id = :game ORDER BY version"
    return [(str(action).lower(), number) for action, number in rows(server, query, game_id)]


def round_saves(server: RealServer, game_id: int) -> list[int]:
    """The round number of every change that saved a round (a round stored twice shows twice)."""
    return [n for action, n in change_actions(server, game_id) if action == "record_round"]


def sheet(rounds: list[tuple[list[int], list[int]]]) -> list[int]:
    """The totals a player adds up on paper."""
    totals = [0] * len(NAMES)
    for bids, took in rounds:
        for seat, (bid, got) in enumerate(zip(bids, took, strict=True)):
            totals[seat] += points(bid, got)
    return totals


def game_after_two_rounds(server: RealServer) -> Played:
    table = Table(Visitor(server.url))
    game = table.start_game(NAMES, rounds=5, bid_rule="plus_minus_one")
    for bids, took in ONLINE:
        table.play_round(game, bids, took)
    return game


def open_table(page: Page, server: RealServer, game: Played) -> None:
    """The table screen, controlled by the service worker (so that it keeps the page), with
    the offline plan fetched."""
    page.goto(f"{server.url}/games/{game.game_id}")
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # from now on the worker controls the page and keeps it
    plan_fetched(page, game)


def plan_fetched(page: Page, game: Played) -> None:
    page.wait_for_function(
        "([id, tag]) => (JSON.parse(localStorage.getItem('scorekeeper-plan-' + id)) || {}).tag"
        " === tag",
        arg=[game.game_id, page.locator("#table").get_attribute("data-offline-tag")],
    )


def panel(page: Page) -> Locator:
    return page.locator("#offline-table")


def tap_bid(page: Page, value: int) -> None:
    panel(page).locator(".bid-buttons").get_by_role("button", name=str(value), exact=True).click()


def tap_tricks(page: Page, chips: dict[int, int], prefix: str = "kept-tricks") -> None:
    for seat, value in chips.items():
        panel(page).locator(
            f'label.chip:has(input[name="{prefix}-{seat}"][value="{value}"])'
        ).click()


def offline_round(page: Page, bids_in_order: list[tuple[int, int]], tricks: dict[int, int]):
    """Trump (hearts), the bids in bid order, the tricks (the last player is filled in), Save."""
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    for _seat, value in bids_in_order:
        tap_bid(page, value)
    tap_tricks(page, tricks)
    panel(page).get_by_role("button", name="Save round").click()


def expect_standings(scope: Locator, totals: list[int]) -> None:
    for name, total in zip(NAMES, totals, strict=True):
        row = scope.locator(".standings tbody tr", has_text=name)
        expect(row.locator(".total")).to_have_text(str(total))


def test_rounds_kept_while_the_server_is_stopped_are_stored_once_when_it_is_back(
    server, phones, screenshot
):
    game = game_after_two_rounds(server)
    page = phones.open("table")
    open_table(page, server, game)
    expect_standings(page.locator("#table"), sheet(ONLINE))

    server.stop()  # its whole process group, as Ctrl-C on `make run`
    # The trump of round 3 cannot be saved: the phone carries on with the same step.
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    expect(panel(page).locator(".offline-banner")).to_contain_text("No connection")
    expect(page.locator("#table")).to_be_hidden()

    # Round 3: 3 cards, Cleo deals, Dev bids first. Ana 0, Ben 1 after Dev's 1: Cleo, last,
    # may not bid 1 (the bids would add up to 3): shown disabled, with the reason.
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    for value in (1, 0, 1):
        tap_bid(page, value)
    forbidden = panel(page).locator(".bid-buttons").get_by_role("button", name="1", exact=True)
    expect(forbidden).to_be_disabled()
    expect(panel(page).locator(".forbidden-reason")).to_contain_text("Cleo may not bid 1")
    tap_bid(page, 0)
    tap_tricks(page, {3: 1, 0: 1, 1: 1})  # Cleo's 0 is filled in
    expect(panel(page).locator('input[name="kept-tricks-2"][value="0"]')).to_be_checked()
    panel(page).get_by_role("button", name="Save round").click()
    third = ([0, 1, 0, 1], [1, 1, 0, 1])
    expect(panel(page).locator(".waiting-count")).to_have_text("1 round not sent yet")
    expect_standings(panel(page), sheet([*ONLINE, third]))

    # Round 4: 4 cards, Dev deals. Dev, last after 1 + 1 + 1, may not bid 1.
    offline_round(page, [(0, 1), (1, 1), (2, 1), (3, 2)], {0: 1, 1: 1, 2: 0})
    fourth = ([1, 1, 1, 2], [1, 1, 0, 2])
    # Round 3 corrected while it waits: Cleo took the trick put down for Ana.
    panel(page).get_by_role("button", name="Correct round 3").click()
    tap_tricks(page, {0: 0, 2: 1}, prefix="edit-tricks")
    panel(page).locator(".edit-kept").get_by_role("button", name="Save round").click()
    third = ([0, 1, 0, 1], [0, 1, 1, 1])
    # Round 5: 5 cards, Ana deals; Ana, last after 2 + 1 + 0, may not bid 2.
    offline_round(page, [(1, 2), (2, 1), (3, 0), (0, 0)], {1: 2, 2: 1, 3: 1})
    fifth = ([0, 2, 1, 0], [1, 2, 1, 1])
    played = [*ONLINE, third, fourth, fifth]
    expect(panel(page).locator(".waiting-count")).to_have_text("3 rounds not sent yet")
    # Undone while it waits: round 5 comes back as it was before Save, and is saved again.
    panel(page).locator(".kept-rounds").get_by_role("button", name="Undo").click()
    expect(panel(page).locator(".waiting-count")).to_have_text("2 rounds not sent yet")
    expect(panel(page).locator('input[name="kept-tricks-1"][value="2"]')).to_be_checked()
    panel(page).get_by_role("button", name="Save round").click()
    expect(panel(page).locator(".waiting-count")).to_have_text("3 rounds not sent yet")
    expect_standings(panel(page), sheet(played))
    screenshot(page, "offline-three-waiting")

    # A reload with the server still gone: the kept page, the kept rounds.
    page.reload()
    expect(panel(page).locator(".waiting-count")).to_have_text("3 rounds not sent yet")
    expect_standings(panel(page), sheet(played))

    server.start()
    # Within 10 s of the server answering, without a tap: stored, and its standings shown.
    expect(panel(page)).to_have_count(0, timeout=10_000)
    expect_standings(page.locator("#table"), sheet(played))
    stored = stored_rounds(server, game.game_id)
    assert {n: stored[n][:2] for n in (3, 4, 5)} == {
        3: tuple(map(list, third)),
        4: tuple(map(list, fourth)),
        5: tuple(map(list, fifth)),
    }
    assert all(stored[n][2] == "suit:hearts" for n in (3, 4, 5))
    assert round_saves(server, game.game_id) == [1, 2, 3, 4, 5]
    assert page.evaluate(f"localStorage.getItem('scorekeeper-kept-{game.game_id}')") is None


def test_a_round_another_phone_saved_meanwhile_is_shown_beside_ours_and_the_table_chooses(
    server, phones, screenshot
):
    game = game_after_two_rounds(server)
    page = phones.open("table")
    open_table(page, server, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    ours = ([0, 1, 0, 1], [1, 1, 0, 1])
    # Meanwhile another phone saves round 3 otherwise.
    other = Table(Visitor(server.url))
    theirs = ([1, 0, 0, 1], [1, 0, 1, 1])
    other.play_round(game, *theirs)
    page.context.set_offline(False)
    conflict = panel(page).locator(".conflict")
    expect(conflict).to_contain_text("Round 3 was saved differently on another phone")
    expect(conflict.locator("tr", has_text="Ana")).to_contain_text("0 / 1")
    expect(conflict.locator("tr", has_text="Ana")).to_contain_text("1 / 1")
    screenshot(page, "offline-conflict")
    assert stored_rounds(server, game.game_id)[3][:2] == tuple(map(list, theirs))
    conflict.get_by_role("button", name="Keep ours").click()
    expect(panel(page)).to_have_count(0, timeout=10_000)
    expect_standings(page.locator("#table"), sheet([*ONLINE, ours]))
    assert stored_rounds(server, game.game_id)[3][:2] == tuple(map(list, ours))
    # The choice is in the change history: round 3 saved by the other phone, then corrected.
    assert change_actions(server, game.game_id)[-2:] == [
        ("record_round", 3),
        ("edit_round", 3),
    ]


class SlowLink:
    """A TCP relay between the phone and the server that can hold what the phone sends
    (``hold`` seconds before each piece goes on): a server answering very slowly."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.hold = 0.0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                phone, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(phone,), daemon=True).start()

    def _relay(self, phone: socket.socket) -> None:
        with phone:
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                return
            with server:
                back = threading.Thread(target=self._pump, args=(server, phone, False))
                back.start()
                self._pump(phone, server, True)
                back.join()

    def _pump(self, source: socket.socket, target: socket.socket, held: bool) -> None:
        try:
            while chunk := source.recv(65536):
                if held and self.hold:
                    time.sleep(self.hold)
                target.sendall(chunk)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self._listener.close()


def test_a_server_answering_slowly_and_a_flapping_network_store_each_round_once(server, phones):
    """The trump's save is held 20 s: after 8 s the phone goes on by itself; the kept round's
    first sends are held too (they reach the server late, and are stored then). When the
    server answers again the network drops twice while the rounds are sent: each round is
    stored once, in order, none missing."""
    game = game_after_two_rounds(server)
    link = SlowLink(server.port)
    try:
        page = phones.open("table")
        page.goto(f"{link.url}/games/{game.game_id}")
        plan_fetched(page, game)
        link.hold = 20
        page.locator("#table .trump-form button.suit-hearts").first.click()
        expect(panel(page)).to_be_visible(timeout=15_000)
        offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
        offline_round(page, [(0, 1), (1, 1), (2, 1), (3, 2)], {0: 1, 1: 1, 2: 0})
        third, fourth = ([0, 1, 0, 1], [1, 1, 0, 1]), ([1, 1, 1, 2], [1, 1, 0, 2])
        link.hold = 0
        for _ in range(2):
            page.context.set_offline(True)
            page.wait_for_timeout(700)
            page.context.set_offline(False)
            page.wait_for_timeout(700)
        expect(panel(page)).to_have_count(0, timeout=40_000)
        expect_standings(page.locator("#table"), sheet([*ONLINE, third, fourth]))
        stored = stored_rounds(server, game.game_id)
        assert {n: stored[n][:2] for n in (3, 4)} == {
            3: tuple(map(list, third)),
            4: tuple(map(list, fourth)),
        }
        assert round_saves(server, game.game_id) == [1, 2, 3, 4]
    finally:
        link.close()


def test_a_reload_offline_opens_the_kept_page_at_the_round_being_played(server, phones):
    """The service worker's copy of the table page is from when it was opened (round 3); a
    round later the network is gone and the page reloaded: the phone carries on at round 4,
    as its plan (fetched again every round) says, and sends it when the network is back."""
    game = game_after_two_rounds(server)
    page = phones.open("table")
    open_table(page, server, game)
    table = page.locator("#table")
    tap_and_wait(page, table.locator(".trump-form button.suit-hearts").first)
    for value in (1, 0, 1, 0):
        bid = table.locator(".bid-buttons").get_by_role("button", name=str(value), exact=True)
        tap_and_wait(page, bid)
    for seat, value in ((3, 1), (0, 1), (1, 1)):
        table.locator(f'label.chip:has(input[name="tricks_{seat}"][value="{value}"])').click()
    table.get_by_role("button", name="Save round").last.click()
    expect(page.locator("h1").first).to_contain_text("Round 4 of 5")
    plan_fetched(page, game)
    page.context.set_offline(True)
    page.reload()
    expect(panel(page).locator("h1")).to_contain_text("Round 4 of 5", timeout=15_000)
    offline_round(page, [(0, 1), (1, 1), (2, 1), (3, 2)], {0: 1, 1: 1, 2: 0})
    page.context.set_offline(False)
    expect(panel(page)).to_have_count(0, timeout=10_000)
    assert stored_rounds(server, game.game_id)[4][:2] == ([1, 1, 1, 2], [1, 1, 0, 2])
    assert round_saves(server, game.game_id) == [1, 2, 3, 4]


def test_offline_the_canadian_rule_binds_only_a_last_bidder_alone_in_the_lead(server, phones):
    """Canadian: the plan says the rule binds a last bidder alone in the lead; who leads
    offline comes from the totals with the rounds kept here."""
    table = Table(Visitor(server.url))
    game = table.start_game(NAMES, rounds=5, bid_rule="canadian")
    # Cleo takes the lead alone: 30 and 70 against 20 and 40.
    table.play_round(game, [0, 0, 1, 0], [0, 0, 1, 0])
    table.play_round(game, [0, 0, 2, 0], [0, 0, 2, 0])
    page = phones.open("table")
    open_table(page, server, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    # Round 3: Cleo deals and bids last, alone in the lead: after 1 + 0 + 1 she may not bid 1.
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    for value in (1, 0, 1):
        tap_bid(page, value)
    pad = panel(page).locator(".bid-buttons")
    expect(pad.get_by_role("button", name="1", exact=True)).to_be_disabled()
    expect(panel(page).locator(".forbidden-reason")).to_contain_text("Cleo leads alone")
    tap_bid(page, 2)
    tap_tricks(page, {3: 1, 0: 0, 1: 1})  # Cleo 1: she missed (-10), Dev and Ben made it
    panel(page).get_by_role("button", name="Save round").click()
    # Round 4: Dev bids last, not in the lead: nothing is forbidden, zero never is.
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    for value in (1, 1, 1):
        tap_bid(page, value)
    expect(pad.locator("button:disabled")).to_have_count(0)
    expect(panel(page).locator(".forbidden-reason")).to_have_count(0)
    page.context.set_offline(False)
    expect(panel(page).locator(".waiting-count")).to_be_hidden(timeout=10_000)
    assert stored_rounds(server, game.game_id)[3][:2] == ([0, 1, 2, 1], [0, 1, 1, 1])
    # Stored, round 3 counts in the server's totals the standings here add to (not dropped
    # from them while round 4 is entered here).
    canadian = [([0, 0, 1, 0], [0, 0, 1, 0]), ([0, 0, 2, 0], [0, 0, 2, 0])]
    expect_standings(panel(page), sheet([*canadian, ([0, 1, 2, 1], [0, 1, 1, 1])]))
    # Round 4 is being entered here: it goes on here, and is sent once saved.
    expect(panel(page).locator(".offline-banner")).to_contain_text(
        "this round is sent once it is saved"
    )


def test_without_a_service_worker_kept_rounds_are_sent_after_a_reload(server, phones):
    """Plain HTTP on the LAN has no service worker: the rounds are kept while the page stays
    open, and a reload once the server is back sends them."""
    game = game_after_two_rounds(server)
    page = phones.open("table", service_workers="block")
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    page.close()  # the phone's browser closed before the network came back
    page = page.context.new_page()
    page.context.set_offline(False)
    page.goto(f"{server.url}/games/{game.game_id}")
    expect(page.locator("#table h1")).to_contain_text("Round 4 of 5", timeout=10_000)
    assert stored_rounds(server, game.game_id)[3][:2] == ([0, 1, 0, 1], [1, 1, 0, 1])
    assert round_saves(server, game.game_id) == [1, 2, 3]


@pytest.mark.parametrize("elsewhere", ["nothing", "round 4"])
def test_a_round_whose_answer_was_lost_is_stored_once_after_a_reload(server, phones, elsewhere):
    """Round 3 reached the server but its answer was lost, with round 4 begun here; the page
    is reloaded. The fresh plan starts at round 4, yet the re-send is the very same request
    (stored already, not a conflict with our own round). A round 4 the plan no longer has
    (another phone played it) is dropped: the page is never left blank."""
    game = game_after_two_rounds(server)
    page = phones.open("table", service_workers="block")
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)

    def answer_lost(route: Route) -> None:
        route.fetch()  # reaches the server, which stores it
        route.abort()

    page.context.route("**/rounds/3/kept", answer_lost)
    offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    panel(page).locator(".trump-form button.suit-hearts").first.click()  # round 4 begun
    page.context.set_offline(False)
    deadline = time.monotonic() + 15
    while round_saves(server, game.game_id) != [1, 2, 3] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert round_saves(server, game.game_id) == [1, 2, 3]
    page.close()
    page.context.unroute("**/rounds/3/kept")
    if elsewhere == "round 4":  # another phone plays it
        game.rounds.append(([0, 1, 0, 1], [1, 1, 0, 1]))  # round 3, stored above
        Table(Visitor(server.url)).play_round(game, [1, 1, 1, 0], [1, 1, 1, 1])
    page = page.context.new_page()
    page.goto(f"{server.url}/games/{game.game_id}")
    page.wait_for_function(
        "id => localStorage.getItem('scorekeeper-kept-' + id) === null", arg=game.game_id
    )
    expect(panel(page)).to_have_count(0, timeout=10_000)
    table = page.locator("#table")
    expect(table).to_be_visible()
    shown = 5 if elsewhere == "round 4" else 4
    expect(table.locator("h1")).to_contain_text(f"Round {shown} of 5")
    assert round_saves(server, game.game_id) == list(range(1, shown))
    assert stored_rounds(server, game.game_id)[3][:2] == ([0, 1, 0, 1], [1, 1, 0, 1])
    assert page.evaluate(f"localStorage.getItem('scorekeeper-kept-{game.game_id}')") is None


def test_keeping_theirs_of_a_round_not_finished_there_finishes_it_first(server, phones):
    """Another phone began round 3 otherwise while rounds 3 and 4 were kept here. "Keep
    theirs" brings back the server's screen to finish round 3 there; round 4 waits for it
    (the server takes only the round being played) and is sent once it is finished."""
    game = game_after_two_rounds(server)
    page = phones.open("table", service_workers="block")
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    offline_round(page, [(0, 1), (1, 1), (2, 1), (3, 2)], {0: 1, 1: 1, 2: 0})
    other = Table(Visitor(server.url))
    other.post(game, "rounds/3/trump", {"trump": "suit:spades"})
    page.context.set_offline(False)
    conflict = panel(page).locator(".conflict")
    expect(conflict).to_contain_text("Round 3 was started differently on another phone")
    conflict.get_by_role("button", name="Keep theirs").click()
    expect(panel(page)).to_have_count(0, timeout=10_000)
    expect(page.locator("#table h1")).to_contain_text("Round 3 of 5")
    expect(page.locator("#offline-hold")).to_contain_text("Finish round 3 on this screen")
    # Round 3 finished there (here it would be the same taps on the server's screen).
    for seat, value in ((3, 0), (0, 1), (1, 0), (2, 1)):
        other.post(game, "rounds/3/bid", {"seat": seat, "bid": value})
    other.post(
        game, "rounds/3/tricks", {"tricks_0": 1, "tricks_1": 0, "tricks_2": 1, "tricks_3": 1}
    )
    assert round_saves(server, game.game_id) == [1, 2, 3]
    page.reload()
    expect(page.locator("#offline-hold")).to_have_count(0)
    page.wait_for_function(
        "id => localStorage.getItem('scorekeeper-kept-' + id) === null", arg=game.game_id
    )
    assert round_saves(server, game.game_id) == [1, 2, 3, 4]
    stored = stored_rounds(server, game.game_id)
    assert stored[3] == ([1, 0, 1, 0], [1, 0, 1, 1], "suit:spades")
    assert stored[4][:2] == ([1, 1, 1, 2], [1, 1, 0, 2])


def test_an_error_page_or_an_expired_token_is_no_lost_network(server, phones):
    """An answer that is not the app's JSON (a proxy's 413 page) shows the kept round as
    needing the table, with the page's title, instead of "No connection" for ever; an expired
    form token is renewed from the table page and the round sent again, once."""
    game = game_after_two_rounds(server)
    page = phones.open("table", service_workers="block")
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    page.context.route(
        "**/rounds/3/kept",
        lambda route: route.fulfill(
            status=413, content_type="text/html", body="<title>Too large</title>"
        ),
    )
    page.context.set_offline(False)
    refused = panel(page).locator(".conflict")
    expect(refused).to_contain_text("Round 3 was not saved:")
    expect(refused).to_contain_text("Too large")
    page.context.unroute("**/rounds/3/kept")
    page.evaluate(
        "() => document.querySelector('[hx-headers]')"
        ".setAttribute('hx-headers', JSON.stringify({'X-CSRFToken': 'expired'}))"
    )
    refused.get_by_role("button", name="Correct ours").click()
    panel(page).locator(".edit-kept").get_by_role("button", name="Save round").click()
    page.wait_for_function(
        "id => localStorage.getItem('scorekeeper-kept-' + id) === null", arg=game.game_id
    )
    assert round_saves(server, game.game_id) == [1, 2, 3]
    assert stored_rounds(server, game.game_id)[3][:2] == ([0, 1, 0, 1], [1, 1, 0, 1])


FILL_STORAGE = """() => {
    for (let size = 1 << 20, n = 0; size >= 16; size >>= 2) {
        const chunk = "x".repeat(size);
        try { for (;;) localStorage.setItem("filler-" + n++, chunk); } catch (e) { /* full */ }
    }
}"""


def test_only_the_open_game_s_plan_is_kept_and_a_full_storage_is_said(server, phones):
    """The cached plans of games opened before are removed; when the kept rounds cannot be
    written (storage full), the banner says so instead of losing them silently."""
    earlier = game_after_two_rounds(server)
    game = game_after_two_rounds(server)
    page = phones.open("table", service_workers="block")
    page.goto(f"{server.url}/games/{earlier.game_id}")
    plan_fetched(page, earlier)
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    keys = page.evaluate("() => Object.keys(localStorage)")
    assert keys == [f"scorekeeper-plan-{game.game_id}"]
    page.evaluate("id => localStorage.removeItem('scorekeeper-plan-' + id)", game.game_id)
    page.evaluate(FILL_STORAGE)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    expect(panel(page).locator(".offline-banner")).to_contain_text("This phone's storage is full")


def test_offline_the_page_stays_still_while_the_server_is_gone(server, phones):
    """A failing probe (every 2 s) draws nothing again: the controls stay the same nodes, the
    focus stays where the player put it; the countdown is said by one live region kept
    across drawings, not by a node made anew at each tap."""
    game = game_after_two_rounds(server)
    page = phones.open("table", service_workers="block")
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    expect(panel(page).locator(".trump-form")).to_be_visible()
    elsewhere = page.locator("a:visible").first
    elsewhere.focus()
    page.evaluate("() => { window.drawn = document.querySelector('#offline-table .trump-form'); }")
    page.wait_for_timeout(4500)  # two probes failed meanwhile
    assert page.evaluate(
        "() => document.querySelector('#offline-table .trump-form') === window.drawn"
    )
    expect(elsewhere).to_be_focused()
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    for value in (1, 0, 1, 0):
        tap_bid(page, value)
    tap_tricks(page, {3: 1})
    live = panel(page).locator("> p[aria-live=polite]")
    expect(live).to_have_text("Tricks left to give out: 2")
    expect(panel(page).locator(".countdown[aria-live]")).to_have_count(0)
    tap_tricks(page, {0: 1, 1: 1})  # Cleo's 0 filled in
    expect(live).to_have_text("Tricks left to give out: 0")


def test_two_tabs_go_on_from_each_other_s_kept_rounds(server, phones):
    """Two tabs of the table phone on the same game: a round kept in one is not overwritten
    by the other's older copy of the kept rounds; it shows there too."""
    game = game_after_two_rounds(server)
    first = phones.open("table", service_workers="block")
    first.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(first, game)
    second = first.context.new_page()
    second.goto(f"{server.url}/games/{game.game_id}")
    first.context.set_offline(True)
    # The tab being tapped is brought to the front, as a hand does: a tab behind another has
    # its frames held back, and each tap waited seconds for one.
    for page in (first, second):
        page.bring_to_front()
        page.locator("#table .trump-form button.suit-hearts").first.click()
        expect(panel(page)).to_be_visible(timeout=15_000)
    first.bring_to_front()
    offline_round(first, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    second.bring_to_front()
    expect(panel(second).locator(".waiting-count")).to_have_text("1 round not sent yet")
    panel(second).locator(".trump-form button.suit-hearts").first.click()  # round 4 begun
    kept = second.evaluate(
        "id => JSON.parse(localStorage.getItem('scorekeeper-kept-' + id))", game.game_id
    )
    assert [(r["n"], r["bids"]) for r in kept["rounds"]] == [(3, [0, 1, 0, 1])]
    assert kept["current"]["n"] == 4
    first.context.set_offline(False)
    second.wait_for_function(
        "id => localStorage.getItem('scorekeeper-kept-' + id) === null || "
        "JSON.parse(localStorage.getItem('scorekeeper-kept-' + id)).rounds.length === 0",
        arg=game.game_id,
    )
    assert round_saves(server, game.game_id) == [1, 2, 3]


def test_a_kept_round_the_server_refuses_is_kept_until_the_table_drops_it(server, phones):
    """Another phone abandoned the game while the table was offline: the kept round is
    refused with the reason, kept, and dropped only when the table says so."""
    game = game_after_two_rounds(server)
    page = phones.open("table")
    open_table(page, server, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    offline_round(page, [(3, 1), (0, 0), (1, 1), (2, 0)], {3: 1, 0: 1, 1: 1})
    Table(Visitor(server.url)).post(game, "abandon", {})
    page.context.set_offline(False)
    refused = panel(page).locator(".conflict")
    expect(refused).to_contain_text("Round 3 was not saved:")
    expect(refused).to_contain_text("Round 3 is not the round being played.")
    expect(panel(page).locator(".waiting-count")).to_have_text("1 round not sent yet")
    refused.get_by_role("button", name="Drop ours").click()
    expect(panel(page)).to_have_count(0, timeout=10_000)
    expect(page.locator("#table")).to_contain_text("This game was abandoned")
    assert stored_rounds(server, game.game_id).keys() == {1, 2}


def test_a_game_with_hidden_bids_says_offline_that_it_needs_the_server(server, phones):
    """Hidden bids are sealed by the server: offline the table keeps its screen and entries
    for a retry (as before) and says why it cannot go on alone."""
    game = Table(Visitor(server.url)).start_game(NAMES, rounds=5, bid_reveal="hidden")
    page = phones.open("table")
    open_table(page, server, game)
    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    status = page.locator("#net-status")
    expect(status).to_contain_text("Not saved: no connection")
    expect(status).to_contain_text("Hidden and secret bids need the server")
    expect(panel(page)).to_have_count(0)
    page.context.set_offline(False)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(page.locator("#table .all-bids")).to_be_visible()


def test_without_javascript_nothing_changes(server, phones):
    """The offline keeping is the script's: without it the table's forms post as before, and
    a save that cannot reach the server is the browser's own error, nothing kept."""
    game = game_after_two_rounds(server)
    page = phones.open("no script", java_script_enabled=False)
    page.goto(f"{server.url}/games/{game.game_id}")
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(page.locator("#table .bid-form")).to_be_visible()
    page.locator("#table .bid-buttons").get_by_role("button", name="1", exact=True).click()
    expect(page.locator("#table .bid-list li.done")).to_have_count(1)
    assert page.locator("script[data-offline-js], #offline-table").count() == 0
    assert stored_rounds(server, game.game_id).keys() == {1, 2}
    assert change_actions(server, game.game_id)[-2:] == [("set_trump", 3), ("bid", 3)]


SHOTS = Path("test-artifacts/offline")


@pytest.mark.parametrize(
    ("size", "scheme", "locale"),
    [
        ({"width": 390, "height": 844}, "light", "en-GB"),
        ({"width": 390, "height": 844}, "dark", "de-DE"),
        ({"width": 320, "height": 568}, "light", "de-DE"),
        ({"width": 320, "height": 568}, "dark", "en-GB"),
    ],
    ids=["390-light-en", "390-dark-de", "320-light-de", "320-dark-en"],
)
def test_screenshots_of_the_offline_table(server, phones, size, scheme, locale):
    """The offline state (a forbidden last bid), the waiting count and a conflict, for a
    person to look at: two phone sizes, light and dark, English and German."""
    game = game_after_two_rounds(server)
    page = phones.open("table", viewport=size, color_scheme=scheme, locale=locale)
    page.goto(f"{server.url}/games/{game.game_id}")
    plan_fetched(page, game)
    name = f"{size['width']}-{scheme}-{locale[:2]}"
    SHOTS.mkdir(parents=True, exist_ok=True)

    def shot(what: str) -> None:
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"{what}-{name}.png"))

    page.context.set_offline(True)
    page.locator("#table .trump-form button.suit-hearts").first.click()
    expect(panel(page)).to_be_visible(timeout=15_000)
    panel(page).locator(".trump-form button.suit-hearts").first.click()
    for value in (1, 0, 1):
        tap_bid(page, value)
    expect(panel(page).locator(".forbidden-reason")).to_be_visible()
    shot("offline-forbidden-bid")
    tap_bid(page, 0)
    tap_tricks(page, {3: 1, 0: 1, 1: 1})
    panel(page).locator(".save-row button.primary").click()
    expect(panel(page).locator(".waiting-count")).to_be_visible()
    shot("waiting-count")
    Table(Visitor(server.url)).play_round(game, [1, 0, 0, 1], [1, 0, 1, 1])
    page.context.set_offline(False)
    expect(panel(page).locator(".conflict")).to_be_visible(timeout=10_000)
    shot("conflict")
