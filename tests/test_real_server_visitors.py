"""Two visitors on every page of a game's life (the round screen in every state, its sheet,
the live view and seat pages), on the server as ``make run`` starts it, with and without the
password: each visitor's form tokens and request keys are their own, and every form on the
page, posted as it is by either visitor, is taken or gets the ordinary refusal ("changed on
another phone", a message next to a field) — never 400 "Page expired", never a 5xx."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.evening_play import Played, Table, forms_of
from tests.real_server import WORKERS, RealServer, Visitor, csrf_token, served

pytestmark = pytest.mark.real_server

PASSWORD = "Zauberer 7"
NAMES = ("Ann", "Bob", "Cy")
KEY = re.compile(r'name="request_key" value="([^"]+)"')


@pytest.fixture(scope="module", params=[None, PASSWORD], ids=["open", "password"])
def server(request, tmp_path_factory) -> Iterator[RealServer]:
    instance: Path = tmp_path_factory.mktemp("visitors") / "instance"
    with served(instance, password=request.param) as server:
        yield server


def visitor(server: RealServer) -> Visitor:
    phone = Visitor(server.url)
    if server.password:
        phone.sign_in(server.password)
    return phone


def share_links(table: Table, game: Played) -> tuple[str, dict[str, str]]:
    """The live view's address and each seat's (made first where there are none)."""
    page = table.visitor.get(f"/games/{game.game_id}/share").body
    if "Make a link for every player" in page:
        made = table.visitor.post(
            f"/games/{game.game_id}/seat-links", {"csrf_token": csrf_token(page)}
        )
        assert made.status == 303, made
        page = table.visitor.get(f"/games/{game.game_id}/share").body
    links = [urlsplit(link).path for link in re.findall(r'<figcaption><a href="([^"]+)"', page)]
    return links[0], dict(zip(NAMES, links[1:], strict=True))


def page_states(table: Table) -> Iterator[tuple[str, str]]:
    """Every page of a game's life, each on a game of its own made just before (the forms posted on
    one state change its game, not the next state's)."""

    def game(rounds: int = 2, **options: str) -> Played:
        return table.start_game(NAMES, rounds, **options)

    def trump(played: Played) -> Played:
        table.post(played, "rounds/1/trump", {"trump": "suit:hearts"})
        return played

    yield "setup", "/games/new"
    yield "home", "/"
    yield "rules", "/rules"
    yield "table: trump", f"/games/{game().game_id}"
    yield "table: bids", f"/games/{trump(game()).game_id}"
    one_bid = trump(game())
    table.post(one_bid, "rounds/1/bid", {"seat": 1, "bid": 0})
    yield "table: bids, one in", f"/games/{one_bid.game_id}"
    tricks = trump(game())
    for seat in (1, 2, 0):
        table.post(tricks, "rounds/1/bid", {"seat": seat, "bid": 0})
    yield "table: tricks", f"/games/{tricks.game_id}"
    yield "table: hidden bids", f"/games/{trump(game(bid_reveal='hidden')).game_id}"
    for name, path in [
        ("score sheet", "/games/{}/sheet"),
        ("correction", "/games/{}/rounds/1/edit"),
        ("share", "/games/{}/share"),
    ]:
        played = game()
        table.play_round(played, [0, 1, 0], [0, 1, 0])
        yield name, path.format(played.game_id)
    finished = game(rounds=1)
    table.play_round(finished, [1, 0, 0], [1, 0, 0])
    yield "table: game over", f"/games/{finished.game_id}"
    yield "past game", f"/history/{finished.game_id}"
    yield "replay", f"/history/{finished.game_id}/replay"
    yield "games list", "/history/"
    yield "backup", "/history/backup"
    live, _seats = share_links(table, trump(game()))
    yield "live view", live
    yield "live board", f"{live}/board"
    _live, seats = share_links(table, trump(game(bid_reveal="hidden")))
    yield "seat phone", seats["Bob"]
    yield "seat pad", f"{seats['Cy']}/pad"
    yield "ladder", "/ladder/"
    yield "players", "/players/"
    roster = table.visitor.get("/players/").body
    ann = re.search(r'href="(/players/\d+)"[^>]*>\s*<span>Ann</span>', roster).group(1)
    yield "player page", ann
    yield "rename or merge", f"{ann}/edit"


def on_every_worker(server: RealServer, phone: Visitor, path: str, answer):
    for _ in range(16):
        answered = {pid for pid, _method, logged, _status in server.access() if logged == path}
        if len(answered) >= WORKERS:
            break
        answer = phone.get(path)
    return answer


def refusal(answer) -> str | None:
    """What is wrong with the answer to a form (None: taken, or an ordinary refusal)."""
    if answer.status >= 500:
        return f"{answer.status} {answer.text()[:200]}"
    if answer.status == 400 or "Page expired" in answer.body:
        return f"{answer.status} {answer.text()[:200]}"
    return None


def test_two_visitors_have_their_own_tokens_and_every_form_is_taken(server):
    table = Table(visitor(server))
    first, second = visitor(server), visitor(server)
    problems: list[str] = []
    posts = pages = 0
    for state, path in page_states(table):
        seen = {}
        for who, phone in (("first", first), ("second", second)):
            answer = phone.get(path)
            pages += 1
            if who == "first":
                # Until every worker has answered the first visitor: each keeps its own copy,
                # and the second visitor's request may reach either.
                answer = on_every_worker(server, phone, path, answer)
            if answer.status != 200:
                problems.append(f"{state}: {who} got {answer.status} for {path}")
            seen[who] = answer.body
        tokens = {
            who: set(re.findall(r'name="csrf_token"[^>]*value="([^"]+)"', body))
            for who, body in seen.items()
        }
        tokens = {
            who: found | set(re.findall(r'"X-CSRFToken": "([^"]+)"', seen[who]))
            for who, found in tokens.items()
        }
        # A token is the visitor's secret, signed with the time: compare the secrets.
        tokens = {who: {token.split(".")[0] for token in found} for who, found in tokens.items()}
        if shared := tokens["first"] & tokens["second"]:
            problems.append(f"{state}: both visitors got the token {sorted(shared)[0][:20]}…")
        keys = {who: KEY.findall(body) for who, body in seen.items()}
        if shared := set(keys["first"]) & set(keys["second"]):
            problems.append(f"{state}: both visitors got the request key {sorted(shared)[0]}")
        forms = {
            who: [form for form in forms_of(body, path) if form.method == "post"]
            for who, body in seen.items()
        }
        assert len(forms["first"]) == len(forms["second"]), state
        for number in range(len(forms["first"])):
            for who, phone in (("first", first), ("second", second)):
                mine = forms[who][number]
                answer = phone.post(mine.action, mine.data())
                posts += 1
                if problem := refusal(answer):
                    problems.append(f"{state}: {who}'s POST {mine.action} → {problem}")
                if mine.action == "/logout" and server.password:
                    phone.sign_in(server.password)  # locked by that form: in again
    assert problems == [], f"{len(problems)} problems over {posts} posts:\n" + "\n".join(problems)
