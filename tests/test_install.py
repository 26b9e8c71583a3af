"""Installable on a phone: a manifest with icons, a service worker, an offline page."""

import json


def test_manifest_names_the_app_and_its_icons(client):
    with client.get("/manifest.webmanifest") as response:
        assert response.status_code == 200
        assert response.mimetype == "application/manifest+json"
        manifest = json.loads(response.data)
    assert manifest["name"] == "Wizard Scorekeeper"
    assert manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        with client.get(icon["src"]) as image:
            assert image.status_code == 200, icon["src"]


def test_every_page_links_the_manifest(client):
    assert 'rel="manifest"' in client.get("/").get_data(as_text=True)


def test_service_worker_covers_the_whole_site_and_is_always_revalidated(client):
    with client.get("/sw.js") as response:
        assert response.status_code == 200
        assert response.headers["Service-Worker-Allowed"] == "/"
        assert "no-cache" in response.headers["Cache-Control"]
        assert b'"/offline"' in response.data


def test_offline_page_says_nothing_is_lost(client):
    page = client.get("/offline").get_data(as_text=True)
    assert "every round saved so far is on the server" in page
