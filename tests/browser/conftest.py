"""Browser tests: the real app on a free local port, driven in Debian's Chromium at phone size."""

import functools
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from werkzeug.serving import make_server

from tests.conftest import IN_CI, _app_with_tables, make_config

PHONE = {"width": 390, "height": 844}
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

HERE = Path(__file__).parent

# CI shares two cores between two test workers and Chromium: give assertions some slack.
expect.set_options(timeout=10_000)

# Every page starts app.js and htmx just after its first paint (static/loader.js), which
# often comes after "load", where Playwright's navigations return. A test acts on the page
# as a player does once it is ready, so each navigation here also waits for htmx (on a page
# whose loader ran: not without JavaScript, nor on a file or error page of the browser).
APP_READY = "() => !document.documentElement.hasAttribute('data-js') || !!window.htmx"


def _waits_for_the_app(navigate: Callable[..., object]) -> Callable[..., object]:
    @functools.wraps(navigate)
    def navigate_and_wait(page: Page, *args: object, **kwargs: object) -> object:
        response = navigate(page, *args, **kwargs)
        if kwargs.get("wait_until") not in ("commit", "domcontentloaded"):
            page.wait_for_function(APP_READY)
        return response

    return navigate_and_wait


for _name in ("goto", "reload", "go_back", "go_forward"):
    setattr(Page, _name, _waits_for_the_app(getattr(Page, _name)))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``browser`` (before ``-m`` selects), so that
    ``-m "not browser"`` leaves them out and never starts Chromium.

    A ``pytestmark`` in a conftest marks nothing: only test modules can mark that way.
    """
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


def chromium_path() -> str | None:
    return shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = chromium_path()
    if executable is None:
        message = "Chromium is not installed (apt-get install chromium)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class LiveServer:
    """The app served by a real HTTP server in a thread, with CSRF on as in production."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        # shutdown() waits for the loop to look at its flag: every poll_interval (0.5 s by
        # default, half a second at the end of each browser test).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> "LiveServer":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@pytest.fixture
def live_server(sqlite_uri: str, sqlite_tables: Path) -> Iterator[LiveServer]:
    config = make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri, WTF_CSRF_ENABLED=True)
    # A copy of the empty tables, as the view tests' app (create_all was most of the set-up).
    for app in _app_with_tables(config, sqlite_tables):
        with LiveServer(app) as server:
            yield server


def new_context(browser: Browser, **options: object) -> BrowserContext:
    return browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, **options
    )


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = new_context(browser)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


@pytest.fixture
def phone(browser: Browser) -> Iterator[Callable[..., Page]]:
    """Opens another phone: ``phone(color_scheme="dark")`` is a page in a new browser context
    with these options (see :func:`new_context`); every one is closed after the test."""
    opened: list[BrowserContext] = []

    def open_phone(**options: object) -> Page:
        opened.append(new_context(browser, **options))
        return opened[-1].new_page()

    yield open_phone
    for context in opened:
        context.close()


def console_errors(page: Page) -> list[str]:
    """The errors the page logs to its console from now on (a Content-Security-Policy
    violation, an inline style or script, shows up as one)."""
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    return errors


@pytest.fixture
def screenshot() -> "Screenshotter":
    # Named per run by tests/conftest.py (or set SCREENSHOT_DIR); the run prints where it is.
    return Screenshotter(Path(os.environ.get("SCREENSHOT_DIR", "test-artifacts/screenshots")))


class Screenshotter:
    """Writes full-page screenshots into the run's screenshot folder for a person to look at."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, page: Page, name: str) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path
