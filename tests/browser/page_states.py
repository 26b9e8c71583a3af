"""Every page state a player can meet, built once per test for the checks that look at all of
them (axe, tap targets, sideways scrolling): each is an address, or an address and the taps
that lead to a state no address shows (a refused entry, the sign-in page)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from playwright.sync_api import Page, expect

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.factories import make_game, new_game, random_rounds
from tests.play_helpers import bid, play_round, trump

SIX = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald")


@dataclass(frozen=True)
class PageState:
    name: str
    path: str
    # Taps after opening ``path`` that lead to the state (None: the address is the state).
    reach: Callable[[Page], None] | None = None
    # Shown on the table screen: the bar pinned to the bottom must be in the first screen.
    table_step: bool = False
    # What shows the state is the one meant (a table step's form).
    shows: str | None = None


@contextmanager
def setup_client(app) -> Iterator:
    """The app's test client with CSRF off, to put games at a step before a phone opens them."""
    app.config["WTF_CSRF_ENABLED"] = False
    try:
        with app.app_context():
            yield app.test_client()
    finally:
        app.config["WTF_CSRF_ENABLED"] = True


def setup_refused(page: Page) -> None:
    page.locator(".setup-start-button").click()  # by its place: the same in every language
    expect(page.locator(".error-summary, [role=alert]").first).to_be_visible()


def bid_refused(page: Page) -> None:
    """The last bidder under ±1 sends the forbidden bid anyway (as a stale page could)."""
    forbidden = page.locator(".bid-button.forbidden")
    forbidden.evaluate("button => button.removeAttribute('disabled')")
    forbidden.click()
    expect(page.locator(".error-summary")).to_be_visible()


def dealer_opened(page: Page) -> None:
    page.locator(".dealer-change > summary").click()


def paper_grid(page: Page) -> None:
    """The paper sheet's grid for six long names (ten rounds), nothing typed yet."""
    for seat, name in enumerate(SIX, start=1):
        page.locator(f"#seat_{seat}").fill(name)
    page.locator("#played_on").fill("2024-03-02")
    # "Show the grid" (not the hidden default button Enter presses)
    page.locator('button[name="action"][value="check"]:not([aria-hidden])').click()
    expect(page.locator(".paper-grid")).to_be_visible()


def paper_refused(page: Page) -> None:
    """The grid sent with a bid out of range: refused next to the cell."""
    paper_grid(page)
    page.locator("#bid_2_1").fill("7")
    page.locator('button[name="action"][value="store"]').click()  # "Store the game"
    expect(page.locator("#bid_2_1-error")).to_be_visible()


def signing_in(live_server) -> Callable[[Page], None]:
    def reach(page: Page) -> None:
        live_server.app.config["ACCESS_PASSWORD"] = "table"
        try:
            page.goto(live_server.url + "/login")
            page.locator("#password").fill("wrong")
            page.locator("#password ~ button[type=submit]").click()
            expect(page.locator("#error-password")).to_be_visible()
        finally:
            live_server.app.config["ACCESS_PASSWORD"] = None

    return reach


def build_page_states(live_server) -> list[PageState]:
    """Games at every step (six long names where names are shown) and every other page."""
    app = live_server.app
    ten = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 10, 3))
    nine = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 9, 3))
    with setup_client(app) as client:
        # Round 2 of a custom plan: 10 cards, the most six players hold; at trump, bids, tricks.
        # (9 cards at trump: with 10 no card is left to turn and the trump is filled in.)
        at_trump = new_game(SIX, bid_rule="free", plan=nine)
        play_round(client, at_trump, 1, 0, [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
        at_bids = new_game(SIX, bid_rule="free", plan=ten)
        play_round(client, at_bids, 1, 0, [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
        trump(client, at_bids, 2)
        bid(client, at_bids, 2, 2, 3)
        at_tricks = new_game(SIX, bid_rule="free", plan=ten)
        play_round(client, at_tricks, 1, 0, [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
        trump(client, at_tricks, 2)
        for step in range(6):
            bid(client, at_tricks, 2, (2 + step) % 6, 2)
        hidden = new_game(SIX[:4], bid_rule="free", bid_reveal="hidden")
        trump(client, hidden, 1)
        # ±1 with 1 card: the dealer (bidding last) may not make the bids add up to 1.
        plus_minus = new_game(SIX[:3], bid_rule="plus_minus_one")
        trump(client, plus_minus, 1)
        bid(client, plus_minus, 1, 1, 0)
        bid(client, plus_minus, 1, 2, 0)
        # Played to its end through the table (so Undo has the last round to take back).
        two = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 2))
        ended = new_game(SIX[:4], bid_rule="free", plan=two)
        play_round(client, ended, 1, 0, [1, 0, 0, 0], [1, 0, 0, 0])
        play_round(client, ended, 2, 1, [0, 1, 1, 0], [0, 1, 1, 0])
        four = rules.GameRules(players=4, bid_rule=rules.BidRule.FREE)
        finished = make_game(SIX[:4], random_rounds(four, seed=3), game_rules=four)
        six = rules.GameRules(players=6, bid_rule=rules.BidRule.FREE)
        playing = make_game(SIX, random_rounds(six, 9, seed=6), game_rules=six, open_round=True)
        custom = new_game(SIX[:3], bid_rule="free", plan=ten)
        started = db.session.get(Game, new_game(SIX[:5]))
        db.session.commit()
        done, game, token = finished.id, playing.id, started.live_token
        player_id = playing.seats[0].player_id
    return [
        PageState("home", "/"),
        PageState("setup", "/games/new"),
        PageState("setup-refused", "/games/new", setup_refused),
        PageState("trump", f"/games/{at_trump}", None, True, ".trump-form"),
        PageState("dealer", f"/games/{at_trump}", dealer_opened, True, ".trump-form"),
        PageState("bids", f"/games/{at_bids}", None, True, ".bid-form"),
        PageState("bids-hidden", f"/games/{hidden}", None, True, ".all-bids"),
        PageState("bid-refused", f"/games/{plus_minus}", bid_refused, True, ".bid-form"),
        PageState("tricks", f"/games/{at_tricks}", None, True, ".tricks-form.dense"),
        PageState("finished", f"/games/{ended}", None, True, ".step.end"),
        PageState("sheet", f"/games/{game}/sheet"),
        PageState("edit-round", f"/games/{game}/rounds/1/edit"),
        PageState("plan", f"/games/{custom}/plan"),
        PageState("share", f"/games/{started.id}/share"),
        PageState("live", f"/live/{token}"),
        PageState("live-playing", f"/live/{playing.live_token}"),
        PageState("games", "/history/"),
        PageState("games-filtered", f"/history/?player={player_id}&status=finished"),
        PageState("game-history", f"/history/{done}"),
        PageState("replay", f"/history/{done}/replay"),
        PageState("backup", "/history/backup"),
        PageState("players", "/players/"),
        PageState("player", f"/players/{player_id}"),
        PageState("ladder", "/ladder/"),
        PageState(
            "paper-blank",
            "/paper/blank?"
            + "&".join(f"seat_{seat}={name}" for seat, name in enumerate(SIX, start=1))
            + "&first_dealer=0&plan=standard&bid_rule=plus_minus_one",
        ),
        PageState("paper-entry", "/paper/new"),
        PageState("paper-grid", "/paper/new", paper_grid),
        PageState("paper-refused", "/paper/new", paper_refused),
        PageState("paper-sheet", f"/paper/games/{done}"),
        PageState("rules", "/rules"),
        PageState("sign-in", "/", signing_in(live_server)),
        PageState("not-found", "/no-such-page"),
        PageState("offline", "/offline"),
    ]


def open_state(page: Page, base_url: str, state: PageState) -> None:
    page.goto(base_url + state.path)
    if state.reach is not None:
        state.reach(page)
    if state.shows is not None:
        expect(page.locator(state.shows)).to_have_count(1)
