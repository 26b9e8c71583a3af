"""The one score sheet (templates/macros/sheet.html) on the table's sheet page and a past
game's page: same cells, round links only where a round can be corrected."""

import re

import pytest

from scorekeeper import rules
from tests.factories import make_game

THREE = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=3), bid_rule="free")
# Ann 1/1 +30, 0/0 +20 = 50; Bob 0/0 +20, 1/2 -10 = 10; Cy 0/0 +20, 1/0 -10 = 10.
ROUNDS = [((1, 0, 0), (1, 0, 0)), ((0, 1, 1), (0, 2, 0))]


@pytest.fixture
def game_id(ctx):
    return make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE).id


def cells(page: str) -> list[str]:
    """Each player cell of the sheet's body as a reader sees it (hidden labels dropped)."""
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    body = re.sub(r'<span class="visually-hidden">[^<]*</span>', "", body)
    found = re.findall(r'<td class="(made|missed)">(.*?)</td>', body, re.S)
    return [f"{kind}: " + " ".join(re.sub(r"<[^>]+>", " ", cell).split()) for kind, cell in found]


@pytest.mark.parametrize("path", ["/games/{id}/sheet", "/history/{id}"])
def test_both_pages_show_the_same_cells_totals_and_places(client, game_id, path):
    page = client.get(path.format(id=game_id)).get_data(as_text=True)
    assert cells(page) == [
        "made: 30 D 1/1 ✓ +30",
        "made: 20 0/0 ✓ +20",
        "made: 20 0/0 ✓ +20",
        "made: 50 0/0 ✓ +20",
        "missed: 10 D 1/2 ✗ -10",
        "missed: 10 1/0 ✗ -10",
    ]
    footer = page.split("<tfoot>")[1].split("</tfoot>")[0]
    assert re.findall(r'class="total[^"]*">(-?\d+)<', footer) == ["50", "10", "10"]
    assert 'class="total is-winner">50<' in footer, "the leader of a game in progress"
    assert "made the bid" in page
    assert "missed the bid" in page
    assert "style=" not in page


def test_the_table_sheet_links_each_round_to_its_correction(client, game_id):
    page = client.get(f"/games/{game_id}/sheet").get_data(as_text=True)
    for number in (1, 2):
        assert f'href="/games/{game_id}/rounds/{number}/edit"' in page
    assert "tap a round number to correct it" in page


def test_a_past_game_page_has_no_correction_links(client, game_id):
    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    assert "/edit" not in page
    assert 'class="round-number num">1<' in page


def test_an_abandoned_game_sheet_has_no_correction_links(client, ctx):
    game_id = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE, status="abandoned").id
    page = client.get(f"/games/{game_id}/sheet").get_data(as_text=True)
    assert "/edit" not in page
    assert "tap a round number" not in page
    assert len(cells(page)) == 6


def test_a_sheet_without_rounds_says_so(client, ctx):
    game_id = make_game(["Ann", "Bob", "Cy"], [], game_rules=THREE).id
    for path in (f"/games/{game_id}/sheet", f"/history/{game_id}"):
        page = client.get(path).get_data(as_text=True)
        assert "No round has been scored yet." in page
        assert not re.search(r'class="[^"]*is-winner', page), "no cell marked as the winner's"
