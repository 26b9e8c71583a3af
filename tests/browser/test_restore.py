"""Restoring a backup in the browser: the upload goes through htmx with Restore disabled and
a "working" note while it runs, and ends on the backup page with what was added."""

from playwright.sync_api import expect

from scorekeeper import exchange
from scorekeeper.extensions import db
from tests.factories import make_game


def test_a_backup_restores_through_the_page_with_a_working_state(live_server, page, tmp_path):
    with live_server.app.app_context():
        game = make_game(["Ann", "Bob", "Cy"])
        backup = "".join(exchange.backup_chunks())
        db.session.delete(game)  # so that the backup has a game to add
        db.session.commit()
    path = tmp_path / "backup.json"
    path.write_text(backup)

    page.goto(f"{live_server.url}/history/backup")
    working = page.locator("#restore-working")
    expect(working).to_have_css("opacity", "0")
    page.set_input_files("input[type=file]", str(path))
    seen: dict[str, object] = {}

    def while_sent(request) -> None:
        if request.method == "POST":
            seen["disabled"] = page.evaluate(
                "document.querySelector('form[enctype] button[type=submit]').disabled"
            )
            # The note fades in (opacity 0 → 1) while htmx marks the request on the form.
            seen["working"] = page.evaluate(
                "document.querySelector('#restore-working').closest('.htmx-request') !== null"
            )

    page.on("request", while_sent)
    page.get_by_role("button", name="Restore").click()
    expect(page.get_by_role("status").filter(has_text="Restored: 1 game added")).to_be_visible()
    assert seen == {"disabled": True, "working": True}
    assert page.url.endswith("/history/backup")
