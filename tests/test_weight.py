"""The page weight budget of DESIGN.md: first load <= 30 KB gzipped, each htmx swap <= 3 KB."""

import gzip
import re

from tests.factories import new_game
from tests.play_helpers import HX, bid, trump

FIRST_LOAD_BUDGET = 30 * 1024
SWAP_BUDGET = 3 * 1024
LONG_NAMES = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald")


def gzipped(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9))


def test_first_load_of_a_game_stays_within_30_kb_gzipped(ctx, client):
    game_id = new_game(LONG_NAMES)
    page = client.get(f"/games/{game_id}").data
    # What a browser fetches to show the page: scripts, the stylesheet and the favicon.
    # (The manifest and the home-screen icon are fetched only when installing.)
    assets = re.findall(rb'<script src="(/static/[^"]+)"', page) + re.findall(
        rb'<link rel="(?:stylesheet|icon)" href="(/static/[^"]+)"', page
    )
    assert len(assets) == 4
    total = gzipped(page)
    for asset in assets:
        with client.get(asset.decode()) as response:
            assert response.status_code == 200
            total += gzipped(response.data)
    assert total <= FIRST_LOAD_BUDGET, f"first load is {total} bytes gzipped"


def test_each_round_swap_stays_within_3_kb_gzipped(ctx, client):
    game_id = new_game(LONG_NAMES)
    sizes = [gzipped(trump(client, game_id, 1, headers=HX).data)]
    for seat in (1, 2, 3, 4, 5, 0):
        sizes.append(gzipped(bid(client, game_id, 1, seat, 0, headers=HX).data))
    assert max(sizes) <= SWAP_BUDGET, sizes
