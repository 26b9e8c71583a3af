"""The optional instance password: everything behind it except health, static and live."""

import pytest

from scorekeeper import create_app, gameplay, rules
from scorekeeper.extensions import db, limiter
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


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example/",
        "/%09/evil.example",
        "/\t/evil.example",
        "/\\evil.example",
        "/%5Cevil.example",
        "/%2F%2Fevil.example",
        "https://evil.example/",
        " //evil.example",
        "/\x00/evil.example",
    ],
)
def test_no_form_of_another_address_is_followed_after_sign_in(locked, target):
    client = locked.test_client()
    response = client.post("/login", data={"password": "wizard", "next": target})
    assert response.status_code == 303
    assert response.headers["Location"] == "/"


def test_password_guesses_are_limited_per_address_with_the_time_to_wait(locked):
    client = locked.test_client()
    for _ in range(10):
        assert client.post("/login", data={"password": "muggle"}).status_code == 422
    blocked = client.post("/login", data={"password": "wizard"})
    assert blocked.status_code == 429
    wait = int(blocked.headers["Retry-After"])
    assert 1 <= wait <= 60
    assert f"Too many wrong passwords: try again in {wait} seconds." in blocked.get_data(
        as_text=True
    )
    # Another address is not slowed down by these guesses.
    other = locked.test_client()
    right = other.post(
        "/login", data={"password": "wizard"}, environ_base={"REMOTE_ADDR": "10.0.0.9"}
    )
    assert right.status_code == 303


def test_a_default_limit_set_by_the_host_still_applies_to_every_page(tmp_path):
    """The app skips Flask-Limiter's per-request check while no app-wide limit is set; one
    set by the host (SCOREKEEPER_RATELIMIT_DEFAULT) is still enforced on every page."""
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'limited.sqlite'}",
            RATELIMIT_DEFAULT="2 per minute",
            RATELIMIT_STORAGE_URI="memory://",
        )
    )
    try:
        with app.app_context():
            db.create_all()
        client = app.test_client()
        assert [client.get("/healthz").status_code for _ in range(3)] == [200, 200, 429]
    finally:
        # The limiter is one object for every app of the process: the next apps get none.
        limiter.limit_manager.set_default_limits([])
        with app.app_context():
            db.engine.dispose()


def test_a_session_signed_with_a_replaced_secret_key_is_not_read(locked):
    client = locked.test_client()
    client.post("/login", data={"password": "wizard"})
    assert client.get("/").status_code == 200
    locked.secret_key = "another-secret"
    assert client.get("/").status_code == 303


def test_the_right_password_does_not_count_as_a_guess(locked):
    client = locked.test_client()
    for _ in range(12):
        assert client.post("/login", data={"password": "wizard"}).status_code == 303


def test_signing_out_revokes_a_copy_of_the_cookie(locked):
    client = locked.test_client()
    client.post("/login", data={"password": "wizard"})
    copied = client.get_cookie("session").value
    client.post("/logout")
    thief = locked.test_client()
    thief.set_cookie("session", copied)
    assert thief.get("/").status_code == 303


def test_a_new_password_signs_every_phone_out(locked):
    client = locked.test_client()
    client.post("/login", data={"password": "wizard"})
    assert client.get("/").status_code == 200
    locked.config["ACCESS_PASSWORD"] = "sorcerer"
    assert client.get("/").status_code == 303


def test_the_session_cookie_can_be_marked_secure_for_a_tls_proxy(tmp_path):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'tls.sqlite'}",
            ACCESS_PASSWORD="wizard",
            SESSION_COOKIE_SECURE=True,
        )
    )
    with app.app_context():
        db.create_all()
    response = app.test_client().post("/login", data={"password": "wizard"})
    assert "Secure" in response.headers["Set-Cookie"]


def test_behind_a_path_prefix_the_password_and_the_language_lead_back_under_it(tmp_path):
    """Behind a proxy that serves the app under a path prefix (X-Forwarded-Prefix), signing
    in and choosing a language lead back to the page under that prefix, not to the same
    path outside the app."""
    import re

    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'prefixed.sqlite'}",
            ACCESS_PASSWORD="wizard",
            TRUSTED_PROXIES=1,
        )
    )
    with app.app_context():
        db.create_all()
    client = app.test_client()
    under = {"X-Forwarded-Prefix": "/club"}
    asked = client.get("/history/?status=finished", headers=under)
    assert asked.status_code == 303
    assert asked.headers["Location"] == "/club/login?next=/club/history/?status%3Dfinished"
    form = client.get(asked.headers["Location"].removeprefix("/club"), headers=under)
    shown = re.search(r'name="next"[^>]*value="([^"]*)"', form.get_data(as_text=True))
    assert shown is not None
    signed = client.post(
        "/login", data={"password": "wizard", "next": shown.group(1)}, headers=under
    )
    assert signed.headers["Location"] == "/club/history/?status=finished"
    page = client.get("/history/?status=finished", headers=under).get_data(as_text=True)
    back = re.findall(r'name="next" value="([^"]*)"', page)
    assert back == ["/club/history/?status=finished"]
    chosen = client.post("/language", data={"lang": "de", "next": back[0]}, headers=under)
    assert chosen.headers["Location"] == "/club/history/?status=finished"
    # Without a prefix the paths are as they were.
    plain = client.get("/history/?status=finished").get_data(as_text=True)
    assert re.findall(r'name="next" value="([^"]*)"', plain) == ["/history/?status=finished"]
    with app.app_context():
        db.engine.dispose()
