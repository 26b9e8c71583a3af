"""axe-core (through axe-playwright-python) on every page state, in light and dark: no
violation of any impact, best practices included."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.page_states import build_page_states, open_state


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_state_has_an_accessibility_violation(phone, live_server, scheme):
    page = phone(color_scheme=scheme)
    axe = Axe()
    found = {}
    for state in build_page_states(live_server):
        open_state(page, live_server.url, state)
        assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
        results = axe.run(page)
        if results.violations_count:
            found[state.name] = results.generate_report()
    assert not found, "\n".join(f"--- {name}\n{report}" for name, report in found.items())
