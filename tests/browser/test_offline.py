"""The offline notice's "Try again" brings the player back to the page they were on."""

from playwright.sync_api import expect


def test_try_again_returns_to_the_page_that_could_not_be_reached(page, context, live_server):
    page.goto(live_server.url + "/")
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # from now on the worker controls the page
    context.set_offline(True)
    page.goto(live_server.url + "/players/?period=all")
    expect(page.get_by_role("heading", name="No connection to the score keeper")).to_be_visible()
    retry = page.get_by_role("link", name="Try again")
    # The notice stands at the address asked for; its link (no script needed) points there.
    assert page.evaluate("location.pathname + location.search") == "/players/?period=all"
    assert retry.evaluate("link => link.href") == page.url
    retry.click()  # still offline: the notice again, at the same address
    expect(page.get_by_role("heading", name="No connection to the score keeper")).to_be_visible()
    context.set_offline(False)
    page.get_by_role("link", name="Try again").click()
    expect(page.get_by_role("heading", name="Players", exact=True)).to_be_visible()
    assert page.evaluate("location.pathname + location.search") == "/players/?period=all"
