"""Every page state on a small phone (tests/browser/page_states.py): nothing scrolls sideways at
320, 390 or 412 px, every tap target is at least 44 px, each page has its <h1>, Undo and the
score sheet are on the first screen of every table step, axe-core (through
axe-playwright-python) finds no violation of any impact, best practices included, in light
and dark; and the focus ring stands out from the page in light and dark."""

import re

import pytest
from axe_playwright_python.base import AxeResults
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from tests.browser.page_states import build_page_states, open_state

# Every control a finger can aim at. A radio or checkbox inside its label is as large as the
# label (the label is what is tapped); what is hidden or out of the tab order is not counted.
SMALL_TARGETS = """minimum => {
  const small = [];
  const controls = document.querySelectorAll(
    'a[href], button, summary, select, textarea, input:not([type=hidden]), label.chip');
  for (const el of controls) {
    if (el.closest('.visually-hidden, [hidden], [aria-hidden="true"], [tabindex="-1"]')) continue;
    const target = el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')
      ? el.closest('label') : el;
    const box = target.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.width < minimum || box.height < minimum) {
      const words = (target.textContent || el.value || '').trim().replace(/\\s+/g, ' ');
      small.push(`${el.tagName.toLowerCase()} "${words.slice(0, 30)}" ` +
                 `${Math.round(box.width)}x${Math.round(box.height)}`);
    }
  }
  return small;
}"""


def in_first_screen(page: Page, locator) -> str | None:
    """Why ``locator`` is not wholly on the first screen, or None when it is."""
    if not locator.count() or (box := locator.bounding_box()) is None:
        return "not shown"
    if box["y"] < 0 or box["y"] + box["height"] > page.viewport_size["height"]:
        return f"at y={box['y']:.0f}..{box['y'] + box['height']:.0f}"
    return None


SIZES = ((320, 568), (390, 844), (412, 915))
AXE_SIZE = (390, 844)  # the phone of the other browser tests
SCHEMES = ("light", "dark")


def axe_violations(page: Page, axe: Axe) -> dict[str, str]:
    """axe's report of the page as it is, in each colour scheme (switched in place: only the
    media query changes, the page and its state stay); axe is put into the page once."""
    page.evaluate(axe.axe_script)
    found = {}
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
        response = page.evaluate("axe.run({resultTypes: ['violations']})")
        if response["violations"]:
            found[scheme] = AxeResults(response).generate_report()
    page.emulate_media(color_scheme=SCHEMES[0])
    return found


def test_every_page_fits_has_44_px_targets_a_heading_and_no_axe_violation(phone, live_server):
    """Each state is opened once and looked at in every size (a resize lays the page out
    anew, as a reload would); at 390 px axe looks at it in light and in dark."""
    page = phone(color_scheme=SCHEMES[0])
    axe = Axe()
    problems = []
    for state in build_page_states(live_server):
        page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
        open_state(page, live_server.url, state)
        if page.locator("h1").count() != 1:
            problems.append(f"{state.name}: not one <h1>")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            at = f"{state.name} at {width} px"
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            if overflow > 0:
                problems.append(f"{at}: scrolls sideways by {overflow} px")
            problems += [f"{at}: {small}" for small in page.evaluate(SMALL_TARGETS, 44)]
            if state.table_step:
                bar = page.locator(".action-bar")
                for control in (
                    bar.get_by_role("button", name="Undo"),
                    bar.get_by_role("link", name="Score sheet"),
                ):
                    where = in_first_screen(page, control)
                    if where:
                        problems.append(f"{at}: {control} {where}")
            if (width, height) == AXE_SIZE:
                for scheme, report in axe_violations(page, axe).items():
                    problems.append(f"--- axe, {state.name} ({scheme}):\n{report}")
    assert not problems, "\n".join(problems)


def rgb(color: str) -> tuple[float, ...]:
    return tuple(float(part) for part in re.findall(r"[\d.]+", color)[:3])


def luminance(color: tuple[float, ...]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(value) for value in color)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(rgb(one)), luminance(rgb(other))), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_focus_ring_stands_out_from_the_page(phone, live_server, scheme):
    page: Page = phone(color_scheme=scheme)
    page.goto(live_server.url + "/")
    page.keyboard.press("Tab")  # the brand, by keyboard: the ring shows
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    width = page.evaluate("getComputedStyle(document.activeElement).outlineWidth")
    assert float(width.removesuffix("px")) >= 3
    for surface in ("body", ".card, .step, .setup-section"):
        found = page.locator(surface)
        if not found.count():
            continue
        background = found.first.evaluate("element => getComputedStyle(element).backgroundColor")
        assert contrast(ring, background) >= 3, (scheme, ring, background)
