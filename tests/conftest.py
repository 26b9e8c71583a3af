"""Shared fixtures: a fresh app and database per test, on SQLite and PostgreSQL."""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from types import CodeType
from typing import Any

import jinja2
import jinja2.bccache
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from scorekeeper import ScorekeeperFlask, create_app
from scorekeeper.extensions import db

IN_CI = bool(os.environ.get("CI"))
POSTGRES_URL = os.environ.get("TEST_DATABASE_URL")

# Linux's prctl, found before any fork: a child must not load a library between fork and exec.
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
_PR_SET_PDEATHSIG = 1
_TEST_PROCESS = os.getpid()  # this test process (each pytest-xdist worker imports this file)


def ends_with_tests() -> None:
    """``preexec_fn`` of a server a test starts: it gets SIGTERM (and shuts down as on a
    host's stop) when the test process that started it ends, however that ends. A pytest
    killed by a timeout or an impatient developer skips the fixtures' teardown; its servers
    (granian and two workers each) then kept serving and spinning on a core for the rest of
    the machine's day, under later test runs and benchmarks. Kept across ``exec`` (``flask
    serve`` execs granian), not given to the server's own children (granian ends its
    workers); pytest-xdist runs tests in each worker's main thread, the one whose end
    counts. A test process already gone by then ends the child at once."""
    if _PRCTL is None:
        return
    if _PRCTL(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGTERM)) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != _TEST_PROCESS:
        os._exit(1)


def start_server(command: Sequence[str], **options: Any) -> subprocess.Popen:
    """A server process that ends with the tests (:func:`ends_with_tests`), in a process
    group of its own so that :func:`end_server` finds every process it started."""
    return subprocess.Popen(command, preexec_fn=ends_with_tests, start_new_session=True, **options)


def end_server(process: subprocess.Popen, seconds: float) -> None:
    """Stopped as a host stops it (SIGTERM), given ``seconds``; then whatever is left of
    its process group is killed (a worker granian has not ended yet)."""
    process.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(seconds)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _share_url_builders() -> None:
    """Every test makes its own app, and Werkzeug compiles two URL builders (Python source
    built as an AST, then ``compile``) for each of its ~70 routes: most of ``create_app``'s
    time. A builder depends only on the rule's parsed parts and the names of its defaults
    (the rule itself comes in as its first argument), so within the test process each is
    compiled once and shared by the apps. A rule with a default for one of its variables
    (folded in as a constant) is compiled as usual."""
    original = getattr(Rule, "_compile_builder", None)
    if original is None or getattr(original, "shared", False):
        return
    compiled: dict[tuple, Callable] = {}

    def compile_builder(rule: Rule, append_unknown: bool = True) -> Callable:
        defaults = rule.defaults or {}
        trace = tuple(rule._trace)
        if any(dynamic and name in defaults for dynamic, name in trace):
            return original(rule, append_unknown)
        key = (rule.rule, trace, tuple(map(str, defaults)), append_unknown)
        if key not in compiled:
            compiled[key] = original(rule, append_unknown)
        return compiled[key]

    compile_builder.shared = True  # type: ignore[attr-defined]
    Rule._compile_builder = compile_builder  # type: ignore[method-assign]


_share_url_builders()


class _SharedTemplateCode(jinja2.BytecodeCache):
    """The compiled code of each template, kept for every app of the test process.

    Each test's app has a template environment of its own, and compiled every page it
    rendered again (Jinja's lexer, parser, optimiser and ``compile``): a third of the time of
    tests/test_play.py, profiled. The apps' environments are made alike by ``create_app``, so
    a template's code (checked against the source's checksum) serves them all; each
    environment still makes its own template objects from it, with its own globals."""

    def __init__(self) -> None:
        self.code: dict[str, tuple[str, CodeType]] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        checksum, code = self.code.get(bucket.key, (None, None))
        if checksum == bucket.checksum:
            bucket.code = code

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.code is not None:
            self.code[bucket.key] = (bucket.checksum, bucket.code)


ScorekeeperFlask.jinja_options = {
    **ScorekeeperFlask.jinja_options,
    "bytecode_cache": _SharedTemplateCode(),
}


# Host names the tests open the app at besides localhost and 127.0.0.1: the browser tests'
# name mapped to loopback, a LAN address and a public name (TRUSTED_HOSTS refuses others).
TEST_HOSTS = ["wizard.test", "192.0.2.20", "wizard.example.org"]


def make_config(**settings: object) -> dict:
    return {
        "TESTING": True,
        "TRUSTED_HOSTS": TEST_HOSTS,
        "SECRET_KEY": "test-secret",
        "WTF_CSRF_ENABLED": False,
        # A ladder visit waits for the ladder job (in a background thread) to finish, so a
        # test reads the ladder its games make; tests of the "updating" notice set 0.
        "LADDER_WAIT_SECONDS": 60,
        "PLAYER_LADDER_WAIT_SECONDS": 60,
        **settings,
    }


@pytest.fixture
def sqlite_uri(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'test.sqlite'}"


@pytest.fixture
def postgres_schema() -> Iterator[dict]:
    """A private schema in the test PostgreSQL database, dropped afterwards."""
    if not POSTGRES_URL:
        message = "TEST_DATABASE_URL is not set: PostgreSQL leg not run"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield {
            "SQLALCHEMY_DATABASE_URI": POSTGRES_URL,
            "SQLALCHEMY_ENGINE_OPTIONS": {
                "connect_args": {"options": f"-csearch_path={schema}"},
                "pool_pre_ping": True,
            },
        }
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_config(request: pytest.FixtureRequest) -> dict:
    """Database settings for each backend under test."""
    if request.param == "sqlite":
        return {"SQLALCHEMY_DATABASE_URI": request.getfixturevalue("sqlite_uri")}
    return request.getfixturevalue("postgres_schema")


@pytest.fixture(scope="session")
def sqlite_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database with every table and nothing in them, made once per test process:
    each test's SQLite database starts as a copy of it (``create_all`` for each was most of
    a view test's set-up)."""
    path = tmp_path_factory.mktemp("tables") / "tables.sqlite"
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{path}"))
    with app.app_context():
        db.create_all()
        db.session.remove()
        db.engine.dispose()  # the last connection closed: the WAL is folded into the file
    return path


def _app_with_tables(config: dict, tables: Path | None = None) -> Iterator[Flask]:
    """The app on ``config``'s database with every table: a copy of ``tables`` for a new
    SQLite file, else made by ``create_all``."""
    uri: str = config["SQLALCHEMY_DATABASE_URI"]
    if tables is not None and uri.startswith("sqlite:///"):
        path = Path(uri.removeprefix("sqlite:///"))
        assert not path.exists(), f"{path} is not a new database"
        shutil.copyfile(tables, path)
    else:
        tables = None
    app = create_app(config)
    if tables is None:
        with app.app_context():
            db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def app(sqlite_uri: str, sqlite_tables: Path) -> Iterator[Flask]:
    """The app on a fresh SQLite database (the default for view tests)."""
    yield from _app_with_tables(make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri), sqlite_tables)


@pytest.fixture
def csrf_app(sqlite_uri: str, sqlite_tables: Path) -> Iterator[Flask]:
    """The app with CSRF protection on, as in production (for tests of the token itself)."""
    yield from _app_with_tables(
        make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri, WTF_CSRF_ENABLED=True), sqlite_tables
    )


@pytest.fixture
def db_app(database_config: dict, sqlite_tables: Path) -> Iterator[Flask]:
    """The app on a fresh database of each backend: for tests of the database itself."""
    yield from _app_with_tables(make_config(**database_config), sqlite_tables)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def ctx(app: Flask) -> Iterator[Flask]:
    """An application context of ``app`` held for the whole test.

    Test-client requests made meanwhile run inside it too (they share its ``db.session``).
    A test that needs a fresh session, e.g. to check what a request stored, opens its own.
    """
    with app.app_context():
        yield app


@pytest.fixture
def db_ctx(db_app: Flask) -> Iterator[Flask]:
    """An application context of ``db_app`` (each backend) held for the whole test."""
    with db_app.app_context():
        yield db_app


def pytest_configure(config: pytest.Config) -> None:
    """Name the screenshot folder of this run before xdist starts workers (they inherit it)."""
    if not hasattr(config, "workerinput") and not os.environ.get("SCREENSHOT_DIR"):
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        os.environ["SCREENSHOT_DIR"] = str(Path("test-artifacts") / "screenshots" / stamp)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many database tests ran on each backend, so a CI log shows both legs."""
    legs = {"sqlite": 0, "postgresql": 0}
    for report in terminalreporter.stats.get("passed", []):
        for leg in legs:
            if f"[{leg}" in report.nodeid and report.when == "call":
                legs[leg] += 1
    shots = Path(os.environ.get("SCREENSHOT_DIR", ""))
    if shots.is_dir() and any(shots.iterdir()):
        terminalreporter.write_line(f"screenshots of this run: {shots.resolve()}")
    terminalreporter.write_line(
        "database legs: "
        + ", ".join(f"{leg} {count} passed" for leg, count in legs.items())
        + ("" if POSTGRES_URL else " (TEST_DATABASE_URL not set)")
    )
