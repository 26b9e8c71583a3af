"""Links under each visitor's own path prefix, on the server as ``make run`` starts it.

Behind a reverse proxy (TRUSTED_PROXIES) one instance may be reached under several path
prefixes (X-Forwarded-Prefix). Pages build each link once per page and prefix in each worker
(views.rendering.PageLinks) and the event board is kept per version (views/events.py): phones
under different prefixes, asking at once while a table saves its rounds, must each get every
link of every page under their own prefix."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.evening_play import Table
from tests.real_server import Visitor, served

pytestmark = pytest.mark.real_server

PREFIXES = ("/club", "/other/deep", "")
LINK = re.compile(r'(?:href|src|action|hx-get|hx-post|data-[a-z-]+)="(/[^"]*)"')


def test_phones_under_different_prefixes_get_their_own_links_while_a_table_saves(
    tmp_path: Path,
):
    with served(tmp_path / "instance", settings={"TRUSTED_PROXIES": "1"}) as server:
        table = Table(Visitor(server.url))
        played = table.start_game(("Ann", "Bob", "Cy"), 3)
        paths = ["/", "/history/", f"/history/{played.game_id}", "/players/", "/ladder/"]

        def links(prefix: str) -> list[tuple[str, str]]:
            phone = Visitor(server.url)
            headers = {"X-Forwarded-Prefix": prefix} if prefix else {}
            found = []
            for path in paths:
                answer = phone.get(path, headers=headers)
                assert answer.status == 200, (prefix, path, answer.status)
                found += [(path, url) for url in LINK.findall(answer.body)]
            return found

        with ThreadPoolExecutor(6) as pool:
            asked = [pool.submit(links, prefix) for prefix in PREFIXES * 8]
            for took in ([0, 0, 1], [1, 0, 1], [1, 1, 1]):  # 1, 2 and 3 cards
                table.play_round(played, took, took)
            answers = [
                (prefix, future.result())
                for prefix, future in zip(PREFIXES * 8, asked, strict=True)
            ]
        for prefix, found in answers:
            assert found
            wrong = [
                (path, url)
                for path, url in found
                if not url.startswith(f"{prefix}/")
                or (not prefix and url.startswith(("/club/", "/other/")))
            ]
            assert not wrong, (prefix, wrong[:5])
