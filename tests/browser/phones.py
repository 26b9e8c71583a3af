"""Phones for the tests on the real server: each a browser context of its own, every refusal
it meets kept for the failure message."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.browser.conftest import new_context


class Phones:
    """The phones of one test; :meth:`close` closes them all."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.refused: list[str] = []

    def open(self, name: str, viewport: dict | None = None, **options: object) -> Page:
        context = new_context(self.browser, **options)
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        if viewport:
            page.set_viewport_size(viewport)
        # "Page expired" is a 400; a crash a 500.
        page.on(
            "response",
            lambda response: (
                response.status in (400, 403, 500)
                and self.refused.append(
                    f"{name}: {response.status} {response.request.method} {response.url}"
                )
            ),
        )
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def no_problem_shown(page: Page, phones: Phones) -> None:
    """The phone's status box (where a refused or failed request is explained) is hidden."""
    box = page.locator("#net-status")
    if box.is_visible():
        pytest.fail(f"the phone says {box.inner_text()!r}; refused: {phones.refused}")


def add_player(page: Page, phones: Phones, name: str) -> None:
    """Type a name on the setup page and tap Add: the seat appears, or the test fails with
    what the phone says."""
    count = page.locator(".setup-seat").count()
    page.get_by_placeholder("New player’s name").fill(name)
    page.get_by_role("button", name="Add", exact=True).click()
    page.wait_for_function(
        f"() => document.querySelectorAll('.setup-seat').length > {count}"
        " || !document.getElementById('net-status').hidden"
    )
    no_problem_shown(page, phones)


def tap_and_wait(table: Page, control: Locator) -> None:
    """Tap a control of the table screen and wait for its answer to be swapped in (the next
    tap must not land on the screen it replaces)."""
    version = table.locator("#table").get_attribute("data-version")
    control.click()
    expect(table.locator("#table")).not_to_have_attribute("data-version", version)
