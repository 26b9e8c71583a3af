"""The home page in a real browser at phone size."""

from playwright.sync_api import expect


def test_home_page_opens_on_a_phone_with_htmx_loaded(page, live_server, screenshot):
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="Keep score for Wizard")).to_be_visible()
    # htmx is fetched just after the first paint (app.js), which may come after "load".
    page.wait_for_function("() => window.htmx && window.htmx.version")
    assert page.evaluate("htmx.version").startswith("2.0.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    screenshot(page, "home-light")


def test_without_a_connection_a_page_shows_the_offline_notice(page, context, live_server):
    page.goto(live_server.url + "/")
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # from now on the worker controls the page
    context.set_offline(True)
    page.goto(live_server.url + "/history/")
    expect(page.get_by_role("heading", name="No connection to the score keeper")).to_be_visible()
    context.set_offline(False)
