"""Renaming and merging on a small phone: the page fits, its controls are large enough, a
refusal shows next to its field, and a merge can be undone from the log."""

from datetime import timedelta

import pytest
import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Player
from tests.browser.conftest import console_errors
from tests.factories import BASE_TIME, make_game, random_rounds

ONE_ROUND = rules.GameRules(
    players=3, plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=1), bid_rule="free"
)

# Every link, button and select on the page at least 44 px both ways.
SMALL = """() => [...document.querySelectorAll('main a[href], main button, main select')]
  .map(el => [el.textContent.trim().slice(0, 20), el.getBoundingClientRect()])
  .filter(([, box]) => box.width && (box.width < 44 || box.height < 44))
  .map(([words, box]) => `${words} ${Math.round(box.width)}x${Math.round(box.height)}`)"""


def fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
    assert page.evaluate(SMALL) == []


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (320, "dark")])
def test_rename_merge_and_undo_on_a_phone(phone, live_server, screenshot, width, scheme):
    with live_server.app.app_context():
        for day, names in enumerate(
            (["Ann", "Bartholomew", "Soenke"], ["Ann", "Cordelia", "Sönke"])
        ):
            make_game(
                names,
                random_rounds(ONE_ROUND, seed=day),
                game_rules=ONE_ROUND,
                created_at=BASE_TIME + timedelta(days=day),
            )
        ids = dict(db.session.execute(sa.select(Player.name, Player.id)).all())
    page = phone(color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": 844})
    errors = console_errors(page)
    page.goto(f"{live_server.url}/players/{ids['Soenke']}")
    page.get_by_role("link", name="Rename or merge").click()

    # A refused merge: the reason next to the select, nothing stored.
    page.get_by_label("Merge into", exact=True).select_option(label="Ann")
    page.get_by_role("button", name="Merge Soenke into them").click()
    assert "Soenke and Ann played in the same game" in page.locator("#into-error").inner_text()
    fits(page)
    screenshot(page, f"roster-refused-{width}-{scheme}")

    page.get_by_label("New name").fill("Sönke")
    page.get_by_role("button", name="Save the name").click()
    assert "There is already a player named Sönke" in page.locator("#name-error").inner_text()

    page.get_by_label("Merge into", exact=True).select_option(label="Sönke")
    page.get_by_role("button", name="Merge Soenke into them").click()
    page.wait_for_url(f"**/players/{ids['Sönke']}/edit")
    assert page.get_by_role("status").inner_text() == "Soenke merged into Sönke."
    fits(page)
    screenshot(page, f"roster-merged-{width}-{scheme}")
    page.get_by_role("link", name="← Sönke").click()
    assert page.locator(".figure-value").first.inner_text() == "2"  # both games now

    page.go_back()
    page.get_by_role("button", name="Undo").click()
    assert page.get_by_role("status").inner_text() == "Undone: Soenke merged into Sönke."
    page.goto(f"{live_server.url}/players/{ids['Soenke']}")
    assert page.locator("h1").inner_text() == "Soenke"
    # The two refusals answer 422 (the browser logs that); nothing else may show up.
    assert [e for e in errors if "status of 422" not in e] == []
