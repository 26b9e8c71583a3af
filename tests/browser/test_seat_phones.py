"""Three phones at one table: the table's and two players' own, each bidding for their seat."""

import gzip
import re

import brotli
import pytest
from flask import request, request_finished
from playwright.sync_api import Page, expect

from scorekeeper import gameplay, rules
from scorekeeper.extensions import db
from scorekeeper.models import Game, RoundState
from tests.browser.phones import tap_and_wait

NARROW = {"width": 320, "height": 720}


def seat_links(table: Page, url: str, game_id: int) -> dict[str, str]:
    """From the table: Live view, then a link for every player, read off the share page."""
    table.goto(f"{url}/games/{game_id}")
    table.get_by_role("link", name="Live view").click()
    make_links = table.get_by_role("button", name="Make a link for every player")
    make_links.click()
    # The click posts and the browser follows to the share page again, which offers the
    # button only while a player has no link: wait for it to go (``all()`` reads whatever
    # page is there at once, the old one's names without links included).
    expect(make_links).to_have_count(0)
    found = {}
    for item in table.locator(".phone-links li").all():
        name = item.locator("h3").inner_text()
        found[name] = item.locator("figcaption a").get_attribute("href")
    return found


def sealed_game(app, reveal: rules.BidReveal) -> int:
    """Ann, Bob and Cara (Cara deals), free bids sealed by ``reveal``; phones poll every
    second."""
    app.config["LIVE_POLL_SECONDS"] = 1
    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE, bid_reveal=reveal)
        return gameplay.create_game(["Ann", "Bob", "Cara"], 2, game_rules).id


def record_bodies(app, seen: dict[str, list[str]]) -> None:
    """Every raw response body, by the path asked (what each phone's browser receives)."""

    def record(sender, response, **extra):
        if response.direct_passthrough:
            return
        raw = response.get_data()
        coding = response.headers.get("Content-Encoding")
        if coding == "gzip":
            raw = gzip.decompress(raw)
        elif coding == "br":
            raw = brotli.decompress(raw)
        else:
            assert coding is None, coding
        seen.setdefault(request.path, []).append(raw.decode())

    request_finished.connect(record, app, weak=False)


def test_secret_bids_on_two_players_phones_stay_sealed_until_the_last_is_in(
    phone, live_server, screenshot
):
    app = live_server.app
    game_id = sealed_game(app, rules.BidReveal.SECRET)
    table, bob, cara = phone(), phone(), phone(color_scheme="dark")
    cara.set_viewport_size(NARROW)
    links = seat_links(table, live_server.url, game_id)
    screenshot(table, "seat-links-share")
    bob.goto(links["Bob"])
    cara.goto(links["Cara"])
    expect(bob.locator("#seat-pad")).to_contain_text("once the trump is turned up")

    table.goto(f"{live_server.url}/games/{game_id}")
    table.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
    # Round 1, one card: each phone gets its pad without a reload (it polls).
    expect(bob.get_by_role("button", name="1", exact=True)).to_be_visible()
    expect(cara.get_by_role("button", name="0", exact=True)).to_be_visible()
    screenshot(cara, "seat-pad-secret-320-dark")

    bodies: dict[str, list[str]] = {}
    record_bodies(app, bodies)
    bob.get_by_role("button", name="1", exact=True).click()
    expect(bob.locator(".seat-bid")).to_contain_text("1")
    expect(bob.locator("#seat-pad")).to_contain_text("Waiting for:")
    screenshot(bob, "seat-pad-sealed")
    # The table shows that Bob bid, not what; it can still enter Ann's (no phone).
    expect(table.locator(".all-bids")).to_contain_text("bid on their phone", timeout=5000)
    screenshot(table, "seat-table-sealed")
    cara.reload()
    table.reload()
    with app.app_context():
        round_ = db.session.get(Game, game_id).rounds[0]
        assert round_.state == RoundState.BIDDING
    cara_token = links["Cara"].rsplit("/", 1)[1]
    others = [
        body
        for path, answers in bodies.items()
        if not path.startswith(f"/seat/{links['Bob'].rsplit('/', 1)[1]}")
        for body in answers
    ]
    assert any(cara_token in path for path in bodies), "Cara's phone was asked"
    assert any(path == f"/games/{game_id}" for path in bodies), "the table was asked"
    # Bob bid 1 of 1 card: no answer to anyone else says so — no bid column, no "bid 1", no
    # own bid but Cara's (none yet). tests/test_seat_phones.py compares every answer byte for
    # byte between two games that differ only by the sealed bids.
    assert others
    for body in others:
        assert not re.search(r'<th scope="col" class="num">Bid</th>', body)
        assert not re.search(r"Your bid\s*:", body)
        assert not re.search(r"\bbid 1\b", body)
    assert any("bid on their phone" in body for body in others), "the table saw that Bob bid"

    cara.get_by_role("button", name="0", exact=True).click()
    expect(cara.locator(".seat-bid")).to_contain_text("0")
    table.locator(".all-bids .chip", has_text="0").first.click()
    table.get_by_role("button", name="Save bids").click()
    expect(table.locator("#table")).to_contain_text("Tricks")
    with app.app_context():
        db.session.expire_all()
        round_ = db.session.get(Game, game_id).rounds[0]
        assert round_.state == RoundState.PLAYING
        assert [entry.bid for entry in round_.entries] == [0, 1, 0]
    # Secret: revealed to nobody until the tricks are in; each phone keeps its own.
    expect(table.locator("#table")).to_contain_text("bid hidden")
    expect(bob.locator(".seat-bid")).to_contain_text("1", timeout=5000)
    screenshot(bob, "seat-pad-tricks")


@pytest.mark.parametrize("bid_rule", [rules.BidRule.PLUS_MINUS_ONE, rules.BidRule.CANADIAN])
def test_the_last_bidders_own_phone_strikes_the_forbidden_bid(
    phone, live_server, screenshot, bid_rule
):
    app = live_server.app
    app.config["LIVE_POLL_SECONDS"] = 1
    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule=bid_rule)
        game = gameplay.create_game(["Ann", "Bob", "Cara"], 0, game_rules)
        game_id = game.id
    table, bob = phone(), phone()
    links = seat_links(table, live_server.url, game_id)
    table.goto(f"{live_server.url}/games/{game_id}")
    # Round 1 (Ann deals): Bob 1, Cara 1, Ann 0; Bob makes his and leads alone.
    tap_and_wait(table, table.locator(".trump-row").first.get_by_role("button", name="Hearts"))
    for value in ("1", "1", "0"):
        tap_and_wait(
            table, table.locator(".bid-buttons").get_by_role("button", name=value, exact=True)
        )
    for seat, took in ((0, 0), (1, 1)):
        table.locator(f'label.chip:has(input[name="tricks_{seat}"][value="{took}"])').click()
    tap_and_wait(table, table.get_by_role("button", name="Save round"))
    # Round 2 (Bob deals, bids last): Cara 1, Ann 0 at the table; 2 cards, so not 1 for Bob.
    tap_and_wait(table, table.locator(".trump-row").first.get_by_role("button", name="Hearts"))
    bob.goto(links["Bob"])
    expect(bob.locator("#seat-pad")).to_contain_text("Cara bids next")
    for value in ("1", "0"):
        tap_and_wait(
            table, table.locator(".bid-buttons").get_by_role("button", name=value, exact=True)
        )
    forbidden = bob.locator(".bid-buttons button.forbidden")
    expect(forbidden).to_have_text("1")
    expect(forbidden).to_be_disabled()
    expect(bob.locator(".forbidden-reason")).to_be_visible()
    screenshot(bob, f"seat-pad-forbidden-{bid_rule}")
    bob.get_by_role("button", name="2", exact=True).click()
    expect(bob.locator(".seat-bid")).to_contain_text("2")
    expect(table.locator("#table")).to_contain_text("Tricks")
    with app.app_context():
        round_ = db.session.get(Game, game_id).rounds[1]
        assert [entry.bid for entry in round_.entries] == [0, 2, 1]


# Resolves once the table's next poll answer has been handled (swapped in or not: htmx
# fires afterOnLoad after the swap).
POLL_HANDLED = """() => new Promise(resolve => document.addEventListener("htmx:afterOnLoad",
  function handled(event) {
    if (!event.detail.requestConfig.elt.hasAttribute("data-table-poll")) return;
    document.removeEventListener("htmx:afterOnLoad", handled);
    resolve();
  }))"""


def test_a_bid_from_a_phone_keeps_the_chips_tapped_at_the_table(phone, live_server):
    """Hidden bids: the table taps Ann's and Cara's chips, then Bob bids on his own phone.
    A poll with nothing new swaps nothing; the one that brings Bob's bid in keeps the chips
    tapped but not saved yet, and they save as tapped."""
    app = live_server.app
    game_id = sealed_game(app, rules.BidReveal.HIDDEN)
    table, bob = phone(), phone()
    links = seat_links(table, live_server.url, game_id)
    bob.goto(links["Bob"])
    table.goto(f"{live_server.url}/games/{game_id}")
    table.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
    expect(table.locator(".all-bids")).to_be_visible()
    expect(bob.get_by_role("button", name="1", exact=True)).to_be_visible()

    def chip(seat: int, value: int):
        return table.locator(f'input[name="bid_{seat}"][value="{value}"]')

    table.locator('label.chip:has(input[name="bid_0"][value="1"])').click()
    table.locator('label.chip:has(input[name="bid_2"][value="0"])').click()
    table.evaluate("document.getElementById('table').dataset.tapped = 'yes'")
    # Two polls answered with the screen as it is ("not modified", the same version): kept.
    for _poll in range(2):
        table.evaluate(POLL_HANDLED)
    assert table.locator("#table").get_attribute("data-tapped") == "yes"

    bob.get_by_role("button", name="1", exact=True).click()
    expect(bob.locator(".seat-bid")).to_contain_text("1")
    # The poll brings Bob's bid in: a new screen (no mark of ours), the taps still there.
    expect(table.locator(".sealed-bid")).to_have_count(1, timeout=5000)
    expect(table.locator("#table:not([data-tapped])")).to_have_count(1)
    expect(chip(0, 1)).to_be_checked()
    expect(chip(2, 0)).to_be_checked()
    table.get_by_role("button", name="Save bids").click()
    expect(table.locator("#table")).to_contain_text("Tricks")
    with app.app_context():
        round_ = db.session.get(Game, game_id).rounds[0]
        assert [entry.bid for entry in round_.entries] == [1, 1, 0]
