"""The home page in a real browser at phone size."""

from playwright.sync_api import expect


def test_home_page_opens_on_a_phone_with_htmx_loaded(page, live_server, screenshot):
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="Keep score for Wizard")).to_be_visible()
    assert page.evaluate("window.htmx && htmx.version").startswith("2.0.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    screenshot(page, "home-light")
