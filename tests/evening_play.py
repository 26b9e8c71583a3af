"""Games played over HTTP on the real server, as a phone without JavaScript plays them, and
what the pages must show afterwards — computed here from the bids and tricks entered, never
asked of the app."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from tests.real_server import Answer, Visitor, csrf_token

VERSION = re.compile(r'id="table"[^>]*data-version="(\d+)"')


def points(bid: int, took: int) -> int:
    """A round's points as the players count them: 20 + 10 a trick when the bid is met,
    10 off for each trick over or under."""
    return 20 + 10 * took if bid == took else -10 * abs(bid - took)


@dataclass
class Played:
    """A game as the test entered it."""

    game_id: int
    names: tuple[str, ...]
    planned: int
    first_dealer: int = 0
    rounds: list[tuple[list[int], list[int]]] = field(default_factory=list)

    @property
    def totals(self) -> list[int]:
        totals = [0] * len(self.names)
        for bids, took in self.rounds:
            for seat, (bid, got) in enumerate(zip(bids, took, strict=True)):
                totals[seat] += points(bid, got)
        return totals

    @property
    def finished(self) -> bool:
        return len(self.rounds) == self.planned

    def leaders(self) -> list[str]:
        best = max(self.totals)
        return [name for name, total in zip(self.names, self.totals, strict=True) if total == best]


class Table:
    """The table's phone, over HTTP: sets up games and enters rounds through the forms."""

    def __init__(self, visitor: Visitor) -> None:
        self.visitor = visitor

    def start_game(self, names: tuple[str, ...], rounds: int, first_dealer: int = 0) -> Played:
        token = csrf_token(self.visitor.get("/games/new").body)
        data = [("csrf_token", token)] + [("seats", name) for name in names]
        data += [
            ("first_dealer", str(first_dealer)),
            ("plan", "first_n"),
            ("plan_rounds", str(rounds)),
            ("bid_rule", "free"),
            ("bid_reveal", "open"),
            ("action", "start"),
        ]
        answer = self.visitor.post("/games/new", data)
        assert answer.status == 303, answer
        game_id = int(answer.location.rstrip("/").rsplit("/", 1)[1])
        return Played(game_id, names, rounds, first_dealer)

    def _post(self, game: Played, path: str, data: dict[str, object]) -> Answer:
        page = self.visitor.get(f"/games/{game.game_id}")
        version = VERSION.search(page.body)
        assert version, page
        answer = self.visitor.post(
            f"/games/{game.game_id}/{path}",
            {"csrf_token": csrf_token(page.body), "version": version.group(1), **data},
        )
        assert answer.status == 303, (path, data, answer)
        return answer

    def play_round(self, game: Played, bids: list[int], took: list[int]) -> None:
        number = len(game.rounds) + 1
        players = len(game.names)
        dealer = (game.first_dealer + number - 1) % players
        self._post(game, f"rounds/{number}/trump", {"trump": "suit:hearts"})
        for step in range(players):
            seat = (dealer + 1 + step) % players
            self._post(game, f"rounds/{number}/bid", {"seat": seat, "bid": bids[seat]})
        self._post(
            game,
            f"rounds/{number}/tricks",
            {f"tricks_{seat}": value for seat, value in enumerate(took)},
        )
        game.rounds.append((bids, took))


def dealt(chance: random.Random, players: int, hand: int) -> tuple[list[int], list[int]]:
    """Bids of 0..hand and a split of the hand's tricks."""
    bids = [chance.randint(0, hand) for _ in range(players)]
    took = [0] * players
    for _ in range(hand):
        took[chance.randrange(players)] += 1
    return bids, took


def rounds_with_one_leader(
    seed: int, players: int, hands: list[int]
) -> list[tuple[list[int], list[int]]]:
    """Rounds after each of which one player leads alone (so every page names one)."""
    chance = random.Random(seed)
    while True:
        rounds = [dealt(chance, players, hand) for hand in hands]
        game = Played(0, tuple(str(seat) for seat in range(players)), len(hands))
        alone = True
        for facts in rounds:
            game.rounds.append(facts)
            alone = alone and len(game.leaders()) == 1
        if alone:
            return rounds
