"""Six phones on a fresh server (as `make run` starts it), each opening New game before
anything is stored, each setting up and starting a game of its own: not one is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.phones import Phones, add_player, no_problem_shown
from tests.real_server import served

pytestmark = pytest.mark.real_server

PASSWORD = "Zauberer 7"
TABLES = [
    ("Ann", "Bob", "Cy"),
    ("Dora", "Emil", "Fay"),
    ("Gus", "Hana", "Ivo"),
    ("Jo", "Kai", "Lea"),
    ("Mia", "Ned", "Ola"),
    ("Pia", "Quin", "Rui"),
]


@pytest.mark.parametrize("password", [None, PASSWORD], ids=["open", "password"])
def test_six_fresh_phones_each_start_a_game(browser: Browser, tmp_path: Path, password):
    phones = Phones(browser)
    try:
        with served(tmp_path / "instance", password=password) as server:
            pages = [phones.open(f"phone {number + 1}") for number in range(len(TABLES))]
            for page in pages:
                page.goto(server.url + "/games/new")
                if password:
                    page.get_by_label("Password").fill(PASSWORD)
                    page.get_by_role("button", name="Enter").click()
                expect(page.get_by_role("heading", name="New game")).to_be_visible()
            games, refused = set(), []
            for number, (page, names) in enumerate(zip(pages, TABLES, strict=True), start=1):
                try:
                    for name in names:
                        add_player(page, phones, name)
                    expect(page.locator(".setup-seat-name")).to_have_text(list(names))
                    page.get_by_role("button", name="Start game").click()
                    expect(page.locator("#table")).to_be_visible()
                    no_problem_shown(page, phones)
                except pytest.fail.Exception as problem:
                    refused.append(f"phone {number}: {str(problem).splitlines()[0]}")
                    continue
                games.add(page.locator("#table").get_attribute("data-game"))
            assert refused == [], f"{len(refused)} of {len(TABLES)} phones refused"
            assert len(games) == len(TABLES)
            assert phones.refused == []
            pages[0].goto(server.url + "/history/")
            expect(pages[0].locator(".game-row")).to_have_count(len(TABLES))
    finally:
        phones.close()
