"""Safe on an open network (issue #18), through the test client: body limits per route, the
password before any body is read, only known host names, a busy database said as such, and
tokens masked in the access log. tests/test_network_server.py plays the attacks on the real
server."""

import io
import sqlite3

import pytest
import sqlalchemy as sa
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from scorekeeper import create_app, serving
from scorekeeper.extensions import db
from scorekeeper.models import Change, Game
from tests.conftest import make_config
from tests.factories import new_game

FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def locked(tmp_path):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'locked.sqlite'}",
            ACCESS_PASSWORD="wizard",
            WTF_CSRF_ENABLED=True,
        )
    )
    with app.app_context():
        db.create_all()
        yield app
        db.engine.dispose()


class Unread(io.BytesIO):
    """A request body of ``size`` bytes that fails the test if anyone reads it."""

    def __init__(self, size: int) -> None:
        super().__init__(b"a" * size)

    def read(self, size=-1):
        raise AssertionError("the body was read")

    readline = read1 = read


def test_a_visitor_without_the_password_is_sent_to_sign_in_before_the_body_is_read(locked):
    client = locked.test_client()
    for path in ("/history/restore", "/games/new"):
        response = client.post(path, input_stream=Unread(99), content_type=FORM)
        assert response.status_code == 303
        assert response.headers["Location"].startswith("/login")


def test_a_form_larger_than_any_real_one_is_refused_before_it_is_parsed(locked):
    client = locked.test_client()
    response = client.post("/login", input_stream=Unread(64 * 1024 + 1), content_type=FORM)
    assert response.status_code == 413
    assert "That upload is too large." in response.get_data(as_text=True)
    # Without a declared length the reading stops at the limit.
    body = b"a=1&" * (64 * 1024)
    response = client.post("/login", data=body, content_type=FORM)
    assert response.status_code == 413


def test_only_the_restore_upload_of_a_signed_in_visitor_may_be_large(locked):
    client = locked.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
    client.post("/login", data={"password": "wizard", "csrf_token": token})
    backup = b'{"format": "something else"}' + b" " * (200 * 1024)
    boundary, form = encode_multipart(
        {"csrf_token": token, "backup": FileStorage(io.BytesIO(backup), "backup.json")}
    )
    multipart = f"multipart/form-data; boundary={boundary}"
    answer = client.post("/history/restore", data=form, content_type=multipart)
    assert answer.status_code == 422
    assert "not a Wizard Scorekeeper backup" in answer.get_data(as_text=True)
    # The same body to any other form: refused for its size.
    assert client.post("/games/new", data=form, content_type=multipart).status_code == 413


@pytest.mark.parametrize("host", ["rebind.attacker.example", "evil.example:8000", ""])
def test_a_host_name_the_instance_does_not_know_gets_one_line_and_nothing_else(app, host):
    client = app.test_client()
    for path in ("/history/backup", "/history/backup.json", "/static/app.css", "/healthz"):
        answer = client.get(path, headers={"Host": host})
        assert answer.status_code == 400
        assert answer.get_data(as_text=True) == (
            "This name is not served here: open the app at the address its host gave.\n"
        )
        assert "Set-Cookie" not in answer.headers
    with app.app_context():
        game_id = new_game()
    answer = client.post(f"/games/{game_id}/abandon", headers={"Host": host})
    assert answer.status_code == 400
    with app.app_context():
        assert db.session.get(Game, game_id).status == "in_progress"


def test_known_names_are_served_and_the_setting_adds_more(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_INSTANCE", str(tmp_path))
    (tmp_path / "announced_url").write_text("http://192.168.1.20:8000/\n")
    settings = make_config(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'hosts.sqlite'}",
        TRUSTED_HOSTS="wizard.lan, .club.example",
        PUBLIC_URL="https://wizard.example.org/",
    )
    app = create_app(settings)
    with app.app_context():
        db.create_all()
    client = app.test_client()
    served = ["localhost:8000", "127.0.0.1", "192.168.1.20:8000", "wizard.example.org"]
    served += ["wizard.lan", "table.club.example", "phone.localhost"]
    for host in served:
        assert client.get("/healthz", headers={"Host": host}).status_code == 200, host
    assert client.get("/healthz", headers={"Host": "192.168.1.21"}).status_code == 400
    # Each verdict is kept until the list changes (a static file: only the guard checks).
    names = app.config["TRUSTED_HOSTS"]
    lan = {"Host": "192.168.1.21"}
    assert client.get("/static/app.css", headers=lan).status_code == 400
    names.append("192.168.1.21")
    assert client.get("/static/app.css", headers=lan).status_code == 200
    names.remove("192.168.1.21")
    assert client.get("/static/app.css", headers=lan).status_code == 400
    with app.app_context():
        db.engine.dispose()


def test_a_save_while_a_restore_holds_the_database_says_busy_not_changed(app, tmp_path):
    with app.app_context():
        game_id = new_game()
        path = db.engine.url.database
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # what a restore's transaction holds while it writes
    try:
        answer = app.test_client().post(
            f"/games/{game_id}/rounds/1/trump", data={"version": 1, "trump": "suit:hearts"}
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert answer.status_code == 409
    page = answer.get_data(as_text=True)
    assert "Another change (such as a restore) was being saved" in page
    assert "another phone" not in page
    assert answer.headers["Retry-After"] == "5"
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Change)) == 1


def test_a_request_reads_one_snapshot_of_the_sqlite_database(app):
    """The session's first read begins a transaction (the driver would start none for a
    read): a save committed meanwhile on another connection shows only once it ends."""
    with app.app_context():
        game_id = new_game()
        db.session.close()
        version = sa.select(Game.version).where(Game.id == game_id)
        assert db.session.scalar(version) == 1
        writer = sqlite3.connect(db.engine.url.database, isolation_level=None)
        try:
            writer.execute("UPDATE games SET version = 7 WHERE id = ?", (game_id,))
        finally:
            writer.close()
        assert db.session.scalar(version) == 1
        db.session.rollback()
        assert db.session.scalar(version) == 7


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/live/3f2a9c0d1e7b4a5c8d6e0f1a2b3c4d5e/board", "/live/…/board"),
        ("/seat/Zm9vYmFyYmF6cXV4cXV1eHF1dXg/pad", "/seat/…/pad"),
        ("/live/abc", "/live/…"),
        ("/games/3/share", "/games/3/share"),
    ],
)
def test_the_access_log_masks_live_and_seat_tokens(path, logged):
    assert serving.mask_token(path) == logged


def test_the_server_reads_a_body_up_to_the_route_s_limit(app):
    app.config["MAX_CONTENT_LENGTH"] = 5_000_000
    restore = {"path": "/history/restore", "method": "POST"}
    assert serving.body_limit(app, restore) == 5_000_000
    assert serving.body_limit(app, {"path": "/login", "method": "POST"}) == 64 * 1024
    assert serving.body_limit(app, {"path": "/no/such/page", "method": "POST"}) == 64 * 1024
