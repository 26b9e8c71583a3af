"""Every table step on the first screen of a small phone, in every language, light and dark:
six players of 16-character names at 320×568, 360×640 and 375×667 — the step's controls (the
trump buttons; the last bidder's pad with the forbidden bid's reason; the countdown and Save)
and the bar pinned to the bottom, with nothing wider than the screen. Also: a bid made is
fixed in two taps, and every page state fits 320 px in every language, each suit's name inside
its button."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from scorekeeper import rules
from tests.browser.conftest import new_context
from tests.browser.page_states import build_page_states, open_state, setup_client
from tests.factories import new_game
from tests.play_helpers import bid, play_round, trump

SIX = (
    "Anneliese Müller",
    "Bartholomew Kent",
    "Cordelia Marquez",
    "Dmitri Volkovsky",
    "Evangeline Roche",
    "Fitzgerald Brown",
)
SIZES = [(320, 568), (360, 640), (375, 667)]
LANGUAGES = ["en", "pt-BR", "es", "it", "de", "fr"]
SCHEMES = ["light", "dark"]
# Where each step's controls are: all of them must be on the first screen, above the bar.
CONTROLS = {
    "trump": [".trump-form"],
    "bids": [".bid-form .forbidden-reason", ".bid-form .bid-buttons"],
    "tricks": [".sticky-save .countdown", ".sticky-save button.primary"],
}
BAR = ".action-bar .act"
PINNED = ".action-bar"  # the controls are shown above it, none under it


def games(live_server) -> dict[str, int]:
    """Round 2 of a ±1 game of six at each step: 9 cards at trump (a card is left to turn),
    10 cards at the last bidder's turn (the forbidden bid shown) and at the tricks."""
    nine = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 9))
    ten = rules.RoundPlan(rules.PlanKind.CUSTOM, custom=(1, 10))
    first = ([0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    with setup_client(live_server.app) as client:
        at_trump = new_game(SIX, bid_rule="plus_minus_one", plan=nine)
        play_round(client, at_trump, 1, 0, *first)
        at_bids = new_game(SIX, bid_rule="plus_minus_one", plan=ten)
        play_round(client, at_bids, 1, 0, *first)
        trump(client, at_bids, 2)
        for step in range(5):  # the dealer (seat 1) bids last
            bid(client, at_bids, 2, (2 + step) % 6, 2)
        at_tricks = new_game(SIX, bid_rule="plus_minus_one", plan=ten)
        play_round(client, at_tricks, 1, 0, *first)
        trump(client, at_tricks, 2)
        for step in range(6):
            bid(client, at_tricks, 2, (2 + step) % 6, 2 if step < 5 else 1)
    return {"trump": at_trump, "bids": at_bids, "tricks": at_tricks}


def outside(page: Page, selector: str, above: str | None = None) -> list[str]:
    """Each element of ``selector`` not wholly on the first screen (or not shown at all),
    or, with ``above``, reaching under the top of that element (the pinned bar)."""
    boxes = page.evaluate(
        """selector => Array.from(document.querySelectorAll(selector), el => {
             const box = el.getBoundingClientRect();
             return [box.top, box.bottom, box.left, box.right, box.width * box.height];
           })""",
        selector,
    )
    if not boxes:
        return [f"{selector} not shown"]
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    if above is not None:
        height = page.evaluate(
            "selector => document.querySelector(selector).getBoundingClientRect().top", above
        )
    return [
        f"{selector} at y={top:.0f}..{bottom:.0f} x={left:.0f}..{right:.0f}"
        + (f" (under {above} from y={height:.0f})" if above and bottom > height + 0.5 else "")
        for top, bottom, left, right, area in boxes
        if area == 0 or top < 0 or bottom > height + 0.5 or left < 0 or right > width + 0.5
    ]


def sideways(page: Page) -> int:
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def test_every_step_fits_the_first_screen_in_every_language(browser, live_server, screenshot):
    steps = games(live_server)
    problems = []
    for language in LANGUAGES:
        context = new_context(browser, locale=language)
        page = context.new_page()
        try:
            # Each step opened once and measured in every size (a resize lays it out anew);
            # then shot in light and dark at the smallest (the colour scheme switched in
            # place: it changes colours, not where anything is).
            for step, game_id in steps.items():
                page.emulate_media(color_scheme="light")
                page.goto(f"{live_server.url}/games/{game_id}")
                for width, height in SIZES:
                    page.set_viewport_size({"width": width, "height": height})
                    where = f"{language} {width}×{height} {step}"
                    for selector in CONTROLS[step]:
                        found = outside(page, selector, above=PINNED)
                        problems += [f"{where}: {p}" for p in found]
                    problems += [f"{where}: {p}" for p in outside(page, BAR)]
                    if (extra := sideways(page)) > 0:
                        problems.append(f"{where}: scrolls sideways by {extra} px")
                page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
                for scheme in SCHEMES:
                    page.emulate_media(color_scheme=scheme)
                    assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
                    page.screenshot(
                        path=str(screenshot.folder / f"first-{step}-{language}-{scheme}.png")
                    )
                    if (extra := sideways(page)) > 0:
                        problems.append(
                            f"{language} {scheme} {step}: scrolls sideways by {extra} px"
                        )
        finally:
            context.close()
    assert not problems, "\n".join(problems)


# Each suit's name fits its button ("Diamantes", "Karo", "Quadri" …).
SUIT_NAMES = """() => Array.from(document.querySelectorAll('.suit'), button => {
  const name = button.querySelector('.suit-name');
  if (!name) return null;
  const [inner, outer] = [name, button].map(el => el.getBoundingClientRect().width);
  return inner <= outer ? null : `${name.textContent.trim()} ${inner} px in a ${outer} px button`;
}).filter(Boolean)"""


# One test per language: each is a few seconds, and the parallel workers share them out.
@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_page_state_fits_320_px_in_every_language(browser, live_server, language):
    states = build_page_states(live_server)
    problems = []
    context = new_context(browser, locale=language)
    page = context.new_page()
    page.set_viewport_size({"width": 320, "height": 568})
    try:
        for state in states:
            open_state(page, live_server.url, state)
            if (extra := sideways(page)) > 0:
                problems.append(f"{language} {state.name}: scrolls sideways by {extra} px")
            problems += [f"{language} {state.name}: {p}" for p in page.evaluate(SUIT_NAMES)]
    finally:
        context.close()
    assert not problems, "\n".join(problems)


def test_the_first_bid_is_fixed_in_two_taps_after_everyone_has_bid(page, live_server):
    with setup_client(live_server.app) as client:
        game_id = new_game(SIX[:4], bid_rule="plus_minus_one")
        trump(client, game_id, 1)
    page.goto(f"{live_server.url}/games/{game_id}")
    for value in (1, 0, 1, 1):  # Bartholomew first; Anneliese, the dealer, last
        version = page.locator("#table").get_attribute("data-version")
        page.locator(f'.bid-form .bid-button[value="{value}"]').click()
        expect(page.locator("#table")).not_to_have_attribute("data-version", version)
    expect(page.locator(".tricks-form")).to_be_visible()
    taps = 0
    # Bartholomew's bid was 0, not 1: tap it, then tap 0.
    page.locator(".player-row", has_text="Bartholomew Kent").locator("a.bid-made").click()
    taps += 1
    expect(page.locator("#step-title")).to_contain_text("Bartholomew Kent")
    page.locator('.bid-form .bid-button[value="0"]').click()
    taps += 1
    expect(page.locator(".tricks-form")).to_be_visible()
    expect(page.locator(".player-row", has_text="Bartholomew Kent")).to_contain_text("bid 0")
    assert taps <= 2
    # The change made the dealer's 1 the forbidden bid (0 + 1 + 1 + 1 ≠ 1, but now 1 + 0 + 1 …)
    expect(page.locator(".notice.undone")).to_have_count(0)


def test_without_javascript_pages_fit_320_px_in_every_language(browser, live_server):
    """Without JavaScript the language switch keeps its button (app.js hides it, and changes
    the language on choosing): the footer wraps rather than widen the page."""
    steps = games(live_server)
    paths = ["/", "/games/new", f"/games/{steps['bids']}"]
    problems = []
    for language in LANGUAGES:
        context = new_context(browser, locale=language, java_script_enabled=False)
        page = context.new_page()
        page.set_viewport_size({"width": 320, "height": 568})
        try:
            for path in paths:
                page.goto(live_server.url + path)
                expect(page.locator(".language-switch button[type=submit]")).to_be_visible()
                if (extra := sideways(page)) > 0:
                    problems.append(f"{language} {path}: scrolls sideways by {extra} px")
        finally:
            context.close()
    assert not problems, "\n".join(problems)
