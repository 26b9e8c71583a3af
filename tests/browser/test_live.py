"""The live view on a second phone follows the game by itself."""

from flask import request, request_finished
from playwright.sync_api import expect

from scorekeeper import gameplay, rules
from scorekeeper.extensions import db
from scorekeeper.models import Game


def test_the_live_view_updates_itself_and_polls_with_304s(phone, live_server, screenshot):
    live_server.app.config["LIVE_POLL_SECONDS"] = 1
    with live_server.app.app_context():
        game = gameplay.create_game(["Ann", "Bob", "Cara"], 0, rules.GameRules(players=3))
        game_id, token = game.id, game.live_token
    table, watcher = phone(), phone(color_scheme="dark")
    statuses: list[int] = []

    def record(sender, response, **extra):
        if request.path.endswith("/board"):
            statuses.append(response.status_code)

    request_finished.connect(record, live_server.app)

    table.goto(f"{live_server.url}/games/{game_id}")
    table.get_by_role("link", name="Live view").click()
    live_link = table.locator(".qr figcaption a").get_attribute("href")
    assert live_link.endswith(f"/live/{token}")
    watcher.goto(live_link)
    expect(watcher.locator("#live-board")).to_contain_text("not turned yet")
    watcher.evaluate("window.boardBefore = document.getElementById('live-board')")
    watcher.wait_for_timeout(2500)
    assert 304 in statuses, "an unchanged poll is answered with 304"
    assert watcher.evaluate("document.getElementById('live-board') === window.boardBefore"), (
        "an unchanged board is not redrawn"
    )

    table.goto(f"{live_server.url}/games/{game_id}")
    table.locator(".trump-row").first.get_by_role("button", name="Hearts").click()
    expect(watcher.locator("#live-board")).to_contain_text("♥ Hearts", timeout=5000)
    # The symbol is for the eyes; a screen reader reads the name only.
    expect(watcher.locator("#live-board .trump .sym")).to_have_attribute("aria-hidden", "true")
    screenshot(watcher, "live-dark")
    with live_server.app.app_context():
        assert db.session.get(Game, game_id).version == 2
    request_finished.disconnect(record, live_server.app)
