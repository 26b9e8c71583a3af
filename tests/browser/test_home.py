"""The home page in a real browser at phone size."""

from playwright.sync_api import expect


def test_home_page_opens_on_a_phone_with_htmx_loaded(page, live_server, screenshot):
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="Keep score for Wizard")).to_be_visible()
    # htmx is fetched just after the first paint (the loader), which may come after "load".
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


# What started before the page first showed text, and what after (milliseconds after the
# navigation began), once the page's scripts and manifest are in.
REQUESTS_AROUND_THE_PAINT = """() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0].startTime;
  const started = performance.getEntriesByType("resource")
    .map(entry => [entry.name, entry.startTime]);
  return {
    before: started.filter(([, at]) => at < paint).map(([name]) => name),
    after: started.filter(([, at]) => at >= paint).map(([name]) => name.split("/").pop()),
    manifest: document.querySelectorAll('link[rel="manifest"]').length,
  };
}"""


def test_a_page_fetches_only_its_stylesheet_before_it_shows(page, live_server):
    """The first paint waits for one request, the stylesheet (a file under its content hash,
    then kept a year: later pages find it in the browser's cache); the script loader and the
    tab's icon are in the page, and the loader starts app.js, htmx and the manifest only once
    the page has shown its text (a slow phone network delays nothing the player reads)."""
    page.goto(live_server.url + "/games/new")
    page.wait_for_function("() => window.htmx && document.querySelector('link[rel=manifest]')")
    found = page.evaluate(REQUESTS_AROUND_THE_PAINT)
    assert [name.split("/")[-1].split(".")[0::2] for name in found["before"]] == [["app", "css"]]
    assert {name.split(".")[0] for name in found["after"]} >= {"app", "htmx"}
    assert found["manifest"] == 1
    # app.js ran (it hides the language button: the list changes the language by itself).
    expect(page.get_by_role("button", name="Change")).to_be_hidden()
