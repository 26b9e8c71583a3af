"""The optional instance password: everything behind it except health, static and live."""

import pytest

from scorekeeper import create_app, gameplay, rules
from scorekeeper.extensions import db
from tests.conftest import make_config


@pytest.fixture
def locked(tmp_path):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'locked.sqlite'}",
            ACCESS_PASSWORD="wizard",
        )
    )
    with app.app_context():
        db.create_all()
        yield app
        db.engine.dispose()


def test_without_a_password_everything_is_open(client):
    assert client.get("/games/new").status_code == 200


def test_pages_ask_for_the_password_and_then_open(locked):
    client = locked.test_client()
    response = client.get("/history/?status=finished")
    assert response.status_code == 303
    assert response.headers["Location"] == "/login?next=/history/?status%3Dfinished"
    wrong = client.post("/login", data={"password": "muggle", "next": "/history/"})
    assert wrong.status_code == 422
    assert "That is not the password." in wrong.get_data(as_text=True)
    right = client.post("/login", data={"password": "wizard", "next": "/history/"})
    assert right.status_code == 303
    assert right.headers["Location"] == "/history/"
    assert client.get("/history/").status_code == 200


def test_htmx_requests_are_sent_to_the_login_page(locked):
    response = locked.test_client().post("/games/new", headers={"HX-Request": "true"})
    assert response.headers["HX-Redirect"].startswith("/login")


def test_the_live_view_health_check_and_static_files_need_no_password(locked):
    game = gameplay.create_game(["Ann", "Bob", "Cara"], 0, rules.GameRules(players=3))
    client = locked.test_client()
    assert client.get(f"/live/{game.live_token}").status_code == 200
    assert client.get(f"/live/{game.live_token}/board").status_code == 200
    assert client.get("/healthz").status_code == 200
    with client.get("/static/app.css") as css:
        assert css.status_code == 200
    assert client.get(f"/games/{game.id}").status_code == 303


def test_login_never_redirects_to_another_site(locked):
    client = locked.test_client()
    response = client.post("/login", data={"password": "wizard", "next": "//evil.example/"})
    assert response.headers["Location"] == "/"


def test_locking_the_phone_asks_again(locked):
    client = locked.test_client()
    client.post("/login", data={"password": "wizard"})
    assert client.get("/").status_code == 200
    client.post("/logout")
    assert client.get("/").status_code == 303
