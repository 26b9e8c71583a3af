"""Games played over HTTP on the real server, as a phone without JavaScript plays them, and
what the pages must show afterwards — computed here from the bids and tricks entered, never
asked of the app."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

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

    def start_game(
        self,
        names: tuple[str, ...],
        rounds: int,
        first_dealer: int = 0,
        bid_rule: str = "free",
        bid_reveal: str = "open",
        custom: str | None = None,
    ) -> Played:
        """A game of ``rounds`` rounds (the standard plan cut after them), or of the hand
        sizes ``custom`` lists ("1, 3, 2")."""
        token = csrf_token(self.visitor.get("/games/new").body)
        data = [("csrf_token", token)] + [("seats", name) for name in names]
        plan = [("plan", "first_n"), ("plan_rounds", str(rounds))]
        if custom is not None:
            plan = [("plan", "custom"), ("plan_custom", custom)]
        data += [
            ("first_dealer", str(first_dealer)),
            *plan,
            ("bid_rule", bid_rule),
            ("bid_reveal", bid_reveal),
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

    def post(self, game: Played, path: str, data: dict[str, object]) -> Answer:
        """A form of the table screen (the current version and the visitor's token added)."""
        return self._post(game, path, data)

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


# --- the forms of a page, as a browser without JavaScript would post them ---------------------


@dataclass
class Form:
    method: str
    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    # (name, value) of the first enabled submit button: what Enter or the first tap sends.
    button: tuple[str, str] | None = None

    def data(self) -> list[tuple[str, str]]:
        return self.fields + ([self.button] if self.button and self.button[0] else [])

    def token(self) -> str | None:
        return next((value for name, value in self.fields if name == "csrf_token"), None)


class _FormParser(HTMLParser):
    def __init__(self, page_path: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page_path = page_path
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: tuple[str, list[tuple[str, bool]]] | None = None
        self._textarea: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        at = {name: value or "" for name, value in attrs}
        if tag == "form":
            action = at.get("action") or self.page_path
            self._form = Form(at.get("method", "get").lower(), action)
            self.forms.append(self._form)
        form = self._form
        if form is None or "disabled" in at:
            return
        name = at.get("name", "")
        kind = at.get("type", "submit" if tag == "button" else "text").lower()
        if tag == "input" and kind in ("submit", "image"):
            tag = "button"
        if tag == "button" and kind == "submit":
            if form.button is None:
                form.button = (name, at.get("value", ""))
        elif tag == "input" and name:
            if kind in ("radio", "checkbox"):
                if "checked" in at:
                    form.fields.append((name, at.get("value", "on")))
            elif kind not in ("file", "button", "reset"):
                form.fields.append((name, at.get("value", "")))
        elif tag == "select" and name:
            self._select = (name, [])
        elif tag == "option" and self._select is not None:
            self._select[1].append((at.get("value", ""), "selected" in at))
        elif tag == "textarea" and name:
            self._textarea = (name, [])

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select" and self._select is not None and self._form is not None:
            name, options = self._select
            chosen = [value for value, selected in options if selected] or [
                value for value, _selected in options[:1]
            ]
            self._form.fields += [(name, value) for value in chosen]
            self._select = None
        elif tag == "textarea" and self._textarea is not None and self._form is not None:
            self._form.fields.append((self._textarea[0], "".join(self._textarea[1])))
            self._textarea = None


def forms_of(page: str, page_path: str) -> list[Form]:
    """Every form of the page with what it would send as it is."""
    parser = _FormParser(page_path)
    parser.feed(page)
    return parser.forms
