"""The live view's link and QR code send the other phones to an address they can reach: the one
`flask announce` printed when the host opened the app at localhost, PUBLIC_URL when set, and
the public address behind a trusted reverse proxy (TRUSTED_PROXIES)."""

from pathlib import Path

import pytest
import segno
from playwright.sync_api import expect

from scorekeeper import cli, config, create_app
from scorekeeper.extensions import db
from scorekeeper.models import Game
from scorekeeper.views.live import ANNOUNCED_FILE
from tests.conftest import make_config
from tests.factories import new_game

# A documentation address (TEST-NET-1): shown and encoded, never opened.
LAN = "192.0.2.10"


def qr_of(url: str) -> str:
    return segno.make(url, error="m").svg_inline(
        border=2, dark="#1d232b", light="#ffffff", omitsize=True
    )


def started(app) -> tuple[int, str]:
    with app.app_context():
        game = db.session.get(Game, new_game())
        return game.id, game.live_token


def test_opened_at_localhost_the_qr_code_has_the_announced_address(page, live_server, tmp_path):
    live_server.app.instance_path = str(tmp_path)
    port = live_server.url.rsplit(":", 1)[1]
    (tmp_path / ANNOUNCED_FILE).write_text(f"http://{LAN}:{port}/\n")
    game_id, token = started(live_server.app)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator(".action-bar").get_by_role("link", name="Live view").click()
    link = page.locator(".qr figcaption a")
    expect(link).to_have_text(f"http://{LAN}:{port}/live/{token}")
    assert link.get_attribute("href") == f"http://{LAN}:{port}/live/{token}"
    drawn = page.locator(".qr svg path.qrline").get_attribute("d")
    assert drawn
    assert f'd="{drawn}"' in qr_of(f"http://{LAN}:{port}/live/{token}")


@pytest.fixture
def app(tmp_path: Path):
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'db.sqlite'}"))
    app.instance_path = str(tmp_path)
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.engine.dispose()


def share_link(app, game_id: int, **request) -> str:
    page = app.test_client().get(f"/games/{game_id}/share", **request).get_data(as_text=True)
    return page.split('<figcaption><a href="')[1].split('"')[0]


def test_an_address_announced_for_another_port_or_a_lan_page_keeps_its_own(app, tmp_path):
    game_id, token = started(app)
    (tmp_path / ANNOUNCED_FILE).write_text(f"http://{LAN}:8000/\n")
    # The test client's page is http://localhost/ (port 80): another server was announced.
    assert share_link(app, game_id) == f"http://localhost/live/{token}"
    assert share_link(app, game_id, base_url="http://localhost:8000") == (
        f"http://{LAN}:8000/live/{token}"
    )
    # Opened at a LAN address, the page's own address is the one to share.
    assert share_link(app, game_id, base_url="http://192.0.2.20:8000") == (
        f"http://192.0.2.20:8000/live/{token}"
    )


def test_public_url_is_used_everywhere(app):
    app.config["PUBLIC_URL"] = "https://wizard.example.org/"
    game_id, token = started(app)
    assert share_link(app, game_id) == f"https://wizard.example.org/live/{token}"


def test_behind_a_trusted_proxy_links_use_its_forwarded_address(app):
    game_id, token = started(app)
    forwarded = {
        "X-Forwarded-For": "198.51.100.7",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "wizard.example.org",
    }
    # Not trusted (the default): anyone could send these headers.
    config.trust_proxies(app)
    assert share_link(app, game_id, headers=forwarded) == f"http://localhost/live/{token}"
    app.config["TRUSTED_PROXIES"] = 1
    config.trust_proxies(app)
    assert share_link(app, game_id, headers=forwarded) == (
        f"https://wizard.example.org/live/{token}"
    )


def test_announce_keeps_the_address_it_prints(app, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "lan_address", lambda: LAN)
    result = app.test_cli_runner().invoke(args=["announce", "--port", "8123"])
    assert result.exit_code == 0
    assert f"http://{LAN}:8123/" in result.output
    assert (tmp_path / ANNOUNCED_FILE).read_text().strip() == f"http://{LAN}:8123/"
