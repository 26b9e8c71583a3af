"""Installable: settings from the environment, where the files are, and the wheel end to end.

The slow test builds the wheel, installs it into a fresh virtual environment, seeds an
instance with the installed app's own command line and serves it with `flask serve` from a folder
outside the checkout, then asks every kind of page for a 200.
"""

import http.client
import importlib.metadata
import importlib.util
import json
import os
import re
import site
import socket
import subprocess
import sys
import time
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from scorekeeper import config, create_app, minified, rules
from scorekeeper.extensions import db
from tests.conftest import end_server, make_config, start_server
from tests.factories import make_game

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]

# --------------------------------------------------------------------------------------------
# Settings from the environment
# --------------------------------------------------------------------------------------------


@pytest.fixture
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No setting from the caller's environment; the instance folder in a temporary folder."""
    for name in list(os.environ):
        if name.startswith("SCOREKEEPER_") or name in config.BARE_SETTINGS:
            monkeypatch.delenv(name)
    instance = tmp_path / "instance"
    monkeypatch.setenv("SCOREKEEPER_INSTANCE", str(instance))
    return instance


def test_prefixed_environment_variables_are_flask_settings(clean_environment, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_LIVE_POLL_SECONDS", "5")
    monkeypatch.setenv("SCOREKEEPER_MAX_CONTENT_LENGTH", "1048576")
    monkeypatch.setenv("SCOREKEEPER_SQLALCHEMY_ENGINE_OPTIONS__pool_pre_ping", "false")
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "from-prefixed-env")
    app = create_app()
    assert app.config["LIVE_POLL_SECONDS"] == 5
    assert app.config["MAX_CONTENT_LENGTH"] == 1048576
    assert app.config["SQLALCHEMY_ENGINE_OPTIONS"] == {"pool_pre_ping": False}
    assert app.config["SECRET_KEY"] == "from-prefixed-env"
    assert "INSTANCE" not in app.config, "SCOREKEEPER_INSTANCE names a folder, not a setting"
    assert app.instance_path == str(clean_environment)


def test_passwords_and_urls_stay_text_even_when_they_look_like_json(
    clean_environment, monkeypatch
):
    monkeypatch.setenv("SCOREKEEPER_ACCESS_PASSWORD", "1234")
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "true")
    app = create_app()
    assert app.config["ACCESS_PASSWORD"] == "1234"
    assert app.config["SECRET_KEY"] == "true"


def test_prefixed_database_url_wins_over_the_bare_one(clean_environment, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@bare/wizard")
    assert create_app().config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://u:p@bare/wizard"
    monkeypatch.setenv("SCOREKEEPER_DATABASE_URL", "postgresql://u:p@prefixed/wizard")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://u:p@prefixed/wizard"
    assert "DATABASE_URL" not in app.config


def test_bare_access_password_still_works(clean_environment, monkeypatch):
    monkeypatch.setenv("ACCESS_PASSWORD", "0000")
    assert create_app().config["ACCESS_PASSWORD"] == "0000"


def test_test_config_ignores_the_environment(clean_environment, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_LIVE_POLL_SECONDS", "9")
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI="sqlite://"))
    assert "LIVE_POLL_SECONDS" not in app.config


# --------------------------------------------------------------------------------------------
# Where the files are
# --------------------------------------------------------------------------------------------


def test_checkout_uses_the_repository_folders(monkeypatch):
    monkeypatch.delenv("SCOREKEEPER_INSTANCE", raising=False)
    assert config.in_checkout()
    assert config.instance_path() == str(PROJECT_ROOT / "instance")
    assert config.resource_folder("templates") == str(PROJECT_ROOT / "templates")
    assert config.resource_folder("static") == str(PROJECT_ROOT / "static")


def test_instance_variable_may_be_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCOREKEEPER_INSTANCE", "data")
    assert config.instance_path() == str(tmp_path / "data")


def test_installed_app_keeps_its_instance_in_the_users_data_folder(tmp_path, monkeypatch):
    site_packages = tmp_path / "lib" / "site-packages"
    (site_packages / "scorekeeper" / "templates").mkdir(parents=True)
    monkeypatch.setattr(config, "PACKAGE_DIR", site_packages / "scorekeeper")
    monkeypatch.setattr(config, "PROJECT_ROOT", site_packages)
    monkeypatch.delenv("SCOREKEEPER_INSTANCE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert not config.in_checkout()
    assert config.resource_folder("templates") == str(site_packages / "scorekeeper" / "templates")

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert config.instance_path() == str(tmp_path / "xdg" / "wizard-scorekeeper")
    for ignored in ("", "relative/data"):  # the XDG spec: unset, empty or relative
        monkeypatch.setenv("XDG_DATA_HOME", ignored)
        expected = tmp_path / "home" / ".local" / "share" / "wizard-scorekeeper"
        assert config.instance_path() == str(expected)


# --------------------------------------------------------------------------------------------
# The version
# --------------------------------------------------------------------------------------------


def test_footer_shows_the_app_version(client):
    assert re.fullmatch(r"\d+(\.\d+)+\S*", config.app_version())
    page = client.get("/").get_data(as_text=True)
    footer = re.search(r"<footer[^>]*>(.*?)</footer>", page, re.S)
    assert footer is not None
    assert config.app_version() in footer.group(1)


def test_version_falls_back_to_pyproject_without_metadata(monkeypatch):
    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert config.app_version.__wrapped__() == VERSION


# --------------------------------------------------------------------------------------------
# The wheel, installed and served from elsewhere
# --------------------------------------------------------------------------------------------

THREE = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=3), bid_rule="free")
ROUNDS = [((1, 0, 0), (1, 0, 0)), ((0, 1, 1), (0, 2, 0)), ((2, 0, 2), (2, 0, 1))]


@dataclass
class Installed:
    wheel: Path
    python: Path
    home: Path
    run_dir: Path
    env: dict[str, str]

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        result = subprocess.run(
            [str(self.python), *args],
            cwd=self.run_dir,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
        return result.stdout


def run_quietly(*command: str | Path) -> None:
    result = subprocess.run(
        [str(part) for part in command],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"


def build_wheel(out: Path) -> Path:
    """Build the wheel from the working tree; offline when hatchling is here (test extras)."""
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    run_quietly(
        sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", out, "."
    )
    (wheel,) = out.glob("wizard_scorekeeper-*.whl")
    return wheel


def isolated_environment(home: Path, instance: Path) -> dict[str, str]:
    """This environment without anything that points into the checkout or configures the app."""
    dropped = ("PYTHON", "FLASK_", "SCOREKEEPER_", "VIRTUAL_ENV", "COV_CORE_", "GUNICORN_")
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(dropped) and name not in config.BARE_SETTINGS
    }
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    env["SCOREKEEPER_INSTANCE"] = str(instance)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel installed into a fresh venv, which borrows the test venv's dependencies.

    The venv gets the wheel alone (``--no-deps``, no index: nothing is downloaded) and a
    ``.pth`` line naming this interpreter's site-packages for Flask and the rest. A path
    line in a ``.pth`` file adds the folder without running the ``.pth`` files inside it,
    so the checkout's editable install stays out and ``scorekeeper`` comes from the wheel.
    """
    root = tmp_path_factory.mktemp("installed")
    wheel = build_wheel(root / "dist")
    venv = root / "venv"
    run_quietly(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    pip = (sys.executable, "-m", "pip", "--python", python)
    run_quietly(*pip, "install", "-q", "--no-deps", "--no-index", wheel)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    borrowed = [path for path in site.getsitepackages() if Path(path).is_dir()]
    (Path(purelib) / "zz_test_dependencies.pth").write_text("\n".join(borrowed) + "\n")
    home = root / "home"
    run_dir = root / "elsewhere"
    run_dir.mkdir()
    env = isolated_environment(home, root / "instance")
    return Installed(wheel=wheel, python=python, home=home, run_dir=run_dir, env=env)


def check_wheel_contents(path: Path) -> None:
    """The package, its templates, static files and migrations; nothing else of the checkout."""
    with zipfile.ZipFile(path) as wheel:
        names = set(wheel.namelist())
        (metadata,) = (name for name in names if name.endswith(".dist-info/METADATA"))
        headers = wheel.read(metadata).decode()
    expected = {
        "scorekeeper/__init__.py",
        "scorekeeper/templates/base.html",
        "scorekeeper/static/app.css",
        "scorekeeper/static/vendor/htmx.min.js",
        "scorekeeper/migrations/alembic.ini",
        "scorekeeper/migrations/env.py",
        "scorekeeper/migrations/script.py.mako",
    }
    assert expected <= names
    for folder in ("templates", "static"):
        files = [p for p in (PROJECT_ROOT / folder).rglob("*") if p.is_file()]
        assert {f"scorekeeper/{p.relative_to(PROJECT_ROOT).as_posix()}" for p in files} <= names
    assert any(re.fullmatch(r"scorekeeper/migrations/versions/\w+\.py", n) for n in names)
    # The build compiles the translation catalogues into the wheel (hatch_build.py).
    for language in ("pt", "es", "it", "de", "fr"):
        assert f"scorekeeper/translations/{language}/LC_MESSAGES/messages.mo" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    stray = [n for n in names if n.startswith(("wsgi", "tests/", "bench/")) or "__pycache__" in n]
    assert stray == []
    assert "License-Expression: MIT" in headers
    assert f"Version: {VERSION}" in headers


def check_installed_paths(installed: Installed) -> None:
    """The installed app uses its bundled files and never keeps data in site-packages."""
    probe = (
        "import json, scorekeeper; app = scorekeeper.create_app(); print(json.dumps({"
        "'package': scorekeeper.__file__, 'templates': app.template_folder, "
        "'static': app.static_folder, 'instance': app.instance_path, "
        "'version': app.jinja_env.globals['app_version']}))"
    )
    found = json.loads(installed.run("-c", probe))
    package = Path(found["package"]).parent
    assert package.parent.name == "site-packages"
    assert str(package).startswith(str(installed.python.parent.parent))
    assert found["templates"] == str(package / "templates")
    assert found["static"] == str(package / "static")
    assert found["instance"] == installed.env["SCOREKEEPER_INSTANCE"]
    assert found["version"] == VERSION

    env = {k: v for k, v in installed.env.items() if k != "SCOREKEEPER_INSTANCE"}
    found = json.loads(installed.run("-c", probe, env=env))
    assert found["instance"] == str(installed.home / "data" / "wizard-scorekeeper")


def seed_backup(path: Path) -> dict:
    """A backup of a finished game and a game in progress, from the checkout's ``export``."""
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{path.with_suffix('.db')}"))
    with app.app_context():
        db.create_all()
        make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE)
        make_game(["Di", "Ann", "Éve"], ROUNDS[:1], game_rules=THREE)
    result = app.test_cli_runner().invoke(args=["export", "--output", str(path)])
    assert result.exit_code == 0, result.output
    with app.app_context():
        db.engine.dispose()
    return json.loads(path.read_text(encoding="utf-8"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def served(installed: Installed) -> Iterator[tuple[int, dict]]:
    """The installed app on a seeded instance, served as `make run` serves it (`flask serve`)
    on a loopback port."""
    backup_file = installed.run_dir.parent / "backup.json"
    backup = seed_backup(backup_file)
    installed.run("-m", "flask", "--app", "scorekeeper", "db", "upgrade")
    added = installed.run("-m", "flask", "--app", "scorekeeper", "import", str(backup_file))
    assert added.startswith("2 games and 5 players added"), added
    port = free_port()
    log = (installed.run_dir.parent / "server.log").open("w")
    command = ["-m", "flask", "--app", "scorekeeper", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--workers", "1", "--threads", "2"]
    server = start_server(
        [installed.python, *command],
        cwd=installed.run_dir,
        env=installed.env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, (installed.run_dir.parent / "server.log").read_text()
            try:
                if get(port, "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not answer /healthz in 30 s"
            time.sleep(0.2)
        yield port, backup
    finally:
        end_server(server, 10)
        log.close()


def get(port: int, path: str) -> tuple[int, str]:
    """One GET on loopback, no proxy and no redirect followed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def first_link(page: str, pattern: str) -> str:
    found = re.search(pattern, page)
    assert found, pattern
    return found.group(0).removeprefix('href="')


@pytest.mark.slow
def test_installed_wheel_serves_every_page_from_outside_the_checkout(installed, served):
    check_wheel_contents(installed.wheel)
    check_installed_paths(installed)
    port, backup = served
    status, home = get(port, "/")
    assert status == 200
    assert f"Wizard Scorekeeper {VERSION}" in home
    table = first_link(home, r'href="/games/\d+')
    status, history = get(port, "/history/")
    assert status == 200
    past_game = first_link(history, r'href="/history/\d+')
    status, players = get(port, "/players/")
    assert status == 200
    player = first_link(players, r'href="/players/\d+')
    (in_progress,) = (game for game in backup["games"] if game["status"] == "in_progress")

    pages = [
        "/games/new",
        table,
        f"{table}/sheet",
        past_game,
        player,
        "/history/backup",
        f"/live/{in_progress['live_token']}",
        "/healthz",
        "/static/app.css",
        "/static/vendor/htmx.min.js",
        "/manifest.webmanifest",
        "/sw.js",
    ]
    answers = {path: get(port, path) for path in pages}
    assert {path: status for path, (status, _) in answers.items()} == dict.fromkeys(pages, 200)
    assert "Ann" in answers[past_game][1]
    stylesheet = (PROJECT_ROOT / "static" / "app.css").read_bytes()
    assert answers["/static/app.css"][1] == minified("app.css", stylesheet).decode()
    assert 'version:"2.0.' in answers["/static/vendor/htmx.min.js"][1]
