"""Screenshots of every page state at 320 and 390 px, light and dark, for a person to look at
(``SCREENSHOT_ALL=1``; they land in the run's screenshot folder, see conftest.py). Not part of
the default run: about a hundred full-page screenshots take a while."""

import os

import pytest

from tests.browser.page_states import build_page_states, open_state

SIZES = {320: {"width": 320, "height": 568}, 390: {"width": 390, "height": 844}}


@pytest.mark.skipif(not os.environ.get("SCREENSHOT_ALL"), reason="SCREENSHOT_ALL=1 takes them")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_every_page_state(phone, live_server, screenshot, scheme):
    states = build_page_states(live_server)
    for width, size in SIZES.items():
        page = phone(color_scheme=scheme)
        page.set_viewport_size(size)
        for state in states:
            open_state(page, live_server.url, state)
            # The first screen as the phone shows it, and the whole page.
            folder = screenshot.folder
            folder.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(folder / f"all-{state.name}-{width}-{scheme}-screen.png"))
            screenshot(page, f"all-{state.name}-{width}-{scheme}")
