"""The screen stays awake during a game on plain HTTP too: where the Screen Wake Lock is missing
(not a secure page), the first tap starts a tiny muted looping video, stopped with the game.

The phone opens the app as http://wizard.test:PORT/ — a name Chromium maps to 127.0.0.1
(--host-resolver-rules), so the page is not a secure context and no traffic leaves the machine.
"""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import CHROMIUM_ARGS, PHONE, chromium_path
from tests.factories import new_game

HOST = "wizard.test"
PLAYING = "() => { const v = document.querySelector('video[data-awake]');"
PLAYING += " return !!v && !v.paused && v.currentTime > 0; }"


@pytest.fixture
def lan_phone(browser: Browser) -> Iterator[Page]:
    """A phone on the LAN: the app at a plain-HTTP address that is not localhost."""
    lan = browser.browser_type.launch(
        executable_path=chromium_path(),
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"],
    )
    context = lan.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
    lan.close()


def test_the_first_tap_starts_the_fallback_and_the_end_of_the_game_stops_it(
    lan_phone, live_server
):
    with live_server.app.app_context():
        game_id = new_game()
    port = live_server.url.rsplit(":", 1)[1]
    page = lan_phone
    page.goto(f"http://{HOST}:{port}/games/{game_id}")
    assert page.evaluate("window.isSecureContext") is False
    assert page.evaluate("'wakeLock' in navigator") is False
    assert page.locator("video").count() == 0, "nothing plays before the first tap"
    page.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
    expect(page.locator(".bid-form")).to_be_visible()
    page.wait_for_function(PLAYING)
    video = page.locator("video[data-awake]")
    assert video.evaluate("v => v.muted && v.loop && v.hasAttribute('playsinline')")
    # Still playing after the next step's swap; stopped once the game is over.
    page.locator('.bid-button[value="0"]').click()
    expect(page.locator(".bid-list .current")).to_contain_text("Cara")
    page.wait_for_function(PLAYING)
    page.locator("summary", has_text="Stop this game").click()
    page.get_by_role("button", name="Abandon the game").click()
    expect(page.get_by_role("heading", name="This game was abandoned")).to_be_visible()
    expect(video).to_have_count(0)


def test_a_secure_page_uses_the_wake_lock_and_no_video(page, live_server):
    with live_server.app.app_context():
        game_id = new_game()
    page.goto(f"{live_server.url}/games/{game_id}")  # 127.0.0.1: a secure context
    assert page.evaluate("'wakeLock' in navigator") is True
    page.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
    expect(page.locator(".bid-form")).to_be_visible()
    assert page.locator("video").count() == 0
