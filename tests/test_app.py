"""The application factory, configuration, instance folder and health check."""

import base64
import hashlib
import os
import re
import shutil
import stat

import pytest

from scorekeeper import create_app
from scorekeeper.config import database_url
from tests.factories import new_game


def test_healthz_answers_ok_after_touching_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.data == b"ok\n"
    assert response.headers["Cache-Control"] == "no-store"


def test_home_page_says_what_the_app_does_and_loads_htmx(client):
    page = client.get("/").get_data(as_text=True)
    assert "Keep score for Wizard" in page
    assert 'name="viewport"' in page
    assert re.search(r'/static/vendor/htmx\.min\.[0-9a-f]{12}\.js"', page)
    assert "<script>" not in page, "an inline script without its hash breaks the policy"


def sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_pages_carry_a_content_security_policy_without_inline_script(client):
    response = client.get("/")
    page = response.get_data(as_text=True)
    policy = response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in policy
    # No inline style: the stylesheet is one linked file under its content hash, kept a year.
    assert "<style" not in page
    assert "style-src 'self';" in policy
    (sheet,) = re.findall(r'<link rel="stylesheet" href="(/static/app\.[0-9a-f]{12}\.css)">', page)
    with client.get(sheet) as served:
        assert served.status_code == 200
        assert ".action-bar" in served.get_data(as_text=True)
        assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    # The loader that starts the scripts after the first paint is inline; no other script.
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    inline = [body for attributes, body in scripts if " src=" not in attributes]
    assert len(inline) == 1
    assert "PerformanceObserver" in inline[0]
    assert f"script-src 'self' 'sha256-{sha256(inline[0])}';" in policy
    # Nothing else the page names is fetched before it paints: the tab's icon is in the page.
    assert re.search(r'<link rel="icon" href="data:image/svg\+xml,[^"]+"', page)
    assert not re.search(r'<link[^>]+rel="manifest"', page)
    assert not [attributes for attributes, _ in scripts if " src=" in attributes]


def test_vendored_htmx_is_version_2_0_with_its_licence(client):
    with client.get("/static/vendor/htmx.min.js") as script:
        assert script.status_code == 200
        assert b'version:"2.0.' in script.data
    with client.get("/static/vendor/htmx.LICENSE") as licence:
        assert "BSD" in licence.get_data(as_text=True)


def test_unknown_page_gets_the_app_404_page(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "There is no such page or game" in page
    assert "requested URL" not in page, "werkzeug's untranslated text"


@pytest.mark.parametrize(
    "path",
    [
        "/games/99999999999999999999999",
        "/games/2147483648/sheet",
        "/games/2147483648/share",
        "/history/99999999999",
        "/history/99999999999/replay",
        "/history/99999999999/export.json",
        "/players/99999999999",
    ],
)
def test_ids_too_large_for_the_database_are_not_found(client, path):
    assert client.get(path).status_code == 404


def test_a_post_to_a_huge_game_id_is_not_found(client):
    response = client.post("/games/99999999999999/rounds/1/trump", data={"version": 1})
    assert response.status_code == 404


def test_secret_key_is_generated_once_private_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite'}")
    first = create_app()
    key_file = tmp_path / "instance" / "secret_key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    second = create_app()
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"]
    assert len(first.config["SECRET_KEY"]) >= 64


def test_deleting_the_instance_folder_gives_a_fresh_key_and_database(tmp_path, monkeypatch):
    instance = tmp_path / "instance"
    monkeypatch.setenv("SCOREKEEPER_INSTANCE", str(instance))
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    first = create_app()
    assert (
        first.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{instance / 'scorekeeper.sqlite'}"
    )
    shutil.rmtree(instance)
    second = create_app()
    assert instance.is_dir()
    assert second.config["SECRET_KEY"] != first.config["SECRET_KEY"]


def test_environment_overrides_database_and_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_INSTANCE", str(tmp_path))
    monkeypatch.setenv("SECRET_KEY", "from-env")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:p@db/wizard")
    app = create_app()
    assert app.config["SECRET_KEY"] == "from-env"
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://u:p@db/wizard"
    assert not (tmp_path / "secret_key").exists()


def test_database_url_keeps_other_drivers():
    assert database_url("sqlite:///x.sqlite") == "sqlite:///x.sqlite"
    assert database_url("postgres://h/db") == "postgresql+psycopg://h/db"
    assert database_url("postgresql+psycopg://h/db") == "postgresql+psycopg://h/db"


def test_home_lists_games_in_progress_to_go_back_to(ctx, client):
    game_id = new_game()
    page = client.get("/").get_data(as_text=True)
    assert "Games in progress" in page
    assert f'href="/games/{game_id}">Ann, Bob, and Cara<' in page
    assert 'href="/history/"' in page


def test_the_server_compiles_every_page_template_before_its_first_visitor(app):
    from scorekeeper.templating import compile_templates

    compiled = compile_templates(app)
    assert compiled == len(app.jinja_env.list_templates(filter_func=lambda n: n.endswith(".html")))
    cached = {name for _loader, name in app.jinja_env.cache}
    assert {"play/table.html", "play/_table.html", "events/_board.html"} <= cached


def test_the_server_process_keeps_its_startup_objects_out_of_the_collector(app):
    import gc

    from scorekeeper.serving import ready_to_serve

    assert gc.get_freeze_count() == 0
    try:
        assert ready_to_serve(app) is app
        assert gc.get_freeze_count() > 10_000
        assert "play/table.html" in {name for _loader, name in app.jinja_env.cache}
    finally:
        gc.unfreeze()


def test_templates_read_the_app_globals_as_they_are_now(app, client):
    """Templates read the environment's globals themselves (templating.TemplateEnvironment,
    no copy per template): a global changed after the pages were first rendered shows on
    the next one, and a template given globals of its own sees them over the app's."""
    assert f"Wizard Scorekeeper {app.jinja_env.globals['app_version']}" in client.get("/").text
    app.jinja_env.globals["app_version"] = "9.9.9-test"
    assert "Wizard Scorekeeper 9.9.9-test" in client.get("/").text
    own = app.jinja_env.from_string("{{ app_version }} {{ mine }}", globals={"mine": "own"})
    assert own.render() == "9.9.9-test own"
    assert "mine" not in app.jinja_env.globals


def test_a_cached_template_loaded_again_with_globals_keeps_them_its_own(app, client):
    """Jinja updates a cached template's globals when it is loaded again with globals of its
    own (``get_template(name, globals=...)``); a page template reading the environment's
    dict itself (templating.TemplateEnvironment) must not pass them on to every other page."""
    assert client.get("/offline").status_code == 200  # main/offline.html cached, app globals
    again = app.jinja_env.get_template("main/offline.html", globals={"mine": "own"})
    assert again.globals["mine"] == "own"
    assert "app_version" in again.globals
    assert "mine" not in app.jinja_env.globals
    assert "mine" not in app.jinja_env.get_template("main/home.html").globals
    assert client.get("/").status_code == 200
