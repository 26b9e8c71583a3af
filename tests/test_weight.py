"""The page weight budget of DESIGN.md: first load <= 30 KB, each htmx swap <= 3 KB, counted
as the bytes on the wire when a browser asks for them (`Accept-Encoding: gzip, br`)."""

import gzip
import json
import re

import brotli
import pytest

from scorekeeper import rules
from tests.factories import make_game, new_game, random_rounds
from tests.play_helpers import HX, bid, post, trump

FIRST_LOAD_BUDGET = 30 * 1024
SWAP_BUDGET = 3 * 1024
# What a page fetches after it has loaded (the table's offline script and plan).
LATER_BUDGET = 8 * 1024
# The table's offline plan, fetched again once a round.
PLAN_BUDGET = 4 * 1024
LONG_NAMES = ("Anneliese", "Bartholomew", "Cordelia", "Dmitri", "Evangeline", "Fitzgerald")
BROWSER = {"Accept-Encoding": "gzip, br"}
# What a browser fetches to show a page: the scripts the inline loader starts just after the
# first paint (the stylesheet, the loader and the tab's icon are in the page itself).
# (The manifest and the home-screen icon are fetched only when installing.)
ASSET = re.compile(
    r'<link rel="stylesheet" href="(/static/[^"]+)"|data-(?:app|htmx)="(/static/[^"]+)"'
)


def on_the_wire(response) -> int:
    """Status line, headers and the body as sent (still compressed)."""
    head = len(f"HTTP/1.1 {response.status}\r\n") + 2
    head += sum(len(name) + len(value) + 4 for name, value in response.headers.items())
    return head + len(response.get_data())


def decoded(response) -> str:
    body = response.get_data()
    coding = response.headers.get("Content-Encoding")
    if coding == "br":
        body = brotli.decompress(body)
    elif coding == "gzip":
        body = gzip.decompress(body)
    return body.decode()


def first_load(client, path: str) -> list[tuple[str, int]]:
    page = client.get(path, headers=BROWSER)
    assert page.status_code == 200
    assert page.headers["Content-Encoding"] == "br"
    sizes = [(path, on_the_wire(page))]
    html = decoded(page)
    assets = [a or b for a, b in ASSET.findall(html)]
    # The stylesheet and the two scripts; the loader and the icon are inline, counted in the
    # page's bytes.
    assert len(assets) == 3, assets
    assert "<style" not in html
    for asset in assets:
        with client.get(asset, headers=BROWSER) as response:
            assert response.status_code == 200
            sizes.append((asset, on_the_wire(response)))
    return sizes


@pytest.mark.parametrize("page", ["home", "table", "sheet", "long sheet"])
def test_first_load_stays_within_30_kb_on_the_wire(ctx, client, page):
    game_rules = rules.GameRules(players=6)
    # The longest sheet of six players: every round but the last played, each correctable.
    played = make_game(LONG_NAMES, random_rounds(game_rules, count=9), open_round=True)
    paths = {
        "home": "/",
        "table": f"/games/{new_game(LONG_NAMES)}",
        "sheet": f"/games/{played.id}/sheet",
        "long sheet": f"/games/{make_game(rounds=random_rounds(rules.GameRules(players=3))).id}"
        "/sheet",
    }
    sizes = first_load(client, paths[page])
    total = sum(size for _, size in sizes)
    assert total <= FIRST_LOAD_BUDGET, f"first load is {total} bytes on the wire: {sizes}"


def test_each_round_swap_stays_within_3_kb_on_the_wire(ctx, client):
    game_id = new_game(LONG_NAMES)
    headers = HX | BROWSER
    sizes = [on_the_wire(trump(client, game_id, 1, headers=headers))]
    for seat in (1, 2, 3, 4, 5, 0):
        sizes.append(on_the_wire(bid(client, game_id, 1, seat, 0, headers=headers)))
    tricks = {f"tricks_{seat}": 1 if seat == 1 else 0 for seat in range(6)}
    sizes.append(on_the_wire(post(client, game_id, "rounds/1/tricks", tricks, headers=headers)))
    assert max(sizes) <= SWAP_BUDGET, sizes


def test_the_table_fetches_its_offline_script_and_plan_after_the_first_load(ctx, client):
    """The table screen's first load is the page, the stylesheet, app.js and htmx (within 30
    KB, above); offline.js and the offline plan come after the page has loaded (app.js starts
    them). The script is fetched once per phone (kept a year under its hash): within a later
    page's 8 KB; the plan is fetched again once a round: within 4 KB."""
    path = f"/games/{new_game(LONG_NAMES)}"
    first = sum(size for _, size in first_load(client, path))
    assert first <= FIRST_LOAD_BUDGET
    html = decoded(client.get(path, headers=BROWSER))
    assert "offline" not in "".join(a or b for a, b in ASSET.findall(html))
    (script,) = re.findall(r'data-offline-script="(/static/[^"]+)"', html)
    (plan,) = re.findall(r'data-offline="(/games/\d+/offline)"', html)
    later = []
    for extra in (script, plan):
        with client.get(extra, headers=BROWSER) as response:
            assert response.status_code == 200
            later.append((extra, on_the_wire(response)))
    print(f"table first load {first} bytes; afterwards {later}")
    (_, script_size), (_, plan_size) = later
    assert script_size <= LATER_BUDGET, later
    assert plan_size <= PLAN_BUDGET, later


def test_the_offline_plan_of_a_20_round_game_is_a_few_kb_on_the_wire(ctx, client):
    # Three players play 20 rounds, up to 20 cards: the longest standard plan.
    game_id = new_game(LONG_NAMES[:3])
    with client.get(f"/games/{game_id}/offline", headers=BROWSER) as response:
        wire = on_the_wire(response)
        body = decoded(response)
    raw = len(body.encode())
    assert len(json.loads(body)["plan"]["rounds"]) == 20
    print(f"offline plan of a 20-round game: {raw} bytes, {wire} bytes on the wire")
    assert wire <= PLAN_BUDGET
