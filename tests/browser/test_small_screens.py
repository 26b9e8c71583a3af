"""Every main page on a small phone: nothing scrolls sideways at 320, 390 or 412 px, each page
has its <h1>, and the focus ring stands out from the page in light and dark."""

import re

import pytest
from playwright.sync_api import Page

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.factories import make_game, new_game, random_rounds

SIX = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald")


@pytest.fixture
def pages(live_server) -> list[str]:
    """The main pages, with six long names where names are shown."""
    with live_server.app.app_context():
        six = rules.GameRules(players=6)
        playing = make_game(SIX, random_rounds(six, 8, seed=6), game_rules=six, open_round=True)
        four = rules.GameRules(players=4)
        finished = make_game(SIX[:4], random_rounds(four, 15, seed=3), game_rules=four)
        started = db.session.get(Game, new_game(SIX[:5]))
        db.session.commit()
        ids = playing.id, finished.id, started.id, started.live_token
        player_id = playing.seats[0].player_id
    game, done, fresh, token = ids
    return [
        "/",
        "/games/new",
        "/rules",
        "/offline",
        "/history/",
        f"/history/{done}",
        f"/history/{done}/replay",
        "/players/",
        f"/players/{player_id}",
        f"/games/{game}",
        f"/games/{game}/sheet",
        f"/games/{game}/rounds/1/edit",
        f"/games/{fresh}",
        f"/games/{fresh}/share",
        f"/live/{token}",
        "/no-such-page",
    ]


@pytest.mark.parametrize("width", [320, 390, 412])
def test_no_page_scrolls_sideways_and_each_has_a_heading(phone, live_server, pages, width):
    page = phone()
    page.set_viewport_size({"width": width, "height": 800})
    wide = []
    for path in pages:
        page.goto(live_server.url + path)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        if overflow > 0:
            wide.append(f"{path}: {overflow} px")
        assert page.locator("h1").count() == 1, f"{path} has no single <h1>"
    assert wide == [], f"pages that scroll sideways at {width} px"


def rgb(color: str) -> tuple[float, ...]:
    return tuple(float(part) for part in re.findall(r"[\d.]+", color)[:3])


def luminance(color: tuple[float, ...]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(value) for value in color)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(rgb(one)), luminance(rgb(other))), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_focus_ring_stands_out_from_the_page(phone, live_server, scheme):
    page: Page = phone(color_scheme=scheme)
    page.goto(live_server.url + "/")
    page.keyboard.press("Tab")  # the brand, by keyboard: the ring shows
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    width = page.evaluate("getComputedStyle(document.activeElement).outlineWidth")
    assert float(width.removesuffix("px")) >= 3
    for surface in ("body", ".card, .step, .setup-section"):
        found = page.locator(surface)
        if not found.count():
            continue
        background = found.first.evaluate("element => getComputedStyle(element).backgroundColor")
        assert contrast(ring, background) >= 3, (scheme, ring, background)
